import Foundation

// Velocity of transforms (docs/velocity.md): the derivatives of interpolation by decomposition
// (semantics §15.3) and of its parts, written out by the product and chain rules — no differences.
// A rate is held in the type of the value it is the rate of: a `Transform3D` whose elements are
// d mᵢⱼ/dt, a `Quaternion` whose components are dq/dt (not a unit quaternion).

/// The rates of change of a ``DecomposedTransform3D``'s parts, per second.
public struct DecomposedTransform3DRate: Sendable, Hashable {
    public var translation: Vector3
    public var scale: Vector3
    public var skew: Vector3
    public var perspective: Vector4
    /// dq/dt of the unit rotation quaternion (orthogonal to it).
    public var rotation: Quaternion

    /// No change in any part.
    public static let zero = DecomposedTransform3DRate(
        translation: .zero, scale: .zero, skew: .zero, perspective: Vector4(x: 0, y: 0, z: 0, w: 0),
        rotation: Quaternion(x: 0, y: 0, z: 0, w: 0))

    public init(translation: Vector3, scale: Vector3, skew: Vector3, perspective: Vector4, rotation: Quaternion) {
        self.translation = translation
        self.scale = scale
        self.skew = skew
        self.perspective = perspective
        self.rotation = rotation
    }
}

extension Vector3 {
    static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    /// d/dt of `a.lerp(b, f)`: `(1 − f)·a′ + f·b′ + (b − a)·f′`.
    static func lerpRate(_ a: Vector3, _ b: Vector3, _ f: Double, _ df: Double, _ da: Vector3, _ db: Vector3) -> Vector3 {
        da * (1 - f) + db * f + (b - a) * df
    }
}

extension Vector4 {
    static func lerpRate(_ a: Vector4, _ b: Vector4, _ f: Double, _ df: Double, _ da: Vector4, _ db: Vector4) -> Vector4 {
        func one(_ a: Double, _ b: Double, _ da: Double, _ db: Double) -> Double { da * (1 - f) + db * f + (b - a) * df }
        return Vector4(x: one(a.x, b.x, da.x, db.x), y: one(a.y, b.y, da.y, db.y),
                       z: one(a.z, b.z, da.z, db.z), w: one(a.w, b.w, da.w, db.w))
    }
}

