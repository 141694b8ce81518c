import AnimationCore
import Foundation
import PropertyBased
import Testing

/// The largest element-wise difference between two matrices.
func maxDifference(_ a: Transform3D, _ b: Transform3D) -> Double {
    zip(a.elements, b.elements).map { abs($0 - $1) }.max() ?? 0
}

/// The z-rotation angle of a transform whose upper 2×2 block is a rotation.
func zAngle(_ t: Transform3D) -> Double { atan2(t.m12, t.m11) }

@Suite("Transform3D (semantics §15)")
struct Transform3DTests {
    // MARK: §15.1

    @Test("§15.1 row vectors: translation sits in m41..m43 and p′ = p · M")
    func rowVectorConventionPutsTranslationInFourthRow() {
        let t = Transform3D.translation(x: 10, y: 20, z: 30)
        #expect(t.m41 == 10 && t.m42 == 20 && t.m43 == 30)
        let p = t.apply(x: 1, y: 2, z: 3)
        #expect(p.x == 11 && p.y == 22 && p.z == 33)
    }

    @Test("§15.1 a positive z rotation turns +x toward +y (m12 = sin θ)")
    func rotationDirection() {
        let r = Transform3D.rotation(angle: .pi / 2, x: 0, y: 0, z: 1)
        let p = r.apply(x: 1, y: 0)
        #expect(abs(p.x) < 1e-15 && abs(p.y - 1) < 1e-15)
        #expect(abs(r.m12 - 1) < 1e-15 && abs(r.m21 + 1) < 1e-15)
    }

    @Test("§15.1 perspective: m34 = −1/d divides by the depth")
    func perspectiveDividesByDepth() {
        var t = Transform3D.identity
        t.m34 = -1.0 / 500
        let p = t.apply(x: 100, y: 0, z: -500)   // w = 1 + 1 = 2
        #expect(p.x == 50)
    }

    @Test("§15.1 concatenating applies the receiver first (CATransform3DConcat)")
    func concatenationOrder() {
        let move = Transform3D.translation(x: 1, y: 0)
        let scale = Transform3D.scale(x: 10, y: 10)
        #expect(move.concatenating(scale).apply(x: 0, y: 0).x == 10)   // move, then scale
        #expect(scale.concatenating(move).apply(x: 0, y: 0).x == 1)    // scale, then move
        #expect(move.translatedBy(x: 2, y: 0) == Transform3D.translation(x: 3, y: 0))
        #expect(Transform3D.identity.scaledBy(x: 2, y: 3).m22 == 3)
    }

    @Test("§15.1 inverse, determinant, affine conversions")
    func inverseDeterminantAndAffine() throws {
        let t = Transform3D.rotation(angle: 0.7, x: 1, y: 2, z: 3).concatenating(.scale(x: 2, y: 3, z: 4))
            .concatenating(.translation(x: 5, y: 6, z: 7))
        let inverse = try #require(t.inverted())
        #expect(maxDifference(t.concatenating(inverse), .identity) < 1e-12)
        #expect(abs(t.determinant - 24) < 1e-12)
        #expect(Transform3D.scale(x: 0, y: 1).inverted() == nil)
        let affine = AffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        #expect(Transform3D(affine).affineTransform == affine)
        #expect(Transform3D(affine).isAffine)
        #expect(!Transform3D.rotation(angle: 0.1, x: 1, y: 0, z: 0).isAffine)
        #expect(try Transform3D(elements: Transform3D.identity.elements) == .identity)
        #expect(throws: AnimationError.self) { try Transform3D(elements: [1, 2, 3]) }
    }

    // MARK: §15.2

    @Test("§15.2 identity → rotation(2π) does nothing")
    func fullTurnMatrixAnimationDoesNothing() {
        let full = Transform3D.rotation(angle: 2 * .pi, x: 0, y: 0, z: 1)
        for f in stride(from: 0.0, through: 1, by: 0.125) {
            #expect(maxDifference(Transform3D.identity.interpolated(to: full, fraction: f), .identity) < 1e-12)
        }
    }

