import AnimationCore

/// Keeps the frame's plan up to date with the changes since the last frame, and hands it to the
/// evaluator as one value (``FramePlan``).
///
/// Changes mark the slots whose plan they invalidate (entries, model, row or a track's lane
/// changed); before a frame each marked slot is planned again, O(its entries), never a replan of
/// everything: an *exclusive* slot lets its track show into the slot's presentation row; a
/// *composed* slot gets its operation (``Composition``). Freed time nodes leave the node order, and
/// the layer clocks' pass is rebuilt when it went stale.
final class SlotPlanner {
    private let tables: EngineTables
    private let clocks: LayerClocks
    /// The composed slots' operations, kept up to date by ``update()``.
    let composition: Composition
    /// The rows' order (``RowLayout``), restored by ``update()`` when enough of it was lost.
    let rowLayout: RowLayout
    /// Slots whose plan must be redone before the next frame, each listed once: `dirty[s]` is 1
    /// while slot s is listed.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity in EngineTables
    #endif
    private(set) var dirtySlots: [Int32] = []
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity in EngineTables
    #endif
    private(set) var dirty: [UInt8] = []
    /// Time nodes in an order where every parent comes before its children.
    private(set) var nodeOrder: [Int32] = []

    init(tables: EngineTables, clocks: LayerClocks) {
        self.tables = tables
        self.clocks = clocks
        composition = Composition(tables: tables)
        rowLayout = RowLayout(tables: tables)
    }

    /// Slot `s` is planned again before the next frame.
    @inline(__always)
    func markDirty(_ s: Int32) {
        guard dirty[Int(s)] == 0 else { return }
        dirty[Int(s)] = 1
        dirtySlots.append(s)
    }

    /// Whether slot `s` waits to be planned again.
    func isDirty(_ s: Int32) -> Bool { Int(s) < dirty.count && dirty[Int(s)] != 0 }

    /// Room for `capacity` slots: a frame that reaps and replans every slot must not allocate.
    func reserveSlots(_ capacity: Int) {
        if dirtySlots.capacity < capacity { dirtySlots.reserveCapacity(capacity) }
        if dirty.count < capacity { dirty.append(contentsOf: repeatElement(0, count: capacity - dirty.count)) }
        composition.reserveSlots(capacity)
    }

    /// Node `n` joins the node order (after its parent, which is already in it).
    func listNode(_ n: Int32) { nodeOrder.append(n) }

    /// Brings the plan up to date with the changes since the last frame and returns it: each
    /// changed slot is planned again, freed time nodes leave the node order (and become free), and
    /// the clock pass is rebuilt if it went stale. Allocation-free once capacities are reached.
    func update() -> FramePlan {
        clocks.update()
        if !tables.releasedNodes.isEmpty {
            // In place; parents stay before their children.
            nodeOrder.removeAll { !tables.nodes[Int($0)].alive }
            tables.freeNodes.append(contentsOf: tables.releasedNodes)
            tables.releasedNodes.removeAll(keepingCapacity: true)
        }
        if !dirtySlots.isEmpty {
            for s in dirtySlots {
                dirty[Int(s)] = 0
                replan(s)
            }
            dirtySlots.removeAll(keepingCapacity: true)
            composition.compactIfNeeded()
            rowLayout.update(composition)
        }
        return FramePlan(batches: tables.batches, nodeBatch: tables.nodeBatch, nodeTimes: tables.nodeTimes, nodeRates: tables.nodeRates, nodeOrder: nodeOrder,
                         nodes: tables.nodes, clockSteps: clocks.steps, composition: composition, table: tables.table,
                         version: tables.version, pendingEventCount: tables.pendingEvents.count)
    }

    /// Plans slot `s` again: an exclusive slot's track shows its output in the slot's row itself;
    /// a composed slot gets a fast or general operation (``Composition``).
    private func replan(_ s: Int32) {
        composition.unplan(s)
        guard tables.slots[s].alive, !tables.slots[s].entries.isEmpty else { return }
        let table = tables.table
        let location = table.locations[Int(s)]
        if tables.isExclusive(slot: s) {
            let t = Int(tables.slots[s].entries[0].track)
            tables.batches[Int(tables.tracks[t].batch)].setShown(Int(tables.tracks[t].index), row: table.rowPointer(ofSlot: s),
                                                                 velocityRow: table.velocityRow(ofSlot: s), slot: SlotHandle(index: s, generation: location.generation))
            return
        }
        for entry in tables.slots[s].entries where !entry.isRotation {
            let t = Int(entry.track)
            tables.batches[Int(tables.tracks[t].batch)].setShown(Int(tables.tracks[t].index), row: nil, velocityRow: nil, slot: SlotHandle(rawValue: 0))
        }
        tables.tracks.withUnsafeBufferPointer { tracks in
            composition.plan(s, record: tables.slots[s], location: location, tracks: tracks)
        }
    }

    /// The planner's part of ``TrackStore/invariantViolations(limit:)``: the dirty list and flags
    /// agree; live group nodes come in the node order, parents before children; the composition
    /// plan agrees with the slots.
    func check(into report: inout InvariantReport) {
        report.check(Set(dirtySlots).count == dirtySlots.count, "a slot is on the dirty list twice")
        for s in dirtySlots { report.check(isDirty(s), "slot \(s) is on the dirty list without its flag") }
        let flagged = tables.slots.indices.count { isDirty(Int32($0)) }
        report.check(flagged == dirtySlots.count, "\(flagged) dirty flags for \(dirtySlots.count) listed slots")
        var position = [Int32: Int]()
        for (k, n) in nodeOrder.enumerated() where tables.nodes[Int(n)].alive {
            report.check(position.updateValue(k, forKey: n) == nil, "group node \(n) is in the node order twice")
            let parent = tables.nodes[Int(n)].parent
            if parent >= 0 { report.check(position[parent] != nil, "group node \(n) comes before its parent \(parent)") }
        }
        // Layer clocks (semantics §2.7) are nodes of no animation, in the clock pass instead.
        let live = tables.nodes.count { $0.alive && $0.animation >= 0 }
        report.check(position.count == live, "the node order holds \(position.count) of \(live) live group nodes")
        composition.checkPlan(isDirty: isDirty, into: &report)
    }
}
