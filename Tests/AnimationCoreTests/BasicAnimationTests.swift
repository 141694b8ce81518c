import AnimationCore
import Testing

/// A linear scalar basic animation of duration 1 with the given values.
func basic(_ keyPath: String = "opacity", from: AnimationValue? = nil, to: AnimationValue? = nil, by: AnimationValue? = nil) -> BasicAnimation {
    var a = BasicAnimation(keyPath: keyPath)
    a.fromValue = from
    a.toValue = to
    a.byValue = by
    a.duration = 1
    return a
}

@Suite("BasicAnimation (semantics §4)")
struct BasicAnimationTests {
    // MARK: §4.1 — one test per row of the from/to/by table, base 10

    @Test("§4.1 from, to: from → to")
    func fromTo() {
        #expect(scalarValue(basic(from: 0, to: 20), at: 0.5, base: 10) == 10)
        #expect(scalarValue(basic(from: 0, to: 20), at: 0, base: 10) == 0)
    }

    @Test("§4.1 from, by: from → from + by")
    func fromBy() throws {
        #expect(try #require(scalarValue(basic(from: 2, by: 4), at: 1 - 1e-9, base: 10)) > 5.99)
        #expect(scalarValue(basic(from: 2, by: 4), at: 0.5, base: 10) == 4)
    }

    @Test("§4.1 by, to: to − by → to")
    func byTo() {
        #expect(scalarValue(basic(to: 20, by: 5), at: 0.5, base: 10) == 17.5)
    }

    @Test("§17 #5 to = 20, by = 5 starts at 15")
    func example5StartIsToMinusBy() {
        #expect(scalarValue(basic(to: 20, by: 5), at: 0, base: 10) == 15)
    }

    @Test("§4.1 from only: from → base")
    func fromOnly() {
        #expect(scalarValue(basic(from: 0), at: 0.25, base: 10) == 2.5)
    }

    @Test("§4.1 to only: base → to")
    func toOnly() {
        #expect(scalarValue(basic(to: 0), at: 0.25, base: 10) == 7.5)
    }

    @Test("§4.1 by only: base → base + by")
    func byOnly() {
        #expect(scalarValue(basic(by: 4), at: 0.25, base: 10) == 11)
    }

