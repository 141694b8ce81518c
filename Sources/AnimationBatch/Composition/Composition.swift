import AnimationCore

/// The composition stage of a frame (semantics §8.4): typed operations per animated slot, planned
/// from the store between frames and run after the kernels, writing each slot's presentation value
/// into the store's ``PresentationTable`` — the one place it lives — and listing the slots whose
/// value changed.
///
/// Three kinds of operation, each over raw pointers fixed when the plan is made:
/// - **copy** — an exclusive slot (its only animation sets the whole value): the kernel already
///   composed it with the model (fallback and additive base, §4.3), so its output is converted to
///   Double and stored. Almost every slot of a large scene is one of these.
/// - **fast** — a slot of at most four components whose animations each write the kernel's value,
///   whole or as a component field (`position.x`, `bounds.size`, §4.6): the model, then each
///   contributing entry replacing or adding its components, in Double.
/// - **general** — everything else (transform fields, whole-transform animations, rotation modes,
///   value functions, rows recomputed over the value beneath): the reference's own composition on
///   `AnimationValue`, per slot.
///
/// Copy and fast operations are cut into chunks that run in parallel like the kernels' (each
/// writes its own rows and its own region of the change list); general slots run on the calling
/// thread after them. Results do not depend on the chunking.
final class Composition {
    /// An exclusive slot: its track's output columns and lane, and its row.
    struct CopyOperation {
        var outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        var index: Int
        var width: Int
        var row: UnsafeMutablePointer<Double>
        var slot: Int32
        var generation: UInt32
    }

    /// One entry of a fast slot: its track's state byte and output columns.
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

    /// A fast slot: its entries' range in `fastEntries`, its row and its model's components.
    struct FastSlot {
        var slot: Int32
        var generation: UInt32
        var width: Int
        var entries: Range<Int>
        var row: UnsafeMutablePointer<Double>
        /// Four model components (zeros beyond the value's own).
        var model: (Double, Double, Double, Double)
    }

    enum ChunkKind { case copy, fast }

    private(set) var copies: [CopyOperation] = []
    private(set) var fastSlots: [FastSlot] = []
    private(set) var fastEntries: [FastEntry] = []
    /// Slots composed by the general path.
    private(set) var generalSlots: [Int32] = []
    /// (kind, first operation, end) of every parallel chunk, and where its changes go.
    private(set) var chunks: [(kind: ChunkKind, start: Int, end: Int)] = []
    private(set) var changeOffsets: [Int] = []
    /// The store's model version the fast slots' models were read at.
    private var modelVersion = -1

    /// How many changes the chunks may list in all (one per operation).
    var changeRegion: Int { copies.count + fastSlots.count }

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

    /// Plans every animated slot of `store` (between frames; reuses its capacity).
    func plan(_ store: TrackStore, chunkSize: Int, chunksPerKind: Int?) {
        copies.removeAll(keepingCapacity: true)
        fastSlots.removeAll(keepingCapacity: true)
        fastEntries.removeAll(keepingCapacity: true)
        generalSlots.removeAll(keepingCapacity: true)
        let table = store.table
        store.slots.withUnsafeBufferPointer { slots in
            store.tracks.withUnsafeBufferPointer { tracks in
                // Exclusive slots in batch and track order, so that the copies read each batch's
                // outputs front to back: in slot order they interleave a dozen batches' streams
                // and wait on memory (a W2 frame of 100,000 properties on one thread: 1.5 ms
                // against 0.6 ms for the kernels alone).
                for batch in store.batches {
                    let trackIDs = batch.trackID.base
                    for i in 0..<batch.count {
                        let s = Int(tracks[Int(trackIDs[i])].slot)
                        guard store.isExclusive(slot: Int32(s)) else { continue }
                        let location = table.locations[s]
                        copies.append(CopyOperation(outputs: batch.outputs.pointers, index: i, width: slots[s].kind.componentCount,
                                                    row: table.columns[Int(location.column)].row(location.row), slot: Int32(s),
                                                    generation: location.generation))
                    }
                }
                for s in slots.indices where slots[s].alive && !slots[s].entries.isEmpty && !store.isExclusive(slot: Int32(s)) {
                    let location = table.locations[s]
                    let row = table.columns[Int(location.column)].row(location.row)
                    if planFast(slots[s], slot: Int32(s), generation: location.generation, row: row, store: store, tracks: tracks) { continue }
                    generalSlots.append(Int32(s))
                }
            }
        }
        modelVersion = store.modelVersion
        chunks.removeAll(keepingCapacity: true)
        changeOffsets.removeAll(keepingCapacity: true)
        cut(.copy, count: copies.count, chunkSize: chunkSize, pieces: chunksPerKind)
        cut(.fast, count: fastSlots.count, chunkSize: chunkSize, pieces: chunksPerKind)
        var offset = 0
        for chunk in chunks {
            changeOffsets.append(offset)
            offset += chunk.end - chunk.start
        }
    }

    private func cut(_ kind: ChunkKind, count: Int, chunkSize: Int, pieces: Int?) {
        guard count > 0 else { return }
        let n = pieces.map { max(1, min($0, count)) } ?? max(1, (count + chunkSize - 1) / max(1, chunkSize))
        for k in 0..<n {
            let start = count * k / n, end = count * (k + 1) / n
            if end > start { chunks.append((kind, start, end)) }
        }
    }

