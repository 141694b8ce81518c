import AnimationCore
import CKernelSupport

/// The struct-of-arrays store of compiled animation tracks and the output slots they animate
/// (docs/architecture.md: AnimationBatch).
///
/// An output *slot* is one property of one layer, with a model value. An *animation* added to a
/// layer is compiled into one *track* per property animation inside it (groups are flattened, their
/// timings kept as shared nodes that feed their children's time, semantics §2.7, §7). Each track
/// lives in a dense batch shared with every track of the same kernel and value width; removal swaps
/// the last track into the hole. Handles are generational.
///
/// Each slot keeps its tracks in the order the animations were added (then child order), which is
/// the composition order of semantics §8.4. A slot whose only animation sets the whole value is
/// *exclusive*: its kernel composes the value with the model, and the frame copies it. Other slots
/// are *composed* each frame: model value, then each animation replacing, adding or setting a
/// field (the composition stage). Either way the value lands in the presentation table, a column per
/// property (``presentation(of:)``).
///
/// The store knows each layer's slots, animations and keys (semantics §1.2, §8.2), so a front end
/// needs no registry of its own; removing a layer or a slot cancels its animations and frees its
/// storage.
///
/// Adding, replacing and removing are O(1) amortised per track (plus the slot's and the layer's
/// own lists), never re-pack the store and never run during a frame. The store is not thread-safe:
/// one owner mutates it between frames; ``FrameEvaluator`` reads it during a frame and, after the
/// frame, reaps the animations it finished (§1.4).
public final class TrackStore {
    // MARK: Records

    enum CompositionOp {
        /// The kernel's value.
        case value
        /// Recomputed over the value beneath (a §4.1 row that depends on the base).
        case recompute
        /// The kernel's number through a value function (§4.7).
        case valueFunction(ValueFunction)
    }

    struct TrackRecord {
        var generation: UInt32 = 0
        var alive = false
        var batch: Int32 = -1
        var index: Int32 = -1
        var slot: Int32 = -1
        var rotationSlot: Int32 = -1
        var animation: Int32 = -1
        var leaf: AnimationLeaf?
        /// The leaf's `isAdditive`, read once here so that composition never opens the existential.
        var isAdditive = false
        var field: ValueField?
        var valueKind: ValueKind = .scalar
        var op: CompositionOp = .value
        var sequence: UInt64 = 0
        var leafIndex: Int32 = 0
        /// A path animation with a rotation mode (semantics §5.7): it also turns the layer's
        /// `transform` (``rotationSlot``) when the layer has one.
        var rotates = false
        /// The leaf's value function (§4.7), read once here.
        var valueFunction: ValueFunction?
        /// Whether its slot is exclusive (``isExclusive(slot:)``): set whenever the slot's entries
        /// change (``configure(track:)``), so that a retarget reads it here rather than in the
        /// slot's entry list, a cache miss of its own (40 % of a mass retarget).
        var exclusive = false
    }

    struct SlotEntry {
        var track: Int32
        var sequence: UInt64
        var leafIndex: Int32
        var isRotation: Bool
    }

    struct SlotRecord {
        var generation: UInt32 = 0
        var alive = false
        var layer = LayerID(0)
        var property = ""
        var kind: ValueKind = .scalar
        var model: AnimationValue = 0
        var entries: [SlotEntry] = []
    }

    struct AnimationRecord {
        var generation: UInt32 = 0
        var alive = false
        var layer = LayerID(0)
        var sequence: UInt64 = 0
        var animation: (any Animation)?
        /// The key it was added under (semantics §1.2); nil for anonymous animations.
        var key: String?
        /// The animation's `isRemovedOnCompletion`: a frame that finishes it reaps it (§1.4).
        var removedOnCompletion = false
        /// A frame reported its finish (it is not removed on completion): its stop was reported,
        /// so removing it later reports nothing (semantics §8.1: exactly one stop).
        var hasFinished = false
        var tracks: [Int32] = []
        var nodes: [Int32] = []
        /// Its track's lane holds a retarget not yet folded into `animation`
        /// (``InterpolatingBatch/pendingTarget(_:kind:)``).
        var retargeted = false
        /// The one track of a basic or spring animation outside groups, which
        /// ``retarget(_:from:to:beginTime:)->_`` rewrites in place; −1 for other animations.
        var columnTrack: Int32 = -1
        /// The last batch retarget that checked it (``checkRetargets(_:from:to:)``): an animation
        /// named twice is refused before anything is done.
        var checkMark: UInt32 = 0
        /// Finished and removed, its track kept for the next animation under its key
        /// (``parksFinishedAnimations``): invisible, its handles stale, its lane showing nothing.
        var parked = false
        /// Parked: the timing its lane had (``TrackBatch/timing(_:)``), which a takeover restores.
        var parkedTiming = CompiledTiming.padding
    }

    /// What the store knows of one layer: its slots, its animations in add order and their keys
    /// (semantics §1.2, §8.2), so that a front end needs no registry of its own.
    struct LayerRecord {
        var slots: [Int32] = []
        /// Every animation on the layer, parked ones too, in no particular order: readers order
        /// them by sequence (add order, semantics §8.2; ``listedAnimations(of:)``). So moving
        /// one to the end of the order, parking it and taking it over leave the record alone.
        var animations: [Int32] = []
        /// The animation under each key (semantics §1.2): live, or finished and parked
        /// (``parksFinishedAnimations``; its record says which). Never both: only the live one
        /// parks, and one added under the key takes the parked one over or frees it. So parking
        /// and taking over leave this table alone; each used to change it, a removal and an
        /// insertion in every implicit change and every park.
        var keys: [String: Int32] = [:]
    }

    struct GroupNode {
        var alive = false
        var timing = MediaTiming()
        var curve = TimingFunction.linear
        var parent: Int32 = -1
        var isRoot = false
        var removedOnCompletion = false
        var animation: Int32 = -1
        /// The owning animation's handle generation, so that events never copy its record.
        var generation: UInt32 = 0
        /// A root's lane in ``nodeBatch``; −1 for a nested node.
        var lane: Int32 = -1
    }

    struct SlotKey: Hashable {
        var layer: LayerID
        var property: String
    }

    enum BatchKey: Hashable {
        case basic(Int)
        case spring(Int, SpringRegime)
        case keyframe(Int)
        case path
        case reference(ValueKind)
    }

    // Exclusivity: the records, flags and counters a property change and a frame's bookkeeping
    // touch are checked for overlapping access in debug builds, where every test runs, and not in
    // release builds, where the checks (a thread-local look-up and a set insertion per access)
    // were ~15 % of an implicit change. The store changes on its owner's thread only, and no
    // closure of a caller runs while one of them is being accessed (the checks are per thread:
    // they never covered a frame's workers).
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var tracks: [TrackRecord] = []
    private(set) var freeTracks: [Int32] = []
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var slots: [SlotRecord] = []
    private(set) var freeSlots: [Int32] = []
    private(set) var slotByKey: [SlotKey: Int32] = [:]
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var animations: [AnimationRecord] = []
    private(set) var freeAnimations: [Int32] = []
    var layerRecords: [LayerID: LayerRecord] = [:]
    var nodes: [GroupNode] = []
    var freeNodes: [Int32] = []
    /// Group nodes in an order where every parent comes before its children.
    private(set) var nodeOrder: [Int32] = []
    /// Each group node's child time this frame: frame state, written by frames only (a frame
    /// reads the records above and never writes them).
    let nodeTimes = Column<Double>(fill: .nan)
    /// The root nodes, evaluated sixteen at once; nested nodes are evaluated one by one after them.
    let nodeBatch: NodeBatch
    /// Every slot's presentation value (the store lays it out; frames fill it).
    @usableFromInline let table = PresentationTable()
    /// The composed slots' operations, kept up to date by ``updatePlan()``.
    let composition = Composition()
    /// Slots whose plan must be redone before the next frame (entries, model, row or a track's
    /// lane changed), each listed once: `dirty[s]` is 1 while slot s is listed.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    private(set) var dirtySlots: [Int32] = []
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    private(set) var dirty: [UInt8] = []
    /// Group nodes freed since the last frame: `nodeOrder` still lists them, so they are reused
    /// only after ``updatePlan()`` has dropped them from it.
    var releasedNodes: [Int32] = []
    /// Layers with a time of their own (``setLayerTime(_:parent:timing:)``), the frame's clock
    /// pass (parents first), each layer's step in it, and whether the pass must be rebuilt.
    var clocks: [LayerID: LayerClock] = [:]
    var clockPlan: [ClockStep] = []
    var clockSteps: [LayerID: Int] = [:]
    var clockPlanIsStale = false

    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    private(set) var batches: [TrackBatch] = []
    private var batchByKey: [BatchKey: Int] = [:]
    /// Events from mutations (removals, replacements), delivered with the next frame.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var pendingEvents: [AnimationEvent] = []
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    private var nextSequence: UInt64 = 1
    /// Counts batch retargets' checks (``AnimationRecord/checkMark``).
    private var retargetCheck: UInt32 = 0
    /// Incremented by every change of the track or slot layout; the evaluator re-cuts its chunks
    /// when it moves (O(batches), never O(tracks)).
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var version = 0

    /// An empty store.
    public init() {
        nodeBatch = NodeBatch(times: nodeTimes)
    }

    /// How many tracks (compiled property animations) the store holds.
    public var trackCount: Int { batches.reduce(0) { $0 + $1.count } }
    /// How many top-level animations the store holds.
    public var animationCount: Int { animations.count - freeAnimations.count - parkedCount }
    /// Parked animations (``parksFinishedAnimations``): not counted as animations.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    private var parkedCount = 0
    /// How many finished animations are parked (``parksFinishedAnimations``), for tests.
    package var parkedAnimationCount: Int { parkedCount }

    /// Whether a keyed basic or spring animation that finishes and is removed on completion
    /// (semantics §1.4) leaves its track *parked* — out of its slot, showing nothing, its handle
    /// stale, its key free — for the next animation added under the same key on the same layer,
    /// which then takes the track over in place when it only retargets it (the same type, key
    /// path, value kind and flags: ``add(_:layer:forKey:)``). What anyone observes is what removal
    /// gives; the difference is cost: a layer tree whose properties change over and over (each
    /// change an implicit animation, semantics §10) compiles and reaps nothing after the first
    /// time. Costs one lane per parked track in every frame's kernels, and its memory, until the
    /// layer or slot goes. Off by default; LayerTree's contexts turn it on.
    public var parksFinishedAnimations = false
    /// How many slots (one property of one layer each) the store holds.
    public var slotCount: Int { slots.count - freeSlots.count }
    /// How many layers have a slot or an animation.
    public var layerCount: Int { layerRecords.count }
    /// How many top-level tracks and group roots can report events in one frame.
    var eventSourceCount: Int { trackCount + nodes.count + pendingEvents.count }

