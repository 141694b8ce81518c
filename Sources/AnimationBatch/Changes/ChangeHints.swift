import AnimationCore
import CKernelSupport

/// Where an implicit change of a slot (its presentation value read, its model written) and a
/// takeover of an animation in it touch a ``TrackStore``'s memory: remembered by the caller after
/// one change of a key (``TrackStore/changeHints(slot:animation:)``) and given to
/// ``TrackStore/prefetchChange(_:)`` before the next. Addresses kept as integers and only
/// prefetched, never read or written through: stale ones — the slot freed, the lane moved, a table
/// grown — load some other line (a prefetch never faults), and nothing else changes.
public struct ChangeHints: Sendable {
    /// The slot's and the animation's records (up to four lines each), the slot's entries'
    /// buffer (its header and first entries), the track's record: each a record's start.
    var records: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
    /// Single lines: the slot's dirty flag, table location, pending flag and row.
    var lines: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
    /// The track's batch (an index into the store's batches, checked) and lane.
    var batch: Int32 = -1
    var lane: Int32 = -1

    /// The hints for the next change of `slot` with `animation` taken over, taken now (while the
    /// lines are in cache, right after a change).
    init(tables: EngineTables, planner: SlotPlanner, slot: SlotHandle, animation: AnimationHandle?) {
        let s = Int(slot.index)
        guard s >= 0, s < tables.slots.count, s < planner.dirty.count, s < tables.table.raw.pointee.slotCapacity else { return }
        // Addresses only (indices checked just above): nothing is read through them here but
        // the entries' reference, whose bits are read as a plain word (taking the array would
        // retain its buffer, and the hint needs only where it is).
        tables.slots.withUnsafeBufferPointer {
            let record = UnsafeRawPointer($0.baseAddress! + s)   // in bounds: checked above
            self.records.0 = UInt(bitPattern: record)
            if let offset = Self.entriesOffset { self.records.2 = record.load(fromByteOffset: offset, as: UInt.self) }
        }
        self.lines.0 = planner.dirty.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + s) }
        self.lines.1 = UInt(bitPattern: tables.table.raw.pointee.locations + s)
        self.lines.2 = UInt(bitPattern: tables.table.raw.pointee.pending + s)
        if let (_, row) = PresentationTable.row(of: slot, in: tables.table.raw) { self.lines.3 = UInt(bitPattern: row) }
        guard let a = animation.map({ Int($0.index) }), a >= 0, a < tables.animations.count else { return }
        self.records.1 = tables.animations.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + a) }   // in bounds: checked
        let t = Int(tables.animations[a].columnTrack)
        guard t >= 0, t < tables.tracks.count else { return }
        self.records.3 = tables.tracks.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + t) }   // in bounds: checked
        self.batch = tables.tracks[t].batch
        self.lane = tables.tracks[t].index
    }

    /// Starts loading, all at once, the lines the hints name: the slot's and the animation's
    /// records, flags, entries and row, the track's record and its lane in the columns. A change
    /// after a tick finds these lines cold; asked for one after another (each address read from
    /// the line before), it waited for each in turn, ~0.1 µs a line, and a reference count
    /// operation (an atomic) waits, on x86-64, for every store before it to reach its line.
    /// Asked for together, the waits overlap. A hint: results do not change.
    func prefetch(in tables: EngineTables) {
        // One call each: a list of the addresses would be an allocation per change.
        Self.prefetch(at: records.0, bytes: 256)
        Self.prefetch(at: records.1, bytes: 256)
        Self.prefetch(at: records.2, bytes: 256)
        Self.prefetch(at: records.3, bytes: 256)
        Self.prefetch(at: lines.0, bytes: 64)
        Self.prefetch(at: lines.1, bytes: 64)
        Self.prefetch(at: lines.2, bytes: 64)
        Self.prefetch(at: lines.3, bytes: 64)
        let b = Int(batch)
        if b >= 0, b < tables.batches.count { tables.batches[b].prefetchLane(Int(lane)) }
    }

    /// Where a slot record keeps its entries' array (nil if an array were not one word: a
    /// reference to its buffer).
    private static let entriesOffset: Int? =
        MemoryLayout<[SlotEntry]>.size == MemoryLayout<UInt>.size ? MemoryLayout<SlotRecord>.offset(of: \.entries) : nil

    /// Asks for the `bytes` from `address` on (0: none), for writing.
    @inline(__always)
    private static func prefetch(at address: UInt, bytes: Int) {
        guard let p = UnsafeRawPointer(bitPattern: address) else { return }
        var offset = 0
        while offset < bytes {   // bounded: `bytes / 64` steps
            animation_prefetch_write(p + offset)   // a hint: never faults
            offset += 64
        }
    }
}
