import AnimationCore
import CKernelSupport
import Dispatch
import Synchronization

/// Evaluates a ``TrackStore`` at a time: every output slot's presentation value, the slots whose
/// value changed, and the frame's events (docs/architecture.md, "Chunks over cores").
///
/// A frame takes the store's plan, brought up to date with the changes since the last frame
/// (O(what changed), never a replan of everything), as one value — the batches, the time nodes
/// and the layers' clock pass, the composition plan, the presentation table — and reads nothing
/// else of the store until it reports what finished. It runs four stages: group timing nodes (parents first, scalar; semantics §2.7, §7); the kernels over every
/// batch, cut into contiguous chunks of whole 16-track blocks (64-byte aligned, so no two chunks
/// share a cache line), each chunk then copying its exclusive tracks' values into the store's
/// presentation table while they are in cache, counting the slots it will list and collecting its
/// tracks' events, each into its own region; composition of the other animated slots (model and
/// animations in add order, §8.4), cut into chunks the same way, beside which each kernel chunk
/// writes its slots to their place in the change list; then the chunks' events and the
/// composition chunks' changes are put in chunk order, and
/// the animations the frame finished that are removed on completion are reaped from the store
/// (§1.4). Chunks write disjoint ranges, so the results — values, changes and events, in the same
/// order — are bit-identical for any chunk or thread count. Below
/// ``Configuration/parallelThreshold`` tracks one thread runs everything; above it the chunks run
/// on every core (``Configuration/Scheduler``).
///
/// With the worker pool a frame allocates nothing once the store's capacities are reached —
/// frames that reap and frames after adds and removals included: plans, event and change storage
/// and scratch grow only when the store outgrows them.
public final class FrameEvaluator: ParallelJob {
    /// How a frame is cut and run.
    public struct Configuration: Sendable {
        /// Which threads run a frame's chunks.
        public enum Scheduler: Sendable {
            /// The evaluator's own persistent threads (the default): nothing allocates per frame.
            case workerPool
            /// `DispatchQueue.concurrentPerform`: the engine shares Dispatch's threads with the
            /// rest of the application instead of owning threads of its own. On Linux each call
            /// allocates a few blocks, so frames are not allocation-free then.
            case dispatch
        }

        /// Below this many tracks a frame runs on the calling thread alone.
        public var parallelThreshold: Int
        /// Tracks per chunk (rounded to whole 16-track blocks); slots per composition chunk (or
        /// fewer, down to 256, so that each thread has four composition chunks).
        public var chunkSize: Int
        /// When set, every batch is cut into exactly this many chunks (at most one per block), and
        /// the composition stage into as many per kind of work: for tests of chunking invariance.
        public var chunksPerBatch: Int?
        /// The most threads a frame uses (the caller included); 0 means one per processor, 1 forces
        /// the calling thread alone.
        public var maximumThreads: Int
        /// Which threads run the chunks when a frame runs in parallel.
        public var scheduler: Scheduler
        /// Whether a frame removes from the store the animations it finished that are removed on
        /// completion (semantics §1.4, the default: Core Animation's lifecycle, where a finished
        /// animation is gone and its tracks cost nothing more). Off, they stay — showing nothing
        /// after their end, as the rule says — so that a timeline can be sought back and forth
        /// (a scene player). Either way each reports its finish once.
        public var reapsFinishedAnimations: Bool
        /// Whether each frame also computes every slot's velocity, d value/dt per second of frame
        /// time, analytically in the kernels (docs/velocity.md, "the velocity column"), for
        /// ``FrameEvaluator/velocity(of:)`` and the bulk ``FrameEvaluator/velocities(of:)`` to
        /// read. Off (the default), nothing is computed or kept for velocities.
        public var computesVelocity: Bool
        /// Called once on each worker thread when it starts, with its number (1, 2, …; the
        /// calling thread is 0): to name it, set its priority or affinity, or register it with a
        /// profiler. Workers start on the first parallel frame, and again after the configuration
        /// changes. (Not called with ``Scheduler/dispatch``, whose threads are Dispatch's.)
        public var workerStarted: (@Sendable (_ worker: Int) -> Void)?

        /// A configuration; the defaults suit most scenes (one thread below 8,192 tracks: with the
        /// workers spinning between stages, W2 at 10,000 tracks takes 0.077 ms a frame on one thread
        /// and 0.062 ms on two; at 5,000 the same either way).
        public init(parallelThreshold: Int = 8_192, chunkSize: Int = 4_096, chunksPerBatch: Int? = nil, maximumThreads: Int = 0,
                    scheduler: Scheduler = .workerPool, reapsFinishedAnimations: Bool = true,
                    workerStarted: (@Sendable (_ worker: Int) -> Void)? = nil, computesVelocity: Bool = false) {
            self.parallelThreshold = parallelThreshold
            self.chunkSize = chunkSize
            self.chunksPerBatch = chunksPerBatch
            self.maximumThreads = maximumThreads
            self.scheduler = scheduler
            self.reapsFinishedAnimations = reapsFinishedAnimations
            self.computesVelocity = computesVelocity
            self.workerStarted = workerStarted
        }
    }