    // MARK: Slots

    /// Sets the model value of `property` on `layer`, creating its output slot if needed (semantics
    /// §1.1). The presentation value shows the new model at once; animations on the slot compose
    /// over it from the next frame (tracks that depend on the model — exclusive slots, §4.1 rows
    /// over the base — follow).
    ///
    /// - Throws: `AnimationError` naming `value` when the slot exists with another kind, or
    ///   `property` when it is empty.
    @discardableResult
    public func setModelValue(_ value: AnimationValue, layer: LayerID, property: String) throws -> SlotHandle {
        if let s = slotByKey[SlotKey(layer: layer, property: property)] {
            guard slots[Int(s)].kind == value.kind else {
                throw AnimationError(field: "value", reason: "'\(property)' holds a \(slots[Int(s)].kind), not a \(value.kind)")
            }
            writeModel(value, into: s)
            return handle(ofSlot: s)
        }
        if property.isEmpty { throw AnimationError(field: "property", reason: "must not be empty") }
        if let known = LayerProperty.named(property), known.kind != value.kind {
            throw AnimationError(field: "value", reason: "'\(property)' holds a \(known.kind), not a \(value.kind)")
        }
        if let column = table.columnIndex(of: property), table.columns[Int(column)].kind != value.kind {
            throw AnimationError(field: "value", reason: "'\(property)' holds a \(table.columns[Int(column)].kind) on other layers, not a \(value.kind)")
        }
        return handle(ofSlot: createSlot(layer: layer, property: property, model: value))
    }

    /// ``setModelValue(_:layer:property:)`` for a slot already found: false, changing nothing,
    /// for a stale handle or a value of another kind (the caller then goes by layer and key,
    /// which creates the slot or names the error). Spares a caller that keeps slot handles (the
    /// layer tree's action records) the look-up.
    package func setModelValue(_ value: AnimationValue, slot: SlotHandle) -> Bool {
        guard let s = resolve(slot), slots[Int(s)].kind == value.kind else { return false }
        writeModel(value, into: s)
        return true
    }

    /// Slot `s`'s model is `value` (of its kind): the presentation row shows it at once and the
    /// tracks over the slot that depend on the model follow (§1.1, §4.1).
    private func writeModel(_ value: AnimationValue, into s: Int32) {
        slots[Int(s)].model = value
        markDirty(s)
        table.store(value, slot: s)
        table.markChanged(s)
        for entry in slots[Int(s)].entries where !entry.isRotation { configure(track: entry.track) }
    }

    /// The slot of `property` on `layer`, if it exists.
    public func slot(layer: LayerID, property: String) -> SlotHandle? {
        slotByKey[SlotKey(layer: layer, property: property)].map(handle(ofSlot:))
    }

    /// The model value of a slot, or nil for a stale handle.
    public func modelValue(of slot: SlotHandle) -> AnimationValue? {
        resolve(slot).map { slots[Int($0)].model }
    }

    /// The layer and property of a slot, or nil for a stale handle.
    public func key(of slot: SlotHandle) -> (layer: LayerID, property: String)? {
        resolve(slot).map { (slots[Int($0)].layer, slots[Int($0)].property) }
    }

    /// Every live slot.
    public var allSlots: [SlotHandle] {
        slots.indices.filter { slots[$0].alive }.map { handle(ofSlot: Int32($0)) }
    }

    /// The slots of `layer` in creation order (empty for an unknown layer).
    public func slots(of layer: LayerID) -> [SlotHandle] {
        layerRecords[layer]?.slots.map(handle(ofSlot:)) ?? []
    }

    /// Removes a slot: the animations with a track on it are cancelled (their stop events, outcome
    /// ``AnimationEvent/Outcome/cancelled``, come with the next frame), its presentation row is
    /// freed and its handle goes stale. A path animation that only turns the slot (a rotation
    /// mode on `transform`, semantics §5.7) stays and stops turning it. Returns false for a stale
    /// handle.
    @discardableResult
    public func removeSlot(_ slot: SlotHandle) -> Bool {
        guard let s = resolve(slot) else { return false }
        discardParked(layer: slots[Int(s)].layer, slot: s)
        var cancelled: [Int32] = []
        for entry in slots[Int(s)].entries {
            if entry.isRotation {
                tracks[Int(entry.track)].rotationSlot = -1
            } else if !cancelled.contains(tracks[Int(entry.track)].animation) {
                cancelled.append(tracks[Int(entry.track)].animation)
            }
        }
        for a in cancelled {
            remove(AnimationHandle(index: a, generation: animations[Int(a)].generation), outcome: .cancelled)
        }
        freeSlot(s)
        return true
    }

    /// Removes a layer: every animation on it is cancelled (stop events with outcome
    /// ``AnimationEvent/Outcome/cancelled`` come with the next frame, in add order), every slot is
    /// freed and their handles go stale, and its own time, if any, is taken away
    /// (``removeLayerTime(_:)``). Returns false when the store knows no such layer.
    @discardableResult
    public func removeLayer(_ layer: LayerID) -> Bool {
        let hadTime = removeLayerTime(layer)
        discardParked(layer: layer)
        guard layerRecords[layer] != nil else { return hadTime }
        for a in listedAnimations(of: layer) {
            remove(AnimationHandle(index: a, generation: animations[Int(a)].generation), outcome: .cancelled)
        }
        for s in layerRecords[layer]?.slots ?? [] {
            slots[Int(s)].entries.removeAll()
            freeSlot(s)
        }
        layerRecords[layer] = nil
        return true
    }

    func resolve(_ slot: SlotHandle) -> Int32? {
        let i = Int(slot.index)
        guard i >= 0, i < slots.count, slots[i].alive, slots[i].generation == slot.generation else { return nil }
        return slot.index
    }

    private func handle(ofSlot s: Int32) -> SlotHandle { SlotHandle(index: s, generation: slots[Int(s)].generation) }

    private func createSlot(layer: LayerID, property: String, model: AnimationValue) -> Int32 {
        let s: Int32
        if let free = freeSlots.popLast() {
            s = free
        } else {
            s = Int32(slots.count)
            slots.append(SlotRecord())
            table.initializeSlot(s)
            // Room to free and replan every slot: a frame that reaps must not allocate.
            if freeSlots.capacity < slots.capacity { freeSlots.reserveCapacity(slots.capacity) }
            if dirtySlots.capacity < slots.capacity { dirtySlots.reserveCapacity(slots.capacity) }
            if dirty.count < slots.capacity { dirty.append(contentsOf: repeatElement(0, count: slots.capacity - dirty.count)) }
            composition.reserveSlots(slots.capacity)
        }
        slots[Int(s)].alive = true
        slots[Int(s)].layer = layer
        slots[Int(s)].property = property
        slots[Int(s)].kind = model.kind
        slots[Int(s)].model = model
        slots[Int(s)].entries = []
        slotByKey[SlotKey(layer: layer, property: property)] = s
        layerRecords[layer, default: LayerRecord()].slots.append(s)
        if let grown = table.addSlot(s, generation: slots[Int(s)].generation, layer: layer, property: property, model: model) {
            // Its rows moved: exclusive tracks point at them (amortised O(1): the column doubles).
            for r in 0..<grown.count - 1 { markDirty(grown.slots[r]) }
        }
        version += 1
        // §5.7: path animations with a rotation mode already on the layer turn its new transform.
        if property == "transform", model.kind == .transform {
            for a in layerRecords[layer]?.animations ?? [] {
                for t in animations[Int(a)].tracks where tracks[Int(t)].rotates {
                    tracks[Int(t)].rotationSlot = s
                    insertEntry(SlotEntry(track: t, sequence: tracks[Int(t)].sequence, leafIndex: tracks[Int(t)].leafIndex,
                                          isRotation: true), into: s)
                }
            }
        }
        return s
    }

    /// Frees a slot without animations of its own.
    private func freeSlot(_ s: Int32) {
        let layer = slots[Int(s)].layer
        slotByKey[SlotKey(layer: layer, property: slots[Int(s)].property)] = nil
        changeLayerRecord(layer) { $0.slots.removeAll { $0 == s } }
        if let moved = table.removeSlot(s) { markDirty(moved) }   // its row moved
        markDirty(s)
        slots[Int(s)].alive = false
        slots[Int(s)].entries = []
        slots[Int(s)].model = 0
        slots[Int(s)].generation &+= 1
        freeSlots.append(s)
        version += 1
    }

    /// The live animation under `key` on `layer`.
    private func liveAnimation(forKey key: String, layer: LayerID) -> Int32? {
        guard let a = layerRecords[layer]?.keys[key], !animations[Int(a)].parked else { return nil }
        return a
    }

    /// The animation parked under `key` on `layer`.
    private func parkedAnimation(forKey key: String, layer: LayerID) -> Int32? {
        guard let a = layerRecords[layer]?.keys[key], animations[Int(a)].parked else { return nil }
        return a
    }

    /// Changes `layer`'s record, and forgets it once it holds neither slots nor animations. Taken
    /// out and put back rather than changed through the dictionary's subscript: that accessor's
    /// frame is allocated on the heap (three allocations per reaped animation, in a frame).
    private func changeLayerRecord(_ layer: LayerID, _ change: (inout LayerRecord) -> Void) {
        guard var record = layerRecords.removeValue(forKey: layer) else { return }
        change(&record)
        if !record.slots.isEmpty || !record.animations.isEmpty || !record.keys.isEmpty { layerRecords[layer] = record }
    }

    /// `layer`'s animations that are not parked, in add order (semantics §8.2): by sequence.
    private func listedAnimations(of layer: LayerID) -> [Int32] {
        guard let record = layerRecords[layer] else { return [] }
        return record.animations.filter { !animations[Int($0)].parked }
            .sorted { animations[Int($0)].sequence < animations[Int($1)].sequence }
    }

    // MARK: Animations

