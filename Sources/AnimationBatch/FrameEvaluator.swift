import AnimationCore

/// Evaluates a ``TrackStore`` at a time: every output slot's presentation value and the frame's
/// events (design.md, "Chunks over cores").
///
/// A frame runs four passes: group timing nodes (parents first, scalar; semantics §2.7, §7); the
/// kernels over every batch, cut into contiguous chunks of whole 16-track blocks (64-byte aligned,
/// so no two chunks share a cache line); the composition of composed slots in add order (§8.4);
/// and the collection of events. Chunks write disjoint ranges, so the results are bit-identical
/// for any chunk or thread count. Below ``Configuration/parallelThreshold`` tracks one thread runs
/// everything; above it the chunks run on every core through a persistent worker pool (not
/// `DispatchQueue.concurrentPerform`, which allocates 2–4 blocks per call on Linux, measured: see
/// `WorkerPool`).
///
/// A steady-state frame — no tracks added or removed since the last — allocates nothing: plans,
/// event storage and scratch are sized when the store changes.
public final class FrameEvaluator: ParallelJob {
    /// How a frame is cut and run.
    public struct Configuration: Sendable {
        /// Below this many tracks a frame runs on the calling thread alone.
        public var parallelThreshold: Int
        /// Tracks per chunk (rounded to whole 16-track blocks).
        public var chunkSize: Int
        /// When set, every batch is cut into exactly this many chunks (at most one per block):
        /// for tests of chunking invariance.
        public var chunksPerBatch: Int?
        /// The most threads a frame uses (the caller included); 0 means one per processor, 1 forces
        /// the calling thread alone.
        public var maximumThreads: Int
        /// Called once on each worker thread when it starts, with its number (1, 2, …; the
        /// calling thread is 0): to name it, set its priority or affinity, or register it with a
        /// profiler. Workers start on the first parallel frame, and again after the configuration
        /// changes.
        public var workerStarted: (@Sendable (_ worker: Int) -> Void)?

        /// A configuration; the defaults suit most scenes (one thread below 65,536 tracks).
        public init(parallelThreshold: Int = 65_536, chunkSize: Int = 4_096, chunksPerBatch: Int? = nil, maximumThreads: Int = 0,
                    workerStarted: (@Sendable (_ worker: Int) -> Void)? = nil) {
            self.parallelThreshold = parallelThreshold
            self.chunkSize = chunkSize
            self.chunksPerBatch = chunksPerBatch
            self.maximumThreads = maximumThreads
            self.workerStarted = workerStarted
        }
    }

    /// The store whose tracks this evaluator runs (changes to it are picked up by the next frame).
    public let store: TrackStore
    /// How frames are cut and run; changing it replans the next frame (and restarts the workers).
    public var configuration: Configuration {
        didSet {
            plannedVersion = -1
            pool = nil
        }
    }

    /// Created on the first parallel frame; its threads live as long as the evaluator.
    private var pool: WorkerPool?
    /// The frame being run by the pool.
    private var frameTime = 0.0
    /// (batch, first block, end block) of every chunk.
    private var chunks: [(batch: Int32, start: Int32, end: Int32)] = []
    private var plannedVersion = -1
    private var eventStorage: UnsafeMutablePointer<AnimationEvent>
    private var eventCapacity = 0
    private var eventCount = 0
    /// The time of the last evaluated frame.
    public private(set) var time: Double = .nan

    /// An evaluator for `store`. Nothing is evaluated until ``evaluate(at:)``.
    public init(store: TrackStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        eventStorage = .allocate(capacity: 1)
    }

    deinit { eventStorage.deallocate() }

    /// The events of the last frame: removals and replacements since the frame before, then the
    /// starts and finishes this frame crossed (semantics §8.1) — groups' first, then tracks' in
    /// batch order. Valid until the next frame.
    public var events: UnsafeBufferPointer<AnimationEvent> {
        UnsafeBufferPointer(start: eventStorage, count: eventCount)
    }

    /// How many chunks the last frame ran in.
    public var chunkCount: Int { chunks.count }

