import AnimationCore

/// The engine's public facade: model values in slots, animations compiled into tracks, and the
/// presentation values a frame leaves (docs/architecture.md, "The flow of data").
///
/// An output *slot* is one property of one layer, with a model value. An *animation* added to a
/// layer is compiled into one *track* per property animation inside it (groups are flattened, their
/// timings kept as shared time nodes that feed their children's time, semantics §2.7, §7). Each
/// track lives in a dense batch shared with every track of the same kernel and value width; removal
/// swaps the last track into the hole. Handles are generational.
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
/// one owner mutates it between frames; ``FrameEvaluator`` runs the plan the store hands it
/// (`prepareFrame()`) and, after the frame, tells it which animations finished (§1.4).
///
/// Behind the facade each stage has a room of its own, all working on one set of tables
/// (`EngineTables`: records, free lists, handles): `AnimationCompiler` (Compile/),
/// `Retargeter` and `Parking` (Changes/), `SlotPlanner` (Plan/), `LayerClocks` and `EventSchedule` (Time/).
public final class TrackStore {
    let tables: EngineTables
    let clocks: LayerClocks
    let planner: SlotPlanner
    let compiler: AnimationCompiler
    let retargeter: Retargeter
    let parking: Parking
    let schedule: EventSchedule
    /// Every slot's presentation value (``EngineTables/table``), kept here for the inlined reads.
    @usableFromInline let table: PresentationTable

    /// An empty store.
    public init() {
        tables = EngineTables()
        clocks = LayerClocks(tables: tables)
        planner = SlotPlanner(tables: tables, clocks: clocks)
        compiler = AnimationCompiler(tables: tables, planner: planner, clocks: clocks)
        retargeter = Retargeter(tables: tables, planner: planner, compiler: compiler, clocks: clocks)
        parking = Parking(tables: tables, planner: planner, compiler: compiler, retargeter: retargeter, clocks: clocks)
        schedule = EventSchedule(tables: tables, clocks: clocks)
        table = tables.table
    }

    /// The latest frame time any frame of the store has run at (``EngineTables/latestFrameTime``).
    var latestFrameTime: Double {
        get { tables.latestFrameTime }
        set { tables.latestFrameTime = newValue }
    }