    /// Compiles `animation` into tracks on `layer`'s slots and returns its handle. Later-added
    /// animations compose after earlier ones on the same properties (semantics §8.4).
    ///
    /// A property without a slot gets one with its default from `LayerProperty` (semantics §11);
    /// a property outside the catalog needs a model value first. The animation is evaluated as given:
    /// `duration ≤ 0` runs 0.25 s and `beginTime` is absolute in the layer's time (resolve them
    /// with `Animation.preparedForAdding(layerTime:transactionDuration:)` first for Core
    /// Animation's add-time rules, §1.3, §1.5).
    ///
    /// - Parameters:
    ///   - animation: The animation (a copy is compiled; later changes to it have no effect).
    ///   - layer: The layer whose slots it animates.
    ///   - key: Core Animation's key (§1.2): an animation already on `layer` under the same key is
    ///     removed first — its stop event, outcome ``AnimationEvent/Outcome/replaced``, comes with
    ///     the next frame. Nil adds an anonymous animation, never replaced.
    /// - Throws: `AnimationError` naming the first invalid field (`animations[1].keyPath`, …);
    ///   nothing is added or replaced then.
    @discardableResult
    public func add(_ animation: any Animation, layer: LayerID, forKey key: String? = nil) throws -> AnimationHandle {
        if parksFinishedAnimations, let key, parkedAnimation(forKey: key, layer: layer) != nil,
           let revived = try unpark(key: key, layer: layer, for: animation) {
            return revived
        }
        if let key, let old = liveAnimation(forKey: key, layer: layer) {
            // A new basic or spring animation that only retargets the one under its key (the
            // implicit animation of a property changed again, §10) keeps its track: the columns
            // are rewritten in place and the animation moves to the end of the order, as if
            // removed and added (§1.2, §8.4). Compiling and reaping cost 8 µs a change.
            let handle = AnimationHandle(index: old, generation: animations[Int(old)].generation)
            foldTarget(old)
            if let reused = try retarget(old, handle: handle, with: animation) {
                moveToEnd(old)
                return reused
            }
        }
        try check(animation, layer: layer)
        if let key, let old = liveAnimation(forKey: key, layer: layer) {
            remove(AnimationHandle(index: old, generation: animations[Int(old)].generation), outcome: .replaced)
        }
        let index = try insert(animation, layer: layer, sequence: nextSequence, reusing: nil)
        nextSequence += 1
        animations[Int(index)].key = key
        layerRecords[layer, default: LayerRecord()].animations.append(index)
        if let key {
            // What is parked under the key goes (parking was turned off since, or it was not
            // taken over above): the key names one animation.
            if let parked = parkedAnimation(forKey: key, layer: layer) { discardParked(parked) }
            layerRecords[layer]!.keys[key] = index   // listed above, so not forgotten by the discard
        }
        return AnimationHandle(index: index, generation: animations[Int(index)].generation)
    }

    /// Replaces an animation, keeping its place in every slot's order and its key (for
    /// retargeting; Core Animation's replace-by-key is ``add(_:layer:forKey:)``). The old animation
    /// stops with outcome ``AnimationEvent/Outcome/replaced`` (with the next frame) and its handle
    /// goes stale; the new one has the returned handle and starts fresh (a `started` event follows
    /// when its active duration begins).
    ///
    /// - Throws: `AnimationError` for an invalid animation (the old one stays), or naming
    ///   `handle` when it is stale.
    ///
    /// Retargeting — a basic or spring animation replaced by one of the same type on the same key
    /// path with values of the same kind (new values, timing, timing function, spring
    /// parameters in the same regime) — keeps the track and rewrites its columns in place: no
    /// recompilation, no change to the frame's plan.
    @discardableResult
    public func replace(_ handle: AnimationHandle, with animation: any Animation) throws -> AnimationHandle {
        guard let a = resolve(handle) else { throw AnimationError(field: "handle", reason: "does not name a live animation") }
        foldTarget(a)
        if let retargeted = try retarget(a, handle: handle, with: animation) { return retargeted }
        let record = animations[Int(a)]
        try check(animation, layer: record.layer)
        let finished = animations[Int(a)].hasFinished
        removeContents(of: a)
        animations[Int(a)].generation &+= 1
        animations[Int(a)].hasFinished = false
        if !finished { pendingEvents.append(AnimationEvent(animation: handle, kind: .stopped, outcome: .replaced)) }
        _ = try insert(animation, layer: record.layer, sequence: record.sequence, reusing: a)
        animations[Int(a)].key = record.key
        return AnimationHandle(index: a, generation: animations[Int(a)].generation)
    }

    /// Retargets a basic or spring animation: the same animation — key path, timing function,
    /// duration, fill, spring parameters — now from `from` (nil: from the value beneath, §4.1) to
    /// `to`, beginning at `beginTime` (the parent time: for a top-level animation the layer's time
    /// now, as an implicit action retargets mid-flight, semantics §10). What
    /// ``replace(_:with:)`` does with that copy — the old animation stops with outcome
    /// ``AnimationEvent/Outcome/replaced`` and the returned handle names the new one — but without
    /// taking the animation apart: its track's columns are rewritten in place and the new values
    /// kept in its lane until something reads the animation. Bound by the cache misses of reaching
    /// the animation's records and columns; ``retarget(_:from:to:beginTime:)->()``
    /// retargets many at a fraction of the cost per animation.
    ///
    /// - Throws: `AnimationError` naming `handle` when it is stale or names another kind of
    ///   animation (use ``replace(_:with:)``), or naming the value that does not fit the animation
    ///   (`toValue`, `fromValue`), or `beginTime` when it is not finite.
    @discardableResult
    public func retarget(_ handle: AnimationHandle, from: AnimationValue? = nil, to: AnimationValue,
                         beginTime: Double) throws -> AnimationHandle {
        guard let a = resolve(handle) else { throw AnimationError(field: "handle", reason: "does not name a live animation") }
        let t = animations[Int(a)].columnTrack
        if t >= 0 {
            let kind = tracks[Int(t)].valueKind
            if to.kind != kind { throw AnimationError(field: "toValue", reason: "is a \(to.kind) but the animation animates a \(kind)") }
            if let from, from.kind != kind {
                throw AnimationError(field: "fromValue", reason: "is a \(from.kind) but the animation animates a \(kind)")
            }
        }
        guard beginTime.isFinite else { throw AnimationError(field: "beginTime", reason: "must be finite (got \(beginTime))") }
        var retargeted = handle, target = to, source = from ?? to
        // One-element views of three locals, used only inside these closures (the bulk path's interface).
        let done = withUnsafeMutablePointer(to: &retargeted) { handlePointer in
            withUnsafePointer(to: &target) { targetPointer in
                withUnsafePointer(to: &source) { sourcePointer in
                    retargetInColumns(UnsafeMutableBufferPointer(start: handlePointer, count: 1),
                                      from: from == nil ? nil : ValueList(values: UnsafeBufferPointer(start: sourcePointer, count: 1)),
                                      to: ValueList(values: UnsafeBufferPointer(start: targetPointer, count: 1)),
                                      startingAt: 0, beginTime: beginTime)
                }
            }
        }
        if done == 1 { return retargeted }
        foldTarget(a)
        guard let old = animations[Int(a)].animation else {
            throw AnimationError(field: "handle", reason: "does not name a live animation")
        }
        switch old {
        case var basic as BasicAnimation:
            (basic.fromValue, basic.toValue, basic.byValue) = (from, to, nil)
            basic.timing.beginTime = beginTime
            return try replace(handle, with: basic)
        case var spring as SpringAnimation:
            (spring.fromValue, spring.toValue, spring.byValue) = (from, to, nil)
            spring.timing.beginTime = beginTime
            return try replace(handle, with: spring)
        default:
            throw AnimationError(field: "handle", reason: "names a \(type(of: old)), not a basic or spring animation: replace it instead")
        }
    }

    /// Retargets many basic or spring animations at once: for each `k`,
    /// ``retarget(_:from:to:beginTime:)->_`` of `handles[k]` from `sources[k]` (nil: every one from
    /// the value beneath, §4.1) to `targets[k]`, all beginning at `beginTime`; `handles[k]` becomes
    /// the retargeted animation's handle. Events, values and handles are those of the calls one by
    /// one, in this order. A run of animations the columns alone can retarget (one track of a basic
    /// or spring batch; to-only needs its slot to have no other animation) goes in one pass under
    /// a single access to each of the store's record arrays: about 4× cheaper per animation than the
    /// calls one by one (perf-reports).
    ///
    /// - Throws: `AnimationError` naming `handles[k]` (stale, named twice, or not a basic or
    ///   spring animation), `targets[k]` or `sources[k]` (a value of another kind) for the first
    ///   entry that cannot be retargeted, `targets` or `sources` when its count differs from
    ///   `handles`', or `beginTime`. Every entry is checked before any is done: on an error nothing
    ///   changes.
    public func retarget(_ handles: inout [AnimationHandle], from sources: [AnimationValue]? = nil, to targets: [AnimationValue],
                         beginTime: Double) throws {
        guard targets.count == handles.count else {
            throw AnimationError(field: "targets", reason: "holds \(targets.count) values for \(handles.count) handles")
        }
        if let sources, sources.count != handles.count {
            throw AnimationError(field: "sources", reason: "holds \(sources.count) values for \(handles.count) handles")
        }
        try handles.withUnsafeMutableBufferPointer { h in
            try targets.withUnsafeBufferPointer { to in
                if let sources {
                    try sources.withUnsafeBufferPointer { from in
                        try retargetMany(h, from: ValueList(values: from), to: ValueList(values: to), beginTime: beginTime)
                    }
                } else {
                    try retargetMany(h, from: ValueList?.none, to: ValueList(values: to), beginTime: beginTime)
                }
            }
        }
    }

    /// ``retarget(_:from:to:beginTime:)->()`` with the values as packed
    /// components of one `kind` (`AnimationValue.components` order, `kind.componentCount` numbers
    /// per value), read in place: a host's own buffers of positions or colours, with no value built
    /// per animation. `handles` is updated in place.
    ///
    /// - Throws: as the array form (`targets`/`sources` name the components' buffers), and naming
    ///   `targets` or `sources` when its count is not `handles.count × kind.componentCount`.
    public func retarget(_ handles: UnsafeMutableBufferPointer<AnimationHandle>, kind: ValueKind,
                         fromComponents sources: UnsafeBufferPointer<Double>? = nil, toComponents targets: UnsafeBufferPointer<Double>,
                         beginTime: Double) throws {
        let width = kind.componentCount
        guard targets.count == handles.count * width else {
            throw AnimationError(field: "targets", reason: "holds \(targets.count) numbers for \(handles.count) \(kind) values")
        }
        if let sources, sources.count != handles.count * width {
            throw AnimationError(field: "sources", reason: "holds \(sources.count) numbers for \(handles.count) \(kind) values")
        }
        try retargetMany(handles, from: sources.map { PackedValues(numbers: $0, kind: kind) },
                         to: PackedValues(numbers: targets, kind: kind), beginTime: beginTime)
    }

