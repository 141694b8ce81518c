import Foundation

/// A 4×4 homogeneous transform in Core Animation's convention: `CATransform3D` (semantics §15.1).
///
/// Points are row vectors, `p′ = p · M`; translation sits in `m41, m42, m43`; perspective is
/// `m34 = −1 / eyeDistance`. `a.concatenating(b)` is `a · b`: `a` applies first, as
/// `CATransform3DConcat(a, b)`.
///
/// Whole-matrix animations interpolate by decomposition (``Transform3D/decomposed()``, §15.3), not
/// element by element; field key paths such as `transform.rotation.z` animate the field (§15.4).
public struct Transform3D: Sendable, Hashable, CustomStringConvertible {
    public var m11, m12, m13, m14: Double
    public var m21, m22, m23, m24: Double
    public var m31, m32, m33, m34: Double
    public var m41, m42, m43, m44: Double

    public init(m11: Double, m12: Double, m13: Double, m14: Double,
                m21: Double, m22: Double, m23: Double, m24: Double,
                m31: Double, m32: Double, m33: Double, m34: Double,
                m41: Double, m42: Double, m43: Double, m44: Double) {
        (self.m11, self.m12, self.m13, self.m14) = (m11, m12, m13, m14)
        (self.m21, self.m22, self.m23, self.m24) = (m21, m22, m23, m24)
        (self.m31, self.m32, self.m33, self.m34) = (m31, m32, m33, m34)
        (self.m41, self.m42, self.m43, self.m44) = (m41, m42, m43, m44)
    }

    /// A transform from its 16 elements in row-major order (m11, m12, …, m44), the order of the
    /// scene-file format.
    ///
    /// - Throws: ``AnimationError`` naming `elements` when there are not exactly 16.
    public init(elements: [Double]) throws {
        guard elements.count == 16 else {
            throw AnimationError(field: "elements", reason: "a transform needs 16 numbers (got \(elements.count))")
        }
        self.init(rowMajor: elements)
    }

    init(rowMajor e: [Double]) {
        self.init(m11: e[0], m12: e[1], m13: e[2], m14: e[3], m21: e[4], m22: e[5], m23: e[6], m24: e[7],
                  m31: e[8], m32: e[9], m33: e[10], m34: e[11], m41: e[12], m42: e[13], m43: e[14], m44: e[15])
    }