    @Test("§15.2 targets beyond ±180° take the shorter way: π+0.1 and π−0.1 turn in opposite directions")
    func rotationsTakeTheShorterWay() {
        let less = Transform3D.identity.interpolated(to: .rotation(angle: .pi - 0.1, x: 0, y: 0, z: 1), fraction: 0.5)
        let more = Transform3D.identity.interpolated(to: .rotation(angle: .pi + 0.1, x: 0, y: 0, z: 1), fraction: 0.5)
        #expect(abs(zAngle(less) - (.pi - 0.1) / 2) < 1e-12)
        #expect(abs(zAngle(more) + (.pi - 0.1) / 2) < 1e-12)
    }

    // MARK: §15.3

    @Test("§15.3 decomposition recovers translation, scale, rotation, skew and perspective")
    func decompositionRecoversParts() throws {
        // The parts are normalised so that m44 = t · pv + pw = 1 (the decomposition divides by m44):
        // t · pv = 0.001 + 0.004 − 0.012 = −0.007, so pw = 1.007.
        let parts = DecomposedTransform3D(
            translation: Vector3(x: 1, y: -2, z: 3), scale: Vector3(x: 2, y: 0.5, z: 3),
            skew: Vector3(x: 0.2, y: -0.1, z: 0.3), perspective: Vector4(x: 0.001, y: -0.002, z: -0.004, w: 1.007),
            rotation: Quaternion(angle: 0.9, axis: Vector3(x: 1, y: 1, z: 0)))
        let d = try #require(parts.recomposed().decomposed())
        #expect(abs(d.translation.x - 1) < 1e-12 && abs(d.translation.y + 2) < 1e-12 && abs(d.translation.z - 3) < 1e-12)
        #expect(abs(d.scale.x - 2) < 1e-12 && abs(d.scale.y - 0.5) < 1e-12 && abs(d.scale.z - 3) < 1e-12)
        #expect(abs(d.skew.x - 0.2) < 1e-12 && abs(d.skew.y + 0.1) < 1e-12 && abs(d.skew.z - 0.3) < 1e-12)
        #expect(abs(d.perspective.z + 0.004) < 1e-12 && abs(d.perspective.w - 1.007) < 1e-12)
        #expect(abs(abs(d.rotation.w) - cos(0.45)) < 1e-12)
    }

    @Test("§15.3 a CA rotation decomposes to the quaternion (axis·sin θ/2, cos θ/2)")
    func rotationQuaternionConvention() throws {
        let d = try #require(Transform3D.rotation(angle: 1.2, x: 0, y: 0, z: 1).decomposed())
        #expect(abs(d.rotation.z - sin(0.6)) < 1e-15 && abs(d.rotation.w - cos(0.6)) < 1e-15)
        #expect(abs(d.rotation.eulerAngles.z - 1.2) < 1e-14)
    }

    @Test("§15.3 a reflection negates the scale so the rotation stays proper")
    func reflectionNegatesScale() throws {
        let d = try #require(Transform3D.scale(x: -1, y: 1).decomposed())
        #expect(d.scale.x < 0 && d.scale.y < 0 && d.scale.z < 0)
        #expect(maxDifference(d.recomposed(), .scale(x: -1, y: 1)) < 1e-15)
    }

    @Test("§15.3 interpolation lerps parts and slerps the rotation; the ends are exact")
    func interpolationByDecomposition() {
        let a = Transform3D.translation(x: 0, y: 0).concatenating(.scale(x: 1, y: 1))
        let b = Transform3D.scale(x: 3, y: 3).concatenating(.rotation(angle: 1, x: 0, y: 0, z: 1))
            .concatenating(.translation(x: 100, y: 50))
        let mid = a.interpolated(to: b, fraction: 0.5)
        let expected = Transform3D.scale(x: 2, y: 2).concatenating(.rotation(angle: 0.5, x: 0, y: 0, z: 1))
            .concatenating(.translation(x: 50, y: 25))
        #expect(maxDifference(mid, expected) < 1e-12)
        #expect(a.interpolated(to: b, fraction: 0) == a)
        #expect(a.interpolated(to: b, fraction: 1) == b)
    }

