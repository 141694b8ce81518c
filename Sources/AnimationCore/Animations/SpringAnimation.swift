import Foundation

/// A damped spring toward a value: Core Animation's `CASpringAnimation` (semantics §6).
///
/// The values resolve as for ``BasicAnimation`` (§4.1); the fraction between start and end follows
/// a damped harmonic oscillator released at 0 and pulled toward 1, as a function of the animation's
/// basic local time in **seconds** (§6.4): `duration` only decides when the animation ends; it
/// does not rescale the spring. An animation-level timing function, if set, warps that time first.
///
/// Closed form (§6.2): `ω0 = √(k/m)`, `ζ = c / (2√(k·m))`, `x(0) = 1`, `x′(0) = −v0`, fraction
/// `y(t) = 1 − x(t)`; under-, critically and over-damped cases. Unless ``allowsOverdamping`` is
/// true, ζ is clamped to 1 (§6.3). Positive ``initialVelocity`` moves toward the end, in units of the
/// start-to-end distance per second (§6.1).
public struct SpringAnimation: PropertyAnimationStorage {
    public var keyPath: String
    /// The start value, or nil (semantics §4.1).
    public var fromValue: AnimationValue?
    /// The end value, or nil.
    public var toValue: AnimationValue?
    /// The change relative to the start or end, or nil.
    public var byValue: AnimationValue?
    /// The timing, timing function, lifecycle and composition it shares with every property
    /// animation (``PropertyAnimationStorage``: `timing`, `timingFunction`, `isAdditive`, …).
    public var settings = PropertyAnimationSettings()

    /// The mass on the spring (> 0, default 1).
    public var mass: Double
    /// The spring constant (> 0, default 100).
    public var stiffness: Double
    /// The friction coefficient (≥ 0, default 10).
    public var damping: Double
    /// The speed at release, in start-to-end distances per second; positive toward the end
    /// (default 0).
    public var initialVelocity: Double
    /// Whether damping ratios above 1 are honoured; when false (the default, as Core Animation
    /// behaved before `allowsOverdamping` existed) they act as 1 (semantics §6.3).
    public var allowsOverdamping: Bool

    /// A spring on `keyPath` with Core Animation's defaults: mass 1, stiffness 100, damping 10,
    /// initial velocity 0.
    public init(keyPath: String) {
        self.keyPath = keyPath
        self.mass = 1
        self.stiffness = 100
        self.damping = 10
        self.initialVelocity = 0
        self.allowsOverdamping = false
    }

    /// A spring on `keyPath` between typed values.
    public init<V: AnimationValueConvertible>(keyPath: String, from: V? = nil, to: V? = nil, by: V? = nil,
                                              mass: Double = 1, stiffness: Double = 100, damping: Double = 10,
                                              initialVelocity: Double = 0) {
        self.init(keyPath: keyPath)
        self.fromValue = from?.animationValue
        self.toValue = to?.animationValue
        self.byValue = by?.animationValue
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
        self.initialVelocity = initialVelocity
    }

    public var valueKind: ValueKind? { (fromValue ?? toValue ?? byValue)?.kind }

    /// Checks the timing, the values (as ``BasicAnimation/validate()``) and the spring: `mass` and
    /// `stiffness` finite and > 0, `damping` finite and ≥ 0, `initialVelocity` finite.
    ///
    /// - Throws: ``AnimationError`` naming the first invalid field.
    public func validate() throws {
        try timing.validate()
        try _FromToBy.validate(keyPath: keyPath, from: fromValue, to: toValue, by: byValue)
        try AnimationError.requireFinite(mass, "mass")
        if !(mass > 0) { throw AnimationError(field: "mass", reason: "must be > 0 (got \(mass))") }
        try AnimationError.requireFinite(stiffness, "stiffness")
        if !(stiffness > 0) { throw AnimationError(field: "stiffness", reason: "must be > 0 (got \(stiffness))") }
        try AnimationError.requireFinite(damping, "damping")
        if damping < 0 { throw AnimationError(field: "damping", reason: "must be ≥ 0 (got \(damping))") }
        try AnimationError.requireFinite(initialVelocity, "initialVelocity")
    }

    /// The undamped angular frequency `ω0 = √(stiffness / mass)` (semantics §6.2).
    public var undampedAngularFrequency: Double { (stiffness / mass).squareRoot() }

    /// The damping ratio ζ actually used: `damping / (2√(stiffness · mass))`, clamped to 1 unless
    /// ``allowsOverdamping`` (semantics §6.3).
    public var dampingRatio: Double {
        let zeta = damping / (2 * (stiffness * mass).squareRoot())
        return allowsOverdamping ? zeta : min(zeta, 1)
    }

