import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Work split into numbered chunks that write disjoint outputs.
protocol ParallelJob: AnyObject {
    func runChunk(_ index: Int)
}

/// Persistent worker threads for the frame's chunks.
///
/// `DispatchQueue.concurrentPerform` — the natural tool — allocates on every call on Linux
/// (measured here: 2–4 heap blocks per call, the same with the C `dispatch_apply_f`), which breaks
/// the zero-allocation frame (design.md). This pool creates its threads once; a frame posts one
/// semaphore per worker, every thread (the caller too) takes chunk indices from an atomic counter
/// until none are left, and the caller waits for the workers' completion posts. Nothing allocates
/// per frame. Which thread runs which chunk varies; the results do not, since chunks write disjoint
/// ranges.
final class WorkerPool: @unchecked Sendable {
    /// Threads besides the caller.
    let workerCount: Int
    private let start = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let next = Atomic<Int>(0)
    private var jobCount = 0
    private var stopping = false
    private var runner: (any ParallelJob)?
    private var threads: [pthread_t] = []

    /// The number of processors online.
    static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Called on each worker thread as it starts, with its number (1, 2, …; the caller is 0).
    private let onStart: (@Sendable (Int) -> Void)?
    private let started = Atomic<Int>(0)

    init(workers: Int, onStart: (@Sendable (Int) -> Void)? = nil) {
        self.onStart = onStart
        workerCount = max(0, workers)
        for _ in 0..<workerCount {
            var thread = pthread_t()
            let context = Unmanaged.passUnretained(self).toOpaque()
            #if canImport(Glibc)
            pthread_create(&thread, nil, { context in
                Unmanaged<WorkerPool>.fromOpaque(context!).takeUnretainedValue().workerLoop()
                return nil
            }, context)
            #else
            pthread_create(&thread, nil, { context in
                Unmanaged<WorkerPool>.fromOpaque(context).takeUnretainedValue().workerLoop()
                return nil
            }, context)
            #endif
            threads.append(thread)
        }
    }

    deinit {
        stopping = true
        for _ in 0..<workerCount { start.signal() }
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Runs jobs `0..<count` on the caller and the workers; returns when all are done.
    func run(_ count: Int, job: any ParallelJob) {
        self.runner = job
        jobCount = count
        next.store(0, ordering: .relaxed)
        let helpers = min(workerCount, max(0, count - 1))
        for _ in 0..<helpers { start.signal() }
        work()
        for _ in 0..<helpers { done.wait() }
        self.runner = nil
    }

    private func work() {
        while true {
            let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard k < jobCount, let runner else { return }
            runner.runChunk(k)
        }
    }

    private func workerLoop() {
        let number = started.wrappingAdd(1, ordering: .relaxed).oldValue + 1
        onStart?(number)
        while true {
            start.wait()
            if stopping { return }
            work()
            done.signal()
        }
    }
}
