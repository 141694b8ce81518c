import AnimationCore

/// Where a slot's presentation value lives: its property column and row, and the slot's
/// generation (so that a stale handle is refused with one load).
struct SlotLocation {
    var generation: UInt32
    /// −1 for a free slot.
    var column: Int32
    var row: Int32
}

/// Every slot's presentation value, in exactly one place (semantics §1.1; design.md, "one
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
final class PresentationTable {
    /// One property's rows (raw storage: `values` holds `capacity · width` Doubles).
    final class PropertyColumn {
        let property: String
        let kind: ValueKind
        let width: Int
        /// Row-major: row r's components are `values[r·width ..< (r+1)·width]`.
        private(set) var values: UnsafeMutablePointer<Double>
        /// The slot index at each row.
        private(set) var slots: UnsafeMutablePointer<Int32>
        /// The layer at each row (so a bulk reader can tell rows apart without the store).
        private(set) var layers: UnsafeMutablePointer<LayerID>
        private(set) var capacity = 0
        private(set) var count = 0

        init(property: String, kind: ValueKind) {
            self.property = property
            self.kind = kind
            width = kind.componentCount
            values = .allocate(capacity: 16 * width)
            slots = .allocate(capacity: 16)
            layers = .allocate(capacity: 16)
            capacity = 16
        }

        deinit {
            values.deallocate()
            slots.deallocate()
            layers.deallocate()
        }

        /// Appends a row for `slot` and returns its number.
        func append(slot: Int32, layer: LayerID) -> Int32 {
            if count == capacity {
                let newCapacity = capacity * 2
                let newValues = UnsafeMutablePointer<Double>.allocate(capacity: newCapacity * width)
                newValues.update(from: values, count: count * width)
                values.deallocate()
                values = newValues
                let newSlots = UnsafeMutablePointer<Int32>.allocate(capacity: newCapacity)
                newSlots.update(from: slots, count: count)
                slots.deallocate()
                slots = newSlots
                let newLayers = UnsafeMutablePointer<LayerID>.allocate(capacity: newCapacity)
                newLayers.update(from: layers, count: count)
                layers.deallocate()
                layers = newLayers
                capacity = newCapacity
            }
            let row = count
            slots[row] = slot
            layers[row] = layer
            (values + row * width).update(repeating: 0, count: width)
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
            slots[r] = slots[last]
            layers[r] = layers[last]
            return slots[r]
        }

        @inline(__always) func row(_ r: Int32) -> UnsafeMutablePointer<Double> { values + Int(r) * width }
    }

    private(set) var columns: [PropertyColumn] = []
    private var columnByProperty: [String: Int32] = [:]
    /// Parallel to the store's slot table.
    private(set) var locations: UnsafeMutablePointer<SlotLocation>
    private var locationCapacity = 16
    /// Incremented whenever a row moves or a column grows: pointers into rows taken before are
    /// stale (the evaluator's composition plan holds such pointers and is rebuilt then).
    private(set) var layoutVersion = 0

    /// Slots whose shown value was set since the last frame (model values, new slots), each once;
    /// a frame reports them as changed. `pending[s]` is 1 while slot s is listed.
    private(set) var pendingChanges: [Int32] = []
    private(set) var pending: UnsafeMutablePointer<UInt8>

    init() {
        locations = .allocate(capacity: 16)
        pending = .allocate(capacity: 16)
        pending.initialize(repeating: 0, count: 16)
    }

    deinit {
        locations.deallocate()
        pending.deallocate()
    }

    /// Makes room for slot indices below `slotCount`.
    private func reserveSlots(_ slotCount: Int) {
        guard slotCount > locationCapacity else { return }
        let newCapacity = max(slotCount, locationCapacity * 2)
        let newLocations = UnsafeMutablePointer<SlotLocation>.allocate(capacity: newCapacity)
        newLocations.update(from: locations, count: locationCapacity)
        locations.deallocate()
        locations = newLocations
        let newPending = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newPending.update(from: pending, count: locationCapacity)
        (newPending + locationCapacity).initialize(repeating: 0, count: newCapacity - locationCapacity)
        pending.deallocate()
        pending = newPending
        locationCapacity = newCapacity
    }

    /// The column of `property`, created with `kind` if new.
    private func column(for property: String, kind: ValueKind) -> Int32 {
        if let c = columnByProperty[property] { return c }
        columns.append(PropertyColumn(property: property, kind: kind))
        columnByProperty[property] = Int32(columns.count - 1)
        return Int32(columns.count - 1)
    }

    /// The column index of `property`, if any slot ever had it.
    func columnIndex(of property: String) -> Int32? { columnByProperty[property] }

    /// Gives slot `s` (generation `generation`) a row in its property's column, showing `model`.
    func addSlot(_ s: Int32, generation: UInt32, layer: LayerID, property: String, model: AnimationValue) {
        reserveSlots(Int(s) + 1)
        let c = column(for: property, kind: model.kind)
        let column = columns[Int(c)]
        let grows = column.count == column.capacity
        let row = column.append(slot: s, layer: layer)
        locations[Int(s)] = SlotLocation(generation: generation, column: c, row: row)
        if grows { layoutVersion += 1 }
        store(model, slot: s)
        markChanged(s)
    }

