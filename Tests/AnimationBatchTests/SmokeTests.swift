import AnimationBatch
import AnimationCore
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
}
