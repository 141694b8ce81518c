import AnimationBatch
import AnimationCore
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
