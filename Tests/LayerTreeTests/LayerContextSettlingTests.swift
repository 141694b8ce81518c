import AnimationBatch
import AnimationCore
import AnimationWorkloads
@testable import LayerTree
import Testing

@Suite("Settle queries (docs/settling.md)")
struct LayerContextSettlingTests {
    private func linear(_ keyPath: String = "opacity", from: Double = 0, to: Double = 1, duration: Double) -> BasicAnimation {
        var a = BasicAnimation(keyPath: keyPath, from: from, to: to, duration: duration)
        a.timingFunction = .linear
        return a
    }

    @Test("an empty tree is settled and has no next event")
    func emptyTree() {
        let layer = Layer()
        let ctx = context(with: layer)
        #expect(ctx.isSettled)
        #expect(ctx.nextEventTime == nil)
        #expect(!ctx.hasInfiniteAnimations)
    }

    @Test("a running animation is not settled; after its end, removed on completion, the tree is")
    func runningThenRemoved() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        try layer.add(linear(duration: 2), forKey: "fade")
        #expect(!ctx.isSettled)                       // added, no tick has started it
        #expect(ctx.nextEventTime == ctx.currentTime.nextUp)
        ctx.tick(at: 1)
        #expect(!ctx.isSettled)
        #expect(ctx.nextEventTime == 2)
        ctx.tick(at: 2)
        #expect(ctx.isSettled)
        #expect(ctx.nextEventTime == nil)
    }

    @Test("an animation kept by a forwards fill is settled after its end")
    func keptByFillIsSettled() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var a = linear(duration: 1)
        a.fillMode = .forwards
        a.isRemovedOnCompletion = false
        try layer.add(a, forKey: "fade")
        ctx.tick(at: 0.5)
        #expect(!ctx.isSettled)
        ctx.tick(at: 1.5)
        #expect(layer.animation(forKey: "fade") != nil)
        #expect(ctx.isSettled)
        #expect(ctx.nextEventTime == nil)
    }

    @Test("the next event time is where a tick first sees the begin or end, and not a Double earlier")
    func nextEventIsExact() throws {
        let layer = Layer()
        let ctx = context(with: layer, at: 0.1)
        let log = Recorder()
        var a = linear(duration: 0.3)
        a.beginTime = 0.7   // in the layer's time: begins at 0.7, ends at 0.7 + 0.3 (not exactly 1.0 in Double)
        try layer.add(a, forKey: "fade", delegate: log)
        ctx.tick(at: 0.2)
        let begin = try #require(ctx.nextEventTime)
        #expect(abs(begin - 0.7) < 1e-15)
        ctx.tick(at: begin.nextDown)
        #expect(log.log.isEmpty)
        #expect(ctx.nextEventTime == begin)
        ctx.tick(at: begin)
        #expect(log.log == ["start"])
        let end = try #require(ctx.nextEventTime)
        #expect(abs(end - 1.0) < 1e-15)
        ctx.tick(at: end.nextDown)
        #expect(log.log == ["start"])
        ctx.tick(at: end)
        #expect(log.log == ["start", "stop(true)"])
        #expect(ctx.isSettled)
    }

    @Test("a delayed animation: nothing runs before its begin, so a host may skip every frame until the next event")
    func idleUntilTheNextEvent() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var a = linear(duration: 1)
        a.beginTime = 5
        try layer.add(a, forKey: "later")
        ctx.tick(at: 1)
        #expect(!ctx.isSettled)                 // it will begin
        #expect(!ctx.hasRunningAnimations)      // but nothing moves before it does
        #expect(ctx.nextEventTime == 5)
        ctx.tick(at: 5.5)
        #expect(ctx.hasRunningAnimations)
        ctx.tick(at: 6)
        #expect(!ctx.hasRunningAnimations)
        #expect(ctx.isSettled)
    }

    @Test("an infinitely repeating animation never settles; removing it settles the tree")
    func infiniteNeverSettles() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var a = linear(duration: 1)
        a.repeatCount = .infinity
        try layer.add(a, forKey: "spin")
        #expect(ctx.hasInfiniteAnimations)
        for t in [0.5, 10.0, 1e6] {
            ctx.tick(at: t)
            #expect(!ctx.isSettled)
            #expect(ctx.nextEventTime == nil)   // it began; it never ends
        }
        layer.removeAnimation(forKey: "spin")
        #expect(!ctx.hasInfiniteAnimations)
        #expect(!ctx.isSettled)                 // its stop is due at the next tick
        ctx.tick(at: 1e6 + 1)
        #expect(ctx.isSettled)
    }

    @Test("§2.8 a frozen layer settles once a tick has started its animation; resuming it is new input")
    func frozenLayerSettles() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        layer.speed = 0
        try layer.add(linear(duration: 1), forKey: "fade")
        #expect(!ctx.isSettled)
        ctx.tick(at: 0.5)
        #expect(ctx.isSettled)
        #expect(ctx.nextEventTime == nil)
        #expect(!ctx.hasInfiniteAnimations)
        layer.speed = 1
        layer.beginTime = ctx.currentTime
        #expect(!ctx.isSettled)
        #expect(ctx.nextEventTime == 1.5)
    }

    @Test("§2.2 layer time: events come at the context times where the layer's time crosses them")
    func eventsThroughLayerTime() throws {
        let parent = Layer(), child = Layer()
        parent.addSublayer(child)
        let ctx = context(with: parent)
        parent.speed = 2
        parent.timeOffset = 1   // the parent's time is 2·T + 1
        child.speed = 0.5       // the child's: (2·T + 1)·0.5 = T + 0.5
        var a = linear(duration: 2)
        a.beginTime = 1.5       // begins at T = 1, ends at T = 3
        try child.add(a, forKey: "fade")
        ctx.tick(at: 0.25)
        #expect(ctx.nextEventTime == 1)
        ctx.tick(at: 1)
        #expect(ctx.nextEventTime == 3)
        ctx.tick(at: 3)
        #expect(ctx.isSettled)
    }

    @Test("a pending callback keeps the tree unsettled: a transaction's completion is due at the next tick")
    func pendingCompletion() {
        let layer = Layer()
        let ctx = context(with: layer)
        var ran = 0
        Transaction.setCompletionBlock { ran += 1 }
        Transaction.setDisableActions(true)
        layer.opacity = 0.5
        #expect(!ctx.isSettled)
        #expect(ctx.nextEventTime == ctx.currentTime.nextUp)
        ctx.tick(at: 0.1)
        #expect(ran == 1)
        #expect(ctx.isSettled)
    }

    @Test("a model value set without an animation waits for a tick to report it as changed")
    func modelChangeIsReported() {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.setDisableActions(true)
        layer.opacity = 0.25
        Transaction.commit()
        #expect(!ctx.isSettled)
        #expect(ctx.nextEventTime == ctx.currentTime.nextUp)
        ctx.tick(at: 0.1)
        #expect(ctx.evaluator.changedSlots.contains { $0 == ctx.slot(of: layer, forKey: "opacity") })
        #expect(ctx.isSettled)
    }

    @Test("display() waiting for a tick keeps the tree unsettled")
    func pendingDisplay() {
        let layer = Layer()
        let ctx = context(with: layer)
        layer.setNeedsDisplay()
        #expect(!ctx.isSettled)
        ctx.tick(at: 0.1)
        #expect(ctx.isSettled)
    }

    @Test("§7 inside a group: children's begins and ends in every iteration, through the group's repeats")
    func eventsInsideGroups() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var first = linear(duration: 0.5)
        first.beginTime = 0.25
        var second = linear("position.x", from: 0, to: 10, duration: 0.25)
        second.beginTime = 1
        var group = AnimationGroup(animations: [first, second], duration: 2)
        group.timing.repeatCount = 2
        try layer.add(group, forKey: "group")
        ctx.tick(at: 0)
        var times: [Double] = []
        while let t = ctx.nextEventTime, times.count < 20 {
            times.append(t)
            ctx.tick(at: t)
        }
        // first: 0.25–0.75, second: 1–1.25 in each of the two iterations, which starts its
        // children over at 2; the group ends at 4.
        #expect(times == [0.25, 0.75, 1, 1.25, 2, 2.25, 2.75, 3, 3.25, 4])
        #expect(ctx.isSettled)
    }

    @Test("§3, §7 inside a group with a timing function: a child's begin where the curve reaches it")
    func eventsThroughGroupCurve() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var child = linear(duration: 0.5)
        child.beginTime = 1
        var group = AnimationGroup(animations: [child], duration: 2)
        group.timingFunction = .easeInEaseOut
        try layer.add(group, forKey: "group")
        ctx.tick(at: 0)
        let begin = try #require(ctx.nextEventTime)
        // easeInEaseOut is symmetric: its output is half way at half the time.
        #expect(abs(begin - 1) < 1e-9)
        let groupTiming = GroupTiming(timing: group.timing, timingFunction: group.timingFunction)
        let end = try #require({ () -> Double? in ctx.tick(at: begin); return ctx.nextEventTime }())
        #expect(abs((groupTiming.childTime(atParentTime: end).childTime ?? 0) - 1.5) < 1e-9)
    }

    @Test("jumping from event to event runs a tree to its end: no phase changes between two events")
    func jumpingMissesNothing() throws {
        var rng = SplitMix64(seed: 7)
        for round in 0..<40 {
            let layers = (0..<4).map { _ in Layer() }
            let ctx = context(with: layers[0], layers[1], layers[2], layers[3])
            layers[1].speed = [0.5, 2, 1.5][round % 3]
            layers[2].timeOffset = 0.375
            var added: [(layer: Layer, animation: any Animation)] = []
            for (i, layer) in layers.enumerated() {
                var a = linear(duration: Double.random(in: 0.1...2, using: &rng))
                a.beginTime = Double.random(in: 0...3, using: &rng)
                a.autoreverses = i % 2 == 0
                a.repeatCount = [0, 1.5, 3][i % 3]
                var c = linear("position.y", duration: Double.random(in: 0.1...1, using: &rng))
                c.beginTime = Double.random(in: 0...1, using: &rng)
                c.speed = round % 4 == 3 ? -1 : 1
                var inner = linear("position.x", duration: Double.random(in: 0.1...0.5, using: &rng))
                inner.beginTime = Double.random(in: 0...0.5, using: &rng)
                var nested = AnimationGroup(animations: [inner], duration: Double.random(in: 0.3...1, using: &rng))
                nested.timing.beginTime = round % 6 == 0 ? 0 : Double.random(in: 0...0.5, using: &rng)
                nested.timing.repeatCount = 1.5
                nested.timing.autoreverses = round % 2 == 0
                var g = AnimationGroup(animations: round % 3 == 0 ? [c, nested] : [c], duration: Double.random(in: 0.5...2, using: &rng))
                g.timing.beginTime = Double.random(in: 0...3, using: &rng)
                g.timing.repeatCount = 2
                g.timing.autoreverses = i % 2 == 1
                g.timing.timeOffset = round % 5 == 4 ? Double.random(in: 0...0.5, using: &rng) : 0
                g.timingFunction = i == 3 ? [.easeIn, .easeInEaseOut, try TimingFunction(controlPoints: 0.3, -0.6, 0.7, 1.6)][round % 3] : nil
                try layer.add(a, forKey: "a")
                try layer.add(g, forKey: "g")
                added.append((layer, a))
                added.append((layer, g))
            }
            // What a frame would see at time t: every top-level phase and every child's phase,
            // through each of its groups.
            func signature(_ t: Double) -> [String] {
                added.flatMap { entry -> [String] in
                    let local = entry.layer.convertTime(t, from: nil)
                    var out = ["\(ReferenceEvaluator.phase(of: entry.animation, at: local))"]
                    for leaf in entry.animation.leaves where !leaf.groups.isEmpty {
                        var time: Double? = local
                        var phases: [String] = []
                        for group in leaf.groups {
                            guard let parent = time else { break }
                            let (state, child) = group.childTime(atParentTime: parent)
                            phases.append("\(state.phase)")
                            time = child
                        }
                        phases.append(time.map { "\(leaf.animation.timing.state(atParentTime: $0).phase)" } ?? "-")
                        out.append(phases.joined(separator: "/"))
                    }
                    return out
                }
            }
            var previous = ctx.currentTime
            var steps = 0
            while let t = ctx.nextEventTime, steps < 200 {
                #expect(t > previous)
                let before = signature(previous)
                for k in 1...7 {
                    let sample = previous + (t - previous) * Double(k) / 8
                    #expect(signature(sample) == before, "round \(round): a change between \(previous) and \(t) at \(sample)")
                }
                ctx.tick(at: t)
                previous = t
                steps += 1
            }
            #expect(ctx.isSettled)
            #expect(steps < 200)
        }
    }
}

