import AnimationCore

/// Where a slot's presentation value lives: its property column and row, and the slot's
/// generation (so that a stale handle is refused with one load).
@usableFromInline
struct SlotLocation {
    @usableFromInline var generation: UInt32
    /// −1 for a free slot.
    @usableFromInline var column: Int32
    @usableFromInline var row: Int32

    init(generation: UInt32, column: Int32, row: Int32) {
        self.generation = generation
        self.column = column
        self.row = row
    }
}

/// Every slot's presentation value, in exactly one place (semantics §1.1; docs/architecture.md, "one
/// presentation table"): one column per property, a row per layer that has the property, the
/// value's components side by side in Double.
///
/// The store lays the table out — it adds a row when a slot is created, writes the model value
/// there (a slot without animations shows its model, and a model set between frames shows at
/// once), and moves the last row into the hole when a slot is removed. A frame's composition stage
/// writes the rows of animated slots (``FrameEvaluator``). Reading is a load from a row: no
/// record copies, no reference counting.
///
/// Rows of a column stay dense, so a host can hand a whole property — every layer's `position` —
/// to a renderer as one contiguous buffer (``PresentationColumn``).
@usableFromInline
final class PresentationTable {
    /// One property's rows (raw storage: `values` holds `capacity · width` Doubles).
    final class PropertyColumn {
        let property: String
        let kind: ValueKind
        let width: Int
        /// Row-major: row r's components are `values[r·width ..< (r+1)·width]`.
        private(set) var values: UnsafeMutablePointer<Double>
        /// Each row's model value (semantics §1.1), laid out as `values`: the one place a slot's
        /// model lives, beside what it shows.
        private(set) var models: UnsafeMutablePointer<Double>
        /// The slot index at each row.
        private(set) var slots: UnsafeMutablePointer<Int32>
        /// The layer at each row (so a bulk reader can tell rows apart without the store).
        private(set) var layers: UnsafeMutablePointer<LayerID>
        /// Each row's velocity (docs/velocity.md), laid out as `values`, once the table keeps
        /// velocities (``PresentationTable/enableVelocities()``); nil before: a store that never
        /// asks for velocities holds no memory for them.
        private(set) var velocities: UnsafeMutablePointer<Double>?
        private(set) var capacity = 0
        private(set) var count = 0

        init(property: String, kind: ValueKind) {
            self.property = property
            self.kind = kind
            width = kind.componentCount
            // Owned raw storage: allocated here, regrown by `append` (moved, old freed), freed in deinit;
            // the table hands out only a column and a row, never these pointers, except to a
            // `PresentationColumn`, which is documented as valid until the store next changes.
            values = .allocate(capacity: 16 * width)
            models = .allocate(capacity: 16 * width)
            slots = .allocate(capacity: 16)
            layers = .allocate(capacity: 16)
            capacity = 16
        }

        deinit {
            values.deallocate()   // the only owner (see init); nothing outlives the column
            models.deallocate()
            slots.deallocate()
            layers.deallocate()
            velocities?.deallocate()
        }

        /// Gives the column a velocity row per row, all zero (nothing has moved yet).
        func enableVelocities() {
            guard velocities == nil else { return }
            // Owned like `values`: allocated here, regrown by `append`, freed in deinit.
            let storage = UnsafeMutablePointer<Double>.allocate(capacity: capacity * width)
            storage.initialize(repeating: 0, count: capacity * width)
            velocities = storage
        }

        /// Appends a row for `slot` and returns its number.
        func append(slot: Int32, layer: LayerID) -> Int32 {
            if count == capacity {
                let newCapacity = grownCapacity(capacity)
                regrow(&values, keeping: count * width, capacity: newCapacity * width)
                regrow(&models, keeping: count * width, capacity: newCapacity * width)
                regrow(&slots, keeping: count, capacity: newCapacity)
                regrow(&layers, keeping: count, capacity: newCapacity)
                if velocities != nil { regrow(&velocities!, keeping: count * width, capacity: newCapacity * width) }
                capacity = newCapacity
            }
            let row = count
            slots[row] = slot
            layers[row] = layer
            (values + row * width).update(repeating: 0, count: width)
            (models + row * width).update(repeating: 0, count: width)
            velocities.map { ($0 + row * width).update(repeating: 0, count: width) }
            count += 1
            return Int32(row)
        }

