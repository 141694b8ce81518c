import Foundation

/// Three numbers: a translation, a per-axis scale, skew factors or rotation angles.
public struct Vector3: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Vector3(x: 0, y: 0, z: 0)

    func lerp(_ e: Vector3, _ f: Double) -> Vector3 {
        Vector3(x: x.interpolated(to: e.x, fraction: f), y: y.interpolated(to: e.y, fraction: f),
                z: z.interpolated(to: e.z, fraction: f))
    }
    func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
    func cross(_ o: Vector3) -> Vector3 {
        Vector3(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
    }
    var length: Double { dot(self).squareRoot() }
    static func * (v: Vector3, k: Double) -> Vector3 { Vector3(x: v.x * k, y: v.y * k, z: v.z * k) }
    static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }

    public var description: String { "(\(x), \(y), \(z))" }
}

/// Four numbers: the perspective part of a decomposed transform.
public struct Vector4: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double
    public var w: Double

    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }

    /// No perspective: (0, 0, 0, 1).
    public static let noPerspective = Vector4(x: 0, y: 0, z: 0, w: 1)

    func lerp(_ e: Vector4, _ f: Double) -> Vector4 {
        Vector4(x: x.interpolated(to: e.x, fraction: f), y: y.interpolated(to: e.y, fraction: f),
                z: z.interpolated(to: e.z, fraction: f), w: w.interpolated(to: e.w, fraction: f))
    }

    public var description: String { "(\(x), \(y), \(z), \(w))" }
}

