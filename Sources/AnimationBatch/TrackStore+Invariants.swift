import AnimationCore

extension TrackStore {
    /// Checks that the store's tables agree with one another and that the composition plan agrees
    /// with the slots (the list is ``invariantViolations(limit:)``'s), and stops the program with
    /// the first broken ones.
    ///
    /// Debug builds (and fuzzing builds, `-DFUZZING`) run it at the start of every frame, once the
    /// plan is brought up to date; a host may call it between changes too. In release builds it is
    /// compiled to nothing: the check walks the whole store, O(slots + tracks + animations).
    @inlinable
    public func checkInvariants() {
        #if DEBUG || FUZZING
        let broken = invariantViolations(limit: 10)
        precondition(broken.isEmpty, "TrackStore invariants broken:\n" + broken.joined(separator: "\n"))
        #endif
    }

    /// Every broken invariant, each described (at most `limit`); empty when the store is
    /// consistent. Compiled in every configuration (the tests call it in release builds too);
    /// it allocates and walks the whole store, so nothing calls it in a release frame.
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
    ///   reading its tracks' current lanes.
    public func invariantViolations(limit: Int = 20) -> [String] {
        var report = InvariantReport(limit: limit)
        checkFreeLists(&report)
        checkTracks(&report)
        checkSlots(&report)
        checkAnimations(&report)
        checkLayers(&report)
        checkOrder(&report)
        composition.checkPlan(of: self, into: &report)
        return report.lines
    }
}

/// Broken invariants as they are found, up to a limit (a corrupted store could break thousands).
struct InvariantReport {
    let limit: Int
    private(set) var lines: [String] = []

    init(limit: Int) { self.limit = max(1, limit) }

    var isFull: Bool { lines.count >= limit }

    mutating func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        guard !isFull, !condition() else { return }
        lines.append(message())
    }
}

extension TrackStore {
    /// Whether slot `s` waits for ``updatePlan()`` to plan it again.
    func isDirty(_ s: Int32) -> Bool { Int(s) < dirty.count && dirty[Int(s)] != 0 }

    private func checkFreeLists(_ report: inout InvariantReport) {
        func check(_ name: String, free: [Int32], count: Int, alive: (Int) -> Bool) {
            var seen = Set<Int32>()
            for i in free {
                report.check(i >= 0 && Int(i) < count, "\(name) free list names \(i), outside 0..<\(count)")
                guard i >= 0 && Int(i) < count else { continue }
                report.check(!alive(Int(i)), "\(name) \(i) is alive but on the free list")
                report.check(seen.insert(i).inserted, "\(name) \(i) is on the free list twice")
            }
            let live = (0..<count).count(where: alive)
            report.check(live + free.count == count, "\(name): \(live) alive + \(free.count) free ≠ \(count) records")
        }
        check("track", free: freeTracks, count: tracks.count) { self.tracks[$0].alive }
        check("slot", free: freeSlots, count: slots.count) { self.slots[$0].alive }
        check("animation", free: freeAnimations, count: animations.count) { self.animations[$0].alive }
        check("group node", free: freeNodes + releasedNodes, count: nodes.count) { self.nodes[$0].alive }
        let liveTracks = tracks.count(where: \.alive)
        report.check(trackCount == liveTracks, "batches hold \(trackCount) lanes for \(liveTracks) live tracks")
    }

    private func checkTracks(_ report: inout InvariantReport) {
        for t in tracks.indices where tracks[t].alive && !report.isFull {
            let track = tracks[t], name = "track \(t)"
            guard track.batch >= 0, Int(track.batch) < batches.count else {
                report.check(false, "\(name) names batch \(track.batch) of \(batches.count)")
                continue
            }
            let batch = batches[Int(track.batch)]
            // A parked animation's track keeps its lane but leaves its slot (it shows nothing).
            let parked = track.animation >= 0 && Int(track.animation) < animations.count && animations[Int(track.animation)].parked
            guard track.index >= 0, Int(track.index) < batch.count else {
                report.check(false, "\(name) names lane \(track.index) of a batch of \(batch.count)")
                continue
            }
            report.check(batch.trackID[Int(track.index)] == Int32(t),
                         "\(name)'s lane \(track.index) names track \(batch.trackID[Int(track.index)])")
            for (s, rotation) in [(track.slot, false), (track.rotationSlot, true)] where s >= 0 || !rotation {
                guard s >= 0, Int(s) < slots.count, slots[Int(s)].alive else {
                    report.check(false, "\(name) names slot \(s), which is not alive")
                    continue
                }
                let entries = slots[Int(s)].entries.count { $0.track == Int32(t) && $0.isRotation == rotation }
                report.check(entries == (parked ? 0 : 1), "\(name) has \(entries) entries in slot \(s) (rotation: \(rotation), parked: \(parked))")
            }
            guard track.animation >= 0, Int(track.animation) < animations.count, animations[Int(track.animation)].alive else {
                report.check(false, "\(name) names animation \(track.animation), which is not alive")
                continue
            }
            let a = animations[Int(track.animation)]
            report.check(a.tracks.contains(Int32(t)), "\(name)'s animation \(track.animation) does not list it")
            let handle = AnimationHandle(index: track.animation, generation: a.generation).rawValue
            report.check(parked || batch.animationID[Int(track.index)] == handle, "\(name)'s lane names another animation")
        }
    }