    /// The store whose tracks this evaluator runs (changes to it are picked up by the next frame).
    public let store: TrackStore
    /// The presentation table's raw arrays, for single reads without reference counting (a
    /// retain and release of the table cost a third of a read): the store owns the table for as
    /// long as it lives, and this evaluator holds the store.
    @usableFromInline let tables: UnsafeMutablePointer<PresentationTable.RawTables>
    /// How frames are cut and run; changing it replans the next frame (and restarts the workers),
    /// except where only ``Configuration/computesVelocity`` changed: that takes effect at the
    /// next frame, nothing else restarting.
    public var configuration: Configuration {
        didSet {
            let old = oldValue, new = configuration
            if old.parallelThreshold == new.parallelThreshold && old.chunkSize == new.chunkSize && old.chunksPerBatch == new.chunksPerBatch
                && old.maximumThreads == new.maximumThreads && old.scheduler == new.scheduler
                && old.reapsFinishedAnimations == new.reapsFinishedAnimations && old.computesVelocity != new.computesVelocity {
                return
            }
            plannedVersion = -1
            pool = nil
        }
    }

    /// Created on the first parallel frame with the worker-pool scheduler; its threads live as
    /// long as the evaluator (or until the configuration changes).
    private var pool: WorkerPool?
    /// The frame being run by the chunks.
    private var frameTime = 0.0
    /// Which stage ``runChunk(_:)`` runs.
    private var stage = Stage.kernels
    private enum Stage { case nodes, kernels, composition, listing }
    /// (batch, first block, end block) of every kernel chunk.
    private var chunks: [(batch: Int32, start: Int32, end: Int32)] = []
    /// Each kernel chunk's room in the change list (16 per block: its first block's place among
    /// the chunks' blocks, times 16), how many slots it lists, and where its list starts
    /// (relative to `changeBase`: the counts before it, once the kernels have run).
    private var chunkChangeOffsets: [Int] = []
    private var chunkChangeCounts: UnsafeMutablePointer<Int>
    /// Per kernel chunk, whether a velocity row it wrote holds a NaN (a frame with velocities).
    private var chunkVelocityMarked: UnsafeMutablePointer<Bool>
    private var chunkListStarts: UnsafeMutablePointer<Int>
    private var chunkChangeCapacity = 1
    /// A mask per kernel block of the lanes to list (``TrackBatch/present(blocks:masks:pending:)``),
    /// at `chunkChangeOffsets[k] / 16` for chunk k.
    private var blockMasks: UnsafeMutablePointer<UInt16>
    private var blockMaskCapacity = 1
    /// The slots' pending marks while any slot is pending this frame, for the kernel chunks' masks.
    private var pendingMarks: UnsafePointer<UInt8>?
    /// The slots the kernel chunks listed this frame.
    private var kernelListed = 0
    private var kernelChangeRegion = 0
    /// (first, end) chunked slots (fast, then transform) of every composition chunk, where each lists its changes (relative
    /// to `changeBase`), and how many it listed.
    private var compositionChunks: [(start: Int, end: Int)] = []
    private var compositionChangeOffsets: [Int] = []
    private var compositionCounts: UnsafeMutablePointer<Int>
    private var compositionCapacity = 1
    private var plannedVersion = -1
    private var plannedFastSlots = -1
    /// The node stage's chunks: (first, end) blocks of the root nodes' batch, and the events each
    /// wrote into its region of `nodeEventStorage` (two per root).
    private var nodeChunks: [(start: Int, end: Int)] = []
    private var nodeEventCounts: UnsafeMutablePointer<Int>
    private var nodeEventCountCapacity = 1
    private var nodeEventStorage: UnsafeMutablePointer<AnimationEvent>
    private var nodeEventCapacity = 1
    /// The table's pointers, with the change list's start, for this frame's chunks.
    private var target: PresentationTarget?
    private var eventStorage: UnsafeMutablePointer<AnimationEvent>
    private var eventCapacity = 0
    private var eventCount = 0
    /// Where each chunk writes its tracks' events this frame, relative to `trackEventBase` (two
    /// per track of the chunk: a start and a finish), and how many it wrote.
    private var chunkEventOffsets: [Int] = []
    private var chunkEventCounts: UnsafeMutablePointer<Int>
    private var chunkCapacity = 1
    /// Events the chunks may write in all (two per track of every chunk).
    private var trackEventRegion = 0
    /// The first slot of the chunks' event regions in `eventStorage` this frame (after the
    /// pending and group events).
    private var trackEventBase = 0
    /// The slots whose value changed in the last frame: pending ones first, then the composition
    /// chunks' (each writes its region at `changeBase + offset`), then general slots'.
    private var changeStorage: UnsafeMutablePointer<SlotHandle>
    private var changeCapacity = 0
    private var changeCount = 0
    private var changeBase = 0
    private let dispatchCounter = ChunkCounter()
    /// What the running frame's chunks read, from its plan (``FramePlan``): set when a frame starts,
    /// let go when it ends, so that nothing of the store's is held between frames (but
    /// `unlistedBatches`, until the list is written or the next frame starts).
    private var batches: [TrackBatch] = []
    /// The last frame's batches while its kernel chunks' part of the change list is unwritten:
    /// ``changedSlots`` writes it when first read, or a batch asks for it before a lane moves or
    /// changes its slot (``TrackBatch/unlistedChanges``). Empty otherwise.
    private var unlistedBatches: [TrackBatch] = []
    private var nodeBatch: NodeBatch?
    private var composition: Composition?
    private var nodeTimes: UnsafeMutablePointer<Double>?
    /// The running frame's tracks, pending events and time nodes, for sizing and threading.
    private var trackCount = 0
    private var pendingEventCount = 0
    private var nodeCount = 0
    /// The time of the last evaluated frame.
    public private(set) var time: Double = .nan
    /// This frame's velocity state (nil when it computes none), handed to every batch.
    var velocityFrame: VelocityFrame?
    /// Whether the last frame computed velocities (``Configuration/computesVelocity``).
    public internal(set) var hasVelocities = false
    /// Each table column's velocity storage this frame, by column (refreshed per frame that
    /// computes velocities: columns grow between frames).
    var velocityRows: UnsafeMutablePointer<UnsafeMutablePointer<Double>?>
    var velocityRowCapacity = 1
    /// The slots whose velocity row the last frame left to the scalar reference (NaN), for
    /// ``velocities(of:)`` to fill.
    var velocityMarks = VelocityMarks()

