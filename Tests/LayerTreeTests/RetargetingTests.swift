import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

@Suite("Retargeting that keeps velocity (docs/retargeting.md)")
struct RetargetingTests {
    /// A layer moving from (0, 0) to (300, 100) by an implicit animation of 1 s begun at 0, ticked
    /// to `t`.
    private func movingLayer(at t: Double, curve: TimingFunction = .default) -> (Layer, LayerContext) {
        let layer = Layer()
        layer.position = Point(x: 0, y: 0)
        let ctx = context(with: layer)
        Transaction.begin()
        Transaction.setAnimationDuration(1)
        Transaction.setAnimationTimingFunction(curve)
        layer.position = Point(x: 300, y: 100)
        Transaction.commit()
        ctx.tick(at: t)
        return (layer, ctx)
    }

    private func position(_ layer: Layer) -> [Double] { layer.presentation()!.value(forKey: "position")!.components }

    /// Changes the position to `target` at the layer's current tick under `mode`, with a
    /// transaction of `duration`.
    private func change(_ layer: Layer, to target: Point, mode: RetargetMode, duration: Double = 0.8) {
        Transaction.begin()
        Transaction.setRetargetMode(mode)
        Transaction.setAnimationDuration(duration)
        layer.position = target
        Transaction.commit()
    }

    @Test("the mode is .restart unless set; a nested transaction inherits it; it ends with its transaction")
    func modeIsPerTransaction() {
        freshTransactions()
        #expect(Transaction.retargetMode() == .restart)
        Transaction.begin()
        Transaction.setRetargetMode(.preserveVelocity)
        Transaction.begin()
        #expect(Transaction.retargetMode() == .preserveVelocity)
        Transaction.setRetargetMode(.restart)
        #expect(Transaction.retargetMode() == .restart)
        Transaction.commit()
        #expect(Transaction.retargetMode() == .preserveVelocity)
        Transaction.commit()
        #expect(Transaction.retargetMode() == .restart)
    }

    @Test("preserveVelocity: value and velocity continuous at the change, the new model value reached exactly at the end")
    func preserveVelocityIsC1AndReachesTheModel() throws {
        let (layer, ctx) = movingLayer(at: 0.4)
        let value = position(layer)
        let velocity = try #require(layer.velocity(forKey: "position")?.components)
        change(layer, to: Point(x: -50, y: 200), mode: .preserveVelocity)
        // The same tick: the new animation begins here with the old value and velocity.
        let after = try #require(layer.velocity(forKey: "position")?.components)
        for k in 0..<2 { #expect(abs(after[k] - velocity[k]) <= 1e-9 * max(1, abs(velocity[k])), "\(after) against \(velocity)") }
        // One step later the value has moved at that velocity (second order in the step).
        let h = 1e-3
        ctx.tick(at: 0.4 + h)
        let next = position(layer)
        for k in 0..<2 {
            let slope = (next[k] - value[k]) / h
            #expect(abs(slope - velocity[k]) <= 1e-2 * max(1, abs(velocity[k])), "slope \(slope) against \(velocity[k])")
        }
        // Just before the end the value is near the target; at the end it is the target.
        ctx.tick(at: 0.4 + 0.8 - 1e-4)
        let near = position(layer)
        #expect(abs(near[0] + 50) < 0.5 && abs(near[1] - 200) < 0.5, "\(near)")
        ctx.tick(at: 1.3)
        #expect(position(layer) == [-50, 200])
        #expect(layer.velocity(forKey: "position") == .point(.zero))
    }

    @Test("restart (Core Animation): the new animation starts at its own curve's rate — the old velocity is dropped")
    func restartDropsVelocity() throws {
        let (layer, ctx) = movingLayer(at: 0.4)
        defer { withExtendedLifetime(ctx) {} }
        let velocity = try #require(layer.velocity(forKey: "position")?.components)
        let before = position(layer)
        change(layer, to: Point(x: -50, y: 200), mode: .restart)
        #expect(layer.animation(forKey: "position") is BasicAnimation)
        let after = try #require(layer.velocity(forKey: "position")?.components)
        // The default curve starts at slope 0.1/0.25 = 0.4 toward the new target.
        let expectedX = (-50 - before[0]) / 0.8 * 0.4
        #expect(abs(after[0] - expectedX) < 1e-6 && abs(after[0] - velocity[0]) > 1)
    }

    @Test("preserveVelocity at rest adds exactly what restart adds")
    func atRestNothingChanges() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        ctx.tick(at: 1)
        change(layer, to: Point(x: 10, y: 20), mode: .preserveVelocity)
        let animation = try #require(layer.animation(forKey: "position") as? BasicAnimation)
        #expect(animation.fromValue == .point(.zero) && animation.toValue == nil && !animation.isAdditive)
    }

