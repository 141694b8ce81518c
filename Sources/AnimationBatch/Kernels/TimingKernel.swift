import AnimationCore
import CKernelSupport

/// The timing of one track, precomputed from its `MediaTiming` when the track is compiled: six
/// Doubles, a Float and a flag byte (everything else is derived in the kernel, to keep the bytes a
/// frame streams per track low).
struct CompiledTiming: Sendable {
    var beginTime: Double
    var speed: Double
    var timeOffset: Double
    /// The effective duration `d` (semantics §1.3).
    var duration: Double
    /// The active duration `AD` (§2.3), possibly `.infinity`.
    var activeDuration: Double
    /// The progress at the end of the active duration (t = AD, the end-inclusive state of §2.5
    /// that a forwards fill shows, §2.6), and the iterations completed there: computed once here
    /// with the kernel's own operations, so the kernel gives the same bits as if it computed them.
    var endProgress: Double
    var endIteration: Float
    var flags: UInt8
    /// The time node (a group's timing or a layer's clock) whose time is this track's parent
    /// time, or −1 for the frame time.
    var timeNode: Int32

    // Timing flags.
    static let autoreverses: UInt8 = 1
    static let fillsBackwards: UInt8 = 2
    static let fillsForwards: UInt8 = 4
    static let removedOnCompletion: UInt8 = 8
    static let hasTimeNode: UInt8 = 16
    static let topLevel: UInt8 = 32
    // Value flags, set by the batches.
    static let cumulative: UInt8 = 64
    /// An exclusive additive track: its output is the model plus its value (semantics §4.3).
    static let addsBase: UInt8 = 128
    static let timingMask: UInt8 = 63

    /// - Parameters:
    ///   - removedOnCompletion: the animation's flag when it is a top-level animation; ignored
    ///     inside groups (semantics §7).
    init(_ t: MediaTiming, topLevel: Bool, removedOnCompletion: Bool, timeNode: Int32) {
        beginTime = t.beginTime
        speed = t.speed
        timeOffset = t.timeOffset
        duration = t.effectiveDuration
        activeDuration = t.activeDuration
        // The same arithmetic as MediaTiming's fold, so the end state agrees exactly: the last
        // cycle's fraction from the count itself (exact for any count).
        let cycles = t.repeatDuration > 0 ? t.repeatDuration / t.iterationDuration : (t.repeatCount > 0 ? t.repeatCount : 1)
        (endProgress, endIteration) = Self.end(cycles: cycles, duration: duration, autoreverses: t.autoreverses)
        var f: UInt8 = 0
        if t.autoreverses { f |= Self.autoreverses }
        if t.fillMode.fillsBackwards { f |= Self.fillsBackwards }
        if t.fillMode.fillsForwards { f |= Self.fillsForwards }
        if topLevel && removedOnCompletion { f |= Self.removedOnCompletion }
        if topLevel { f |= Self.topLevel }
        if t.isInstant {
            // Reduced motion's instant timing: an active duration of 0 (before from e < 0, after
            // from e = 0 on, §2.4), whose end state is the one its real active duration ends in
            // (MediaTiming.endState, with its time offset). The general fold reads a local time
            // of 0 as that end (``foldGeneral(tp:_:_:_:)``). Repeating forever, it has no end
            // state: it shows nothing in any phase (paused at speed 0 too), marked by an
            // infinite time offset, which the fold's local time turns to NaN.
            let end = t.endState
            activeDuration = 0
            endProgress = end.progress
            endIteration = Float(end.iteration)
            if !end.contributes { timeOffset = .infinity }
        }
        flags = f
        self.timeNode = -1
        point(at: timeNode)
    }

    /// Reads its parent time from group node `node` (a group's or a layer's clock; −1: the
    /// frame's time), with the flag the kernel tests for it.
    mutating func point(at node: Int32) {
        timeNode = node
        flags = node >= 0 ? flags | Self.hasTimeNode : flags & ~Self.hasTimeNode
    }

