import AnimationCore

extension TrackStore: InvariantChecking {
    /// Every broken invariant, each described (at most `limit`); empty when the store is
    /// consistent. Compiled in every configuration (the tests call it in release builds too);
    /// it allocates and walks the whole store, so nothing calls it in a release frame. Debug and
    /// fuzzing builds check it at the start of every frame, once the plan is brought up to date
    /// (``checkInvariants()``); a host may call it between changes too.
    ///
    /// What it checks:
    /// - free lists name records that are not alive, each once, and live plus free records make
    ///   up each table (tracks, slots, animations, group nodes);
    /// - each live track has a lane in its batch that names it back, and entries in its slot (and
    ///   rotation slot) and in its animation's track list;
    /// - each live slot is found by its layer and property, listed by its layer, owns a row of
    ///   its property's column that names it back, and lists its entries in composition order
    ///   (add order, semantics §8.4), each naming a live track that names the slot;
    /// - each live animation is listed by its layer (or parked under its key), found by its key,
    ///   and its tracks and group nodes name it;
    /// - layers list only live slots and animations of their own;
    /// - the dirty list and the dirty flags agree; live group nodes come in the node order,
    ///   parents before children; layer clocks have live nodes of their own;
    /// - the composition plan: every slot that is not waiting to be planned again has the
    ///   operation its entries call for (none when exclusive or unanimated), at its current row,
    ///   reading its tracks' current lanes;
    /// - the presentation table: its raw arrays agree with its columns, every row names a slot
    ///   whose location names it back, and its pending list and flags agree.
    public func invariantViolations(limit: Int = 20) -> [String] {
        var report = InvariantReport(limit: limit)
        checkFreeLists(&report)
        checkTracks(&report)
        checkSlots(&report)
        checkAnimations(&report)
        checkLayers(&report)
        planner.check(into: &report)
        clocks.check(into: &report)
        table.check(into: &report)
        return report.lines
    }
}

/// Broken invariants as they are found, up to a limit (a corrupted store could break thousands):
/// the report every invariant check of the engine and its front ends writes to.
package struct InvariantReport {
    package let limit: Int
    package private(set) var lines: [String] = []

    package init(limit: Int) { self.limit = max(1, limit) }

    package var isFull: Bool { lines.count >= limit }

    package mutating func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        guard !isFull, !condition() else { return }
        lines.append(message())
    }
}

extension TrackStore {
    private func checkFreeLists(_ report: inout InvariantReport) {
        tables.tracks.checkFreeList("track", into: &report)
        tables.slots.checkFreeList("slot", into: &report)
        tables.animations.checkFreeList("animation", into: &report)
        var seen = Set<Int32>()
        let freeNodes = tables.freeNodes + tables.releasedNodes
        for n in freeNodes {
            report.check(n >= 0 && Int(n) < tables.nodes.count, "group node free list names \(n), outside 0..<\(tables.nodes.count)")
            guard n >= 0 && Int(n) < tables.nodes.count else { continue }
            report.check(!tables.nodes[Int(n)].alive, "group node \(n) is alive but on the free list")
            report.check(seen.insert(n).inserted, "group node \(n) is on the free list twice")
        }
        let liveNodes = tables.nodes.count(where: \.alive)
        report.check(liveNodes + freeNodes.count == tables.nodes.count,
                     "group node: \(liveNodes) alive + \(freeNodes.count) free ≠ \(tables.nodes.count) records")
        let liveTracks = tables.tracks.liveCount
        report.check(trackCount == liveTracks, "batches hold \(trackCount) lanes for \(liveTracks) live tracks")
    }

