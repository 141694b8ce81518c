import AnimationCore

/// The engine's state, in one place: the records of tracks, slots, animations, layers and time
/// nodes with their free lists and handle checks, the batches that hold the tracks' columns, the
/// presentation table, and the events waiting for the next frame.
///
/// It holds and finds; it does not decide. Compiling (``AnimationCompiler``), changing animations
/// (``Retargeter``, ``Parking``), planning (``SlotPlanner``) and layer time (``LayerClocks``) are
/// rooms of their own that work on these tables; ``TrackStore`` is the public facade over them.
/// Not thread-safe: one owner changes it between frames; a frame reads it.
final class EngineTables {
    // Exclusivity: the records, flags and counters a property change and a frame's bookkeeping
    // touch are checked for overlapping access in debug builds, where every test runs, and not in
    // release builds, where the checks (a thread-local look-up and a set insertion per access)
    // were ~15 % of an implicit change. The tables change on their owner's thread only, and no
    // closure of a caller runs while one of them is being accessed (the checks are per thread:
    // they never covered a frame's workers).
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var tracks = RecordTable<TrackRecord>()
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var slots = RecordTable<SlotRecord>()
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var animations = RecordTable<AnimationRecord>()
    /// What each layer with a slot or an animation has (semantics §1.2, §8.2).
    var layers: [LayerID: LayerRecord] = [:]
    /// The animation under each key of each layer (semantics §1.2): live, or finished and parked
    /// (``TrackStore/parksFinishedAnimations``; its record says which). Never both: only the live
    /// one parks, and one added under the key takes the parked one over or frees it. So parking
    /// and taking over leave this table alone; each used to change it, a removal and an
    /// insertion in every implicit change and every park. One table for all layers: one hash
    /// per look-up, and nothing per layer without keys.
    var animationByKey: [AnimationKey: Int32] = [:]

    /// Time nodes (groups' timings and layers' clocks), with their free list. Nodes freed since the
    /// last frame wait in `releasedNodes`: the node order still lists them until the planner drops
    /// them from it (``SlotPlanner/update()``), and only then are they reused.
    var nodes: [TimeNode] = []
    var freeNodes: [Int32] = []
    var releasedNodes: [Int32] = []
    /// Each time node's time this frame (its children's parent time): frame state, written by
    /// frames only (a frame reads the records above and never writes them).
    let nodeTimes = Column<Double>(fill: .nan)
    /// Each time node's rate this frame, d(node time)/d(frame time), in frames that compute
    /// velocities (docs/velocity.md): frame state beside `nodeTimes`.
    let nodeRates = Column<Double>(fill: 0)
    /// The root nodes of groups, evaluated sixteen at once; nested nodes are evaluated one by one.
    let nodeBatch: NodeBatch

    /// The batches, each the columns of one kernel and value width (``BatchKey``).
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var batches: [TrackBatch] = []
    /// Every slot's presentation value (the tables lay it out; frames fill it).
    let table = PresentationTable()
    /// Events from changes (removals, replacements), delivered with the next frame.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var pendingEvents: [AnimationEvent] = []
    /// The next animation's place in add order (semantics §8.2, §8.4).
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var nextSequence: UInt64 = 1
    /// Incremented by every change of the track or slot layout; the evaluator re-cuts its chunks
    /// when it moves (O(batches), never O(tracks)).
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var version = 0
    /// The latest frame time any frame has run at (−∞ before the first): an animation a frame saw
    /// finish stays finished at any time from it on while every clock runs forwards (the settle
    /// queries' shortcut, ``EventSchedule``).
    var latestFrameTime = -Double.infinity
    /// Animations parked for their key's next animation (``Parking``): not counted as animations.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var parkedCount = 0

    init() {
        nodeBatch = NodeBatch(times: nodeTimes)
    }

    /// How many tracks the batches hold.
    var trackCount: Int { batches.reduce(0) { $0 + $1.count } }

    // MARK: Handles

    /// Slot `slot`'s index, or nil when the handle is stale.
    @inline(__always)
    func resolve(_ slot: SlotHandle) -> Int32? { slots.resolve(index: slot.index, generation: slot.generation) }