    @Test("§15.3 slerp chooses the shortest arc")
    func slerpChoosesShortestArc() {
        let q0 = Quaternion(angle: 0.2, axis: Vector3(x: 0, y: 0, z: 1))
        let q1 = Quaternion(angle: 0.4, axis: Vector3(x: 0, y: 0, z: 1))
        let flipped = Quaternion(x: -q1.x, y: -q1.y, z: -q1.z, w: -q1.w)   // the same rotation
        let a = q0.slerp(to: q1, fraction: 0.5), b = q0.slerp(to: flipped, fraction: 0.5)
        #expect(abs(a.eulerAngles.z - 0.3) < 1e-12 && abs(b.eulerAngles.z - 0.3) < 1e-12)
    }

    @Test("§15.3 singular matrices switch discretely at 0.5")
    func singularMatricesSwitchAtHalf() {
        let zero = Transform3D.scale(x: 0, y: 0)
        let two = Transform3D.scale(x: 2, y: 2)
        #expect(zero.decomposed() == nil)
        #expect(zero.interpolated(to: two, fraction: 0.49) == zero)
        #expect(zero.interpolated(to: two, fraction: 0.5) == two)
        var noW = Transform3D.identity
        noW.m44 = 0
        #expect(noW.decomposed() == nil)
    }

    @Test("property: decompose ∘ recompose is the identity")
    func decomposeRecomposeRoundTrip() async {
        let angle = Gen.double(in: -10...10)
        let axis = Gen.double(in: -1...1)
        let scale = Gen.double(in: 0.05...20)
        await propertyCheck(count: 500, input: angle, axis, axis, axis, scale, scale, Gen.double(in: -1...1), Gen.double(in: -0.01...0.01)) {
            theta, ax, ay, az, sx, sy, skew, perspective in
            var m = Transform3D.scale(x: sx, y: -sy, z: 1.5)
            m.m21 = skew
            m = m.concatenating(.rotation(angle: theta, x: ax, y: ay, z: az + 0.01))
                .concatenating(.translation(x: 40 * skew, y: -7, z: 3))
            m.m34 = perspective
            m.m14 = perspective / 3
            guard let d = m.decomposed() else {
                Issue.record("could not decompose \(m)")
                return
            }
            let scaleOfM = m.elements.map(abs).max() ?? 1
            #expect(maxDifference(d.recomposed(), m) <= 1e-12 * scaleOfM)
        }
    }

    // MARK: §15.4

    @Test("§15.4 transform.rotation.z from 0 to 2π turns a full circle")
    func rotationFieldAnimatesTheAngle() {
        var spin = BasicAnimation(keyPath: "transform.rotation.z")
        spin.fromValue = 0
        spin.toValue = .scalar(2 * .pi)
        spin.duration = 1
        for (t, angle) in [(0.25, Double.pi / 2), (0.5, Double.pi), (0.75, -Double.pi / 2)] {
            let v = ReferenceEvaluator.presentationValue(ofProperty: "transform", model: .transform(.identity),
                                                         animations: [spin], at: t)
            guard case .transform(let m) = v else {
                Issue.record("not a transform: \(v)")
                continue
            }
            #expect(maxDifference(m, .rotation(angle: angle, x: 0, y: 0, z: 1)) < 1e-12)
        }
    }

    @Test("§15.4 field animations keep the other fields of the base")
    func fieldAnimationKeepsOtherFields() {
        var grow = BasicAnimation(keyPath: "transform.scale")
        grow.fromValue = 1
        grow.toValue = 3
        grow.duration = 1
        let base = Transform3D.rotation(angle: 0.5, x: 0, y: 0, z: 1).concatenating(.translation(x: 10, y: 20))
        let v = ReferenceEvaluator.presentationValue(ofProperty: "transform", model: .transform(base), animations: [grow], at: 0.5)
        let expected = Transform3D.scale(x: 2, y: 2, z: 2).concatenating(base)
        guard case .transform(let m) = v else { Issue.record("not a transform"); return }
        #expect(maxDifference(m, expected) < 1e-12)
    }