    /// How many tracks (compiled property animations) the store holds.
    public var trackCount: Int { tables.trackCount }
    /// How many top-level animations the store holds.
    public var animationCount: Int { tables.animations.liveCount - tables.parkedCount }
    /// How many finished animations are parked (``parksFinishedAnimations``), for tests.
    package var parkedAnimationCount: Int { tables.parkedCount }

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
    public var slotCount: Int { tables.slots.liveCount }
    /// How many layers have a slot or an animation.
    public var layerCount: Int { tables.layers.count }

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
        if let s = tables.slot(layer: layer, property: property) {
            guard tables.slots[s].kind == value.kind else {
                throw AnimationError(field: "value", reason: "'\(property)' holds a \(tables.slots[s].kind), not a \(value.kind)")
            }
            compiler.writeModel(value, into: s)
            return tables.handle(ofSlot: s)
        }
        if property.isEmpty { throw AnimationError(field: "property", reason: "must not be empty") }
        if let known = LayerProperty.named(property), known.kind != value.kind {
            throw AnimationError(field: "value", reason: "'\(property)' holds a \(known.kind), not a \(value.kind)")
        }
        if let column = table.columnIndex(of: property), table.columns[Int(column)].kind != value.kind {
            throw AnimationError(field: "value", reason: "'\(property)' holds a \(table.columns[Int(column)].kind) on other layers, not a \(value.kind)")
        }
        return tables.handle(ofSlot: compiler.createSlot(layer: layer, property: property, model: value))
    }

    /// ``setModelValue(_:layer:property:)`` for a slot already found: false, changing nothing,
    /// for a stale handle or a value of another kind (the caller then goes by layer and key,
    /// which creates the slot or names the error). Spares a host that keeps slot handles (as
    /// LayerTree's action records do) the look-up by layer and property.
    @discardableResult
    public func setModelValue(_ value: AnimationValue, slot: SlotHandle) -> Bool {
        guard let s = tables.resolve(slot), tables.slots[s].kind == value.kind else { return false }
        compiler.writeModel(value, into: s)
        return true
    }

    /// The slot of `property` on `layer`, if it exists.
    public func slot(layer: LayerID, property: String) -> SlotHandle? {
        tables.slot(layer: layer, property: property).map(tables.handle(ofSlot:))
    }

    /// The model value of a slot, or nil for a stale handle.
    public func modelValue(of slot: SlotHandle) -> AnimationValue? {
        tables.resolve(slot).map { tables.model(of: $0) }
    }

    /// The layer and property of a slot, or nil for a stale handle.
    public func key(of slot: SlotHandle) -> (layer: LayerID, property: String)? {
        tables.resolve(slot).map { (tables.layer(of: $0), tables.property(of: $0)) }
    }

    /// Every live slot.
    public var allSlots: [SlotHandle] {
        tables.slots.indices.filter { tables.slots[$0].alive }.map { tables.handle(ofSlot: Int32($0)) }
    }

    /// The slots of `layer` in creation order (empty for an unknown layer).
    public func slots(of layer: LayerID) -> [SlotHandle] {
        tables.slots(of: layer).map(tables.handle(ofSlot:))
    }

    /// Removes a slot: the animations with a track on it are cancelled (their stop events, outcome
    /// ``AnimationEvent/Outcome/cancelled``, come with the next frame), its presentation row is
    /// freed and its handle goes stale. A path animation that only turns the slot (a rotation
    /// mode on `transform`, semantics §5.7) stays and stops turning it. Returns false for a stale
    /// handle.
    @discardableResult
    public func removeSlot(_ slot: SlotHandle) -> Bool {
        guard let s = tables.resolve(slot) else { return false }
        parking.discardParked(layer: tables.layer(of: s), slot: s)
        var cancelled: [Int32] = []
        for entry in tables.slots[s].entries {
            if entry.isRotation {
                tables.tracks[entry.track].rotationSlot = -1
            } else if !cancelled.contains(tables.tracks[entry.track].animation) {
                cancelled.append(tables.tracks[entry.track].animation)
            }
        }
        for a in cancelled { remove(tables.handle(ofAnimation: a), outcome: .cancelled) }
        compiler.freeSlot(s)
        return true
    }

    /// Removes a layer: every animation on it is cancelled (stop events with outcome
    /// ``AnimationEvent/Outcome/cancelled`` come with the next frame, in add order), every slot is
    /// freed and their handles go stale, and its own time, if any, is taken away
    /// (``removeLayerTime(_:)``). Returns false when the store knows no such layer.
    @discardableResult
    public func removeLayer(_ layer: LayerID) -> Bool {
        let hadTime = removeLayerTime(layer)
        parking.discardParked(layer: layer)
        guard tables.layers[layer] != nil else { return hadTime }
        for a in tables.listedAnimations(of: layer) { remove(tables.handle(ofAnimation: a), outcome: .cancelled) }
        for s in tables.slots(of: layer) {
            tables.slots[s].entries.removeAll()
            compiler.freeSlot(s)
        }
        tables.layers[layer] = nil
        return true
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
        if parksFinishedAnimations, let key, tables.parkedAnimation(forKey: key, layer: layer) != nil,
           let revived = try parking.unpark(key: key, layer: layer, for: animation) {
            return revived
        }
        if let key, let old = tables.liveAnimation(forKey: key, layer: layer) {
            // A new basic or spring animation that only retargets the one under its key (the
            // implicit animation of a property changed again, §10) keeps its track: the columns
            // are rewritten in place and the animation moves to the end of the order, as if
            // removed and added (§1.2, §8.4). Compiling and reaping cost 8 µs a change.
            compiler.foldTarget(old)
            if let reused = try retargeter.retargetInPlace(old, handle: tables.handle(ofAnimation: old), with: animation) {
                retargeter.moveToEnd(old)
                return reused
            }
        }
        try compiler.check(animation, layer: layer)
        if let key, let old = tables.liveAnimation(forKey: key, layer: layer) {
            remove(tables.handle(ofAnimation: old), outcome: .replaced)
        }
        let index = compiler.insert(animation, layer: layer, sequence: tables.takeSequence(), reusing: nil)
        tables.animations[index].key = key
        tables.link(animation: index, layer: layer)
        if let key {
            // What is parked under the key goes (parking was turned off since, or it was not
            // taken over above): the key names one animation.
            if let parked = tables.parkedAnimation(forKey: key, layer: layer) { parking.discardParked(parked) }
            tables.animationByKey[AnimationKey(layer: layer, key: key)] = index
        }
        return tables.handle(ofAnimation: index)
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
        try retargeter.replace(handle, with: animation)
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
    ///   (`toValue`, `fromValue`: another kind, or a component beyond ±1e38, as for any added
    ///   animation), or `beginTime` when it is not finite.
    @discardableResult
    public func retarget(_ handle: AnimationHandle, from: AnimationValue? = nil, to: AnimationValue,
                         beginTime: Double) throws -> AnimationHandle {
        try retargeter.retarget(handle, from: from, to: to, beginTime: beginTime)
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
    ///   spring animation), `targets[k]` or `sources[k]` (a value of another kind, or a component
    ///   beyond ±1e38) for the first
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
                        try retargeter.retargetMany(h, from: ValueList(values: from), to: ValueList(values: to), beginTime: beginTime)
                    }
                } else {
                    try retargeter.retargetMany(h, from: ValueList?.none, to: ValueList(values: to), beginTime: beginTime)
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
        try retargeter.retargetMany(handles, from: sources.map { PackedValues(numbers: $0, kind: kind) },
                                    to: PackedValues(numbers: targets, kind: kind), beginTime: beginTime)
    }

    /// Removes an animation; its stop event (with `outcome`, `.removed` by default) comes with the
    /// next frame, and its handle goes stale. Returns false for a stale handle.
    @discardableResult
    public func remove(_ handle: AnimationHandle, outcome: AnimationEvent.Outcome = .removed) -> Bool {
        guard let a = tables.resolve(handle) else { return false }
        let finished = tables.animations[a].hasFinished
        compiler.freeAnimation(a)
        // An animation whose finish was reported has stopped already (§8.1).
        if !finished { tables.pendingEvents.append(AnimationEvent(animation: handle, kind: .stopped, outcome: outcome)) }
        return true
    }

    /// Whether a frame reported the animation finished (nil for a stale handle): its stop has
    /// been reported, and removing it reports none.
    public func hasFinished(_ handle: AnimationHandle) -> Bool? {
        tables.resolve(handle).map { tables.animations[$0].hasFinished }
    }

    /// The animation behind a handle, as added (nil for a stale handle).
    public func animation(_ handle: AnimationHandle) -> (any Animation)? {
        guard let a = tables.resolve(handle) else { return nil }
        return compiler.retargetedAnimation(a) ?? tables.animations[a].animation
    }

    /// The animation on `layer` under `key` (semantics §8.2), or nil.
    public func animation(forKey key: String, layer: LayerID) -> AnimationHandle? {
        tables.liveAnimation(forKey: key, layer: layer).map(tables.handle(ofAnimation:))
    }

    /// The keys of `layer`'s keyed animations in add order (semantics §8.2).
    public func animationKeys(layer: LayerID) -> [String] {
        tables.listedAnimations(of: layer).compactMap { tables.animations[$0].key }
    }

    /// The key an animation was added under (nil for an anonymous or stale one).
    public func key(of handle: AnimationHandle) -> String? {
        tables.resolve(handle).flatMap { tables.animations[$0].key }
    }

    /// The layer an animation is on (nil for a stale handle).
    public func layer(of handle: AnimationHandle) -> LayerID? {
        tables.resolve(handle).map { tables.animations[$0].layer }
    }

    /// `layer`'s animations in add order.
    public func animations(of layer: LayerID) -> [AnimationHandle] {
        tables.listedAnimations(of: layer).map(tables.handle(ofAnimation:))
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
        tables.animations.indices.filter { tables.animations[$0].alive && !tables.animations[$0].parked }
            .sorted { tables.animations[$0].sequence < tables.animations[$1].sequence }
            .map { tables.handle(ofAnimation: Int32($0)) }
    }

    // MARK: Implicit changes (a host's property changed again and again)

    /// An implicit action's animation added again (semantics §10; LayerTree's property changes
    /// go through it, and any host that runs Core Animation's implicit actions can): what
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
    public func retargetImplicit(_ handle: AnimationHandle, layer: LayerID, forKey key: String,
                                  from: AnimationValue, beginTime: Double) -> AnimationHandle? {
        parking.retargetImplicit(handle, layer: layer, forKey: key, from: from, beginTime: beginTime)
    }

    /// Where the next change of `slot` (with `animation` retargeted by
    /// ``retargetImplicit(_:layer:forKey:from:beginTime:)``) will touch the store's memory, taken
    /// now, while those lines are in cache right after a change: give them to
    /// ``prefetchChange(_:)`` just before the next change of the same property, and its cold
    /// lines load together instead of one after another (``ChangeHints``).
    public func changeHints(slot: SlotHandle, animation: AnimationHandle?) -> ChangeHints {
        ChangeHints(tables: tables, planner: planner, slot: slot, animation: animation)
    }

    /// Starts loading the lines `hints` name (``changeHints(slot:animation:)``): a hint, never a
    /// fault — stale hints load other lines — and results do not change.
    public func prefetchChange(_ hints: ChangeHints) {
        hints.prefetch(in: tables)
    }

    // MARK: Layer time (semantics §2.2, §2.7; ``LayerClocks``)

    /// Gives `layer` a time of its own — its local time `(tp − b)·s + o` from its parent's
    /// (semantics §2.2) — or changes it. Top-level animations on the layer (and the roots of its
    /// groups) then read that time as their parent time, so `beginTime`, `speed` and `timeOffset`
    /// on a layer apply to every animation on it and, through `parent`, to a whole subtree
    /// (§2.7). The local time is computed once per layer per frame, parents first, not per track.
    ///
    /// Changing the numbers of a layer that has a time (a pause or a resume, §2.8) is O(1) plus
    /// an O(layers with a time) re-plan before the next frame; giving a layer a time first
    /// re-points its animations' tracks (O(its tracks)). Layers without a time of their own run
    /// on the frame's time, as before, through the kernels' fastest path.
    ///
    /// - Parameters:
    ///   - layer: the layer (it needs no slots or animations yet: those added later read its time).
    ///   - parent: the layer whose local time is this layer's parent time; it must have a time
    ///     of its own. Nil: the frame's time.
    ///   - timing: the layer's `beginTime`, `speed` and `timeOffset`.
    /// - Throws: `AnimationError` naming `beginTime`, `speed` or `timeOffset` when it is not
    ///   finite, or `parent` when it has no time of its own or is `layer` or one of its
    ///   descendants (a cycle). Nothing changes then.
    public func setLayerTime(_ layer: LayerID, parent: LayerID?, timing: LayerTiming) throws {
        try clocks.setLayerTime(layer, parent: parent, timing: timing)
    }

    /// Takes `layer`'s own time away: its animations run on the frame's time again, and layers
    /// whose parent it was now derive theirs from the frame's time. Returns false when it had none.
    @discardableResult
    public func removeLayerTime(_ layer: LayerID) -> Bool {
        clocks.removeLayerTime(layer)
    }

    /// `layer`'s own timing and parent, or nil when it runs on its parent's time.
    public func layerTime(of layer: LayerID) -> (timing: LayerTiming, parent: LayerID?)? {
        clocks.layerTime(of: layer)
    }

    /// `layer`'s local time at frame time `time`, computed as a frame computes it (its clock,
    /// then its parents', to the frame time).
    public func localTime(of layer: LayerID, atFrameTime time: Double) -> Double {
        clocks.localTime(of: layer, atFrameTime: time)
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

    // MARK: Frames (``FrameEvaluator``)

    /// Brings the plan up to date with the changes since the last frame and returns it
    /// (``SlotPlanner/update()``); debug and fuzzing builds check the store's invariants then.
    /// Whether the store keeps presentation rows in the order its kernels show them (``RowLayout``;
    /// on by default). Off, for tests that compare the vector and scalar ways of showing a frame.
    package var keepsRowsInLaneOrder: Bool {
        get { planner.rowLayout.isEnabled }
        set { planner.rowLayout.isEnabled = newValue }
    }

    /// How many times the store put its rows back in lane order (``RowLayout``).
    package var rowOrderPasses: Int { planner.rowLayout.passes }

    /// Blocks of sixteen lanes whose rows are consecutive, shown by vector stores (``TrackBatch/contiguous``).
    package var contiguousBlocks: Int { tables.batches.reduce(0) { $0 + $1.contiguousBlocks } }

    /// Work the store's layer clocks have done (``LayerClocks/walkSteps``): ancestors walked by
    /// cycle checks and clocks placed in clock passes, for tests that count operations.
    package var clockWalkSteps: Int { clocks.walkSteps }

    /// How many times the store configured a track (``AnimationCompiler/configuredTracks``), for
    /// tests that count operations.
    package var configuredTracks: Int { compiler.configuredTracks }

    func prepareFrame() -> FramePlan {
        let plan = planner.update()
        checkInvariants()   // debug and fuzzing builds only: nothing in release
        return plan
    }

    /// Hands the events of changes since the last frame to `deliver`, in order, and forgets them.
    func takePendingEvents(_ deliver: (AnimationEvent) -> Void) {
        for event in tables.pendingEvents { deliver(event) }
        tables.pendingEvents.removeAll(keepingCapacity: true)
    }

    /// After a frame reported an animation finished: one removed on completion is removed (semantics
    /// §1.4); the stop event was that frame's, so none is added. Another is marked so that its
    /// later removal reports no second stop (§8.1).
    func didFinish(_ handle: AnimationHandle) {
        guard let a = tables.resolve(handle) else { return }
        if tables.animations[a].removedOnCompletion {
            if parksFinishedAnimations, parking.canPark(a) { parking.park(a) } else { compiler.freeAnimation(a) }
        } else {
            tables.animations[a].hasFinished = true
        }
    }

    /// After a frame reported an animation finished, with reaping off: it stays, marked.
    func markFinished(_ handle: AnimationHandle) {
        if let a = tables.resolve(handle) { tables.animations[a].hasFinished = true }
    }
}