        /// Removes `row` by moving the last row into it; returns the slot that moved (now at
        /// `row`), or nil when `row` was the last.
        func remove(row: Int32) -> Int32? {
            let last = count - 1
            let r = Int(row)
            count -= 1
            guard r != last else { return nil }
            (values + r * width).update(from: values + last * width, count: width)
            (models + r * width).update(from: models + last * width, count: width)
            velocities.map { ($0 + r * width).update(from: $0 + last * width, count: width) }
            slots[r] = slots[last]
            layers[r] = layers[last]
            return slots[r]
        }

        /// Puts the rows in the order of `order` (each of the column's slots once): row k becomes
        /// the row of slot `order[k]`, its values, model and layer with it, and each slot's location
        /// follows. `scratch` and `layerScratch` are kept by the caller, so that reordering
        /// allocates only when the column has grown.
        func reorder(_ order: UnsafeBufferPointer<Int32>, locations: UnsafeMutablePointer<SlotLocation>,
                     scratch: inout [Double], layerScratch: inout [LayerID]) {
            precondition(order.count == count, "a new order of \(order.count) rows for a column of \(count)")
            let n = count, w = width
            if scratch.count < n * w { scratch.append(contentsOf: repeatElement(0, count: n * w - scratch.count)) }
            if layerScratch.count < n { layerScratch.append(contentsOf: repeatElement(LayerID(0), count: n - layerScratch.count)) }
            scratch.withUnsafeMutableBufferPointer { copy in
                // `copy` holds n·w Doubles (grown above); every old row and every k is below n.
                func reorder(_ storage: UnsafeMutablePointer<Double>) {
                    copy.baseAddress!.update(from: storage, count: n * w)
                    for k in 0..<n {
                        let old = Int(locations[Int(order[k])].row)
                        (storage + k * w).update(from: copy.baseAddress! + old * w, count: w)
                    }
                }
                reorder(values)
                reorder(models)
                if let velocities { reorder(velocities) }
            }
            layerScratch.withUnsafeMutableBufferPointer { copy in
                copy.baseAddress!.update(from: layers, count: n)   // n entries (grown above)
                for k in 0..<n { layers[k] = copy[Int(locations[Int(order[k])].row)] }
            }
            for k in 0..<n {
                slots[k] = order[k]
                locations[Int(order[k])].row = Int32(k)
            }
        }

        @inline(__always) func row(_ r: Int32) -> UnsafeMutablePointer<Double> { values + Int(r) * width }
        @inline(__always) func modelRow(_ r: Int32) -> UnsafeMutablePointer<Double> { models + Int(r) * width }

        /// Row `r`'s velocity, once the column keeps velocities.
        @inline(__always) func velocityRow(_ r: Int32) -> UnsafeMutablePointer<Double>? { velocities.map { $0 + Int(r) * width } }

        /// Sets row `r`'s velocity to zero: its value was set from outside a frame, and stays until
        /// the next frame.
        @inline(__always) func rest(_ r: Int32) {
            velocities.map { ($0 + Int(r) * width).update(repeating: 0, count: width) }
        }
    }

    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: as TrackStore's tables (see its note on exclusivity)
    #endif
    private(set) var columns: [PropertyColumn] = []
    private var columnByProperty: [String: Int32] = [:]
    /// Parallel to the store's slot table.
    var locations: UnsafeMutablePointer<SlotLocation> { raw.pointee.locations }
    /// `bases[c]` is column c's storage (it moves when the column grows): plans hold a column and
    /// a row, never a pointer into a column, so that growth leaves them valid.
    var bases: UnsafeMutablePointer<UnsafeMutablePointer<Double>> { raw.pointee.bases }
    /// `kinds[c]` is column c's value kind (read without touching the column object).
    var kinds: UnsafeMutablePointer<ValueKind> { raw.pointee.kinds }