    /// The 16 elements in row-major order.
    public var elements: [Double] {
        [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
    }

    /// Element `[row][column]`, both 0-based (`self[3, 0] == m41`). Indices outside 0...3 read 0
    /// and write nothing.
    public subscript(row: Int, column: Int) -> Double {
        get {
            switch (row, column) {
            case (0, 0): m11
            case (0, 1): m12
            case (0, 2): m13
            case (0, 3): m14
            case (1, 0): m21
            case (1, 1): m22
            case (1, 2): m23
            case (1, 3): m24
            case (2, 0): m31
            case (2, 1): m32
            case (2, 2): m33
            case (2, 3): m34
            case (3, 0): m41
            case (3, 1): m42
            case (3, 2): m43
            case (3, 3): m44
            default: 0
            }
        }
        set {
            switch (row, column) {
            case (0, 0): m11 = newValue
            case (0, 1): m12 = newValue
            case (0, 2): m13 = newValue
            case (0, 3): m14 = newValue
            case (1, 0): m21 = newValue
            case (1, 1): m22 = newValue
            case (1, 2): m23 = newValue
            case (1, 3): m24 = newValue
            case (2, 0): m31 = newValue
            case (2, 1): m32 = newValue
            case (2, 2): m33 = newValue
            case (2, 3): m34 = newValue
            case (3, 0): m41 = newValue
            case (3, 1): m42 = newValue
            case (3, 2): m43 = newValue
            case (3, 3): m44 = newValue
            default: break
            }
        }
    }

    /// `CATransform3DIdentity`.
    public static let identity = Transform3D(rowMajor: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    /// `CATransform3DMakeTranslation`.
    public static func translation(x: Double, y: Double, z: Double = 0) -> Transform3D {
        var t = identity
        (t.m41, t.m42, t.m43) = (x, y, z)
        return t
    }

    /// `CATransform3DMakeScale`.
    public static func scale(x: Double, y: Double, z: Double = 1) -> Transform3D {
        var t = identity
        (t.m11, t.m22, t.m33) = (x, y, z)
        return t
    }

    /// `CATransform3DMakeRotation`: `angle` radians about the axis `(x, y, z)`, right-handed, so a
    /// positive angle about z turns +x toward +y. A zero-length axis gives the identity (Core
    /// Animation leaves it undefined).
    public static func rotation(angle: Double, x: Double, y: Double, z: Double) -> Transform3D {
        let length = (x * x + y * y + z * z).squareRoot()
        guard length > 0, length.isFinite else { return identity }
        let (ux, uy, uz) = (x / length, y / length, z / length)
        let c = cos(angle), s = sin(angle), k = 1 - c
        // Row-vector form of Rodrigues' rotation: the transpose of the column-vector matrix.
        return Transform3D(
            m11: c + k * ux * ux, m12: k * ux * uy + s * uz, m13: k * ux * uz - s * uy, m14: 0,
            m21: k * uy * ux - s * uz, m22: c + k * uy * uy, m23: k * uy * uz + s * ux, m24: 0,
            m31: k * uz * ux + s * uy, m32: k * uz * uy - s * ux, m33: c + k * uz * uz, m34: 0,
            m41: 0, m42: 0, m43: 0, m44: 1)
    }

    /// `self · other`: `self` applies first, then `other` (`CATransform3DConcat(self, other)`).
    /// Written out element by element: no loops, no allocation.
    public func concatenating(_ o: Transform3D) -> Transform3D {
        Transform3D(
            m11: m11 * o.m11 + m12 * o.m21 + m13 * o.m31 + m14 * o.m41,
            m12: m11 * o.m12 + m12 * o.m22 + m13 * o.m32 + m14 * o.m42,
            m13: m11 * o.m13 + m12 * o.m23 + m13 * o.m33 + m14 * o.m43,
            m14: m11 * o.m14 + m12 * o.m24 + m13 * o.m34 + m14 * o.m44,
            m21: m21 * o.m11 + m22 * o.m21 + m23 * o.m31 + m24 * o.m41,
            m22: m21 * o.m12 + m22 * o.m22 + m23 * o.m32 + m24 * o.m42,
            m23: m21 * o.m13 + m22 * o.m23 + m23 * o.m33 + m24 * o.m43,
            m24: m21 * o.m14 + m22 * o.m24 + m23 * o.m34 + m24 * o.m44,
            m31: m31 * o.m11 + m32 * o.m21 + m33 * o.m31 + m34 * o.m41,
            m32: m31 * o.m12 + m32 * o.m22 + m33 * o.m32 + m34 * o.m42,
            m33: m31 * o.m13 + m32 * o.m23 + m33 * o.m33 + m34 * o.m43,
            m34: m31 * o.m14 + m32 * o.m24 + m33 * o.m34 + m34 * o.m44,
            m41: m41 * o.m11 + m42 * o.m21 + m43 * o.m31 + m44 * o.m41,
            m42: m41 * o.m12 + m42 * o.m22 + m43 * o.m32 + m44 * o.m42,
            m43: m41 * o.m13 + m42 * o.m23 + m43 * o.m33 + m44 * o.m43,
            m44: m41 * o.m14 + m42 * o.m24 + m43 * o.m34 + m44 * o.m44)
    }

    /// `CATransform3DTranslate`: the translation applied first, then `self`.
    public func translatedBy(x: Double, y: Double, z: Double = 0) -> Transform3D {
        Transform3D.translation(x: x, y: y, z: z).concatenating(self)
    }

    /// `CATransform3DScale`: the scale applied first, then `self`.
    public func scaledBy(x: Double, y: Double, z: Double = 1) -> Transform3D {
        Transform3D.scale(x: x, y: y, z: z).concatenating(self)
    }

    /// `CATransform3DRotate`: the rotation applied first, then `self`.
    public func rotatedBy(angle: Double, x: Double, y: Double, z: Double) -> Transform3D {
        Transform3D.rotation(angle: angle, x: x, y: y, z: z).concatenating(self)
    }

    /// The 2×2 sub-determinants of rows 1–2 (`s`) and rows 3–4 (`c`) from which both the
    /// determinant and the inverse follow (Laplace expansion along the first two rows).
    private var subDeterminants: (s: (Double, Double, Double, Double, Double, Double), c: (Double, Double, Double, Double, Double, Double)) {
        ((m11 * m22 - m21 * m12, m11 * m23 - m21 * m13, m11 * m24 - m21 * m14,
          m12 * m23 - m22 * m13, m12 * m24 - m22 * m14, m13 * m24 - m23 * m14),
         (m31 * m42 - m41 * m32, m31 * m43 - m41 * m33, m31 * m44 - m41 * m34,
          m32 * m43 - m42 * m33, m32 * m44 - m42 * m34, m33 * m44 - m43 * m34))
    }

    /// The determinant of the 4×4 matrix.
    public var determinant: Double {
        let (s, c) = subDeterminants
        return s.0 * c.5 - s.1 * c.4 + s.2 * c.3 + s.3 * c.2 - s.4 * c.1 + s.5 * c.0
    }

    /// `CATransform3DInvert`, or nil when the matrix is singular: its determinant 0 or not finite,
    /// or so near 0 that the inverse is not finite (a row of denormals: 1/det overflowed and
    /// ∞ · 0 made the inverse NaN, docs/bad-input.md).
    public func inverted() -> Transform3D? {
        let (s, c) = subDeterminants
        let det = s.0 * c.5 - s.1 * c.4 + s.2 * c.3 + s.3 * c.2 - s.4 * c.1 + s.5 * c.0
        guard det != 0, det.isFinite else { return nil }
        let k = 1 / det
        let inverse = Transform3D(
            m11: (m22 * c.5 - m23 * c.4 + m24 * c.3) * k, m12: (-m12 * c.5 + m13 * c.4 - m14 * c.3) * k,
            m13: (m42 * s.5 - m43 * s.4 + m44 * s.3) * k, m14: (-m32 * s.5 + m33 * s.4 - m34 * s.3) * k,
            m21: (-m21 * c.5 + m23 * c.2 - m24 * c.1) * k, m22: (m11 * c.5 - m13 * c.2 + m14 * c.1) * k,
            m23: (-m41 * s.5 + m43 * s.2 - m44 * s.1) * k, m24: (m31 * s.5 - m33 * s.2 + m34 * s.1) * k,
            m31: (m21 * c.4 - m22 * c.2 + m24 * c.0) * k, m32: (-m11 * c.4 + m12 * c.2 - m14 * c.0) * k,
            m33: (m41 * s.4 - m42 * s.2 + m44 * s.0) * k, m34: (-m31 * s.4 + m32 * s.2 - m34 * s.0) * k,
            m41: (-m21 * c.3 + m22 * c.1 - m23 * c.0) * k, m42: (m11 * c.3 - m12 * c.1 + m13 * c.0) * k,
            m43: (-m41 * s.3 + m42 * s.1 - m43 * s.0) * k, m44: (m31 * s.3 - m32 * s.1 + m33 * s.0) * k)
        return inverse.isFinite ? inverse : nil
    }

    /// True when all 16 elements are finite.
    public var isFinite: Bool {
        m11.isFinite && m12.isFinite && m13.isFinite && m14.isFinite && m21.isFinite && m22.isFinite && m23.isFinite
            && m24.isFinite && m31.isFinite && m32.isFinite && m33.isFinite && m34.isFinite && m41.isFinite
            && m42.isFinite && m43.isFinite && m44.isFinite
    }

    /// `CATransform3DIsIdentity`.
    public var isIdentity: Bool { self == .identity }

    /// `CATransform3DIsAffine`: true when the transform only acts in the x–y plane.
    public var isAffine: Bool {
        m13 == 0 && m14 == 0 && m23 == 0 && m24 == 0 && m31 == 0 && m32 == 0
            && m33 == 1 && m34 == 0 && m43 == 0 && m44 == 1
    }

    /// `CATransform3DMakeAffineTransform`.
    public init(_ t: AffineTransform) {
        self.init(m11: t.a, m12: t.b, m13: 0, m14: 0, m21: t.c, m22: t.d, m23: 0, m24: 0,
                  m31: 0, m32: 0, m33: 1, m34: 0, m41: t.tx, m42: t.ty, m43: 0, m44: 1)
    }

    /// `CATransform3DGetAffineTransform`: the x–y part (the rest is dropped).
    public var affineTransform: AffineTransform {
        AffineTransform(a: m11, b: m12, c: m21, d: m22, tx: m41, ty: m42)
    }

    /// The homogeneous point `(x, y, z, 1) · self`, divided by w.
    public func apply(x: Double, y: Double, z: Double = 0) -> (x: Double, y: Double, z: Double) {
        let w = x * m14 + y * m24 + z * m34 + m44
        return ((x * m11 + y * m21 + z * m31 + m41) / w,
                (x * m12 + y * m22 + z * m32 + m42) / w,
                (x * m13 + y * m23 + z * m33 + m43) / w)
    }

    public var description: String {
        "Transform3D(" + elements.map { "\($0)" }.joined(separator: ", ") + ")"
    }
}

extension Transform3D: Interpolatable {
    /// Interpolation by decomposition (semantics §15.3): translation, scale, skew and perspective
    /// linearly, rotation by spherical interpolation on the shorter arc, then recomposition. When
    /// either matrix cannot be decomposed (singular), the value switches from `self` to `end` at
    /// `fraction` 0.5. `fraction` 0 and 1 return the ends exactly.
    public func interpolated(to end: Transform3D, fraction: Double) -> Transform3D {
        if fraction == 0 { return self }
        if fraction == 1 { return end }
        guard let a = decomposed(), let b = end.decomposed() else {
            return fraction < 0.5 ? self : end
        }
        return a.interpolated(to: b, fraction: fraction).recomposed()
    }

    /// `delta · self`: the added transform applies before the base (semantics §4.3).
    ///
    /// Both factors and the product are held within ±``largestRepeatedElement``, as
    /// ``repeated(times:)`` holds its powers (signs, exact zeros and ones kept; the plain product
    /// below the bound): three additive cumulative transforms, each held at 1e150, had multiplied
    /// past Double's range and met 0 · ∞ — NaN from finite input.
    public func adding(_ delta: Transform3D) -> Transform3D { delta.held.concatenating(held).held }

    /// `delta⁻¹ · self`. A singular `delta` is treated as the identity (the result is `self`).
    /// Factors and product held within ±``largestRepeatedElement``, as in ``adding(_:)``.
    public func subtracting(_ delta: Transform3D) -> Transform3D {
        guard let inverse = delta.inverted() else { return self }
        return inverse.held.concatenating(held).held
    }

    /// `self · start⁻¹`. A singular `start` is treated as the identity (the result is `self`).
    /// Factors and product held within ±``largestRepeatedElement``, as in ``adding(_:)``: the
    /// inverse of a nearly singular start is finite up to 1e308, and its products with ends of
    /// 1e38 had met ∞ − ∞ (a cumulative change of NaN from finite input).
    public func difference(from start: Transform3D) -> Transform3D {
        guard let inverse = start.inverted() else { return self }
        return held.concatenating(inverse.held).held
    }

    /// `selfᶜᵒᵘⁿᵗ` by repeated squaring (at most 2 × 63 products); a count that is not a whole
    /// number ≥ 0 is rounded toward zero, NaN counts as 0, and counts above 2⁶² saturate there.
    ///
    /// Every product's elements are held within ±``largestRepeatedElement`` (signs, exact zeros
    /// and ones kept): squaring had overflowed to ∞ and met 0 · ∞ or ∞ − ∞ (NaN from a cumulative
    /// transform repeated 3.6 million times, from ordinary numbers). Below the bound the products
    /// are the plain ones, bit for bit.
    public func repeated(times count: Double) -> Transform3D {
        guard count >= 1 else { return .identity }
        var n = UInt64(min(count, 0x1p62))
        var base = self.held
        var result = Transform3D.identity
        while n > 0 {
            if n & 1 == 1 { result = result.concatenating(base).held }
            n >>= 1
            if n > 0 { base = base.concatenating(base).held }
        }
        return result
    }

    /// The largest magnitude of an element of ``repeated(times:)``, and of a field (scale,
    /// translation, angle) written into a transform: 1e150, far past single precision, and small
    /// enough that a product of two such matrices (sums of four products) stays finite in double
    /// precision.
    public static let largestRepeatedElement: Double = 1e150

    /// `v` held within ±``largestRepeatedElement`` (NaN stays NaN: comparisons, not min and
    /// max). Also what a field written into a transform is held to (`ValueField.set`).
    @inline(__always)
    package static func heldElement(_ v: Double) -> Double {
        v > largestRepeatedElement ? largestRepeatedElement : (v < -largestRepeatedElement ? -largestRepeatedElement : v)
    }

    /// Each element held within ±``largestRepeatedElement``.
    private var held: Transform3D {
        // Field by field: no array (a cumulative transform is repeated every frame).
        let h = Self.heldElement
        return Transform3D(m11: h(m11), m12: h(m12), m13: h(m13), m14: h(m14), m21: h(m21), m22: h(m22), m23: h(m23), m24: h(m24),
                           m31: h(m31), m32: h(m32), m33: h(m33), m34: h(m34), m41: h(m41), m42: h(m42), m43: h(m43), m44: h(m44))
    }

    /// The Euclidean (Frobenius) distance between the two matrices' 16 elements.
    public func interpolationDistance(to o: Transform3D) -> Double {
        var sum = 0.0
        for i in 0..<4 {
            for j in 0..<4 {
                let d = self[i, j] - o[i, j]
                sum += d * d
            }
        }
        return sum.squareRoot()
    }
}