    @Test("§15.4 a matrix that does not decompose, with w near the smallest Double, gives finite fields, and a field written into it a finite matrix")
    func fieldsOfATinyWAreHeld() {
        // The C-interface fuzzer's model: every element 5e-324 but a translation z of −1, so the
        // 3×3 block is singular and the fields fall back to translation / w, which overflowed to
        // −∞; a scale animation over it recomposed (1, 1, −∞, NaN) in the last row.
        let d = Double.leastNonzeroMagnitude   // 5e-324
        let model = Transform3D(m11: d, m12: d, m13: d, m14: d, m21: d, m22: d, m23: d, m24: d,
                                m31: d, m32: d, m33: d, m34: d, m41: d, m42: d, m43: -1, m44: d)
        #expect(model.decomposed() == nil)
        let f = model.fields
        #expect(f.translation == Vector3(x: 1, y: 1, z: -Transform3D.largestRepeatedElement))
        #expect(f.scale == Vector3(x: 0, y: 0, z: 0))
        // Rows past Double's range once divided by w (1 / 5e-324) are held too.
        let steep = Transform3D(m11: 1, m12: 0, m13: 0, m14: 0, m21: 1, m22: 0, m23: 0, m24: 0,
                                m31: 0, m32: 0, m33: 1, m34: 0, m41: 3, m42: 0, m43: 0, m44: d)
        #expect(steep.decomposed() == nil)
        #expect(steep.fields.scale.x == Transform3D.largestRepeatedElement)
        #expect(steep.fields.translation.x == Transform3D.largestRepeatedElement)
        for keyPath in ["transform.scale", "transform.translation.x", "transform.rotation.z"] {
            var grow = BasicAnimation(keyPath: keyPath)
            grow.byValue = -17.71
            grow.duration = 1
            for base in [model, steep] {
                let v = ReferenceEvaluator.presentationValue(ofProperty: "transform", model: .transform(base), animations: [grow], at: 0.5)
                let finite = v.components.allSatisfy { $0.isFinite }
                #expect(finite, "\(keyPath) over \(base): \(v)")
            }
        }
    }

    // MARK: ⊕ for transforms

    @Test("§4.3 transform addition concatenates, the added transform first")
    func transformAdditionConcatenates() throws {
        let base = Transform3D.translation(x: 10, y: 0)
        let delta = Transform3D.scale(x: 2, y: 2)
        #expect(base.adding(delta) == delta.concatenating(base))
        #expect(maxDifference(base.adding(delta).subtracting(delta), base) < 1e-15)
        #expect(maxDifference(base.adding(delta).difference(from: base), delta) < 1e-15)
        #expect(maxDifference(delta.repeated(times: 3), .scale(x: 8, y: 8)) < 1e-15)
        #expect(delta.repeated(times: 0) == .identity)
        let powered = Transform3D.rotation(angle: 1e-3, x: 0, y: 0, z: 1).repeated(times: 1e30)
        #expect(powered.elements.allSatisfy { $0.isFinite })
    }

    @Test("§4.4 a power past ±1e150 is held there element by element, signs and exact zeros kept, never NaN")
    func repeatedPowersAreHeld() throws {
        // A scale by 2 and −3: 2^(10^6) and (−3)^(10^6 + 1) are held, the zeros stay zero.
        let scaled = Transform3D.scale(x: 2, y: -3).repeated(times: 1_000_001)
        #expect(scaled.m11 == Transform3D.largestRepeatedElement && scaled.m22 == -Transform3D.largestRepeatedElement)
        #expect(scaled.m12 == 0 && scaled.m21 == 0 && scaled.m41 == 0 && scaled.m33 == 1 && scaled.m44 == 1)
        // A general matrix (a fuzzer's: the difference of two cumulative ends), 3.6 million times:
        // squaring overflowed and met ∞ − ∞.
        let general = try Transform3D(elements: [64.7, 64.7, 64.7, 64.7, 64.7, 64.7, 64.7, 64.7,
                                                 64.7, 64.7, 64.7, 64.7, 1, 1, 1, -1])
        let powered = general.repeated(times: 3_556_485)
        #expect(powered.elements.allSatisfy { !$0.isNaN && abs($0) <= Transform3D.largestRepeatedElement }, "\(powered)")
        #expect(powered.elements.map(abs).max() == Transform3D.largestRepeatedElement)
        // Composing two held powers stays finite.
        #expect(powered.concatenating(powered).isFinite)
        // Powers within the bound are the plain product's, bit for bit.
        #expect(Transform3D.scale(x: 2, y: -3).repeated(times: 20) == .scale(x: 1_048_576, y: 3_486_784_401))
    }