    private func plan() {
        chunks.removeAll(keepingCapacity: true)
        let blocksPerChunk = max(1, (configuration.chunkSize + 15) / 16)
        for (b, batch) in store.batches.enumerated() {
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
        let needed = store.eventSourceCount * 2 + 16
        if needed > eventCapacity {
            eventStorage.deallocate()
            eventCapacity = needed * 2
            eventStorage = .allocate(capacity: eventCapacity)
        }
        plannedVersion = store.version
    }

    /// Evaluates every slot at `time` (the parent time of top-level animations: the layers' local
    /// time, semantics §2.2) and collects the events.
    public func evaluate(at time: Double) {
        if plannedVersion != store.version || store.pendingEvents.count * 2 + store.trackCount + store.nodes.count > eventCapacity {
            plan()
        }
        self.time = time
        eventCount = 0
        for event in store.pendingEvents { appendEvent(event) }
        store.pendingEvents.removeAll(keepingCapacity: true)

        evaluateNodes(at: time)

        // Kernels.
        frameTime = time
        if chunks.count <= 1 || configuration.maximumThreads == 1 || store.trackCount < configuration.parallelThreshold {
            for k in chunks.indices { runChunk(k) }
        } else {
            if pool == nil {
                let threads = configuration.maximumThreads > 0 ? configuration.maximumThreads : WorkerPool.processorCount
                pool = WorkerPool(workers: threads - 1, onStart: configuration.workerStarted)
            }
            pool!.run(chunks.count, job: self)
        }

        compose()
        collectTrackEvents()
    }

    /// Runs chunk `k` of the current frame (on whichever thread the pool gives it).
    func runChunk(_ k: Int) {
        let chunk = chunks[k]
        store.batches[Int(chunk.batch)].evaluate(blocks: Int(chunk.start)..<Int(chunk.end), time: frameTime,
                                                 nodeTimes: UnsafePointer(store.nodeTimes.base))
    }

    /// Group nodes, parents first: each writes its children's parent time, or NaN where the group
    /// shows nothing (semantics §2.7, §7, §1.4). Roots report their own start and finish.
    private func evaluateNodes(at time: Double) {
        let times = store.nodeTimes.base
        for n in store.nodeOrder {
            // Fields are read in place: copying the node (or the animation's record) per frame
            // costs retains and a memmove per group.
            let parent = store.nodes[Int(n)].parent
            let parentTime = parent < 0 ? time : times[Int(parent)]
            let state = store.nodes[Int(n)].timing.state(atParentTime: parentTime)
            let isRoot = store.nodes[Int(n)].isRoot
            var childTime = Double.nan
            if state.contributes && !(isRoot && store.nodes[Int(n)].removedOnCompletion && state.phase == .after) {
                childTime = store.nodes[Int(n)].curve.value(at: state.progress) * store.nodes[Int(n)].timing.effectiveDuration
            }
            times[Int(n)] = childTime
            if isRoot {
                let phase: UInt8 = parentTime.isNaN ? 0 : (state.phase == .before ? 0 : state.phase == .active ? 1 : 2)
                let previous = store.nodes[Int(n)].previousPhase
                let handle = AnimationHandle(index: store.nodes[Int(n)].animation, generation: store.nodes[Int(n)].generation)
                if (previous == 0 || previous == TrackState.neverEvaluated) && phase != 0 {
                    appendEvent(AnimationEvent(animation: handle, kind: .started))
                }
                if previous != 2 && phase == 2 {
                    appendEvent(AnimationEvent(animation: handle, kind: .stopped, outcome: .finished))
                }
                store.nodes[Int(n)].previousPhase = phase
            }
        }
    }

    @inline(__always)
    private func appendEvent(_ event: AnimationEvent) {
        guard eventCount < eventCapacity else { return }
        eventStorage[eventCount] = event
        eventCount += 1
    }

    private func collectTrackEvents() {
        for batch in store.batches {
            let bits = batch.state.base
            let eventBits = UInt64(TrackState.started | TrackState.finished) * 0x0101_0101_0101_0101
            for block in 0..<batch.blockCount {
                let i = block * 16
                // Two scalar words: a byte-vector comparison would compile lane by lane.
                let raw = UnsafeRawPointer(bits + i)
                guard (raw.loadUnaligned(as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) & eventBits != 0 else { continue }
                for lane in 0..<16 where bits[i + lane] & (TrackState.started | TrackState.finished) != 0 {
                    let word = bits[i + lane]
                    let handle = AnimationHandle(rawValue: batch.animationID[i + lane])
                    if word & TrackState.started != 0 { appendEvent(AnimationEvent(animation: handle, kind: .started)) }
                    if word & TrackState.finished != 0 {
                        appendEvent(AnimationEvent(animation: handle, kind: .stopped, outcome: .finished))
                    }
                }
            }
        }
    }

    /// Composed slots: the model value, then every entry in add order, replacing, adding or setting
    /// a field exactly as the reference does (semantics §8.4); the rotation of path animations with
    /// a rotation mode (§5.7).
    private func compose() {
        // Slots and tracks are reached through their buffers: subscripting the store's arrays
        // copies a whole record (values, entry arrays, the animation) per access.
        let time = self.time
        store.tracks.withUnsafeBufferPointer { tracks in
            store.slots.withUnsafeMutableBufferPointer { slots in
                for s in store.composedSlots {
                    slots[Int(s)].composedValue = composedValue(of: &slots[Int(s)], tracks: tracks, time: time)
                }
            }
        }
    }

    /// One composed slot's value: its model value, then its entries in add order (semantics §8.4).
    private func composedValue(of slot: inout TrackStore.SlotRecord, tracks: UnsafeBufferPointer<TrackStore.TrackRecord>,
                               time: Double) -> AnimationValue {
        var accumulated = slot.model
        for e in slot.entries.indices {
            let entry = slot.entries[e]
            let t = Int(entry.track)
            let batch = store.batches[Int(tracks[t].batch)]
            let i = Int(tracks[t].index)
            guard batch.state[i] & TrackState.contributes != 0 else { continue }
            if entry.isRotation {
                let angle: Float
                switch batch {
                case let paths as PathBatch: angle = paths.angle[i]
                case let keyframes as KeyframeBatch: angle = keyframes.angle[i]
                case let reference as ReferenceBatch: angle = reference.angle[i]
                default: continue
                }
                if case .transform(let t) = accumulated {
                    accumulated = .transform(Transform3D.rotation(angle: Double(angle), x: 0, y: 0, z: 1).concatenating(t))
                }
                continue
            }
            let field = tracks[t].field
            let base = field?.get(from: accumulated) ?? accumulated
            let value: AnimationValue
            switch tracks[t].op {
            case .value:
                value = ValueStorage.load(tracks[t].valueKind, from: batch.outputs, at: i)
            case .valueFunction(let function):
                value = .transform(function.transform(for: Double(batch.outputs.pointers[0][i])))
            case .recompute:
                // The reference's own timing state, in Double, at the track's parent time.
                guard let animation = tracks[t].leaf?.animation else { continue }
                let group = batch.group[i]
                let parentTime = group >= 0 ? store.nodeTimes[Int(group)] : time
                let state = animation.timing.state(atParentTime: parentTime)
                guard state.contributes, let v = animation.value(in: state, base: base) else { continue }
                value = v
            }
            let composed = tracks[t].isAdditive ? base.adding(value) : value   // §4.3
            accumulated = field?.set(composed, in: accumulated) ?? composed
        }
        return accumulated
    }

    // MARK: Reading

    /// The presentation value of a slot after the last frame (the model value before any frame),
    /// or nil for a stale handle.
    public func value(of slot: SlotHandle) -> AnimationValue? {
        guard let s = store.resolve(slot) else { return nil }
        let record = store.slots[Int(s)]
        if record.composedPosition >= 0 || record.entries.isEmpty || time.isNaN { return record.composedValue }
        let track = store.tracks[Int(record.entries[0].track)]
        return ValueStorage.load(record.kind, from: store.batches[Int(track.batch)].outputs, at: Int(track.index))
    }

    /// The presentation value of `property` on `layer`, or nil when there is no such slot.
    public func value(layer: LayerID, property: String) -> AnimationValue? {
        store.slot(layer: layer, property: property).flatMap(value(of:))
    }
}
