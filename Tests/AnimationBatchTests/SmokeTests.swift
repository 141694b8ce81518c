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

    @Test("an overdamped spring past Float's range saturates to the infinity of its sign, never NaN")
    func beyondFloatRangeSaturates() throws {
        // An overdamped spring whose timing curve dips below 0 runs backwards in time, where it
        // grows like e^{(ζω0 + ωo)|t|}: the reference's Double values pass 3.4e38 mid-animation.
        let curve = try TimingFunction(controlPoints: 0.985, -0.726, 0.027, -0.424)
        for (velocity, expectedSign) in [(-7.87, 1.0), (200.0, -1.0)] {
            let store = TrackStore()
            let layer = LayerID(1)
            try store.setModelValue(0, layer: layer, property: "progress")
            var spring = SpringAnimation(keyPath: "progress")
            (spring.fromValue, spring.toValue) = (55.3, 96.4)
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
}
