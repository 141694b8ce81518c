import AnimationBatch
import AnimationCore
import CAllocationCounter
@testable import LayerTree
import Testing

/// Writes the model in `animationDidStop`, the seed's pattern.
final class ModelWriter: AnimationDelegate {
    let layer: Layer
    var stops = 0
    init(_ layer: Layer) { self.layer = layer }
    func animationDidStop(_ animation: any Animation, finished: Bool) {
        stops += 1
        guard finished, let basic = animation as? BasicAnimation, let to = basic.toValue else { return }
        Transaction.begin()
        Transaction.setDisableActions(true)
        layer.setValue(to, forKey: basic.keyPath)
        Transaction.commit()
        // And start the next leg from inside the callback.
        try? layer.add(BasicAnimation(keyPath: "position.x", from: 0.0, to: 10.0, duration: 1), forKey: "next")
    }
}

@Suite("LayerContext: the tick and its callbacks")
struct LayerContextTests {
    @Test("a tick delivers removal stops first, then starts, then finishes, each in add order; completions last")
    func callbackOrder() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        let sink = LogSink()
        try layer.add(opacityFade(duration: 10), forKey: "removed2", delegate: SharedLog("r2", sink))
        try layer.add(opacityFade(duration: 10), forKey: "removed1", delegate: SharedLog("r1", sink))
        ctx.tick(at: 0.1)
        sink.lines = []
        layer.removeAnimation(forKey: "removed1")
        layer.removeAnimation(forKey: "removed2")
        Transaction.begin()
        Transaction.setCompletionBlock { sink.lines.append("completion") }
        try layer.add(BasicAnimation(keyPath: "position.x", from: 0.0, to: 1.0, duration: 0.05), forKey: "b",
                      delegate: SharedLog("b", sink))
        try layer.add(BasicAnimation(keyPath: "position.y", from: 0.0, to: 1.0, duration: 0.05), forKey: "a",
                      delegate: SharedLog("a", sink))
        try layer.add(BasicAnimation(keyPath: "bounds.size.width", from: 0.0, to: 1.0, duration: 5), forKey: "c",
                      delegate: SharedLog("c", sink))
        Transaction.commit()
        layer.removeAnimation(forKey: "c")
        ctx.tick(at: 0.2)
        #expect(sink.lines == ["r1 stop false", "r2 stop false", "c stop false", "b start", "a start",
                               "b stop true", "a stop true", "completion"])
    }

    @Test("a didStop that writes the model and adds the next animation (the seed's pattern)")
    func didStopWritesModel() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        let writer = ModelWriter(layer)
        var a = BasicAnimation(keyPath: "opacity", from: 1.0, to: 0.2, duration: 1)
        a.fillMode = .forwards
        try layer.add(a, forKey: "fade", delegate: writer)
        ctx.tick(at: 0.5)
        ctx.tick(at: 1.5)
        #expect(writer.stops == 1)
        #expect(layer.opacity == 0.2)
        #expect(layer.animationKeys() == ["next"])
        #expect(layer.animation(forKey: "next")?.beginTime == 1.5, "added at the tick's time")
        ctx.tick(at: 2)
        #expect(layer.presentation()?.opacity == 0.2)
        #expect(near(layer.presentation()?.position.x, 5))
    }

    @Test("callbacks are the same on one thread and on many")
    func deterministicAcrossThreads() throws {
        func run(threads: Int) throws -> [String] {
            freshTransactions()
            let ctx = LayerContext(configuration: FrameEvaluator.Configuration(parallelThreshold: 0, chunksPerBatch: 4,
                                                                                maximumThreads: threads))
            let sink = LogSink()
            for i in 0..<200 {
                let layer = Layer()
                ctx.rootLayer.addSublayer(layer)
                var a = BasicAnimation(keyPath: i % 2 == 0 ? "opacity" : "position")
                a.fromValue = i % 2 == 0 ? .scalar(0) : .point(.zero)
                a.toValue = i % 2 == 0 ? .scalar(1) : .point(Point(x: 1, y: 1))
                a.duration = 0.1 + Double(i % 7) * 0.05
                a.beginTime = Double(i % 5) * 0.03
                try layer.add(a, forKey: "a", delegate: SharedLog("\(i)", sink))
            }
            for k in 0..<20 { ctx.tick(at: Double(k) * 0.03) }
            return sink.lines
        }
        let one = try run(threads: 1)
        #expect(one.count == 400)
        #expect(try run(threads: 3) == one)
    }

    @Test("bulk reads through slot(of:forKey:) give the presentation copies' values")
    func bulkReads() throws {
        let ctx = context()
        var layers: [Layer] = []
        for i in 0..<50 {
            let layer = Layer()
            ctx.rootLayer.addSublayer(layer)
            try layer.add(BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: Double(i), y: 1), duration: 1), forKey: "m")
            layers.append(layer)
        }
        ctx.tick(at: 0.5)
        for layer in layers {
            let slot = try #require(ctx.slot(of: layer, forKey: "position"))
            let components = try #require(ctx.store.presentationComponents(of: slot))
            let p = try #require(layer.presentation()?.position)
            #expect(components[0] == p.x && components[1] == p.y)
        }
        #expect(ctx.evaluator.changedSlots.count >= 50)
        #expect(ctx.layerCount == 51)
    }

    /// Removes layers and animations from inside its stop callback (during a tick).
    final class Remover: AnimationDelegate {
        var starts = 0, stops = 0
        let action: () -> Void
        init(_ action: @escaping () -> Void) { self.action = action }
        func animationDidStart(_ animation: any Animation) { starts += 1 }
        func animationDidStop(_ animation: any Animation, finished: Bool) {
            stops += 1
            action()
        }
    }

    @Test("a delegate that removes layers and animations from its callback during a tick: every animation stops once, the tree and engine end empty")
    func removalsFromCallbacksDuringATick() throws {
        let a = Layer(), b = Layer(), c = Layer()
        let ctx = context(with: a, b, c)
        // a's animation ends first; its stop removes layer b (cancelling b's two animations) and c's animation.
        let first = Remover { b.removeFromSuperlayer(); c.removeAnimation(forKey: "fade") }
        // b's animations, cancelled from inside a's callback, remove a and then b again (a no-op).
        let second = Remover { a.removeFromSuperlayer() }
        let third = Remover { b.removeFromSuperlayer(); b.removeAllAnimations() }
        let fourth = Remover { c.removeFromSuperlayer() }
        let delegates = [first, second, third, fourth]
        try a.add(BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 0.5), forKey: "fade", delegate: first)
        try b.add(BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 5), forKey: "fade", delegate: second)
        try b.add(BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 9, y: 9), duration: 5),
                  forKey: "move", delegate: third)
        try c.add(BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 5), forKey: "fade", delegate: fourth)
        ctx.tick(at: 0.25)
        #expect(delegates.allSatisfy { $0.starts == 1 && $0.stops == 0 })
        ctx.tick(at: 1)   // a finishes: its callback removes b and c's animation
        #expect(first.stops == 1)
        ctx.tick(at: 1.1)
        ctx.tick(at: 1.2)
        #expect(delegates.map(\.stops) == [1, 1, 1, 1], "each told its stop once")
        #expect(delegates.allSatisfy { $0.starts == 1 })
        #expect(a.superlayer == nil && b.superlayer == nil && c.superlayer == nil)
        #expect(ctx.layerCount == 1 && ctx.store.animationCount == 0 && ctx.store.trackCount == 0)
    }

    @Test("a time that is not finite is ignored")
    func nonFiniteTime() {
        let ctx = context()
        ctx.tick(at: .nan)
        ctx.tick(at: .infinity)
        #expect(ctx.currentTime == 0 && ctx.tickCount == 1)
    }

    /// Optimised builds only: unoptimised generic code allocates temporaries. Skipped where the
    /// counter is compiled out (off glibc, under a sanitizer).
    @Test("a steady-state tick allocates nothing (optimised builds)",
          .enabled(if: LayerTreeTestScale.isFull && allocation_counter_available() == 1))
    func steadyStateTickDoesNotAllocate() throws {
        let ctx = context()
        for i in 0..<500 {
            let layer = i % 2 == 0 ? Layer() : ShapeLayer()
            ctx.rootLayer.addSublayer(layer)
            var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)
            a.repeatCount = .infinity
            try layer.add(a, forKey: "a", delegate: Recorder())
        }
        ctx.tick(at: 0.1)
        ctx.tick(at: 0.2)
        allocation_counter_include_thread(1)
        defer { allocation_counter_include_thread(0) }
        allocation_counter_start_included_threads()
        for k in 0..<30 { ctx.tick(at: 0.3 + Double(k) / 60) }
        let count = allocation_counter_stop()
        #expect(count == 0, "\(count) allocations in 30 ticks")
    }

    /// The ticks in which implicit animations finish park them under their keys (the store's
    /// layer records change in place): those ticks allocate nothing either, once the keys exist.
    @Test("§10 ticks that finish and park implicit animations allocate nothing (optimised builds)",
          .enabled(if: LayerTreeTestScale.isFull && allocation_counter_available() == 1))
    func parkingTicksDoNotAllocate() throws {
        freshTransactions()
        let ctx = context()
        let layers = (0..<300).map { i -> Layer in i % 2 == 0 ? Layer() : ShapeLayer() }
        for layer in layers { ctx.rootLayer.addSublayer(layer) }
        var t = 0.0
        ctx.tick(at: t)
        var counted = 0
        for round in 0..<4 {
            for layer in layers { layer.opacity = round % 2 == 0 ? 0.5 : 1 }   // each runs its default action
            t += 1.0 / 60
            ctx.tick(at: t)   // commits: the animations begin
            if round >= 2 {   // keys, records and parked tables exist from the first rounds
                allocation_counter_include_thread(1)
                allocation_counter_start_included_threads()
            }
            for _ in 0..<30 {   // 0.5 s: every 0.25 s animation finishes and is parked
                t += 1.0 / 60
                ctx.tick(at: t)
            }
            if round >= 2 {
                let count = allocation_counter_stop()
                allocation_counter_include_thread(0)
                #expect(count == 0, "\(count) allocations in the ticks of round \(round)")
                counted += 1
            }
        }
        #expect(counted == 2)
        #expect(ctx.store.parkedAnimationCount == layers.count, "every layer's animation was parked")
    }
}

enum LayerTreeTestScale {
    #if DEBUG
    static let isFull = false
    #else
    static let isFull = true
    #endif
}
