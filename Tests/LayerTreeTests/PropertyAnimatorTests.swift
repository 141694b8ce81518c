import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

@Suite("PropertyAnimator (UIViewPropertyAnimator's model)")
struct PropertyAnimatorTests {
    /// A context with one layer at x = 0, and an animator of 1 s moving it to x = 100 linearly.
    private func setup(_ curve: TimingFunction = .linear) -> (LayerContext, Layer, PropertyAnimator) {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.setDisableActions(true)
        layer.position = Point(x: 0, y: 0)
        Transaction.commit()
        ctx.tick(at: 0)
        let animator = PropertyAnimator(duration: 1, timingFunction: curve, context: ctx) { layer.position = Point(x: 100, y: 0) }
        return (ctx, layer, animator)
    }

    private func x(_ layer: Layer) -> Double? { layer.presentation()?.position.x }

    @Test("before it is active nothing changes: the blocks have not run")
    func inactiveChangesNothing() {
        let (ctx, layer, animator) = setup()
        ctx.tick(at: 0.5)
        #expect(animator.state == .inactive)
        #expect(layer.position.x == 0)
        #expect(near(x(layer), 0))
        #expect(animator.fractionComplete == 0)
    }

    @Test("startAnimation: active and running; the blocks set the model at once, the change animates; the end completes with .end")
    func runsToTheEnd() {
        let (ctx, layer, animator) = setup()
        var ends: [PropertyAnimator.Position] = []
        animator.addCompletion { ends.append($0) }
        animator.startAnimation()
        #expect(animator.state == .active && animator.isRunning)
        #expect(layer.position.x == 100)                 // the model, at once
        ctx.tick(at: 0.25)
        #expect(near(x(layer), 25))
        #expect(near(animator.fractionComplete, 0.25))
        ctx.tick(at: 1.0.nextDown)
        #expect(ends.isEmpty)
        ctx.tick(at: 1)
        #expect(ends == [.end])                           // in the tick in which the run ends
        #expect(animator.state == .inactive)
        ctx.tick(at: 1.1)
        #expect(near(x(layer), 100))
        #expect(ends == [.end])                           // exactly once
        #expect(ctx.isSettled)
    }

    @Test("changes inside the blocks start no implicit action of their own")
    func noImplicitActions() {
        let (ctx, layer, animator) = setup()
        animator.addAnimations { layer.opacity = 0.5 }
        animator.pauseAnimation()
        ctx.tick(at: 0.5)
        #expect(layer.animationKeys()?.sorted() == ["opacity", "position"])
        #expect(near(layer.presentation()?.opacity, 1))  // paused at 0: the value before the block
    }

    @Test("pause on an inactive animator: active, paused at 0; fractionComplete scrubs; start resumes and the rest takes (1 − f)·d")
    func pauseScrubResume() {
        let (ctx, layer, animator) = setup(.easeIn)
        animator.pauseAnimation()
        #expect(animator.state == .active && !animator.isRunning)
        ctx.tick(at: 0.5)
        #expect(near(x(layer), 0))
        animator.fractionComplete = 0.5
        ctx.tick(at: 0.6)
        #expect(near(x(layer), 100 * TimingFunction.easeIn.value(at: 0.5)))
        animator.fractionComplete = 1
        ctx.tick(at: 0.7)
        #expect(near(x(layer), 100))
        animator.fractionComplete = 0.75
        ctx.tick(at: 1)
        var ends: [PropertyAnimator.Position] = []
        animator.addCompletion { ends.append($0) }
        animator.startAnimation()
        ctx.tick(at: 1.125)
        #expect(near(animator.fractionComplete, 0.875))
        #expect(near(x(layer), 100 * TimingFunction.easeIn.value(at: 0.875)))
        ctx.tick(at: 1.25)
        #expect(ends == [.end])
    }

    @Test("setting fractionComplete on an inactive animator runs the blocks and pauses there")
    func scrubInactive() {
        let (ctx, layer, animator) = setup()
        animator.fractionComplete = 0.3
        #expect(animator.state == .active && !animator.isRunning)
        ctx.tick(at: 0.1)
        #expect(near(x(layer), 30))
    }