extension Quaternion {
    fileprivate static func + (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z, w: a.w + b.w)
    }
    fileprivate static func * (a: Quaternion, k: Double) -> Quaternion {
        Quaternion(x: a.x * k, y: a.y * k, z: a.z * k, w: a.w * k)
    }

    /// d/dt of ``rows`` when the quaternion moves at `d` (each entry is quadratic in x, y, z, w).
    func rowsRate(_ d: Quaternion) -> (Vector3, Vector3, Vector3) {
        // d(ab) = a·db + b·da for each product of ``rows``.
        let (dxx, dyy, dzz) = (2 * x * d.x, 2 * y * d.y, 2 * z * d.z)
        let (dxy, dxz, dyz) = (x * d.y + y * d.x, x * d.z + z * d.x, y * d.z + z * d.y)
        let (dxw, dyw, dzw) = (x * d.w + w * d.x, y * d.w + w * d.y, z * d.w + w * d.z)
        return (Vector3(x: -2 * (dyy + dzz), y: 2 * (dxy + dzw), z: 2 * (dxz - dyw)),
                Vector3(x: 2 * (dxy - dzw), y: -2 * (dxx + dzz), z: 2 * (dyz + dxw)),
                Vector3(x: 2 * (dxz + dyw), y: 2 * (dyz - dxw), z: -2 * (dxx + dyy)))
    }

    /// d/dt of ``slerp(to:fraction:)`` when the fraction moves at `df` and the ends at `dSelf`
    /// and `dEnd`: the same branch as the value (the shorter arc; a normalised lerp within
    /// 0.9995), differentiated through the angle θ between the ends and the normalisation.
    func slerpRate(to end: Quaternion, fraction f: Double, fractionRate df: Double,
                   rate dSelf: Quaternion, endRate dEnd: Quaternion) -> Quaternion {
        var e = end, de = dEnd
        var cosine = dot(e)
        if cosine < 0 {
            e = e.negated
            de = de.negated
            cosine = -cosine
        }
        let a: Double, b: Double, da: Double, db: Double
        if cosine > 0.9995 {
            (a, b, da, db) = (1 - f, f, -df, df)
        } else {
            let theta = acos(min(cosine, 1))
            let sinTheta = sin(theta), cosTheta = cos(theta)
            let dTheta = -(dSelf.dot(e) + dot(de)) / sinTheta
            let g = (1 - f) * theta, dg = -df * theta + (1 - f) * dTheta
            let h = f * theta, dh = df * theta + f * dTheta
            a = sin(g) / sinTheta
            b = sin(h) / sinTheta
            da = (cos(g) * dg * sinTheta - sin(g) * cosTheta * dTheta) / (sinTheta * sinTheta)
            db = (cos(h) * dh * sinTheta - sin(h) * cosTheta * dTheta) / (sinTheta * sinTheta)
        }
        let u = self * a + e * b
        let du = self * da + dSelf * a + e * db + de * b
        let n = u.dot(u).squareRoot()
        guard n > 0, n.isFinite else { return Quaternion(x: 0, y: 0, z: 0, w: 0) }
        // d(u/|u|) = (u′ − q·(q·u′)) / |u| with q = u/|u|.
        let q = u * (1 / n)
        return (du + q * -q.dot(du)) * (1 / n)
    }

    /// d/dt of ``init(eulerAngles:)`` when the angles move at `rate`: the product rule over
    /// `qz · qy · qx`, each factor `(axis·sin(θ/2), cos(θ/2))` moving at `½(axis·cos(θ/2), −sin(θ/2))·θ′`.
    static func eulerAnglesRate(_ angles: Vector3, rate: Vector3) -> Quaternion {
        func factor(_ angle: Double, _ rate: Double, axis: Int) -> (Quaternion, Quaternion) {
            let (s, c) = (sin(angle / 2), cos(angle / 2))
            let (ds, dc) = (0.5 * c * rate, -0.5 * s * rate)
            switch axis {
            case 0: return (Quaternion(x: s, y: 0, z: 0, w: c), Quaternion(x: ds, y: 0, z: 0, w: dc))
            case 1: return (Quaternion(x: 0, y: s, z: 0, w: c), Quaternion(x: 0, y: ds, z: 0, w: dc))
            default: return (Quaternion(x: 0, y: 0, z: s, w: c), Quaternion(x: 0, y: 0, z: ds, w: dc))
            }
        }
        let (qx, dqx) = factor(angles.x, rate.x, axis: 0)
        let (qy, dqy) = factor(angles.y, rate.y, axis: 1)
        let (qz, dqz) = factor(angles.z, rate.z, axis: 2)
        let zy = qz.multiplied(by: qy)
        let dzy = dqz.multiplied(by: qy) + qz.multiplied(by: dqy)
        // The product of unit quaternions is unit: the normalisation in init(eulerAngles:) is
        // rounding only and contributes nothing to the rate.
        return dzy.multiplied(by: qx) + zy.multiplied(by: dqx)
    }

    /// d/dt of ``eulerAngles`` when the quaternion moves at `d`: each angle's atan2/asin
    /// differentiated through ``rowsRate(_:)``. In gimbal lock (|sin y| = 1, where the angles are
    /// not a function of the rotation) the rates of x and z are 0.
    func eulerAnglesRate(_ d: Quaternion) -> Vector3 {
        let (r0, r1, r2) = rows
        let (d0, d1, d2) = rowsRate(d)
        let sinY = max(-1, min(1, -r0.z))
        let cosY = (1 - sinY * sinY).squareRoot()
        guard cosY > 1e-12 else { return .zero }
        // atan2(b, a)′ = (a·b′ − b·a′)/(a² + b²); asin(u)′ = u′/√(1 − u²).
        func atan2Rate(_ b: Double, _ a: Double, _ db: Double, _ da: Double) -> Double {
            let n = a * a + b * b
            return n > 0 ? (a * db - b * da) / n : 0
        }
        return Vector3(x: atan2Rate(r1.z, r2.z, d1.z, d2.z), y: -d0.z / cosY, z: atan2Rate(r0.y, r0.x, d0.y, d0.x))
    }
}