    /// The fraction `y(t) = 1 − x(t)` of the way from start to end after `t` seconds (semantics
    /// §6.2): 0 at `t = 0`, tending to 1. Exact closed forms for each regime, written so that no
    /// intermediate overflows or cancels: the overdamped case uses `expm1`, so ζ just above 1 meets
    /// the critical solution continuously. NaN in, NaN out.
    ///
    /// Held within ±``largestResponse``: a timing curve whose y dips far below 0 reads the spring
    /// thousands of seconds before it starts, where it grows like e^{ζω0|t|} and overflowed to ±∞;
    /// a component that does not move then met 0 × ∞ (NaN from finite input).
    ///
    /// A time whose phase is past double precision (ωt overflows, so sine and cosine are NaN)
    /// reads as settled (1): the spring's mean, and its limit wherever it is damped.
    public func response(at t: Double) -> Double {
        var x = Self.displacement(at: t, omega0: undampedAngularFrequency, zeta: dampingRatio, v0: initialVelocity)
        if x.isNaN && !t.isNaN { x = 0 }
        let y = 1 - x
        return Swift.min(Swift.max(y, -Self.largestResponse), Self.largestResponse)
    }

    /// The largest magnitude of ``response(at:)``: 1e30, far past anything a layer can show, and
    /// small enough that its products with values (within ±``AnimationValue/largestMagnitude``)
    /// and with each other when a transform is recomposed stay finite in double precision.
    public static let largestResponse: Double = 1e30

    /// `x(t)` of semantics §6.2 for normalised parameters.
    /// dy/dt of ``response(at:)`` at `t` seconds, per second (velocity, docs/velocity.md): `−x′(t)`
    /// in the closed form of each regime — `v0` at `t = 0`. 0 where the response is held at
    /// ±``largestResponse``, where the phase is past double precision, and beyond ±1e30.
    /// NaN in, NaN out.
    public func responseRate(at t: Double) -> Double {
        if t.isNaN { return t }
        let y = 1 - Self.displacement(at: t, omega0: undampedAngularFrequency, zeta: dampingRatio, v0: initialVelocity)
        guard y.isFinite, abs(y) < Self.largestResponse else { return 0 }
        let rate = -Self.displacementRate(at: t, omega0: undampedAngularFrequency, zeta: dampingRatio, v0: initialVelocity)
        guard rate.isFinite else { return 0 }
        return Swift.min(Swift.max(rate, -Self.largestResponse), Self.largestResponse)
    }

    /// x′(t) of ``displacement(at:omega0:zeta:v0:)``, differentiated term by term in the same
    /// factored forms (so that it overflows no sooner than x itself).
    static func displacementRate(at t: Double, omega0 w0: Double, zeta: Double, v0: Double) -> Double {
        if zeta < 1 {
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            if wd > 0 {
                // x = e^{−ζω0 t}(cos ωd t + B sin ωd t), B = (ζω0 − v0)/ωd.
                let b = (zeta * w0 - v0) / wd
                let (c, s) = (cos(wd * t), sin(wd * t))
                return exp(-zeta * w0 * t) * (-zeta * w0 * (c + b * s) + wd * (b * c - s))
            }
        }
        if zeta <= 1 {
            // x = e^{−ω0 t}(1 + (ω0 − v0)t): x′ = e^{−ω0 t}(−v0 − ω0(ω0 − v0)t).
            return exp(-w0 * t) * (-v0 - w0 * (w0 - v0) * t)
        }
        // x = C(t) + (a − v0)·S(t) with C = e^{−at}cosh(ωo t), S = e^{−at}sinh(ωo t)/ωo:
        // C′ = −a·C + ωo²·S and S′ = C − a·S, so x′ = (a − v0 − a)·C + (ωo² − a(a − v0))·S.
        let a = zeta * w0
        let wo = w0 * (zeta * zeta - 1).squareRoot()
        let coshPart: Double, sinhOverWo: Double
        if t < 0 {
            let e = exp(2 * wo * t)
            let scale = exp((-wo - a) * t)
            coshPart = scale * 0.5 * (1 + e)
            sinhOverWo = scale * expm1(2 * wo * t) / (2 * wo)
        } else {
            let fast = exp((-wo - a) * t)
            let slow = exp((wo - a) * t)
            coshPart = 0.5 * (slow + fast)
            sinhOverWo = 2 * wo * t <= 700 ? fast * expm1(2 * wo * t) / (2 * wo) : slow / (2 * wo)
        }
        return -v0 * coshPart + (wo * wo - a * (a - v0)) * sinhOverWo
    }