    /// An evaluator for `store`. Nothing is evaluated until ``evaluate(at:)``.
    public init(store: TrackStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.tables = store.table.raw
        self.configuration = configuration
        // Raw buffers owned by the evaluator alone: allocated here, regrown only by `reserve` and
        // `plan` between frames (never while a chunk runs), freed in deinit. Each chunk writes only its
        // own region of them (its offsets from `plan`), so concurrent chunks never share an element.
        eventStorage = .allocate(capacity: 1)
        chunkEventCounts = .allocate(capacity: 1)
        chunkChangeCounts = .allocate(capacity: 1)
        chunkVelocityMarked = .allocate(capacity: 1)
        chunkListStarts = .allocate(capacity: 1)
        blockMasks = .allocate(capacity: 1)
        changeStorage = .allocate(capacity: 1)
        compositionCounts = .allocate(capacity: 1)
        nodeEventCounts = .allocate(capacity: 1)
        nodeEventStorage = .allocate(capacity: 1)
        velocityRows = .allocate(capacity: 1)
    }

    // Every buffer allocated in init or regrown since; none is handed out beyond a frame's events view.
    deinit {
        dropUnlistedChanges()   // no batch may name this evaluator once it is gone
        nodeEventCounts.deallocate()
        nodeEventStorage.deallocate()
        velocityRows.deallocate()
        eventStorage.deallocate()
        chunkEventCounts.deallocate()
        chunkChangeCounts.deallocate()
        chunkVelocityMarked.deallocate()
        chunkListStarts.deallocate()
        velocityMarks.release()
        blockMasks.deallocate()
        changeStorage.deallocate()
        compositionCounts.deallocate()
    }

    /// The events of the last frame: removals, replacements and cancellations since the frame
    /// before, then the starts and finishes this frame crossed (semantics §8.1) — groups' first,
    /// then tracks' in batch order. Every animation reports `started` at most once and stops
    /// exactly once. Valid until the next frame.
    public var events: UnsafeBufferPointer<AnimationEvent> {
        UnsafeBufferPointer(start: eventStorage, count: eventCount)
    }

