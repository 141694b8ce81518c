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
        if records.count == records.capacity { records.reserveCapacity(grownCapacity(records.capacity)) }   // half again (``grownCapacity(_:)``)
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

/// A record that sits on an intrusive doubly linked list (a layer's slots, a layer's animations):
/// it names its neighbours, −1 at the ends. A list costs its owner two indices and each member
/// two, with no allocation and constant-time removal; a per-layer array was 48 bytes of heap for
/// a layer's first slot alone, and removing from it was linear in the layer's members.
protocol LinkedRecord: TableRecord {
    var previous: Int32 { get set }
    var next: Int32 { get set }
}

/// The ends of an intrusive list of records in a ``RecordTable``, in the order they joined.
struct RecordList {
    var first: Int32 = -1
    var last: Int32 = -1
    var isEmpty: Bool { first < 0 }
}

extension RecordTable where Record: LinkedRecord {
    /// Puts record `i` (on no list) at the end of `list`.
    mutating func append(_ i: Int32, to list: inout RecordList) {
        records[Int(i)].previous = list.last
        records[Int(i)].next = -1
        if list.last >= 0 { records[Int(list.last)].next = i } else { list.first = i }
        list.last = i
    }

    /// Takes record `i` off `list`, which holds it.
    mutating func remove(_ i: Int32, from list: inout RecordList) {
        let previous = records[Int(i)].previous, next = records[Int(i)].next
        if previous >= 0 { records[Int(previous)].next = next } else { list.first = next }
        if next >= 0 { records[Int(next)].previous = previous } else { list.last = previous }
        records[Int(i)].previous = -1
        records[Int(i)].next = -1
    }

    /// The members of `list` in order (a copy: the caller may change the list while it walks them).
    func members(of list: RecordList) -> [Int32] {
        var result: [Int32] = []
        var i = list.first
        while i >= 0 {
            result.append(i)
            i = records[Int(i)].next
        }
        return result
    }

    /// Every broken link of `list`, whose members should satisfy `belongs`: each member's
    /// neighbours name it back, the ends are the list's, and the walk ends within the table's size
    /// (a cycle is reported, not followed). Returns the members it walked.
    @discardableResult
    func checkList(_ list: RecordList, _ name: String, belongs: (Int32) -> Bool, into report: inout InvariantReport) -> [Int32] {
        var i = list.first, previous: Int32 = -1, walked: [Int32] = []
        while i >= 0 {
            guard Int(i) < records.count, walked.count < records.count else {
                report.check(false, "\(name) runs to \(i), outside the table or around a cycle")
                return walked
            }
            report.check(records[Int(i)].alive && belongs(i), "\(name) lists \(i), which does not belong to it")
            report.check(records[Int(i)].previous == previous, "\(name): \(i) names \(records[Int(i)].previous) before it, not \(previous)")
            previous = i
            walked.append(i)
            i = records[Int(i)].next
        }
        report.check(list.last == previous, "\(name) ends at \(previous), but its record says \(list.last)")
        return walked
    }
}
