/// A cubic Bézier timing function from (0, 0) to (1, 1): Core Animation's `CAMediaTimingFunction`
/// (semantics §3).
///
/// The input `x` is a fraction of the animation's duration, the output `y` the fraction of the
/// value change. `y` may leave [0, 1] when a control point's y does (overshoot is applied as is,
/// semantics §16).
///
/// ## Solver
/// `value(at:)` solves `Bx(s) = x` for the curve parameter `s` with a bracketed Newton iteration:
/// every step keeps `[lo, hi]` around the root and falls back to bisection whenever a Newton step
/// would leave the bracket or stops halving, so it never diverges on steep curves the way Newton
/// alone from `s = x` does (docs/architecture.md, "Measured facts", "Bugs other engines shipped"). It runs at most
/// ``maximumSolverIterations`` steps and in practice 3–6.
///
/// For `x > 0.5` it solves the mirrored curve (the same curve seen from (1, 1) with the parameter
/// reversed) at `1 − x`, which is exact in binary floating point. This keeps the solve relative-accurate
/// where `Bx` is flat at the end (`x2 = 1`): a direct solve there loses half the digits (about 3e-8
/// in y), the mirrored one keeps them.
///
/// **Error bound**: |y − y_exact| ≤ 1e-9 for control points with x in [0, 1] and y in [−1, 2],
/// measured against an 80-bit bisection over 10⁶ inputs (named curves and 4,096 random ones with y
/// in [−1, 2], x biased toward both ends; `TimingFunctionTests`): max 3.0e-15, p99.99 1.1e-15, and
/// max 6.7e-16 on the named curves. The ends are exact: `value(at: 0) == 0` and `value(at: 1) == 1`.
public struct TimingFunction: Sendable, Hashable, CustomStringConvertible {
    /// The first control point's x, in [0, 1].
    public let x1: Double
    /// The first control point's y (any finite number).
    public let y1: Double
    /// The second control point's x, in [0, 1].
    public let x2: Double
    /// The second control point's y (any finite number).
    public let y2: Double

    /// True when both control points lie on the diagonal: the curve is then `y = x` exactly.
    /// Faster paths skip the solve for these curves (docs/architecture.md, "Measured facts": classify identity curves).
    public let isLinear: Bool

    /// The most Newton or bisection steps one `value(at:)` makes. Every step either shrinks the
    /// bracket by Newton's quadratic convergence or halves it, so 100 steps bound the bracket below
    /// 2⁻⁵⁰ even in the worst alternation.
    public static let maximumSolverIterations = 100

    /// The largest |y| a control point may have. Any finite y could be drawn, but the curve's
    /// power-basis coefficients (up to 19·|y|) overflow near 1e307 and gave NaN from finite input
    /// (the C-interface fuzzer found it); a billion times the animated range is far past any use,
    /// and stays finite in the batch engine's Float kernels too.
    public static let maximumOvershoot = 1e9

    // Power-basis coefficients of Bx(s) = ((ax·s + bx)·s + cx)·s and of By, for the curve and for
    // its mirror image (control points (1 − x2, 1 − y2), (1 − x1, 1 − y1)), computed once here.
    private let forward: _CubicCurve
    private let mirrored: _CubicCurve

    /// Creates a timing function from its two inner control points, like
    /// `CAMediaTimingFunction(controlPoints:_:_:_:)` (semantics §3.1).
    ///
    /// - Throws: ``AnimationError`` naming `x1`, `y1`, `x2` or `y2` when a value is not finite,
    ///   when an x lies outside [0, 1] (the curve would not be a function of time then), or when a
    ///   y lies beyond ±``maximumOvershoot``.
    public init(controlPoints x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) throws {
        try Self.check(x1, "x1", isX: true)
        try Self.check(y1, "y1", isX: false)
        try Self.check(x2, "x2", isX: true)
        try Self.check(y2, "y2", isX: false)
        self.init(unchecked: x1, y1, x2, y2)
    }

    private init(unchecked x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        self.x1 = x1
        self.y1 = y1
        self.x2 = x2
        self.y2 = y2
        self.isLinear = x1 == y1 && x2 == y2
        self.forward = _CubicCurve(x1: x1, y1: y1, x2: x2, y2: y2)
        self.mirrored = _CubicCurve(x1: 1 - x2, y1: 1 - y2, x2: 1 - x1, y2: 1 - y1)
    }

