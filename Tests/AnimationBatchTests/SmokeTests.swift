import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

@Suite("Batch smoke")
struct SmokeTests {
    @Test("a fade on one layer matches the reference")
    func fadeMatchesReference() throws {
        let store = TrackStore()
        let layer = LayerID(1)
        try store.setModelValue(1, layer: layer, property: "opacity")
        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = 0
        fade.toValue = 1
        fade.duration = 2
        fade.timingFunction = .easeInEaseOut
        try store.add(fade, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        for t in stride(from: -0.5, through: 2.5, by: 0.25) {
            evaluator.evaluate(at: t)
            let batch = evaluator.value(layer: layer, property: "opacity")?.scalarValue ?? .nan
            let reference = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: 1, animations: [fade], at: t).scalarValue!
            #expect(abs(batch - reference) <= 2e-5, "t = \(t): \(batch) vs \(reference)")
        }
    }

    /// Evaluates `frames` frames `interval` seconds apart after `time` (advancing it) and expects
    /// every layer's value within the precision table of the reference's for its one animation,
    /// over the model value `model(property)`.
    static func expectFrames(_ frames: Int, every interval: Double, from time: inout Double, of evaluator: FrameEvaluator,
                             match animations: [LayerID: any PropertyAnimation], step: String,
                             model: (String) -> AnimationValue) {
        for _ in 0..<frames {
            time += interval
            evaluator.evaluate(at: time)
            for (layer, animation) in animations {
                let property = animation.keyPath
                let base = model(property)
                let expected = ReferenceEvaluator.presentationValue(ofProperty: property, model: base, animations: [animation], at: time)
                let value = evaluator.value(layer: layer, property: property)
                let error = value.map { maxDifference($0, expected) } ?? .infinity
                let bound = PrecisionTable.tolerance(property: property, model: base, animations: [animation], reference: expected)
                #expect(error <= bound, "\(step): layer \(layer.rawValue) at \(time): \(String(describing: value)) vs \(expected)")
            }
        }
    }