    /// The table's raw arrays, behind a `let` pointer: reads of a class's `var` properties from
    /// other files are checked for exclusive access at run time, and a single read
    /// (``presentationValue(of:)``) must cost a few loads.
    @usableFromInline
    struct RawTables {
        @usableFromInline var locations: UnsafeMutablePointer<SlotLocation>
        @usableFromInline var pending: UnsafeMutablePointer<UInt8>
        @usableFromInline var slotCapacity: Int
        @usableFromInline var bases: UnsafeMutablePointer<UnsafeMutablePointer<Double>>
        @usableFromInline var kinds: UnsafeMutablePointer<ValueKind>
        @usableFromInline var columnCapacity: Int
    }
    /// Read without the table object by ``FrameEvaluator/value(of:)`` (no reference counting).
    @usableFromInline let raw: UnsafeMutablePointer<RawTables>

    /// Slots whose shown value was set since the last frame (model values, new slots), each once;
    /// a frame reports them as changed. `pending[s]` is 1 while slot s is listed.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: as TrackStore's tables (see its note on exclusivity)
    #endif
    private(set) var pendingChanges: [Int32] = []
    var pending: UnsafeMutablePointer<UInt8> { raw.pointee.pending }

    init() {
        // `raw` and the arrays it points to are owned by the table: allocated here, regrown by
        // `reserveSlots` / `column(for:)` (which move, then free, the old memory), freed in deinit.
        // Readers index `locations` and `pending` below `slotCapacity`, `bases` and `kinds` below the
        // column count (≤ `columnCapacity`); `presentationValue(of:)` checks a handle's index first.
        raw = .allocate(capacity: 1)
        raw.initialize(to: RawTables(locations: .allocate(capacity: 16), pending: .allocate(capacity: 16), slotCapacity: 16,
                                     bases: .allocate(capacity: 8), kinds: .allocate(capacity: 8), columnCapacity: 8))
        pending.initialize(repeating: 0, count: 16)
        // Every location is defined: a forged handle (from a raw value) finds a free slot.
        locations.initialize(repeating: SlotLocation(generation: 0, column: -1, row: -1), count: 16)
    }

    deinit {
        bases.deallocate()
        kinds.deallocate()
        locations.deallocate()
        pending.deallocate()
        raw.deallocate()
    }

    /// Makes room for slot indices below `slotCount`.
    private func reserveSlots(_ slotCount: Int) {
        let old = raw.pointee.slotCapacity
        guard slotCount > old else { return }
        let newCapacity = max(slotCount, grownCapacity(old))
        regrow(&raw.pointee.locations, keeping: old, capacity: newCapacity)
        regrow(&raw.pointee.pending, keeping: old, capacity: newCapacity)
        (pending + old).initialize(repeating: 0, count: newCapacity - old)
        (locations + old).initialize(repeating: SlotLocation(generation: 0, column: -1, row: -1), count: newCapacity - old)
        raw.pointee.slotCapacity = newCapacity   // both arrays now hold newCapacity initialised entries
    }

    /// The column of `property`, created with `kind` if new.
    private func column(for property: String, kind: ValueKind) -> Int32 {
        if let c = columnByProperty[property] { return c }
        let c = columns.count
        if c == raw.pointee.columnCapacity {
            regrow(&raw.pointee.bases, keeping: c, capacity: 2 * c)
            regrow(&raw.pointee.kinds, keeping: c, capacity: 2 * c)
            raw.pointee.columnCapacity = 2 * c
        }
        columns.append(PropertyColumn(property: property, kind: kind))
        if keepsVelocities { columns[c].enableVelocities() }
        bases[c] = columns[c].values
        kinds[c] = kind
        columnByProperty[property] = Int32(c)
        return Int32(c)
    }

