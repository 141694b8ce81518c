import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

@Suite("Gaps between ticks (GapPolicy)")
struct LayerContextGapsTests {
    private func fade(_ duration: Double = 1) -> BasicAnimation {
        var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: duration)
        a.timingFunction = .linear
        return a
    }

    @Test("exact (the default): a 10-second gap is caught up exactly; the stop comes in the tick after it")
    func exactCatchUp() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        let log = Recorder()
        try layer.add(fade(), forKey: "f", delegate: log)
        ctx.tick(at: 0.016)
        ctx.tick(at: 10.016)
        #expect(ctx.currentTime == 10.016)
        #expect(ctx.timeLag == 0)
        #expect(log.log == ["start", "stop(true)"])
        #expect(ctx.gapPolicy == .exact)
    }

    @Test("clamp: a long gap advances the context by the maximum step; the motion resumes where it stopped")
    func clampDropsTheRest() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        try ctx.setGapPolicy(.clamp(maximumStep: 0.1))
        let log = Recorder()
        try layer.add(fade(), forKey: "f", delegate: log)
        ctx.tick(at: 0.25)       // 0.25 > 0.1: the context advances to 0.1
        #expect(ctx.currentTime == 0.1)
        ctx.tick(at: 10.25)      // a 10 s stall: 0.1 more
        #expect(abs(ctx.currentTime - 0.2) < 1e-12)
        #expect(abs(ctx.timeLag - 10.05) < 1e-12)
        #expect(near(layer.presentation()?.opacity, 0.2))
        #expect(log.log == ["start"])
        // Ordinary frames from there: the animation runs its remaining 0.8 s of context time.
        var host = 10.25
        while log.log.count < 2 && host < 20 {
            host += 0.05
            ctx.tick(at: host)
        }
        #expect(log.log == ["start", "stop(true)"])
        #expect(abs((host - ctx.timeLag) - ctx.currentTime) < 1e-12)
        #expect(abs(ctx.currentTime - 1.0) < 0.05 + 1e-9)
    }

    @Test("smoothLag: a gap past the threshold counts as one step; gaps up to it pass exactly")
    func smoothLag() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        try ctx.setGapPolicy(.smoothLag(threshold: 0.5, step: 1.0 / 60))
        try layer.add(fade(10), forKey: "f")
        ctx.tick(at: 0.4)
        #expect(ctx.currentTime == 0.4)                 // under the threshold: exact
        ctx.tick(at: 3.4)
        #expect(abs(ctx.currentTime - (0.4 + 1.0 / 60)) < 1e-12)
        #expect(abs(ctx.timeLag - (3 - 1.0 / 60)) < 1e-12)
    }

    @Test("an idle gap is not lag: a delayed animation begins on time under a clamp")
    func idleGapIsKept() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        try ctx.setGapPolicy(.clamp(maximumStep: 0.1))
        var later = fade()
        later.beginTime = 5
        let log = Recorder()
        try layer.add(later, forKey: "f", delegate: log)
        ctx.tick(at: 0.05)
        #expect(!ctx.hasRunningAnimations)
        let next = try #require(ctx.nextEventTime)
        ctx.tick(at: next + ctx.timeLag)   // a host that slept until the event
        #expect(ctx.currentTime == 5)
        #expect(ctx.timeLag == 0)
        #expect(log.log == ["start"])
    }

    @Test("a policy with a step that is not positive and finite is refused, naming the field")
    func invalidPolicies() throws {
        let ctx = context(with: Layer())
        for (policy, field) in [(GapPolicy.clamp(maximumStep: 0), "maximumStep"), (.clamp(maximumStep: .infinity), "maximumStep"),
                                (.smoothLag(threshold: -1, step: 0.1), "threshold"), (.smoothLag(threshold: 1, step: .nan), "step")] {
            #expect(throws: AnimationError.self) { try ctx.setGapPolicy(policy) }
            do { try ctx.setGapPolicy(policy) } catch let error as AnimationError { #expect(error.field == field) }
            #expect(ctx.gapPolicy == .exact)
        }
    }

    @Test("a host time earlier than the last passes unchanged under any policy")
    func backwardsTime() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        try ctx.setGapPolicy(.clamp(maximumStep: 0.1))
        try layer.add(fade(), forKey: "f")
        ctx.tick(at: 0.05)
        ctx.tick(at: 0.01)
        #expect(ctx.currentTime == 0.01)
    }
}