    /// The batch retarget behind both public forms: every entry checked, then runs done in the
    /// columns (``retargetInColumns(_:from:to:startingAt:beginTime:)``) and the rest one by one.
    private func retargetMany<From: RetargetValues, To: RetargetValues>(_ handles: UnsafeMutableBufferPointer<AnimationHandle>,
                                                                         from sources: From?, to targets: To,
                                                                         beginTime: Double) throws {
        guard beginTime.isFinite else { throw AnimationError(field: "beginTime", reason: "must be finite (got \(beginTime))") }
        try checkRetargets(UnsafeBufferPointer(handles), from: sources, to: targets)
        // Room for a stop event each, growing by doubling (reserving the exact count per call would
        // copy the list at every call while a host retargets without evaluating).
        let needed = pendingEvents.count + handles.count
        if pendingEvents.capacity < needed { pendingEvents.reserveCapacity(max(needed, 2 * pendingEvents.capacity)) }
        var k = 0
        while k < handles.count {
            k = retargetInColumns(handles, from: sources, to: targets, startingAt: k, beginTime: beginTime)
            guard k < handles.count else { break }
            do {
                handles[k] = try retarget(handles[k], from: sources?.value(k), to: targets.value(k), beginTime: beginTime)
            } catch let error as AnimationError {
                switch error.field {
                case "handle": throw AnimationError(field: "handles[\(k)]", reason: error.reason)
                case "toValue": throw AnimationError(field: "targets[\(k)]", reason: error.reason)
                case "fromValue": throw AnimationError(field: "sources[\(k)]", reason: error.reason)
                default: throw error.prefixed(by: "handles[\(k)]")
                }
            }
            k += 1
        }
    }

    /// Throws what ``retarget(_:from:to:beginTime:)->()`` would for the first
    /// entry it could not do, before it does any: a stale handle or one named twice, an animation
    /// that is not a basic or spring animation, a value of another kind. Reads the records of
    /// later entries ahead (their cache misses overlap) and leaves them in cache for the pass
    /// that retargets: handles that skip through the store (every fifth layer's animation) cost
    /// a dependent miss per record otherwise.
    private func checkRetargets<From: RetargetValues, To: RetargetValues>(_ handles: UnsafeBufferPointer<AnimationHandle>,
                                                                         from sources: From?, to targets: To) throws {
        retargetCheck = retargetCheck == .max ? 1 : retargetCheck + 1   // 0 is the mark of records never checked
        let mark = retargetCheck
        try animations.withUnsafeMutableBufferPointer { records in
            try tracks.withUnsafeBufferPointer { trackRecords in
                // Index of handle j's record, if it names one in range.
                func record(_ j: Int) -> Int? {
                    guard j < handles.count else { return nil }
                    let a = Int(handles[j].index)
                    return a >= 0 && a < records.count ? a : nil
                }
                for k in 0..<handles.count {
                    // Two stages ahead: the record of entry k + 8, and the track record of entry
                    // k + 4 (whose animation record the first stage fetched four entries ago).
                    // `record` returns only indices below records.count, so both buffers are non-empty and in bounds.
                    if let a = record(k + 8) { Self.prefetch(records.baseAddress! + a) }
                    if let a = record(k + 4), records[a].columnTrack >= 0, Int(records[a].columnTrack) < trackRecords.count {
                        Self.prefetch(trackRecords.baseAddress! + Int(records[a].columnTrack))
                    }
                    let handle = handles[k]
                    guard let a = record(k), records[a].alive, records[a].generation == handle.generation else {
                        throw AnimationError(field: "handles[\(k)]", reason: "does not name a live animation")
                    }
                    guard records[a].checkMark != mark else {
                        throw AnimationError(field: "handles[\(k)]", reason: "names an animation an earlier entry names: its handle goes stale there")
                    }
                    records[a].checkMark = mark
                    let kind: ValueKind
                    let t = records[a].columnTrack
                    if t >= 0 {
                        kind = trackRecords[Int(t)].valueKind
                    } else if let property = records[a].animation as? any PropertyAnimation,
                              property is BasicAnimation || property is SpringAnimation, let valueKind = property.valueKind {
                        kind = valueKind
                    } else {
                        let name = records[a].animation.map { "\(type(of: $0))" } ?? "nothing"
                        throw AnimationError(field: "handles[\(k)]", reason: "names a \(name), not a basic or spring animation: replace it instead")
                    }
                    if targets.kind(k) != kind {
                        throw AnimationError(field: "targets[\(k)]", reason: "is a \(targets.kind(k)) but the animation animates a \(kind)")
                    }
                    if let sources, sources.kind(k) != kind {
                        throw AnimationError(field: "sources[\(k)]", reason: "is a \(sources.kind(k)) but the animation animates a \(kind)")
                    }
                }
            }
        }
    }

    /// Prefetches the cache lines of one record (a hint: never faults, never changes results).
    @inline(__always)
    private static func prefetch<Record>(_ record: UnsafePointer<Record>) {
        let bytes = UnsafeRawPointer(record)
        for line in stride(from: 0, to: MemoryLayout<Record>.size, by: 64) { animation_prefetch(bytes + line) }
    }

    /// The retargets from `first` on that the columns alone can do, in one pass: for each, the new
    /// endpoints (§4.1 over the model for to-only), the begin time and a fresh state written into
    /// the track's lane, with the exact values kept there (``InterpolatingBatch``) — no copy, cast
    /// or boxing of the animation, and no memory of its own. The record arrays are reached through
    /// one access each: every access to a class's array property is checked at run time, and
    /// those checks were 30 % of a mass retarget done call by call. Returns the index of the first
    /// retarget left (a stale handle, another kind of animation or value, a to-only retarget on a
    /// composed slot — recomputed from the animation every frame, §4.1 — for the single call to do
    /// or reject), or `handles.count`.
    private func retargetInColumns<From: RetargetValues, To: RetargetValues>(_ handles: UnsafeMutableBufferPointer<AnimationHandle>,
                                                                             from sources: From?, to targets: To,
                                                                             startingAt first: Int, beginTime: Double) -> Int {
        var k = first
        animations.withUnsafeMutableBufferPointer { records in
            tracks.withUnsafeMutableBufferPointer { trackRecords in
                slots.withUnsafeBufferPointer { slotRecords in
                    batches.withUnsafeBufferPointer { batchList in
                        while k < handles.count {
                            let handle = handles[k], a = Int(handle.index)
                            guard a >= 0, a < records.count, records[a].alive, records[a].generation == handle.generation else { return }
                            let t = Int(records[a].columnTrack)
                            guard t >= 0 else { return }
                            let kind = trackRecords[t].valueKind
                            guard targets.kind(k) == kind, sources?.kind(k) ?? kind == kind, sources != nil || trackRecords[t].exclusive else { return }
                            // Unchecked: `columnTrack` is set only for a track of an interpolating batch (``insert``).
                            let batch = unsafeDowncast(batchList[Int(trackRecords[t].batch)], to: InterpolatingBatch.self)
                            let i = Int(trackRecords[t].index)

                            if !records[a].hasFinished {
                                pendingEvents.append(AnimationEvent(animation: handle, kind: .stopped, outcome: .replaced))
                            }
                            records[a].generation &+= 1
                            records[a].hasFinished = false
                            records[a].retargeted = true
                            let retargeted = AnimationHandle(index: Int32(a), generation: records[a].generation)
                            batch.animationID[i] = retargeted.rawValue
                            // The timing stands but for its begin time, which a top-level track keeps as
                            // given (``CompiledTiming``; it is not part of ``CompiledTiming/isPlain``).
                            batch.beginTime[i] = beginTime
                            batch.state[i] = TrackState.neverEvaluated   // a new animation: it starts and ends anew (§8.1)
                            // §4.1: from `from`, or from the value beneath (the model: the slot is exclusive).
                            // The values are read in place, component by component: copying the 129-byte
                            // values per retarget was an eighth of a mass retarget.
                            let slot = trackRecords[t].slot
                            if let sources {
                                batch.retarget(i, from: sources, k, to: targets, k, keepsFrom: true)
                            } else {
                                // The model read where it lies (`slot` is a live slot's index).
                                let model = UnsafeRawPointer(slotRecords.baseAddress! + Int(slot))
                                    .advanced(by: MemoryLayout<SlotRecord>.offset(of: \SlotRecord.model)!)   // a stored property: it has an offset
                                    .assumingMemoryBound(to: AnimationValue.self)
                                batch.retarget(i, from: ValueList(values: UnsafeBufferPointer(start: model, count: 1)), 0,
                                               to: targets, k, keepsFrom: false)
                            }
                            switch (trackRecords[t].op, sources != nil) {
                            case (.value, true), (.recompute, false): break
                            default:
                                trackRecords[t].op = sources == nil ? .recompute : .value
                                markDirty(slot)   // its own arrays: no overlap with the accesses held here
                            }
                            handles[k] = retargeted
                            k += 1
                        }
                    }
                }
            }
        }
        return k
    }

    /// Animation `a`'s stored animation with its pending retarget applied (new from and to, no
    /// by, new begin time), or nil when none is pending.
    private func retargetedAnimation(_ a: Int32) -> (any Animation)? {
        guard animations[Int(a)].retargeted else { return nil }
        let t = Int(animations[Int(a)].columnTrack)
        // Unchecked: only tracks of interpolating batches are retargeted in their lanes.
        let batch = unsafeDowncast(batches[Int(tracks[t].batch)], to: InterpolatingBatch.self)
        let i = Int(tracks[t].index)
        guard let (from, to) = batch.pendingTarget(i, kind: tracks[t].valueKind) else { return nil }
        let beginTime = batch.beginTime[i]
        switch animations[Int(a)].animation {
        case var basic as BasicAnimation:
            (basic.fromValue, basic.toValue, basic.byValue) = (from, to, nil)
            basic.timing.beginTime = beginTime
            return basic
        case var spring as SpringAnimation:
            (spring.fromValue, spring.toValue, spring.byValue) = (from, to, nil)
            spring.timing.beginTime = beginTime
            return spring
        default:
            return nil
        }
    }

    /// Folds animation `a`'s pending retarget into its stored animation and its track's leaf.
    private func foldTarget(_ a: Int32) {
        guard let folded = retargetedAnimation(a) else { return }
        animations[Int(a)].retargeted = false
        let t = Int(animations[Int(a)].columnTrack)
        unsafeDowncast(batches[Int(tracks[t].batch)], to: InterpolatingBatch.self)   // as in retargetedAnimation
            .targetState[Int(tracks[t].index)] = InterpolatingBatch.noTarget
        animations[Int(a)].animation = folded
        if let property = folded as? any PropertyAnimation { tracks[t].leaf = AnimationLeaf(animation: property) }
    }

