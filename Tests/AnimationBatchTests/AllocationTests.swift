import AnimationBatch
import AnimationCore
import AnimationWorkloads
import CAllocationCounter
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

enum WorkerPoolInfo {
    static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

// Serialized: the counter is one for the process, so two of these tests at once would count each
// other's allocations. Skipped (not passed) where the counter is compiled out: off glibc, and under
// a sanitizer, whose runtime owns malloc.
@Suite("Steady-state frames allocate nothing (docs/architecture.md)", .serialized)
struct AllocationTests {
    @Test("the counter sees allocations", .enabled(if: allocation_counter_available() == 1))
    func counterWorks() {
        allocation_counter_start()
        let array = [Int](repeating: 1, count: 1000)
        let count = allocation_counter_stop()
        #expect(array.count == 1000 && count >= 1)
    }

    /// Optimised builds only (`.ci/run` runs `swift test -c release`): unoptimised SIMD and generic
    /// code allocates temporaries that the optimiser removes.
    @Test("a steady-state frame makes zero heap allocations, on one thread and on all cores, with and without velocities (optimised builds)",
          .enabled(if: TestScale.isFull && allocation_counter_available() == 1))
    func steadyStateFramesDoNotAllocate() throws {
        let scene = try Scene(seed: 5, layers: TestScale.count(debug: 100, release: 3_000))
        // Only this thread and the evaluator's workers count: other tests run concurrently.
        allocation_counter_include_thread(1)
        defer { allocation_counter_include_thread(0) }
        let started = Atomic<Int>(0)
        for (threads, velocities) in [(1, false), (1, true), (0, false), (0, true)] {
            // Steady state: nothing added or removed between these frames, so reaping is off (the
            // churn test below counts frames that reap).
            let configuration = FrameEvaluator.Configuration(parallelThreshold: 0, chunksPerBatch: 4, maximumThreads: threads,
                                                             reapsFinishedAnimations: false, workerStarted: { _ in
                allocation_counter_include_thread(1)
                started.add(1, ordering: .relaxed)
            }, computesVelocity: velocities)
            let evaluator = FrameEvaluator(store: scene.store, configuration: configuration)
            evaluator.evaluate(at: 0)   // plans and warms up
            evaluator.evaluate(at: 0.1)
            var total = 0
            for k in 0..<30 {
                allocation_counter_start_included_threads()
                evaluator.evaluate(at: 0.2 + Double(k) / 30)
                total += allocation_counter_stop()
            }
            #expect(total == 0, "\(total) allocations in 30 frames with maximumThreads = \(threads), velocities \(velocities)")
        }
        // The workers (one fewer than the processors, per evaluator on all cores) started and were counted.
        #expect(started.load(ordering: .relaxed) == 2 * (WorkerPoolInfo.processorCount - 1))
    }

    /// Churn: every round adds the same animations again (removed on completion, begun at the
    /// round's start), replaces and removes some between frames, lets frames reap the finished
    /// ones and removes what repeats for ever. Only the frames are counted — adding compiles and
    /// allocates — from the fourth round on, when every capacity has been reached (measured: the third
    /// round's frames still made two allocations, capacities growing).
    @Test("frames after churn — reaping, adds, replacements, removals — allocate nothing once capacities are reached (optimised builds)",
          .enabled(if: TestScale.isFull && allocation_counter_available() == 1))
    func churnFramesDoNotAllocate() throws {
        var random = RandomAnimations(seed: 9)
        let layers = (0..<TestScale.count(debug: 60, release: 1_500)).map { random.layer(LayerID(UInt64($0 + 1))) }
        let store = TrackStore()
        for layer in layers {
            for (property, value) in layer.model { try store.setModelValue(value, layer: layer.layer, property: property) }
        }
        allocation_counter_include_thread(1)
        defer { allocation_counter_include_thread(0) }
        let evaluator = FrameEvaluator(store: store, configuration: .init(parallelThreshold: 0, chunksPerBatch: 4, maximumThreads: 1))
        var counted = 0, reaped = 0, total = 0
        for round in 0..<6 {
            let start = Double(round) * 20
            var handles: [AnimationHandle] = []
            for layer in layers {
                for animation in layer.animations {
                    var a = animation
                    a.isRemovedOnCompletion = true
                    a.timing.beginTime += start
                    handles.append(try store.add(a, layer: layer.layer))
                }
            }
            for (k, handle) in handles.enumerated() {
                if k % 10 == 3, let animation = store.animation(handle) { try store.replace(handle, with: animation) }
                if k % 7 == 5 { store.remove(handle) }
            }
            for f in 0..<160 {
                let before = store.animationCount
                allocation_counter_start_included_threads()
                evaluator.evaluate(at: start + Double(f) / 8)
                let allocations = allocation_counter_stop()
                if round >= 3 {
                    total += allocations
                    counted += 1
                    reaped += before - store.animationCount
                }
            }
            for layer in layers { store.removeAllAnimations(layer: layer.layer) }
            evaluator.evaluate(at: start + 20)
        }
        #expect(reaped > 0, "the counted frames reaped animations")
        #expect(total == 0, "\(total) allocations in \(counted) frames after churn")
    }
}