    private func checkTracks(_ report: inout InvariantReport) {
        for t in tables.tracks.indices where tables.tracks[t].alive && !report.isFull {
            let track = tables.tracks[t], name = "track \(t)"
            guard track.batch >= 0, Int(track.batch) < tables.batches.count else {
                report.check(false, "\(name) names batch \(track.batch) of \(tables.batches.count)")
                continue
            }
            let batch = tables.batches[Int(track.batch)]
            // A parked animation's track keeps its lane but leaves its slot (it shows nothing).
            let parked = track.animation >= 0 && Int(track.animation) < tables.animations.count && tables.animations[Int(track.animation)].parked
            guard track.index >= 0, Int(track.index) < batch.count else {
                report.check(false, "\(name) names lane \(track.index) of a batch of \(batch.count)")
                continue
            }
            report.check(batch.trackID[Int(track.index)] == Int32(t),
                         "\(name)'s lane \(track.index) names track \(batch.trackID[Int(track.index)])")
            for (s, rotation) in [(track.slot, false), (track.rotationSlot, true)] where s >= 0 || !rotation {
                guard s >= 0, Int(s) < tables.slots.count, tables.slots[s].alive else {
                    report.check(false, "\(name) names slot \(s), which is not alive")
                    continue
                }
                let entries = tables.slots[s].entries.count { $0.track == Int32(t) && $0.isRotation == rotation }
                report.check(entries == (parked ? 0 : 1), "\(name) has \(entries) entries in slot \(s) (rotation: \(rotation), parked: \(parked))")
            }
            guard track.animation >= 0, Int(track.animation) < tables.animations.count, tables.animations[Int(track.animation)].alive else {
                report.check(false, "\(name) names animation \(track.animation), which is not alive")
                continue
            }
            let a = tables.animations[Int(track.animation)]
            report.check(a.tracks.contains(Int32(t)), "\(name)'s animation \(track.animation) does not list it")
            let handle = AnimationHandle(index: track.animation, generation: a.generation).rawValue
            report.check(parked || batch.animationID[Int(track.index)] == handle, "\(name)'s lane names another animation")
        }
        // A lane's `shows` bit says whether it shows into a row: the frame visits only those lanes' rows.
        for (b, batch) in tables.batches.enumerated() where !report.isFull {
            for i in 0..<batch.count where (batch.changed[i] & TrackBatch.shows != 0) != (batch.shownRow[i] != batch.sink) {
                report.check(false, "batch \(b)'s lane \(i) \(batch.shownRow[i] == batch.sink ? "is marked as showing into no row" : "shows into a row unmarked")")
                break
            }
            // A lane whose value row is its slot's current row shows its velocity in the slot's
            // current velocity row (once both the batch and the table keep velocities).
            if let velocityRow = batch.velocityRow {
                for i in 0..<batch.count where batch.changed[i] & TrackBatch.shows != 0 {
                    let slot = SlotHandle(rawValue: batch.shownSlot[i])
                    guard tables.table.locations[Int(slot.index)].column >= 0,
                          batch.shownRow[i] == tables.table.rowPointer(ofSlot: slot.index) else { continue }
                    guard velocityRow[i] == tables.table.velocityRow(ofSlot: slot.index) ?? batch.sink else {
                        report.check(false, "batch \(b)'s lane \(i) shows its velocity outside its slot's velocity row")
                        break
                    }
                }
            }
            // A block marked contiguous is shown with vector stores: its sixteen lanes must show, in order.
            var marked = 0
            for first in stride(from: 0, to: batch.count, by: 16) where batch.changed[first] & TrackBatch.contiguous != 0 {
                marked += 1
                let inOrder = first + 16 <= batch.count && (first..<first + 16).allSatisfy {
                    batch.changed[$0] & TrackBatch.shows != 0 && batch.shownRow[$0] == batch.shownRow[first] + ($0 - first) * batch.width
                }
                report.check(inOrder, "batch \(b)'s block at lane \(first) is marked contiguous but its rows are not in lane order")
            }
            for t in 0..<batch.count where t % 16 != 0 && batch.changed[t] & TrackBatch.contiguous != 0 {
                report.check(false, "batch \(b)'s lane \(t) carries a block's contiguous mark")
                break
            }
            report.check(marked == batch.contiguousBlocks, "batch \(b) counts \(batch.contiguousBlocks) contiguous blocks, \(marked) are marked")
        }
    }

    private func checkSlots(_ report: inout InvariantReport) {
        for s in tables.slots.indices where tables.slots[s].alive && !report.isFull {
            let slot = tables.slots[s], location = tables.table.locations[s]
            guard location.column >= 0, Int(location.column) < tables.table.columns.count else {
                report.check(false, "slot \(s) has no row (column \(location.column))")
                continue
            }
            let column = tables.table.columns[Int(location.column)], name = "slot \(s) (\(column.property))"
            report.check(column.kind == slot.kind, "\(name) has a row in column \(column.property) of \(column.kind), the slot a \(slot.kind)")
            report.check(location.row >= 0 && Int(location.row) < column.count && column.slots[Int(location.row)] == Int32(s),
                         "\(name)'s row \(location.row) names another slot")
            report.check(location.generation == slot.generation, "\(name)'s row has generation \(location.generation), the slot \(slot.generation)")
            var previous: (UInt64, Int32)?
            for entry in slot.entries {
                let t = Int(entry.track)
                guard t >= 0, t < tables.tracks.count, tables.tracks[t].alive else {
                    report.check(false, "\(name) lists track \(t), which is not alive")
                    continue
                }
                report.check((entry.isRotation ? tables.tracks[t].rotationSlot : tables.tracks[t].slot) == Int32(s),
                             "\(name) lists track \(t), which names slot \(entry.isRotation ? tables.tracks[t].rotationSlot : tables.tracks[t].slot)")
                let order = (tables.tracks[t].sequence, tables.tracks[t].leafIndex)
                if let previous { report.check(previous <= order, "\(name)'s entries are out of add order") }
                previous = order
            }
        }
    }