    static func displacement(at t: Double, omega0 w0: Double, zeta: Double, v0: Double) -> Double {
        if zeta < 1 {
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            if wd > 0 {
                return exp(-zeta * w0 * t) * (cos(wd * t) + ((zeta * w0 - v0) / wd) * sin(wd * t))
            }
        }
        if zeta <= 1 {
            return exp(-w0 * t) * (1 + (w0 - v0) * t)
        }
        // Overdamped: e^{−ζω0 t}·(cosh(ωo t) + (ζω0 − v0)·sinh(ωo t)/ωo), ωo = ω0√(ζ² − 1).
        let a = zeta * w0
        let wo = w0 * (zeta * zeta - 1).squareRoot()
        if t < 0 {
            // Before the start (a curve that dips below 0): both terms grow and overflow, and
            // ∞ − ∞ was NaN. Factored by the dominant e^{(ωo + a)|t|}, the rest is finite.
            let e = exp(2 * wo * t)                // ≤ 1
            return exp((-wo - a) * t) * (0.5 * (1 + e) + (a - v0) * expm1(2 * wo * t) / (2 * wo))
        }
        let fast = exp((-wo - a) * t)              // e^{(−ωo − a)t}
        let slow = exp((wo - a) * t)               // e^{(ωo − a)t}, ωo < a so ≤ 1
        let coshPart = 0.5 * (slow + fast)
        let sinhOverWo = 2 * wo * t <= 700
            ? fast * expm1(2 * wo * t) / (2 * wo)  // relative-accurate as ωo → 0
            : slow / (2 * wo)                      // the fast term is below 1e-300 of it
        return coshPart + (a - v0) * sinhOverWo
    }

    /// Core Animation's estimate of how long the spring takes to come to rest (semantics §6.5):
    /// the time after which the displacement's envelope stays below ε = 8.3e-4 of the distance.
    /// Underdamped: `ln(A/ε) / (ζω0)` with `A = √(1 + ((ζω0 − v0)/ωd)²)` — 2.850 s at damping 5 and
    /// 1.001 s at damping 15 with the other defaults, Apple's documented ≈2.85 s and "just over
    /// 1 s". Critically and overdamped: the last time the envelope (`e^{−ω0 t}(1 + |ω0 − v0|·t)`,
    /// or the sum of the two exponentials' magnitudes) equals ε, found by bisection (≤ 200 steps).
    /// Zero damping never settles: `.infinity`. Depends on mass, stiffness, damping and initial
    /// velocity, not on duration.
    public var settlingDuration: Double {
        let w0 = undampedAngularFrequency
        let zeta = dampingRatio
        let v0 = initialVelocity
        let epsilon = 8.3e-4
        guard zeta > 0, w0 > 0, w0.isFinite else { return .infinity }
        if zeta < 1 {
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            if wd > 0 {
                let amplitude = (1 + pow((zeta * w0 - v0) / wd, 2)).squareRoot()
                return max(0, log(amplitude / epsilon) / (zeta * w0))
            }
        }
        let envelope: (Double) -> Double
        var start = 0.0
        if zeta <= 1 {
            let c = abs(w0 - v0)
            envelope = { t in exp(-w0 * t) * (1 + c * t) }
            if c > w0 { start = 1 / w0 - 1 / c }  // the envelope's peak; it decreases after
        } else {
            let root = (zeta * zeta - 1).squareRoot()
            let slow = -w0 * (zeta - root), fast = -w0 * (zeta + root)
            let b = (-v0 - slow) / (fast - slow)
            let a = 1 - b
            envelope = { t in abs(a) * exp(slow * t) + abs(b) * exp(fast * t) }
        }
        if envelope(start) <= epsilon { return start }
        var lo = start
        var hi = max(start, 1 / w0)
        var doublings = 0
        while envelope(hi) > epsilon && doublings < 2000 {  // bounded: exp underflows long before
            hi *= 2
            doublings += 1
        }
        for _ in 0..<200 {
            let mid = 0.5 * (lo + hi)
            if envelope(mid) > epsilon { lo = mid } else { hi = mid }
            if hi - lo <= 1e-12 * hi { break }
        }
        return hi
    }

    /// The start and end of semantics §4.1's table over `base` (see
    /// ``BasicAnimation/resolvedEndpoints(base:)``).
    public func resolvedEndpoints(base: AnimationValue) -> (start: AnimationValue, end: AnimationValue)? {
        _FromToBy.endpoints(from: fromValue, to: toValue, by: byValue, valueFunction: valueFunction, base: base)
    }

    /// True when the start or end comes from the value beneath the animation (see
    /// ``BasicAnimation/dependsOnBase``).
    public var dependsOnBase: Bool { _FromToBy.dependsOnBase(from: fromValue, to: toValue, by: byValue, valueFunction: valueFunction) }

    /// `lerp(start, end, y(t))` with `t` the basic local time in seconds after the timing function
    /// (semantics §6.2, §6.4), plus the cumulative term (§4.4) and the value function (§4.7).
    public func value(in state: TimingState, base: AnimationValue) -> AnimationValue? {
        let seconds = (timingFunction ?? .linear).value(at: state.progress) * timing.effectiveDuration
        return _FromToBy.value(from: fromValue, to: toValue, by: byValue, base: base, fraction: response(at: seconds),
                               iteration: state.iteration, isCumulative: isCumulative, valueFunction: valueFunction)
    }
}