    /// Whether every column keeps a velocity row per row (``enableVelocities()``).
    private(set) var keepsVelocities = false

    /// Gives every column, and every column made from now on, velocity rows (zero until a frame
    /// writes them): the first frame that computes velocities asks.
    func enableVelocities() {
        guard !keepsVelocities else { return }
        keepsVelocities = true
        for column in columns { column.enableVelocities() }
    }

    /// Slot `s`'s velocity row, when the table keeps velocities.
    func velocityRow(ofSlot s: Int32) -> UnsafeMutablePointer<Double>? {
        let location = locations[Int(s)]
        guard location.column >= 0 else { return nil }
        return columns[Int(location.column)].velocityRow(location.row)
    }

    /// The column index of `property`, if any slot ever had it.
    func columnIndex(of property: String) -> Int32? { columnByProperty[property] }

    /// Gives slot `s` (generation `generation`) a row in its property's column, showing `model`.
    /// Returns the column when it grew: its rows moved, and pointers to them are stale.
    func addSlot(_ s: Int32, generation: UInt32, layer: LayerID, property: String, model: AnimationValue) -> PropertyColumn? {
        reserveSlots(Int(s) + 1)
        let c = column(for: property, kind: model.kind)
        let column = columns[Int(c)]
        let row = column.append(slot: s, layer: layer)
        let moved = bases[Int(c)] != column.values
        bases[Int(c)] = column.values
        locations[Int(s)] = SlotLocation(generation: generation, column: c, row: row)
        store(model, slot: s)
        storeModel(model, slot: s)
        markChanged(s)
        return moved ? column : nil
    }

    /// A raw pointer to slot `s`'s row (valid until its column grows or the row moves).
    func rowPointer(ofSlot s: Int32) -> UnsafeMutablePointer<Double> {
        let location = locations[Int(s)]
        return bases[Int(location.column)] + Int(location.row) * kinds[Int(location.column)].componentCount
    }

    /// Frees slot `s`'s row: the column's last row moves into it. Returns the slot whose row moved
    /// (its exclusive track or composition plan must follow), or nil.
    func removeSlot(_ s: Int32) -> Int32? {
        let location = locations[Int(s)]
        guard location.column >= 0 else { return nil }
        let moved = columns[Int(location.column)].remove(row: location.row)
        if let moved { locations[Int(moved)].row = location.row }
        locations[Int(s)].column = -1
        if pending[Int(s)] != 0 {
            pending[Int(s)] = 0
            pendingChanges.removeAll { $0 == s }
        }
        return moved
    }

    /// Slot `s`'s model value (semantics §1.1).
    func model(of s: Int32) -> AnimationValue {
        let location = locations[Int(s)]
        return Self.read(kinds[Int(location.column)], from: columns[Int(location.column)].modelRow(location.row))
    }

    /// Sets slot `s`'s model value (of the column's kind); what the row shows is the caller's.
    func storeModel(_ value: AnimationValue, slot s: Int32) {
        let location = locations[Int(s)]
        Self.write(value, to: columns[Int(location.column)].modelRow(location.row))
    }

    /// Slot `s`'s property (its column's).
    func property(of s: Int32) -> String { columns[Int(locations[Int(s)].column)].property }

    /// Slot `s`'s layer.
    func layer(of s: Int32) -> LayerID {
        let location = locations[Int(s)]
        return columns[Int(location.column)].layers[Int(location.row)]
    }

    /// Slot `s`'s column: its property's index (``columnIndex(of:)``).
    func column(of s: Int32) -> Int32 { locations[Int(s)].column }

    /// Writes `value` into slot `s`'s row (the value has the column's kind); its velocity is zero
    /// until a frame computes one.
    func store(_ value: AnimationValue, slot s: Int32) {
        let location = locations[Int(s)]
        Self.write(value, to: columns[Int(location.column)].row(location.row))
        columns[Int(location.column)].rest(location.row)
    }