    @Test("isReversed while running turns around; reaching the start completes with .start and the model is the start value")
    func reverse() {
        let (ctx, layer, animator) = setup()
        var ends: [PropertyAnimator.Position] = []
        animator.addCompletion { ends.append($0) }
        animator.startAnimation()
        ctx.tick(at: 0.5)
        animator.isReversed = true
        ctx.tick(at: 0.75)
        #expect(near(x(layer), 25))
        #expect(near(animator.fractionComplete, 0.25))
        ctx.tick(at: 1)
        #expect(ends == [.start])
        #expect(layer.position.x == 0)
        ctx.tick(at: 1.1)
        #expect(near(x(layer), 0))
    }

    @Test("stopAnimation(false): stopped, the model is what shows, nothing moves; finishAnimation(at:) ends it with that position")
    func stopThenFinish() {
        for (position, expected) in [(PropertyAnimator.Position.start, 0.0), (.end, 100), (.current, 40)] {
            let (ctx, layer, animator) = setup()
            var ends: [PropertyAnimator.Position] = []
            animator.addCompletion { ends.append($0) }
            animator.startAnimation()
            ctx.tick(at: 0.4)
            animator.stopAnimation(false)
            #expect(animator.state == .stopped)
            #expect(near(layer.position.x, 40))
            ctx.tick(at: 0.8)
            #expect(near(x(layer), 40))
            #expect(ends.isEmpty)
            animator.finishAnimation(at: position)
            #expect(animator.state == .inactive)
            #expect(ends == [position])
            #expect(near(layer.position.x, expected))
            ctx.tick(at: 0.9)
            #expect(near(x(layer), expected))
        }
    }

    @Test("stopAnimation(true): inactive at once, the model is what shows, no completion is called")
    func stopWithoutFinishing() {
        let (ctx, layer, animator) = setup()
        var called = false
        animator.addCompletion { _ in called = true }
        animator.startAnimation()
        ctx.tick(at: 0.6)
        animator.stopAnimation(true)
        #expect(animator.state == .inactive)
        #expect(near(layer.position.x, 60))
        ctx.tick(at: 2)
        #expect(!called)
        #expect(near(x(layer), 60))
    }

    @Test("continueAnimation on a paused animator: the rest takes durationFactor × duration, along a new curve from the current value")
    func continueAnimation() {
        let (ctx, layer, animator) = setup()
        var ends: [PropertyAnimator.Position] = []
        animator.addCompletion { ends.append($0) }
        animator.startAnimation()
        ctx.tick(at: 0.5)
        animator.pauseAnimation()
        animator.continueAnimation(withTimingFunction: nil, durationFactor: 2)   // the rest (0.5) in 2 s
        ctx.tick(at: 1.5)
        #expect(near(animator.fractionComplete, 0.75))
        #expect(near(x(layer), 75))
        animator.pauseAnimation()
        animator.continueAnimation(withTimingFunction: .easeIn, durationFactor: 1)   // the rest (0.25) in 1 s, eased in from 75
        ctx.tick(at: 1.5)
        #expect(near(x(layer), 75))
        ctx.tick(at: 2)
        #expect(near(x(layer), 75 + 25 * TimingFunction.easeIn.value(at: 0.5)))
        ctx.tick(at: 2.5)
        #expect(ends == [.end])
        #expect(layer.position.x == 100)
    }

    @Test("a block added while active runs at once and animates over the remaining time")
    func addWhileActive() {
        let (ctx, layer, animator) = setup()
        animator.startAnimation()
        ctx.tick(at: 0.5)
        animator.addAnimations { layer.opacity = 0 }
        #expect(layer.opacity == 0)
        ctx.tick(at: 0.75)
        #expect(near(layer.presentation()?.opacity, 0.5))   // half of the remaining half
        #expect(near(x(layer), 75))
        ctx.tick(at: 1)
        ctx.tick(at: 1.1)
        #expect(near(layer.presentation()?.opacity, 0))
    }

    @Test("a damping-ratio animator moves as a spring and lands on the end value at the end")
    func spring() {
        let layer = Layer()
        let ctx = context(with: layer)
        var ends: [PropertyAnimator.Position] = []
        let animator = PropertyAnimator(duration: 1, dampingRatio: 0.3, context: ctx) { layer.position = Point(x: 100, y: 0) }
        animator.addCompletion { ends.append($0) }
        animator.startAnimation()
        var peak = 0.0
        for k in 1...99 {
            ctx.tick(at: Double(k) / 100)
            peak = max(peak, x(layer) ?? 0)
        }
        #expect(peak > 105)                               // it overshoots
        #expect(near(x(layer), 100, 0.05))
        ctx.tick(at: 1)
        #expect(ends == [.end])
        ctx.tick(at: 1.01)
        #expect(x(layer) == 100)
    }

