import CKernelSupport

/// A growable, 64-byte-aligned buffer of plain values: one column of a struct-of-arrays batch.
///
/// The batch owns the count; a column only holds storage. Capacity is always a multiple of 16 so
/// that a SIMD16 block never reads past the end: lanes beyond the count hold `fill`, a value that
/// evaluates harmlessly (the kernels' results there are ignored). That padding is how the kernels
/// handle the tail of a batch — no scalar tail loop, no out-of-bounds read.
final class Column<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var capacity: Int
    let fill: Element

    init(capacity: Int = 16, fill: Element) {
        let rounded = Column.round(capacity)
        self.base = allocateStorage(count: rounded, fill: fill)
        self.capacity = rounded
        self.fill = fill
    }

    deinit {
        freeStorage(base, count: capacity)
    }

    static func round(_ n: Int) -> Int { max(16, (n + 15) & ~15) }

    /// Grows to hold at least `needed` elements, keeping the first `count`.
    func reserve(_ needed: Int, count: Int) {
        guard needed > capacity else { return }
        let newCapacity = Column.round(max(needed, grownCapacity(capacity)))
        let newBase = allocateStorage(count: newCapacity, fill: fill)
        newBase.update(from: base, count: count)
        freeStorage(base, count: capacity)
        base = newBase
        capacity = newCapacity
    }

    @inline(__always) subscript(i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }
}

/// The capacity that follows `capacity` when storage is full: half again, not double. Every
/// table the engine grows by the track or the slot (columns, records, presentation rows) grows
/// this way: a doubling leaves up to half of each empty (at a million basic tracks, 68 MB of
/// their 137 bytes of columns each), half again at most a third; the price is about three copies
/// of each element over its growth instead of two, paid when animations are added, never in frames.
func grownCapacity(_ capacity: Int) -> Int { capacity + max(capacity / 2, 16) }

/// A growable, aligned pool of values addressed by offset (keyframe tables, path tables). Unlike a
/// column it is not indexed by track; tracks hold offsets into it.
final class Pool<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var capacity: Int
    private(set) var count = 0
    let fill: Element

    init(fill: Element) {
        self.fill = fill
        self.capacity = 64
        self.base = allocateStorage(count: 64, fill: fill)
    }

    deinit {
        freeStorage(base, count: capacity)
    }

    /// Appends `values` and returns the offset of the first.
    func append(_ values: some Collection<Element>) -> Int {
        let offset = count
        let needed = count + values.count
        if needed > capacity {
            var newCapacity = capacity * 2
            while newCapacity < needed { newCapacity *= 2 }
            let newBase = allocateStorage(count: newCapacity, fill: fill)
            newBase.update(from: base, count: count)
            freeStorage(base, count: capacity)
            base = newBase
            capacity = newCapacity
        }
        var i = offset
        for v in values {
            base[i] = v
            i += 1
        }
        count = needed
        return offset
    }

    /// Forgets everything (used when a pool is compacted by rebuilding it).
    func removeAll() { count = 0 }

    @inline(__always) subscript(i: Int) -> Element { base[i] }
}

/// Storage for a column or pool: 64-byte aligned, so every SIMD16<Float> block (and every pair of
/// SIMD8<Double>) starts on a cache line and thread chunks that start on a block never share a line
/// (no false sharing); 2 MiB or more on transparent huge pages where the system offers them, each
/// large block starting at a different offset into its first page (`animation_allocate_columns`).
/// Measured (alternating runs on one core, native build, four runs each): the keyframe family at
/// 500,000 tracks 7.40–7.69 ms against 8.40–8.93 ms with 4 KiB pages (its refreshes read records at
/// scattered places; before the staggered starts), at 200,000 tracks 2.93–3.58 against 3.19–3.91 ms
/// (with them); basic numbers (streaming only) unchanged. Freed with its element count
/// (``freeStorage(_:count:)``).
///
/// `count` elements, each set to `fill`. Stops the process with a message naming the size when the
/// memory is not there, as Swift's own allocation does.
func allocateStorage<Element: BitwiseCopyable>(count: Int, fill: Element) -> UnsafeMutablePointer<Element> {
    let bytes = count * MemoryLayout<Element>.stride
    guard let storage = animation_allocate_columns(bytes) else {
        fatalError("out of memory: a column of \(bytes) bytes")
    }
    let typed = storage.bindMemory(to: Element.self, capacity: count)
    typed.initialize(repeating: fill, count: count)
    return typed
}

/// Frees storage from ``allocateStorage(count:fill:)`` of `count` elements.
func freeStorage<Element: BitwiseCopyable>(_ storage: UnsafeMutablePointer<Element>, count: Int) {
    animation_free_columns(storage, count * MemoryLayout<Element>.stride)
}

/// What a batch does to every column of a lane alike, whatever the column's element: grow it,
/// move a lane within it, ask for a lane's line. Lets a batch keep one list of its columns.
protocol LaneColumn: AnyObject {
    func reserve(_ needed: Int, count: Int)
    func move(_ from: Int, to: Int)
    func prefetchForWriting(_ i: Int)
}

extension Column: LaneColumn {
    @inline(__always) func move(_ from: Int, to: Int) { base[to] = base[from] }
    /// A hint: `i` below the capacity keeps the address inside the column (a prefetch never faults).
    @inline(__always) func prefetchForWriting(_ i: Int) { animation_prefetch_write(base + i) }
}
