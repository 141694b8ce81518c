import AnimationBatch
import AnimationCore
import Testing

/// The store's settle queries (docs/settling.md): `isSettled(atFrameTime:)`,
/// `nextEventTime(after:)` and `hasInfiniteAnimations`, checked against the frames' own events.
@Suite("Event schedule: settle queries on the store")
struct EventScheduleTests {
    func fade(_ duration: Double = 1, begin: Double = 0, speed: Double = 1) -> BasicAnimation {
        var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: duration)
        a.beginTime = begin
        a.speed = speed
        return a
    }

    func engine() -> (TrackStore, FrameEvaluator) {
        let store = TrackStore()
        return (store, FrameEvaluator(store: store, configuration: FrameEvaluator.Configuration(maximumThreads: 1)))
    }

    @Test("an empty store is settled before its first frame and after it")
    func emptyStore() {
        let (store, evaluator) = engine()
        #expect(evaluator.isSettled)
        #expect(evaluator.nextEventTime == nil)
        evaluator.evaluate(at: 3)
        #expect(store.isSettled(atFrameTime: 3))
        #expect(store.nextEventTime(after: 3) == nil)
    }

    @Test("§2.4 a negative speed plays the active duration backwards over [b, b + AD/|s|): its events come there")
    func negativeSpeedEvents() throws {
        let (store, evaluator) = engine()
        let handle = try store.add(fade(2, begin: 1, speed: -0.5), layer: LayerID(1))
        evaluator.evaluate(at: 0)
        #expect(evaluator.nextEventTime == 1)
        evaluator.evaluate(at: 1)
        #expect(evaluator.events.contains { $0.animation == handle && $0.kind == .started })
        #expect(evaluator.nextEventTime == 5)   // AD = 2, at half speed: 4 s
        evaluator.evaluate(at: 5.0.nextDown)
        #expect(!evaluator.events.contains { $0.kind == .stopped })
        evaluator.evaluate(at: 5)
        #expect(evaluator.events.contains { $0.animation == handle && $0.kind == .stopped })
        #expect(evaluator.isSettled)
    }

    @Test("§2.2 a clock that runs away from an animation's begin never brings it: settled, no next event")
    func clockRunningAway() throws {
        let (store, evaluator) = engine()
        let layer = LayerID(1)
        try store.setLayerTime(layer, parent: nil, timing: LayerTiming(beginTime: 0, speed: -1, timeOffset: 0))
        try store.add(fade(1, begin: 5), layer: layer)   // begins at local 5; local time is −T
        evaluator.evaluate(at: 1)
        #expect(evaluator.isSettled)
        #expect(evaluator.nextEventTime == nil)
        try store.setLayerTime(layer, parent: nil, timing: LayerTiming(beginTime: 0, speed: 1, timeOffset: 0))
        #expect(!store.isSettled(atFrameTime: 1))
        #expect(store.nextEventTime(after: 1) == 5)
    }

    @Test("§2.3 an infinite repeat on a moving clock never settles; on a frozen one it is no infinite animation")
    func infiniteRepeats() throws {
        let (store, evaluator) = engine()
        var forever = fade()
        forever.repeatCount = .infinity
        let handle = try store.add(forever, layer: LayerID(1))
        evaluator.evaluate(at: 10)
        #expect(store.hasInfiniteAnimations)
        #expect(!evaluator.isSettled)
        #expect(evaluator.nextEventTime == nil)
        #expect(store.remove(handle))
        forever.speed = 0
        try store.add(forever, layer: LayerID(1))
        #expect(!store.hasInfiniteAnimations)
        evaluator.evaluate(at: 11)
        #expect(evaluator.isSettled)
    }

    @Test("§2.3 an infinite repeat whose time overflows past the end of a Double has ended: settled, no infinite animation")
    func infiniteRepeatOverflowingItsTime() throws {
        let (store, evaluator) = engine()
        var forever = fade()
        forever.repeatCount = .infinity
        forever.speed = 1e308   // e = (t − b)·s is +∞ from t = 2 on: past every end, even an infinite one
        forever.fillMode = .forwards
        forever.isRemovedOnCompletion = false   // kept: its record stays live
        let handle = try store.add(forever, layer: LayerID(1))
        evaluator.evaluate(at: 1)
        #expect(store.hasInfiniteAnimations)
        #expect(!evaluator.isSettled)
        evaluator.evaluate(at: 10)
        #expect(evaluator.events.contains { $0.animation == handle && $0.kind == .stopped })
        #expect(!store.hasInfiniteAnimations)
        #expect(!evaluator.hasRunningAnimations)
        #expect(evaluator.isSettled)
        #expect(evaluator.nextEventTime == nil)
    }

    @Test("§8.1 a removal's stop is due at the next frame: not settled, the next event is the next Double")
    func removalIsDue() throws {
        let (store, evaluator) = engine()
        let handle = try store.add(fade(), layer: LayerID(1))
        evaluator.evaluate(at: 0.5)
        #expect(store.remove(handle))
        #expect(!evaluator.isSettled)
        #expect(evaluator.nextEventTime == 0.5.nextUp)
        evaluator.evaluate(at: 0.5.nextUp)
        #expect(evaluator.isSettled)
        #expect(evaluator.nextEventTime == nil)
    }

    @Test("§7 a group repeated a billion times whose child never begins: the search stops after three periods")
    func boundedWalk() throws {
        let (store, evaluator) = engine()
        var late = fade(0.5, begin: 3)   // after the group's duration: clipped, never begins
        late.keyPath = "opacity"
        var group = AnimationGroup(animations: [late], duration: 2)
        group.timing.repeatCount = 1e9
        try store.add(group, layer: LayerID(1))
        evaluator.evaluate(at: 1)
        #expect(evaluator.nextEventTime == 2e9)   // only the group's own end
    }

    @Test("§7 groups nested past the search budget: a time after now and no later than the true event")
    func budgetFallback() throws {
        let (store, evaluator) = engine()
        // Eight levels, each repeating with a short child: the exhaustive search would visit
        // tens of pieces per level per piece of its parent.
        var inner: any Animation = fade(0.01, begin: 0.05)
        for level in 0..<8 {
            var g = AnimationGroup(animations: [inner, fade(0.01, begin: 0.9)], duration: 1)
            g.timing.repeatCount = 4
            g.timing.speed = level % 2 == 0 ? 3 : 1
            g.timing.autoreverses = true
            inner = g
        }
        try store.add(inner, layer: LayerID(1))
        evaluator.evaluate(at: 0.001)
        let next = try #require(evaluator.nextEventTime)
        #expect(next > 0.001)
        // The true next event (found by the frames' own events) is not earlier.
        var t = 0.001
        var sawEvent = false
        while t < next && !sawEvent {
            t = min(t + 1e-4, next)
            evaluator.evaluate(at: t)
            sawEvent = !evaluator.events.isEmpty
        }
        #expect(!sawEvent || t >= next)
    }

    @Test("§2.6 a finished animation kept by a forwards fill: settled going on, not after a seek back before its end")
    func seekBackUnsettles() throws {
        let (store, evaluator) = engine()
        var kept = fade(1, begin: 2)
        kept.fillMode = .forwards
        kept.isRemovedOnCompletion = false
        try store.add(kept, layer: LayerID(1))
        evaluator.evaluate(at: 5)
        #expect(evaluator.isSettled)
        #expect(evaluator.nextEventTime == nil)
        evaluator.evaluate(at: 1)                 // a seek back: the animation begins again at 2
        #expect(!evaluator.isSettled)
        #expect(!evaluator.hasRunningAnimations)
        #expect(evaluator.nextEventTime == 2)
        evaluator.evaluate(at: 2.5)
        #expect(evaluator.hasRunningAnimations)
    }
}
