import AnimationCore
import Foundation
import PropertyBased
import Testing

@Suite("Values (semantics §4.5)")
struct ValuesTests {
    @Test("§4.5 points, sizes and rectangles interpolate component-wise")
    func geometryInterpolatesComponentWise() {
        #expect(Point(x: 0, y: 10).interpolated(to: Point(x: 10, y: 30), fraction: 0.25) == Point(x: 2.5, y: 15))
        #expect(Size(width: 2, height: 4).interpolated(to: Size(width: 4, height: 0), fraction: 0.5) == Size(width: 3, height: 2))
        let r = Rect(x: 0, y: 0, width: 10, height: 10).interpolated(to: Rect(x: 10, y: 20, width: 30, height: 0), fraction: 0.5)
        #expect(r == Rect(x: 5, y: 10, width: 20, height: 5))
    }

    @Test("§4.5 colours interpolate component-wise, not premultiplied")
    func colorsInterpolateNonPremultiplied() {
        let transparentRed = Color(red: 1, green: 0, blue: 0, alpha: 0)
        let opaqueBlue = Color(red: 0, green: 0, blue: 1, alpha: 1)
        let mid = transparentRed.interpolated(to: opaqueBlue, fraction: 0.5)
        #expect(mid == Color(red: 0.5, green: 0, blue: 0.5, alpha: 0.5))
    }

    @Test("§4.5 Float values interpolate in Double and round once")
    func floatInterpolation() {
        #expect(Float(1).interpolated(to: 3, fraction: 0.25) == 1.5)
        #expect(Float(2).interpolationDistance(to: 5) == 3)
    }

    @Test("§16 Float values add and differ through Double with Float's own bits, at every exponent and at the range's ends")
    func floatArithmeticThroughDoubleKeepsFloatBits() {
        var rng = SeededGenerator(seed: 0xF10A7)
        var checked = 0
        for _ in 0..<20_000 {
            // Any bit pattern but NaN: every exponent, subnormals, ±0, ±∞, sums that overflow.
            let a = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next())), b = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            let near = Float(sign: b.sign, exponentBitPattern: a.exponentBitPattern, significandBitPattern: b.significandBitPattern)
            for (x, y) in [(a, b), (a, near), (a, -near)] where !x.isNaN && !y.isNaN {
                let sum = x + y, change = x - y
                if !sum.isNaN { #expect(x.adding(y).bitPattern == sum.bitPattern, "\(x) + \(y)") }
                if !change.isNaN { #expect(x.difference(from: y).bitPattern == change.bitPattern, "\(x) − \(y)") }
                checked += 1
            }
        }
        #expect(checked > 50_000)
    }

    @Test("§5.5 distances are Euclidean over the components")
    func distancesAreEuclidean() {
        #expect(Point(x: 0, y: 0).interpolationDistance(to: Point(x: 3, y: 4)) == 5)
        #expect(Rect(x: 0, y: 0, width: 0, height: 0).interpolationDistance(to: Rect(x: 1, y: 1, width: 1, height: 1)) == 2)
        #expect(AnimationValue.scalar(-2).interpolationDistance(to: 3) == 5)
        #expect(AnimationValue.scalar(0).interpolationDistance(to: .point(.zero)) == .infinity)
    }

    @Test("§16 NaN values propagate through interpolation")
    func nanValuesPropagate() {
        #expect(Point(x: .nan, y: 0).interpolated(to: Point(x: 1, y: 1), fraction: 0.5).x.isNaN)
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = .scalar(.nan)
        a.toValue = 1
        a.duration = 1
        #expect(throws: Never.self) { try a.validate() }
        #expect(ReferenceEvaluator.sample(a, at: 0.5, base: 0).value?.scalarValue?.isNaN == true)
        // An infinite end is not NaN (§16's saturated values): the limit, the infinite end until
        // the fraction reaches the other.
        a.fromValue = .scalar(.infinity)
        #expect(ReferenceEvaluator.sample(a, at: 0.5, base: 0).value?.scalarValue == .infinity)
    }

