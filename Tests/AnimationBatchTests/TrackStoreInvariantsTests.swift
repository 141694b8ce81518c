@testable import AnimationBatch
import AnimationCore
import Testing

/// ``TrackStore/invariantViolations(limit:)`` and ``TrackStore/checkInvariants()``: a store
/// changed only through its API stays consistent (also under parking, layer clocks and groups,
/// which the random lifecycle sequences do not reach), and each kind of corruption is named.
@Suite("TrackStore invariants (the store's tables and the composition plan agree)")
struct TrackStoreInvariantsTests {
    /// Two layers: one with an exclusive `opacity`, a fast `position` (two animations, one
    /// additive), a transform by fields and a group; the other with a clock of its own.
    private func scene() throws -> (TrackStore, FrameEvaluator) {
        let store = TrackStore()
        let a = LayerID(1), b = LayerID(2)
        try store.setModelValue(1, layer: a, property: "opacity")
        try store.setModelValue(.point(Point(x: 0, y: 0)), layer: a, property: "position")
        try store.setModelValue(.transform(.identity), layer: a, property: "transform")
        try store.add(BasicAnimation(keyPath: "opacity", from: 0, to: 1, duration: 2), layer: a, forKey: "fade")
        try store.add(BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 10, y: 0), duration: 2),
                      layer: a, forKey: "move")
        var nudge = BasicAnimation(keyPath: "position.y", from: 0, to: 5, duration: 1)
        nudge.isAdditive = true
        try store.add(nudge, layer: a)
        try store.add(BasicAnimation(keyPath: "transform.rotation.z", from: 0, to: 1, duration: 2), layer: a)
        var group = AnimationGroup(animations: [BasicAnimation(keyPath: "transform.scale", from: 1, to: 2, duration: 1)], duration: 2)
        group.timing.repeatCount = 2
        try store.add(group, layer: a)
        try store.setModelValue(0, layer: b, property: "opacity")
        try store.setLayerTime(b, parent: nil, timing: LayerTiming(beginTime: 0, speed: 2, timeOffset: 0))
        try store.add(BasicAnimation(keyPath: "opacity", from: 0, to: 1, duration: 1), layer: b, forKey: "fade")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        return (store, evaluator)
    }

    @Test("a store changed only through its API reports nothing broken, before and after each frame")
    func consistentThroughChanges() throws {
        let (store, evaluator) = try scene()
        #expect(store.invariantViolations() == [])
        store.parksFinishedAnimations = true
        for t in [0.8, 1.5, 2.5, 3.5] {
            evaluator.evaluate(at: t)   // animations finish; keyed ones park
            #expect(store.invariantViolations() == [], "at \(t)")
        }
        // A parked animation taken over by its key, a replacement, a removal, a model change.
        try store.add(BasicAnimation(keyPath: "opacity", from: 1, to: 0, duration: 1), layer: LayerID(1), forKey: "fade")
        #expect(store.invariantViolations() == [])
        try store.add(BasicAnimation(keyPath: "position.x", from: 3, to: 4, duration: 1), layer: LayerID(1), forKey: "move")
        try store.setModelValue(.transform(Transform3D.scale(x: 2, y: 3)), layer: LayerID(1), property: "transform")
        #expect(store.removeLayerTime(LayerID(2)))
        #expect(store.invariantViolations() == [])
        evaluator.evaluate(at: 4)
        store.checkInvariants()   // traps in debug builds if anything above were broken
        #expect(store.invariantViolations() == [])
        #expect(store.removeLayer(LayerID(1)) && store.removeLayer(LayerID(2)))
        evaluator.evaluate(at: 5)
        #expect(store.invariantViolations() == [])
        #expect(store.animationCount == 0 && store.slotCount == 0)
    }

    @Test("a track whose slot forgot it, a slot its layer does not list, and a lane naming another track are each named")
    func corruptedTablesAreNamed() throws {
        let (store, _) = try scene()
        let opacity = Int(store.slot(layer: LayerID(1), property: "opacity")!.index)
        let track = Int(store.tables.slots[opacity].entries[0].track)
        store.tables.slots[opacity].entries.removeAll()
        let broken = store.invariantViolations()
        #expect(broken.contains { $0.hasPrefix("track \(track) has 0 entries in slot \(opacity)") }, "\(broken)")

        let (other, _) = try scene()
        other.tables.layers[LayerID(2)]!.slots = RecordList()
        let unlisted = other.invariantViolations()
        #expect(unlisted.contains { $0.hasPrefix("layers list") && $0.contains("slots of") }, "\(unlisted)")
        let (looped, _) = try scene()
        let first = looped.tables.layers[LayerID(1)]!.slots.first
        looped.tables.slots[first].next = first   // a list that runs round in a circle is named, not followed
        let cycle = looped.invariantViolations()
        #expect(cycle.contains { $0.contains("layer 1's slots") }, "\(cycle)")

        let (third, _) = try scene()
        let tracks = third.tables.tracks.records
        let t = tracks.firstIndex { $0.alive }!
        third.tables.tracks[t].index = tracks[tracks.lastIndex { $0.alive && $0.batch == tracks[t].batch }!].index
        #expect(third.invariantViolations().contains { $0.contains("names track") || $0.contains("names another animation") })
    }

    @Test("a composition plan that reads lanes in another order than its slot's entries is named")
    func stalePlanIsNamed() throws {
        let (store, _) = try scene()
        let position = Int(store.slot(layer: LayerID(1), property: "position")!.index)
        #expect(store.tables.slots[position].entries.count == 2)
        store.tables.slots[position].entries.reverse()   // behind the plan's back: no replan is asked for
        let broken = store.invariantViolations()
        #expect(broken.contains { $0.contains("out of add order") }, "\(broken)")
        #expect(broken.contains { $0.contains("fast slot \(position)'s operation reads other lanes") }, "\(broken)")
    }

    @Test("a presentation row that names another slot, and a changed flag without its listing, are named")
    func corruptedPresentationTableIsNamed() throws {
        let (store, _) = try scene()
        #expect(store.invariantViolations() == [])
        let column = store.table.columns[0]
        let s = column.slots[0]
        column.slots[0] = s + 1   // behind the table's back: its row now names another slot
        #expect(store.invariantViolations().contains { $0.contains("row 0 names slot \(s + 1)") }, "\(store.invariantViolations())")
        column.slots[0] = s

        let (other, evaluator) = try scene()
        evaluator.evaluate(at: 0.5)   // the pending list is empty after a frame
        let slot = Int(other.slot(layer: LayerID(1), property: "opacity")!.index)
        other.table.pending[slot] = 1
        #expect(other.invariantViolations().contains { $0.contains("changed flags for") }, "\(other.invariantViolations())")
    }

    @Test("the report stops at its limit")
    func reportIsBounded() throws {
        let (store, _) = try scene()
        for s in store.tables.slots.indices { store.tables.slots[s].entries.removeAll() }
        #expect(store.invariantViolations(limit: 3).count == 3)
    }
}