    @Test("§4.4 the change of a cumulative transform from a nearly singular start (its inverse finite, near 1e280) is held within ±1e150: finite, never NaN, for 3-D and affine transforms alike")
    func cumulativeChangeFromANearlySingularStartIsHeld() throws {
        // det = 1e-280: the inverse is finite (1e280 in its first column), and the end's row
        // (1e38, −1e38) times that column was ∞ − ∞ — the change, and every iteration after the
        // first, NaN from finite input.
        let start = try Transform3D(elements: [1e-280, 0, 0, 0, -1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        let end = try Transform3D(elements: [1e38, -1e38, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        let limit = Transform3D.largestRepeatedElement
        let change = end.difference(from: start)
        #expect(change.elements.allSatisfy { !$0.isNaN && abs($0) <= limit }, "\(change)")
        let removed = end.subtracting(start)
        #expect(removed.elements.allSatisfy { !$0.isNaN && abs($0) <= limit }, "\(removed)")
        for n in [1.0, 2, 1e6] {
            let value = start.adding(change.repeated(times: n))
            #expect(value.elements.allSatisfy { !$0.isNaN && abs($0) <= limit }, "iteration \(n): \(value)")
        }
        let affineStart = AffineTransform(a: 1e-280, b: 0, c: -1, d: 1, tx: 0, ty: 0)
        let affineEnd = AffineTransform(a: 1e38, b: -1e38, c: 0, d: 1, tx: 1e38, ty: -1e38)
        for value in [affineEnd.difference(from: affineStart), affineEnd.subtracting(affineStart),
                      affineStart.adding(affineEnd.difference(from: affineStart).repeated(times: 3))] {
            let elements = [value.a, value.b, value.c, value.d, value.tx, value.ty]
            #expect(elements.allSatisfy { !$0.isNaN && abs($0) <= limit }, "\(value)")
        }
        // Within the bound, the plain products bit for bit.
        let a = Transform3D.rotation(angle: 0.3, x: 0, y: 0, z: 1).concatenating(.translation(x: 4, y: -7))
        let b = try Transform3D(elements: [1.5, 0.2, 0, 0, -0.1, 2.5, 0, 0, 0, 0, 1, 0.001, 3, 9, 2, 1])
        let bInverse = try #require(b.inverted())
        #expect(a.difference(from: b) == a.concatenating(bInverse))
        #expect(a.subtracting(b) == bInverse.concatenating(a))
        let p = AffineTransform(a: 2, b: 0.5, c: -0.25, d: 1.5, tx: 3, ty: -4), q = AffineTransform(a: 0.5, b: 0, c: 0, d: 2, tx: 1, ty: 1)
        let qInverse = try #require(q.inverted())
        #expect(p.adding(q) == q.concatenating(p) && p.difference(from: q) == p.concatenating(qInverse))
    }

    @Test("§4.3 adding transforms past ±1e150 holds the factors and the sum there, signs and exact zeros kept, never NaN; below the bound it is the plain product")
    func additionPastTheBoundIsHeld() throws {
        // The C fuzz target's finding: three additive cumulative transforms, each a power held
        // at 1e150, stacked on one layer: the second product passed Double's range, the third
        // met ∞ − ∞ — NaN in every element from finite input.
        let general = try Transform3D(elements: [0.38, -0.16, -0.47, -0.097, 0.082, -0.03, 0.35, 0.36,
                                                 0.55, 0.33, 0.094, 0.21, 68.6, 68.6, 68.6, 100])
        let powered = general.repeated(times: 1_000_000)
        #expect(powered.elements.map(abs).max() == Transform3D.largestRepeatedElement)
        var sum = Transform3D.identity
        for k in 1...6 {
            sum = sum.adding(powered)
            #expect(sum.elements.allSatisfy { !$0.isNaN && abs($0) <= Transform3D.largestRepeatedElement }, "\(k) added: \(sum)")
        }
        // Signs kept where the plain product is past the bound; exact zeros stay zero.
        let scaled = Transform3D.scale(x: 1e100, y: -1e100)
        let twice = scaled.adding(scaled)
        #expect(twice.m11 == Transform3D.largestRepeatedElement && twice.m22 == Transform3D.largestRepeatedElement)
        #expect(twice.m12 == 0 && twice.m21 == 0 && twice.m33 == 1 && twice.m44 == 1)
        let mixed = Transform3D.scale(x: 1e100, y: 1e100).adding(Transform3D.scale(x: 1e100, y: -1e100))
        #expect(mixed.m11 == Transform3D.largestRepeatedElement && mixed.m22 == -Transform3D.largestRepeatedElement)
        // A factor past the bound (a value no product of held factors gives) is held before it multiplies.
        let huge = Transform3D.scale(x: 1e200, y: 1)
        #expect(huge.adding(huge).m11 == Transform3D.largestRepeatedElement)
        // Within the bound, the plain product bit for bit.
        let a = Transform3D.rotation(angle: 0.3, x: 0, y: 0, z: 1).concatenating(.translation(x: 4, y: -7))
        let b = try Transform3D(elements: [1.5, 0.2, 0, 0, -0.1, 2.5, 0, 0, 0, 0, 1, 0.001, 3, 9, 2, 1])
        #expect(a.adding(b) == b.concatenating(a))
    }
}

@Suite("AffineTransform")
struct AffineTransformTests {
    @Test("§14.1 points transform as (x, y, 1) · T; concatenation applies the receiver first")
    func rowVectorConvention() {
        let t = AffineTransform.translation(x: 5, y: 0).concatenating(.rotation(angle: .pi / 2))
        let p = Point(x: 1, y: 0).applying(t)
        #expect(abs(p.x) < 1e-15 && abs(p.y - 6) < 1e-15)
        #expect(Point(x: 1, y: 1).applying(.scale(x: 2, y: 3)) == Point(x: 2, y: 3))
    }

    @Test("inverse and determinant")
    func inverse() throws {
        let t = AffineTransform(a: 2, b: 1, c: -1, d: 3, tx: 4, ty: -5)
        let i = try #require(t.inverted())
        let p = Point(x: 3, y: 7).applying(t).applying(i)
        #expect(abs(p.x - 3) < 1e-14 && abs(p.y - 7) < 1e-14)
        #expect(AffineTransform.scale(x: 0, y: 1).inverted() == nil)
        #expect(AnimationCore.AffineTransform.identity.rotated(by: 0).isIdentity)
    }

    @Test("§15.3 affine transforms interpolate through the 3-D decomposition")
    func interpolatesByDecomposition() {
        let a = AnimationCore.AffineTransform.identity
        let b = AffineTransform.rotation(angle: 1).concatenating(.translation(x: 10, y: 0))
        let mid = a.interpolated(to: b, fraction: 0.5)
        let expected = AffineTransform.rotation(angle: 0.5).concatenating(.translation(x: 5, y: 0))
        #expect(abs(mid.a - expected.a) < 1e-12 && abs(mid.b - expected.b) < 1e-12 && abs(mid.tx - expected.tx) < 1e-12)
    }

    @Test("§15.3 a matrix singular up to rounding is not decomposed: equal rows, a rounding away from equal, a vanishing perspective w")
    func singularUpToRoundingIsNotDecomposed() throws {
        // Two equal rows of the whole matrix (the fuzzer's model): singular, whatever rounding does.
        let equalRows = try Transform3D(elements: [40.39215686274509, 40.39215686274509, 40.39215686274509, 39.95574883649957,
                                                   -100, -1, 40.39826047150377, 41.9607843137255,
                                                   41.9607843137255, 41.9607843137255, 41.9607843137255, 41.9607843137255,
                                                   41.9607843137255, 41.9607843137255, 41.9607843137255, 41.9607843137255])
        #expect(equalRows.decomposed() == nil)
        // The same rows one ulp apart: still singular within rounding.
        var nudged = equalRows
        nudged.m33 = nudged.m33.nextUp
        #expect(nudged.decomposed() == nil)
        // An upper 3×3 block with two rows a rounding apart.
        let coplanar = Transform3D(m11: 1, m12: 2, m13: 3, m14: 0, m21: 1, m22: 2, m23: 3 + 1e-14, m24: 0,
                                   m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)
        #expect(coplanar.decomposed() == nil)
        // Small but well-conditioned matrices still decompose (the test is relative): a scale of 1e-5.
        let small = Transform3D.scale(x: 1e-5, y: 1e-5, z: 1e-5)
        let parts = try #require(small.decomposed())
        #expect(abs(parts.scale.x - 1e-5) < 1e-20)
        // And so do perspectives well away from singular.
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 500
        #expect(perspective.decomposed() != nil)
    }

    @Test("§15.3 a matrix too nearly singular to decompose into finite parts switches discretely: no NaN from finite input (found by the keyframes fuzzer)")
    func nearlySingularDecompositionSwitchesDiscretely() throws {
        let base = try Transform3D(elements: [24.666208896009767, -64.15350576028077, -66.55527580682079, 35.75951781490807,
                                              73.71480888075075, -93.34401464866102, -100, -1, -1, -1, -1, -1, -1, -1, -1, -1])
        let by = try Transform3D(elements: [-1, -1, -1, -1, -1, -1, -1, -1, 8.119325551232158, -17.04890516517891,
                                            -38.15213244831006, -22.908369573510335, -59.478141451132984, -92.96864271000229, -1, -1])
        var animation = BasicAnimation(keyPath: "transform")
        animation.byValue = .transform(by)
        animation.timing.duration = 1
        animation.timing.fillMode = .forwards
        animation.isRemovedOnCompletion = false
        var values: [Transform3D] = []
        for p in stride(from: 0.0, through: 1.0, by: 0.125) {
            guard case .transform(let m)? = ReferenceEvaluator.sample(animation, at: p, base: .transform(base)).value else {
                Issue.record("no transform at \(p)")
                return
            }
            #expect(m.isFinite, "p = \(p): \(m)")
            values.append(m)
        }
        // Before the middle the start shows, from it on the end (§15.3: a discrete switch at 0.5).
        #expect(values[0] == base && values[3] == base)
        #expect(values[4] == values[8] && values[4] != base)
        for m in [base, by, base.concatenating(by)] {
            if let parts = m.decomposed() { #expect(parts.recomposed().isFinite) }
        }
    }

    @Test("a matrix whose determinant is near the smallest Double (a row of denormals) has no inverse, so a cumulative transform from it counts its start as the identity: no NaN from finite input (found by the C fuzzer)")
    func nearlySingularMatricesHaveNoInverse() throws {
        let tiny = Double.leastNonzeroMagnitude
        let a: [Double] = [-9.315632867933166, tiny, tiny, tiny, tiny, tiny, tiny, tiny, tiny, -15.934996566720072, 1, 28.294804303044184,
                           96.69489585717554, 1, -91.78759441519799, 2]
        let b: [Double] = [-30.055695429922945, -3.3676661326008994, 1, 2, 97.34187838559549, -87.63714045929656, -69.40566109712367, 0,
                           -1, 1e-300, -1, tiny, tiny, tiny, tiny, tiny]
        guard case .transform(let start) = AnimationValue(kind: .transform, component: { a[$0] }),
              case .transform(let end) = AnimationValue(kind: .transform, component: { b[$0] }) else { throw FuzzlessError() }
        // Its determinant is not 0, but 1/det overflows: the inverse was ±∞ and NaN (∞ · 0).
        #expect(start.determinant != 0)
        #expect(start.inverted() == nil)
        // The change an iteration makes is then the end itself, and repeated it stays finite.
        #expect(end.difference(from: start) == end)
        #expect(end.difference(from: start).repeated(times: 13).isFinite)
        // The C fuzzer's animation: additive, cumulative, autoreversing, repeating forever.
        var animation = BasicAnimation(keyPath: "transform")
        (animation.fromValue, animation.toValue) = (.transform(start), .transform(end))
        (animation.duration, animation.timeOffset, animation.repeatCount, animation.autoreverses) = (0.25, 1, .infinity, true)
        (animation.isAdditive, animation.isCumulative) = (true, true)
        for t in [0.1, 1, 2.29] {
            let value = ReferenceEvaluator.presentationValue(ofProperty: "transform", model: .transform(.identity), animations: [animation], at: t)
            #expect(value.components.allSatisfy { $0.isFinite }, "t = \(t): \(value)")
        }
        // Affine transforms alike.
        let affine = AffineTransform(a: .leastNonzeroMagnitude, b: 0, c: 0, d: 1, tx: 5, ty: 1)   // 1/det overflows
        #expect(affine.determinant != 0 && affine.inverted() == nil)
        #expect(AffineTransform(a: 2, b: 0, c: 0, d: 4, tx: 1, ty: 1).inverted() != nil)
    }

    private struct FuzzlessError: Error {}
}