    @Test("§16 values saturated to ±∞ never read NaN: interpolation from an infinite end takes its limit, equal infinities differ by 0, opposite ones add to the later operand; NaN still propagates")
    func saturatedValuesFollowTheirLimits() {
        let inf = Double.infinity
        // lerp: the limit of (1 − f)·a + f·b as the infinite end grows.
        #expect(inf.interpolated(to: 5, fraction: 0) == inf)
        #expect(inf.interpolated(to: 5, fraction: 0.3) == inf)
        #expect(inf.interpolated(to: 5, fraction: 1) == 5)
        #expect(inf.interpolated(to: 5, fraction: 1.5) == -inf)   // an overshoot past the finite end
        #expect(5.0.interpolated(to: -inf, fraction: 0) == 5)
        #expect(5.0.interpolated(to: -inf, fraction: 0.3) == -inf)
        #expect(inf.interpolated(to: -inf, fraction: 0.3) == inf)   // opposite ends: the nearer
        #expect(inf.interpolated(to: -inf, fraction: 0.7) == -inf)
        #expect(inf.interpolated(to: inf, fraction: 0.3) == inf)
        #expect(2.0.interpolated(to: 4, fraction: 0.25) == 2.5)   // finite values as before
        // ⊕: opposite infinities give the later operand; difference: equal infinities give 0.
        #expect(inf.adding(-inf) == -inf)
        #expect((-inf).adding(inf) == inf)
        #expect(inf.adding(inf) == inf)
        #expect(inf.difference(from: inf) == 0)
        #expect((-inf).difference(from: -inf) == 0)
        #expect(5.0.difference(from: inf) == -inf)
        #expect(Float.infinity.adding(-.infinity) == -.infinity)
        #expect(Float.infinity.difference(from: .infinity) == 0)
        // NaN operands propagate.
        #expect(Double.nan.adding(inf).isNaN)
        #expect(inf.adding(.nan).isNaN)
        #expect(Double.nan.difference(from: inf).isNaN)
        #expect(inf.interpolated(to: .nan, fraction: 0.5).isNaN)
        #expect(inf.interpolated(to: 5, fraction: .nan).isNaN)
        // Every vector kind composes its components by the same rules.
        let p = Point(x: inf, y: 1).adding(Point(x: -inf, y: 2))
        #expect(p == Point(x: -inf, y: 3))
        #expect(Point(x: inf, y: 1).difference(from: Point(x: inf, y: 0)) == Point(x: 0, y: 1))
        #expect(Size(width: -inf, height: 1).adding(Size(width: inf, height: 1)) == Size(width: inf, height: 2))
        #expect(Size(width: -inf, height: 1).difference(from: Size(width: -inf, height: 0)) == Size(width: 0, height: 1))
        let r = Rect(x: inf, y: 0, width: 1, height: -inf).adding(Rect(x: -inf, y: 1, width: 1, height: inf))
        #expect(r.origin.x == -inf && r.origin.y == 1 && r.size.width == 2 && r.size.height == inf)
        let c = Color(red: inf, green: 0.5, blue: -inf, alpha: 1)
        #expect(c.adding(Color(red: -inf, green: 0.25, blue: inf, alpha: 0)) == Color(red: -inf, green: 0.75, blue: inf, alpha: 1))
        #expect(c.difference(from: c) == Color(red: 0, green: 0, blue: 0, alpha: 0))
        #expect(AnimationValue.color(c).interpolated(to: .color(Color(red: 0, green: 0, blue: 0, alpha: 0)), fraction: 0.5)
                == .color(Color(red: inf, green: 0.25, blue: -inf, alpha: 0.5)))
    }

    @Test("Core Graphics interop: CGPoint, CGSize and CGRect convert both ways")
    func coreGraphicsInterop() {
        let p = Point(CGPoint(x: 1.5, y: -2))
        #expect(p == Point(x: 1.5, y: -2) && p.cgPoint == CGPoint(x: 1.5, y: -2))
        #expect(Size(CGSize(width: 3, height: 4)).cgSize == CGSize(width: 3, height: 4))
        let r = CGRect(x: 1, y: 2, width: 3, height: 4)
        #expect(Rect(r) == Rect(x: 1, y: 2, width: 3, height: 4) && Rect(r).cgRect == r)
    }

    @Test("Rect accessors follow Core Graphics (negative sizes included)")
    func rectAccessors() {
        let r = Rect(x: 10, y: 10, width: -4, height: 6)
        #expect(r.minX == 6 && r.maxX == 10 && r.midX == 8 && r.width == 4 && r.minY == 10 && r.maxY == 16 && r.height == 6)
    }
}

