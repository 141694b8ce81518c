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
    /// propagate, and an infinite endpoint gives NaN (∞ − ∞), as the batch kernels do (§16).
    func interpolated(to end: Self, fraction: Double) -> Self
    /// `self ⊕ delta`: `delta` added on top of `self` (semantics §4.3).
    func adding(_ delta: Self) -> Self
    /// The value `x` with `x ⊕ delta == self`: the start of a `to`/`by` animation (`to − by`,
    /// semantics §4.1).
    func subtracting(_ delta: Self) -> Self
    /// The value `d` with `start ⊕ d == self`: the change an iteration makes (`end − start`,
    /// semantics §4.4).
    func difference(from start: Self) -> Self
    /// `self ⊕ self ⊕ …`, `count` times; `count` is a whole number ≥ 0 (completed iterations of a
    /// cumulative animation, semantics §4.4). Zero gives the identity of ⊕.
    func repeated(times count: Double) -> Self
    /// The distance between two values, the measure of paced keyframe animations (semantics §5.5):
    /// Euclidean over the components (|Δ| for scalars).
    func interpolationDistance(to other: Self) -> Double
}

extension Double: Interpolatable {
    public func interpolated(to end: Double, fraction: Double) -> Double { self + (end - self) * fraction }
    public func adding(_ delta: Double) -> Double { self + delta }
    public func subtracting(_ delta: Double) -> Double { self - delta }
    public func difference(from start: Double) -> Double { self - start }
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
    public func adding(_ delta: Float) -> Float { self + delta }
    public func subtracting(_ delta: Float) -> Float { self - delta }
    public func difference(from start: Float) -> Float { self - start }
    public func repeated(times count: Double) -> Float { count == 0 ? 0 : (self == 0 ? self : Float(Double(self) * count)) }
    public func interpolationDistance(to other: Float) -> Double { abs(Double(other) - Double(self)) }
}
