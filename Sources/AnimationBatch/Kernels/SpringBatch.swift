import AnimationCore
import CKernelSupport

/// The three closed forms of a damped spring (semantics §6.2). A spring batch holds one regime, so
/// its kernel runs one formula with no per-lane branching.
enum SpringRegime: Int, Sendable, Hashable {
    case underdamped, critical, overdamped

    init(dampingRatio zeta: Double, omega0: Double) {
        if zeta < 1 && omega0 * (1 - zeta * zeta).squareRoot() > 0 {
            self = .underdamped
        } else if zeta <= 1 {
            self = .critical
        } else {
            self = .overdamped
        }
    }
}

/// Spring animations of 1-, 2- or 4-component values in one damping regime: `CASpringAnimation` as
/// columns.
///
/// **Kernel.** Timing, the timing curve on progress (warping time, §6.4), seconds `t = f·d`, then
/// the regime's closed form with ``SIMDMath`` (`x = e^{−ζω0 t}(cos ωd t + c·sin ωd t)`;
/// `e^{−ω0 t}(1 + (ω0 − v0)t)`; the overdamped form through `expm1`, free of cancellation as
/// ζ → 1), `y = 1 − x`, and `v = from + Δ·(y + k·cumulative)`.
///
/// **Error bound.** ≤ 1e-4 · |to − from| against the reference (precision table), checked by the
/// randomised agreement tests; Float transcendental functions contribute ≤ 2e-7 relative.
///
/// **Velocity** (when a frame asks, docs/velocity.md): `Δ · (−x′(t)) · d · f′(p) · p′`, x′ the
/// closed form's derivative in the same regime. Values
/// beyond Float's range (an overdamped spring at a negative time, reached through a timing curve
/// that dips below 0, grows like e^{(ζω0 + ωo)|t|}) come out as the infinity of their sign.
///
/// **Speed.** W2's spring family at 200,000 tracks, native build: 7.5 ns per track on one thread,
/// 5.2 ns on two (frame p50); the four-block timing stage made it 28 % faster (alternating runs on
/// one core, 8,192 tracks in cache).
final class SpringBatch: InterpolatingBatch {
    let regime: SpringRegime
    /// underdamped: ζω0, ωd, (ζω0 − v0)/ωd · critical: ω0, 0, ω0 − v0 · overdamped: ζω0, ωo, ζω0 − v0.
    let rate = Column<Float>(fill: 1)
    let frequency = Column<Float>(fill: 1)
    let coefficient = Column<Float>(fill: 0)

    init(width: Int, regime: SpringRegime) {
        self.regime = regime
        super.init(width: width)
    }

    override func reserveSpecific(_ needed: Int, count: Int) {
        super.reserveSpecific(needed, count: count)
        for c in springColumns { c.reserve(needed, count: count) }
    }

    // Listed once: an array built per removal may allocate in frames that reap.
    private lazy var springColumns: [Column<Float>] = [rate, frequency, coefficient]

    override func moveSpecific(_ from: Int, to: Int) {
        super.moveSpecific(from, to: to)
        for c in springColumns { c[to] = c[from] }
    }

    override func clearSpecific(_ i: Int) {
        super.clearSpecific(i)
        for c in springColumns { c[i] = c.fill }
    }