@Suite("AnimationValue")
struct AnimationValueTests {
    @Test("number literals are scalars; kinds and components round-trip")
    func literalsKindsAndComponents() throws {
        let a: AnimationValue = 3
        let b: AnimationValue = 0.5
        #expect(a == .scalar(3) && b.kind == .scalar)
        let values: [AnimationValue] = [
            .scalar(1), .point(Point(x: 1, y: 2)), .size(Size(width: 3, height: 4)), .rect(Rect(x: 1, y: 2, width: 3, height: 4)),
            .color(Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.4)), .transform(.rotation(angle: 1, x: 1, y: 0, z: 0)),
            .affineTransform(AnimationCore.AffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)),
        ]
        for v in values {
            #expect(v.components.count == v.kind.componentCount)
            #expect(try AnimationValue(kind: v.kind, components: v.components) == v)
        }
        #expect(throws: AnimationError.self) { try AnimationValue(kind: .rect, components: [1, 2]) }
    }

    @Test("typed wrapping and unwrapping")
    func typedConversion() {
        let v = AnimationValue(Point(x: 1, y: 2))
        #expect(v.value(as: Point.self) == Point(x: 1, y: 2))
        #expect(v.value(as: Double.self) == nil)
        #expect(AnimationValue(Float(2)).value(as: Float.self) == 2)
    }

    @Test("operations between different kinds leave the receiver unchanged")
    func mismatchedKindsAreInert() {
        let p = AnimationValue.point(Point(x: 1, y: 1))
        #expect(p.interpolated(to: 5, fraction: 0.5) == p)
        #expect(p.adding(5) == p)
    }

    @Test("§4.3 ⊕ is + for vectors, and subtracting/difference invert it")
    func additionAlgebra() {
        let a = AnimationValue.rect(Rect(x: 1, y: 2, width: 3, height: 4))
        let d = AnimationValue.rect(Rect(x: 10, y: 10, width: 10, height: 10))
        #expect(a.adding(d) == .rect(Rect(x: 11, y: 12, width: 13, height: 14)))
        #expect(a.adding(d).subtracting(d) == a)
        #expect(a.adding(d).difference(from: a) == d)
        #expect(d.repeated(times: 3) == .rect(Rect(x: 30, y: 30, width: 30, height: 30)))
        #expect(AnimationValue.additiveIdentity(of: .transform) == .transform(.identity))
    }

    @Test("values beyond ±1e38 (single precision's range, halved) are refused in every kind, naming the value; NaN and 1e38 pass")
    func valuesBeyondSinglePrecisionAreRefused() throws {
        func reason(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch let error as AnimationError { return error.description } catch { return "\(error)" }
        }
        var basic = BasicAnimation(keyPath: "opacity")
        (basic.fromValue, basic.toValue) = (0, 1e39)
        #expect(reason { try basic.validate() }?.contains("toValue") == true)
        basic.toValue = .scalar(-.infinity)
        #expect(reason { try basic.validate() }?.contains("toValue") == true)
        (basic.toValue, basic.byValue) = (nil, .point(Point(x: 0, y: 2e38)))
        basic.fromValue = .point(Point(x: 0, y: 0))
        #expect(reason { try basic.validate() }?.contains("byValue") == true)
        var spring = SpringAnimation(keyPath: "opacity")
        spring.toValue = 1e39
        #expect(reason { try spring.validate() }?.contains("toValue") == true)
        var keyframes = KeyframeAnimation(keyPath: "opacity")
        keyframes.values = [0, 1e39, 0]
        #expect(reason { try keyframes.validate() }?.contains("values[1]") == true)
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addLine(to: Point(x: 1e39, y: 1e39))
        var along = KeyframeAnimation(keyPath: "position")
        along.path = path
        #expect(reason { try along.validate() }?.contains("path.elements[1]") == true)
        // The limit itself, and NaN (which propagates, §16), are accepted.
        keyframes.values = [0, 1e38, -1e38, .scalar(.nan)]
        #expect(reason { try keyframes.validate() } == nil)
        var edge = Path()
        edge.move(to: Point(x: -1e38, y: 1e38))
        edge.addCurve(to: Point(x: 1e38, y: 1e38), control1: Point(x: 1e38, y: -1e38), control2: Point(x: -1e38, y: -1e38))
        along.path = edge
        along.calculationMode = .paced
        #expect(reason { try along.validate() } == nil)
    }
}

