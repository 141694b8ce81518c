import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Foundation
import Testing

/// The worker pool (Support/WorkerPool.swift) under frames that come back to back (workers still
/// spinning), after pauses longer than the spin (workers asleep, woken by the frame), and with
/// more threads than cores: every frame's values are the one-thread frame's, bit for bit.
@Suite("WorkerPool: spinning, sleeping and waking between frames")
struct WorkerPoolTests {
    @Test("frames after pauses of every length give the one-thread bits, with more threads than cores")
    func pausesDoNotChangeResults() throws {
        let reference = try Scene(seed: 7, layers: TestScale.count(debug: 40, release: 1_000))
        let pooled = try Scene(seed: 7, layers: TestScale.count(debug: 40, release: 1_000))
        let alone = FrameEvaluator(store: reference.store, configuration: .init(parallelThreshold: 0, chunksPerBatch: 1, maximumThreads: 1))
        let threads = ProcessInfo.processInfo.activeProcessorCount + 2
        let parallel = FrameEvaluator(store: pooled.store, configuration: .init(parallelThreshold: 0, chunksPerBatch: 8, maximumThreads: threads))
        let slots = reference.store.allSlots
        let pooledSlots = slots.map { pooled.store.slot(layer: reference.store.key(of: $0)!.layer, property: reference.store.key(of: $0)!.property)! }
        // Pauses in microseconds: none (spinning), around the spin (the race between going to
        // sleep and a new run), far beyond it (asleep).
        let pauses: [UInt32] = [0, 0, 50, 100, 120, 150, 0, 300, 2_000, 0, 90, 110, 5_000, 0]
        for (k, pause) in (pauses + pauses).enumerated() {
            if pause > 0 { usleep(pause) }
            let t = 0.05 + Double(k) * 0.13
            alone.evaluate(at: t)
            parallel.evaluate(at: t)
            for (s, p) in zip(slots, pooledSlots) {
                #expect(alone.value(of: s)!.components.map(\.bitPattern) == parallel.value(of: p)!.components.map(\.bitPattern),
                        "frame \(k) after \(pause) µs")
            }
            #expect(Array(alone.events).count == Array(parallel.events).count)
        }
    }
}

@Suite("Group nodes in parallel chunks (FrameEvaluator)")
struct ParallelNodeTests {
    /// `layers` layers each with a group (half of them nested, some finishing, some removed on
    /// completion) animating opacity and position.
    private func store(layers: Int) throws -> TrackStore {
        let store = TrackStore()
        var rng = SplitMix64(seed: 808)
        for k in 0..<layers {
            let layer = LayerID(UInt64(k + 1))
            try store.setModelValue(1, layer: layer, property: "opacity")
            try store.setModelValue(.point(.zero), layer: layer, property: "position")
            let fade = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: Double.random(in: 0.2...1.5, using: &rng))
            let move = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 100, y: 50),
                                      duration: Double.random(in: 0.2...1.5, using: &rng))
            var inner = AnimationGroup(animations: [move], duration: Double.random(in: 0.5...2, using: &rng))
            inner.beginTime = Double.random(in: 0...0.5, using: &rng)
            var group = AnimationGroup(animations: k % 2 == 0 ? [fade, inner] : [fade, move], duration: Double.random(in: 0.5...2.5, using: &rng))
            group.beginTime = Double.random(in: 0...1, using: &rng)
            group.isRemovedOnCompletion = k % 3 == 0
            try store.add(group, layer: layer)
        }
        return store
    }

    @Test("over a thousand group nodes give the one-thread values and events, in the same order, on every thread count")
    func parallelNodesMatchSerial() throws {
        let layers = 1_200
        var frames: [[[UInt64]]] = [], eventRuns: [[[AnimationEvent]]] = []
        for threads in [1, 2, ProcessInfo.processInfo.activeProcessorCount + 3] {
            let store = try store(layers: layers)
            let evaluator = FrameEvaluator(store: store, configuration: .init(parallelThreshold: 0, maximumThreads: threads))
            var values: [[UInt64]] = [], events: [[AnimationEvent]] = []
            for t in [0.1, 0.4, 0.9, 1.6, 2.4, 3.5, 5.0] {
                evaluator.evaluate(at: t)
                values.append((1...layers).flatMap { k in
                    ["opacity", "position"].flatMap { evaluator.value(layer: LayerID(UInt64(k)), property: $0)!.components.map(\.bitPattern) }
                })
                events.append(Array(evaluator.events))
            }
            frames.append(values)
            eventRuns.append(events)
        }
        #expect(frames.allSatisfy { $0 == frames[0] })
        #expect(eventRuns.allSatisfy { $0 == eventRuns[0] })
        let kinds = Set(eventRuns[0].joined().map(\.kind))
        #expect(kinds.contains(.started) && kinds.contains(.stopped))
    }
}