    private static func check(_ v: Double, _ name: String, isX: Bool) throws {
        guard v.isFinite else {
            throw AnimationError(field: "controlPoints.\(name)", reason: "must be finite (got \(v))")
        }
        if isX && !(0...1).contains(v) {
            throw AnimationError(
                field: "controlPoints.\(name)",
                reason: "must be in [0, 1] so that the curve is a function of time (got \(v))")
        }
        if !isX && abs(v) > maximumOvershoot {
            throw AnimationError(
                field: "controlPoints.\(name)",
                reason: "must be within ±\(maximumOvershoot) (got \(v))")
        }
    }

    // MARK: Named functions (semantics §3.1, control points as documented by Apple)

    /// `(0, 0), (1, 1)`: constant speed. Also what a `nil` timing function means (semantics §3.3).
    public static let linear = TimingFunction(unchecked: 0, 0, 1, 1)
    /// `(0.42, 0), (1, 1)`: starts slowly.
    public static let easeIn = TimingFunction(unchecked: 0.42, 0, 1, 1)
    /// `(0, 0), (0.58, 1)`: ends slowly.
    public static let easeOut = TimingFunction(unchecked: 0, 0, 0.58, 1)
    /// `(0.42, 0), (0.58, 1)`: starts and ends slowly.
    public static let easeInEaseOut = TimingFunction(unchecked: 0.42, 0, 0.58, 1)
    /// `(0.25, 0.1), (0.25, 1)`: the curve implicit animations use (semantics §3.3).
    public static let `default` = TimingFunction(unchecked: 0.25, 0.1, 0.25, 1)

    /// The names of the predefined functions, as `CAMediaTimingFunctionName` spells them.
    public enum Name: String, Sendable, CaseIterable {
        case linear, easeIn, easeOut, easeInEaseOut, `default`
    }

    /// The predefined function with this name (semantics §3.1).
    public init(name: Name) {
        switch name {
        case .linear: self = .linear
        case .easeIn: self = .easeIn
        case .easeOut: self = .easeOut
        case .easeInEaseOut: self = .easeInEaseOut
        case .default: self = .default
        }
    }

    /// The name of this function if its control points are exactly those of a predefined one.
    public var name: Name? {
        Name.allCases.first { TimingFunction(name: $0) == self }
    }

    /// Control point `index`: 0 → (0, 0), 1 → (x1, y1), 2 → (x2, y2), 3 → (1, 1) (semantics §3.2,
    /// `getControlPoint(at:values:)`).
    ///
    /// - Throws: ``AnimationError`` for an index outside 0...3.
    public func controlPoint(at index: Int) throws -> Point {
        switch index {
        case 0: return Point(x: 0, y: 0)
        case 1: return Point(x: x1, y: y1)
        case 2: return Point(x: x2, y: y2)
        case 3: return Point(x: 1, y: 1)
        default:
            throw AnimationError(field: "index", reason: "must be in 0...3 (got \(index))")
        }
    }

    // MARK: Evaluation

    /// The output fraction `y` at the time fraction `x` (semantics §3.2).
    ///
    /// `x` is clamped to [0, 1] first (semantics §16): `x ≤ 0` gives exactly 0, `x ≥ 1` exactly 1,
    /// and ±∞ clamp the same way. A NaN input gives NaN (semantics §16: NaN propagates). Error
    /// ≤ 1e-9 (see the type's documentation).
    public func value(at x: Double) -> Double {
        if x.isNaN { return x }
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        if isLinear { return x }
        if x <= 0.5 {
            return forward.y(at: forward.solve(x))
        }
        // The mirror image: y(x) = 1 − y'(1 − x). `1 − x` is exact for x in (0.5, 1) (Sterbenz).
        return 1 - mirrored.y(at: mirrored.solve(1 - x))
    }

    /// The progresses in (0, 1) at which the curve's output turns (an overshooting curve, §3):
    /// where `dy/ds` of the cubic vanishes, mapped to `x(s)`; at most two. Between them the output
    /// is monotone in the progress (the settle queries invert it piece by piece).
    /// The slope dy/dx of the curve at input `x` (velocity, docs/velocity.md): `y′(s) / x′(s)`
    /// at the parameter `s` the solver finds for `x` (the mirror image's for `x > 0.5`, as
    /// ``value(at:)`` does). Below 0 it is the slope at 0 and above 1 the slope at 1 (the curve's
    /// ends, read one-sided). Where `x′(s) = 0` and `y′(s) = 0` together (a control point on the
    /// end it belongs to, as in `easeOut` at 0) it is the ratio of the second derivatives, the
    /// limit; where only `x′(s)` vanishes (a vertical tangent: `x1 = 0` with `y1 ≠ 0` at 0) the
    /// slope is unbounded and the one returned is the slope at the parameter 2⁻²⁶ in from the end
    /// (finite, of the right sign). A NaN input gives NaN.
    ///
    /// Error: within a few 1e-9 relative of the exact slope away from vertical tangents (the
    /// solver's 2⁻⁵² in `s`, through the ratio).
    public func slope(at x: Double) -> Double {
        if x.isNaN { return x }
        if isLinear { return 1 }
        let clamped = min(max(x, 0), 1)
        if clamped <= 0.5 {
            let s = clamped == 0 ? 0 : forward.solve(clamped)
            return forward.slope(at: s)
        }
        // y(x) = 1 − y'(1 − x): the slope is the mirror's at 1 − x.
        let s = clamped == 1 ? 0 : mirrored.solve(1 - clamped)
        return mirrored.slope(at: s)
    }