    /// The slots whose presentation value changed in the last frame — a model value set since the
    /// frame before, a slot created since, or a frame's value whose bits differ from the last
    /// shown — each once, so a renderer redraws only those. Valid until the next frame.
    ///
    /// The frame itself keeps a 16-bit mask per block of the slots its kernels showed; the first
    /// read after a frame writes their handles (8 bytes each, on the frame's threads), so a host
    /// that never reads the list does not pay for it: at 1,000,000 changing properties that is
    /// 16 MB of memory traffic, a tenth of the frame. Changes to the store between the frame and
    /// the read do not change what it lists.
    public var changedSlots: UnsafeBufferPointer<SlotHandle> {
        listUnlistedChanges()
        return UnsafeBufferPointer(start: changeStorage, count: changeCount)
    }

    /// Writes the last frame's kernel chunks' changed slots into the change list, if they are
    /// still unwritten (see ``changedSlots``): called by the first read, and by a batch of that
    /// frame before one of its lanes moves or changes its slot.
    func listUnlistedChanges() {
        guard !unlistedBatches.isEmpty else { return }
        for batch in unlistedBatches { batch.unlistedChanges = nil }
        let running = batches   // empty between frames
        batches = unlistedBatches
        defer {
            batches = running
            unlistedBatches = []
        }
        run(.listing, count: chunks.count)
    }

    /// Forgets the last frame's unwritten list: a new frame starts, and nothing can read it any more.
    private func dropUnlistedChanges() {
        for batch in unlistedBatches where batch.unlistedChanges === self { batch.unlistedChanges = nil }
        unlistedBatches = []
    }

    /// How many chunks the last frame's kernels ran in.
    public var chunkCount: Int { chunks.count }

    private func plan(_ frame: FramePlan) {
        chunks.removeAll(keepingCapacity: true)
        let blocksPerChunk = max(1, (configuration.chunkSize + 15) / 16)
        for (b, batch) in frame.batches.enumerated() {
            let blocks = batch.blockCount
            guard blocks > 0 else { continue }
            if let n = configuration.chunksPerBatch {
                let pieces = max(1, min(n, blocks))
                for k in 0..<pieces {
                    let start = blocks * k / pieces, end = blocks * (k + 1) / pieces
                    if end > start { chunks.append((Int32(b), Int32(start), Int32(end))) }
                }
            } else {
                var start = 0
                while start < blocks {
                    let end = min(blocks, start + blocksPerChunk)
                    chunks.append((Int32(b), Int32(start), Int32(end)))
                    start = end
                }
            }
        }
        chunkEventOffsets.removeAll(keepingCapacity: true)
        chunkChangeOffsets.removeAll(keepingCapacity: true)
        trackEventRegion = 0
        kernelChangeRegion = 0
        for chunk in chunks {
            chunkEventOffsets.append(trackEventRegion)
            trackEventRegion += 32 * Int(chunk.end - chunk.start)
            chunkChangeOffsets.append(kernelChangeRegion)
            kernelChangeRegion += 16 * Int(chunk.end - chunk.start)
        }
        Self.reserve(&chunkEventCounts, capacity: &chunkCapacity, chunks.count)
        if chunks.count > chunkChangeCapacity {
            var capacity = chunkChangeCapacity, marksCapacity = chunkChangeCapacity
            Self.reserve(&chunkChangeCounts, capacity: &capacity, chunks.count)
            Self.reserve(&chunkVelocityMarked, capacity: &marksCapacity, chunks.count)
            Self.reserve(&chunkListStarts, capacity: &chunkChangeCapacity, chunks.count)
        }
        Self.reserve(&blockMasks, capacity: &blockMaskCapacity, kernelChangeRegion / 16)
        let needed = eventsNeeded
        if needed > eventCapacity {
            // Between frames: the last frame's events view is documented as valid until the next frame.
            eventStorage.deallocate()
            eventCapacity = needed + needed / 2
            eventStorage = .allocate(capacity: eventCapacity)
        }

        // Composition chunks over the fast and transform slots, their changes after the kernel chunks'.
        compositionChunks.removeAll(keepingCapacity: true)
        compositionChangeOffsets.removeAll(keepingCapacity: true)
        let fast = frame.composition.chunkedCount
        if fast > 0 {
            let size = max(1, configuration.chunkSize)
            // Slots per chunk, but four chunks per thread where there are 256 slots for each: a few
            // thousand slots are one chunk's work, which would leave the other threads idle, and
            // neighbouring slots differ in cost (fast slots, then transform slots), which chunks
            // taken from a counter even out. W3 (4,000 chunked slots) on two threads: 0.26 ms a
            // frame with one chunk per thread, 0.19 ms with four.
            let threads = configuration.maximumThreads > 0 ? configuration.maximumThreads : WorkerPool.processorCount
            let n = configuration.chunksPerBatch.map { max(1, min($0, fast)) }
                ?? max(1, (fast + size - 1) / size, min(4 * threads, fast / 256))
            for k in 0..<n where fast * (k + 1) / n > fast * k / n {
                compositionChunks.append((fast * k / n, fast * (k + 1) / n))
                compositionChangeOffsets.append(kernelChangeRegion + fast * k / n)
            }
        }
        Self.reserve(&compositionCounts, capacity: &compositionCapacity, compositionChunks.count)
        plannedVersion = frame.version
        plannedFastSlots = fast
    }