    private func checkAnimations(_ report: inout InvariantReport) {
        for a in tables.animations.indices where tables.animations[a].alive && !report.isFull {
            let animation = tables.animations[a], name = "animation \(a)"
            guard tables.layers[animation.layer] != nil else {
                report.check(false, "\(name)'s layer \(animation.layer) has no record")
                continue
            }
            let underKey = animation.key.map { tables.animationByKey[AnimationKey(layer: animation.layer, key: $0)] == Int32(a) }
            if animation.parked {
                report.check(underKey ?? false, "\(name) is parked but not under its key")
            } else if let key = animation.key {
                report.check(underKey ?? false, "\(name) is not found by its key '\(key)'")
            }
            for t in animation.tracks {
                report.check(t >= 0 && Int(t) < tables.tracks.count && tables.tracks[t].alive && tables.tracks[t].animation == Int32(a),
                             "\(name) lists track \(t), which is not alive or not its own")
            }
            for n in animation.nodes {
                report.check(n >= 0 && Int(n) < tables.nodes.count && tables.nodes[Int(n)].alive && tables.nodes[Int(n)].animation == Int32(a),
                             "\(name) lists group node \(n), which is not alive or not its own")
            }
        }
    }

    private func checkLayers(_ report: inout InvariantReport) {
        // Each layer's lists hold its own live records, linked both ways; with every live record
        // on some list once (the totals match, and a list holds no record twice or it would
        // cycle), every slot and animation is listed by its layer.
        var listedSlots = 0, listedAnimations = 0
        for (id, layer) in tables.layers where !report.isFull {
            // A slot belongs to the layer its presentation row names (a slot without a row is
            // reported by the slot checks).
            let listed = tables.slots.checkList(layer.slots, "layer \(id)'s slots", belongs: { s in
                let location = tables.table.locations[Int(s)]
                guard location.column >= 0, Int(location.column) < tables.table.columns.count, location.row >= 0,
                      Int(location.row) < tables.table.columns[Int(location.column)].count else { return true }
                return tables.table.columns[Int(location.column)].layers[Int(location.row)] == id
            }, into: &report)
            listedSlots += listed.count
            listedAnimations += tables.animations.checkList(layer.animations, "layer \(id)'s animations",
                                                            belongs: { tables.animations[$0].layer == id }, into: &report).count
            // Found by layer and property: one slot per column, and the index (past the
            // threshold) names each.
            var columns = Set<Int32>()
            for s in listed where tables.table.locations[Int(s)].column >= 0 {
                let column = tables.table.locations[Int(s)].column
                report.check(columns.insert(column).inserted, "layer \(id) has two slots in column \(column)")
                report.check(layer.slotIndex.isEmpty || layer.slotIndex[column] == s, "layer \(id)'s index does not find slot \(s)")
            }
            report.check(listed.count > EngineTables.slotIndexThreshold ? layer.slotIndex.count == listed.count
                                                                         : layer.slotIndex.isEmpty || layer.slotIndex.count == listed.count,
                         "layer \(id) indexes \(layer.slotIndex.count) of its \(listed.count) slots")
        }
        for (name, a) in tables.animationByKey where !report.isFull {
            report.check(a >= 0 && Int(a) < tables.animations.count && tables.animations[a].alive && tables.animations[a].key == name.key
                         && tables.animations[a].layer == name.layer,
                         "key '\(name.key)' of layer \(name.layer) names animation \(a), which is not its animation alive under that key")
        }
        guard !report.isFull else { return }
        report.check(listedSlots == tables.slots.liveCount, "layers list \(listedSlots) slots of \(tables.slots.liveCount) live")
        report.check(listedAnimations == tables.animations.liveCount,
                     "layers list \(listedAnimations) animations of \(tables.animations.liveCount) live")
    }
}