@Suite("Key-path fields (semantics §4.6)")
struct ValueFieldTests {
    @Test("§4.6 point, size and rect fields read and write one component")
    func structureFields() throws {
        let rect = AnimationValue.rect(Rect(x: 1, y: 2, width: 3, height: 4))
        #expect(try ValueField(path: "origin.y", of: .rect).get(from: rect) == .scalar(2))
        #expect(try ValueField(path: "size", of: .rect).get(from: rect) == .size(Size(width: 3, height: 4)))
        #expect(try ValueField(path: "size.width", of: .rect).set(.scalar(9), in: rect) == .rect(Rect(x: 1, y: 2, width: 9, height: 4)))
        #expect(try ValueField(path: "origin", of: .rect).set(.point(.zero), in: rect) == .rect(Rect(x: 0, y: 0, width: 3, height: 4)))
        let point = AnimationValue.point(Point(x: 5, y: 6))
        #expect(try ValueField(path: "x", of: .point).set(.scalar(0), in: point) == .point(Point(x: 0, y: 6)))
        #expect(try ValueField(path: "height", of: .size).get(from: .size(Size(width: 1, height: 7))) == .scalar(7))
    }

    @Test("§4.6 transform fields: rotation (= z), scale (mean of three), translation as a size")
    func transformFields() throws {
        let t = AnimationValue.transform(Transform3D.scale(x: 2, y: 3, z: 4).concatenating(.rotation(angle: 0.3, x: 0, y: 0, z: 1))
            .concatenating(.translation(x: 7, y: 8, z: 9)))
        func get(_ path: String) throws -> Double { try #require(ValueField(path: path, of: .transform).get(from: t).scalarValue) }
        let (rotation, rotationZ, scale, scaleY, translationZ) =
            (try get("rotation"), try get("rotation.z"), try get("scale"), try get("scale.y"), try get("translation.z"))
        #expect(abs(rotation - 0.3) < 1e-12 && abs(rotationZ - 0.3) < 1e-12)
        #expect(abs(scale - 3) < 1e-12 && abs(scaleY - 3) < 1e-12)
        #expect(abs(translationZ - 9) < 1e-12)
        #expect(try ValueField(path: "translation", of: .transform).get(from: t) == .size(Size(width: 7, height: 8)))
        let scaled = try ValueField(path: "scale", of: .transform).set(.scalar(5), in: .transform(.identity))
        #expect(scaled == .transform(.scale(x: 5, y: 5, z: 5)))
    }

    @Test("§4.6 Euler rotation fields round-trip")
    func eulerFieldsRoundTrip() {
        let angles = Vector3(x: 0.3, y: -0.7, z: 2.5)
        let back = Quaternion(eulerAngles: angles).eulerAngles
        #expect(abs(back.x - 0.3) < 1e-12 && abs(back.y + 0.7) < 1e-12 && abs(back.z - 2.5) < 1e-12)
        let rx = Transform3D.rotation(angle: 0.4, x: 1, y: 0, z: 0)
        let viaField = ValueField.rotationX.set(.scalar(0.4), in: .transform(.identity))
        guard case .transform(let m) = viaField else { Issue.record("not a transform"); return }
        #expect(maxDifference(m, rx) < 1e-15)
    }

    @Test("§4.6 unknown fields are rejected, naming the key path")
    func unknownFieldsAreRejected() throws {
        #expect(throws: AnimationError.self) { try ValueField(path: "z", of: .point) }
        #expect(throws: AnimationError.self) { try ValueField(path: "x", of: .scalar) }
        #expect(throws: AnimationError.self) { try AnimationKeyPath("position.width", propertyKind: .point) }
        #expect(throws: AnimationError.self) { try AnimationKeyPath("", propertyKind: .point) }
        #expect(try AnimationKeyPath("transform.rotation.z", propertyKind: .transform).field == .rotationZ)
        #expect(try AnimationKeyPath("bounds.size.width", propertyKind: .rect).description == "bounds.size.width")
    }

    @Test("§4.6 a zero-scale transform still reports its translation and scale 0")
    func singularTransformFields() {
        let t = AnimationValue.transform(Transform3D.scale(x: 0, y: 0).concatenating(.translation(x: 4, y: 5)))
        #expect(ValueField.scaleX.get(from: t) == .scalar(0))
        #expect(ValueField.translationX.get(from: t) == .scalar(4))
    }
}
