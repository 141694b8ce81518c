import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

@Suite("Layer animations: add, keys, delegates (§1.2–§1.5, §8)")
struct LayerAnimationsTests {
    @Test("§1.2 add copies: changing the caller's animation afterwards has no effect")
    func addCopies() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var a = opacityFade(duration: 2)
        try layer.add(a, forKey: "fade")
        a.toValue = 100
        a.duration = 10
        ctx.tick(at: 1)
        #expect(near(layer.presentation()?.opacity, 0.5))
        let kept = try #require(layer.animation(forKey: "fade") as? BasicAnimation)
        #expect(kept.toValue == .scalar(1) && kept.duration == 2)
    }

    @Test("§1.2 §17 #14 adding under a taken key replaces: the old one gets didStop(finished: false); keys list the new one")
    func replaceByKey() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        let x = Recorder("x "), y = Recorder("y ")
        try layer.add(opacityFade(), forKey: "k", delegate: x)
        ctx.tick(at: 0.1)
        try layer.add(opacityFade(to: 0.5), forKey: "k", delegate: y)
        #expect(layer.animationKeys() == ["k"])
        #expect((layer.animation(forKey: "k") as? BasicAnimation)?.toValue == .scalar(0.5))
        ctx.tick(at: 0.2)
        #expect(x.log == ["x start", "x stop(false)"])
        #expect(y.log == ["y start"])
    }

    @Test("§1.2 anonymous animations (key nil) are never replaced and are not listed")
    func anonymousAnimations() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var a = opacityFade(duration: 4)
        a.isAdditive = true
        try layer.add(a, forKey: nil)
        try layer.add(a, forKey: nil)
        #expect(layer.animationKeys() == nil)
        ctx.tick(at: 2)
        // Two additive fades of 0 → 1 over the model 1: 1 + 0.5 + 0.5.
        #expect(near(layer.presentation()?.opacity, 2))
    }

    @Test("§1.3 §17 #6 duration ≤ 0 becomes the transaction's duration, 0.25 s unless set; groups too")
    func durationFromTransaction() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        defer { withExtendedLifetime(ctx) {} }
        try layer.add(opacityFade(duration: 0), forKey: "a")
        #expect(layer.animation(forKey: "a")?.duration == 0.25)
        Transaction.begin()
        Transaction.setAnimationDuration(3)
        try layer.add(opacityFade(duration: -1), forKey: "b")
        try layer.add(AnimationGroup(animations: [opacityFade(duration: 0)]), forKey: "g")
        Transaction.commit()
        #expect(layer.animation(forKey: "b")?.duration == 3)
        let group = try #require(layer.animation(forKey: "g") as? AnimationGroup)
        #expect(group.duration == 3 && group.animations[0].duration == 3)
    }

    @Test("§1.4 removed on completion by default; with isRemovedOnCompletion false a forwards fill stays")
    func removedOnCompletion() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.setDisableActions(true)
        layer.opacity = 1
        try layer.add(opacityFade(to: 0.5), forKey: "gone")
        var kept = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 10, y: 0), duration: 1)
        kept.isRemovedOnCompletion = false
        kept.fillMode = .forwards
        try layer.add(kept, forKey: "kept")
        ctx.tick(at: 2)
        #expect(layer.animationKeys() == ["kept"])
        #expect(layer.presentation()?.opacity == 1)
        #expect(layer.presentation()?.position == Point(x: 10, y: 0))
    }

    @Test("§1.5 beginTime 0 means now in the layer's time; a non-zero beginTime is absolute in it")
    func beginTimeZeroIsNow() throws {
        let layer = Layer()
        let ctx = context(with: layer, at: 5)
        layer.timeOffset = 10   // the layer's time is the context's + 10
        try layer.add(opacityFade(duration: 2), forKey: "now")
        #expect(layer.animation(forKey: "now")?.beginTime == 15)
        var later = BasicAnimation(keyPath: "position.x", from: 0.0, to: 100.0, duration: 1)
        later.beginTime = layer.convertTime(ctx.currentTime, from: nil) + 1
        try layer.add(later, forKey: "later")
        ctx.tick(at: 6)
        #expect(near(layer.presentation()?.opacity, 0.5))
        #expect(layer.presentation()?.position.x == 0, "not begun: the model")
        ctx.tick(at: 6.5)
        #expect(near(layer.presentation()?.position.x, 50))
    }

    @Test("§8.1 didStart when the active duration begins, didStop(finished: true) at its end, once each")
    func startAndStopOnce() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        let r = Recorder()
        var a = opacityFade(duration: 1)
        a.beginTime = 0.5
        try layer.add(a, forKey: "a", delegate: r)
        ctx.tick(at: 0.25)
        #expect(r.log.isEmpty)
        ctx.tick(at: 0.6)
        #expect(r.log == ["start"])
        ctx.tick(at: 1.0)
        ctx.tick(at: 1.6)
        #expect(r.log == ["start", "stop(true)"])
        ctx.tick(at: 3)
        ctx.tick(at: 0.7)   // seeking back reports nothing more: it was removed
        #expect(r.log == ["start", "stop(true)"])
        #expect(layer.animationKeys() == nil)
    }

    @Test("§8.1 removeAnimation, removeAllAnimations and removeFromSuperlayer stop unfinished, once")
    func removalsStopUnfinished() throws {
        let parent = Layer(), child = Layer()
        parent.addSublayer(child)
        let ctx = context(with: parent)
        let r1 = Recorder(), r2 = Recorder(), r3 = Recorder(), r4 = Recorder()
        try parent.add(opacityFade(), forKey: "one", delegate: r1)
        try parent.add(opacityFade(), forKey: "two", delegate: r2)
        try parent.add(opacityFade(), forKey: "three", delegate: r3)
        try child.add(opacityFade(), forKey: "c", delegate: r4)
        ctx.tick(at: 0.1)
        parent.removeAnimation(forKey: "one")
        parent.removeAnimation(forKey: "missing")
        ctx.tick(at: 0.2)
        #expect(r1.log == ["start", "stop(false)"])
        parent.removeAllAnimations()
        ctx.tick(at: 0.3)
        #expect(r2.log == ["start", "stop(false)"] && r3.log == ["start", "stop(false)"])
        parent.removeFromSuperlayer()
        ctx.tick(at: 0.4)
        #expect(r4.log == ["start", "stop(false)"], "a layer leaving the tree cancels its subtree's animations")
        #expect(child.animationKeys() == nil)
        ctx.tick(at: 5)
        #expect(r1.log.count == 2 && r4.log.count == 2)
    }

    @Test("§8.1 the animation retains its delegate")
    func delegateIsRetained() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        let sink = LogSink()
        try layer.add(opacityFade(), forKey: "a", delegate: SharedLog("a", sink))   // no other reference
        ctx.tick(at: 0.5)
        ctx.tick(at: 2)
        #expect(sink.lines == ["a start", "a stop true"])
    }

    @Test("§8.2 animation(forKey:) returns the kept copy; animationKeys() in add order, nil when none")
    func keysInAddOrder() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        defer { withExtendedLifetime(ctx) {} }
        #expect(layer.animationKeys() == nil)
        try layer.add(opacityFade(), forKey: "b")
        try layer.add(opacityFade(), forKey: "a")
        try layer.add(opacityFade(), forKey: nil)
        try layer.add(opacityFade(), forKey: "c")
        #expect(layer.animationKeys() == ["b", "a", "c"])
        #expect(layer.animation(forKey: "zzz") == nil)
    }

    @Test("§8.3 replacement by key keeps the new animation's own timing")
    func replacementKeepsOwnTiming() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        try layer.add(opacityFade(duration: 10), forKey: "k")
        ctx.tick(at: 5)
        try layer.add(opacityFade(duration: 2), forKey: "k")   // begins at 5
        ctx.tick(at: 6)
        #expect(near(layer.presentation()?.opacity, 0.5))
    }

    @Test("§8.4 animations compose in add order: replace, then add; a field key path changes its field only")
    func compositionInAddOrder() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.setDisableActions(true)
        layer.position = Point(x: 1, y: 2)
        try layer.add(BasicAnimation(keyPath: "position", from: Point(x: 10, y: 20), to: Point(x: 10, y: 20), duration: 1), forKey: "set")
        var add = BasicAnimation(keyPath: "position.x", from: 5.0, to: 5.0, duration: 1)
        add.isAdditive = true
        try layer.add(add, forKey: "add")
        ctx.tick(at: 0.5)
        #expect(layer.presentation()?.position == Point(x: 15, y: 20))
    }

    @Test("§8.5 after removal the presentation value returns to the model value")
    func removalReturnsToModel() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.setDisableActions(true)
        layer.opacity = 0.75
        try layer.add(opacityFade(duration: 10), forKey: "k")
        ctx.tick(at: 1)
        #expect(near(layer.presentation()?.opacity, 0.1))
        layer.removeAnimation(forKey: "k")
        ctx.tick(at: 2)
        #expect(layer.presentation()?.opacity == 0.75)
    }

    @Test("invalid animations throw AnimationError naming the field and change nothing")
    func invalidAnimationsThrow() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        defer { withExtendedLifetime(ctx) {} }
        try layer.add(opacityFade(), forKey: "k")
        var bad = opacityFade()
        bad.repeatCount = -1
        #expect(throws: AnimationError.self) { try layer.add(bad, forKey: "k") }
        do {
            try layer.add(BasicAnimation(keyPath: "opacity", from: Point(x: 0, y: 0), to: Point(x: 1, y: 1)), forKey: "k")
            Issue.record("a point for opacity was accepted")
        } catch let error as AnimationError {
            #expect(error.field.contains("Value") || error.field == "keyPath", "\(error)")
        }
        do {
            try layer.add(BasicAnimation(keyPath: "nonsense", from: 0.0, to: 1.0), forKey: "k")
            Issue.record("an unknown key was accepted")
        } catch let error as AnimationError {
            #expect(error.field == "keyPath")
        }
        #expect(layer.animationKeys() == ["k"])
        #expect((layer.animation(forKey: "k") as? BasicAnimation)?.repeatCount == 0, "the first animation stays")
    }

    @Test("custom keys set with a value are animatable; unset custom keys are refused with keyPath")
    func customKeysAnimate() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        layer.setValue(.scalar(0), forKey: "progress")
        try layer.add(BasicAnimation(keyPath: "progress", from: 0.0, to: 1.0, duration: 1), forKey: "p")
        ctx.tick(at: 0.25)
        #expect(near(layer.presentation()?.value(forKey: "progress")?.scalarValue, 0.25))
        let ring = RingLayer()   // its default makes the key animatable without a value
        ctx.rootLayer.addSublayer(ring)
        try ring.add(BasicAnimation(keyPath: "ringProgress", from: 0.0, to: 1.0, duration: 1), forKey: "p")
        ctx.tick(at: 0.75)
        #expect(near(ring.presentation()?.progress, 0.5))
    }

    @Test("animations added outside a context wait and begin when the layer joins one")
    func waitingAnimations() throws {
        freshTransactions()
        let ctx = LayerContext()
        ctx.tick(at: 10)
        let layer = Layer()
        let r = Recorder()
        try layer.add(opacityFade(duration: 2), forKey: "w", delegate: r)
        #expect(layer.animationKeys() == ["w"])
        #expect(throws: AnimationError.self) { try layer.add(opacityFade(duration: .nan), forKey: "bad") }
        let keyless = Layer()
        try keyless.add(BasicAnimation(keyPath: "unknownKey", from: 0.0, to: 1.0), forKey: "u")
        ctx.rootLayer.addSublayer(keyless)
        #expect(keyless.animationKeys() == nil)
        #expect(ctx.lastActionError?.field == "keyPath")
        ctx.rootLayer.addSublayer(layer)
        #expect(layer.animation(forKey: "w")?.beginTime == 10)
        ctx.tick(at: 11)
        #expect(near(layer.presentation()?.opacity, 0.5))
        #expect(r.log == ["start"])
    }

    @Test("a waiting animation replaced or removed before its layer joins a context never ran: its delegate is told nothing")
    func waitingAnimationsDroppedSilently() throws {
        freshTransactions()
        let ctx = LayerContext()
        ctx.tick(at: 1)
        let layer = Layer()
        let replaced = Recorder("replaced "), removed = Recorder("removed "), cleared = Recorder("cleared "), kept = Recorder("kept ")
        try layer.add(opacityFade(duration: 2), forKey: "a", delegate: replaced)
        try layer.add(opacityFade(duration: 2), forKey: "a", delegate: kept)      // replaces the first, still waiting
        try layer.add(opacityFade(duration: 2), forKey: "b", delegate: removed)
        layer.removeAnimation(forKey: "b")
        let other = Layer()
        try other.add(opacityFade(duration: 2), forKey: "c", delegate: cleared)
        other.removeAllAnimations()
        ctx.rootLayer.addSublayer(layer)
        ctx.rootLayer.addSublayer(other)
        ctx.tick(at: 2)
        ctx.tick(at: 4)
        #expect(replaced.log.isEmpty && removed.log.isEmpty && cleared.log.isEmpty)
        #expect(kept.log == ["kept start", "kept stop(true)"], "the one left waiting ran, told once each")
        #expect(ctx.store.animationCount == 0)
    }
}
