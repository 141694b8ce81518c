import AnimationCore

/// The root nodes of the store's animation groups as a batch: each lane is one top-level group,
/// its timing compiled like a track's, and its "value" the time it gives its children — the
/// group's basic local time after its timing function, `f(p) · d` (semantics §2.7, §7), or NaN
/// where the group shows nothing (§1.4: a group removed on completion, after its end). Its start
/// and finish are its animation's events, reported at most once each by the timing stage's state
/// bytes (§8.1), as for top-level tracks.
///
/// **Why a batch.** Evaluated one by one through `MediaTiming`, W3's 2,000 groups took about a
/// sixth of its frame: the timing stage does sixteen at once. Nested groups (a group inside a
/// group) are rare; the store evaluates them after the roots, one by one, parents first.
///
/// **Error bound.** Child times agree with `MediaTiming`'s within a few Double ulps of the local
/// time (the timing kernel's bound); a group's timing function other than linear is applied in
/// Double (`TimingFunction.value(at:)`), lane by lane, not by the Float curve kernel, so that
/// its children's times keep Double precision.
final class NodeBatch: TrackBatch {
    /// Each node's child time, by node index: the store's column, which tracks inside groups read.
    private let times: Column<Double>
    /// 1 where the group's timing function is linear (the child time is `p · d`).
    private let linear = Column<UInt8>(fill: 1)
    /// Each lane's timing function (read only where it is not linear).
    private var functions: [TimingFunction] = []

    init(times: Column<Double>) {
        self.times = times
        super.init(width: 1)
    }

    /// Adds root node `node` of the animation whose raw handle is `animation`; returns its lane.
    func append(node: Int32, animation: UInt64, timing: CompiledTiming, function: TimingFunction) -> Int {
        let i = appendCommon(track: node, animation: animation, timing: timing, curve: nil)
        linear[i] = function.isLinear ? 1 : 0
        functions.append(function)
        return i
    }

    override func reserveSpecific(_ needed: Int, count: Int) {
        linear.reserve(needed, count: count)
        if functions.capacity < needed { functions.reserveCapacity(needed) }
    }

    override func moveSpecific(_ from: Int, to: Int) {
        linear[to] = linear[from]
        functions[to] = functions[from]
    }

    override func clearSpecific(_ i: Int) {
        linear[i] = 1
        functions.removeLast()   // `i` is the last lane (``TrackBatch/remove(at:)``)
    }

    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let times = self.times.base, nodes = trackID.base, duration = timingColumns.duration.base, linear = self.linear.base
        let count = self.count
        let velocity = velocityStep(time: time, nodeTimes: nodeTimes), rates = velocityFrame?.nodeRates
        functions.withUnsafeBufferPointer { functions in
            evaluateTimed(blocks: blocks, time: time, nodeTimes: nodeTimes) { i, timingBlock in
                var timing: TimingBlock { timingBlock.pointee }   // read where used (see evaluateCurved)
                if let velocity, let nodeRates = rates {
                    // The child time's rate: f′(p) · d · p′ (the reference's `childTimeRate`).
                    let rates = velocity.progressRates(timing, block: i)
                    for lane in 0..<16 where i + lane < count {
                        var rate = 0.0
                        if rates[lane] != 0 {
                            let p = lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8]
                            rate = (linear[i + lane] != 0 ? 1 : functions[i + lane].slope(at: p)) * duration[i + lane] * Double(rates[lane])
                        }
                        nodeRates[Int(nodes[i + lane])] = rate
                    }
                }
                for lane in 0..<16 where i + lane < count {
                    var child = Double.nan
                    if timing.weight[lane] != 0 {
                        let p = lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8]
                        // A linear function is the identity on [0, 1], which `p` is in: `value(at:)`
                        // without the call (and with its +0 for a −0 progress).
                        child = (linear[i + lane] != 0 ? (p > 0 ? p : 0) : functions[i + lane].value(at: p)) * duration[i + lane]
                    }
                    times[Int(nodes[i + lane])] = child
                }
            }
        }
    }
}
