import AnimationCore
import CKernelSupport

/// Evaluates a ``TrackStore`` at a time: every output slot's presentation value and the frame's
/// events (design.md, "Chunks over cores").
///
/// A frame runs three passes: group timing nodes (parents first, scalar; semantics §2.7, §7); the
/// kernels over every batch, cut into contiguous chunks of whole 16-track blocks (64-byte aligned,
/// so no two chunks share a cache line), each chunk then collecting its tracks' events into its
/// own region; and the composition of composed slots in add order (§8.4), after which the chunks'
/// events are put in chunk order. Chunks write disjoint ranges, so the results — values and
/// events, in the same order — are bit-identical for any chunk or thread count. Below
/// ``Configuration/parallelThreshold`` tracks one thread runs everything; above it the chunks run
/// on every core through a persistent worker pool (not `DispatchQueue.concurrentPerform`, which
/// allocates 2–4 blocks per call on Linux, measured: see `WorkerPool`).
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
    /// Where each chunk writes its tracks' events this frame, relative to `trackEventBase` (two
    /// per track of the chunk: a start and a finish), and how many it wrote.
    private var chunkEventOffsets: [Int] = []
    private var chunkEventCounts: UnsafeMutablePointer<Int>
    /// Events the chunks may write in all (two per track of every chunk).
    private var trackEventRegion = 0
    /// The first slot of the chunks' event regions in `eventStorage` this frame (after the
    /// pending and group events).
    private var trackEventBase = 0
    /// The time of the last evaluated frame.
    public private(set) var time: Double = .nan

    /// An evaluator for `store`. Nothing is evaluated until ``evaluate(at:)``.
    public init(store: TrackStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        eventStorage = .allocate(capacity: 1)
        chunkEventCounts = .allocate(capacity: 1)
    }

    deinit {
        eventStorage.deallocate()
        chunkEventCounts.deallocate()
    }

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
        chunkEventOffsets.removeAll(keepingCapacity: true)
        trackEventRegion = 0
        for chunk in chunks {
            chunkEventOffsets.append(trackEventRegion)
            trackEventRegion += 32 * Int(chunk.end - chunk.start)
        }
        chunkEventCounts.deallocate()
        chunkEventCounts = .allocate(capacity: max(1, chunks.count))
        chunkEventCounts.initialize(repeating: 0, count: max(1, chunks.count))
        let needed = eventsNeeded
        if needed > eventCapacity {
            eventStorage.deallocate()
            eventCapacity = needed + needed / 2
            eventStorage = .allocate(capacity: eventCapacity)
        }
        planComposition()
        plannedVersion = store.version
    }

    /// Evaluates every slot at `time` (the parent time of top-level animations: the layers' local
    /// time, semantics §2.2) and collects the events.
    public func evaluate(at time: Double) {
        if plannedVersion != store.version || eventsNeeded > eventCapacity {
            plan()
        }
        self.time = time
        eventCount = 0
        for event in store.pendingEvents { appendEvent(event) }
        store.pendingEvents.removeAll(keepingCapacity: true)

        evaluateNodes(at: time)

        // Kernels; each chunk also collects its tracks' events into its own region.
        trackEventBase = eventCount
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
        gatherTrackEvents()
    }

    /// The event storage a frame may need: pending events, a start and a finish per group root,
    /// and the chunks' regions.
    private var eventsNeeded: Int { store.pendingEvents.count + 2 * store.nodes.count + trackEventRegion + 16 }

    /// Runs chunk `k` of the current frame (on whichever thread the pool gives it): its kernels,
    /// then its tracks' events into its own region of the event storage.
    func runChunk(_ k: Int) {
        let chunk = chunks[k]
        let batch = store.batches[Int(chunk.batch)]
        batch.evaluate(blocks: Int(chunk.start)..<Int(chunk.end), time: frameTime, nodeTimes: UnsafePointer(store.nodeTimes.base))
        chunkEventCounts[k] = Self.collectEvents(of: batch, blocks: Int(chunk.start)..<Int(chunk.end),
                                                 into: eventStorage + trackEventBase + chunkEventOffsets[k])
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

    /// Writes the events of `batch`'s tracks in `blocks` to `events` (at most two per track: the
    /// state bytes the kernels just wrote, semantics §8.1) and returns how many. Chunks collect in
    /// parallel into disjoint regions; ``gatherTrackEvents()`` puts them in chunk order, which is
    /// batch and track order, so the events are the same for any chunk or thread count.
    ///
    /// Two passes over the chunk's state bytes (in cache: the kernels just wrote them): the first
    /// starts loading the animation handles of the blocks with events, the second reads them. A
    /// handle is read only for a track with an event, at scattered places, so each read missed the
    /// cache; one after another they took 6.5–7.6 % of a W2 frame of 1,000,000 properties on one
    /// thread, and 4.9 % once the misses overlap (profiles of the frame's samples).
    private static func collectEvents(of batch: TrackBatch, blocks: Range<Int>, into events: UnsafeMutablePointer<AnimationEvent>) -> Int {
        let bits = batch.state.base, animationID = batch.animationID.base
        // Two scalar words: a byte-vector comparison would compile lane by lane.
        @inline(__always) func hasEvents(_ i: Int) -> Bool {
            let eventBits = UInt64(TrackState.started | TrackState.finished) * 0x0101_0101_0101_0101
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
        for k in chunks.indices {
            let source = eventStorage + trackEventBase + chunkEventOffsets[k]
            // The destination never lies past the source: element by element, front to back.
            for e in 0..<chunkEventCounts[k] {
                eventStorage[eventCount] = source[e]
                eventCount += 1
            }
        }
    }

    /// One entry of a slot composed on the fast path: its track's state byte and output columns.
    struct FastEntry {
        /// The batch's state column (indexed by `index`).
        var state: UnsafeMutablePointer<UInt8>
        /// The batch's output column pointers (component `c` of track `index` is `outputs[c][index]`).
        var outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        var index: Int
        /// The first component of the slot's value it writes, and how many.
        var first: Int
        var width: Int
        var additive: Bool
    }

    /// A slot composed on the fast path: its entries' range in `fastEntries`.
    struct FastSlot {
        var slot: Int32
        var generation: UInt32
        var kind: ValueKind
        var entries: Range<Int>
    }

    /// Composed slots whose value has at most four components and whose entries all write the
    /// kernel's value, whole or as a component field (`position.x`, `bounds.size`): composed in
    /// Double on raw pointers, with no `AnimationValue` arithmetic. Rebuilt with the plan.
    private var fastSlots: [FastSlot] = []
    private var fastEntries: [FastEntry] = []
    /// The other composed slots (transform fields, rotations, recomputed rows, value functions).
    private var slowSlots: [Int32] = []
    /// Per fast slot, four components: its model value (refreshed when a model changes), and its
    /// composed value after the last frame.
    private var fastModel: [Double] = []
    private var fastResult: [Double] = []
    /// Slot index → fast slot index (or −1), as of the last plan.
    private var fastIndexOfSlot: [Int32] = []
    /// The store's model version the fast models were read at, and the one of the last frame.
    private var fastModelVersion = -1
    private var frameModelVersion = -1

    /// Which components of a value of `kind` a field writes (semantics §4.6), for the fast path.
    static func componentRange(of field: ValueField?, in kind: ValueKind) -> (first: Int, width: Int)? {
        guard let field else { return (0, kind.componentCount) }
        switch (field, kind) {
        case (.x, .point), (.width, .size), (.originX, .rect): return (0, 1)
        case (.y, .point), (.height, .size), (.originY, .rect): return (1, 1)
        case (.origin, .rect): return (0, 2)
        case (.size, .rect): return (2, 2)
        case (.sizeWidth, .rect): return (2, 1)
        case (.sizeHeight, .rect): return (3, 1)
        default: return nil
        }
    }

    /// Sorts the composed slots into fast and slow, and compiles the fast ones' entries.
    private func planComposition() {
        fastSlots.removeAll(keepingCapacity: true)
        fastEntries.removeAll(keepingCapacity: true)
        slowSlots.removeAll(keepingCapacity: true)
        fastIndexOfSlot.removeAll(keepingCapacity: true)
        fastIndexOfSlot.append(contentsOf: repeatElement(-1, count: store.slots.count))
        for s in store.composedSlots {
            let slot = store.slots[Int(s)]
            let start = fastEntries.count
            var fast: Bool
            switch slot.kind {
            case .scalar, .point, .size, .rect, .color: fast = true
            default: fast = false   // transforms: fields are set through decomposition
            }
            for entry in slot.entries where fast {
                let track = store.tracks[Int(entry.track)]
                guard !entry.isRotation, case .value = track.op,
                      let range = Self.componentRange(of: track.field, in: slot.kind),
                      range.width == track.valueKind.componentCount else {
                    fast = false
                    break
                }
                let batch = store.batches[Int(track.batch)]
                fastEntries.append(FastEntry(state: batch.state.base, outputs: batch.outputs.pointers, index: Int(track.index),
                                             first: range.first, width: range.width, additive: track.isAdditive))
            }
            if fast {
                fastSlots.append(FastSlot(slot: s, generation: slot.generation, kind: slot.kind, entries: start..<fastEntries.count))
                fastIndexOfSlot[Int(s)] = Int32(fastSlots.count - 1)
            } else {
                fastEntries.removeLast(fastEntries.count - start)
                slowSlots.append(s)
            }
        }
        fastResult.removeAll(keepingCapacity: true)
        fastResult.append(contentsOf: repeatElement(0, count: fastSlots.count * 4))
        fastModelVersion = -1
    }

    /// The four components of a model value of at most four components (zeros beyond its own).
    private static func components(_ v: AnimationValue) -> (Double, Double, Double, Double) {
        switch v {
        case .scalar(let x): (x, 0, 0, 0)
        case .point(let p): (p.x, p.y, 0, 0)
        case .size(let s): (s.width, s.height, 0, 0)
        case .rect(let r): (r.origin.x, r.origin.y, r.size.width, r.size.height)
        case .color(let c): (c.red, c.green, c.blue, c.alpha)
        default: (0, 0, 0, 0)
        }
    }

    /// Composed slots: the model value, then every entry in add order, replacing, adding or setting
    /// a field exactly as the reference does (semantics §8.4); the rotation of path animations with
    /// a rotation mode (§5.7).
    private func compose() {
        // Fast slots: Double arithmetic on raw pointers into the evaluator's own buffers.
        if fastModelVersion != store.modelVersion {
            fastModel.removeAll(keepingCapacity: true)
            for f in fastSlots {
                let m = Self.components(store.slots[Int(f.slot)].model)
                fastModel.append(m.0)
                fastModel.append(m.1)
                fastModel.append(m.2)
                fastModel.append(m.3)
            }
            fastModelVersion = store.modelVersion
        }
        frameModelVersion = store.modelVersion
        fastSlots.withUnsafeBufferPointer { fastSlots in
            fastEntries.withUnsafeBufferPointer { entries in
                fastModel.withUnsafeBufferPointer { model in
                    fastResult.withUnsafeMutableBufferPointer { result in
                        for k in fastSlots.indices {
                            Self.composeFast(fastSlots[k], model: model.baseAddress! + 4 * k, into: result.baseAddress! + 4 * k,
                                             entries: entries)
                        }
                    }
                }
            }
        }
        // Slow slots: the general composition on AnimationValue. Slots and tracks are reached
        // through their buffers: subscripting the store's arrays copies a whole record per access.
        let time = self.time
        guard !slowSlots.isEmpty else { return }
        store.tracks.withUnsafeBufferPointer { tracks in
            store.slots.withUnsafeMutableBufferPointer { slots in
                for s in slowSlots {
                    slots[Int(s)].composedValue = composedValue(of: &slots[Int(s)], tracks: tracks, time: time)
                }
            }
        }
    }

    /// The fast path of ``compose()``: the same Double arithmetic as the slow path (component-wise
    /// replace or add, semantics §4.3, §4.6, §8.4), on components.
    private static func composeFast(_ f: FastSlot, model: UnsafePointer<Double>, into a: UnsafeMutablePointer<Double>,
                                    entries: UnsafeBufferPointer<FastEntry>) {
        a.update(from: model, count: 4)
        for e in f.entries {
            let entry = entries[e]
            guard entry.state[entry.index] & TrackState.contributes != 0 else { continue }
            for c in 0..<entry.width {
                let value = Double(entry.outputs[c][entry.index])
                a[entry.first + c] = entry.additive ? a[entry.first + c] + value : value
            }
        }
    }

    /// A fast slot's value after the last frame.
    private func fastValue(_ k: Int) -> AnimationValue {
        let a = (fastResult[4 * k], fastResult[4 * k + 1], fastResult[4 * k + 2], fastResult[4 * k + 3])
        switch fastSlots[k].kind {
        case .scalar: return .scalar(a.0)
        case .point: return .point(Point(x: a.0, y: a.1))
        case .size: return .size(Size(width: a.0, height: a.1))
        case .rect: return .rect(Rect(x: a.0, y: a.1, width: a.2, height: a.3))
        default: return .color(Color(red: a.0, green: a.1, blue: a.2, alpha: a.3))
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
        // A slot composed on the fast path keeps its value in the evaluator (unless its model was
        // set after the last frame: then, as for every composed slot, the model is shown).
        if !time.isNaN, Int(s) < fastIndexOfSlot.count, fastIndexOfSlot[Int(s)] >= 0, record.modelStamp <= frameModelVersion,
           record.composedPosition >= 0, fastSlots[Int(fastIndexOfSlot[Int(s)])].generation == record.generation {
            return fastValue(Int(fastIndexOfSlot[Int(s)]))
        }
        if record.composedPosition >= 0 || record.entries.isEmpty || time.isNaN { return record.composedValue }
        let track = store.tracks[Int(record.entries[0].track)]
        return ValueStorage.load(record.kind, from: store.batches[Int(track.batch)].outputs, at: Int(track.index))
    }

    /// The presentation value of `property` on `layer`, or nil when there is no such slot.
    public func value(layer: LayerID, property: String) -> AnimationValue? {
        store.slot(layer: layer, property: property).flatMap(value(of:))
    }
}