/// A rotation as a unit quaternion `(x, y, z, w)` = `(axis · sin(θ/2), cos(θ/2))`, with θ the
/// right-handed angle of ``Transform3D/rotation(angle:x:y:z:)``.
public struct Quaternion: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double
    public var w: Double

    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }

    /// No rotation.
    public static let identity = Quaternion(x: 0, y: 0, z: 0, w: 1)

    /// The rotation by `angle` radians about `axis` (normalised here; a zero axis gives identity).
    public init(angle: Double, axis: Vector3) {
        let length = axis.length
        guard length > 0, length.isFinite else {
            self = .identity
            return
        }
        let s = sin(angle / 2) / length
        self.init(x: axis.x * s, y: axis.y * s, z: axis.z * s, w: cos(angle / 2))
    }

    func dot(_ o: Quaternion) -> Double { x * o.x + y * o.y + z * o.z + w * o.w }

    var negated: Quaternion { Quaternion(x: -x, y: -y, z: -z, w: -w) }

    var normalized: Quaternion {
        let n = dot(self).squareRoot()
        guard n > 0, n.isFinite else { return .identity }
        return Quaternion(x: x / n, y: y / n, z: z / n, w: w / n)
    }

    /// Spherical interpolation on the shorter arc (semantics §15.3): when the quaternions' dot
    /// product is negative, `end` is negated first (the same rotation, the other way round the
    /// sphere), so rotations of more than 180° between the ends turn the short way (§15.2).
    public func slerp(to end: Quaternion, fraction f: Double) -> Quaternion {
        var e = end
        var cosine = dot(e)
        if cosine < 0 {
            e = e.negated
            cosine = -cosine
        }
        let a: Double, b: Double
        if cosine > 0.9995 {
            // Nearly the same rotation: sin θ → 0; a normalised lerp is exact to ~1e-13 here.
            a = 1 - f
            b = f
        } else {
            let theta = acos(min(cosine, 1))
            let sinTheta = sin(theta)
            a = sin((1 - f) * theta) / sinTheta
            b = sin(f * theta) / sinTheta
        }
        return Quaternion(x: a * x + b * e.x, y: a * y + b * e.y, z: a * z + b * e.z, w: a * w + b * e.w).normalized
    }

    /// The rotation as the rows of a row-vector 3×3 matrix (the transpose of the usual column form).
    var rows: (Vector3, Vector3, Vector3) {
        let (xx, yy, zz) = (x * x, y * y, z * z)
        let (xy, xz, yz) = (x * y, x * z, y * z)
        let (xw, yw, zw) = (x * w, y * w, z * w)
        // Column form C: C00 = 1−2(yy+zz), C01 = 2(xy−zw), C02 = 2(xz+yw), … ; rows here = Cᵀ.
        return (Vector3(x: 1 - 2 * (yy + zz), y: 2 * (xy + zw), z: 2 * (xz - yw)),
                Vector3(x: 2 * (xy - zw), y: 1 - 2 * (xx + zz), z: 2 * (yz + xw)),
                Vector3(x: 2 * (xz + yw), y: 2 * (yz - xw), z: 1 - 2 * (xx + yy)))
    }

    /// The quaternion of a proper rotation given as row-vector matrix rows (Shepperd's method:
    /// divide by the largest of the four candidates, stable for every rotation).
    init(rows r: (Vector3, Vector3, Vector3)) {
        // c(i, j) is the column-form element: the transpose of the rows.
        let m = [[r.0.x, r.1.x, r.2.x], [r.0.y, r.1.y, r.2.y], [r.0.z, r.1.z, r.2.z]]
        let trace = m[0][0] + m[1][1] + m[2][2]
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(x: (m[2][1] - m[1][2]) / s, y: (m[0][2] - m[2][0]) / s, z: (m[1][0] - m[0][1]) / s, w: s / 4)
        } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
            let s = (1 + m[0][0] - m[1][1] - m[2][2]).squareRoot() * 2
            self.init(x: s / 4, y: (m[0][1] + m[1][0]) / s, z: (m[0][2] + m[2][0]) / s, w: (m[2][1] - m[1][2]) / s)
        } else if m[1][1] > m[2][2] {
            let s = (1 + m[1][1] - m[0][0] - m[2][2]).squareRoot() * 2
            self.init(x: (m[0][1] + m[1][0]) / s, y: s / 4, z: (m[1][2] + m[2][1]) / s, w: (m[0][2] - m[2][0]) / s)
        } else {
            let s = (1 + m[2][2] - m[0][0] - m[1][1]).squareRoot() * 2
            self.init(x: (m[0][2] + m[2][0]) / s, y: (m[1][2] + m[2][1]) / s, z: s / 4, w: (m[1][0] - m[0][1]) / s)
        }
        self = self.normalized
    }

    /// Euler angles (x, y, z) with the rotation = Rx(x) · Ry(y) · Rz(z) in row-vector form (x turns
    /// first, then y, then z, about fixed axes). These are the `transform.rotation.x/.y/.z` fields
    /// (semantics §4.6). At y = ±π/2 (gimbal lock) z is reported as 0.
    public var eulerAngles: Vector3 {
        let (r0, r1, r2) = rows
        let sinY = max(-1, min(1, -r0.z))
        let y = asin(sinY)
        let cosY = (1 - sinY * sinY).squareRoot()
        if cosY > 1e-12 {
            return Vector3(x: atan2(r1.z, r2.z), y: y, z: atan2(r0.y, r0.x))
        }
        return Vector3(x: atan2(r1.x * sinY, r1.y), y: y, z: 0)
    }

    /// The rotation Rx(x) · Ry(y) · Rz(z) (see ``eulerAngles``).
    public init(eulerAngles a: Vector3) {
        let qx = Quaternion(angle: a.x, axis: Vector3(x: 1, y: 0, z: 0))
        let qy = Quaternion(angle: a.y, axis: Vector3(x: 0, y: 1, z: 0))
        let qz = Quaternion(angle: a.z, axis: Vector3(x: 0, y: 0, z: 1))
        // Row-vector order "x then y then z" is the Hamilton product qz · qy · qx.
        self = qz.multiplied(by: qy).multiplied(by: qx).normalized
    }

    /// The Hamilton product `self · o` (rotation `o` first, then `self`, for column vectors).
    func multiplied(by o: Quaternion) -> Quaternion {
        Quaternion(x: w * o.x + x * o.w + y * o.z - z * o.y,
                   y: w * o.y - x * o.z + y * o.w + z * o.x,
                   z: w * o.z + x * o.y - y * o.x + z * o.w,
                   w: w * o.w - x * o.x - y * o.y - z * o.z)
    }

    public var description: String { "Quaternion(\(x), \(y), \(z), \(w))" }
}

/// A transform split into the parts Core Animation interpolates separately (semantics §15.3):
/// `M = perspective ∘ translate ∘ rotate ∘ skew ∘ scale`, read right to left as the order in which a
/// row vector meets them (scale first).
///
/// Exactly: the upper 3×3 block is `diag(scale) · K · R` with `K` the unit lower-triangular skew
/// matrix `[[1, 0, 0], [skew.x, 1, 0], [skew.y, skew.z, 1]]` (skew.x = xy, skew.y = xz,
/// skew.z = yz) and `R` the rotation; row 4 holds the translation; the fourth column comes from
/// the perspective vector (`perspective = L⁻¹ · (m14, m24, m34, m44)` with `L` the matrix without
/// its fourth column).
public struct DecomposedTransform3D: Sendable, Hashable {
    public var translation: Vector3
    public var scale: Vector3
    /// Shear factors: x = xy, y = xz, z = yz.
    public var skew: Vector3
    public var perspective: Vector4
    public var rotation: Quaternion