    /// The end state from the iteration count: `u = frac(cycles)·P` (a whole count ends on a full
    /// period), then the fold's clamps, mirror and division, operation for operation as in
    /// ``TimingKernel`` (which used to compute it per frame).
    static func end(cycles: Double, duration d: Double, autoreverses: Bool) -> (progress: Double, iteration: Float) {
        let period = autoreverses ? 2 * d : d
        var lastCycle = cycles - cycles.rounded(.down)
        if lastCycle == 0 { lastCycle = 1 }
        var iteration = cycles.rounded(.up) - 1
        if iteration < 0 { iteration = 0 }
        var u = lastCycle * period
        if u < 0 { u = 0 }
        if u > period { u = period }
        if autoreverses && u >= d { u = 2 * d - u }
        var p = u / d
        if p < 0 { p = 0 }
        if p > 1 { p = 1 }
        return (p, Float(iteration))
    }

    /// Plain timing: speed 1, no time offset, a positive active duration — almost every animation.
    /// The kernel evaluates a block whose tracks are all plain without the speed and offset
    /// columns, the reversed-playback cases or the wrap (``TimingKernel``), bit for bit as the
    /// general path would.
    var isPlain: Bool { speed == 1 && timeOffset == 0 && activeDuration > 0 }

    /// Forward timing: speed 1 and a positive active duration, any time offset (a layer spread in
    /// phase, a group's child selecting a sub-range). The kernel folds it without the speed column
    /// or the reversed-playback cases, bit for bit as the general path would.
    var runsForward: Bool { speed == 1 && activeDuration > 0 }

    /// The kernel's fold class for the `foldClass` column: 2 plain, 1 forward, 0 general.
    var foldClass: UInt8 { isPlain ? 2 : (runsForward ? 1 : 0) }

    /// A padding lane: a timing that never contributes (it begins at +∞ and never fills), harmlessly.
    static let padding: CompiledTiming = {
        var t = CompiledTiming(MediaTiming(duration: 1), topLevel: false, removedOnCompletion: false, timeNode: -1)
        t.beginTime = .infinity
        return t
    }()
}

/// What the timing stage produces for one block of 16 tracks.
struct TimingBlock {
    /// Progress `p` in Double (two halves): the curve stage reads it before narrowing, so that the
    /// mirrored solve near `p = 1` keeps full precision.
    var progressLow: SIMD8<Double>
    var progressHigh: SIMD8<Double>
    /// Completed iterations `k`.
    var iteration: SIMD16<Float>
    /// 1 where the track contributes, 0 elsewhere.
    var weight: SIMD16<Float>
    /// 0 before, 1 active, 2 after; 1.5 where active in a half the fold mirrored (an
    /// autoreversed half, `u ≥ d`): the velocity's sign (``VelocityKernel/progressRates(_:kernel:block:time:nodeTimes:nodeRates:)``)
    /// read from the fold instead of folding the time again. Its floor is the phase.
    var phase: SIMD16<Float>
    /// The flag bytes of the 16 tracks, as Floats (0…255).
    var flags: SIMD16<Float>

    /// All zeros (a placeholder for scratch storage).
    static var zero: TimingBlock {
        TimingBlock(progressLow: .zero, progressHigh: .zero, iteration: .zero, weight: .zero, phase: .zero, flags: .zero)
    }

    /// 1 where `flag` is set, 0 elsewhere (a Float bit test: integer vector selects compile lane by
    /// lane here).
    @inline(__always)
    func bit(_ flag: UInt8) -> SIMD16<Float> {
        let scaled = flags * (1 / Float(flag))          // the flag's bit becomes the units digit
        let shifted = SIMDMath.floor(scaled)
        return shifted - 2 * SIMDMath.floor(shifted * 0.5)   // that digit: 0 or 1
    }
}

