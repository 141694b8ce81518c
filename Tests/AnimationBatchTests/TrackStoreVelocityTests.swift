import AnimationBatch
import AnimationCore
import Testing

@Suite("Velocity read from the batch engine (docs/velocity.md)")
struct TrackStoreVelocityTests {
    private func evaluator(_ animations: [any Animation], model: AnimationValue = .scalar(0), property: String = "opacity",
                           timing: LayerTiming? = nil) throws -> (FrameEvaluator, SlotHandle) {
        let store = TrackStore()
        let slot = try store.setModelValue(model, layer: LayerID(1), property: property)
        if let timing { try store.setLayerTime(LayerID(1), parent: nil, timing: timing) }
        for a in animations { try store.add(a, layer: LayerID(1)) }
        return (FrameEvaluator(store: store, configuration: .init(maximumThreads: 1)), slot)
    }

    @Test("before the first frame there is no velocity; after it, the reference's rate at the frame's time")
    func velocityAfterTheFirstFrame() throws {
        var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 2.0, duration: 4)
        a.timingFunction = .linear
        a.beginTime = 1
        let (e, slot) = try evaluator([a])
        #expect(e.velocity(of: slot) == nil)
        e.evaluate(at: 2)
        #expect(e.velocity(of: slot) == .scalar(0.5))
        #expect(e.velocity(layer: LayerID(1), property: "opacity") == .scalar(0.5))
        #expect(e.velocity(layer: LayerID(1), property: "position") == nil)
        e.evaluate(at: 0.5)
        #expect(e.velocity(of: slot) == .scalar(0))
    }

    @Test("a layer's clock scales the velocity by its speed (per second of frame time); a paused clock stops it")
    func layerClockScalesVelocity() throws {
        var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 2.0, duration: 4)
        a.timingFunction = .linear
        a.beginTime = 0.001
        let (e, slot) = try evaluator([a], timing: LayerTiming(speed: 3))
        e.evaluate(at: 0.5)
        #expect(e.velocity(of: slot) == .scalar(1.5))
        try e.store.setLayerTime(LayerID(1), parent: nil, timing: LayerTiming(speed: 0, timeOffset: 1))
        e.evaluate(at: 0.6)
        #expect(e.velocity(of: slot) == .scalar(0))
    }

    @Test("finite input never reads NaN: rates that overflow in opposite directions read 0 (docs/bad-input.md)")
    func overflowingRatesReadZero() throws {
        var up = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1e38, duration: 1e-300)
        up.isAdditive = true
        var down = BasicAnimation(keyPath: "opacity", from: 0.0, to: -1e38, duration: 1e-300)
        down.isAdditive = true
        let (e, slot) = try evaluator([up, down])
        e.evaluate(at: 0)
        let reference = ReferenceEvaluator.presentationValuesWithRates(model: ["opacity": .scalar(0)], animations: [up, down], at: 0)
        #expect(reference["opacity"]?.rate.scalarValue?.isNaN == true)   // ∞ − ∞ in the reference's arithmetic
        #expect(e.velocity(of: slot) == .scalar(0))
        let (single, singleSlot) = try evaluator([up])
        single.evaluate(at: 0)
        #expect(single.velocity(of: singleSlot) == .scalar(.infinity))   // one direction survives
    }
}