    /// ``replace(_:with:)`` in place when `animation` only retargets animation `a` (see there), or
    /// nil when it does more. Validated like any animation: the key path and the values' kind are
    /// the old animation's, which were checked against the slot when it was added.
    private func retarget(_ a: Int32, handle: AnimationHandle, with animation: any Animation) throws -> AnimationHandle? {
        guard animations[Int(a)].nodes.isEmpty, animations[Int(a)].tracks.count == 1 else { return nil }
        let t = Int(animations[Int(a)].tracks[0])
        guard let old = tracks[t].leaf?.animation, tracks[t].rotationSlot < 0 else { return nil }
        let batch = batches[Int(tracks[t].batch)], i = Int(tracks[t].index)
        let spring: SpringAnimation?
        switch (animation, old, batch) {
        case (let new as BasicAnimation, let old as BasicAnimation, is BasicBatch):
            guard new.keyPath == old.keyPath, new.valueKind == old.valueKind, new.isAdditive == old.isAdditive,
                  new.isCumulative == old.isCumulative, new.valueFunction == nil, old.valueFunction == nil else { return nil }
            spring = nil
        case (let new as SpringAnimation, let old as SpringAnimation, let springs as SpringBatch):
            guard new.keyPath == old.keyPath, new.valueKind == old.valueKind, new.isAdditive == old.isAdditive,
                  new.isCumulative == old.isCumulative, new.valueFunction == nil, old.valueFunction == nil,
                  SpringRegime(dampingRatio: new.dampingRatio, omega0: new.undampedAngularFrequency) == springs.regime else { return nil }
            spring = new
        default:
            return nil
        }
        try animation.validate()
        let property = animation as! any PropertyAnimation   // both cases above are property animations
        if !animations[Int(a)].hasFinished { pendingEvents.append(AnimationEvent(animation: handle, kind: .stopped, outcome: .replaced)) }
        animations[Int(a)].generation &+= 1
        animations[Int(a)].hasFinished = false
        animations[Int(a)].animation = animation
        animations[Int(a)].removedOnCompletion = animation.isRemovedOnCompletion
        let retargeted = AnimationHandle(index: a, generation: animations[Int(a)].generation)
        tracks[t].leaf = AnimationLeaf(animation: property)
        batch.animationID[i] = retargeted.rawValue
        let timing = CompiledTiming(property.timing, topLevel: true, removedOnCompletion: animation.isRemovedOnCompletion,
                                    group: clockNode(of: animations[Int(a)].layer))
        if property.timingFunction == old.timingFunction {
            batch.setTiming(i, timing)   // the same curve: its columns stand (a retarget's common case)
        } else {
            batch.setTiming(i, timing, curve: property.timingFunction)
        }
        batch.state[i] = TrackState.neverEvaluated   // a new animation: it starts and ends anew (§8.1)
        if let spring, let springs = batch as? SpringBatch {
            springs.setSpring(i, omega0: spring.undampedAngularFrequency, zeta: spring.dampingRatio, initialVelocity: spring.initialVelocity)
        }
        let op = tracks[Int(t)].op
        configure(track: Int32(t))
        // A composed slot's plan depends on how the track composes (a to-only animation over the
        // value beneath is recomputed, §4.1): replan it when that changed.
        switch (op, tracks[t].op) {
        case (.value, .value), (.recompute, .recompute): break
        default: markDirty(tracks[t].slot)
        }
        return retargeted
    }

    /// Removes an animation; its stop event (with `outcome`, `.removed` by default) comes with the
    /// next frame, and its handle goes stale. Returns false for a stale handle.
    @discardableResult
    public func remove(_ handle: AnimationHandle, outcome: AnimationEvent.Outcome = .removed) -> Bool {
        guard let a = resolve(handle) else { return false }
        let finished = animations[Int(a)].hasFinished
        free(animation: a)
        // An animation whose finish was reported has stopped already (§8.1).
        if !finished { pendingEvents.append(AnimationEvent(animation: handle, kind: .stopped, outcome: outcome)) }
        return true
    }

    /// After a frame reported an animation finished: one removed on completion is removed (semantics
    /// §1.4); the stop event was that frame's, so none is added. Another is marked so that its
    /// later removal reports no second stop (§8.1).
    func didFinish(_ handle: AnimationHandle) {
        guard let a = resolve(handle) else { return }
        if animations[Int(a)].removedOnCompletion {
            if parksFinishedAnimations, canPark(a) { park(a) } else { free(animation: a) }
        } else {
            animations[Int(a)].hasFinished = true
        }
    }

    /// After a frame reported an animation finished, with reaping off: it stays, marked.
    func markFinished(_ handle: AnimationHandle) {
        if let a = resolve(handle) { animations[Int(a)].hasFinished = true }
    }

    /// Whether a frame reported the animation finished (nil for a stale handle): its stop has
    /// been reported, and removing it reports none.
    public func hasFinished(_ handle: AnimationHandle) -> Bool? {
        resolve(handle).map { animations[Int($0)].hasFinished }
    }

    private func free(animation a: Int32) {
        let layer = animations[Int(a)].layer
        removeContents(of: a)
        let key = animations[Int(a)].key
        changeLayerRecord(layer) { record in
            if let key, record.keys[key] == a { record.keys[key] = nil }
            record.animations.removeAll { $0 == a }
        }
        animations[Int(a)].retargeted = false   // its lane was cleared with its track
        animations[Int(a)].alive = false
        animations[Int(a)].animation = nil
        animations[Int(a)].key = nil
        animations[Int(a)].hasFinished = false
        animations[Int(a)].generation &+= 1
        freeAnimations.append(a)
    }

    /// The animation behind a handle, as added (nil for a stale handle).
    public func animation(_ handle: AnimationHandle) -> (any Animation)? {
        guard let a = resolve(handle) else { return nil }
        return retargetedAnimation(a) ?? animations[Int(a)].animation
    }

    /// The animation on `layer` under `key` (semantics §8.2), or nil.
    public func animation(forKey key: String, layer: LayerID) -> AnimationHandle? {
        liveAnimation(forKey: key, layer: layer).map { AnimationHandle(index: $0, generation: animations[Int($0)].generation) }
    }

    /// The keys of `layer`'s keyed animations in add order (semantics §8.2).
    public func animationKeys(layer: LayerID) -> [String] {
        listedAnimations(of: layer).compactMap { animations[Int($0)].key }
    }

    /// The key an animation was added under (nil for an anonymous or stale one).
    public func key(of handle: AnimationHandle) -> String? {
        resolve(handle).flatMap { animations[Int($0)].key }
    }

    /// The layer an animation is on (nil for a stale handle).
    public func layer(of handle: AnimationHandle) -> LayerID? {
        resolve(handle).map { animations[Int($0)].layer }
    }

    /// `layer`'s animations in add order.
    public func animations(of layer: LayerID) -> [AnimationHandle] {
        listedAnimations(of: layer).map { AnimationHandle(index: $0, generation: animations[Int($0)].generation) }
    }

    /// Removes the animation on `layer` under `key` (its stop event, with `outcome`, comes with
    /// the next frame). Returns false when there is none.
    @discardableResult
    public func removeAnimation(forKey key: String, layer: LayerID, outcome: AnimationEvent.Outcome = .removed) -> Bool {
        guard let handle = animation(forKey: key, layer: layer) else { return false }
        return remove(handle, outcome: outcome)
    }

    /// Removes every animation on `layer`, in add order (stop events with `outcome`).
    public func removeAllAnimations(layer: LayerID, outcome: AnimationEvent.Outcome = .removed) {
        for handle in animations(of: layer) { remove(handle, outcome: outcome) }
    }

    /// Every live animation in add order.
    public var allAnimations: [AnimationHandle] {
        animations.indices.filter { animations[$0].alive && !animations[$0].parked }
            .sorted { animations[$0].sequence < animations[$1].sequence }
            .map { AnimationHandle(index: Int32($0), generation: animations[$0].generation) }
    }

    func resolve(_ handle: AnimationHandle) -> Int32? {
        let i = Int(handle.index)
        guard i >= 0, i < animations.count, animations[i].alive, animations[i].generation == handle.generation else { return nil }
        return handle.index
    }

    // MARK: Presentation

    /// Every layer's presentation value of `property` after the last frame, as contiguous memory
    /// (a view valid until the store changes or the next frame), or nil when no layer has it.
    public func presentation(of property: String) -> PresentationColumn? {
        table.columnIndex(of: property).map { PresentationColumn(table.columns[Int($0)], locations: UnsafePointer(table.locations)) }
    }

    /// The presentation value of a slot after the last frame (a model value set since shows at
    /// once), or nil for a stale handle: one load from its row (always inlined, as
    /// `FrameEvaluator.value(of:)` is, for the same reason).
    @inlinable @inline(__always)
    public func presentationValue(of slot: SlotHandle) -> AnimationValue? {
        PresentationTable.presentationValue(of: slot, in: table.raw)
    }

    /// The components of a slot's presentation value in place — `AnimationValue.components`
    /// order, in Double — or nil for a stale handle: a zero-copy read of one row, valid until the
    /// store next changes or the next frame.
    @inlinable
    public func presentationComponents(of slot: SlotHandle) -> UnsafeBufferPointer<Double>? {
        PresentationTable.components(of: slot, in: table.raw)
    }

    /// Where a slot's presentation value lives: the index of its property in
    /// ``presentationProperties`` and its row in that property's ``PresentationColumn``; nil for
    /// a stale handle.
    public func presentationPlace(of slot: SlotHandle) -> (column: Int, row: Int)? {
        PresentationTable.location(of: slot, in: table.raw).map { (Int($0.column), Int($0.row)) }
    }

    /// The properties that have a presentation column, in the order they first appeared.
    public var presentationProperties: [String] { table.columns.map(\.property) }

    /// How many properties have a presentation column (``presentationProperties``' count,
    /// without building the list).
    public var presentationColumnCount: Int { table.columns.count }

    /// Validates `animation` against `layer`'s slots without changing anything.
    private func check(_ animation: any Animation, layer: LayerID) throws {
        try animation.validate()
        for leaf in animation.leaves {
            let prefix = leaf.indexPath.map { "animations[\($0)]" }.joined(separator: ".")
            let property = AnimationKeyPath.split(leaf.animation.keyPath).property
            let kind: ValueKind
            if let s = slotByKey[SlotKey(layer: layer, property: property)] {
                kind = slots[Int(s)].kind
            } else if let known = LayerProperty.named(property) {
                kind = known.kind
            } else {
                throw AnimationError(field: "keyPath", reason: "\(layer) has no property '\(property)' (set its model value first)")
                    .prefixed(by: prefix)
            }
            do {
                try leaf.animation.validate(forPropertyKind: kind)
            } catch let error as AnimationError {
                throw error.prefixed(by: prefix)
            }
        }
    }