/// The local-time kernel: every rule of `MediaTiming` (semantics §2.2–§2.6) for 16 tracks at once.
///
/// **Algorithm.** Per lane, in Double (`SIMD8<Double>` halves; time must stay exact to a microsecond
/// after 30 days, docs/architecture.md): `e = (tp − beginTime) · speed`; phase from `e` against 0 and `±AD`
/// by the sign of the speed; the raw local time (`e + timeOffset`, or the fill time); the wrap into
/// `[0, AD)` or `(0, AD]` as `x − AD·⌊x/AD⌋` (exact to an ulp of `x`, against the reference's
/// `fmod`); the fold `k = ⌊t/P⌋`, `u = t − kP`, the end-inclusive state at `t = AD`, the
/// autoreverse mirror, `p = u/d`. Everything is branch-free within a block: differences between
/// tracks are data (flags, durations), selected with masks.
///
/// **Forward blocks.** Layers spread in phase give most of their animations a time offset at
/// speed 1 (``CompiledTiming/runsForward``): those blocks skip the speed column and the
/// reversed-playback cases, and the wrap where no lane's active duration is finite, with the
/// general path's bits, in the same four-block run as plain blocks (W3 on one thread: 0.193 →
/// 0.183 ms a frame).
///
/// **Plain blocks.** Almost every animation has speed 1 and no time offset (``CompiledTiming/isPlain``,
/// one byte per track). A block whose 16 tracks are all plain skips the speed and offset columns,
/// the reversed-playback cases and the wrap (its local time is already in range), and gives the
/// same bits as the general path — a test evaluates the same animations in plain blocks and in
/// mixed ones and compares every output and event. Four such blocks are folded together
/// (``evaluate(blocks:count:time:nodeTimes:state:iterations:into:)``); other blocks take the general fold,
/// out of line. The end state (`t = AD`) of every track is precomputed when it is compiled
/// (``CompiledTiming/endProgress``).
///
/// **Error bound.** Phases agree with the reference exactly (the same comparisons on the same
/// Double values); progress agrees to a few Double ulps of the local time.
///
/// **Speed.** About 175 instructions per 8 lanes with AVX2 for the general fold (callgrind); its
/// loads wait on memory unless prefetched (``prefetchDistance``). Folding four plain blocks at once,
/// with the end state precomputed, cut W2's basic, spring and path frames by 28–35 %; with 8,192
/// basic tracks in cache the timing stage is still about half of the frame. The history of these
/// figures is in `perf-reports/kernel-history.md`.
struct TimingKernel {
    /// The fold's results for eight lanes.
    typealias Lanes = (progress: SIMD8<Double>, iteration: SIMD8<Double>, weight: SIMD8<Double>, phase: SIMD8<Double>)

    let beginTime: UnsafeMutablePointer<Double>
    let speed: UnsafeMutablePointer<Double>
    let timeOffset: UnsafeMutablePointer<Double>
    let duration: UnsafeMutablePointer<Double>
    let activeDuration: UnsafeMutablePointer<Double>
    let endProgress: UnsafeMutablePointer<Double>
    let endIteration: UnsafeMutablePointer<Float>
    let flags: UnsafeMutablePointer<UInt8>
    let timeNode: UnsafeMutablePointer<Int32>
    /// The track's fold class (``CompiledTiming/foldClass``): 2 plain, 1 forward, 0 general.
    let foldClass: UnsafeMutablePointer<UInt8>

    /// The kernel over `columns` (valid until they grow: taken per frame).
    init(_ columns: TimingColumns) {
        beginTime = columns.beginTime.base
        speed = columns.speed.base
        timeOffset = columns.timeOffset.base
        duration = columns.duration.base
        activeDuration = columns.activeDuration.base
        endProgress = columns.endProgress.base
        endIteration = columns.endIteration.base
        flags = columns.flags.base
        timeNode = columns.timeNode.base
        foldClass = columns.foldClass.base
    }

    /// How far ahead (in tracks) the kernels prefetch the columns they stream: 256 tracks, 2 KiB of
    /// a Double column. A frame streams 20 to 30 columns at once, more than the hardware
    /// prefetchers follow: in paired runs on the two cores (same moment, same noise), the timing
    /// columns' prefetch cut a W2 frame of 1,000,000 properties on one thread by 10–20 %, and the
    /// curve and value columns' by a further 5–10 %; 512 tracks measured the same as 256.
    @_transparent static var prefetchDistance: Int { 256 }