    @Test("calls not allowed in the state change nothing (the state table)")
    func notAllowed() {
        let (ctx, layer, animator) = setup()
        animator.finishAnimation(at: .end)                // inactive
        #expect(animator.state == .inactive && layer.position.x == 0)
        animator.stopAnimation(false)                     // inactive
        #expect(animator.state == .inactive)
        animator.continueAnimation(withTimingFunction: nil, durationFactor: 1)   // inactive
        #expect(animator.state == .inactive)
        animator.startAnimation()
        ctx.tick(at: 0.2)
        animator.finishAnimation(at: .end)                // active
        #expect(animator.state == .active)
        animator.fractionComplete = 0.9                   // running
        #expect(near(animator.fractionComplete, 0.2))
        animator.continueAnimation(withTimingFunction: nil, durationFactor: 1)   // running, not paused
        animator.stopAnimation(false)
        animator.pauseAnimation()                         // stopped
        animator.startAnimation()                         // stopped
        animator.fractionComplete = 0.1                   // stopped
        #expect(animator.state == .stopped)
        #expect(near(animator.fractionComplete, 0.2))
    }

    @Test("an invalid duration or damping ratio is replaced and reported")
    func invalidParameters() {
        let ctx = context(with: Layer())
        let a = PropertyAnimator(duration: .nan, timingFunction: .linear, context: ctx)
        #expect(a.duration == 0.25)
        #expect(ctx.lastActionError?.field == "duration")
        _ = PropertyAnimator(duration: 1, dampingRatio: -1, context: ctx)
        #expect(ctx.lastActionError?.field == "dampingRatio")
    }

    @Test("startAnimation(afterDelay:) holds the fraction until the delay has passed, then runs the whole duration")
    func afterDelay() {
        let (ctx, layer, animator) = setup()
        var ends: [PropertyAnimator.Position] = []
        animator.addCompletion { ends.append($0) }
        animator.startAnimation(afterDelay: 0.5)
        ctx.tick(at: 0.25)
        #expect(near(x(layer), 0))
        #expect(animator.fractionComplete == 0)
        ctx.tick(at: 1)
        #expect(near(x(layer), 50))
        ctx.tick(at: 1.5)
        #expect(ends == [.end])
        // Paused part-way, a delayed resume holds that fraction first.
        let (ctx2, layer2, animator2) = setup()
        animator2.fractionComplete = 0.5
        animator2.startAnimation(afterDelay: 1)
        ctx2.tick(at: 0.5)
        #expect(near(x(layer2), 50))
        ctx2.tick(at: 1.25)
        #expect(near(x(layer2), 75))
    }

    @Test("reversed before it starts, an animator runs from its end to its start")
    func reversedFromTheStart() {
        let (ctx, layer, animator) = setup()
        var ends: [PropertyAnimator.Position] = []
        animator.addCompletion { ends.append($0) }
        animator.isReversed = true
        animator.startAnimation()
        ctx.tick(at: 0.25)
        #expect(near(x(layer), 75))
        ctx.tick(at: 1)
        #expect(ends == [.start])
        #expect(layer.position.x == 0)
    }

    @Test("each completion is called once per run; a second run calls the ones added for it")
    func completionsOncePerRun() {
        let (ctx, layer, animator) = setup()
        var first = 0, second = 0
        animator.addCompletion { _ in first += 1 }
        animator.startAnimation()
        ctx.tick(at: 1)
        ctx.tick(at: 2)
        animator.addAnimations { layer.position = Point(x: 0, y: 0) }
        animator.addCompletion { _ in second += 1 }
        animator.startAnimation()
        ctx.tick(at: 2.5)
        #expect(near(x(layer), 50))
        ctx.tick(at: 3)
        ctx.tick(at: 4)
        #expect(first == 1 && second == 1)
    }

    @Test("reduced motion does not touch an animator's animations: its host drives them")
    func reducedMotionLeavesItAlone() {
        let (ctx, layer, animator) = setup()
        ctx.reducedMotion = .instant
        animator.startAnimation()
        ctx.tick(at: 0.5)
        #expect(near(x(layer), 50))
    }
}