    /// Compiles a checked animation into record `reusing` or a new one.
    private func insert(_ animation: any Animation, layer: LayerID, sequence: UInt64, reusing: Int32?) throws -> Int32 {
        let a: Int32
        if let reusing {
            a = reusing
        } else if let free = freeAnimations.popLast() {
            a = free
        } else {
            a = Int32(animations.count)
            animations.append(AnimationRecord())
            if freeAnimations.capacity < animations.capacity { freeAnimations.reserveCapacity(animations.capacity) }
        }
        animations[Int(a)].alive = true
        animations[Int(a)].layer = layer
        animations[Int(a)].sequence = sequence
        animations[Int(a)].animation = animation
        animations[Int(a)].removedOnCompletion = animation.isRemovedOnCompletion
        animations[Int(a)].tracks = []
        animations[Int(a)].nodes = []
        let handleRaw = AnimationHandle(index: a, generation: animations[Int(a)].generation).rawValue

        // Group nodes, one per group, keyed by the group's index path (semantics §2.7, §7).
        var nodeByPath: [[Int]: Int32] = [:]
        for (leafIndex, leaf) in animation.leaves.enumerated() {
            var parent: Int32 = -1
            for depth in 0..<leaf.groups.count {
                let path = Array(leaf.indexPath.prefix(depth))
                if let existing = nodeByPath[path] {
                    parent = existing
                    continue
                }
                let group = leaf.groups[depth]
                var node = GroupNode()
                node.alive = true
                node.timing = group.timing
                node.curve = group.timingFunction ?? .linear
                node.parent = parent
                node.isRoot = depth == 0
                node.removedOnCompletion = depth == 0 && animation.isRemovedOnCompletion
                node.animation = a
                node.generation = animations[Int(a)].generation
                let n = allocateNode(node)
                if depth == 0 {
                    let timing = CompiledTiming(group.timing, topLevel: true, removedOnCompletion: animation.isRemovedOnCompletion,
                                                group: clockNode(of: layer))
                    nodes[Int(n)].lane = Int32(nodeBatch.append(node: n, animation: handleRaw, timing: timing, function: node.curve))
                }
                nodeOrder.append(n)   // after its parent, allocated just before
                nodeByPath[path] = n
                animations[Int(a)].nodes.append(n)
                parent = n
            }
            // A top-level leaf's parent time is its layer's time (semantics §2.7): the frame's, or
            // its layer's clock's when it has one.
            let t = compile(leaf, leafIndex: Int32(leafIndex), animation: a, handle: handleRaw, layer: layer, sequence: sequence,
                            group: parent >= 0 ? parent : clockNode(of: layer),
                            topLevelRemovedOnCompletion: animation.isRemovedOnCompletion)
            animations[Int(a)].tracks.append(t)
        }
        if animations[Int(a)].nodes.isEmpty, animations[Int(a)].tracks.count == 1, let t = animations[Int(a)].tracks.first,
           tracks[Int(t)].valueFunction == nil, batches[Int(tracks[Int(t)].batch)] is InterpolatingBatch {
            animations[Int(a)].columnTrack = t
        }
        version += 1
        return a
    }

    private func removeContents(of a: Int32) {
        for t in animations[Int(a)].tracks { removeTrack(t) }
        for n in animations[Int(a)].nodes {
            let lane = nodes[Int(n)].lane
            if lane >= 0, let moved = nodeBatch.remove(at: Int(lane)) { nodes[Int(moved)].lane = lane }
            nodes[Int(n)].lane = -1
            nodes[Int(n)].alive = false
            releasedNodes.append(n)
        }
        // `nodeOrder` forgets the nodes before the next frame (``updatePlan()``): once per frame,
        // not once per removed animation.
        animations[Int(a)].tracks = []
        animations[Int(a)].nodes = []
        animations[Int(a)].columnTrack = -1
        version += 1
    }

    func allocateNode(_ node: GroupNode) -> Int32 {
        if let free = freeNodes.popLast() {
            nodes[Int(free)] = node
            return free
        }
        nodes.append(node)
        if freeNodes.capacity < nodes.capacity { freeNodes.reserveCapacity(nodes.capacity) }
        if releasedNodes.capacity < nodes.capacity { releasedNodes.reserveCapacity(nodes.capacity) }
        nodeTimes.reserve(nodes.count, count: nodes.count - 1)
        return Int32(nodes.count - 1)
    }

    // MARK: Plan

    private func markDirty(_ s: Int32) {
        guard dirty[Int(s)] == 0 else { return }
        dirty[Int(s)] = 1
        dirtySlots.append(s)
    }

    /// Brings the frame's plan up to date with the changes since the last frame: each changed
    /// slot is planned again (O(its entries)), and freed group nodes leave the node order. Called
    /// by ``FrameEvaluator`` before a frame; allocation-free once capacities are reached.
    func updatePlan() {
        updateClockPlan()
        if !releasedNodes.isEmpty {
            // In place; parents stay before their children.
            nodeOrder.removeAll { !nodes[Int($0)].alive }
            freeNodes.append(contentsOf: releasedNodes)
            releasedNodes.removeAll(keepingCapacity: true)
        }
        guard !dirtySlots.isEmpty else { return }
        for s in dirtySlots {
            dirty[Int(s)] = 0
            replan(s)
        }
        dirtySlots.removeAll(keepingCapacity: true)
        composition.compactIfNeeded()
    }

    /// Plans slot `s` again: an exclusive slot's track shows its output in the slot's row itself;
    /// a composed slot gets a fast or general operation (``Composition``).
    private func replan(_ s: Int32) {
        composition.unplan(s)
        guard slots[Int(s)].alive, !slots[Int(s)].entries.isEmpty else { return }
        let location = table.locations[Int(s)]
        if isExclusive(slot: s) {
            let t = Int(slots[Int(s)].entries[0].track)
            batches[Int(tracks[t].batch)].setShown(Int(tracks[t].index), row: table.rowPointer(ofSlot: s),
                                                   slot: SlotHandle(index: s, generation: location.generation))
            return
        }
        for entry in slots[Int(s)].entries where !entry.isRotation {
            let t = Int(entry.track)
            batches[Int(tracks[t].batch)].setShown(Int(tracks[t].index), row: nil, slot: SlotHandle(rawValue: 0))
        }
        tracks.withUnsafeBufferPointer { tracks in
            composition.plan(s, record: slots[Int(s)], location: location, tracks: tracks)
        }
    }

    // MARK: Compiling

    private func batch(for key: BatchKey) -> Int32 {
        if let b = batchByKey[key] { return Int32(b) }
        let batch: TrackBatch
        switch key {
        case .basic(let w): batch = BasicBatch(width: w)
        case .spring(let w, let regime): batch = SpringBatch(width: w, regime: regime)
        case .keyframe(let w): batch = KeyframeBatch(width: w)
        case .path: batch = PathBatch()
        case .reference(let kind): batch = ReferenceBatch(kind: kind)
        }
        batches.append(batch)
        batchByKey[key] = batches.count - 1
        return Int32(batches.count - 1)
    }

    private func allocateTrack() -> Int32 {
        if let free = freeTracks.popLast() { return free }
        tracks.append(TrackRecord())
        // Room to free every track: a frame that reaps finished animations must not allocate.
        if freeTracks.capacity < tracks.capacity { freeTracks.reserveCapacity(tracks.capacity) }
        return Int32(tracks.count - 1)
    }

    /// Whether the Float curve kernel can evaluate the per-segment timing functions of a keyframe
    /// animation within the precision contract (semantics §5.4: linear and cubic modes use them).
    /// If not, the track is evaluated by the reference (``ReferenceBatch``): a nearly vertical
    /// curve magnifies even the Float rounding of the segment's local time past the bound. (A
    /// nearly vertical animation-level function needs no such detour: the kernels evaluate it in
    /// Double from the Double progress, see ``CurveColumns``.)
    private func segmentCurvesWithinFloatPrecision(_ animation: any PropertyAnimation) -> Bool {
        guard let k = animation as? KeyframeAnimation, let functions = k.timingFunctions,
              k.calculationMode == .linear || k.calculationMode == .cubic else { return true }
        return functions.allSatisfy { precisionCache.isWithinFloatPrecision($0) }
    }

    private var precisionCache = CompiledCurve.PrecisionCache()

    private func compile(_ leaf: AnimationLeaf, leafIndex: Int32, animation a: Int32, handle: UInt64, layer: LayerID,
                         sequence: UInt64, group: Int32, topLevelRemovedOnCompletion: Bool) -> Int32 {
        let animation = leaf.animation
        let (property, fieldPath) = AnimationKeyPath.split(animation.keyPath)
        let s: Int32 = slotByKey[SlotKey(layer: layer, property: property)]
            ?? createSlot(layer: layer, property: property, model: LayerProperty.named(property)!.defaultValue)
        let slotKind = slots[Int(s)].kind
        let field = fieldPath.flatMap { try? ValueField(path: $0, of: slotKind) }
        let valueKind: ValueKind = animation.valueFunction != nil ? .scalar : (field?.kind ?? slotKind)
        let width = valueKind.componentCount
        let isMatrix = valueKind == .transform || valueKind == .affineTransform

        let (key, curve) = TrackCompiler.batch(for: animation, valueKind: valueKind,
                                                  floatCurvesSuffice: !isMatrix && segmentCurvesWithinFloatPrecision(animation))
        let b = batch(for: key)
        let t = allocateTrack()
        let timing = CompiledTiming(animation.timing, topLevel: leaf.groups.isEmpty,
                                    removedOnCompletion: topLevelRemovedOnCompletion, group: group)
        let index = batches[Int(b)].appendCommon(track: t, animation: handle, timing: timing, curve: curve)

        var record = TrackRecord()
        record.generation = tracks[Int(t)].generation
        record.alive = true
        record.batch = b
        record.index = Int32(index)
        record.slot = s
        record.animation = a
        record.leaf = leaf
        record.isAdditive = leaf.animation.isAdditive
        record.valueFunction = leaf.animation.valueFunction
        record.field = field
        record.valueKind = valueKind
        record.sequence = sequence
        record.leafIndex = leafIndex
        tracks[Int(t)] = record

        // Data that does not depend on the slot's model.
        switch batches[Int(b)] {
        case let keyframes as KeyframeBatch:
            let k = animation as! KeyframeAnimation
            keyframes.setKeyframes(index, TrackCompiler.compile(k, width: width),
                                   rotating: k.rotationMode != nil && k.path != nil ? k : nil)
        case let paths as PathBatch:
            let k = animation as! KeyframeAnimation
            paths.setPath(index, k.path!, cumulativeDelta: TrackCompiler.cumulativeDelta(k), rotating: k.rotationMode != nil ? k : nil)
        case let springs as SpringBatch:
            let spring = animation as! SpringAnimation
            springs.setSpring(index, omega0: spring.undampedAngularFrequency, zeta: spring.dampingRatio,
                              initialVelocity: spring.initialVelocity)
        default:
            break
        }

        insertEntry(SlotEntry(track: t, sequence: sequence, leafIndex: leafIndex, isRotation: false), into: s)
        // §5.7: a path animation with a rotation mode also turns the layer's transform, when the
        // layer has one (a transform slot created later is linked then, ``createSlot``).
        if let k = animation as? KeyframeAnimation, k.rotationMode != nil, k.path != nil {
            tracks[Int(t)].rotates = true
            if let transformSlot = slotByKey[SlotKey(layer: layer, property: "transform")], slots[Int(transformSlot)].kind == .transform {
                tracks[Int(t)].rotationSlot = transformSlot
                insertEntry(SlotEntry(track: t, sequence: sequence, leafIndex: leafIndex, isRotation: true), into: transformSlot)
            }
        }
        return t
    }