    /// Grows `buffer` to hold `count` elements (growth by half again, so that frames after
    /// changes stop allocating once the store stops growing).
    private static func reserve<T>(_ buffer: inout UnsafeMutablePointer<T>, capacity: inout Int, _ count: Int) {
        guard count > capacity else { return }
        buffer.deallocate()
        capacity = count + count / 2
        buffer = .allocate(capacity: capacity)
    }

    /// Evaluates every slot at `time` (the parent time of top-level animations: the layers' local
    /// time, semantics §2.2), stores the presentation values, lists the changed slots, collects
    /// the events and reaps the animations that finished and are removed on completion (§1.4).
    public func evaluate(at time: Double) {
        dropUnlistedChanges()
        // Sleeping workers start waking now: they spin by the time the kernels are posted.
        if configuration.scheduler == .workerPool && runsInParallel(trackCount: store.trackCount) { pool?.prepare() }
        runFrame(store.prepareFrame(), at: time)   // the plan is let go here, before the store changes
        finishAnimations()
        if !(time <= store.latestFrameTime) { store.latestFrameTime = time }   // (NaN frames leave it)
    }

    /// Runs `frame` at `time`: everything but telling the store what finished.
    private func runFrame(_ frame: FramePlan, at time: Double) {
        batches = frame.batches
        nodeBatch = frame.nodeBatch
        composition = frame.composition
        nodeTimes = frame.nodeTimes.base
        trackCount = frame.trackCount
        pendingEventCount = frame.pendingEventCount
        nodeCount = frame.nodes.count
        defer {
            batches = []
            nodeBatch = nil
            composition = nil
        }
        if plannedVersion != frame.version || plannedFastSlots != frame.composition.chunkedCount || eventsNeeded > eventCapacity {
            plan(frame)
        }
        self.time = time
        eventCount = 0
        store.takePendingEvents { appendEvent($0) }
        prepareVelocities(frame)

        // Layers' own times first: tracks and group roots read them.
        ClockStep.run(frame.clockSteps, at: time, times: frame.nodeTimes.base, rates: velocityFrame?.nodeRates)
        evaluateNodes(frame, at: time)

        // Room for every slot in the change list: each is listed at most once.
        let table = frame.table
        let composition = frame.composition
        Self.reserve(&changeStorage, capacity: &changeCapacity, table.pendingChanges.count + kernelChangeRegion
                     + composition.chunkedCount + composition.generalSlots.count + 16)
        changeCount = 0
        for s in table.pendingChanges {
            changeStorage[changeCount] = SlotHandle(index: s, generation: table.locations[Int(s)].generation)
            changeCount += 1
        }
        changeBase = changeCount
        pendingMarks = table.pendingChanges.isEmpty ? nil : UnsafePointer(table.pending)
        target = table.target(changes: changeStorage + changeBase)
        composition.takePointers(of: frame.batches)

        // Kernels; each chunk then shows its exclusive tracks' values, marks which slots to list
        // and collects its tracks' events, each into its own region.
        trackEventBase = eventCount
        frameTime = time
        run(.kernels, count: chunks.count)

        compose(table: table, composition: composition)
        if velocityFrame != nil {
            // The rows left to the scalar reference, listed for the bulk read (few: the chunks that
            // wrote one are looked at again, the composed slots as they are composed).
            velocityMarks.reset(room: table.raw.pointee.slotCapacity)
            for (k, chunk) in chunks.enumerated() where chunkVelocityMarked[k] {
                frame.batches[Int(chunk.batch)].markVelocitySlots(blocks: Int(chunk.start)..<Int(chunk.end), into: &velocityMarks)
            }
            composition.composeVelocities(batches: frame.batches, rows: velocityRows, marks: &velocityMarks)
        }
        gatherTrackEvents()
    }

    /// Whether this frame's chunks run on several threads.
    private var runsInParallel: Bool { runsInParallel(trackCount: trackCount) }

    /// Whether a frame of `trackCount` tracks runs on several threads.
    private func runsInParallel(trackCount: Int) -> Bool {
        configuration.maximumThreads != 1 && trackCount >= configuration.parallelThreshold
    }

