import AnimationCore

/// The timing of one track, precomputed from its `MediaTiming` when the track is compiled.
struct CompiledTiming: Sendable {
    var beginTime: Double
    var speed: Double
    var timeOffset: Double
    /// The effective duration `d` (semantics §1.3).
    var duration: Double
    /// The period `P = d · (autoreverses ? 2 : 1)` (§2.3).
    var period: Double
    /// The active duration `AD` (§2.3), possibly `.infinity`.
    var activeDuration: Double
    /// `k` and `u` at the end of the active duration (the end-inclusive rule of §2.6).
    var endIteration: Double
    var endBasicTime: Double
    var flags: UInt8
    /// The group node whose child time is this track's parent time, or −1 for the frame time.
    var group: Int32

    static let autoreverses: UInt8 = 1
    static let fillsBackwards: UInt8 = 2
    static let fillsForwards: UInt8 = 4
    static let removedOnCompletion: UInt8 = 8
    static let grouped: UInt8 = 16
    static let topLevel: UInt8 = 32

    /// - Parameters:
    ///   - removedOnCompletion: the animation's flag when it is a top-level animation; ignored
    ///     inside groups (semantics §7).
    init(_ t: MediaTiming, topLevel: Bool, removedOnCompletion: Bool, group: Int32) {
        beginTime = t.beginTime
        speed = t.speed
        timeOffset = t.timeOffset
        duration = t.effectiveDuration
        period = t.iterationDuration
        activeDuration = t.activeDuration
        // The same arithmetic as MediaTiming's fold, so the end state agrees exactly.
        let cycles = t.repeatDuration > 0 ? t.repeatDuration / period : (t.repeatCount > 0 ? t.repeatCount : 1)
        var lastCycle = cycles - cycles.rounded(.down)
        if lastCycle == 0 { lastCycle = 1 }
        endIteration = max(0, cycles.rounded(.up) - 1)
        endBasicTime = lastCycle * period
        var f: UInt8 = 0
        if t.autoreverses { f |= Self.autoreverses }
        if t.fillMode.fillsBackwards { f |= Self.fillsBackwards }
        if t.fillMode.fillsForwards { f |= Self.fillsForwards }
        if topLevel && removedOnCompletion { f |= Self.removedOnCompletion }
        if group >= 0 { f |= Self.grouped }
        if topLevel { f |= Self.topLevel }
        flags = f
        self.group = group
    }

    /// A padding lane: a timing that never contributes (it begins at +∞ and never fills), harmlessly.
    static let padding: CompiledTiming = {
        var t = CompiledTiming(MediaTiming(duration: 1), topLevel: false, removedOnCompletion: false, group: -1)
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
    /// 0 before, 1 active, 2 after.
    var phase: SIMD16<Float>
}

/// The local-time kernel: every rule of `MediaTiming` (semantics §2.2–§2.6) for 16 tracks at once.
///
/// **Algorithm.** Per lane, in Double (`SIMD8<Double>` halves; time must stay exact to a microsecond
/// after 30 days, design.md): `e = (tp − beginTime) · speed`; phase from `e` against 0 and `±AD`
/// by the sign of the speed; the raw local time (`e + timeOffset`, or the fill time); the wrap into
/// `[0, AD)` or `(0, AD]` as `x − AD·⌊x/AD⌋` (exact to an ulp of `x`, against the reference's
/// `fmod`); the fold `k = ⌊t/P⌋`, `u = t − kP`, the end-inclusive state at `t = AD`, the
/// autoreverse mirror, `p = u/d`. Everything is branch-free: differences between tracks are data
/// (flags, durations), selected with masks.
///
/// **Error bound.** Phases agree with the reference exactly (the same comparisons on the same
/// Double values); progress agrees to a few Double ulps of the local time.
///
/// **Speed.** See perf-reports: about 1 ns per track on one core (`-Xcc -march=native`).
struct TimingKernel {
    let beginTime: UnsafeMutablePointer<Double>
    let speed: UnsafeMutablePointer<Double>
    let timeOffset: UnsafeMutablePointer<Double>
    let duration: UnsafeMutablePointer<Double>
    let period: UnsafeMutablePointer<Double>
    let activeDuration: UnsafeMutablePointer<Double>
    let endIteration: UnsafeMutablePointer<Double>
    let endBasicTime: UnsafeMutablePointer<Double>
    let flags: UnsafeMutablePointer<UInt8>
    let group: UnsafeMutablePointer<Int32>

