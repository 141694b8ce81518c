import CKernelSupport
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Work split into numbered chunks that write disjoint outputs (package-wide: AnimationLottie's
/// ticks run on the same pool design).
package protocol ParallelJob: AnyObject {
    func runChunk(_ index: Int)
    /// Runs chunk `index` on thread `thread` (0 the caller, 1… the workers): for jobs that keep
    /// working memory per thread rather than per chunk.
    func runChunk(_ index: Int, thread: Int)
}

extension ParallelJob {
    package func runChunk(_ index: Int, thread: Int) { runChunk(index) }
}

/// Persistent worker threads for the frame's chunks.
///
/// `DispatchQueue.concurrentPerform` — the natural tool — allocates on every call on Linux
/// (measured here: 2–4 heap blocks per call, the same with the C `dispatch_apply_f`), which breaks
/// the zero-allocation frame (docs/architecture.md). This pool creates its threads once. A run publishes its
/// job by bumping an epoch; every thread (the caller too) takes chunk indices from an atomic
/// counter until none are left, and the caller waits for the workers to count themselves out.
/// Nothing allocates per run. Which thread runs which chunk varies; the results do not, since
/// chunks write disjoint ranges.
///
/// **Waking.** Between runs a worker spins on the epoch for ``spinNanoseconds`` and then sleeps on
/// its own semaphore. A frame runs two or three stages back to back, and waking a sleeping thread
/// takes tens of microseconds on a shared VM: with every stage's wake-up paid in full, W3's frame
/// (10,000 seed layers, 0.28 ms on one thread) took 0.36–0.41 ms on two. ``prepare()`` wakes
/// sleeping workers early, so that they are spinning by the time the first stage is posted.
/// Going to sleep is race-free: a worker marks itself asleep and then re-reads the epoch, the
/// caller bumps the epoch and then takes each worker's mark (both sequentially consistent): at
/// least one of them sees the other, and a signal is posted exactly when a worker will wait for it.
///
/// `@unchecked Sendable`: the pool's own fields are the caller's; what threads share is `Shared`'s.
package final class WorkerPool: @unchecked Sendable {
    /// Threads besides the caller.
    package let workerCount: Int
    /// How long an idle worker spins before it sleeps: long enough to span the gaps between a
    /// frame's stages, short enough to cost a frame every 16 ms well under 1 % of a core.
    static let spinNanoseconds: UInt64 = 100_000

    /// What the threads share. The threads hold it, never the pool: a thread that held the pool
    /// (a method of the pool running on it holds its `self`) kept it alive, so its deinit, which
    /// stops and joins the threads, never ran — every pool leaked its threads.
    private let shared: Shared
    private var threads: [pthread_t] = []

    /// The number of processors online.
    package static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    package init(workers: Int, onStart: (@Sendable (Int) -> Void)? = nil) {
        workerCount = max(0, workers)
        shared = Shared(workers: workerCount, onStart: onStart)
        for k in 0..<workerCount {
            var thread = pthread_t()
            // The box is released by the thread; it holds the shared state (see Box).
            let context = Unmanaged.passRetained(Box(shared: shared, index: k)).toOpaque()
            #if canImport(Glibc)
            pthread_create(&thread, nil, { context in
                let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
                box.shared.workerLoop(box.index)
                return nil
            }, context)
            #else
            pthread_create(&thread, nil, { context in
                // Balances the passRetained above: this thread is the box's only taker.
                let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
                box.shared.workerLoop(box.index)
                return nil
            }, context)
            #endif
            threads.append(thread)
        }
    }

    /// A worker thread's start argument.
    private final class Box {
        let shared: Shared
        let index: Int
        init(shared: Shared, index: Int) {
            self.shared = shared
            self.index = index
        }
    }

    /// Stops the workers and waits for them to end: no thread outlives its pool.
    deinit {
        shared.stop()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Wakes the workers that sleep, so that they spin again: called when a run is near (a frame
    /// begins), to take the wake-up's latency off the first stage.
    package func prepare() {
        shared.wakeSleepers()
    }

    /// Runs jobs `0..<count` on the caller and the workers; returns when all are done.
    package func run(_ count: Int, job: any ParallelJob) {
        shared.run(count, job: job)
    }

    /// The pool's state, shared by the caller and the worker threads.
    ///
    /// `@unchecked Sendable`: threads share only atomics, semaphores and the job fields, which the
    /// caller writes before the epoch's sequentially consistent bump and workers read after seeing it.
    private final class Shared: @unchecked Sendable {
        private final class Worker: Sendable {
            /// 1 while the worker sleeps (or is about to) on `wake`; 0 otherwise.
            let asleep = Atomic<Int>(0)
            let wake = DispatchSemaphore(value: 0)
        }

        private let workers: [Worker]
        /// Bumped once per run (and to stop): workers run a job when it moves.
        private let epoch = Atomic<Int>(0)
        /// Workers that have not yet finished the current run.
        private let remaining = Atomic<Int>(0)
        private let next = Atomic<Int>(0)
        private let stopping = Atomic<Bool>(false)
        // Written by the caller before the epoch moves, read by workers after they see it move.
        private var jobCount = 0
        private var runner: (any ParallelJob)?
        /// Called on each worker thread as it starts, with its number (1, 2, …; the caller is 0).
        private let onStart: (@Sendable (Int) -> Void)?
        private let started = Atomic<Int>(0)

        init(workers: Int, onStart: (@Sendable (Int) -> Void)?) {
            self.workers = (0..<workers).map { _ in Worker() }
            self.onStart = onStart
        }

        func stop() {
            stopping.store(true, ordering: .sequentiallyConsistent)
            epoch.wrappingAdd(1, ordering: .sequentiallyConsistent)
            wakeSleepers()
        }

        func run(_ count: Int, job: any ParallelJob) {
            runner = job
            jobCount = count
            next.store(0, ordering: .relaxed)
            remaining.store(workers.count, ordering: .relaxed)
            epoch.wrappingAdd(1, ordering: .sequentiallyConsistent)   // publishes the fields above
            wakeSleepers()
            work(thread: 0)
            // The workers are running their last chunks: wait for them without sleeping, yielding the
            // core now and then in case one of them was descheduled.
            var spins = 0
            while remaining.load(ordering: .acquiring) > 0 {
                spins += 1
                if spins & 255 == 0 { sched_yield() } else { animation_cpu_relax() }
            }
            runner = nil
        }

        func wakeSleepers() {
            for worker in workers where worker.asleep.exchange(0, ordering: .sequentiallyConsistent) == 1 {
                worker.wake.signal()
            }
        }

        private func work(thread: Int) {
            while true {
                let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard k < jobCount, let runner else { return }
                runner.runChunk(k, thread: thread)
            }
        }

        func workerLoop(_ index: Int) {
            let number = started.wrappingAdd(1, ordering: .relaxed).oldValue + 1
            onStart?(number)
            let worker = workers[index]
            var seen = 0
            while true {
                waitForEpoch(after: seen, worker: worker)
                seen = epoch.load(ordering: .acquiring)
                if stopping.load(ordering: .acquiring) { return }
                work(thread: index + 1)
                remaining.wrappingSubtract(1, ordering: .releasing)
            }
        }

        /// Returns once the epoch differs from `seen`: spinning first, then sleeping until woken.
        private func waitForEpoch(after seen: Int, worker: Worker) {
            while true {
                let deadline = DispatchTime.now().uptimeNanoseconds + WorkerPool.spinNanoseconds
                var spins = 0
                while epoch.load(ordering: .acquiring) == seen {
                    spins += 1
                    if spins & 63 == 0 && DispatchTime.now().uptimeNanoseconds > deadline { break }
                    animation_cpu_relax()
                }
                if epoch.load(ordering: .acquiring) != seen { return }
                worker.asleep.store(1, ordering: .sequentiallyConsistent)
                if epoch.load(ordering: .sequentiallyConsistent) != seen {
                    // A run began meanwhile. If its caller took the mark already, it signalled (or
                    // will): consume that signal so that it does not wake a later sleep.
                    if worker.asleep.exchange(0, ordering: .sequentiallyConsistent) == 0 { worker.wake.wait() }
                    return
                }
                worker.wake.wait()
                // Woken for a run, to stop, or by prepare(): spin again (the loop re-reads the epoch).
            }
        }
    }
}