    @Test("a spring action takes the velocity as initialVelocity along its travel, the rest by the carry")
    func springTakesInitialVelocity() throws {
        let (layer, ctx) = movingLayer(at: 0.3, curve: .linear)
        let delegate = SpringActionDelegate(damping: 12, duration: 1.5)
        layer.delegate = delegate
        let velocity = try #require(layer.velocity(forKey: "position")?.components)   // (300, 100) per second
        // A target straight ahead: the velocity is along the travel, so the spring keeps it (a
        // carry of the single-precision rounding of the position aside).
        change(layer, to: Point(x: 390 + 300, y: 130 + 100), mode: .preserveVelocity)
        let added = layer.animation(forKey: "position")
        let spring = try #require(added as? SpringAnimation ?? (added as? AnimationGroup)?.animations.first as? SpringAnimation)
        #expect(abs(spring.initialVelocity - 300 / 600) < 1e-6, "\(spring.initialVelocity)")
        let after = try #require(layer.velocity(forKey: "position")?.components)
        for k in 0..<2 { #expect(abs(after[k] - velocity[k]) <= 1e-9 * abs(velocity[k])) }
        // A target off to the side: spring and carry together keep it.
        ctx.tick(at: 0.5)
        let v2 = try #require(layer.velocity(forKey: "position")?.components)
        change(layer, to: Point(x: 0, y: 500), mode: .preserveVelocity)
        #expect(layer.animation(forKey: "position") is AnimationGroup)
        let a2 = try #require(layer.velocity(forKey: "position")?.components)
        for k in 0..<2 { #expect(abs(a2[k] - v2[k]) <= 1e-9 * max(1, abs(v2[k])), "\(a2) against \(v2)") }
        withExtendedLifetime(delegate) {}
    }

    @Test("View.animate keeps the velocity too; a transform restarts (its carry would not add componentwise)")
    func viewAnimateAndTransforms() throws {
        let view = View()
        let ctx = context(with: view.layer)
        View.animate(withDuration: 1, animations: { view.layer.position = Point(x: 200, y: 0) })
        ctx.tick(at: 0.5)
        let velocity = try #require(view.layer.velocity(forKey: "position")?.components)
        Transaction.begin()
        Transaction.setRetargetMode(.preserveVelocity)
        View.animate(withDuration: 0.5, animations: { view.layer.position = Point(x: 0, y: 0) })
        Transaction.commit()
        let after = try #require(view.layer.velocity(forKey: "position")?.components)
        #expect(abs(after[0] - velocity[0]) <= 1e-9 * abs(velocity[0]) && velocity[0] > 100)

        let layer = Layer()
        ctx.rootLayer.addSublayer(layer)
        layer.transform = .rotation(angle: 1, x: 0, y: 0, z: 1)
        ctx.tick(at: 0.6)
        Transaction.begin()
        Transaction.setRetargetMode(.preserveVelocity)
        layer.transform = .identity
        Transaction.commit()
        #expect(layer.animation(forKey: "transform") is BasicAnimation)
    }
}

@Suite("Retargeting by a property animator (docs/retargeting.md)")
struct AnimatorRetargetingTests {
    @Test("a property animator that takes over a moving key under preserveVelocity starts at its velocity, scrubs through the carry, ends on its target")
    func animatorKeepsVelocity() throws {
        for spring in [false, true] {
            let layer = Layer()
            let ctx = context(with: layer)
            Transaction.begin()
            Transaction.setAnimationDuration(1)
            Transaction.setAnimationTimingFunction(.linear)
            layer.position = Point(x: 200, y: 50)
            Transaction.commit()
            ctx.tick(at: 0.5)
            let velocity = try #require(layer.velocity(forKey: "position")?.components)   // (200, 50) per second
            let move = { layer.position = Point(x: 0, y: 300) }
            let animator = spring ? PropertyAnimator(duration: 2, dampingRatio: 0.7, context: ctx, animations: move)
                : PropertyAnimator(duration: 2, timingFunction: .easeInEaseOut, context: ctx, animations: move)
            Transaction.begin()
            Transaction.setRetargetMode(.preserveVelocity)
            animator.startAnimation()
            Transaction.commit()
            let after = try #require(layer.velocity(forKey: "position")?.components)
            for k in 0..<2 { #expect(abs(after[k] - velocity[k]) <= 1e-6 * max(1, abs(velocity[k])), "spring \(spring): \(after) against \(velocity)") }
            // Paused and scrubbed, the layer shows what the animator computes (the carry included).
            ctx.tick(at: 1.0)
            animator.pauseAnimation()
            animator.fractionComplete = 0.3
            ctx.tick(at: 1.1)
            let shown = try #require(layer.presentation()?.position)
            let track = try #require(animator.tracks.first)
            let expected = track.value(at: 0.3, duration: 2).components
            #expect(abs(shown.x - expected[0]) < 1e-3 && abs(shown.y - expected[1]) < 1e-3, "\(shown) against \(expected)")
            animator.startAnimation()
            ctx.tick(at: 10)
            #expect(layer.presentation()?.position == Point(x: 0, y: 300))
        }
    }
}

@Suite("The RetargetingWithVelocity article")
struct RetargetingArticleTests {
    @Test("the article's example: -0.93 per second before and after the change; 0 under restart; 0.85 at 1.8 s")
    func articleExample() throws {
        for mode in [RetargetMode.preserveVelocity, .restart] {
            let ring = ShapeLayer()
            let context = context(with: ring)
            Transaction.begin()
            Transaction.setAnimationDuration(1.2)
            Transaction.setAnimationTimingFunction(.easeInEaseOut)
            ring.strokeEnd = 0.35
            Transaction.commit()
            context.tick(at: 0.6)
            let before = try #require(ring.velocity(forKey: "strokeEnd")?.scalarValue)
            #expect(abs(before - -0.93) < 0.005, "\(before)")
            Transaction.begin()
            Transaction.setAnimationDuration(1.2)
            Transaction.setAnimationTimingFunction(.easeInEaseOut)
            Transaction.setRetargetMode(mode)
            ring.strokeEnd = 0.85
            Transaction.commit()
            let after = try #require(ring.velocity(forKey: "strokeEnd")?.scalarValue)
            #expect(mode == .restart ? after == 0 : abs(after - before) < 1e-9, "\(mode): \(after)")
            context.tick(at: 1.8)
            #expect(ring.presentation()?.strokeEnd == 0.85)
        }
    }
}
