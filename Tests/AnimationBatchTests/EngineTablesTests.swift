@testable import AnimationBatch
import AnimationCore
import Testing

/// The engine's tables (`Tables/`): a layer's slots and animations on intrusive lists, its slot
/// index past the threshold, an animation's inline track, and what a record costs.
@Suite("Engine tables (layer lists, slot look-up, record sizes)")
struct EngineTablesTests {
    @Test("a layer with more slots than the threshold finds each by property, before and after removals, in creation order")
    func slotLookUpPastTheThreshold() throws {
        let store = TrackStore()
        let layer = LayerID(7), count = 3 * EngineTables.slotIndexThreshold
        var handles: [SlotHandle] = []
        for k in 0..<count {
            handles.append(try store.setModelValue(.scalar(Double(k)), layer: layer, property: "p\(k)"))
            #expect(store.invariantViolations() == [])   // the index appears past the threshold, complete
        }
        for k in 0..<count { #expect(store.slot(layer: layer, property: "p\(k)") == handles[k]) }
        #expect(store.slots(of: layer) == handles)
        // Every other slot removed, the first and last included: the rest keep their order.
        for k in stride(from: 0, to: count, by: 2) { #expect(store.removeSlot(handles[k])) }
        #expect(store.removeSlot(handles[count - 1]))
        let kept = (0..<count - 1).filter { $0 % 2 == 1 }
        #expect(store.slots(of: layer) == kept.map { handles[$0] })
        for k in 0..<count {
            #expect(store.slot(layer: layer, property: "p\(k)") == (kept.contains(k) ? handles[k] : nil))
        }
        #expect(store.invariantViolations() == [])
        // A property that exists on another layer is not this layer's.
        try store.setModelValue(1, layer: LayerID(8), property: "p0")
        #expect(store.slot(layer: layer, property: "p0") == nil)
    }

    @Test("a layer's animations are listed in add order after removals from the middle, and forgotten with their keys")
    func animationListAndKeys() throws {
        let store = TrackStore()
        let layer = LayerID(1)
        try store.setModelValue(0, layer: layer, property: "opacity")
        var handles: [AnimationHandle] = []
        for k in 0..<6 {
            handles.append(try store.add(BasicAnimation(keyPath: "opacity", from: 0, to: Double(k), duration: 1), layer: layer, forKey: "k\(k)"))
        }
        #expect(store.remove(handles[2]) && store.remove(handles[0]) && store.remove(handles[5]))
        #expect(store.animations(of: layer) == [handles[1], handles[3], handles[4]])
        #expect(store.animation(forKey: "k2", layer: layer) == nil)
        #expect(store.animation(forKey: "k3", layer: layer) == handles[3])
        #expect(store.invariantViolations() == [])
        #expect(store.removeLayer(layer))
        #expect(store.tables.animationByKey.isEmpty && store.tables.layers.isEmpty)
    }

    @Test("an animation's track list holds one track inline and several in order")
    func trackList() {
        var list = TrackList()
        #expect(list.isEmpty)
        list.append(4)
        #expect(Array(list) == [4])
        list.append(9)
        list.append(2)
        #expect(Array(list) == [4, 9, 2] && list.count == 3 && list[1] == 9)
        let literal: TrackList = [5]
        #expect(Array(literal) == [5])
    }

    @Test("the records stay small: a track 56 bytes, a slot 24, an animation 112, a layer 24")
    func recordSizes() {
        // What a million tracks cost rests on these (docs/architecture.md, "Memory").
        #expect(MemoryLayout<TrackRecord>.stride <= 56)
        #expect(MemoryLayout<SlotRecord>.stride <= 24)
        #expect(MemoryLayout<AnimationRecord>.stride <= 112)
        #expect(MemoryLayout<LayerRecord>.stride <= 24)
        #expect(MemoryLayout<SlotEntry>.stride <= 8)
        #expect(MemoryLayout<KeptAnimation?>.stride == 8)
    }
}
