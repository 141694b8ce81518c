/// A value Core Animation can interpolate: the operations the from/to/by table (semantics §4.1),
/// additive and cumulative animations (§4.3, §4.4) and paced keyframes (§5.5) need.
///
/// `⊕` below is the type's animation addition: component-wise `+` for numbers, points, sizes,
/// rectangles and colours; for transforms, concatenation with the added transform applied first
/// (`delta · base` in Core Animation's row-vector convention, semantics §4.3).
public protocol Interpolatable: Sendable, Equatable {
    /// `lerp(self, end, fraction)` in the type's own sense (semantics §4.2, §4.5): component-wise for
    /// vectors and colours (`a + (b − a)·fraction`), by decomposition for transforms (§15).
    /// `fraction` is not clamped: overshooting timing functions extrapolate. NaN components
    /// propagate; an infinite end — a value saturated past the range (semantics §16) — gives the
    /// limit of `(1 − fraction)·self + fraction·end` as that end grows: the infinite end, except
    /// at the fraction that leaves it out (0 keeps `self`, 1 reaches `end`).
    func interpolated(to end: Self, fraction: Double) -> Self
    /// `self ⊕ delta`: `delta` added on top of `self` (semantics §4.3). Opposite infinities give
    /// the later operand, `delta` (semantics §16).
    func adding(_ delta: Self) -> Self
    /// The value `x` with `x ⊕ delta == self`: the start of a `to`/`by` animation (`to − by`,
    /// semantics §4.1).
    func subtracting(_ delta: Self) -> Self
    /// The value `d` with `start ⊕ d == self`: the change an iteration makes (`end − start`,
    /// semantics §4.4). Between equal infinities it is the identity of ⊕ (semantics §16).
    func difference(from start: Self) -> Self
    /// `self ⊕ self ⊕ …`, `count` times; `count` is a whole number ≥ 0 (completed iterations of a
    /// cumulative animation, semantics §4.4). Zero gives the identity of ⊕.
    func repeated(times count: Double) -> Self
    /// The distance between two values, the measure of paced keyframe animations (semantics §5.5):
    /// Euclidean over the components (|Δ| for scalars).
    func interpolationDistance(to other: Self) -> Double
}

extension Double: Interpolatable {
    public func interpolated(to end: Double, fraction: Double) -> Double {
        let v = self + (end - self) * fraction
        return v.isNaN ? Self.saturatedInterpolation(self, end, fraction) : v
    }
    /// Values that saturated to ±∞ from finite input (semantics §16) never read NaN: `a + (b − a)·f`
    /// met ∞ − ∞ or ∞ · 0. NaN in an operand stays NaN; otherwise the limit of `(1 − f)·a + f·b`,
    /// and between opposite infinities, where no limit exists, the nearer end.
    static func saturatedInterpolation(_ a: Double, _ b: Double, _ f: Double) -> Double {
        if a.isNaN || b.isNaN || f.isNaN { return .nan }
        if f == 0 { return a }
        if f == 1 { return b }
        let v = a * (1 - f) + b * f
        return v.isNaN ? (f < 0.5 ? a : b) : v
    }
    /// Opposite infinities (two values saturated the other way, semantics §16) give `delta`: the
    /// later operand — the animation over the value beneath, the iterations' change over one
    /// iteration's value.
    @inlinable   // the batch's composition adds with it, per component
    public func adding(_ delta: Double) -> Double {
        let v = self + delta
        return v.isNaN && !isNaN ? delta : v
    }
    public func subtracting(_ delta: Double) -> Double { self - delta }
    /// Between equal infinities (both ends saturated alike, semantics §16) the change is 0, the
    /// limit of `x − x`.
    public func difference(from start: Double) -> Double {
        let d = self - start
        return d.isNaN && !isNaN && !start.isNaN ? 0 : d
    }
    /// A difference of 0 stays 0 however many times (0 × ∞ would be NaN: a count past Float's
    /// range reads as ∞ where the batch holds it).
    public func repeated(times count: Double) -> Double { count == 0 ? 0 : (self == 0 ? self : self * count) }
    public func interpolationDistance(to other: Double) -> Double { abs(other - self) }
}

/// `Float` values interpolate in Double and round once, so a Float animation matches the
/// reference to Float's own precision.
extension Float: Interpolatable {
    public func interpolated(to end: Float, fraction: Double) -> Float {
        Float(Double(self).interpolated(to: Double(end), fraction: fraction))
    }
    /// ``Double/adding(_:)`` (opposite infinities give `delta`), rounded to Float: the same bits
    /// as Float's own sum, since Double carries more than twice Float's precision (53 ≥ 2·24 + 2
    /// bits), so rounding the sum twice rounds it as once.
    public func adding(_ delta: Float) -> Float { Float(Double(self).adding(Double(delta))) }
    public func subtracting(_ delta: Float) -> Float { self - delta }
    /// ``Double/difference(from:)`` (0 between equal infinities), rounded to Float, as ``adding(_:)``.
    public func difference(from start: Float) -> Float { Float(Double(self).difference(from: Double(start))) }
    public func repeated(times count: Double) -> Float { count == 0 ? 0 : (self == 0 ? self : Float(Double(self) * count)) }
    public func interpolationDistance(to other: Float) -> Double { abs(Double(other) - Double(self)) }
}
