import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

@Suite("Layer time (§2.2, §2.7, §2.8)")
struct LayerTimeTests {
    @Test("§2.7 a layer's speed, beginTime and timeOffset apply to its whole subtree")
    func timeAppliesToSubtree() throws {
        let parent = Layer(), child = Layer(), grandchild = Layer()
        parent.addSublayer(child)
        child.addSublayer(grandchild)
        let ctx = context(with: parent)
        try grandchild.add(BasicAnimation(keyPath: "position.x", from: 0.0, to: 100.0, duration: 4), forKey: "m")
        parent.speed = 2
        child.timeOffset = 1   // after the add: the animation began at local 0
        ctx.tick(at: 0.5)
        // grandchild's time = (0.5·2) + 1 = 2 → half way.
        #expect(near(grandchild.presentation()?.position.x, 50))
        #expect(grandchild.convertTime(0.5, from: nil) == 2)
    }

    @Test("§2.2 convertTime from and to other layers and the context's time are inverse maps")
    func convertTime() {
        let a = Layer(), b = Layer()
        a.beginTime = 2
        a.speed = 4
        a.timeOffset = 1
        b.speed = 0.5
        let ctx = context(with: a, b)
        defer { withExtendedLifetime(ctx) {} }
        // a's time is (t − 2)·4 + 1; b's is t·0.5 (the constants typed: as literals they took
        // more than a second to type-check).
        let aFrom3: Double = (3 - 2) * 4 + 1, parentOf5: Double = (5 - 1) / 4 + 2
        #expect(a.convertTime(3, from: nil) == aFrom3)
        #expect(a.convertTime(5, to: nil) == parentOf5)
        let tb = b.convertTime(5, from: a)
        #expect(tb == parentOf5 * 0.5)
        #expect(a.convertTime(tb, from: b) == 5)
        #expect(a.convertTime(7, to: a) == 7)
    }

    @Test("§2.8 Apple's pause/resume recipe freezes the subtree and resumes it exactly where it was")
    func pauseResume() throws {
        let parent = Layer(), child = Layer()
        parent.addSublayer(child)
        let ctx = context(with: parent)
        var a = BasicAnimation(keyPath: "position.x", from: 0.0, to: 100.0, duration: 10)
        a.timingFunction = .linear
        try child.add(a, forKey: "m")
        ctx.tick(at: 3)
        #expect(near(child.presentation()?.position.x, 30))
        // Pause.
        let pausedTime = parent.convertTime(ctx.currentTime, from: nil)
        parent.speed = 0
        parent.timeOffset = pausedTime
        for t in [3.5, 5.0, 8.0] {
            ctx.tick(at: t)
            #expect(near(child.presentation()?.position.x, 30), "paused at t = \(t)")
        }
        // Resume.
        let paused = parent.timeOffset
        parent.speed = 1
        parent.timeOffset = 0
        parent.beginTime = 0
        parent.beginTime = parent.convertTime(ctx.currentTime, from: nil) - paused
        ctx.tick(at: 8)
        #expect(near(child.presentation()?.position.x, 30))
        ctx.tick(at: 10)
        #expect(near(child.presentation()?.position.x, 50))
        // §2.2 exactness: the layer's time at the context's time is the paused time plus what passed.
        #expect(parent.convertTime(10, from: nil) == pausedTime + 2)
    }

    @Test("§1.5 beginTime 0 resolves to the layer's own time, so a paused layer's new animations start frozen")
    func addToPausedLayer() throws {
        let layer = Layer()
        let ctx = context(with: layer, at: 4)
        layer.speed = 0
        layer.timeOffset = 1
        try layer.add(BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1), forKey: "f")
        #expect(layer.animation(forKey: "f")?.beginTime == 1)
        ctx.tick(at: 9)
        #expect(layer.presentation()?.opacity == 0)
    }

    @Test("§2.7 §1.5 a tree that gets a layer time after changes times the next change in it: the implicit animation begins at the layer's time")
    func implicitChangesFollowLayerTimeGivenLater() throws {
        let parent = Layer(), layer = Layer()
        parent.addSublayer(layer)
        let ctx = context(with: parent, at: 2)
        layer.opacity = 0.5
        #expect(layer.animation(forKey: "opacity")?.beginTime == 2, "no layer time yet: the context's")
        ctx.tick(at: 3)   // finished: the next change takes it over
        parent.speed = 2
        parent.timeOffset = 1
        layer.opacity = 1
        #expect(layer.animation(forKey: "opacity")?.beginTime == layer.convertTime(3, from: nil))
        #expect(layer.convertTime(3, from: nil) == 7)
        ctx.tick(at: 3 + 0.0625)   // local time 7.125: half way through 0.25 s
        #expect(near(layer.presentation()?.opacity, 0.5 + 0.5 * TimingFunction.default.value(at: 0.5)))
        let newcomer = Layer()
        parent.addSublayer(newcomer)   // joins a timed subtree
        newcomer.opacity = 0
        #expect(newcomer.animation(forKey: "opacity")?.beginTime == 7.125)
    }

    @Test("§2.7 a layer moved under a timed layer takes its time; one leaving the tree forgets it")
    func movingLayers() throws {
        let slow = Layer(), plain = Layer(), mover = Layer()
        slow.speed = 0.5
        let ctx = context(with: slow, plain)
        plain.addSublayer(mover)
        try mover.add(BasicAnimation(keyPath: "position.x", from: 0.0, to: 100.0, duration: 4), forKey: "m")
        ctx.tick(at: 1)
        #expect(near(mover.presentation()?.position.x, 25))
        slow.addSublayer(mover)   // within the tree: the animation stays, now on half speed
        #expect(mover.animationKeys() == ["m"])
        ctx.tick(at: 2)
        #expect(near(mover.presentation()?.position.x, 25), "local time 2·0.5 = 1")
        #expect(ctx.store.layerTime(of: ctx.layerID(of: mover)!) != nil)
        mover.removeFromSuperlayer()
        #expect(ctx.layerID(of: mover) == nil)
    }
}