    /// The timing of the 16 tracks starting at `i`.
    ///
    /// - Parameters:
    ///   - time: the frame's parent time for tracks outside groups.
    ///   - nodeTimes: each group node's child time this frame (NaN where the group shows nothing).
    @inline(__always)
    func evaluate(block i: Int, time: Double, nodeTimes: UnsafePointer<Double>) -> TimingBlock {
        let flagBytes = load16(flags, i)
        var tpLow = SIMD8<Double>(repeating: time), tpHigh = tpLow
        if any((flagBytes & CompiledTiming.grouped) .!= 0) {
            // Tracks inside groups read their group's child time (a scalar gather; groups are rare).
            for lane in 0..<16 where flagBytes[lane] & CompiledTiming.grouped != 0 {
                let t = nodeTimes[Int(group[i + lane])]
                if lane < 8 { tpLow[lane] = t } else { tpHigh[lane - 8] = t }
            }
        }
        let flagsLow = SIMD8<Int64>(truncatingIfNeeded: flagBytes.lowHalf)
        let flagsHigh = SIMD8<Int64>(truncatingIfNeeded: flagBytes.highHalf)
        let low = Self.fold(tp: tpLow, i, self, flagsLow)
        let high = Self.fold(tp: tpHigh, i + 8, self, flagsHigh)
        return TimingBlock(progressLow: low.progress, progressHigh: high.progress,
                           iteration: narrow(low.iteration, high.iteration),
                           weight: narrow(low.weight, high.weight),
                           phase: narrow(low.phase, high.phase))
    }

    @inline(__always)
    private static func fold(tp: SIMD8<Double>, _ i: Int, _ k: TimingKernel, _ flags: SIMD8<Int64>)
        -> (progress: SIMD8<Double>, iteration: SIMD8<Double>, weight: SIMD8<Double>, phase: SIMD8<Double>) {
        let b = load8(k.beginTime, i), s = load8(k.speed, i), o = load8(k.timeOffset, i)
        let d = load8(k.duration, i), period = load8(k.period, i), ad = load8(k.activeDuration, i)
        let endK = load8(k.endIteration, i), endU = load8(k.endBasicTime, i)
        let zeros = SIMD8<Double>(repeating: 0), ones = SIMD8<Double>(repeating: 1)

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
        var w = x - (x / ad).rounded(.down) * ad
        w.replace(with: w + ad, where: w .< 0)
        w.replace(with: w - ad, where: w .>= ad)
        w.replace(with: ad, where: endInclusive .& (w .== 0))
        let t = x.replacing(with: w, where: finite)

        // §2.6 fill, §1.4 removal, and the undefined: NaN parent time, non-finite local time.
        let autoreverses = (flags & Int64(CompiledTiming.autoreverses)) .!= 0
        let fillsBackwards = (flags & Int64(CompiledTiming.fillsBackwards)) .!= 0
        let fillsForwards = (flags & Int64(CompiledTiming.fillsForwards)) .!= 0
        let removed = ((flags & Int64(CompiledTiming.removedOnCompletion)) .!= 0) .& after
        let contributes = (active .| (before .& fillsBackwards) .| (after .& fillsForwards))
            .& .!removed .& .!tpIsNaN .& (t .< .infinity) .& (t .> -.infinity)

        // §2.5 fold, with the end-inclusive state at t = AD.
        let atEnd = finite .& (t .>= ad)
        var iteration = (t / period).rounded(.down)
        var u = t - iteration * period
        iteration.replace(with: endK, where: atEnd)
        iteration.replace(with: 0, where: iteration .< 0)   // before the first iteration none has completed
        u.replace(with: endU, where: atEnd)
        u.replace(with: 0, where: u .< 0)
        u.replace(with: period, where: u .> period)
        u.replace(with: 2 * d - u, where: autoreverses .& (u .>= d))
        var p = u / d
        p.replace(with: 0, where: p .< 0)
        p.replace(with: 1, where: p .> 1)
        p.replace(with: 0, where: .!contributes)
        iteration.replace(with: 0, where: .!contributes)

        let weight = zeros.replacing(with: ones, where: contributes)
        var phase = ones
        phase.replace(with: 0, where: before)
        phase.replace(with: 2, where: after)
        phase.replace(with: 0, where: tpIsNaN)
        return (p, iteration, weight, phase)
    }
}
