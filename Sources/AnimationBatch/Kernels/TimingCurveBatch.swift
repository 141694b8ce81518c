import AnimationCore

/// Many cubic-Bézier timing functions evaluated at once: the timing-curve kernel on its own
/// (docs/architecture.md workload W1; semantics §3.2).
///
/// Element `i` has its own curve (per-element coefficients: no gathers, docs/architecture.md, "Measured facts") and
/// is evaluated at `inputs[i]`. The algorithm (documented with `CurveKernel` in the source): a
/// mirrored solve above 0.5, 8 division-free bisection steps on `√s` (9 for inputs below 2⁻¹⁴), a
/// guarded Newton step and a chord step with its slope, in Float SIMD, four 16-lane blocks
/// interleaved. Error bound: ≤ 2e-5 absolute for control points x1, x2 in [0, 1], y in [−1, 2]
/// (measured ≤ 4.9e-6 across the
/// domain’s corners); exact 0 and 1 at the ends; identity curves return their input. Nearly
/// vertical curves, which no Float solve can evaluate within the bound, are evaluated in Double
/// (``usesFloatKernel(for:)``).
public final class TimingCurveBatch: ParallelJob {
    /// The number of curves.
    public let count: Int
    private let curves = CurveStorage()
    private var pool: WorkerPool?

    /// One curve per element.
    public init(functions: [TimingFunction]) {
        count = functions.count
        curves.reserve(functions.count, count: 0)
        var doubles = 0
        for (i, f) in functions.enumerated() {
            curves.set(i, f)
            if curves.isDoubleEvaluated(i) { doubles += 1 }
        }
        referenceEvaluatedCount = doubles
    }

    /// Whether `function` is evaluated by the Float SIMD kernel (true for all but nearly vertical
    /// curves) or by the Double reference, which the kernel hands such curves to so that every
    /// result stays within 2e-5 of the reference (docs/architecture.md precision table, semantics §3.2).
    ///
    /// A curve goes to the reference when its slope magnifies Float's rounding of `x(s)` past the
    /// bound somewhere, by an estimate that overstates the kernel's measured error six- to
    /// elevenfold (so curves the kernel keeps measure within about 3.5e-6). Control points near
    /// (1, y1, 0, y2), whose `x′(s)` nearly vanishes mid-curve, are the typical case: at
    /// (1, −1, 0, 2) and x = 0.5 a Float solve is off by 6e-3. The named curves and all but a few
    /// in a thousand random ones (x1, x2 uniform in [0, 1]) use the kernel.
    public static func usesFloatKernel(for function: TimingFunction) -> Bool {
        CompiledCurve.isWithinFloatPrecision(function)
    }

    /// How many elements are evaluated by the Double reference (see ``usesFloatKernel(for:)``).
    public let referenceEvaluatedCount: Int

    /// `outputs[i] = functions[i](inputs[i])` for the elements of the 16-element blocks in
    /// `blocks` (clamped to `0 ..< blockCount`): inputs outside [0, 1] clamp, NaN gives NaN. Both
    /// buffers must have room for `count` rounded up to a multiple of 16 (the padding lanes are
    /// read and written; their outputs mean nothing).
    public func evaluate(inputs: UnsafePointer<Float>, outputs: UnsafeMutablePointer<Float>, blocks: Range<Int>) {
        let blocks = blocks.clamped(to: 0..<blockCount)
        let c = curves.columns
        let x = UnsafeMutablePointer(mutating: inputs)
        // Four blocks at a time (four independent dependency chains), then one.
        var block = blocks.lowerBound
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 192) { scratch in
            while block + 3 < blocks.upperBound {
                CurveKernel.evaluate4(inputs: x, outputs: outputs, curves: c, block: block * 16, scratch: scratch.baseAddress!)
                block += 4
            }
        }
        while block < blocks.upperBound {
            let i = block * 16
            store16(CurveKernel.evaluate(x: load16(x, i), curves: c, block: i), outputs, i)
            block += 1
        }
    }

    /// `functions[i](inputs[i])` for every element, on `threads` threads: the safe form of
    /// ``evaluate(inputs:outputs:threads:)`` (it copies into padded buffers, so it allocates).
    ///
    /// - Throws: `AnimationError` naming `inputs` when it does not hold exactly ``count`` values.
    public func evaluate(_ inputs: [Float], threads: Int = 1) throws -> [Float] {
        guard inputs.count == count else {
            throw AnimationError(field: "inputs", reason: "needs \(count) values, one per function (got \(inputs.count))")
        }
        guard count > 0 else { return [] }   // below, both arrays hold at least one block: base addresses exist
        let padded = blockCount * 16
        let x = inputs + [Float](repeating: 0, count: padded - count)
        var y = [Float](repeating: 0, count: padded)
        x.withUnsafeBufferPointer { xb in
            // Both hold blockCount · 16 ≥ 16 elements (count > 0), whole blocks as the kernel reads them.
            y.withUnsafeMutableBufferPointer { yb in evaluate(inputs: xb.baseAddress!, outputs: yb.baseAddress!, threads: threads) }
        }
        y.removeLast(padded - count)
        return y
    }

    /// Blocks of 16 covering the elements.
    public var blockCount: Int { (count + 15) / 16 }

    /// Evaluates every element on `threads` threads (1: the caller alone), in contiguous chunks.
    /// Buffers must hold `count` rounded up to a multiple of 16.
    public func evaluate(inputs: UnsafePointer<Float>, outputs: UnsafeMutablePointer<Float>, threads: Int) {
        let blocks = blockCount
        guard threads > 1, blocks > 1 else {
            evaluate(inputs: inputs, outputs: outputs, blocks: 0..<blocks)
            return
        }
        let chunks = min(blocks, threads * 4)
        job = (inputs, outputs, blocks, chunks)
        if pool == nil || pool!.workerCount != threads - 1 { pool = WorkerPool(workers: threads - 1) }
        pool!.run(chunks, job: self)
        job = nil
    }

    /// The parallel evaluation under way: chunk k covers a contiguous block range.
    private var job: (inputs: UnsafePointer<Float>, outputs: UnsafeMutablePointer<Float>, blocks: Int, chunks: Int)?

    package func runChunk(_ k: Int) {
        guard let job else { return }
        evaluate(inputs: job.inputs, outputs: job.outputs, blocks: job.blocks * k / job.chunks..<job.blocks * (k + 1) / job.chunks)
    }
}