    /// Runs `count` chunks of `stage` on the calling thread or on the configured scheduler.
    private func run(_ stage: Stage, count: Int) {
        self.stage = stage
        guard count > 1 && runsInParallel else {
            for k in 0..<count { runChunk(k) }
            return
        }
        let threads = configuration.maximumThreads > 0 ? configuration.maximumThreads : WorkerPool.processorCount
        switch configuration.scheduler {
        case .workerPool:
            if pool == nil { pool = WorkerPool(workers: threads - 1, onStart: configuration.workerStarted) }
            pool!.run(count, job: self)
        case .dispatch:
            // At most `threads` at once: each takes chunk numbers from a shared counter.
            let job = Unchecked(self as ParallelJob), counter = dispatchCounter
            counter.next.store(0, ordering: .relaxed)
            DispatchQueue.concurrentPerform(iterations: min(threads, count)) { _ in
                while true {
                    let k = counter.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard k < count else { return }
                    job.value.runChunk(k)
                }
            }
        }
    }

    /// The event storage a frame may need: pending events, a start and a finish per group root,
    /// and the chunks' regions.
    private var eventsNeeded: Int { pendingEventCount + 2 * nodeCount + trackEventRegion + 16 }

    /// Runs chunk `k` of the current stage (on whichever thread the scheduler gives it).
    package func runChunk(_ k: Int) {
        switch stage {
        case .nodes:
            // Set for the frame, before any stage runs.
            let chunk = nodeChunks[k], roots = nodeBatch.unsafelyUnwrapped, times = nodeTimes.unsafelyUnwrapped
            roots.evaluate(blocks: chunk.start..<chunk.end, time: frameTime, nodeTimes: UnsafePointer(times))
            nodeEventCounts[k] = Self.collectEvents(of: roots, blocks: chunk.start..<chunk.end, into: nodeEventStorage + 32 * chunk.start)
        case .kernels:
            // Its kernels, then its tracks' events into its own region of the event storage.
            let chunk = chunks[k]
            let batch = batches[Int(chunk.batch)]
            let blocks = Int(chunk.start)..<Int(chunk.end)
            batch.evaluate(blocks: blocks, time: frameTime, nodeTimes: UnsafePointer(nodeTimes.unsafelyUnwrapped))   // set for the frame
            chunkChangeCounts[k] = batch.present(blocks: blocks, masks: blockMasks + chunkChangeOffsets[k] / 16, pending: pendingMarks)
            if velocityFrame != nil {
                chunkVelocityMarked[k] = batch.presentVelocities(blocks: blocks)
            }
            chunkEventCounts[k] = Self.collectEvents(of: batch, blocks: blocks, into: eventStorage + trackEventBase + chunkEventOffsets[k])
        case .composition:
            let target = self.target.unsafelyUnwrapped   // set before the stage runs
            let chunk = compositionChunks[k]
            compositionCounts[k] = composition.unsafelyUnwrapped.runChunk(chunk.start..<chunk.end,   // set for the frame
                                                             into: target.listing(at: target.changes + compositionChangeOffsets[k]))
        case .listing:
            // Kernel chunk k's changed slots, where its list starts (``listUnlistedChanges()``).
            let chunk = chunks[k]
            guard chunkChangeCounts[k] > 0 else { return }
            batches[Int(chunk.batch)].list(blocks: Int(chunk.start)..<Int(chunk.end), masks: blockMasks + chunkChangeOffsets[k] / 16,
                                           into: changeStorage + changeBase + chunkListStarts[k])
        }
    }