    /// Writes `value` into slot `s`'s row and lists the slot as changed when its bits differ from
    /// what the row showed.
    func show(_ value: AnimationValue, slot s: Int32) {
        let location = locations[Int(s)]
        let column = columns[Int(location.column)]
        if Self.replace(column.row(location.row), with: value, width: column.width) { markChanged(s) }
        column.rest(location.row)
    }

    /// Writes `value` (of `width` components) into `row`; returns whether any component's bits
    /// changed (a NaN equals itself here, unlike `==`). Allocation-free: frames call it.
    static func replace(_ row: UnsafeMutablePointer<Double>, with value: AnimationValue, width: Int) -> Bool {
        // Sixteen Doubles on the stack: the widest value (a transform).
        var scratch = (SIMD8<Double>(), SIMD8<Double>())
        return withUnsafeMutableBytes(of: &scratch) { raw in
            let components = raw.baseAddress!.assumingMemoryBound(to: Double.self)   // 128 bytes of Doubles
            write(value, to: components)
            var differs: UInt64 = 0
            for c in 0..<width {
                differs |= components[c].bitPattern ^ row[c].bitPattern   // no branch per component
                row[c] = components[c]
            }
            return differs != 0
        }
    }

    /// ``replace(_:with:width:)`` for a transform, element by element: no value to build and copy.
    @inline(__always)
    static func replace(_ row: UnsafeMutablePointer<Double>, with t: Transform3D) -> Bool {
        var differs: UInt64 = 0
        func put(_ c: Int, _ v: Double) {
            differs |= v.bitPattern ^ row[c].bitPattern
            row[c] = v
        }
        put(0, t.m11); put(1, t.m12); put(2, t.m13); put(3, t.m14)
        put(4, t.m21); put(5, t.m22); put(6, t.m23); put(7, t.m24)
        put(8, t.m31); put(9, t.m32); put(10, t.m33); put(11, t.m34)
        put(12, t.m41); put(13, t.m42); put(14, t.m43); put(15, t.m44)
        return differs != 0
    }

    /// Lists slot `s` as changed for the next frame (once).
    func markChanged(_ s: Int32) {
        guard pending[Int(s)] == 0 else { return }
        pending[Int(s)] = 1
        pendingChanges.append(s)
    }

    /// Forgets the pending changes (a frame has reported them).
    func clearPendingChanges() {
        for s in pendingChanges { pending[Int(s)] = 0 }
        pendingChanges.removeAll(keepingCapacity: true)
    }

    /// The value a live handle's row shows, or nil for a stale handle: a few loads from the raw
    /// tables, no column object touched (no reference counting), the value built in place
    /// (inlinable: a host's read inlines to a few loads, and the value is built where the host
    /// uses it).
    @inlinable @inline(__always)
    static func presentationValue(of slot: SlotHandle, in raw: UnsafeMutablePointer<RawTables>) -> AnimationValue? {
        guard let (kind, p) = row(of: slot, in: raw) else { return nil }
        return Self.read(kind, from: p)
    }

    /// The components a live handle's row shows, in place (valid until the store next changes
    /// or the next frame), or nil for a stale handle.
    @inlinable @inline(__always)
    static func components(of slot: SlotHandle, in raw: UnsafeMutablePointer<RawTables>) -> UnsafeBufferPointer<Double>? {
        guard let (kind, p) = row(of: slot, in: raw) else { return nil }
        return UnsafeBufferPointer(start: p, count: kind.componentCount)
    }

    /// A live handle's value kind and row.
    @inlinable @inline(__always)
    static func row(of slot: SlotHandle, in raw: UnsafeMutablePointer<RawTables>) -> (ValueKind, UnsafeMutablePointer<Double>)? {
        guard let location = location(of: slot, in: raw) else { return nil }
        let kind = raw.pointee.kinds[Int(location.column)]
        return (kind, raw.pointee.bases[Int(location.column)] + Int(location.row) * kind.componentCount)
    }

