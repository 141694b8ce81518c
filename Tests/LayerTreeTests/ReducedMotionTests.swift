import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

@Suite("Reduced motion (docs/reduced-motion.md)")
struct ReducedMotionTests {
    private func move(to x: Double = 100, duration: Double = 1) -> BasicAnimation {
        var a = BasicAnimation(keyPath: "position.x", from: 0.0, to: x, duration: duration)
        a.timingFunction = .linear
        return a
    }

    @Test("isMotion: geometry keys and key paths under them are motion; opacity, colours and custom keys are not")
    func motionKeys() {
        for key in ["position", "position.x", "bounds", "bounds.size.width", "anchorPoint", "transform", "transform.rotation.z",
                    "sublayerTransform", "zPosition", "path"] {
            #expect(Layer.isMotion(forKey: key), "\(key)")
        }
        for key in ["opacity", "backgroundColor", "strokeEnd", "lineWidth", "cornerRadius", "progress"] {
            #expect(!Layer.isMotion(forKey: key), "\(key)")
        }
    }

    @Test("scaleDurations: a motion animation runs on a clock sped up by 1 / factor; a fade runs as written")
    func scaleDurations() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        ctx.reducedMotion = .scaleDurations(0.25)
        let moveLog = Recorder(), fadeLog = Recorder()
        try layer.add(move(), forKey: "move", delegate: moveLog)
        var fade = BasicAnimation(keyPath: "opacity", from: 1.0, to: 0.0, duration: 1)
        fade.timingFunction = .linear
        try layer.add(fade, forKey: "fade", delegate: fadeLog)
        ctx.tick(at: 0.125)
        #expect(near(layer.presentation()?.position.x, 50))      // half of the move in an eighth of a second
        #expect(near(layer.presentation()?.opacity, 0.875))      // the fade untouched
        ctx.tick(at: 0.25)
        #expect(moveLog.log == ["start", "stop(true)"])
        #expect(fadeLog.log == ["start"])
        #expect(layer.animation(forKey: "fade")?.speed == 1)
    }

    @Test("instant: a motion animation shows its end state from its begin time and starts and stops in that tick")
    func instant() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        ctx.reducedMotion = .instant
        let log = Recorder()
        var held = move()
        held.fillMode = .forwards
        held.isRemovedOnCompletion = false
        try layer.add(held, forKey: "move", delegate: log)
        #expect(layer.animation(forKey: "move")?.timing.isInstant == true)
        ctx.tick(at: 0.01)
        #expect(near(layer.presentation()?.position.x, 100))
        #expect(log.log == ["start", "stop(true)"])
        #expect(ctx.isSettled)
        // Removed on completion (the default), it leaves the model showing, as after any end.
        let plain = Recorder()
        layer.position = Point(x: 7, y: 0)
        try layer.add(move(), forKey: "again", delegate: plain)
        ctx.tick(at: 0.02)
        #expect(plain.log == ["start", "stop(true)"])
        #expect(layer.animation(forKey: "again") == nil)
    }

    @Test("instant: a delayed animation waits for its begin time; the first tick at or after it delivers both callbacks")
    func instantDelayed() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        ctx.reducedMotion = .instant
        let log = Recorder()
        var later = move()
        later.beginTime = 2
        try layer.add(later, forKey: "move", delegate: log)
        ctx.tick(at: 1)
        #expect(log.log.isEmpty)
        #expect(ctx.nextEventTime == 2)
        ctx.tick(at: 2)
        #expect(log.log == ["start", "stop(true)"])
    }

    @Test("MotionPreference: alwaysAnimate runs as written, neverAnimate is instant whatever the context says")
    func preferences() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        ctx.reducedMotion = .instant
        try layer.add(move(), forKey: "spinner", delegate: nil, motion: .alwaysAnimate)
        ctx.reducedMotion = .off
        var fade = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)
        fade.fillMode = .forwards
        fade.isRemovedOnCompletion = false
        try layer.add(fade, forKey: "fade", delegate: nil, motion: .neverAnimate)
        ctx.tick(at: 0.5)
        #expect(near(layer.presentation()?.position.x, 50))
        #expect(near(layer.presentation()?.opacity, 1))
    }

    @Test("a subclass says which of its keys are motion; a group is motion when any animation inside it is")
    func subclassAndGroups() throws {
        final class Sweep: Layer {
            override class func isMotion(forKey key: String) -> Bool { key == "progress" || super.isMotion(forKey: key) }
            override class func defaultValue(forKey key: String) -> AnimationValue? { key == "progress" ? .scalar(0) : super.defaultValue(forKey: key) }
        }
        let sweep = Sweep()
        let ctx = context(with: sweep)
        ctx.reducedMotion = .scaleDurations(0.5)
        var progress = BasicAnimation(keyPath: "progress", from: 0.0, to: 1.0, duration: 1)
        progress.timingFunction = .linear
        try sweep.add(progress, forKey: "p")
        var fade = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)
        fade.timingFunction = .linear
        let group = AnimationGroup(animations: [fade, move()], duration: 1)
        try sweep.add(group, forKey: "g")
        ctx.tick(at: 0.25)
        #expect(near(sweep.presentation()?.value(forKey: "progress")?.scalarValue, 0.5))
        #expect(near(sweep.presentation()?.opacity, 0.5))   // inside a motion group: the group's clock
    }

    @Test("implicit actions follow reducedMotion, and a change of the setting is not taken over by the last animation")
    func implicitActions() {
        let layer = Layer()
        let ctx = context(with: layer)
        ctx.reducedMotion = .instant
        layer.position = Point(x: 40, y: 0)
        ctx.tick(at: 0.01)
        #expect(near(layer.presentation()?.position.x, 40))
        ctx.reducedMotion = .off
        layer.position = Point(x: 80, y: 0)
        ctx.tick(at: 0.01 + 0.125)
        let x = layer.presentation()?.position.x ?? 0
        #expect(x > 40 && x < 80)   // animated again, over the transaction's 0.25 s
        ctx.reducedMotion = .instant
        layer.opacity = 0.5          // not motion: animated
        ctx.tick(at: 0.2)
        let opacity = layer.presentation()?.opacity ?? 0
        #expect(opacity > 0.5 && opacity < 1)
    }

    @Test("a scale factor outside (0, 1] is refused: the setting stays, lastActionError names it")
    func invalidFactor() {
        let ctx = context(with: Layer())
        ctx.reducedMotion = .scaleDurations(0.5)
        for factor in [0.0, -1, 2, .nan, .infinity] {
            ctx.reducedMotion = .scaleDurations(factor)
            #expect(ctx.reducedMotion == .scaleDurations(0.5))
            #expect(ctx.lastActionError?.field == "reducedMotion")
        }
    }
}