    func setSpring(_ i: Int, omega0 w0: Double, zeta: Double, initialVelocity v0: Double) {
        switch regime {
        case .underdamped:
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            rate[i] = Float(zeta * w0)
            frequency[i] = Float(wd)
            coefficient[i] = Float((zeta * w0 - v0) / wd)
        case .critical:
            rate[i] = Float(w0)
            frequency[i] = 0
            coefficient[i] = Float(w0 - v0)
        case .overdamped:
            rate[i] = Float(zeta * w0)
            frequency[i] = Float(w0 * (zeta * zeta - 1).squareRoot())
            coefficient[i] = Float(zeta * w0 - v0)
        }
    }

    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let out = outputPointers
        let start = self.start.pointers, delta = self.delta.pointers
        let rate = self.rate.base, frequency = self.frequency.base, coefficient = self.coefficient.base, duration = timingColumns.duration.base
        let width = self.width, regime = self.regime
        let velocity = velocityStep(time: time, nodeTimes: nodeTimes)
        evaluateCurved(blocks: blocks, time: time, nodeTimes: nodeTimes) { i, timingBlock, f, curve in
            var timing: TimingBlock { timingBlock.pointee }   // read where used (see evaluateCurved)
            let ahead = i + TimingKernel.prefetchDistance
            prefetchBlock(duration, at: ahead)
            animation_prefetch(rate + ahead)
            animation_prefetch(frequency + ahead)
            animation_prefetch(coefficient + ahead)
            let (dLow, dHigh) = load16(duration, i)
            // §6.4: seconds, after the curve. A duration past Float's range (a settling time of
            // 1e302 s at damping 1e-300) is held at its largest, so that 0 × ∞ never makes t NaN.
            let largest = SIMD16<Float>(repeating: .greatestFiniteMagnitude)
            let t = f * narrow(dLow, dHigh).replacing(with: largest, where: narrow(dLow, dHigh) .> largest)
            let a = load16(rate, i), w = load16(frequency, i), c = load16(coefficient, i)
            var x: SIMD16<Float>
            switch regime {
            case .underdamped:
                let (s, co) = SIMDMath.sinCos(w * t)
                x = SIMDMath.exp(-a * t) * (co + c * s)
            case .critical:
                x = SIMDMath.exp(-a * t) * (1 + c * t)
            case .overdamped:
                let fast = SIMDMath.exp(-(w + a) * t), slow = SIMDMath.exp((w - a) * t)
                let twice = 2 * w * t
                let sinhOverW = (fast * SIMDMath.expm1(twice) / (2 * w)).replacing(with: slow / (2 * w), where: twice .> 80)
                // At negative times (curves whose y dips below 0 warp time backwards) both terms
                // can overflow Float: ∞ − ∞ is NaN. The dominant term, e^{(ζω0 + ωo)|t|}·(1 − c/ωo)/2,
                // gives the sign of the saturated value (the precision table counts ±∞ as matching
                // a reference value beyond Float's range).
                let sum = 0.5 * (slow + fast) + c * sinhOverW
                let infinity = SIMD16<Float>(repeating: .infinity)
                x = sum.replacing(with: infinity.replacing(with: -infinity, where: w .< c), where: sum .!= sum)
            }
            // A time whose phase is past single precision (ωt = ∞: sin and cos are NaN) reads as
            // settled, as the reference does past double precision; a NaN time stays NaN.
            x.replace(with: 0, where: (x .!= x) .& (t .== t))
            // Held within ±1e30 as the reference's response is (SpringAnimation.largestResponse):
            // a component that does not move stays put (0 × ∞ was NaN).
            // (Comparisons, not min/max, so that NaN stays NaN.)
            let limit = SIMD16<Float>(repeating: Float(SpringAnimation.largestResponse))
            var fraction = 1 - x
            fraction.replace(with: limit, where: fraction .> limit)
            fraction.replace(with: -limit, where: fraction .< -limit)
            out.storeInterpolated(start: start, delta: delta, fraction: fraction, timing: timingBlock, width: width, block: i)
            if let velocity {
                // v′ = Δ · (−x′(t)) · d · f′(p) · p′, x′ the closed form's derivative (semantics §6.2, §6.4).
                let rate = velocity.curvedRates(timing, block: i, curve: curve)
                var response = Self.responseRates(regime, t: t, a: a, w: w, c: c) * narrow(dLow, dHigh) * rate
                response = VelocityKernel.masked(response, rate: rate)
                response.replace(with: 0, where: (response .!= response) .& (t .== t))   // settled past Float's phase, as above
                for k in 0..<width { velocity.store(load16(delta[k], i) * response, component: k, block: i) }
            }
        }
    }

    /// −x′(t): d(response)/d(seconds) of the regime's closed form with decay `a`, frequency `w`
    /// and coefficient `c` (the columns' meaning per regime, above).
    @inline(__always)
    static func responseRates(_ regime: SpringRegime, t: SIMD16<Float>, a: SIMD16<Float>, w: SIMD16<Float>, c: SIMD16<Float>) -> SIMD16<Float> {
        switch regime {
        case .underdamped:
            // x = e^{−at}(cos wt + c sin wt): x′ = e^{−at}((cw − a) cos wt − (w + ac) sin wt).
            let (s, co) = SIMDMath.sinCos(w * t)
            return -(SIMDMath.exp(-a * t) * ((c * w - a) * co - (w + a * c) * s))
        case .critical:
            // x = e^{−at}(1 + ct): x′ = e^{−at}(c − a − act).
            return -(SIMDMath.exp(-a * t) * (c - a - a * c * t))
        case .overdamped:
            // x = C + c·S/w with C = e^{−at}cosh wt, S = e^{−at}sinh wt:
            // x′ = −aC + wS + c(C − aS/w).
            let fast = SIMDMath.exp(-(w + a) * t), slow = SIMDMath.exp((w - a) * t)
            let cosh = 0.5 * (slow + fast), sinh = 0.5 * (slow - fast)
            return -(-a * cosh + w * sinh + c * (cosh - a * sinh / w))
        }
    }
}