    /// Animation `handle`'s index, or nil when the handle is stale (parking moves a handle's
    /// generation on, so a parked animation's handles are stale too).
    @inline(__always)
    func resolve(_ handle: AnimationHandle) -> Int32? { animations.resolve(index: handle.index, generation: handle.generation) }

    func handle(ofSlot s: Int32) -> SlotHandle { SlotHandle(index: s, generation: slots[s].generation) }

    func handle(ofAnimation a: Int32) -> AnimationHandle { AnimationHandle(index: a, generation: animations[a].generation) }

    /// Retires animation record `a`'s handle as a replaced animation's (semantics §8.1): its stop,
    /// outcome `replaced`, goes to `events` unless a frame reported its finish already, and the
    /// record takes a new generation for the animation that replaces it. Returns the new handle.
    /// Static over the record, so that a caller holding the records' buffer can use it.
    @inline(__always)
    static func retire(_ record: inout AnimationRecord, _ a: Int32, handle: AnimationHandle,
                       events: inout [AnimationEvent]) -> AnimationHandle {
        if !record.hasFinished { events.append(AnimationEvent(animation: handle, kind: .stopped, outcome: .replaced)) }
        record.generation &+= 1
        record.hasFinished = false
        return AnimationHandle(index: a, generation: record.generation)
    }

    /// ``retire(_:_:handle:events:)`` for record `a`, with the events waiting for the next frame.
    func retireReplaced(_ a: Int32, handle: AnimationHandle) -> AnimationHandle {
        Self.retire(&animations[a], a, handle: handle, events: &pendingEvents)
    }

    /// The next place in add order.
    func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    // MARK: Slots

    /// How many slots a layer has before it keeps an index of them (``LayerRecord/slotIndex``):
    /// up to this many, a look-up walks the layer's list (a layer tree's layer has a handful),
    /// and the 20 bytes per slot of a store-wide index are saved.
    static let slotIndexThreshold = 8

    /// The slot of `property` on `layer`, if any: the layer's list walked, or its index (at most
    /// ``slotIndexThreshold`` steps either way).
    func slot(layer: LayerID, property: String) -> Int32? {
        guard let column = table.columnIndex(of: property), let record = layers[layer] else { return nil }
        if !record.slotIndex.isEmpty { return record.slotIndex[column] }
        var s = record.slots.first
        while s >= 0 {
            if table.column(of: s) == column { return s }
            s = slots[s].next
        }
        return nil
    }

    /// Slot `s`'s layer, from its presentation row.
    func layer(of s: Int32) -> LayerID { table.layer(of: s) }

    /// Slot `s`'s model value (semantics §1.1), from its presentation row.
    @inline(__always) func model(of s: Int32) -> AnimationValue { table.model(of: s) }

    /// Slot `s`'s property, its presentation column's.
    func property(of s: Int32) -> String { table.property(of: s) }

    // MARK: Layers and keys

    /// The live animation under `key` on `layer`.
    func liveAnimation(forKey key: String, layer: LayerID) -> Int32? {
        guard let a = animationByKey[AnimationKey(layer: layer, key: key)], !animations[a].parked else { return nil }
        return a
    }

    /// The animation parked under `key` on `layer`.
    func parkedAnimation(forKey key: String, layer: LayerID) -> Int32? {
        guard let a = animationByKey[AnimationKey(layer: layer, key: key)], animations[a].parked else { return nil }
        return a
    }

    /// `layer`'s animations that are not parked, in add order (semantics §8.2): by sequence.
    func listedAnimations(of layer: LayerID) -> [Int32] {
        guard let record = layers[layer] else { return [] }
        return animations.members(of: record.animations).filter { !animations[$0].parked }
            .sorted { animations[$0].sequence < animations[$1].sequence }
    }

    /// Every animation on `layer`, parked ones too, in the order they were added to the layer.
    func allAnimations(of layer: LayerID) -> [Int32] {
        layers[layer].map { animations.members(of: $0.animations) } ?? []
    }

    /// `layer`'s slots in creation order.
    func slots(of layer: LayerID) -> [Int32] {
        layers[layer].map { slots.members(of: $0.slots) } ?? []
    }