    @Test("§17 #4 by = 5 only, model 10, p = 0.5 gives 12.5")
    func example4ByOnly() {
        let v = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: 10, animations: [basic(by: 5)], at: 0.5)
        #expect(v == .scalar(12.5))
    }

    @Test("§4.1 no values: the animation shows the value beneath it")
    func noValuesShowsBase() {
        #expect(scalarValue(basic(), at: 0.5, base: 10) == 10)
    }

    @Test("§4.1 base is the value beneath: the result of earlier animations on the key path")
    func baseIsTheValueBeneath() {
        let first = basic(from: 100, to: 200)
        let second = basic(to: 0)           // base → 0, base = first's value
        let v = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: 1, animations: [first, second], at: 0.5)
        #expect(v == .scalar(75))           // 150 → 0 at one half
    }

    @Test("§4.1 at most two of from/to/by; values of one kind")
    func valueValidation() {
        #expect(throws: AnimationError(field: "byValue", reason: "at most two of fromValue, toValue and byValue may be set")) {
            try basic(from: 0, to: 1, by: 1).validate()
        }
        #expect(throws: AnimationError(field: "toValue", reason: "is a point but fromValue is a scalar")) {
            try basic(from: 0, to: .point(.zero)).validate()
        }
        #expect(throws: AnimationError.self) { try basic("", from: 0).validate() }
        #expect(throws: AnimationError.self) { try basic("position", from: 0).validate(forPropertyKind: .point) }
        #expect(throws: Never.self) { try basic("position.x", from: 0).validate(forPropertyKind: .point) }
    }

    // MARK: §4.2

    @Test("§4.2 value = lerp(start, end, timingFunction(p))")
    func valueIsLerpAfterTimingFunction() throws {
        var a = basic(from: 10, to: 30)
        a.timingFunction = .easeInEaseOut
        for p in stride(from: 0.0, to: 1, by: 0.1) {  // at p = 1 the animation has ended (§1.4)
            let expected = 10 + 20 * TimingFunction.easeInEaseOut.value(at: p)
            #expect(abs(try #require(scalarValue(a, at: p, base: 0)) - expected) < 1e-12)
        }
    }

    // MARK: §4.3

    @Test("§4.3 additive: presentation = base + value")
    func additiveAddsToBase() {
        var wiggle = basic(from: -5, to: 5)
        wiggle.isAdditive = true
        #expect(scalarValue(wiggle, at: 0.75, base: 100) == 102.5)
        let v = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: 100, animations: [wiggle], at: 0.25)
        #expect(v == .scalar(97.5))
    }

    @Test("§4.3 additive transforms concatenate: the animation's matrix applies before the model's")
    func additiveTransformsConcatenate() {
        var a = basic("transform", from: .transform(.scale(x: 2, y: 2)), to: .transform(.scale(x: 2, y: 2)))
        a.isAdditive = true
        let model = Transform3D.translation(x: 10, y: 0)
        let v = ReferenceEvaluator.presentationValue(ofProperty: "transform", model: .transform(model), animations: [a], at: 0.5)
        #expect(v == .transform(Transform3D.scale(x: 2, y: 2).concatenating(model)))
    }

    // MARK: §4.4

    @Test("§4.4 cumulative: iteration k adds k · (end − start)")
    func cumulativeAccumulatesPerIteration() {
        var a = basic(from: 0, to: 10)
        a.isCumulative = true
        a.repeatCount = 3
        #expect(scalarValue(a, at: 0.5, base: 0) == 5)
        #expect(scalarValue(a, at: 1.5, base: 0) == 15)
        #expect(scalarValue(a, at: 2.5, base: 0) == 25)
        a.isCumulative = false
        #expect(scalarValue(a, at: 2.5, base: 0) == 5)
    }

    @Test("§4.4 cumulative transforms repeat the per-iteration change")
    func cumulativeTransforms() {
        var spin = basic("transform", from: .transform(.identity), to: .transform(.rotation(angle: 0.5, x: 0, y: 0, z: 1)))
        spin.isCumulative = true
        spin.repeatCount = 4
        let v = ReferenceEvaluator.sample(spin, at: 2.5, base: .transform(.identity)).value
        guard case .transform(let m)? = v else { Issue.record("not a transform"); return }
        #expect(abs(zAngle(m) - 1.25) < 1e-12)
    }

    // MARK: §4.5

    @Test("§4.5 every value type animates: point, size, rect, colour, transform")
    func everyValueTypeAnimates() {
        let cases: [(AnimationValue, AnimationValue, AnimationValue)] = [
            (.point(Point(x: 0, y: 0)), .point(Point(x: 10, y: 20)), .point(Point(x: 5, y: 10))),
            (.size(Size(width: 0, height: 0)), .size(Size(width: 10, height: 20)), .size(Size(width: 5, height: 10))),
            (.rect(Rect(x: 0, y: 0, width: 2, height: 2)), .rect(Rect(x: 2, y: 2, width: 4, height: 4)), .rect(Rect(x: 1, y: 1, width: 3, height: 3))),
            (.color(.black), .color(.white), .color(Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1))),
            (.transform(.identity), .transform(.translation(x: 10, y: 0)), .transform(.translation(x: 5, y: 0))),
        ]
        for (from, to, mid) in cases {
            #expect(ReferenceEvaluator.sample(basic("p", from: from, to: to), at: 0.5, base: from).value == mid)
        }
    }

    // MARK: §4.6

    @Test("§4.6 position.x animates only x")
    func subFieldAnimatesOnlyItsField() {
        let a = basic("position.x", from: 0, to: 100)
        let v = ReferenceEvaluator.presentationValue(ofProperty: "position", model: .point(Point(x: 7, y: 8)), animations: [a], at: 0.5)
        #expect(v == .point(Point(x: 50, y: 8)))
    }

    @Test("§4.6 bounds.size.width animates only the width")
    func nestedRectField() {
        let a = basic("bounds.size.width", to: 200)
        let v = ReferenceEvaluator.presentationValue(ofProperty: "bounds", model: .rect(Rect(x: 0, y: 0, width: 100, height: 50)),
                                                     animations: [a], at: 0.5)
        #expect(v == .rect(Rect(x: 0, y: 0, width: 150, height: 50)))
    }

    // MARK: §4.7

    @Test("§4.7 a rotateZ value function turns the interpolated angle into a transform")
    func valueFunctionBuildsTransform() throws {
        var spin = basic("transform", from: 0, to: .scalar(2 * .pi))
        spin.valueFunction = .rotateZ
        try spin.validate(forPropertyKind: .transform)
        let v = ReferenceEvaluator.sample(spin, at: 0.5, base: .transform(.identity)).value
        guard case .transform(let m)? = v else { Issue.record("not a transform"); return }
        #expect(maxDifference(m, .rotation(angle: .pi, x: 0, y: 0, z: 1)) < 1e-15)
        var grow = basic("transform", to: 3)
        grow.valueFunction = .scaleX
        #expect(ReferenceEvaluator.sample(grow, at: 0.5, base: .transform(.identity)).value == .transform(.scale(x: 2, y: 1)))
        #expect(throws: AnimationError.self) {
            var bad = basic("opacity", from: 0, to: 1)
            bad.valueFunction = .rotateZ
            try bad.validate(forPropertyKind: .scalar)
        }
    }

    @Test("values of another kind than the base contribute nothing")
    func kindMismatchContributesNothing() {
        #expect(ReferenceEvaluator.sample(basic(from: 0, to: 1), at: 0.5, base: .point(.zero)).value == nil)
    }

    @Test("the typed initialiser sets values and timing")
    func typedInitialiser() {
        let a = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 10, y: 0), duration: 2, timingFunction: .easeIn)
        #expect(a.fromValue == .point(.zero) && a.duration == 2 && a.timingFunction == .easeIn && a.valueKind == .point)
    }
}
