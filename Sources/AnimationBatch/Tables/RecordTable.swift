/// A record that a ``RecordTable`` keeps: alive or free, with a generation that changes each
/// time its place is freed, so that a handle to an earlier occupant is recognised as stale.
protocol TableRecord {
    var generation: UInt32 { get set }
    var alive: Bool { get set }
    init()
}

/// Records in a dense array with a free list of the places freed (reused last-freed first) and
/// generational handles: the one implementation of allocation, freeing and handle checks for the
/// engine's tracks, slots and animations.
///
/// The free list's capacity follows the array's, so that freeing — which frames do when they reap
/// finished animations — never allocates.
struct RecordTable<Record: TableRecord> {
    private(set) var records: [Record] = []
    private(set) var free: [Int32] = []

    /// How many places the table has, alive or free.
    var count: Int { records.count }
    /// How many records are alive.
    var liveCount: Int { records.count - free.count }
    var indices: Range<Int> { records.indices }
    /// The array's capacity: what the tables sized with the records reserve.
    var capacity: Int { records.capacity }

    subscript(i: Int) -> Record {
        @inline(__always) get { records[i] }
        @inline(__always) _modify { yield &records[i] }
    }

    subscript(i: Int32) -> Record {
        @inline(__always) get { records[Int(i)] }
        @inline(__always) _modify { yield &records[Int(i)] }
    }

    /// A place for a new record: a freed one, or a new one at the end. The caller fills it and
    /// sets it alive; its generation is the place's current one.
    mutating func claim() -> (index: Int32, isNew: Bool) {
        if let reused = free.popLast() { return (reused, false) }
        records.append(Record())
        if free.capacity < records.capacity { free.reserveCapacity(records.capacity) }
        return (Int32(records.count - 1), true)
    }

    /// Frees place `i`: its record is no longer alive and its generation moves on, so every
    /// handle to it goes stale. The caller has cleared what the record holds.
    mutating func release(_ i: Int32) {
        records[Int(i)].alive = false
        records[Int(i)].generation &+= 1
        free.append(i)
    }

    /// `index` when it names a live record of `generation`, else nil: the check behind every handle.
    @inline(__always)
    func resolve(index: Int32, generation: UInt32) -> Int32? {
        let i = Int(index)
        guard i >= 0, i < records.count, records[i].alive, records[i].generation == generation else { return nil }
        return index
    }

    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Record>) throws -> R) rethrows -> R {
        try records.withUnsafeBufferPointer(body)
    }

    mutating func withUnsafeMutableBufferPointer<R>(_ body: (inout UnsafeMutableBufferPointer<Record>) throws -> R) rethrows -> R {
        try records.withUnsafeMutableBufferPointer(body)
    }

    /// Every broken invariant of the table itself: free places name records that are not alive,
    /// each once, and live plus free records make up the table.
    func checkFreeList(_ name: String, into report: inout InvariantReport) {
        var seen = Set<Int32>()
        for i in free {
            report.check(i >= 0 && Int(i) < records.count, "\(name) free list names \(i), outside 0..<\(records.count)")
            guard i >= 0 && Int(i) < records.count else { continue }
            report.check(!records[Int(i)].alive, "\(name) \(i) is alive but on the free list")
            report.check(seen.insert(i).inserted, "\(name) \(i) is on the free list twice")
        }
        let live = records.count(where: \.alive)
        report.check(live + free.count == records.count, "\(name): \(live) alive + \(free.count) free ≠ \(records.count) records")
    }
}