extension DecomposedTransform3D {
    /// d/dt of ``recomposed()`` when the parts move at `d`: ``recomposed()`` differentiated row by
    /// row (every element is a sum of products of the parts).
    public func recomposedRate(_ d: DecomposedTransform3DRate) -> Transform3D {
        let (e0, e1, e2) = rotation.rows
        let (de0, de1, de2) = rotation.rowsRate(d.rotation)
        let (s, k, ds, dk) = (scale, skew, d.scale, d.skew)
        let b1 = e1 + e0 * k.x
        let db1 = de1 + e0 * dk.x + de0 * k.x
        let b2 = e2 + e0 * k.y + e1 * k.z
        let db2 = de2 + e0 * dk.y + de0 * k.y + e1 * dk.z + de1 * k.z
        let a0 = e0 * s.x, a1 = b1 * s.y, a2 = b2 * s.z
        let da0 = de0 * s.x + e0 * ds.x, da1 = db1 * s.y + b1 * ds.y, da2 = db2 * s.z + b2 * ds.z
        let p = Vector3(x: perspective.x, y: perspective.y, z: perspective.z)
        let dp = Vector3(x: d.perspective.x, y: d.perspective.y, z: d.perspective.z)
        let (t, dt) = (translation, d.translation)
        return Transform3D(
            m11: da0.x, m12: da0.y, m13: da0.z, m14: da0.dot(p) + a0.dot(dp),
            m21: da1.x, m22: da1.y, m23: da1.z, m24: da1.dot(p) + a1.dot(dp),
            m31: da2.x, m32: da2.y, m33: da2.z, m34: da2.dot(p) + a2.dot(dp),
            m41: dt.x, m42: dt.y, m43: dt.z, m44: dt.dot(p) + t.dot(dp) + d.perspective.w)
    }

    /// d/dt of ``interpolated(to:fraction:)`` when the fraction moves at `df` and the ends' parts
    /// at `dSelf` and `dEnd`.
    public func interpolatedRate(to e: DecomposedTransform3D, fraction f: Double, fractionRate df: Double,
                                 rate dSelf: DecomposedTransform3DRate = .zero,
                                 endRate dEnd: DecomposedTransform3DRate = .zero) -> DecomposedTransform3DRate {
        DecomposedTransform3DRate(
            translation: .lerpRate(translation, e.translation, f, df, dSelf.translation, dEnd.translation),
            scale: .lerpRate(scale, e.scale, f, df, dSelf.scale, dEnd.scale),
            skew: .lerpRate(skew, e.skew, f, df, dSelf.skew, dEnd.skew),
            perspective: .lerpRate(perspective, e.perspective, f, df, dSelf.perspective, dEnd.perspective),
            rotation: rotation.slerpRate(to: e.rotation, fraction: f, fractionRate: df,
                                         rate: dSelf.rotation, endRate: dEnd.rotation))
    }
}

extension Transform3D {
    /// The matrix with every element 0: the rate of a transform that does not change.
    public static let zero = Transform3D(rowMajor: [Double](repeating: 0, count: 16))