    /// The timing of the 16 tracks starting at `i`.
    ///
    /// - Parameters:
    ///   - time: the frame's parent time for tracks outside groups.
    ///   - nodeTimes: each group node's child time this frame (NaN where the group shows nothing).
    @inline(__always)
    func evaluate(block i: Int, time: Double, nodeTimes: UnsafePointer<Double>) -> TimingBlock {
        // Bytes in memory, other types in registers: on this toolchain comparisons and selects of
        // UInt8 vectors (and == / != and selects of any integer vector, and integer operations with
        // a scalar operand) compile lane by lane; everything on Float/Double vectors, and ordering
        // comparisons of Int64 vectors with vector operands, compile to single instructions.
        // The Double columns of the block `prefetchDistance` tracks ahead (two lines each).
        let ahead = i + Self.prefetchDistance
        prefetchBlock(beginTime, at: ahead)
        prefetchBlock(duration, at: ahead)
        prefetchBlock(activeDuration, at: ahead)
        prefetchBlock(endProgress, at: ahead)
        animation_prefetch(endIteration + ahead)
        // A block of plain timings never reads its speed and offset columns, a forward one its
        // speed column; they are prefetched while the blocks are not plain (neighbouring blocks
        // tend to be alike).
        let foldClasses = SIMDMath.float(load16(foldClass, i))
        let plainBlock = allLanes(foldClasses .> 1.5)
        let forwardBlock = allLanes(foldClasses .> 0.5)
        animation_prefetch(foldClass + ahead)
        if !plainBlock {
            if !forwardBlock { prefetchBlock(speed, at: ahead) }
            prefetchBlock(timeOffset, at: ahead)
        }
        let flagBytes = load16(flags, i)
        var tpLow = SIMD8<Double>(repeating: time), tpHigh = tpLow
        if anyLane(SIMDMath.float(flagBytes & SIMD16<UInt8>(repeating: CompiledTiming.hasTimeNode)) .> 0) {
            // Tracks inside groups read their group's child time (a scalar gather; groups are rare).
            for lane in 0..<16 where flagBytes[lane] & CompiledTiming.hasTimeNode != 0 {
                let t = nodeTimes[Int(timeNode[i + lane])]
                if lane < 8 { tpLow[lane] = t } else { tpHigh[lane - 8] = t }
            }
        }
        let low = plainBlock ? Self.foldPlain(tp: tpLow, i, self, widenLow(flagBytes))
            : forwardBlock ? Self.foldForward(tp: tpLow, i, self, widenLow(flagBytes))
            : Self.foldGeneral(tp: tpLow, i, self, widenLow(flagBytes))
        let high = plainBlock ? Self.foldPlain(tp: tpHigh, i + 8, self, widenHigh(flagBytes))
            : forwardBlock ? Self.foldForward(tp: tpHigh, i + 8, self, widenHigh(flagBytes))
            : Self.foldGeneral(tp: tpHigh, i + 8, self, widenHigh(flagBytes))
        return Self.block(low, high, flagBytes)
    }

    /// §2.5 fold, shared by the plain and general folds: `k = ⌊t/P⌋` (none completed before the
    /// first iteration), `u = t − kP` clamped into `[0, P]`, the autoreverse mirror, `p = u/d`
    /// clamped into `[0, 1]`; the precomputed end state where `atEnd` (``CompiledTiming/endProgress``);
    /// 0 and 0 where the track does not contribute; and the lanes it mirrored (`u ≥ d`), which
    /// the folds mark in the phase for the velocity's sign (``TimingBlock/phase``).
    ///
    /// Without `iterations` (a constant where it is inlined) the iterations are not finished —
    /// no clamp, no end state, no `endIteration` read — and come out 0.
    @_transparent
    private static func fold(_ t: SIMD8<Double>, period: SIMD8<Double>, duration d: SIMD8<Double>,
                             autoreverses: SIMDMask<SIMD8<Int64>>, atEnd: SIMDMask<SIMD8<Int64>>,
                             contributes: SIMDMask<SIMD8<Int64>>, iterations: Bool = true,
                             _ i: Int, _ k: TimingKernel) -> (SIMD8<Double>, SIMD8<Double>, SIMDMask<SIMD8<Int64>>) {
        var iteration = SIMDMath.floor(t / period)
        var u = t - iteration * period
        u.replace(with: 0, where: u .< 0)
        u.replace(with: period, where: u .> period)
        let mirrored = autoreverses .& (u .>= d)
        u.replace(with: 2 * d - u, where: mirrored)
        var p = u / d
        p.replace(with: 0, where: p .< 0)
        p.replace(with: 1, where: p .> 1)
        p.replace(with: load8(k.endProgress, i), where: atEnd)
        p.replace(with: 0, where: .!contributes)
        guard iterations else { return (p, SIMD8<Double>(repeating: 0), mirrored) }
        iteration.replace(with: 0, where: iteration .< 0)   // before the first iteration none has completed
        iteration.replace(with: load8Widened(k.endIteration, i), where: atEnd)
        iteration.replace(with: 0, where: .!contributes)
        return (p, iteration, mirrored)
    }