    /// Frees slot `s`'s row (the column's last row moves into it).
    func removeSlot(_ s: Int32) {
        let location = locations[Int(s)]
        guard location.column >= 0 else { return }
        if let moved = columns[Int(location.column)].remove(row: location.row) {
            locations[Int(moved)].row = location.row
        }
        locations[Int(s)].column = -1
        if pending[Int(s)] != 0 {
            pending[Int(s)] = 0
            pendingChanges.removeAll { $0 == s }
        }
        layoutVersion += 1
    }

    /// Writes `value` into slot `s`'s row (the value has the column's kind).
    func store(_ value: AnimationValue, slot s: Int32) {
        let location = locations[Int(s)]
        Self.write(value, to: columns[Int(location.column)].row(location.row))
    }

    /// Writes `value` into slot `s`'s row and lists the slot as changed when its bits differ from
    /// what the row showed.
    func show(_ value: AnimationValue, slot s: Int32) {
        let location = locations[Int(s)]
        let column = columns[Int(location.column)]
        if Self.replace(column.row(location.row), with: value, width: column.width) { markChanged(s) }
    }

    /// Writes `value` (of `width` components) into `row`; returns whether any component's bits
    /// changed (a NaN equals itself here, unlike `==`). Allocation-free: frames call it.
    static func replace(_ row: UnsafeMutablePointer<Double>, with value: AnimationValue, width: Int) -> Bool {
        // Sixteen Doubles on the stack: the widest value (a transform).
        var scratch = (SIMD8<Double>(), SIMD8<Double>())
        return withUnsafeMutableBytes(of: &scratch) { raw in
            let components = raw.baseAddress!.assumingMemoryBound(to: Double.self)   // 128 bytes of Doubles
            write(value, to: components)
            var differs = false
            for c in 0..<width {
                differs = differs || components[c].bitPattern != row[c].bitPattern
                row[c] = components[c]
            }
            return differs
        }
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

    /// The value at slot `s`'s row.
    @inline(__always)
    func value(ofSlot s: Int32) -> AnimationValue {
        let location = locations[Int(s)]
        let column = columns[Int(location.column)]
        return Self.read(column.kind, from: column.row(location.row))
    }

    /// The slot index a live handle names, or nil.
    @inline(__always)
    func resolve(_ slot: SlotHandle) -> Int32? {
        let i = Int(slot.index)
        guard i >= 0, i < locationCapacity else { return nil }
        let location = locations[i]
        guard location.column >= 0, location.generation == slot.generation else { return nil }
        return slot.index
    }

    /// Marks a slot index as never used (called for new slot records).
    func initializeSlot(_ s: Int32) {
        reserveSlots(Int(s) + 1)
        locations[Int(s)] = SlotLocation(generation: 0, column: -1, row: -1)
    }

    /// Writes the components of `value` to `destination`.
    static func write(_ value: AnimationValue, to d: UnsafeMutablePointer<Double>) {
        switch value {
        case .scalar(let v): d[0] = v
        case .point(let p): d[0] = p.x; d[1] = p.y
        case .size(let s): d[0] = s.width; d[1] = s.height
        case .rect(let r): d[0] = r.origin.x; d[1] = r.origin.y; d[2] = r.size.width; d[3] = r.size.height
        case .color(let c): d[0] = c.red; d[1] = c.green; d[2] = c.blue; d[3] = c.alpha
        case .transform(let t):
            for r in 0..<4 {
                for c in 0..<4 { d[r * 4 + c] = t[r, c] }
            }
        case .affineTransform(let t): d[0] = t.a; d[1] = t.b; d[2] = t.c; d[3] = t.d; d[4] = t.tx; d[5] = t.ty
        }
    }

    /// A value of `kind` from the components at `source`.
    @inline(__always)
    static func read(_ kind: ValueKind, from s: UnsafePointer<Double>) -> AnimationValue {
        switch kind {
        case .scalar: return .scalar(s[0])
        case .point: return .point(Point(x: s[0], y: s[1]))
        case .size: return .size(Size(width: s[0], height: s[1]))
        case .rect: return .rect(Rect(x: s[0], y: s[1], width: s[2], height: s[3]))
        case .color: return .color(Color(red: s[0], green: s[1], blue: s[2], alpha: s[3]))
        case .transform:
            var t = Transform3D.identity
            for r in 0..<4 {
                for c in 0..<4 { t[r, c] = s[r * 4 + c] }
            }
            return .transform(t)
        case .affineTransform:
            return .affineTransform(AffineTransform(a: s[0], b: s[1], c: s[2], d: s[3], tx: s[4], ty: s[5]))
        }
    }
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

    init(_ column: PresentationTable.PropertyColumn, locations: UnsafePointer<SlotLocation>) {
        property = column.property
        kind = column.kind
        componentCount = column.width
        count = column.count
        values = UnsafeBufferPointer(start: column.values, count: column.count * column.width)
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