    /// Group nodes, parents first: each writes its children's parent time, or NaN where the group
    /// shows nothing (semantics §2.7, §7, §1.4). The roots go first, sixteen at once
    /// (``NodeBatch``), in parallel chunks of blocks when there are many: each chunk's events (a
    /// root reports its start and finish, each at most once, §8.1) go to its own region and are
    /// gathered in block order, so they are the same for any thread count. Nested nodes follow one
    /// by one in the node order, which lists every node after its parent.
    private func evaluateNodes(_ frame: FramePlan, at time: Double) {
        let roots = frame.nodeBatch
        let blocks = roots.blockCount
        if blocks > 0 {
            let threads = configuration.maximumThreads > 0 ? configuration.maximumThreads : WorkerPool.processorCount
            let pieces = blocks >= 64 && runsInParallel ? max(1, min(4 * threads, blocks / 16)) : 1
            nodeChunks.removeAll(keepingCapacity: true)
            for k in 0..<pieces where blocks * (k + 1) / pieces > blocks * k / pieces {
                nodeChunks.append((blocks * k / pieces, blocks * (k + 1) / pieces))
            }
            Self.reserve(&nodeEventCounts, capacity: &nodeEventCountCapacity, nodeChunks.count)
            Self.reserve(&nodeEventStorage, capacity: &nodeEventCapacity, 32 * blocks)
            frameTime = time
            run(.nodes, count: nodeChunks.count)
            for k in nodeChunks.indices {
                let region = nodeEventStorage + 32 * nodeChunks[k].start
                for e in 0..<nodeEventCounts[k] { appendEvent(region[e]) }
            }
        }
        let count = frame.nodeOrder.count
        guard count > roots.count else { return }
        frame.nodeOrder.withUnsafeBufferPointer { order in
            // Read only: what a frame writes of a node lives in the frame-state columns. Through
            // the arrays' buffers, taken once: subscripting per field costs a bounds check each,
            // and copying a node costs retains.
            frame.nodes.withUnsafeBufferPointer { nodes in
                // Both arrays hold `count` > 0 elements here: their buffers have a base.
                Self.evaluateNestedNodes(order.baseAddress!, count: count, nodes: nodes.baseAddress!, times: frame.nodeTimes.base,
                                         rates: velocityFrame?.nodeRates)
            }
        }
    }

    /// The nested nodes of the order (roots are skipped: ``NodeBatch`` did them): each one's
    /// child time from its parent's (semantics §2.7). Nested nodes report no events: their
    /// animation's are its root's.
    private static func evaluateNestedNodes(_ order: UnsafePointer<Int32>, count: Int, nodes: UnsafePointer<TimeNode>,
                                            times: UnsafeMutablePointer<Double>, rates: UnsafeMutablePointer<Double>?) {
        for position in 0..<count {
            let n = order[position]
            let node = nodes + Int(n)   // the order lists live node indices only
            let parent = node.pointee.parent
            guard parent >= 0 else { continue }
            let state = node.pointee.timing.state(atParentTime: times[Int(parent)])
            // `times` has an entry per node (`nodeTimes` is sized with `nodes`); parents precede children in the order.
            times[Int(n)] = state.contributes ? node.pointee.curve.value(at: state.progress) * node.pointee.timing.effectiveDuration : .nan
            if let rates {
                // The child time's rate, through its parent's (the reference's `childTimeRate`).
                rates[Int(n)] = state.progressRate == 0 ? 0
                    : node.pointee.curve.slope(at: state.progress) * node.pointee.timing.effectiveDuration * state.progressRate * rates[Int(parent)]
            }
        }
    }

    @inline(__always)
    private func appendEvent(_ event: AnimationEvent) {
        guard eventCount < eventCapacity else { return }
        eventStorage[eventCount] = event
        eventCount += 1
    }