    @Test("keyframe and path batches that gain and lose segment curves and cumulative tracks stay with the reference")
    func segmentCurvesAndCumulativeComeAndGo() throws {
        // The batches skip the segment-curve and cumulative columns while no track needs them
        // (KeyframeBatch, PathBatch): tracks added, replaced in place and removed move those counts
        // across zero both ways, and every frame is checked against the reference.
        let store = TrackStore()
        func plain(_ k: Int) -> KeyframeAnimation {
            var a = KeyframeAnimation(keyPath: "opacity", values: [0.0, 1.0, 0.25, 0.75])
            a.calculationMode = [CalculationMode.linear, .cubic, .discrete][k % 3]
            a.timing.duration = 1 + 0.1 * Double(k)
            a.timing.repeatCount = .infinity
            return a
        }
        var curved = KeyframeAnimation(keyPath: "opacity", values: [0.0, 1.0, 0.25, 0.75])
        curved.timingFunctions = [.easeIn, try TimingFunction(controlPoints: 0.2, 1.4, 0.6, -0.3), .easeOut]
        curved.isCumulative = true
        curved.timing.duration = 0.9
        curved.timing.repeatCount = .infinity
        var square = Path()
        square.addLines(between: [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 10)])
        var walk = KeyframeAnimation(keyPath: "position", path: square, calculationMode: .paced)
        walk.timing.duration = 0.8
        walk.timing.repeatCount = .infinity
        var cumulativeWalk = walk
        cumulativeWalk.isCumulative = true
        // Layers 1–20: plain keyframes; 21–24: paths.
        var animations: [LayerID: any PropertyAnimation] = [:]
        var handles: [LayerID: AnimationHandle] = [:]
        for l in 1...24 {
            let layer = LayerID(UInt64(l))
            let animation: any PropertyAnimation = l <= 20 ? plain(l) : walk
            let property = l <= 20 ? "opacity" : "position"
            try store.setModelValue(l <= 20 ? 1 : .point(.zero), layer: layer, property: property)
            animations[layer] = animation
            handles[layer] = try store.add(animation, layer: layer)
        }
        let evaluator = FrameEvaluator(store: store)
        var time = 0.0
        // The frame times (multiples of 0.23 s) stay clear of the discrete keys' jumps.
        func check(_ step: String) {
            Self.expectFrames(12, every: 0.23, from: &time, of: evaluator, match: animations, step: step) { property in
                property == "opacity" ? 1 : .point(.zero)
            }
        }
        check("plain only")
        let extra = LayerID(100)
        try store.setModelValue(1, layer: extra, property: "opacity")
        animations[extra] = curved
        handles[extra] = try store.add(curved, layer: extra)
        handles[LayerID(21)] = try store.replace(handles[LayerID(21)]!, with: cumulativeWalk)
        animations[LayerID(21)] = cumulativeWalk
        check("a curved cumulative keyframe track and a cumulative path added")
        handles[LayerID(3)] = try store.replace(handles[LayerID(3)]!, with: curved)
        animations[LayerID(3)] = curved
        #expect(store.remove(handles[extra]!))
        animations[extra] = nil
        handles[LayerID(21)] = try store.replace(handles[LayerID(21)]!, with: walk)
        animations[LayerID(21)] = walk
        check("the curved track replaced in place elsewhere, the cumulative path made plain")
        handles[LayerID(3)] = try store.replace(handles[LayerID(3)]!, with: plain(3))
        animations[LayerID(3)] = plain(3)
        check("plain only again")
    }

    @Test("basic and spring batches that gain and lose cumulative tracks stay with the reference")
    func cumulativeBasicAndSpringComeAndGo() throws {
        // While no track of a batch is cumulative, its four-block timing stage leaves the
        // iterations uncomputed (TrackBatch.readsIterations). 70 basic and 70 spring tracks (four
        // full blocks each, so that stage runs) repeat forever; cumulative ones are added, replaced
        // in place and removed, moving the count across zero both ways, and every frame from the
        // second iteration on is checked against the reference.
        let store = TrackStore()
        func basic(_ k: Int, cumulative: Bool = false) -> BasicAnimation {
            var a = BasicAnimation(keyPath: "opacity", from: 0.1 * Double(k % 7), to: 1.0 + 0.05 * Double(k))
            a.timing.duration = 0.4 + 0.01 * Double(k)
            a.timing.repeatCount = .infinity
            a.timingFunction = k % 2 == 0 ? .easeIn : nil
            a.isCumulative = cumulative
            return a
        }
        func spring(_ k: Int, cumulative: Bool = false) -> SpringAnimation {
            var a = SpringAnimation(keyPath: "progress", from: -1.0, to: 2.0 + 0.1 * Double(k), stiffness: 150 + Double(k), damping: 15)
            a.timing.duration = 0.5 + 0.01 * Double(k)
            a.timing.repeatCount = .infinity
            a.isCumulative = cumulative
            return a
        }
        var animations: [LayerID: any PropertyAnimation] = [:]
        var handles: [LayerID: AnimationHandle] = [:]
        for l in 1...140 {
            let layer = LayerID(UInt64(l))
            let animation: any PropertyAnimation = l <= 70 ? basic(l) : spring(l)
            try store.setModelValue(0.5, layer: layer, property: animation.keyPath)
            animations[layer] = animation
            handles[layer] = try store.add(animation, layer: layer)
        }
        let evaluator = FrameEvaluator(store: store)
        var time = 1.5
        func check(_ step: String) {
            Self.expectFrames(8, every: 0.37, from: &time, of: evaluator, match: animations, step: step) { _ in 0.5 }
        }
        check("none cumulative")
        let extra = LayerID(200)
        try store.setModelValue(0.5, layer: extra, property: "opacity")
        animations[extra] = basic(3, cumulative: true)
        handles[extra] = try store.add(basic(3, cumulative: true), layer: extra)
        handles[LayerID(100)] = try store.replace(handles[LayerID(100)]!, with: spring(100, cumulative: true))
        animations[LayerID(100)] = spring(100, cumulative: true)
        check("a cumulative basic track added, a spring made cumulative in place")
        handles[LayerID(5)] = try store.replace(handles[LayerID(5)]!, with: basic(5, cumulative: true))
        animations[LayerID(5)] = basic(5, cumulative: true)
        #expect(store.remove(handles[extra]!))
        animations[extra] = nil
        check("another basic track made cumulative in place, the added one removed")
        handles[LayerID(5)] = try store.replace(handles[LayerID(5)]!, with: basic(5))
        animations[LayerID(5)] = basic(5)
        handles[LayerID(100)] = try store.replace(handles[LayerID(100)]!, with: spring(100))
        animations[LayerID(100)] = spring(100)
        check("none cumulative again")
    }

    @Test("a whole transform past Float's range is held at ±3.4e38 per component, so what composes it stays finite")
    func transformBeyondFloatRangeStaysFinite() throws {
        // A cumulative scale by 40 per iteration passes 3.4e38 in its 24th iteration; a second,
        // additive transform animation makes the slot composed (a concatenation per frame).
        let store = TrackStore()
        let layer = LayerID(1)
        let model = Transform3D.rotation(angle: 0.3, x: 0, y: 0, z: 1)
        try store.setModelValue(.transform(model), layer: layer, property: "transform")
        var grow = BasicAnimation(keyPath: "transform", from: Transform3D.identity, to: Transform3D.scale(x: 40, y: -40), duration: 1)
        grow.isCumulative = true
        grow.timing.repeatCount = 60
        var turn = BasicAnimation(keyPath: "transform", from: Transform3D.identity, to: Transform3D.rotation(angle: 1, x: 0, y: 0, z: 1),
                                  duration: 100)
        turn.isAdditive = true
        try store.add(grow, layer: layer)
        try store.add(turn, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        var past = 0
        for t in stride(from: 0.5, through: 59.5, by: 1) {
            evaluator.evaluate(at: t)
            let batch = evaluator.value(layer: layer, property: "transform")!
            let reference = ReferenceEvaluator.presentationValue(ofProperty: "transform", model: .transform(model),
                                                                 animations: [grow, turn], at: t)
            #expect(batch.components.allSatisfy { !$0.isNaN }, "t = \(t): \(batch)")
            if PrecisionTable.magnitude(reference) > Double(Float.greatestFiniteMagnitude) {
                past += 1
            } else if PrecisionTable.magnitude(reference) < 1e30 {
                let tolerance = PrecisionTable.tolerance(property: "transform", model: .transform(model), animations: [grow, turn],
                                                         reference: reference)
                #expect(PrecisionTable.maxDifference(batch, reference) <= tolerance, "t = \(t)")
            }
        }
        #expect(past > 20, "the reference passes Float's range")
    }

    @Test("an overdamped spring past Float's range saturates to the infinity of its sign, never NaN")
    func beyondFloatRangeSaturates() throws {
        // An overdamped spring whose timing curve dips below 0 runs backwards in time, where it
        // grows like e^{(ζω0 + ωo)|t|}, to its response's bound of ±1e30: over a distance of
        // 4.1e10 the reference's Double values pass 3.4e38 mid-animation.
        let curve = try TimingFunction(controlPoints: 0.985, -0.726, 0.027, -0.424)
        for (velocity, expectedSign) in [(-7.87, 1.0), (200.0, -1.0)] {
            let store = TrackStore()
            let layer = LayerID(1)
            try store.setModelValue(0, layer: layer, property: "progress")
            var spring = SpringAnimation(keyPath: "progress")
            (spring.fromValue, spring.toValue) = (55.3e9, 96.4e9)
            (spring.mass, spring.stiffness, spring.damping, spring.initialVelocity) = (0.505, 285.7, 74.9, velocity)
            spring.allowsOverdamping = true
            spring.duration = 2
            spring.timingFunction = curve
            try store.add(spring, layer: layer)
            let evaluator = FrameEvaluator(store: store)
            var saturated = 0
            for t in stride(from: 0.0, through: 2, by: 1.0 / 16) {
                evaluator.evaluate(at: t)
                let batch = evaluator.value(layer: layer, property: "progress")!
                let reference = ReferenceEvaluator.presentationValue(ofProperty: "progress", model: 0, animations: [spring], at: t)
                let r = reference.scalarValue!, b = batch.scalarValue!
                #expect(!b.isNaN, "t = \(t)")
                if abs(r) > Double(Float.greatestFiniteMagnitude) {
                    saturated += 1
                    #expect(b == expectedSign * .infinity && r.sign == b.sign, "t = \(t): \(b) vs \(r)")
                    #expect(PrecisionTable.maxDifference(batch, reference) == 0)
                }
            }
            #expect(saturated > 0, "the reference passes Float's range (velocity \(velocity))")
        }
    }

    @Test("no NaN from finite input: springs whose timing curve runs them far backwards, of numbers, points and transforms, in every regime")
    func springsFarBackwardsAreNeverNaN() throws {
        // The curve's y dips to −3000 · 3 at its middle: the spring is read thousands of seconds
        // before it starts, where it grows past every range (e^{ζω0 · 10^4}). Values must be
        // numbers (±∞ where they pass the range), and each component that does not move must stay.
        let curve = try TimingFunction(controlPoints: 0.5, -3000, 0.5, -6000)
        let cases: [(property: String, model: AnimationValue, from: AnimationValue, to: AnimationValue)] = [
            ("opacity", 0, 0, 1),
            ("position", .point(Point(x: 0, y: 7)), .point(Point(x: 0, y: 7)), .point(Point(x: 100, y: 7))),
            ("transform", .transform(.identity), .transform(.identity), .transform(.translation(x: 50, y: 0, z: 0))),
            ("transform", .transform(.identity), .transform(.identity), .transform(.rotation(angle: 1, x: 0, y: 0, z: 1))),
        ]
        for (property, model, from, to) in cases {
            for (damping, overdamped) in [(10.0, false), (20.0, false), (60.0, true)] {
                var spring = SpringAnimation(keyPath: property)
                (spring.fromValue, spring.toValue) = (from, to)
                (spring.damping, spring.allowsOverdamping, spring.duration) = (damping, overdamped, 1)
                spring.timingFunction = curve
                let store = TrackStore()
                try store.setModelValue(model, layer: LayerID(1), property: property)
                try store.add(spring, layer: LayerID(1))
                let evaluator = FrameEvaluator(store: store)
                for t in stride(from: 0.0, through: 1, by: 1.0 / 32) {
                    evaluator.evaluate(at: t)
                    let batch = try #require(evaluator.value(layer: LayerID(1), property: property))
                    let reference = ReferenceEvaluator.presentationValue(ofProperty: property, model: model, animations: [spring], at: t)
                    let what = "\(property) \(to) damping \(damping) at \(t): \(batch) vs \(reference)"
                    #expect(reference.components.allSatisfy { !$0.isNaN }, "reference: \(what)")
                    #expect(batch.components.allSatisfy { !$0.isNaN }, "batch: \(what)")
                    // Components that neither end moves stay put, however far the spring has run.
                    for (c, (a, b)) in zip(from.components, to.components).enumerated() where a == b && property != "transform" {
                        #expect(reference.components[c] == a && batch.components[c] == Double(Float(a)), "component \(c): \(what)")
                    }
                }
            }
        }
    }

    @Test("a count of iterations past Float's range (1e-300 s repeating forever; an offset of 1e300 s) reads no NaN, cumulative or not, in basic, keyframe and path tracks")
    func tinyDurationRepeatingForever() throws {
        for cumulative in [false, true] {
            var animation = BasicAnimation(keyPath: "opacity")
            (animation.fromValue, animation.toValue, animation.duration, animation.repeatCount) = (0, 1, 1e-300, .infinity)
            animation.isCumulative = cumulative
            let store = TrackStore()
            try store.setModelValue(0, layer: LayerID(1), property: "opacity")
            try store.add(animation, layer: LayerID(1))
            let evaluator = FrameEvaluator(store: store)
            for t in [0, 1e-300, 0.25, 0.5, 1, 1e6] {
                evaluator.evaluate(at: t)
                let batch = try #require(evaluator.value(layer: LayerID(1), property: "opacity")?.scalarValue)
                let reference = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: 0, animations: [animation], at: t).scalarValue!
                #expect(!batch.isNaN && !reference.isNaN, "cumulative \(cumulative) at \(t): \(batch) vs \(reference)")
                #expect(PrecisionTable.maxDifference(.scalar(batch), .scalar(reference)) <= 1e-6, "cumulative \(cumulative) at \(t): \(batch) vs \(reference)")
            }
        }
        // Keyframes and paths too: a rectangle whose x and width do not move, a time offset of
        // 1e300 s (the C fuzz target's finding: NaN in x and width).
        var rect = KeyframeAnimation(keyPath: "bounds")
        rect.values = [.rect(Rect(x: 1, y: 1, width: 1, height: 1)), .rect(Rect(x: 1, y: -1, width: 1, height: -4.3))]
        (rect.duration, rect.timeOffset, rect.repeatCount, rect.isCumulative) = (0.73, 1e300, .infinity, true)
        var along = KeyframeAnimation(keyPath: "position")
        var line = Path()
        line.move(to: Point(x: 3, y: 0))
        line.addLine(to: Point(x: 3, y: 10))
        along.path = line
        (along.duration, along.timeOffset, along.repeatCount, along.isCumulative) = (0.73, 1e300, .infinity, true)
        for keyframes in [rect, along] {
            let store = TrackStore()
            try store.add(keyframes, layer: LayerID(1))
            let evaluator = FrameEvaluator(store: store)
            evaluator.evaluate(at: 0.8)
            let value = try #require(evaluator.value(layer: LayerID(1), property: keyframes.keyPath))
            let model: AnimationValue = keyframes.keyPath == "bounds" ? .rect(Rect(x: 0, y: 0, width: 0, height: 0)) : .point(Point(x: 0, y: 0))
            let reference = ReferenceEvaluator.presentationValue(ofProperty: keyframes.keyPath, model: model, animations: [keyframes], at: 0.8)
            #expect(value.components.allSatisfy { !$0.isNaN } && reference.components.allSatisfy { !$0.isNaN }, "\(value) vs \(reference)")
            #expect(value.components[0] == 1 || value.components[0] == 3, "x does not move: \(value)")
        }
        // A point whose y does not move keeps it after endlessly many cumulative iterations.
        var moving = BasicAnimation(keyPath: "position")
        (moving.fromValue, moving.toValue, moving.duration, moving.repeatCount) = (.point(Point(x: 0, y: 5)), .point(Point(x: 1, y: 5)), 1e-300, .infinity)
        moving.isCumulative = true
        let store = TrackStore()
        try store.add(moving, layer: LayerID(1))
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        #expect(evaluator.value(layer: LayerID(1), property: "position") == .point(Point(x: .infinity, y: 5)))
    }

    @Test("a transform field past Double's range (a cumulative spring read at the largest time) is held at ±1e150 when written into the matrix: values and velocities finite, never NaN, in both engines")
    func transformFieldsPastDoublesRangeAreHeld() throws {
        // The C fuzz target's finding: a cumulative spring on transform.scale repeating forever,
        // read at 1.8e308 s, overflows to −∞ in both engines; recomposed, −∞ met the rotation's
        // zeros (∞ · 0) and the whole matrix read NaN.
        let cases: [(key: String, from: AnimationValue)] = [
            ("transform.scale", 53.7), ("transform.scale.y", 53.7), ("transform.rotation.z", 53.7),
            ("transform.translation.x", 53.7), ("transform.translation", .size(Size(width: 53.7, height: -2))),
        ]
        let limit = Transform3D.largestRepeatedElement
        for (key, from) in cases {
            var spring = SpringAnimation(keyPath: key)
            spring.fromValue = from
            (spring.mass, spring.stiffness, spring.damping, spring.initialVelocity) = (3, 210, 4.35, 1.45)
            (spring.duration, spring.timeOffset, spring.repeatCount, spring.isCumulative) = (spring.settlingDuration, -2.2, .infinity, true)
            let store = TrackStore()
            try store.setModelValue(.transform(.identity), layer: LayerID(2), property: "transform")
            try store.add(spring, layer: LayerID(2))
            let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
            var held = 0
            for t in [1e300, Double.greatestFiniteMagnitude] {
                evaluator.evaluate(at: t)
                let batch = try #require(evaluator.value(layer: LayerID(2), property: "transform"))
                let reference = try #require(ReferenceEvaluator.presentationValuesWithRates(
                    model: ["transform": .transform(.identity)], animations: [spring], at: t)["transform"])
                let what = "\(key) at \(t): batch \(batch), reference \(reference.value)"
                #expect(batch.components.allSatisfy(\.isFinite) && reference.value.components.allSatisfy(\.isFinite), "\(what)")
                #expect(reference.value.components.allSatisfy { abs($0) <= limit }, "\(what)")
                #expect(PrecisionTable.maxDifference(batch, reference.value) == 0, "\(what)")
                if reference.value.components.contains(where: { abs($0) == limit }) { held += 1 }
                let rate = try #require(evaluator.velocity(layer: LayerID(2), property: "transform"))
                #expect(!rate.components.contains(where: \.isNaN) && !reference.rate.components.contains(where: \.isNaN),
                        "\(key) at \(t): velocity \(rate), reference \(reference.rate)")
            }
            // A turn wraps instead: only the other fields reach the bound.
            #expect(held == (key == "transform.rotation.z" ? 0 : 2), "\(key): held \(held) times")
        }
    }

    @Test("three additive cumulative transforms repeating forever, each held at ±1e150, stack into a transform held there: values finite, values and velocities never NaN, in both engines (§4.3, §4.4)")
    func stackedHeldTransformsStayFinite() throws {
        // The C fuzz target's finding: each animation's power was held at 1e150, but their sum
        // (a product of three) passed Double's range and met ∞ − ∞: NaN in all 16 elements.
        let step = try Transform3D(elements: [80.6, 0, -47.9, 5.7, -10.6, -9.0, 68.6, 68.6,
                                              68.6, 68.6, 49.9, 53.8, 100, 100, 100, 100])
        var animations: [BasicAnimation] = []
        for k in 0..<3 {
            var stacked = BasicAnimation(keyPath: "transform")
            stacked.byValue = .transform(step)
            (stacked.duration, stacked.speed, stacked.repeatCount, stacked.autoreverses) = (0.25, 2 + Double(k), .infinity, true)
            (stacked.isAdditive, stacked.isCumulative, stacked.fillMode) = (true, true, .both)
            animations.append(stacked)
        }
        let model: [String: AnimationValue] = ["transform": .transform(.identity)]
        let store = TrackStore()
        try store.setModelValue(.transform(.identity), layer: LayerID(4), property: "transform")
        for animation in animations { try store.add(animation, layer: LayerID(4)) }
        let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
        let limit = Transform3D.largestRepeatedElement
        var held = 0
        for t in [0.1, 1, 3.3, 3.7, 10, 1e6] {
            evaluator.evaluate(at: t)
            let batch = try #require(evaluator.value(layer: LayerID(4), property: "transform"))
            let reference = try #require(ReferenceEvaluator.presentationValuesWithRates(model: model, animations: animations, at: t)["transform"])
            let what = "at \(t): batch \(batch), reference \(reference.value)"
            #expect(batch.components.allSatisfy { $0.isFinite && abs($0) <= limit }, "\(what)")
            #expect(reference.value.components.allSatisfy { $0.isFinite && abs($0) <= limit }, "\(what)")
            if reference.value.components.contains(where: { abs($0) == limit }) { held += 1 }
            let rate = try #require(evaluator.velocity(layer: LayerID(4), property: "transform"))
            #expect(!rate.components.contains(where: \.isNaN) && !reference.rate.components.contains(where: \.isNaN),
                    "at \(t): velocity \(rate), reference \(reference.rate)")
        }
        #expect(held >= 3, "the stack reached the bound \(held) times")
    }

    @Test("a cumulative transform from a nearly singular start (its inverse finite, near 1e280) reads finite values in both engines after its first iteration, never NaN (§4.4)")
    func cumulativeTransformFromANearlySingularStartStaysFinite() throws {
        // The change end · start⁻¹ met ∞ − ∞ (1e38 · 1e280 twice, opposite signs): NaN from
        // the second iteration on, in both engines.
        var cumulative = BasicAnimation(keyPath: "transform")
        cumulative.fromValue = .transform(try Transform3D(elements: [1e-280, 0, 0, 0, -1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]))
        cumulative.toValue = .transform(try Transform3D(elements: [1e38, -1e38, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]))
        (cumulative.duration, cumulative.repeatCount, cumulative.isCumulative) = (1, .infinity, true)
        let model: [String: AnimationValue] = ["transform": .transform(.identity)]
        let store = TrackStore()
        try store.setModelValue(.transform(.identity), layer: LayerID(1), property: "transform")
        try store.add(cumulative, layer: LayerID(1))
        let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
        for t in [0.25, 1.5, 2.75, 40.5] {
            evaluator.evaluate(at: t)
            let batch = try #require(evaluator.value(layer: LayerID(1), property: "transform"))
            let reference = try #require(ReferenceEvaluator.presentationValuesWithRates(model: model, animations: [cumulative], at: t)["transform"])
            #expect(!batch.components.contains(where: \.isNaN) && reference.value.components.allSatisfy(\.isFinite),
                    "at \(t): batch \(batch), reference \(reference.value)")
            let rate = try #require(evaluator.velocity(layer: LayerID(1), property: "transform"))
            #expect(!rate.components.contains(where: \.isNaN) && !reference.rate.components.contains(where: \.isNaN),
                    "at \(t): velocity \(rate), reference \(reference.rate)")
        }
    }

    @Test("an animation over a value beneath that saturated to ±∞ (two additive cumulative animations repeating forever at the largest speed), or two saturating opposite ways on one key, reads no NaN in either engine (§16)")
    func saturatedValuesBeneathReadNoNaN() throws {
        // The C fuzz target's finding: the first animation's count of iterations is ∞, so it
        // saturates the colour; the second starts from it ("to only", §4.1) and met ∞ − ∞ in its
        // interpolation, its cumulative term and the composition.
        var toOnly = BasicAnimation(keyPath: "backgroundColor")
        toOnly.toValue = .color(Color(red: 0.9, green: 0.1, blue: 0.5, alpha: 0.3))
        (toOnly.speed, toOnly.duration, toOnly.repeatCount) = (.greatestFiniteMagnitude, 0.5, .infinity)
        (toOnly.isCumulative, toOnly.isAdditive) = (true, true)
        let colour = AnimationValue.color(Color(red: 0.2, green: 0.4, blue: 0.6, alpha: 1))
        // Two kernel tracks on one key, one growing to +∞ and one to −∞ (the batch's count
        // passes Float's range long before the reference's): the fast composition adds them.
        var up = BasicAnimation(keyPath: "position.x")
        (up.fromValue, up.toValue, up.duration, up.repeatCount, up.isCumulative, up.isAdditive) = (0, 1, 1e-300, .infinity, true, true)
        var down = up
        down.toValue = -1
        let cases: [(key: String, model: AnimationValue, animations: [any PropertyAnimation])] = [
            ("backgroundColor", colour, [toOnly, toOnly]),
            ("position", .point(Point(x: 1, y: 2)), [up, down]),
        ]
        for (key, model, animations) in cases {
            let store = TrackStore()
            try store.setModelValue(model, layer: LayerID(1), property: key)
            for animation in animations { try store.add(animation, layer: LayerID(1)) }
            let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
            var saturated = 0
            // (From t ≈ 1 on, the colour's time (t − b)·s overflows past its end: it has ended.)
            for t in [0.25, 0.5, 0.75, 1] {
                evaluator.evaluate(at: t)
                let batch = try #require(evaluator.value(layer: LayerID(1), property: key))
                let reference = ReferenceEvaluator.presentationValue(ofProperty: key, model: model, animations: animations, at: t)
                let what = "\(key) at \(t): batch \(batch), reference \(reference)"
                #expect(!batch.components.contains(where: \.isNaN) && !reference.components.contains(where: \.isNaN), "\(what)")
                let rate = try #require(evaluator.velocity(layer: LayerID(1), property: key))
                #expect(rate.components.allSatisfy { !$0.isNaN }, "\(key) at \(t): velocity \(rate)")
                // The reference's own rates too: a rate is NaN only where its value is.
                let referenceRate = try #require(ReferenceEvaluator.presentationValuesWithRates(model: [key: model], animations: animations, at: t)[key]).rate
                #expect(referenceRate.components.allSatisfy { !$0.isNaN }, "\(key) at \(t): reference velocity \(referenceRate)")
                if key == "backgroundColor" {
                    // Both engines saturate alike: the second animation's change wins, −∞ where
                    // the colour rises towards its "to", +∞ where it falls.
                    #expect(batch == reference, "\(what)")
                    #expect(batch == .color(Color(red: -.infinity, green: .infinity, blue: .infinity, alpha: .infinity)), "\(what)")
                } else {
                    // The later animation's −∞ wins in the batch; the reference's count is still
                    // finite (2.5e299 and more) and its two terms cancel.
                    #expect(batch == .point(Point(x: -.infinity, y: 2)), "\(what)")
                    #expect(reference == .point(Point(x: 0, y: 2)), "\(what)")
                }
                if batch.components.contains(where: \.isInfinite) { saturated += 1 }
            }
            #expect(saturated == 4, "\(key): saturated in \(saturated) of 4 frames")
        }
    }
}

