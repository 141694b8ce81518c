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

@Suite("Steady-state frames allocate nothing (design.md)")
struct AllocationTests {
    @Test("the counter sees allocations")
    func counterWorks() {
        guard allocation_counter_available() == 1 else { return }
        allocation_counter_start()
        let array = [Int](repeating: 1, count: 1000)
        let count = allocation_counter_stop()
        #expect(array.count == 1000 && count >= 1)
    }

    /// Optimised builds only (`.ci/run` runs `swift test -c release`): unoptimised SIMD and generic
    /// code allocates temporaries that the optimiser removes.
    @Test("a steady-state frame makes zero heap allocations, on one thread and on all cores (optimised builds)",
          .enabled(if: TestScale.isFull))
    func steadyStateFramesDoNotAllocate() throws {
        guard allocation_counter_available() == 1 else { return }
        let scene = try Scene(seed: 5, layers: TestScale.count(debug: 100, release: 3_000))
        // Only this thread and the evaluator's workers count: other tests run concurrently.
        allocation_counter_include_thread(1)
        defer { allocation_counter_include_thread(0) }
        let started = Atomic<Int>(0)
        for threads in [1, 0] {
            // Steady state: nothing added or removed between these frames, so reaping is off (a
            // frame that reaps changes the store; reconfiguring a composed slot's remaining
            // tracks still allocates, see the AnimationBatch overview).
            let configuration = FrameEvaluator.Configuration(parallelThreshold: 0, chunksPerBatch: 4, maximumThreads: threads,
                                                             reapsFinishedAnimations: false) { _ in
                allocation_counter_include_thread(1)
                started.add(1, ordering: .relaxed)
            }
            let evaluator = FrameEvaluator(store: scene.store, configuration: configuration)
            evaluator.evaluate(at: 0)   // plans and warms up
            evaluator.evaluate(at: 0.1)
            var total = 0
            for k in 0..<30 {
                allocation_counter_start_included_threads()
                evaluator.evaluate(at: 0.2 + Double(k) / 30)
                total += allocation_counter_stop()
            }
            #expect(total == 0, "\(total) allocations in 30 frames with maximumThreads = \(threads)")
        }
        // The workers (one fewer than the processors) started and were counted.
        #expect(started.load(ordering: .relaxed) == WorkerPoolInfo.processorCount - 1)
    }
}