    /// Writes the events of `batch`'s tracks in `blocks` to `events` (at most two per track: the
    /// state bytes the kernels just wrote, semantics §8.1) and returns how many. Chunks collect in
    /// parallel into disjoint regions; ``gatherTrackEvents()`` puts them in chunk order, which is
    /// batch and track order, so the events are the same for any chunk or thread count.
    ///
    /// Two passes over the chunk's state bytes (in cache: the kernels just wrote them): the first
    /// starts loading the animation handles of the blocks with events, the second reads them. A
    /// handle is read only for a track with an event, at scattered places, so each read missed the
    /// cache; overlapping the misses took event collection from 6.5–7.6 % of a W2 frame of
    /// 1,000,000 properties on one thread to 4.9 %.
    private static func collectEvents(of batch: TrackBatch, blocks: Range<Int>, into events: UnsafeMutablePointer<AnimationEvent>) -> Int {
        let bits = batch.state.base, animationID = batch.animationID.base
        // Two scalar words: a byte-vector comparison would compile lane by lane.
        @inline(__always) func hasEvents(_ i: Int) -> Bool {
            let eventBits = UInt64(TrackState.started | TrackState.finished) * 0x0101_0101_0101_0101
            // The state column is padded to whole blocks of 16, and i is a block's first lane: 16 bytes.
            let raw = UnsafeRawPointer(bits + i)
            return (raw.loadUnaligned(as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) & eventBits != 0
        }
        for block in blocks where hasEvents(block * 16) {
            animation_prefetch(animationID + block * 16)       // a block's 16 handles: two cache lines
            animation_prefetch(animationID + block * 16 + 8)
        }
        var count = 0
        for block in blocks {
            let i = block * 16
            guard hasEvents(i) else { continue }
            for lane in 0..<16 where bits[i + lane] & (TrackState.started | TrackState.finished) != 0 {
                let word = bits[i + lane]
                let handle = AnimationHandle(rawValue: animationID[i + lane])
                if word & TrackState.started != 0 {
                    events[count] = AnimationEvent(animation: handle, kind: .started)
                    count += 1
                }
                if word & TrackState.finished != 0 {
                    events[count] = AnimationEvent(animation: handle, kind: .stopped, outcome: .finished)
                    count += 1
                }
            }
        }
        return count
    }

    /// Moves the chunks' events down, in chunk order, to follow the pending and group events.
    private func gatherTrackEvents() {
        Self.gather(into: eventStorage, count: &eventCount, from: eventStorage + trackEventBase, offsets: chunkEventOffsets,
                    counts: chunkEventCounts)
    }

    /// Moves what each chunk wrote into its region (`regions + offsets[k]`, `counts[k]` elements)
    /// down to follow the first `count` elements of `storage`, in chunk order. The destination
    /// never lies past the source: element by element, front to back.
    private static func gather<T>(into storage: UnsafeMutablePointer<T>, count: inout Int, from regions: UnsafeMutablePointer<T>,
                                  offsets: [Int], counts: UnsafeMutablePointer<Int>) {
        for k in offsets.indices {
            let source = regions + offsets[k]
            for e in 0..<counts[k] {
                storage[count] = source[e]
                count += 1
            }
        }
    }

    /// The composition stage (``Composition``): the fast and transform slots' parallel chunks,
    /// then general slots; the change list in order — pending changes, the kernel chunks'
    /// (exclusive slots, shown by the chunks themselves; their place follows from the counts the
    /// chunks returned, and they are written when the list is first read: ``changedSlots``), the
    /// composition chunks', the general slots'.
    private func compose(table: PresentationTable, composition: Composition) {
        kernelListed = 0
        for k in chunks.indices {
            chunkListStarts[k] = kernelListed
            kernelListed += chunkChangeCounts[k]
        }
        run(.composition, count: compositionChunks.count)
        if kernelListed > 0 {
            // The kernel chunks' part waits for a reader; each batch asks for it before its lanes change.
            for batch in batches {
                if let other = batch.unlistedChanges, other !== self { other.listUnlistedChanges() }   // another evaluator's frame
                batch.unlistedChanges = self
            }
            unlistedBatches = batches
        }
        // The composition chunks' changes after the kernel chunks', in chunk order.
        changeCount += kernelListed
        Self.gather(into: changeStorage, count: &changeCount, from: changeStorage + changeBase, offsets: compositionChangeOffsets,
                    counts: compositionCounts)
        changeCount += composition.composeGeneral(time: time, pending: UnsafePointer(table.pending), changes: changeStorage + changeCount)
        table.clearPendingChanges()
        target = nil
        pendingMarks = nil
    }

    /// Tells the store which animations this frame finished (their stop events are this frame's,
    /// and nothing reports them again, semantics §8.1): with reaping on, those removed on
    /// completion leave the store (§1.4), so the next frame no longer evaluates them.
    private func finishAnimations() {
        let reaps = configuration.reapsFinishedAnimations
        for e in 0..<eventCount where eventStorage[e].kind == .stopped && eventStorage[e].outcome == .finished {
            if reaps { store.didFinish(eventStorage[e].animation) } else { store.markFinished(eventStorage[e].animation) }
        }
    }

    // MARK: Reading

    /// The presentation value of a slot after the last frame (a model value set since shows at
    /// once), or nil for a stale handle: a few loads from the presentation table, no copies of
    /// records, no reference counting.
    ///
    /// Always inlined: returned from a call, the 129-byte value goes through memory, copied with
    /// wide loads of the narrow stores just made (store-forwarding stalls) — 25 ns a read; inlined,
    /// the caller keeps only what it uses — 5 ns (W2, 100,000 reads in a loop).
    @inlinable @inline(__always)
    public func value(of slot: SlotHandle) -> AnimationValue? {
        PresentationTable.presentationValue(of: slot, in: tables)
    }

    /// The components of a slot's presentation value in place (see
    /// ``TrackStore/presentationComponents(of:)``), or nil for a stale handle.
    @inlinable
    public func components(of slot: SlotHandle) -> UnsafeBufferPointer<Double>? {
        PresentationTable.components(of: slot, in: tables)
    }

    /// The presentation value of `property` on `layer`, or nil when there is no such slot.
    public func value(layer: LayerID, property: String) -> AnimationValue? {
        store.slot(layer: layer, property: property).flatMap(value(of:))
    }
}

/// The chunk counter of a `concurrentPerform` frame (the worker pool has its own).
private final class ChunkCounter: Sendable {
    let next = Atomic<Int>(0)
}