    /// The fold of eight lanes whose timings are all plain (speed 1, offset 0, AD > 0): the general
    /// fold (``foldGeneral(tp:_:_:_:)``) with those constants folded by hand, giving the same bits.
    /// `e = (tp − b)·1` is `tp − b`; no lane runs backwards or pauses; the raw local time is
    /// `e + 0` while active (which turns −0 into +0, as the general path does), 0 before and `AD`
    /// after, already inside `[0, AD]`, so the wrap (which would return it unchanged) is skipped;
    /// `t ≥ AD` happens only after (an active `e` is below `AD`, NaN compares false), and a local
    /// time is infinite only after an infinite `AD`.
    @_transparent
    private static func foldPlain(tp: SIMD8<Double>, _ i: Int, _ k: TimingKernel, _ flags: SIMD8<Int64>,
                                  iterations: Bool = true) -> Lanes {
        let zeros = SIMD8<Double>(repeating: 0), ones = SIMD8<Double>(repeating: 1)
        let b = load8(k.beginTime, i)
        let d = load8(k.duration, i), ad = load8(k.activeDuration, i)
        let none = SIMD8<Int64>(repeating: 0)
        let autoreverses = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.autoreverses))) .> none
        let removedOnCompletion = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.removedOnCompletion))) .> none
        let fillsBackwards = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.fillsBackwards))) .> none
        let fillsForwards = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.fillsForwards))) .> none
        let period = d.replacing(with: 2 * d, where: autoreverses)
        let tpIsNaN = tp .!= tp
        let e = tp - b
        let before = e .< 0, after = e .>= ad
        // Active: e + 0 (−0 becomes +0, as e + o does); before 0; after AD (AD + 0 = AD).
        var t = e + zeros
        t.replace(with: zeros, where: before)
        t.replace(with: ad, where: after)
        let contributes = (.!(before .| after) .| (before .& fillsBackwards) .| (after .& fillsForwards .& .!removedOnCompletion))
            .& .!tpIsNaN .& (t .< .infinity)
        // t ≥ AD only after (active e < AD; before 0 < AD; NaN fails).
        let atEnd = after .& (ad .< .infinity)
        let (p, iteration, mirrored) = fold(t, period: period, duration: d, autoreverses: autoreverses, atEnd: atEnd,
                                            contributes: contributes, iterations: iterations, i, k)
        let weight = zeros.replacing(with: ones, where: contributes)
        var phase = ones.replacing(with: 1.5, where: mirrored)   // the mirrored half, for velocities
        phase.replace(with: 0, where: before .| tpIsNaN)
        phase.replace(with: 2, where: after)
        return (p, iteration, weight, phase)
    }

    /// The fold of eight lanes whose timings all run forwards (speed 1, AD > 0, ``CompiledTiming/runsForward``)
    /// with any time offset: the general fold (``foldGeneral(tp:_:_:_:)``) with `s = 1` folded by
    /// hand, giving the same bits — `e = (tp − b)·1` is `tp − b`, nothing runs backwards or pauses,
    /// the raw local time is `e + o` while active, `o` before and `AD + o` after, end-inclusive
    /// only after. The wrap into the active duration, a division, is skipped where all eight
    /// active durations are infinite (repeating forever): it would leave the time unchanged.
    @_transparent
    private static func foldForward(tp: SIMD8<Double>, _ i: Int, _ k: TimingKernel, _ flags: SIMD8<Int64>,
                                    iterations: Bool = true) -> Lanes {
        let zeros = SIMD8<Double>(repeating: 0), ones = SIMD8<Double>(repeating: 1)
        let b = load8(k.beginTime, i), o = load8(k.timeOffset, i)
        let d = load8(k.duration, i), ad = load8(k.activeDuration, i)
        let none = SIMD8<Int64>(repeating: 0)
        let autoreverses = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.autoreverses))) .> none
        let removedOnCompletion = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.removedOnCompletion))) .> none
        let fillsBackwards = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.fillsBackwards))) .> none
        let fillsForwards = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.fillsForwards))) .> none
        let period = d.replacing(with: 2 * d, where: autoreverses)
        let tpIsNaN = tp .!= tp
        let e = tp - b
        let before = e .< 0, after = e .>= ad
        let active = .!(before .| after)
        var x = e + o
        x.replace(with: o, where: before)
        x.replace(with: ad + o, where: after)
        let finite = ad .< .infinity
        var t = x
        if ad.min() < .infinity {   // some lane's active duration is finite
            var w = x - SIMDMath.floor(x / ad) * ad
            w.replace(with: w + ad, where: w .< 0)
            w.replace(with: w - ad, where: w .>= ad)
            w.replace(with: ad, where: after .& (w .== 0))   // end-inclusive only after
            t.replace(with: w, where: finite)
        }
        let removed = removedOnCompletion .& after
        let contributes = (active .| (before .& fillsBackwards) .| (after .& fillsForwards))
            .& .!removed .& .!tpIsNaN .& (t .< .infinity) .& (t .> -.infinity)
        let atEnd = finite .& (t .>= ad)
        let (p, iteration, mirrored) = fold(t, period: period, duration: d, autoreverses: autoreverses, atEnd: atEnd,
                                            contributes: contributes, iterations: iterations, i, k)
        let weight = zeros.replacing(with: ones, where: contributes)
        var phase = ones.replacing(with: 1.5, where: mirrored)   // the mirrored half, for velocities
        phase.replace(with: 0, where: before)
        phase.replace(with: 2, where: after)
        phase.replace(with: 0, where: tpIsNaN)
        return (p, iteration, weight, phase)
    }

    /// The timing of `count` (1 to 4) consecutive blocks from track `i`, written to `timings`, with
    /// their state bytes stored (``StatePointers/store(_:block:)``).
    ///
    /// Four blocks of plain timings outside groups (almost all of them) go through one straight
    /// run of eight plain folds, free to be interleaved: each fold is a chain of dependent
    /// operations through two Double divisions. One call per four blocks, from every batch kind;
    /// the vectors stay in registers (the fold called out of line, as before, took its arguments
    /// in 128-bit pieces and returned them through memory). Other groups of blocks go one by one.
    ///
    /// - Parameter iterations: whether the caller reads ``TimingBlock/iteration`` (its cumulative
    ///   tracks, ``TrackBatch/readsIterations``). When it does not, the four-block path leaves
    ///   iterations 0 and skips their clamp, their end state and the `endIteration` column (4 of
    ///   the 38 timing bytes a plain track streams); blocks that go one by one compute them anyway.
    @inline(never)
    func evaluate(blocks i: Int, count: Int, time: Double, nodeTimes: UnsafePointer<Double>, state: StatePointers,
                  iterations: Bool, into timings: UnsafeMutablePointer<TimingBlock>) {
        if count == 4 {
            // The least fold class of each lane over the four blocks (Float vectors, compared and
            // selected: a byte-vector minimum compiles lane by lane, and the standard library's
            // `pointwiseMin` was left a generic call, 8 % of a W3 frame).
            @_transparent func least(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> { a.replacing(with: b, where: b .< a) }
            let p = least(least(SIMDMath.float(load16(foldClass, i)), SIMDMath.float(load16(foldClass, i + 16))),
                          least(SIMDMath.float(load16(foldClass, i + 32)), SIMDMath.float(load16(foldClass, i + 48))))
            let g = SIMD16<UInt8>(repeating: CompiledTiming.hasTimeNode)
            let f0 = load16(flags, i), f1 = load16(flags, i + 16), f2 = load16(flags, i + 32), f3 = load16(flags, i + 48)
            if allLanes(p .> 0.5) && !anyLane(SIMDMath.float((f0 | f1 | f2 | f3) & g) .> 0) {
                // One copy of the straight run per fold and `iterations`, each a constant: the modes
                // are types, so each is a generic specialisation. (Passed as a Bool, the calls were
                // merged into one, with the flag tested at run time: the run is too large to inline.)
                let flags = (f0, f1, f2, f3)
                switch (allLanes(p .> 1.5), iterations) {
                case (true, true): straightBlocks(i, time: time, state: state, mode: ReadsIterations.self, fold: PlainFold.self, flags: flags, into: timings)
                case (true, false): straightBlocks(i, time: time, state: state, mode: SkipsIterations.self, fold: PlainFold.self, flags: flags, into: timings)
                case (false, true): straightBlocks(i, time: time, state: state, mode: ReadsIterations.self, fold: ForwardFold.self, flags: flags, into: timings)
                case (false, false): straightBlocks(i, time: time, state: state, mode: SkipsIterations.self, fold: ForwardFold.self, flags: flags, into: timings)
                }
                return
            }
        }
        for k in 0..<count {
            let timing = evaluate(block: i + 16 * k, time: time, nodeTimes: nodeTimes)
            state.store(timing, block: i + 16 * k)
            timings[k] = timing
        }
    }

    /// The straight run of eight plain or forward folds over four blocks (``evaluate(blocks:count:time:nodeTimes:state:iterations:into:)``).
    @inline(__always)
    private func straightBlocks<Mode: IterationMode, Fold: FoldMode>(_ i: Int, time: Double, state: StatePointers, mode: Mode.Type,
                                                                     fold: Fold.Type,
                                                                     flags f: (SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>),
                                                                     into timings: UnsafeMutablePointer<TimingBlock>) {
        let iterations = Mode.readsIterations
        let ahead = i + Self.prefetchDistance
        // A range, not `stride(from:to:by:)`: in this large function the stride's iterator was
        // left as a call per iteration (with a `vzeroupper` and spills around it).
        for k in 0..<4 {
            let at = ahead + 16 * k
            prefetchBlock(beginTime, at: at)
            prefetchBlock(duration, at: at)
            prefetchBlock(activeDuration, at: at)
            prefetchBlock(endProgress, at: at)
            if iterations { animation_prefetch(endIteration + at) }
        }
        animation_prefetch(foldClass + ahead)
        if Fold.forward {
            for k in 0..<4 { prefetchBlock(timeOffset, at: ahead + 16 * k) }
        }
        let tp = SIMD8<Double>(repeating: time)
        let (f0, f1, f2, f3) = f
        @_transparent func fold(_ j: Int, _ flags: SIMD8<Int64>) -> Lanes {
            Fold.forward ? Self.foldForward(tp: tp, j, self, flags, iterations: iterations)
                         : Self.foldPlain(tp: tp, j, self, flags, iterations: iterations)
        }
        let r0 = fold(i, widenLow(f0)), r1 = fold(i + 8, widenHigh(f0))
        let r2 = fold(i + 16, widenLow(f1)), r3 = fold(i + 24, widenHigh(f1))
        let r4 = fold(i + 32, widenLow(f2)), r5 = fold(i + 40, widenHigh(f2))
        let r6 = fold(i + 48, widenLow(f3)), r7 = fold(i + 56, widenHigh(f3))
        timings[0] = Self.block(r0, r1, f0)
        timings[1] = Self.block(r2, r3, f1)
        timings[2] = Self.block(r4, r5, f2)
        timings[3] = Self.block(r6, r7, f3)
        for k in 0..<4 { state.store(timings[k], block: i + 16 * k) }
    }

    /// A timing block from its two halves.
    @_transparent
    private static func block(_ low: Lanes, _ high: Lanes, _ flagBytes: SIMD16<UInt8>) -> TimingBlock {
        TimingBlock(progressLow: low.progress, progressHigh: high.progress,
                    iteration: narrow(low.iteration, high.iteration),
                    weight: narrow(low.weight, high.weight),
                    phase: narrow(low.phase, high.phase),
                    flags: SIMDMath.float(flagBytes))
    }

    /// The timing of eight lanes, every rule: the general fold, out of line (blocks with a speed
    /// other than 1, a time offset or a degenerate active duration are rare).
    @inline(never)
    private static func foldGeneral(tp: SIMD8<Double>, _ i: Int, _ k: TimingKernel, _ flags: SIMD8<Int64>) -> Lanes {
        let zeros = SIMD8<Double>(repeating: 0), ones = SIMD8<Double>(repeating: 1)
        let b = load8(k.beginTime, i)
        let s = load8(k.speed, i), o = load8(k.timeOffset, i)
        let d = load8(k.duration, i), ad = load8(k.activeDuration, i)
        // Integer vector operations only with vector operands (see above); written out, not as a
        // local function: a closure here was left uninlined (a call per flag and block, measured).
        let none = SIMD8<Int64>(repeating: 0)
        let autoreverses = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.autoreverses))) .> none
        let removedOnCompletion = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.removedOnCompletion))) .> none
        let fillsBackwards = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.fillsBackwards))) .> none
        let fillsForwards = (flags & SIMD8<Int64>(repeating: Int64(CompiledTiming.fillsForwards))) .> none
        let period = d.replacing(with: 2 * d, where: autoreverses)   // §2.3: P = d · (ar ? 2 : 1)

        // §2.4: e = (tp − b)·s; speed 0 pauses at e = 0 whatever tp is (a NaN tp still shows nothing).
        let tpIsNaN = tp .!= tp
        let pos = s .> 0, neg = s .< 0
        var e = (tp - b) * s
        e.replace(with: 0, where: s .== 0)
        let before = (pos .& (e .< 0)) .| (neg .& (e .> 0))
        let after = (pos .& (e .>= ad)) .| (neg .& (e .<= -ad))
        let active = .!(before .| after)

        // Raw local time: active e + o; before (backwards fill) o; after (forwards fill) the end.
        var x = e + o
        x.replace(with: o, where: before)
        x.replace(with: (ad + o).replacing(with: o - ad, where: neg), where: after)
        // Reversed playback and the forwards-fill end use (0, AD]; everything else [0, AD).
        let endInclusive = (neg .& .!after) .| (pos .& after)

        // The wrap into the active duration (finite AD only).
        let finite = ad .< .infinity
        var t = x
        var w = x - SIMDMath.floor(x / ad) * ad
        w.replace(with: w + ad, where: w .< 0)
        w.replace(with: w - ad, where: w .>= ad)
        w.replace(with: ad, where: endInclusive .& (w .== 0))
        t.replace(with: w, where: finite)
        // An instant timing (AD = 0, reduced motion) is at its end whatever its time: its end
        // state is precomputed (``CompiledTiming/endProgress``); the wrap above divided by 0. One
        // with no end state (an infinite offset) keeps the NaN: it shows nothing.
        t.replace(with: zeros, where: (ad .== zeros) .& (o .< .infinity))

        // §2.6 fill, §1.4 removal, and the undefined: NaN parent time, non-finite local time.
        let removed = removedOnCompletion .& after
        let contributes = (active .| (before .& fillsBackwards) .| (after .& fillsForwards))
            .& .!removed .& .!tpIsNaN .& (t .< .infinity) .& (t .> -.infinity)

        // §2.5 fold, with the end-inclusive state at t = AD precomputed (``CompiledTiming/endProgress``).
        let atEnd = finite .& (t .>= ad)
        let (p, iteration, mirrored) = fold(t, period: period, duration: d, autoreverses: autoreverses, atEnd: atEnd,
                                            contributes: contributes, i, k)

        let weight = zeros.replacing(with: ones, where: contributes)
        var phase = ones.replacing(with: 1.5, where: mirrored)   // the mirrored half, for velocities
        phase.replace(with: 0, where: before)
        phase.replace(with: 2, where: after)
        phase.replace(with: 0, where: tpIsNaN)
        return (p, iteration, weight, phase)
    }
}