    /// A live handle's location (column and row), or nil for a stale or forged one.
    @inlinable @inline(__always)
    static func location(of slot: SlotHandle, in raw: UnsafeMutablePointer<RawTables>) -> SlotLocation? {
        let i = Int(slot.index)
        guard i >= 0, i < raw.pointee.slotCapacity else { return nil }
        let location = raw.pointee.locations[i]
        guard location.column >= 0, location.generation == slot.generation else { return nil }
        return location
    }

    /// Where a frame's chunks write (valid for one frame; the table does not change during it).
    func target(changes: UnsafeMutablePointer<SlotHandle>) -> PresentationTarget {
        PresentationTarget(bases: UnsafePointer(bases), locations: UnsafePointer(locations), pending: UnsafePointer(pending),
                           changes: changes)
    }

    /// Marks a slot index as never used (called for new slot records).
    func initializeSlot(_ s: Int32) {
        reserveSlots(Int(s) + 1)
        locations[Int(s)] = SlotLocation(generation: 0, column: -1, row: -1)
    }

    /// Writes the components of `value` to `destination`.
    @inline(__always)
    static func write(_ value: AnimationValue, to d: UnsafeMutablePointer<Double>) {
        value.forEachComponent { c, v in d[c] = v }
    }

    /// A value of `kind` from the components at `source`.
    @inlinable @inline(__always)
    static func read(_ kind: ValueKind, from s: UnsafePointer<Double>) -> AnimationValue {
        AnimationValue(kind: kind) { s[$0] }
    }
}

/// Raw pointers into a ``PresentationTable`` through which a frame's chunks show values and list
/// changes: the columns' storage, the slots' locations and pending marks, and a chunk's own
/// region of the change list. Valid for one frame (the table does not change during a frame).
struct PresentationTarget {
    let bases: UnsafePointer<UnsafeMutablePointer<Double>>
    let locations: UnsafePointer<SlotLocation>
    let pending: UnsafePointer<UInt8>
    let changes: UnsafeMutablePointer<SlotHandle>

    /// The same tables, listing changes at `changes`.
    func listing(at changes: UnsafeMutablePointer<SlotHandle>) -> PresentationTarget {
        PresentationTarget(bases: bases, locations: locations, pending: pending, changes: changes)
    }
}

/// Grows raw storage to `capacity` elements, keeping the first `keeping` (the rest uninitialised).
func regrow<T>(_ storage: inout UnsafeMutablePointer<T>, keeping: Int, capacity: Int) {
    let grown = UnsafeMutablePointer<T>.allocate(capacity: capacity)
    grown.moveInitialize(from: storage, count: keeping)
    storage.deallocate()
    storage = grown
}

/// Every layer's presentation value of one property after the last frame, as contiguous memory a
/// host can hand to a renderer without copying (semantics §1.1).
///
/// Row `r` holds one layer's value: components `values[r·componentCount ..< (r+1)·componentCount]`
/// in `AnimationValue.components` order (x, y for points; r, g, b, a for colours; m11…m44 for
/// transforms), in Double. Rows are in no particular order; ``layer(atRow:)`` and
/// ``slot(atRow:)`` say whose each is.
///
/// A view, not a copy: it is valid until the store next changes (a slot added or removed) or the
/// next frame, like ``FrameEvaluator/events``. Values of animated layers are those of the last
/// frame; a model value set since shows at once.
public struct PresentationColumn {
    /// The property (`"position"`).
    public let property: String
    /// The kind of its values.
    public let kind: ValueKind
    /// Components per row.
    public let componentCount: Int
    /// Rows (layers that have the property).
    public let count: Int
    /// `count · componentCount` Doubles, row after row.
    public let values: UnsafeBufferPointer<Double>
    /// The layer of each row (`count` entries).
    public let layers: UnsafeBufferPointer<LayerID>
    private let slots: UnsafePointer<Int32>
    private let locations: UnsafePointer<SlotLocation>