    public init(translation: Vector3 = .zero, scale: Vector3 = Vector3(x: 1, y: 1, z: 1),
                skew: Vector3 = .zero, perspective: Vector4 = .noPerspective, rotation: Quaternion = .identity) {
        self.translation = translation
        self.scale = scale
        self.skew = skew
        self.perspective = perspective
        self.rotation = rotation
    }

    /// The transform these parts describe.
    public func recomposed() -> Transform3D {
        let (e0, e1, e2) = rotation.rows
        // A = diag(s) · K · R, row by row.
        let a0 = e0 * scale.x
        let a1 = Vector3(x: e1.x + skew.x * e0.x, y: e1.y + skew.x * e0.y, z: e1.z + skew.x * e0.z) * scale.y
        let a2 = Vector3(x: e2.x + skew.y * e0.x + skew.z * e1.x,
                         y: e2.y + skew.y * e0.y + skew.z * e1.y,
                         z: e2.z + skew.y * e0.z + skew.z * e1.z) * scale.z
        let p = Vector3(x: perspective.x, y: perspective.y, z: perspective.z)
        let t = translation
        return Transform3D(
            m11: a0.x, m12: a0.y, m13: a0.z, m14: a0.dot(p),
            m21: a1.x, m22: a1.y, m23: a1.z, m24: a1.dot(p),
            m31: a2.x, m32: a2.y, m33: a2.z, m34: a2.dot(p),
            m41: t.x, m42: t.y, m43: t.z, m44: t.dot(p) + perspective.w)
    }

    /// Linear interpolation of translation, scale, skew and perspective; spherical interpolation of
    /// the rotation on the shorter arc (semantics §15.3).
    public func interpolated(to e: DecomposedTransform3D, fraction f: Double) -> DecomposedTransform3D {
        DecomposedTransform3D(translation: translation.lerp(e.translation, f), scale: scale.lerp(e.scale, f),
                              skew: skew.lerp(e.skew, f), perspective: perspective.lerp(e.perspective, f),
                              rotation: rotation.slerp(to: e.rotation, fraction: f))
    }
}

