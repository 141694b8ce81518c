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

    @Test("§2.5 at an exact turn of an autoreversing animation the velocity is the half the play moves into, forwards and backwards")
    func turnsMoveIntoTheNextHalf() throws {
        // One block of eight tracks (one per layer): speeds that run forwards and backwards, at
        // times that land on every turn of the local time (u = 0 and u = d), on the start of a
        // backward play (local time AD, end-inclusive) and between them.
        let speeds: [Double] = [1, -1, 2, -0.5, -2, 0.5, -1, 1]
        let store = TrackStore()
        var slots: [SlotHandle] = []
        for (k, speed) in speeds.enumerated() {
            let layer = LayerID(UInt64(k + 1))
            slots.append(try store.setModelValue(.scalar(0), layer: layer, property: "opacity"))
            var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 2.0, duration: 1)
            a.timingFunction = .linear
            a.speed = speed
            a.autoreverses = k != 7
            a.repeatCount = 3
            try store.add(a, layer: layer)
        }
        let e = FrameEvaluator(store: store, configuration: .init(maximumThreads: 1, reapsFinishedAnimations: false, computesVelocity: true))
        var turns = 0
        for step in 0...48 {
            let t = Double(step) * 0.25
            e.evaluate(at: t)
            for (k, slot) in slots.enumerated() {
                let reference = try #require(store.velocity(of: slot, atFrameTime: t))
                #expect(e.computedVelocity(of: slot))   // the kernels' row, not the reference's
                #expect(e.velocity(of: slot) == reference, "speed \(speeds[k]) at t = \(t)")
                let local = speeds[k] > 0 ? t * speeds[k] : 6 + t * speeds[k]
                if local > 0, local < 6, local.truncatingRemainder(dividingBy: 1) == 0 { turns += 1 }
            }
        }
        #expect(turns == 5 * speeds.count)   // each lane met the five turns inside its active duration
    }

    @Test("finite input never reads NaN: under clocks whose speeds multiply past Double's range a component that does not move reads 0, one that moves ±∞ (docs/bad-input.md)")
    func clocksPastDoublesRangeReadNoNaN() throws {
        let store = TrackStore()
        let slot = try store.setModelValue(.point(Point(x: 0, y: 5)), layer: LayerID(1), property: "position")
        try store.setLayerTime(LayerID(2), parent: nil, timing: LayerTiming(speed: 1e200))
        try store.setLayerTime(LayerID(1), parent: LayerID(2), timing: LayerTiming(speed: 1e200))
        var a = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 5), to: Point(x: 1, y: 5), duration: 1e300)
        a.timingFunction = .linear
        try store.add(a, layer: LayerID(1))
        let e = FrameEvaluator(store: store, configuration: .init(maximumThreads: 1))
        e.evaluate(at: 0)
        // x moves at 1e-300 per second of local time, times 1e400 (∞); y does not move (0 · ∞).
        #expect(store.velocity(of: slot, atFrameTime: 0) == .point(Point(x: .infinity, y: 0)))
        #expect(e.velocity(of: slot) == .point(Point(x: .infinity, y: 0)))
    }

    @Test("finite input never reads NaN: rates that overflow in opposite directions read 0, in the reference and the reads (docs/bad-input.md)")
    func overflowingRatesReadZero() throws {
        var up = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1e38, duration: 1e-300)
        up.isAdditive = true
        var down = BasicAnimation(keyPath: "opacity", from: 0.0, to: -1e38, duration: 1e-300)
        down.isAdditive = true
        let (e, slot) = try evaluator([up, down])
        e.evaluate(at: 0)
        let reference = ReferenceEvaluator.presentationValuesWithRates(model: ["opacity": .scalar(0)], animations: [up, down], at: 0)
        #expect(reference["opacity"]?.rate == .scalar(0))   // ∞ − ∞: the reference reads 0 itself (a rate is NaN only where its value is)
        #expect(e.velocity(of: slot) == .scalar(0))
        let (single, singleSlot) = try evaluator([up])
        single.evaluate(at: 0)
        #expect(single.velocity(of: singleSlot) == .scalar(.infinity))   // one direction survives
    }
}