    /// Plans slot `s` on the fast path if it can take it.
    private func planFast(_ record: TrackStore.SlotRecord, slot: Int32, generation: UInt32, row: UnsafeMutablePointer<Double>,
                          store: TrackStore, tracks: UnsafeBufferPointer<TrackStore.TrackRecord>) -> Bool {
        switch record.kind {
        case .scalar, .point, .size, .rect, .color: break
        default: return false   // transforms: fields are set through decomposition
        }
        let start = fastEntries.count
        for entry in record.entries {
            let track = tracks[Int(entry.track)]
            guard !entry.isRotation, case .value = track.op,
                  let range = Self.componentRange(of: track.field, in: record.kind),
                  range.width == track.valueKind.componentCount else {
                fastEntries.removeLast(fastEntries.count - start)
                return false
            }
            let batch = store.batches[Int(track.batch)]
            fastEntries.append(FastEntry(state: batch.state.base, outputs: batch.outputs.pointers, index: Int(track.index),
                                         first: range.first, width: range.width, additive: track.isAdditive))
        }
        fastSlots.append(FastSlot(slot: slot, generation: generation, width: record.kind.componentCount,
                                  entries: start..<fastEntries.count, row: row, model: Self.components(record.model)))
        return true
    }

    /// Reads the fast slots' model values again when the store's models changed since.
    func refreshModels(_ store: TrackStore) {
        guard modelVersion != store.modelVersion else { return }
        fastSlots.withUnsafeMutableBufferPointer { fast in
            for k in fast.indices { fast[k].model = Self.components(store.slots[Int(fast[k].slot)].model) }
        }
        modelVersion = store.modelVersion
    }

    /// The four components of a value of at most four components (zeros beyond its own).
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

    /// Runs chunk `k`: stores its slots' values and lists those that changed (and that `pending`
    /// does not list already) at `changes`. Returns how many it listed.
    func runChunk(_ k: Int, pending: UnsafePointer<UInt8>, changes: UnsafeMutablePointer<SlotHandle>) -> Int {
        let chunk = chunks[k]
        var count = 0
        switch chunk.kind {
        case .copy:
            copies.withUnsafeBufferPointer { copies in
                for o in chunk.start..<chunk.end {
                    let op = copies[o]
                    // Compared as bits: a NaN the kernel repeats is no change.
                    var differs = false
                    for c in 0..<op.width {
                        let v = Double(op.outputs[c][op.index])
                        differs = differs || v.bitPattern != op.row[c].bitPattern
                        op.row[c] = v
                    }
                    if differs && pending[Int(op.slot)] == 0 {
                        changes[count] = SlotHandle(index: op.slot, generation: op.generation)
                        count += 1
                    }
                }
            }
        case .fast:
            fastSlots.withUnsafeBufferPointer { fast in
                fastEntries.withUnsafeBufferPointer { entries in
                    for o in chunk.start..<chunk.end where Self.composeFast(fast[o], entries: entries) && pending[Int(fast[o].slot)] == 0 {
                        changes[count] = SlotHandle(index: fast[o].slot, generation: fast[o].generation)
                        count += 1
                    }
                }
            }
        }
        return count
    }

    /// A fast slot: the model, then every contributing entry in add order, replacing or adding its
    /// components (semantics §4.3, §4.6, §8.4), in Double — the reference's arithmetic on
    /// components. Returns whether the row changed.
    @inline(__always)
    private static func composeFast(_ f: FastSlot, entries: UnsafeBufferPointer<FastEntry>) -> Bool {
        var a = f.model
        withUnsafeMutableBytes(of: &a) { raw in
            let a = raw.baseAddress!.assumingMemoryBound(to: Double.self)   // a homogeneous tuple of four Doubles
            for e in f.entries {
                let entry = entries[e]
                guard entry.state[entry.index] & TrackState.contributes != 0 else { continue }
                for c in 0..<entry.width {
                    let value = Double(entry.outputs[c][entry.index])
                    a[entry.first + c] = entry.additive ? a[entry.first + c] + value : value
                }
            }
        }
        return withUnsafeBytes(of: &a) { raw in
            let a = raw.baseAddress!.assumingMemoryBound(to: Double.self)
            var differs = false
            for c in 0..<f.width {
                differs = differs || a[c].bitPattern != f.row[c].bitPattern
                f.row[c] = a[c]
            }
            return differs
        }
    }

    /// The general slots, on the calling thread after the chunks: each slot's value into its row;
    /// those that changed (and that `pending` does not list) are listed at `changes`. Returns how
    /// many it listed.
    func composeGeneral(_ store: TrackStore, time: Double, pending: UnsafePointer<UInt8>,
                        changes: UnsafeMutablePointer<SlotHandle>) -> Int {
        guard !generalSlots.isEmpty else { return 0 }
        var count = 0
        let table = store.table
        // Slots and tracks are reached through their buffers: subscripting the store's arrays
        // copies a whole record per access.
        store.tracks.withUnsafeBufferPointer { tracks in
            store.slots.withUnsafeBufferPointer { slots in
                for s in generalSlots {
                    let value = Self.composedValue(of: slots[Int(s)], store: store, tracks: tracks, time: time)
                    let location = table.locations[Int(s)]
                    let row = table.columns[Int(location.column)].row(location.row)
                    if PresentationTable.replace(row, with: value, width: slots[Int(s)].kind.componentCount) && pending[Int(s)] == 0 {
                        changes[count] = SlotHandle(index: s, generation: location.generation)
                        count += 1
                    }
                }
            }
        }
        return count
    }

    /// One slot's value by the general path: its model value, then its entries in add order
    /// (semantics §8.4), and the rotation of path animations with a rotation mode (§5.7).
    private static func composedValue(of slot: TrackStore.SlotRecord, store: TrackStore,
                                      tracks: UnsafeBufferPointer<TrackStore.TrackRecord>, time: Double) -> AnimationValue {
        var accumulated = slot.model
        for entry in slot.entries {
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
}
