import AnimationCore

// The batches' shared velocity steps (docs/velocity.md, "The batch engine"): each batch's
// kernel takes a ``VelocityStep`` once per call while a frame asks for velocities
// (``TrackBatch/velocityFrame``) and applies it beside its value stage, on the block it has just
// evaluated.

/// What a batch's kernel needs to compute velocities during one call: its timing and curve
/// columns and its velocity columns as raw pointers (taken once per call: rebuilding them per
/// block retained and released every column), the frame's time and node times and rates.
struct VelocityStep {
    let kernel: TimingKernel
    let curves: CurveColumns
    let columns: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let time: Double
    let nodeTimes: UnsafePointer<Double>
    let nodeRates: UnsafePointer<Double>

    /// d p/dt for the 16 tracks of block `i`
    /// (``VelocityKernel/progressRates(_:kernel:block:time:nodeTimes:nodeRates:)``).
    @inline(__always)
    func progressRates(_ timing: TimingBlock, block i: Int) -> SIMD16<Float> {
        VelocityKernel.progressRates(timing, kernel: kernel, block: i, time: time, nodeTimes: nodeTimes, nodeRates: nodeRates)
    }

    /// d f(p)/dt for the 16 tracks of block `i`: the progress rate times the slope of each
    /// track's timing curve at its progress (semantics §3), from the value kernel's solution of
    /// the curve where it has one (four-block runs), else solved here; 0 where a track does not
    /// move.
    @inline(__always)
    func curvedRates(_ timing: TimingBlock, block i: Int, curve: CurveSolution?) -> SIMD16<Float> {
        let rate = progressRates(timing, block: i)
        guard anyLane(rate .!= 0) else { return .zero }
        let p = narrow(timing.progressLow, timing.progressHigh), exact = (timing.progressLow, timing.progressHigh)
        let slope = curve.map { VelocityKernel.curveSlopes($0, progress: p, curves: curves, block: i, moving: rate .!= 0, exact: exact) }
            ?? VelocityKernel.curveSlopes(p, curves: curves, block: i, moving: rate .!= 0, exact: exact)
        return VelocityKernel.masked(rate * slope, rate: rate)
    }

    /// Stores component `c` of block `i`'s velocity.
    @inline(__always)
    func store(_ v: SIMD16<Float>, component c: Int, block i: Int) {
        store16(v, columns[c], i)
    }
}

extension TrackBatch {
    /// This call's ``VelocityStep``, or nil when the frame computes no velocities.
    @inline(__always)
    final func velocityStep(time: Double, nodeTimes: UnsafePointer<Double>) -> VelocityStep? {
        guard let frame = velocityFrame, let columns = velocityPointers else { return nil }
        return VelocityStep(kernel: timingKernel, curves: curves.columns, columns: columns, time: time, nodeTimes: nodeTimes,
                            nodeRates: UnsafePointer(frame.nodeRates))
    }
}
