import Foundation

/// A 2-D affine transform: the engine's `CGAffineTransform`.
///
/// `(x, y, 1) · [[a, b, 0], [c, d, 0], [tx, ty, 1]]`: `x′ = a·x + c·y + tx`, `y′ = b·x + d·y + ty`,
/// Core Graphics' row-vector convention. `t1.concatenating(t2)` applies `t1` first
/// (`CGAffineTransformConcat`). Used to transform paths (semantics §14.1) and as an animatable value
/// (interpolated through ``Transform3D``'s decomposition, §15).
///
/// Foundation has a type of the same name: in a file that imports both modules, write
/// `AnimationCore.AffineTransform` where the name alone is ambiguous (`.identity`, type annotations).
public struct AffineTransform: Sendable, Hashable, CustomStringConvertible {
    public var a: Double
    public var b: Double
    public var c: Double
    public var d: Double
    public var tx: Double
    public var ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// `CGAffineTransformIdentity`.
    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// `CGAffineTransformMakeTranslation`.
    @inlinable
    public static func translation(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    /// `CGAffineTransformMakeScale`.
    @inlinable
    public static func scale(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0)
    }

    /// `CGAffineTransformMakeRotation`: a positive angle turns +x toward +y.
    public static func rotation(angle: Double) -> AffineTransform {
        // Each once: libm calls are not merged by the compiler (they may set errno).
        let c = cos(angle), s = sin(angle)
        return AffineTransform(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    /// `self` first, then `o` (`CGAffineTransformConcat(self, o)`). Inlinable: evaluators in other
    /// modules multiply matrices per layer and per group every frame.
    @inlinable
    public func concatenating(_ o: AffineTransform) -> AffineTransform {
        AffineTransform(a: a * o.a + b * o.c, b: a * o.b + b * o.d,
                        c: c * o.a + d * o.c, d: c * o.b + d * o.d,
                        tx: tx * o.a + ty * o.c + o.tx, ty: tx * o.b + ty * o.d + o.ty)
    }

    /// `CGAffineTransformTranslate`: the translation first, then `self`.
    public func translatedBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform.translation(x: x, y: y).concatenating(self)
    }

    /// `CGAffineTransformScale`: the scale first, then `self`.
    public func scaledBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform.scale(x: x, y: y).concatenating(self)
    }

    /// `CGAffineTransformRotate`: the rotation first, then `self`.
    public func rotated(by angle: Double) -> AffineTransform {
        AffineTransform.rotation(angle: angle).concatenating(self)
    }

    /// `a·d − b·c`.
    public var determinant: Double { a * d - b * c }

    /// `CGAffineTransformInvert`, or nil when the transform is singular: its determinant 0 or not
    /// finite, or so near 0 that the inverse is not finite (as ``Transform3D/inverted()``).
    public func inverted() -> AffineTransform? {
        let det = determinant
        guard det != 0, det.isFinite else { return nil }
        let inverse = AffineTransform(a: d / det, b: -b / det, c: -c / det, d: a / det,
                                      tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
        return inverse.isFinite ? inverse : nil
    }

    /// True when all six elements are finite.
    public var isFinite: Bool { a.isFinite && b.isFinite && c.isFinite && d.isFinite && tx.isFinite && ty.isFinite }

    /// `CGAffineTransformIsIdentity`.
    public var isIdentity: Bool { self == .identity }

    public var description: String { "AffineTransform(a: \(a), b: \(b), c: \(c), d: \(d), tx: \(tx), ty: \(ty))" }
}

extension AffineTransform: Interpolatable {
    /// Interpolated as the equivalent ``Transform3D`` (decomposition, semantics §15.3) and read back.
    public func interpolated(to end: AffineTransform, fraction: Double) -> AffineTransform {
        Transform3D(self).interpolated(to: Transform3D(end), fraction: fraction).affineTransform
    }
    /// `delta · self` (semantics §4.3); factors and product held within
    /// ±``Transform3D/largestRepeatedElement``, as ``Transform3D/adding(_:)`` holds them.
    public func adding(_ delta: AffineTransform) -> AffineTransform { delta.held.concatenating(held).held }
    /// `delta⁻¹ · self`; a singular `delta` counts as the identity. Held as ``adding(_:)``.
    public func subtracting(_ delta: AffineTransform) -> AffineTransform {
        guard let inverse = delta.inverted() else { return self }
        return inverse.held.concatenating(held).held
    }
    /// `self · start⁻¹`; a singular `start` counts as the identity. Held as ``adding(_:)``.
    public func difference(from start: AffineTransform) -> AffineTransform {
        guard let inverse = start.inverted() else { return self }
        return held.concatenating(inverse.held).held
    }
    /// Each element held within ±``Transform3D/largestRepeatedElement`` (NaN stays NaN).
    private var held: AffineTransform {
        let h = Transform3D.heldElement
        return AffineTransform(a: h(a), b: h(b), c: h(c), d: h(d), tx: h(tx), ty: h(ty))
    }
    /// `selfᶜᵒᵘⁿᵗ`, as ``Transform3D/repeated(times:)``.
    public func repeated(times count: Double) -> AffineTransform {
        Transform3D(self).repeated(times: count).affineTransform
    }
    /// Euclidean distance over the six elements.
    public func interpolationDistance(to o: AffineTransform) -> Double {
        let e = [o.a - a, o.b - b, o.c - c, o.d - d, o.tx - tx, o.ty - ty]
        return e.reduce(0) { $0 + $1 * $1 }.squareRoot()
    }
}