    /// Lists slot `s` (new, with its presentation row) on `layer`, creating the layer's record if
    /// needed; a layer whose list grows past ``slotIndexThreshold`` gets its index.
    func link(slot s: Int32, layer: LayerID) {
        var record = layers.removeValue(forKey: layer) ?? LayerRecord()
        slots.append(s, to: &record.slots)
        if !record.slotIndex.isEmpty {
            record.slotIndex[table.column(of: s)] = s
        } else {
            var count = 0, t = record.slots.first
            while t >= 0, count <= Self.slotIndexThreshold {
                count += 1
                t = slots[t].next
            }
            if count > Self.slotIndexThreshold {
                for member in slots.members(of: record.slots) { record.slotIndex[table.column(of: member)] = member }
            }
        }
        layers[layer] = record
    }

    /// Takes slot `s` (with its presentation row still) off its layer's list and index.
    func unlink(slot s: Int32, layer: LayerID) {
        changeLayerRecord(layer) { record in
            slots.remove(s, from: &record.slots)
            if !record.slotIndex.isEmpty { record.slotIndex[table.column(of: s)] = nil }
        }
    }

    /// Lists animation `a` (new) on `layer`, creating the layer's record if needed.
    func link(animation a: Int32, layer: LayerID) {
        var record = layers.removeValue(forKey: layer) ?? LayerRecord()
        animations.append(a, to: &record.animations)
        layers[layer] = record
    }

    /// Changes `layer`'s record, and forgets it once it holds neither slots nor animations. Taken
    /// out and put back rather than changed through the dictionary's subscript: that accessor's
    /// frame is allocated on the heap (three allocations per reaped animation, in a frame).
    func changeLayerRecord(_ layer: LayerID, _ change: (inout LayerRecord) -> Void) {
        guard var record = layers.removeValue(forKey: layer) else { return }
        change(&record)
        if !record.slots.isEmpty || !record.animations.isEmpty { layers[layer] = record }
    }

    // MARK: Classification

    /// Whether slot `s` is exclusive: its only entry is an animation of the whole value, so its
    /// kernel output (with the model as fallback) is the presentation value. Other animated slots
    /// are composed each frame (semantics §8.4).
    func isExclusive(slot s: Int32) -> Bool {
        // Fields read in place: copying a record retains its animation and arrays.
        guard slots[s].entries.count == 1, !slots[s].entries[0].isRotation else { return false }
        let t = Int(slots[s].entries[0].track)
        return tracks[t].field == nil && tracks[t].valueFunction == nil
    }

    /// Track `t`'s property animation: its kept leaf (``TrackRecord/leaf``), else its top-level
    /// animation, which is then the property animation itself.
    func leafAnimation(of t: Int32) -> (any PropertyAnimation)? {
        if let leaf = tracks[t].leaf { return leaf.animation }
        return animations[tracks[t].animation].animation as? any PropertyAnimation
    }

    /// Track `t`'s values if it is a basic or spring animation's, read without a box
    /// (``KeptAnimation/interpolation``).
    func interpolation(of t: Int32) -> Interpolation? {
        if let leaf = tracks[t].leaf { return Interpolation(leaf.animation) }
        return animations[tracks[t].animation].kept?.interpolation
    }

    /// Whether track `t` is a top-level property animation (no group encloses it: its animation
    /// has no time nodes).
    func isTopLevel(track t: Int32) -> Bool { animations[tracks[t].animation].nodes.isEmpty }

    // MARK: Time nodes

    /// A place for `node`: a free one, or a new one (its time column grows with it).
    func allocateNode(_ node: TimeNode) -> Int32 {
        if let free = freeNodes.popLast() {
            nodes[Int(free)] = node
            return free
        }
        nodes.append(node)
        if freeNodes.capacity < nodes.capacity { freeNodes.reserveCapacity(nodes.capacity) }
        if releasedNodes.capacity < nodes.capacity { releasedNodes.reserveCapacity(nodes.capacity) }
        nodeTimes.reserve(nodes.count, count: nodes.count - 1)
        nodeRates.reserve(nodes.count, count: nodes.count - 1)
        return Int32(nodes.count - 1)
    }

    /// Frees node `n`; it is reused after the next plan update.
    func releaseNode(_ n: Int32) {
        nodes[Int(n)].alive = false
        releasedNodes.append(n)
    }
}
