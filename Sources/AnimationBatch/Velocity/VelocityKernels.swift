import AnimationCore

/// What a frame that computes velocities (``FrameEvaluator/Configuration/computesVelocity``) hands
/// its batches: each time node's rate — d(node time)/d(frame time) — beside its time. The
/// evaluator sets it on every batch before the kernels and clears it when velocities are off, so
/// a batch tests one optional per call to learn whether to compute them.
struct VelocityFrame {
    /// Parallel to the node times: written by the clock pass, the group roots and the nested
    /// nodes before any track reads them (parents first).
    let nodeRates: UnsafeMutablePointer<Double>
}

/// What the timing-curve kernel solved for 16 lanes (``CurveKernel/evaluate(_:count:curves:block:scratch:outputs:parameters:)``):
/// each lane's curve parameter, of the mirrored curve where `mirrored` is 1 (progress above ½).
struct CurveSolution {
    var parameter: SIMD16<Float>
    var mirrored: SIMD16<Float>
}

/// The SIMD pieces every batch's velocity is made of (docs/velocity.md, "The batch engine"): the
/// chain rule of the scalar reference, sixteen tracks at once, on what the value kernels already
/// computed.
enum VelocityKernel {
    /// d(progress)/d(frame time) of the 16 tracks of block `i` (semantics §2.4–§2.5, the
    /// reference's `TimingState.progressRate`): `±speed / duration × parent rate` while active —
    /// negative in an autoreversed half played forwards —, 0 in fills, before and after. The
    /// half is the one the timing kernel's fold mirrored (phase 1.5, ``TimingBlock/phase``); a
    /// lane playing backwards at an exact turn (progress 0 or 1) folds its local time again in
    /// Double, with the timing kernel's operations, for the reference's rule there (the half the
    /// play moves into, which the fold does not say). The parent rate is 1 for the frame's time,
    /// the node's rate inside a group or under a layer clock. (Folding every autoreversing lane
    /// again cost a fifth of the time velocities add to W2's frame.)
    @inline(__always)
    static func progressRates(_ timing: TimingBlock, kernel k: TimingKernel, block i: Int, time: Double,
                              nodeTimes: UnsafePointer<Double>, nodeRates: UnsafePointer<Double>) -> SIMD16<Float> {
        let phase = timing.phase
        let active = (phase .> 0.5) .& (phase .< 1.75) .& (timing.weight .> 0)
        guard anyLane(active) else { return .zero }
        let flags = load16(k.flags, i)
        let nested = SIMDMath.float(flags & SIMD16<UInt8>(repeating: CompiledTiming.hasTimeNode)) .> 0
        let reverses = SIMDMath.float(flags & SIMD16<UInt8>(repeating: CompiledTiming.autoreverses)) .> 0
        let (speedLow, speedHigh) = load16(k.speed, i)
        let (durationLow, durationHigh) = load16(k.duration, i)
        var rateLow = speedLow / durationLow, rateHigh = speedHigh / durationHigh
        let turns = anyLane(reverses .& active)
        guard anyLane(nested) || turns else { return narrow(rateLow, rateHigh).replacing(with: 0, where: .!active) }
        var parentLow = SIMD8<Double>(repeating: time), parentHigh = parentLow
        for lane in 0..<16 where nested[lane] {
            // A node index the store set with the track's timing: inside `nodeTimes` and `nodeRates`.
            let node = Int(k.timeNode[i + lane])
            if lane < 8 {
                parentLow[lane] = nodeTimes[node]
                rateLow[lane] *= nodeRates[node]
            } else {
                parentHigh[lane - 8] = nodeTimes[node]
                rateHigh[lane - 8] *= nodeRates[node]
            }
        }
        var rate = narrow(rateLow, rateHigh)
        if turns {
            // Only autoreversing lanes turn: the fold mirrors no other (and `backwards` holds none).
            var sign = SIMD16<Float>(repeating: 1).replacing(with: -1, where: phase .== 1.5)
            // A lane playing backwards takes the fold's half too, except at a turn (progress 0 or
            // 1): the fold puts a turn in the half that starts there, backward play moves into
            // the one before. Inside a half both read the same `u`, so only those lanes fold again.
            let p = narrow(timing.progressLow, timing.progressHigh)
            let backwards = reverses .& active .& (narrow(speedLow, speedHigh) .< 0) .& ((p .== 0) .| (p .== 1))
            if anyLane(backwards) {
                let (beginLow, beginHigh) = load16(k.beginTime, i)
                let (offsetLow, offsetHigh) = load16(k.timeOffset, i)
                let (activeLow, activeHigh) = load16(k.activeDuration, i)
                let folded = narrow(backwardDirection(parent: parentLow, begin: beginLow, speed: speedLow, offset: offsetLow,
                                                      duration: durationLow, activeDuration: activeLow),
                                    backwardDirection(parent: parentHigh, begin: beginHigh, speed: speedHigh, offset: offsetHigh,
                                                      duration: durationHigh, activeDuration: activeHigh))
                sign.replace(with: folded, where: backwards)
            }
            rate *= sign
        }
        return rate.replacing(with: 0, where: .!active)
    }