    /// A view of `column`'s values, or of `rows` laid out as them (its velocities).
    init(_ column: PresentationTable.PropertyColumn, locations: UnsafePointer<SlotLocation>, rows: UnsafeMutablePointer<Double>? = nil) {
        property = column.property
        kind = column.kind
        componentCount = column.width
        count = column.count
        // A view of the column's own storage: valid until the store next changes (the type's contract).
        values = UnsafeBufferPointer(start: rows ?? column.values, count: column.count * column.width)
        slots = UnsafePointer(column.slots)
        layers = UnsafeBufferPointer(start: column.layers, count: column.count)
        self.locations = locations
    }

    /// The layer whose value is at `row`, or nil when `row` is outside `0 ..< count`.
    public func layer(atRow row: Int) -> LayerID? {
        row >= 0 && row < count ? layers[row] : nil
    }

    /// The slot whose value is at `row`, or nil when `row` is outside `0 ..< count`.
    public func slot(atRow row: Int) -> SlotHandle? {
        guard row >= 0 && row < count else { return nil }
        let s = slots[row]
        return SlotHandle(index: s, generation: locations[Int(s)].generation)
    }

    /// The value at `row`, or nil when `row` is outside `0 ..< count`.
    public func value(atRow row: Int) -> AnimationValue? {
        guard row >= 0 && row < count, let base = values.baseAddress else { return nil }
        return PresentationTable.read(kind, from: base + row * componentCount)
    }
}

extension PresentationTable {
    /// The table's part of ``TrackStore/invariantViolations(limit:)``: the raw arrays agree with the
    /// columns (their storage and kinds), each column is found by its property, every row names a
    /// slot whose location names that row back, every location with a column names a row, and the
    /// pending list and flags agree (each listed slot once, with a row). O(slots + rows).
    func check(into report: inout InvariantReport) {
        let slotCapacity = raw.pointee.slotCapacity
        report.check(columns.count <= raw.pointee.columnCapacity, "the table has \(columns.count) columns for room for \(raw.pointee.columnCapacity)")
        report.check(columnByProperty.count == columns.count, "\(columnByProperty.count) column names for \(columns.count) columns")
        var rows = 0
        for (c, column) in columns.enumerated() where !report.isFull {
            report.check(columnByProperty[column.property] == Int32(c), "column \(c) (\(column.property)) is not found by its property")
            report.check(bases[c] == column.values, "column \(c) (\(column.property))'s storage is not where the raw table says")
            report.check(kinds[c] == column.kind && column.width == column.kind.componentCount,
                         "column \(c) (\(column.property)) holds \(column.kind) but the raw table says \(kinds[c])")
            report.check(column.count <= column.capacity, "column \(c) has \(column.count) rows for room for \(column.capacity)")
            rows += column.count
            for r in 0..<column.count where !report.isFull {
                let s = Int(column.slots[r])
                guard s >= 0, s < slotCapacity else {
                    report.check(false, "column \(c) row \(r) names slot \(s), outside the table")
                    continue
                }
                report.check(locations[s].column == Int32(c) && locations[s].row == Int32(r),
                             "column \(c) row \(r) names slot \(s), whose location is column \(locations[s].column) row \(locations[s].row)")
            }
        }
        var located = 0
        for s in 0..<slotCapacity where locations[s].column >= 0 {
            located += 1
            report.check(Int(locations[s].column) < columns.count, "slot \(s)'s location names column \(locations[s].column)")
        }
        report.check(located == rows, "\(located) slots have a row, the columns hold \(rows)")
        report.check(Set(pendingChanges).count == pendingChanges.count, "a slot is listed as changed twice")
        for s in pendingChanges {
            let i = Int(s)
            report.check(i >= 0 && i < slotCapacity && pending[i] == 1 && locations[i].column >= 0,
                         "slot \(s) is listed as changed without its flag or its row")
        }
        let flagged = (0..<slotCapacity).count { pending[$0] != 0 }
        report.check(flagged == pendingChanges.count, "\(flagged) changed flags for \(pendingChanges.count) listed slots")
    }
}