extension Transform3D {
    /// The transform's parts (semantics §15.3, the "unmatrix" of CSS Transforms 2 in Core
    /// Animation's row-vector layout), or nil when it cannot be decomposed: `m44 == 0`, a
    /// non-finite element, a matrix singular up to rounding — an upper 3×3 block whose determinant
    /// is within 1e-12 of its rows' lengths' product (a zero scale, two equal rows), or a
    /// perspective whose w is within 1e-12 of the terms it is computed from (two equal rows of
    /// the whole matrix) — or one so nearly singular that a part comes out non-finite. Callers
    /// then switch discretely (§15.3).
    ///
    /// `decomposed()?.recomposed()` reproduces the matrix to about 1e-15 relative.
    public func decomposed() -> DecomposedTransform3D? {
        guard isFinite, m44 != 0 else { return nil }
        let n = 1 / m44
        var rows = (Vector3(x: m11 * n, y: m12 * n, z: m13 * n),
                    Vector3(x: m21 * n, y: m22 * n, z: m23 * n),
                    Vector3(x: m31 * n, y: m32 * n, z: m33 * n))
        let translation = Vector3(x: m41 * n, y: m42 * n, z: m43 * n)
        let column = Vector3(x: m14 * n, y: m24 * n, z: m34 * n)
        let det = rows.0.dot(rows.1.cross(rows.2))
        // Singular up to rounding: a determinant within 1e-12 of the rows' lengths' product (the
        // largest it can be) is 0 within the rounding of the elements, and the parts would be
        // that rounding, magnified: 1e19 from a matrix with two equal rows, where one more
        // rounding makes it exactly singular (the fuzzer's case, in which the two engines differed).
        guard det.isFinite, abs(det) > 1e-12 * rows.0.length * rows.1.length * rows.2.length else { return nil }

        // Perspective: solve L · (pv, pw) = (column, 1) with L = [[A, 0], [t, 1]]: pv = A⁻¹ · column.
        var perspective = Vector4.noPerspective
        if column != .zero {
            // A⁻¹ · c by Cramer's rule on the rows of A (A · pv = c, so pv = (c · (r1×r2), …) / det
            // with the roles of rows and columns swapped: A pv = c means Σ_j A[i][j] pv[j] = c[i]).
            let colA0 = Vector3(x: rows.0.x, y: rows.1.x, z: rows.2.x)
            let colA1 = Vector3(x: rows.0.y, y: rows.1.y, z: rows.2.y)
            let colA2 = Vector3(x: rows.0.z, y: rows.1.z, z: rows.2.z)
            let d = colA0.dot(colA1.cross(colA2))
            let pv = Vector3(x: column.dot(colA1.cross(colA2)) / d,
                             y: colA0.dot(column.cross(colA2)) / d,
                             z: colA0.dot(colA1.cross(column)) / d)
            let projected = translation.dot(pv)
            let w = 1 - projected
            // The whole 4×4 matrix is singular when w vanishes (its determinant is det · w, times
            // m44⁴): the same test, relative to the terms w is the difference of.
            guard abs(w) > 1e-12 * (1 + abs(projected)) else { return nil }
            perspective = Vector4(x: pv.x, y: pv.y, z: pv.z, w: w)
        }

        // Gram–Schmidt on the rows: A = diag(scale) · K · R.
        var scale = Vector3.zero
        var skew = Vector3.zero
        scale.x = rows.0.length
        rows.0 = rows.0 * (1 / scale.x)
        skew.x = rows.0.dot(rows.1)
        rows.1 = rows.1 - rows.0 * skew.x
        scale.y = rows.1.length
        rows.1 = rows.1 * (1 / scale.y)
        skew.x /= scale.y
        skew.y = rows.0.dot(rows.2)
        rows.2 = rows.2 - rows.0 * skew.y
        skew.z = rows.1.dot(rows.2)
        rows.2 = rows.2 - rows.1 * skew.z
        scale.z = rows.2.length
        rows.2 = rows.2 * (1 / scale.z)
        skew.y /= scale.z
        skew.z /= scale.z

        // A reflection: negate the scale and the rows so that R is a proper rotation.
        if det < 0 {
            scale = scale * -1
            rows = (rows.0 * -1, rows.1 * -1, rows.2 * -1)
        }
        let rotation = Quaternion(rows: rows)
        // Numerically singular: a 3×3 block whose determinant is not exactly 0 but whose
        // Gram–Schmidt divides by a vanishing row (or a perspective solve that overflows) gives
        // non-finite parts. That is a decomposition failure too (§15.3: a discrete switch), not
        // NaN interpolated into every frame.
        // Tested one by one, not gathered into an array: frames decompose transforms, and a frame
        // allocates nothing.
        func finite(_ a: Double, _ b: Double, _ c: Double, _ d: Double = 0) -> Bool {
            a.isFinite && b.isFinite && c.isFinite && d.isFinite
        }
        guard finite(translation.x, translation.y, translation.z), finite(scale.x, scale.y, scale.z),
              finite(skew.x, skew.y, skew.z), finite(perspective.x, perspective.y, perspective.z, perspective.w),
              finite(rotation.x, rotation.y, rotation.z, rotation.w) else { return nil }
        return DecomposedTransform3D(translation: translation, scale: scale, skew: skew,
                                     perspective: perspective, rotation: rotation)
    }

    /// The parts used to read and write the field key paths (`transform.scale.x`, …, semantics
    /// §4.6/§15.4). Equal to ``decomposed()`` where that succeeds; for a matrix it cannot
    /// decompose, the translation (divided by m44 when that is non-zero), the row lengths as
    /// scale, no rotation, skew or perspective — so a zero-scale base still reports its
    /// translation and scale 0. Those parts are held within ±``largestRepeatedElement``, as a
    /// field written into a transform is: a w near the smallest Double (5e-324) divides finite
    /// elements past Double's range, and an infinite part would make the recomposed matrix NaN
    /// (∞ · 0 in its last column) from finite input.
    public var fields: DecomposedTransform3D {
        if let d = decomposed() { return d }
        let w = m44 != 0 && m44.isFinite ? m44 : 1
        let h = Self.heldElement
        func length(_ a: Double, _ b: Double, _ c: Double) -> Double { h((a * a + b * b + c * c).squareRoot() / abs(w)) }
        return DecomposedTransform3D(
            translation: Vector3(x: h(m41 / w), y: h(m42 / w), z: h(m43 / w)),
            scale: Vector3(x: length(m11, m12, m13), y: length(m21, m22, m23), z: length(m31, m32, m33)))
    }
}