    private func checkSlots(_ report: inout InvariantReport) {
        var live = 0
        for s in slots.indices where slots[s].alive && !report.isFull {
            live += 1
            let slot = slots[s], name = "slot \(s) (\(slot.property))"
            report.check(slotByKey[SlotKey(layer: slot.layer, property: slot.property)] == Int32(s), "\(name) is not found by its layer and property")
            report.check(layerRecords[slot.layer]?.slots.contains(Int32(s)) ?? false, "\(name) is not listed by its layer \(slot.layer)")
            report.check(slot.model.kind == slot.kind, "\(name)'s model is a \(slot.model.kind), the slot a \(slot.kind)")
            let location = table.locations[s]
            if location.column >= 0, Int(location.column) < table.columns.count {
                let column = table.columns[Int(location.column)]
                report.check(column.property == slot.property && column.kind == slot.kind,
                             "\(name) has a row in column \(column.property) of \(column.kind)")
                report.check(location.row >= 0 && Int(location.row) < column.count && column.slots[Int(location.row)] == Int32(s),
                             "\(name)'s row \(location.row) names another slot")
                report.check(location.generation == slot.generation, "\(name)'s row has generation \(location.generation), the slot \(slot.generation)")
            } else {
                report.check(false, "\(name) has no row (column \(location.column))")
            }
            var previous: (UInt64, Int32)?
            for entry in slot.entries {
                let t = Int(entry.track)
                guard t >= 0, t < tracks.count, tracks[t].alive else {
                    report.check(false, "\(name) lists track \(t), which is not alive")
                    continue
                }
                report.check((entry.isRotation ? tracks[t].rotationSlot : tracks[t].slot) == Int32(s),
                             "\(name) lists track \(t), which names slot \(entry.isRotation ? tracks[t].rotationSlot : tracks[t].slot)")
                report.check(entry.sequence == tracks[t].sequence, "\(name)'s entry for track \(t) has an old sequence")
                if let previous { report.check(previous <= (entry.sequence, entry.leafIndex), "\(name)'s entries are out of add order") }
                previous = (entry.sequence, entry.leafIndex)
            }
        }
        report.check(slotByKey.count == live, "\(slotByKey.count) slot keys for \(live) live slots")
    }

    private func checkAnimations(_ report: inout InvariantReport) {
        for a in animations.indices where animations[a].alive && !report.isFull {
            let animation = animations[a], name = "animation \(a)"
            guard let layer = layerRecords[animation.layer] else {
                report.check(false, "\(name)'s layer \(animation.layer) has no record")
                continue
            }
            report.check(layer.animations.count { $0 == Int32(a) } == 1, "\(name) is not listed once by its layer")
            if animation.parked {
                report.check(animation.key.map { layer.keys[$0] == Int32(a) } ?? false, "\(name) is parked but not under its key")
            } else if let key = animation.key {
                report.check(layer.keys[key] == Int32(a), "\(name) is not found by its key '\(key)'")
            }
            for t in animation.tracks {
                report.check(t >= 0 && Int(t) < tracks.count && tracks[Int(t)].alive && tracks[Int(t)].animation == Int32(a),
                             "\(name) lists track \(t), which is not alive or not its own")
            }
            for n in animation.nodes {
                report.check(n >= 0 && Int(n) < nodes.count && nodes[Int(n)].alive && nodes[Int(n)].animation == Int32(a),
                             "\(name) lists group node \(n), which is not alive or not its own")
            }
        }
    }

    private func checkLayers(_ report: inout InvariantReport) {
        for (id, layer) in layerRecords where !report.isFull {
            for s in layer.slots {
                report.check(s >= 0 && Int(s) < slots.count && slots[Int(s)].alive && slots[Int(s)].layer == id,
                             "layer \(id) lists slot \(s), which is not alive or not its own")
            }
            for a in layer.animations {
                report.check(a >= 0 && Int(a) < animations.count && animations[Int(a)].alive && animations[Int(a)].layer == id,
                             "layer \(id) lists animation \(a), which is not alive or not its own")
            }
            for (key, a) in layer.keys {
                guard a >= 0, Int(a) < animations.count, animations[Int(a)].alive, animations[Int(a)].key == key else {
                    report.check(false, "layer \(id)'s key '\(key)' names animation \(a), which is not alive under that key")
                    continue
                }
                report.check(layer.animations.contains(a),
                             "layer \(id)'s key '\(key)' names animation \(a), which is not its listed animation with that key")
            }
        }
    }

    private func checkOrder(_ report: inout InvariantReport) {
        let dirtyList = dirtySlots
        report.check(Set(dirtyList).count == dirtyList.count, "a slot is on the dirty list twice")
        for s in dirtyList { report.check(isDirty(s), "slot \(s) is on the dirty list without its flag") }
        let flagged = slots.indices.count { isDirty(Int32($0)) }
        report.check(flagged == dirtyList.count, "\(flagged) dirty flags for \(dirtyList.count) listed slots")
        var position = [Int32: Int]()
        for (k, n) in nodeOrder.enumerated() where nodes[Int(n)].alive {
            report.check(position.updateValue(k, forKey: n) == nil, "group node \(n) is in the node order twice")
            let parent = nodes[Int(n)].parent
            if parent >= 0 { report.check(position[parent] != nil, "group node \(n) comes before its parent \(parent)") }
        }
        // Layer clocks (semantics §2.7) are nodes of no animation, in the clock plan instead.
        let live = nodes.count { $0.alive && $0.animation >= 0 }
        report.check(position.count == live, "the node order holds \(position.count) of \(live) live group nodes")
        let clockNodes = Set(clocks.values.map(\.node))
        for (layer, clock) in clocks {
            report.check(clock.node >= 0 && Int(clock.node) < nodes.count && nodes[Int(clock.node)].alive && nodes[Int(clock.node)].animation < 0,
                         "layer \(layer)'s clock names node \(clock.node), which is not a live clock node")
        }
        let unowned = nodes.indices.count { nodes[$0].alive && nodes[$0].animation < 0 && !clockNodes.contains(Int32($0)) }
        report.check(unowned == 0, "\(unowned) live nodes belong to no animation and no layer clock")
    }
}