    package var turningProgresses: [Double] {
        guard !isLinear else { return [] }
        return PathSegment.derivativeRoots(0, y1, y2, 1).map { s in
            3 * (1 - s) * (1 - s) * s * x1 + 3 * (1 - s) * s * s * x2 + s * s * s
        }.filter { $0 > 0 && $0 < 1 }
    }

    public var description: String {
        if let name { return "TimingFunction.\(name.rawValue)" }
        return "TimingFunction(controlPoints: \(x1), \(y1), \(x2), \(y2))"
    }

    public static func == (a: TimingFunction, b: TimingFunction) -> Bool {
        a.x1 == b.x1 && a.y1 == b.y1 && a.x2 == b.x2 && a.y2 == b.y2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(x1)
        hasher.combine(y1)
        hasher.combine(x2)
        hasher.combine(y2)
    }
}

/// One cubic Bézier from (0, 0) to (1, 1) in power basis, with the bracketed solver.
struct _CubicCurve: Sendable {
    let ax, bx, cx: Double
    let ay, by, cy: Double

    init(x1: Double, y1: Double, x2: Double, y2: Double) {
        // B(s) = 3·p1·s(1−s)² + 3·p2·s²(1−s) + s³ = ((a·s + b)·s + c)·s
        cx = 3 * x1
        bx = 3 * (x2 - x1) - cx
        ax = 1 - cx - bx
        cy = 3 * y1
        by = 3 * (y2 - y1) - cy
        ay = 1 - cy - by
    }

    @inline(__always) func x(at s: Double) -> Double { ((ax * s + bx) * s + cx) * s }
    @inline(__always) func y(at s: Double) -> Double { ((ay * s + by) * s + cy) * s }
    @inline(__always) func dx(at s: Double) -> Double { (3 * ax * s + 2 * bx) * s + cx }
    @inline(__always) func dy(at s: Double) -> Double { (3 * ay * s + 2 * by) * s + cy }

    /// dy/dx at parameter `s` (``TimingFunction/slope(at:)``): the ratio of first derivatives;
    /// at the start (s = 0) where both vanish, the ratio of the first of the higher derivatives
    /// that does not (the limit); elsewhere where x′ vanishes (a vertical tangent), the ratio
    /// 2⁻²⁶ further along.
    func slope(at s: Double) -> Double {
        let dx = self.dx(at: s), dy = self.dy(at: s)
        // 1e-12: x′ and y′ are sums of control-point terms of size ≤ 3e9; below this they are zero
        // up to rounding.
        if abs(dx) > 1e-12 { return dy / dx }
        if s == 0 && abs(dy) <= 1e-12 {
            // x ≈ bx·s² + ax·s³ and y ≈ by·s² + ay·s³ near the start.
            if abs(bx) > 1e-12 { return by / bx }
            if ax != 0 { return ay / ax }
            return 1
        }
        let inward = s + 0x1p-26
        return self.dy(at: inward) / self.dx(at: inward)
    }

    func solve(_ x: Double) -> Double {
        var lo = 0.0
        var hi = 1.0
        var s = x  // the identity curve's answer: a good first guess for most curves
        var previousStep = Double.infinity
        for _ in 0..<TimingFunction.maximumSolverIterations {
            let f = self.x(at: s) - x
            if f == 0 { return s }
            if f < 0 { lo = s } else { hi = s }
            let slope = dx(at: s)
            var next = s - f / slope
            // Bisect when Newton would leave the bracket (or the slope is 0 or NaN), and when it
            // stops converging at least linearly; this bounds the work on flat ends.
            if !(next > lo && next < hi) || abs(next - s) > 0.5 * previousStep {
                next = 0.5 * (lo + hi)
            }
            let step = abs(next - s)
            s = next
            // 2⁻⁵² absolute in s keeps y within a few 1e-16 for y control points in [−1, 2].
            if step <= 0x1p-52 || hi - lo <= 0x1p-52 { return s }
            previousStep = step
        }
        return s
    }
}