    /// +1 into a forward half, −1 into an autoreversed one, for lanes playing backwards (speed
    /// below 0) whose parent time is `parent`: the local time wrapped into `(0, AD]` as the timing
    /// kernel's fold wraps a backward play (so its start, at `AD`, is a turn), then the
    /// reference's rule (`TimingState.moving`): a cycle's start (`u = 0`, after the first) leads
    /// into the previous cycle's reversed half, its middle (`u = d`) into the forward one.
    @inline(__always)
    private static func backwardDirection(parent: SIMD8<Double>, begin: SIMD8<Double>, speed: SIMD8<Double>, offset: SIMD8<Double>,
                                          duration d: SIMD8<Double>, activeDuration ad: SIMD8<Double>) -> SIMD8<Double> {
        var t = (parent - begin) * speed + offset
        // The wrap where the active duration is finite (an infinite one keeps t), as the fold's.
        var w = t - SIMDMath.floor(t / ad) * ad
        w.replace(with: w + ad, where: w .< 0)
        w.replace(with: w - ad, where: w .>= ad)
        w.replace(with: ad, where: w .== 0)
        t.replace(with: w, where: ad .< .infinity)
        let period = 2 * d
        let u = t - period * SIMDMath.floor(t / period)
        let reversed = (u .> d) .| ((u .<= 0) .& (t .> 0))
        return SIMD8<Double>(repeating: 1).replacing(with: -1, where: reversed)
    }

    /// The slope f′(p) of the 16 timing curves of block `i` of `c` (semantics §3.2) at progress
    /// `p` in [0, 1], in the lanes of `moving`, solved here (a keyframe segment's curve, and the
    /// lanes ``curveSlopes(_:progress:curves:block:moving:exact:)`` hands on): y′(s)/x′(s) at the
    /// parameter s where x(s) = p — Newton's method, with bisection where it does not converge —
    /// in Float. Linear curves give 1. Lanes the kernels evaluate in Double (a nearly vertical
    /// curve, ``CurveStorage``), and lanes where x′(s) is below 2⁻¹⁰ (a vertical or flat start:
    /// the limits of `TimingFunction.slope(at:)`), take the reference's Double slope at `exact`'s
    /// progress, or at `p`'s. The randomised agreement tests bound the velocity it feeds (1e-3
    /// of its scale).
    @inline(__always)
    static func curveSlopes(_ p: SIMD16<Float>, curves c: CurveColumns, block i: Int, moving: SIMDMask<SIMD16<Int32>>,
                            exact: (low: SIMD8<Double>, high: SIMD8<Double>)? = nil) -> SIMD16<Float> {
        let x1 = load16(c.x1, i), y1 = load16(c.y1, i), x2 = load16(c.x2, i), y2 = load16(c.y2, i)
        let linear = (x1 .== y1) .& (x2 .== y2)
        if allLanes(linear) { return SIMD16<Float>(repeating: 1) }
        let cx = 3 * x1, bx = 3 * (x2 - x1) - cx, ax = 1 - cx - bx
        let cy = 3 * y1, by = 3 * (y2 - y1) - cy, ay = 1 - cy - by
        let target = CurveKernel.clamp(p)
        // Newton from s = p (x(s) is near s for curves near the diagonal): four steps, then the
        // blocks where a moving lane has not met x(s) = p to 2e-6 solve again by bisection
        // (twelve halvings) and two Newton steps. Which path a block takes depends on its own
        // lanes alone, so the bits do not depend on the chunking.
        var s = target
        for _ in 0..<4 {
            let x = ((ax * s + bx) * s + cx) * s
            let dx = (3 * ax * s + 2 * bx) * s + cx
            s.replace(with: s - (x - target) / dx, where: dx .> 1e-3)
            s = CurveKernel.clamp(s)
        }
        let residual = ((ax * s + bx) * s + cx) * s - target
        if anyLane(moving .& .!linear .& .!(SIMDMath.magnitude(residual) .<= 2e-6)) {
            s = SIMD16<Float>(repeating: 0.5)
            var h = SIMD16<Float>(repeating: 0.25)
            for _ in 0..<12 {
                let x = ((ax * s + bx) * s + cx) * s
                s = s.replacing(with: s + h, where: x .< target).replacing(with: s - h, where: x .>= target)
                h *= 0.5
            }
            for _ in 0..<2 {
                let x = ((ax * s + bx) * s + cx) * s
                let dx = (3 * ax * s + 2 * bx) * s + cx
                s.replace(with: s - (x - target) / dx, where: dx .> 1e-3)
                s = CurveKernel.clamp(s)
            }
        }
        let dx = (3 * ax * s + 2 * bx) * s + cx
        let dy = (3 * ay * s + 2 * by) * s + cy
        var slope = dy / dx
        // NaN control points (Double-evaluated curves) fail the comparison too. Only lanes that
        // move need it (a fill sits at p = 0 or 1, where easeOut's x′ is 0).
        let steep = .!(dx .> 1.0 / 1024) .& .!linear .& moving
        if anyLane(steep) {
            for lane in 0..<16 where steep[lane] {
                let progress = exact.map { lane < 8 ? $0.low[lane] : $0.high[lane - 8] } ?? Double(target[lane])
                if x1[lane].isNaN {
                    // The curve's index in the storage's Double functions (``CurveStorage/set(_:_:)``).
                    slope[lane] = Float(c.functions[Int(y1[lane].bitPattern)].slope(at: progress))
                } else {
                    let curve = try? TimingFunction(controlPoints: Double(x1[lane]), Double(y1[lane]), Double(x2[lane]), Double(y2[lane]))
                    slope[lane] = Float(curve?.slope(at: progress) ?? 1)
                }
            }
        }
        return slope.replacing(with: 1, where: linear)
    }