    // MARK: Parking (``parksFinishedAnimations``)

    /// A keyed animation with one basic or spring track outside groups, not turning a transform.
    private func canPark(_ a: Int32) -> Bool {
        guard let key = animations[Int(a)].key, animations[Int(a)].columnTrack >= 0,
              parkedAnimation(forKey: key, layer: animations[Int(a)].layer) == nil else { return false }
        return tracks[Int(animations[Int(a)].columnTrack)].rotationSlot < 0
    }

    /// Parks finished animation `a`: it leaves its slot (which shows its model again, §8.5), its
    /// lane takes a timing that never begins and shows nowhere, its handle goes stale and its
    /// key moves to the layer's parked keys. No event: its finish was this frame's.
    private func park(_ a: Int32) {
        let t = animations[Int(a)].columnTrack
        let batch = batches[Int(tracks[Int(t)].batch)], i = Int(tracks[Int(t)].index)
        // A pending retarget is dropped, not folded: nothing reads a parked animation's values
        // (what takes it over compares its key path, kind and flags, which retargets leave alone,
        // and writes values, timing and begin time anew). Folding was 1 µs of each park.
        animations[Int(a)].retargeted = false
        unsafeDowncast(batch, to: InterpolatingBatch.self).targetState[i] = InterpolatingBatch.noTarget   // canPark: a column track
        removeEntries(of: t, from: tracks[Int(t)].slot)
        animations[Int(a)].parkedTiming = batch.timing(i)
        batch.setTiming(i, .padding)
        batch.state[i] = TrackState.neverEvaluated
        batch.setShown(i, row: nil, slot: SlotHandle(rawValue: 0))
        // It stays in its layer's record and under its key, parked by its flag (``LayerRecord``).
        animations[Int(a)].parked = true
        animations[Int(a)].hasFinished = true   // a stop was reported: taking it over reports none
        animations[Int(a)].generation &+= 1
        parkedCount += 1
        version += 1
    }

    /// The animation parked under `key` on `layer` taken over by `animation` in place, or nil
    /// when `animation` does more than retarget it (the parked one is then freed).
    private func unpark(key: String, layer: LayerID, for animation: any Animation) throws -> AnimationHandle? {
        guard let a = parkedAnimation(forKey: key, layer: layer) else { return nil }
        let t = animations[Int(a)].columnTrack
        let sequence = nextSequence
        let handle = AnimationHandle(index: a, generation: animations[Int(a)].generation)
        // Back in its slot first (last: the newest), so that the retarget configures it for the
        // slot it is in; the slot's other tracks are configured for it now being composed.
        let s = tracks[Int(t)].slot
        slots[Int(s)].entries.append(SlotEntry(track: t, sequence: sequence, leafIndex: 0, isRotation: false))
        markDirty(s)
        if slots[Int(s)].entries.count > 1 {
            for entry in slots[Int(s)].entries where !entry.isRotation && entry.track != t { configure(track: entry.track) }
        }
        guard let revived = try retargetChecked(a, handle: handle, with: animation) else {
            discardParked(a)
            return nil
        }
        nextSequence += 1
        animations[Int(a)].sequence = sequence
        tracks[Int(t)].sequence = sequence
        animations[Int(a)].parked = false
        parkedCount -= 1
        version += 1
        return revived
    }

    /// An implicit action's animation added again (LayerTree's fast path, semantics §10): what
    /// ``add(_:layer:forKey:)`` does with a copy of animation `handle` (a basic or spring animation
    /// under `key` on `layer`) that animates from `from` to the value beneath (no `to`, no `by`)
    /// and begins at `beginTime` — the old one stops `replaced` unless it finished, the copy goes
    /// to the end of the order, a parked one is taken over — done in the columns alone: no
    /// existential copies, casts or compiling: 1.1–2.6 µs less per layer property change (caches
    /// cold after a tick) than adding the copy.
    ///
    /// `handle` may also name an animation that finished and was parked since (its handle went
    /// stale by parking and nothing else). Nil — and nothing changed — when the columns cannot do
    /// it: another animation under the key, a stale handle, a value of another kind or not
    /// finite, a composed slot (the value beneath is not the model), a field, additive or rotating
    /// track; the caller then adds the copy through ``add(_:layer:forKey:)``, which gives the
    /// same result. The caller vouches that the copy equals the animation but for its values and
    /// begin time.
    package func retargetImplicit(_ handle: AnimationHandle, layer: LayerID, forKey key: String,
                                  from: AnimationValue, beginTime: Double) -> AnimationHandle? {
        let a = Int(handle.index)
        guard a >= 0, a < animations.count, animations[a].alive, animations[a].layer == layer,
              beginTime.isFinite else { return nil }
        let parked = animations[a].parked
        // Parking bumps the generation once (``park(_:)``); any later change bumps it again.
        guard animations[a].generation == (parked ? handle.generation &+ 1 : handle.generation),
              animations[a].key == key else { return nil }
        let t = Int(animations[a].columnTrack)
        guard t >= 0, tracks[t].field == nil, !tracks[t].isAdditive, tracks[t].rotationSlot < 0,
              tracks[t].valueKind == from.kind else { return nil }
        var finite = true
        ValueStorage.forEachComponent(of: from) { _, v in finite = finite && v.isFinite }   // components in place: no array
        guard finite else { return nil }
        let s = Int(tracks[t].slot)
        // The value beneath is the model only in an exclusive slot: this track alone, or, parked,
        // an empty slot it returns to.
        if parked {
            guard slots[s].entries.isEmpty else { return nil }
        } else {
            guard slots[s].entries.count == 1, slots[s].entries[0].track == Int32(t) else { return nil }
        }
        // Unchecked: `columnTrack` is set only for a track of an interpolating batch (``insert``).
        let batch = unsafeDowncast(batches[Int(tracks[t].batch)], to: InterpolatingBatch.self)
        let i = Int(tracks[t].index)
        if parked {
            // Back in its slot with the timing it had (parking kept it and gave the lane one that
            // never begins), under its layer's clock as it is now; its finish was reported when it
            // was parked, so no stop now. Kept rather than compiled again from the animation:
            // reaching the animation's timing through its existential was 0.3 µs of a takeover.
            var timing = animations[a].parkedTiming
            timing.point(at: clockNode(of: layer))
            let sequence = nextSequence
            nextSequence += 1
            animations[a].sequence = sequence
            tracks[t].sequence = sequence
            slots[s].entries.append(SlotEntry(track: Int32(t), sequence: sequence, leafIndex: 0, isRotation: false))
            markDirty(Int32(s))   // the plan shows the lane in the slot's row again
            batch.setTiming(i, timing)
            tracks[t].exclusive = true
            batch.setFlag(i, CompiledTiming.addsBase, false)   // not additive (checked above)
            animations[a].parked = false
            parkedCount -= 1
            version += 1
        } else {
            if !animations[a].hasFinished { pendingEvents.append(AnimationEvent(animation: handle, kind: .stopped, outcome: .replaced)) }
            moveToEnd(Int32(a))
        }
        let model = slots[s].model
        // An exclusive track's fallback, shown when it does not contribute: defensive here (an
        // animation that begins now contributes until it ends, and then it is parked or, kept,
        // reconfigured by every model change), but the lane must match what configuring gives.
        ValueStorage.store(model, into: batch.base, at: i)
        animations[a].generation &+= 1
        animations[a].hasFinished = false
        animations[a].retargeted = true
        let retargeted = AnimationHandle(index: Int32(a), generation: animations[a].generation)
        batch.animationID[i] = retargeted.rawValue
        batch.beginTime[i] = beginTime   // a top-level track keeps its begin time as given
        batch.state[i] = TrackState.neverEvaluated   // a new animation: it starts and ends anew (§8.1)
        // Its composition op stands: the animation was from-only before too (the caller's
        // vouching), so configuring gave it `.recompute` already (§4.1).
        batch.retarget(i, from: from, toBeneath: model)
        return retargeted
    }

    /// Where an implicit change of a slot (its presentation value read, its model written) and a
    /// takeover of an animation in it touch the store's memory: remembered by the caller after
    /// one change of a key (``changeHints(slot:animation:)``) and given to ``prefetchChange(_:)``
    /// before the next. Addresses kept as integers and only prefetched, never read or written
    /// through: stale ones — the slot freed, the lane moved, a table grown — load some other line
    /// (a prefetch never faults), and nothing else changes.
    package struct ChangeHints: Sendable {
        /// The slot's and the animation's records (up to four lines each), the slot's entries'
        /// buffer (its header and first entries), the track's record: each a record's start.
        var records: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
        /// Single lines: the slot's dirty flag, table location, pending flag and row.
        var lines: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
        /// The track's batch (an index into the store's batches, checked) and lane.
        var batch: Int32 = -1
        var lane: Int32 = -1
    }