    /// The 16 elements in row-major order.
    var rowMajorElements: [Double] {
        [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
    }

    /// Element by element `self + o` (rates add where values compose linearly).
    public func elementwiseAdding(_ o: Transform3D) -> Transform3D {
        Transform3D(rowMajor: zip(rowMajorElements, o.rowMajorElements).map { $0 + $1 })
    }

    /// The rates of the parts when the matrix moves at `rate`, with the parts themselves: the
    /// linear system `J · d = rate` solved, where column j of `J` is ``DecomposedTransform3D/recomposedRate(_:)``
    /// of the j-th unit change of the 16 free parameters (translation, scale, skew and
    /// perspective, and the rotation as dq = ½·(ω, 0)·q for an angular rate ω). Recomposition is
    /// a local inverse of decomposition, so `J` is invertible wherever ``decomposed()`` succeeds
    /// away from its own singular cases; nil when it fails or `J` is singular up to rounding.
    public func decomposedRate(_ rate: Transform3D) -> (parts: DecomposedTransform3D, rate: DecomposedTransform3DRate)? {
        guard let parts = decomposed() else { return nil }
        func unit(_ j: Int) -> DecomposedTransform3DRate {
            var d = DecomposedTransform3DRate.zero
            switch j {
            case 0: d.translation.x = 1
            case 1: d.translation.y = 1
            case 2: d.translation.z = 1
            case 3: d.scale.x = 1
            case 4: d.scale.y = 1
            case 5: d.scale.z = 1
            case 6: d.skew.x = 1
            case 7: d.skew.y = 1
            case 8: d.skew.z = 1
            case 9: d.perspective.x = 1
            case 10: d.perspective.y = 1
            case 11: d.perspective.z = 1
            case 12: d.perspective.w = 1
            default:
                let axis = Quaternion(x: j == 13 ? 0.5 : 0, y: j == 14 ? 0.5 : 0, z: j == 15 ? 0.5 : 0, w: 0)
                d.rotation = axis.multiplied(by: parts.rotation)
            }
            return d
        }
        // Row i of the augmented system is element i; column j the j-th unit change.
        var m = [[Double]](repeating: [Double](repeating: 0, count: 17), count: 16)
        for j in 0..<16 {
            let column = parts.recomposedRate(unit(j)).rowMajorElements
            for i in 0..<16 { m[i][j] = column[i] }
        }
        let target = rate.rowMajorElements
        for i in 0..<16 { m[i][16] = target[i] }
        guard let x = Self.solve(&m) else { return nil }
        var d = DecomposedTransform3DRate.zero
        d.translation = Vector3(x: x[0], y: x[1], z: x[2])
        d.scale = Vector3(x: x[3], y: x[4], z: x[5])
        d.skew = Vector3(x: x[6], y: x[7], z: x[8])
        d.perspective = Vector4(x: x[9], y: x[10], z: x[11], w: x[12])
        d.rotation = Quaternion(x: x[13] / 2, y: x[14] / 2, z: x[15] / 2, w: 0).multiplied(by: parts.rotation)
        return (parts, d)
    }

    /// Gaussian elimination with partial pivoting on an n × (n + 1) augmented matrix; nil when a
    /// pivot is below 1e-13 of the largest element (singular up to rounding).
    private static func solve(_ m: inout [[Double]]) -> [Double]? {
        let n = m.count
        let largest = m.reduce(0) { max($0, $1.prefix(n).reduce(0) { max($0, abs($1)) }) }
        guard largest > 0, largest.isFinite else { return nil }
        for c in 0..<n {
            var pivot = c
            for r in c + 1..<n where abs(m[r][c]) > abs(m[pivot][c]) { pivot = r }
            guard abs(m[pivot][c]) > 1e-13 * largest else { return nil }
            m.swapAt(c, pivot)
            for r in c + 1..<n {
                let k = m[r][c] / m[c][c]
                if k == 0 { continue }
                for j in c...n { m[r][j] -= k * m[c][j] }
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var sum = m[r][n]
            for j in r + 1..<n { sum -= m[r][j] * x[j] }
            x[r] = sum / m[r][r]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }

    /// d/dt of ``interpolated(to:fraction:)`` when the fraction moves at `df` and the ends at
    /// `rate` and `endRate` (element rates). Where the value switches discretely (either end not
    /// decomposable) it is piecewise constant: the rate is zero.
    public func interpolatedRate(to end: Transform3D, fraction f: Double, fractionRate df: Double,
                                 rate: Transform3D = .zero, endRate: Transform3D = .zero) -> Transform3D {
        guard let a = decomposedRate(rate), let b = end.decomposedRate(endRate) else { return .zero }
        let parts = a.parts.interpolated(to: b.parts, fraction: f)
        return parts.recomposedRate(a.parts.interpolatedRate(to: b.parts, fraction: f, fractionRate: df,
                                                              rate: a.rate, endRate: b.rate))
    }
}

extension ValueFunction {
    /// d/dv of ``transform(for:)``: the element rates of the function's transform per unit of
    /// its input (a rotation's derivative matrix, a 1 in the scaled or translated element).
    public func transformRate(for v: Double) -> Transform3D {
        var d = Transform3D.zero
        let (c, s) = (cos(v), sin(v))
        switch self {
        // Rows as Transform3D.rotation(angle:x:y:z:) writes them for a unit axis, differentiated:
        // (c, s) → (−s, c).
        case .rotateX: (d.m22, d.m23, d.m32, d.m33) = (-s, c, -c, -s)
        case .rotateY: (d.m11, d.m13, d.m31, d.m33) = (-s, -c, c, -s)
        case .rotateZ: (d.m11, d.m12, d.m21, d.m22) = (-s, c, -c, -s)
        case .scaleX: d.m11 = 1
        case .scaleY: d.m22 = 1
        case .scaleZ: d.m33 = 1
        case .translateX: d.m41 = 1
        case .translateY: d.m42 = 1
        case .translateZ: d.m43 = 1
        }
        return d
    }
}