    /// The slope f′(p) of the 16 timing curves of block `i` from the value kernel's own solution
    /// (``CurveSolution``): y′(s)/x′(s) at its parameter, with the curve mirrored where it solved
    /// the mirrored one (f′(p) is the mirrored curve's slope at 1 − p). Lanes
    /// ``curveSlopes(_:curves:block:moving:exact:)`` would hand to the reference (Double-evaluated
    /// curves, x′ below 2⁻¹⁰) go to it.
    @inline(__always)
    static func curveSlopes(_ solution: CurveSolution, progress p: SIMD16<Float>, curves c: CurveColumns, block i: Int,
                            moving: SIMDMask<SIMD16<Int32>>, exact: (low: SIMD8<Double>, high: SIMD8<Double>)?) -> SIMD16<Float> {
        let x1 = load16(c.x1, i), y1 = load16(c.y1, i), x2 = load16(c.x2, i), y2 = load16(c.y2, i)
        let linear = (x1 .== y1) .& (x2 .== y2)
        if allLanes(linear) { return SIMD16<Float>(repeating: 1) }
        let m = solution.mirrored .> 0, s = solution.parameter
        let px1 = x1.replacing(with: 1 - x2, where: m), px2 = x2.replacing(with: 1 - x1, where: m)
        let py1 = y1.replacing(with: 1 - y2, where: m), py2 = y2.replacing(with: 1 - y1, where: m)
        let cx = 3 * px1, bx = 3 * (px2 - px1) - cx, ax = 1 - cx - bx
        let cy = 3 * py1, by = 3 * (py2 - py1) - cy, ay = 1 - cy - by
        let dx = (3 * ax * s + 2 * bx) * s + cx
        let dy = (3 * ay * s + 2 * by) * s + cy
        // NaN control points (Double-evaluated curves) fail the comparison too.
        let steep = .!(dx .> 1.0 / 1024) .& .!linear .& moving
        if anyLane(steep) { return curveSlopes(p, curves: c, block: i, moving: moving, exact: exact) }
        return (dy / dx).replacing(with: 1, where: linear)
    }

    /// Zero where `rate` is zero: a lane that does not move has no velocity, whatever the slope
    /// its other factors computed outside their domain (∞ · 0 is NaN).
    @inline(__always)
    static func masked(_ v: SIMD16<Float>, rate: SIMD16<Float>) -> SIMD16<Float> {
        v.replacing(with: 0, where: rate .== 0)
    }
}