/// Whether the four-block plain timing path finishes iterations, as a type: each mode gets its own
/// specialisation of the path, with the flag a constant in it.
protocol IterationMode {
    static var readsIterations: Bool { get }
}

/// Which fold the four-block straight run uses, as a type (see ``IterationMode``).
protocol FoldMode {
    static var forward: Bool { get }
}

/// Every lane plain (``CompiledTiming/isPlain``).
enum PlainFold: FoldMode {
    @_transparent static var forward: Bool { false }
}

/// Every lane forward (``CompiledTiming/runsForward``), some with a time offset.
enum ForwardFold: FoldMode {
    @_transparent static var forward: Bool { true }
}

/// The plain path finishes iterations (some track of the batch is cumulative).
enum ReadsIterations: IterationMode {
    @_transparent static var readsIterations: Bool { true }
}

/// The plain path leaves iterations 0 (no track of the batch reads them).
enum SkipsIterations: IterationMode {
    @_transparent static var readsIterations: Bool { false }
}

/// Prefetches the two cache lines that hold a 16-track block of a Double column starting at
/// track `i` (a hint: never faults, never changes results).
@inline(__always)
func prefetchBlock(_ column: UnsafeMutablePointer<Double>, at i: Int) {
    animation_prefetch(column + i)
    animation_prefetch(column + i + 8)
}
