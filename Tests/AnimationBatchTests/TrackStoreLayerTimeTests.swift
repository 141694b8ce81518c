import AnimationBatch
import AnimationCore
import Testing

/// Layer time in the engine (semantics §2.2, §2.7): a layer's own time computed once per frame,
/// read by its top-level tracks and group roots, against the reference at the layer's local time.
@Suite("Track store layer time (§2.2, §2.7)")
struct TrackStoreLayerTimeTests {
    func move(_ duration: Double = 2, begin: Double = 0) -> BasicAnimation {
        var a = BasicAnimation(keyPath: "position.x", from: 0.0, to: 100.0, duration: duration)
        a.beginTime = begin
        return a
    }

    /// The reference value of `animation` over `model` at `localTime`.
    func reference(_ animation: any Animation, property: String, model: AnimationValue, at localTime: Double) throws -> AnimationValue {
        var list = AnimationList()
        try list.add(animation, forKey: nil, layerTime: 0)   // begin times are absolute, as the store takes them
        return list.presentationValue(ofProperty: property, model: model, at: localTime)
    }

    @Test("§2.2 a layer's animations run on (tp − b)·s + o, computed per layer")
    func layerTimeMapsTheParentTime() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(.point(Point(x: 0, y: 0)), layer: layer, property: "position")
        let a = move()
        try store.add(a, layer: layer)
        try store.setLayerTime(layer, parent: nil, timing: LayerTiming(beginTime: 1, speed: 0.5, timeOffset: 0.25))
        let evaluator = FrameEvaluator(store: store)
        for t in [0.0, 1.0, 1.5, 2.2, 3.9, 5.0] {
            evaluator.evaluate(at: t)
            let local = (t - 1) * 0.5 + 0.25
            let expected = try reference(a, property: "position", model: .point(.zero), at: local)
            let got = try #require(evaluator.value(layer: layer, property: "position"))
            #expect(abs(got.components[0] - expected.components[0]) <= 1e-5 * 101, "t = \(t)")
            #expect(store.localTime(of: layer, atFrameTime: t) == local)
        }
    }

    @Test("§2.7 a child's time derives from its parent's; groups on a timed layer read it too")
    func childTimeDerivesFromParent() throws {
        let store = TrackStore(), parent = LayerID(1), child = LayerID(2)
        try store.setModelValue(.scalar(0), layer: child, property: "opacity")
        var group = AnimationGroup(animations: [BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)])
        group.duration = 4
        try store.add(group, layer: child)
        try store.setLayerTime(parent, parent: nil, timing: LayerTiming(speed: 2))
        try store.setLayerTime(child, parent: parent, timing: LayerTiming(timeOffset: -0.5))
        let evaluator = FrameEvaluator(store: store)
        for t in [0.25, 0.5, 0.6, 0.75, 1.0] {
            evaluator.evaluate(at: t)
            let local = t * 2 - 0.5
            let expected = try reference(group, property: "opacity", model: 0, at: local).scalarValue!
            let got = try #require(evaluator.value(layer: child, property: "opacity")?.scalarValue)
            #expect(abs(got - expected) <= 1e-5 * 2, "t = \(t): \(got) vs \(expected)")
        }
    }

    @Test("§2.8 speed 0 freezes a layer at its timeOffset; changing numbers needs no recompilation")
    func speedZeroFreezes() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.add(move(), layer: layer)
        try store.setLayerTime(layer, parent: nil, timing: LayerTiming())
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        let tracks = store.trackCount
        try store.setLayerTime(layer, parent: nil, timing: LayerTiming(speed: 0, timeOffset: 0.5))
        for t in [0.7, 3.0, 100.0] {
            evaluator.evaluate(at: t)
            #expect(evaluator.value(layer: layer, property: "position")?.components[0] == 25)
        }
        #expect(store.trackCount == tracks)
    }

    @Test("animations added before and after a layer gets its time both read it; removing it restores the frame time")
    func repointingBothWays() throws {
        let store = TrackStore(), early = LayerID(1)
        try store.add(move(), layer: early)
        try store.setLayerTime(early, parent: nil, timing: LayerTiming(beginTime: 0.5))
        let late = try store.add(move(4), layer: early, forKey: "late")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 1.5)
        // Both animations: local time 1.0; the first (replace) composes under the second (replace).
        let v = evaluator.value(layer: early, property: "position")!.components[0]
        #expect(abs(v - 25) < 1e-4)   // the later animation, 1 s of 4 s
        #expect(store.removeLayerTime(early))
        #expect(store.animation(late) != nil)
        evaluator.evaluate(at: 1.5)
        let w = evaluator.value(layer: early, property: "position")!.components[0]
        #expect(abs(w - 37.5) < 1e-4)   // 1.5 s of 4 s on the frame's time
    }

    @Test("invalid layer times are refused, naming the field, and change nothing")
    func invalidLayerTimes() throws {
        let store = TrackStore()
        #expect(throws: AnimationError.self) { try store.setLayerTime(LayerID(1), parent: nil, timing: LayerTiming(speed: .nan)) }
        #expect(store.layerTime(of: LayerID(1)) == nil)
        do {
            try store.setLayerTime(LayerID(1), parent: nil, timing: LayerTiming(beginTime: .infinity))
            Issue.record("accepted an infinite beginTime")
        } catch let error as AnimationError {
            #expect(error.field == "beginTime")
        }
        do {
            try store.setLayerTime(LayerID(2), parent: LayerID(1), timing: LayerTiming())
            Issue.record("accepted a parent without a time")
        } catch let error as AnimationError {
            #expect(error.field == "parent")
        }
        try store.setLayerTime(LayerID(1), parent: nil, timing: LayerTiming())
        try store.setLayerTime(LayerID(2), parent: LayerID(1), timing: LayerTiming())
        do {
            try store.setLayerTime(LayerID(1), parent: LayerID(2), timing: LayerTiming())
            Issue.record("accepted a cycle")
        } catch let error as AnimationError {
            #expect(error.field == "parent")
        }
        #expect(store.layerTime(of: LayerID(1))?.parent == nil)
    }

    @Test("removing a layer takes its time away; its children then run on the frame's time")
    func removingALayerRemovesItsTime() throws {
        let store = TrackStore()
        try store.setLayerTime(LayerID(1), parent: nil, timing: LayerTiming(speed: 3))
        try store.setLayerTime(LayerID(2), parent: LayerID(1), timing: LayerTiming())
        #expect(store.localTime(of: LayerID(2), atFrameTime: 1) == 3)
        #expect(store.removeLayer(LayerID(1)))
        #expect(store.layerTime(of: LayerID(1)) == nil)
        #expect(store.layerTime(of: LayerID(2))?.parent == nil)
        #expect(store.localTime(of: LayerID(2), atFrameTime: 1) == 1)
    }

    /// Clocks for a chain of `depth` layers, root first, then retimed, one moved, and all removed
    /// from the root down; returns the clocks' work count and checks every step's answer.
    func timedChainWork(depth: Int) throws -> Int {
        let store = TrackStore()
        for k in 1...depth {
            try store.setLayerTime(LayerID(UInt64(k)), parent: k == 1 ? nil : LayerID(UInt64(k - 1)),
                                   timing: LayerTiming(beginTime: 0, speed: 2, timeOffset: 0))
        }
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0)
        for k in 1...depth {
            try store.setLayerTime(LayerID(UInt64(k)), parent: k == 1 ? nil : LayerID(UInt64(k - 1)),
                                   timing: LayerTiming(beginTime: 0, speed: 1, timeOffset: 1))
        }
        // One re-parenting is a real cycle check: the deepest layer refused as the root's parent.
        #expect(throws: AnimationError.self) {
            try store.setLayerTime(LayerID(1), parent: LayerID(UInt64(depth)), timing: LayerTiming(beginTime: 0, speed: 1, timeOffset: 0))
        }
        evaluator.evaluate(at: 0)
        #expect(store.localTime(of: LayerID(UInt64(depth)), atFrameTime: 0) == Double(depth))
        #expect(store.invariantViolations().isEmpty)
        for k in 1...depth { #expect(store.removeLayerTime(LayerID(UInt64(k)))) }
        evaluator.evaluate(at: 0)
        #expect(store.invariantViolations().isEmpty)
        return store.clockWalkSteps
    }

    @Test("§2.7 giving, retiming and removing a chain's clocks is linear in its depth (operation counts)")
    func timedChainIsLinear() throws {
        let small = try timedChainWork(depth: 400), large = try timedChainWork(depth: 800)
        // A walk up the chain per layer, as the cycle check and the clock pass once did, is
        // quadratic: 4× the work at twice the depth.
        #expect(large <= 2 * small + 8, "work \(small) at depth 400, \(large) at 800")
        #expect(large <= 4 * 800, "work \(large) at depth 800")
    }
}