    /// The hints for the next change of `slot` with `animation` taken over, read now (while the
    /// lines are in cache, right after a change): ``ChangeHints``.
    package func changeHints(slot: SlotHandle, animation: AnimationHandle?) -> ChangeHints {
        var hints = ChangeHints()
        let s = Int(slot.index)
        guard s >= 0, s < slots.count, s < dirty.count, s < table.raw.pointee.slotCapacity else { return hints }
        // Addresses only (indices checked just above): nothing is read through them here but
        // the entries' reference, whose bits are read as a plain word (taking the array would
        // retain its buffer, and the hint needs only where it is).
        slots.withUnsafeBufferPointer {
            let record = UnsafeRawPointer($0.baseAddress! + s)   // in bounds: checked above
            hints.records.0 = UInt(bitPattern: record)
            if let offset = Self.entriesOffset { hints.records.2 = record.load(fromByteOffset: offset, as: UInt.self) }
        }
        hints.lines.0 = dirty.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + s) }
        hints.lines.1 = UInt(bitPattern: table.raw.pointee.locations + s)
        hints.lines.2 = UInt(bitPattern: table.raw.pointee.pending + s)
        if let (_, row) = PresentationTable.row(of: slot, in: table.raw) { hints.lines.3 = UInt(bitPattern: row) }
        guard let a = animation.map({ Int($0.index) }), a >= 0, a < animations.count else { return hints }
        hints.records.1 = animations.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + a) }   // in bounds: checked
        let t = Int(animations[a].columnTrack)
        guard t >= 0, t < tracks.count else { return hints }
        hints.records.3 = tracks.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + t) }   // in bounds: checked
        hints.batch = tracks[t].batch
        hints.lane = tracks[t].index
        return hints
    }

    /// Starts loading, all at once, the lines `hints` name: the slot's and the animation's
    /// records, flags, entries and row, the track's record and its lane in the columns. A change
    /// after a tick finds these lines cold; asked for one after another (each address read from
    /// the line before), it waited for each in turn, ~0.1 µs a line, and a reference count
    /// operation (an atomic) waits, on x86-64, for every store before it to reach its line.
    /// Asked for together, the waits overlap. A hint: results do not change.
    package func prefetchChange(_ hints: ChangeHints) {
        // One call each: a list of the addresses would be an allocation per change.
        Self.prefetch(at: hints.records.0, bytes: 256)
        Self.prefetch(at: hints.records.1, bytes: 256)
        Self.prefetch(at: hints.records.2, bytes: 256)
        Self.prefetch(at: hints.records.3, bytes: 256)
        Self.prefetch(at: hints.lines.0, bytes: 64)
        Self.prefetch(at: hints.lines.1, bytes: 64)
        Self.prefetch(at: hints.lines.2, bytes: 64)
        Self.prefetch(at: hints.lines.3, bytes: 64)
        let b = Int(hints.batch)
        if b >= 0, b < batches.count { batches[b].prefetchLane(Int(hints.lane)) }
    }

    /// Where a slot record keeps its entries' array (nil if an array were not one word: a
    /// reference to its buffer).
    private static let entriesOffset: Int? =
        MemoryLayout<[SlotEntry]>.size == MemoryLayout<UInt>.size ? MemoryLayout<SlotRecord>.offset(of: \.entries) : nil

    /// Asks for the `bytes` from `address` on (0: none), for writing.
    @inline(__always)
    private static func prefetch(at address: UInt, bytes: Int) {
        guard let p = UnsafeRawPointer(bitPattern: address) else { return }
        var offset = 0
        while offset < bytes {   // bounded: `bytes / 64` steps
            animation_prefetch_write(p + offset)   // a hint: never faults
            offset += 64
        }
    }

    /// ``retarget(_:handle:with:)``, taking the entry inserted by ``unpark(key:layer:for:)`` out
    /// again when it throws or declines.
    private func retargetChecked(_ a: Int32, handle: AnimationHandle, with animation: any Animation) throws -> AnimationHandle? {
        do {
            if let revived = try retarget(a, handle: handle, with: animation) { return revived }
        } catch {
            let t = animations[Int(a)].columnTrack
            removeEntries(of: t, from: tracks[Int(t)].slot)
            throw error
        }
        return nil
    }

    /// Frees parked animation `a` for good.
    private func discardParked(_ a: Int32) {
        guard animations[Int(a)].parked else { return }
        let layer = animations[Int(a)].layer
        if let key = animations[Int(a)].key { changeLayerRecord(layer) { if $0.keys[key] == a { $0.keys[key] = nil } } }
        animations[Int(a)].parked = false
        parkedCount -= 1
        free(animation: a)
    }

    /// Frees every animation parked on `layer` (for `slot` only, when given).
    private func discardParked(layer: LayerID, slot: Int32? = nil) {
        guard let keyed = layerRecords[layer]?.keys.values else { return }
        let parked = keyed.filter { animations[Int($0)].parked }
        for a in parked where slot == nil || tracks[Int(animations[Int(a)].columnTrack)].slot == slot {
            discardParked(a)
        }
    }

    /// Gives animation `a` the newest place in the composition order and in its layer's list, as
    /// if it had just been added (replacement by key, semantics §1.2, §8.2, §8.4).
    private func moveToEnd(_ a: Int32) {
        let sequence = nextSequence
        nextSequence += 1
        animations[Int(a)].sequence = sequence
        for t in animations[Int(a)].tracks {
            tracks[Int(t)].sequence = sequence
            for s in [tracks[Int(t)].slot, tracks[Int(t)].rotationSlot] where s >= 0 {
                guard let k = slots[Int(s)].entries.firstIndex(where: { $0.track == t }) else { continue }
                if k == slots[Int(s)].entries.count - 1 {
                    slots[Int(s)].entries[k].sequence = sequence   // already last: the order stands
                    continue
                }
                var entry = slots[Int(s)].entries.remove(at: k)
                entry.sequence = sequence
                insertEntry(entry, into: s)
            }
        }
        // Its layer's list is ordered by sequence when read (``LayerRecord/animations``).
    }

    private func insertEntry(_ entry: SlotEntry, into s: Int32) {
        let position = slots[Int(s)].entries.firstIndex { ($0.sequence, $0.leafIndex) > (entry.sequence, entry.leafIndex) }
            ?? slots[Int(s)].entries.count
        slots[Int(s)].entries.insert(entry, at: position)
        reclassify(slot: s)
    }

    private func removeEntries(of t: Int32, from s: Int32) {
        guard s >= 0 else { return }
        slots[Int(s)].entries.removeAll { $0.track == t }
        reclassify(slot: s)
    }

    private func removeTrack(_ t: Int32) {
        let record = tracks[Int(t)]
        let batch = batches[Int(record.batch)]
        if let moved = batch.remove(at: Int(record.index)) {
            tracks[Int(moved)].index = record.index
            // Its shown target moved with it; a composed slot's plan names its lane.
            markDirty(tracks[Int(moved)].slot)
            if tracks[Int(moved)].rotationSlot >= 0 { markDirty(tracks[Int(moved)].rotationSlot) }
        }
        tracks[Int(t)].alive = false
        tracks[Int(t)].leaf = nil
        tracks[Int(t)].generation &+= 1
        freeTracks.append(t)
        removeEntries(of: t, from: record.slot)
        removeEntries(of: t, from: record.rotationSlot)
    }

    /// Whether slot `s` is exclusive: its only entry is an animation of the whole value, so its
    /// kernel output (with the model as fallback) is the presentation value. Other animated slots
    /// are composed each frame (semantics §8.4).
    func isExclusive(slot s: Int32) -> Bool {
        // Fields read in place: copying a record retains its animation and arrays.
        guard slots[Int(s)].entries.count == 1, !slots[Int(s)].entries[0].isRotation else { return false }
        let t = Int(slots[Int(s)].entries[0].track)
        return tracks[t].field == nil && tracks[t].valueFunction == nil
    }

    /// After a slot's entries changed: its tracks are reconfigured to match its classification;
    /// a slot left without animations shows its model value again at once (semantics §8.5).
    private func reclassify(slot s: Int32) {
        markDirty(s)
        if slots[Int(s)].entries.isEmpty { table.show(slots[Int(s)].model, slot: s) }
        for entry in slots[Int(s)].entries where !entry.isRotation { configure(track: entry.track) }
    }

    /// Writes the model-dependent columns of a track: §4.1 endpoints over the model, and for an
    /// exclusive track the model as its fallback (and additive base).
    private func configure(track t: Int32) {
        foldTarget(tracks[Int(t)].animation)
        guard let animation = tracks[Int(t)].leaf?.animation else { return }
        let slot = tracks[Int(t)].slot, field = tracks[Int(t)].field
        let exclusive = isExclusive(slot: slot)
        tracks[Int(t)].exclusive = exclusive
        let model = slots[Int(slot)].model
        let base = field?.get(from: model) ?? model
        let batch = batches[Int(tracks[Int(t)].batch)]
        let i = Int(tracks[Int(t)].index)

        var dependsOnBase = false
        switch batch {
        case let basic as BasicBatch:
            let a = animation as! BasicAnimation
            let (start, end) = a.resolvedEndpoints(base: base) ?? (base, base)
            basic.setValues(i, start: start, delta: end.difference(from: start), cumulative: a.isCumulative)
            dependsOnBase = a.dependsOnBase
        case let springs as SpringBatch:
            let s = animation as! SpringAnimation
            let (start, end) = s.resolvedEndpoints(base: base) ?? (base, base)
            springs.setValues(i, start: start, delta: end.difference(from: start), cumulative: s.isCumulative)
            dependsOnBase = s.dependsOnBase
        case let reference as ReferenceBatch:
            if let function = animation.valueFunction {
                // The batch holds the number (compose applies the function, §4.7): the animation
                // without its function, over the function's identity input.
                var numeric = animation
                numeric.valueFunction = nil
                reference.setAnimation(i, numeric, model: .scalar(function.identityInput), exclusive: false, additive: false)
            } else {
                reference.setAnimation(i, animation, model: base, exclusive: exclusive, additive: animation.isAdditive)
            }
            dependsOnBase = (animation as? BasicAnimation)?.dependsOnBase ?? (animation as? SpringAnimation)?.dependsOnBase ?? false
        default:
            break
        }
        if exclusive {
            ValueStorage.store(model, into: batch.base, at: i)
        } else {
            batch.base.clear(i)
        }
        batch.setFlag(i, CompiledTiming.addsBase, exclusive && animation.isAdditive)
        if let function = animation.valueFunction {
            tracks[Int(t)].op = .valueFunction(function)
        } else {
            tracks[Int(t)].op = dependsOnBase ? .recompute : .value
        }
    }
}

/// The values of a batch retarget, by entry: a list of values, or packed components of one kind.
protocol RetargetValues {
    func kind(_ k: Int) -> ValueKind
    func value(_ k: Int) -> AnimationValue
    /// Calls `body` with each component of value `k` (in ``AnimationValue/components`` order).
    func forEachComponent(_ k: Int, _ body: (Int, Double) -> Void)
}

/// Values from a buffer of ``AnimationValue``s.
struct ValueList: RetargetValues {
    let values: UnsafeBufferPointer<AnimationValue>
    @inline(__always) func kind(_ k: Int) -> ValueKind { values[k].kind }
    @inline(__always) func value(_ k: Int) -> AnimationValue { values[k] }
    @inline(__always) func forEachComponent(_ k: Int, _ body: (Int, Double) -> Void) {
        ValueStorage.forEachComponent(of: values[k], body)
    }
}

/// Values of one kind from packed components (`kind.componentCount` numbers each).
struct PackedValues: RetargetValues {
    let numbers: UnsafeBufferPointer<Double>
    let kind: ValueKind
    @inline(__always) func kind(_ k: Int) -> ValueKind { kind }
    @inline(__always) func value(_ k: Int) -> AnimationValue {
        let base = k * kind.componentCount
        return ValueStorage.value(kind) { numbers[base + $0] }
    }
    @inline(__always) func forEachComponent(_ k: Int, _ body: (Int, Double) -> Void) {
        let width = kind.componentCount, base = k * width
        for c in 0..<width { body(c, numbers[base + c]) }
    }
}
