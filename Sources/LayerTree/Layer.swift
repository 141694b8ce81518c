import AnimationBatch
import AnimationCore

/// Core Animation's `CALayer` on the batch engine: model values, animations, actions, layer time
/// and a place in a tree (semantics §1, §2.7, §8–§12).
///
/// **Model and presentation** (§1.1). Setting a property changes the model at once. What is shown
/// is the presentation value: the model with the layer's animations applied at the context's
/// current time, computed by the batch engine in each ``LayerContext/tick(at:)``.
/// ``presentation()`` returns a copy of the layer holding those values; hosts with many layers
/// read them in bulk instead (``LayerContext/slot(of:forKey:)``, the engine's columns).
///
/// **Keys.** Every property is a key: the typed properties (`position`, `opacity`, …) are views
/// of the same storage as ``value(forKey:)``. A key set with a value is animatable, so a subclass
/// declares a custom animatable property as a typed view of a key, with
/// ``defaultValue(forKey:)`` and ``needsDisplay(forKey:)`` overridden for it (§11).
///
/// **Context.** A layer takes part in animation once it is in a ``LayerContext``'s tree (under
/// its ``LayerContext/rootLayer``). Outside one it keeps model values, and animations added to it
/// wait until it joins a tree; changes run no actions.
///
/// **Isolation.** A layer is confined to its context's thread (``LayerContext``): it is not
/// `Sendable`, so the compiler keeps it from crossing isolation domains.
open class Layer {
    // MARK: Storage

    // Exclusivity: the tables a property change reads and writes are checked for overlapping
    // access in debug builds, where every test runs, and not in release builds, where the checks
    // (a thread-local look-up and a set insertion per access) were ~15 % of a change with the
    // store's. A layer is confined to one thread, and no closure of a caller runs while one of
    // them is being accessed.

    /// This layer's values by key (custom keys included): the model values set on a model layer;
    /// on a presentation copy (``presentation()``), the presentation values it was made with.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var keyedValues = LayerValues()
    /// The record a change used last (``actionRecord(forKey:)``). Beside the values, in the
    /// object's first cache line, which reading a property brings in: a change then asks for
    /// the record's lines before its action lookup, and the two overlap.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var lastActionRecord: ActionRecord?
    /// The layer's own timing (§2.2), kept here so that it also works outside a context.
    var timing = LayerTiming()
    weak var storedSuperlayer: Layer?
    /// The sublayers, back to front, with ``hole`` where one left since the last compaction:
    /// removing a sublayer writes a hole at its ``indexInSuperlayer`` instead of shifting its
    /// siblings (removing each of 10,000 siblings shifted and searched the array: 0.73 s, quadratic).
    /// Read through ``compactedSublayers``, which closes the holes first.
    var storedSublayers: [Layer] = []
    /// The context whose tree holds this layer, and its name there.
    weak var context: LayerContext?
    var id: LayerID?
    /// The context's tick count when the layer joined: its presentation exists from the next tick.
    var joinedAtTick = 0
    /// Set on presentation copies: their model layer.
    var modelLayer: Layer?
    var needsDisplayFlag = false
    /// Per key with an action: where its action started in this tick interval (§9.5), the
    /// animation it added last (``LayerContext``'s implicit fast path, §10) and its engine slot,
    /// in one record, so that a change looks its key up once.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: see the note on exclusivity above
    #endif
    var actionRecords: [String: ActionRecord] = [:]
    /// Whether its context compares its needs-display keys after each tick.
    var isWatched = false
    /// Animations added while outside a context: added to the engine when the layer joins one.
    var waitingAnimations: [(animation: any Animation, key: String?, delegate: (any AnimationDelegate)?, motion: MotionPreference)] = []
    /// The last presentation value drawn for each needs-display key (§11), to notice changes.
    var displayedValues: [String: AnimationValue] = [:]

    /// The layer's delegate (`CALayerDelegate`): asked first for actions (§10) and asked to draw
    /// by the default ``display()``. Weak, as in Core Animation.
    public weak var delegate: (any LayerDelegate)?
    /// Actions by event key (§10 step 2): `.null` stops the search.
    public var actions: [String: LayerAction]?
    /// Core Animation's `style` (§10 step 3, §11): `style["actions"]` (a `[String: LayerAction]`)
    /// and default values by key (`AnimationValue`s), with a nested `style["style"]` consulted
    /// after.
    public var style: [String: Any]?
    /// A name for the layer (for the host's own use and for messages).
    public var name: String?

    // The tree's bookkeeping, after the fields a property change reads (its prefetch covers the
    // object's first 256 bytes).
    /// Where this layer is in its superlayer's ``storedSublayers``.
    var indexInSuperlayer = 0
    /// How many entries of ``storedSublayers`` are holes.
    var sublayerHoles = 0
    /// Work counters for the tests that show tree edits linear (operation counts, not time):
    /// entries moved by compactions of ``storedSublayers``, and ancestors walked from this layer
    /// by the cycle check.
    var sublayerMoves = 0
    var ancestorSteps = 0
    /// Whether this layer or an ancestor has a timing other than the identity (§2.7): kept by its
    /// context's walks while the layer is in a tree (its animations then need a time of their own).
    var timedInTree = false

    // MARK: Initialisers

    /// A layer with every property at its default (§11).
    public required init() {}

    /// Releases the sublayers one by one without recursing: a sublayer this layer held the last
    /// reference to hands its own sublayers to the same loop first, so dropping a tree of any
    /// depth takes a loop, not a call per level (a 100,000-deep chain overflowed the stack).
    deinit {
        var pending = storedSublayers
        storedSublayers = []
        while var layer = pending.popLast() {
            guard layer !== Layer.hole, isKnownUniquelyReferenced(&layer) else { continue }
            pending.append(contentsOf: layer.storedSublayers)
            layer.storedSublayers = []
        }
    }

    /// What a removed sublayer leaves in ``storedSublayers`` until the next compaction. Never
    /// changed and never in a tree: only its identity is used, so sharing it across threads is safe.
    nonisolated(unsafe) static let hole = Layer()

    /// A copy of `layer` (Core Animation's `init(layer:)`): how presentation copies are made
    /// (§1.1, §11). Copies the model values, timing, delegate, actions, style and name; a
    /// subclass with stored properties of its own overrides it to copy them and calls super.
    /// The copy is in no tree and has no animations.
    public required init(layer: Layer) {
        keyedValues = layer.keyedValues
        timing = layer.timing
        delegate = layer.delegate
        actions = layer.actions
        style = layer.style
        name = layer.name
    }

    // MARK: Keys (semantics §11)

    /// The value of `key`: the model value set on the layer, else the `style` chain's, else the
    /// class's ``defaultValue(forKey:)``. The layer timing keys (`beginTime`, `speed`,
    /// `timeOffset`) read the layer's timing.
    public func value(forKey key: String) -> AnimationValue? {
        // The catalog index first, then the value read in place: a call with the values in
        // hand would retain their buffer, an atomic on a line that may not be here yet.
        if let i = LayerProperty.index(named: key) {
            if let v = keyedValues[catalog: i] { return v }
        } else if let v = keyedValues[custom: key] {
            return v
        }
        if let t = timingValue(forKey: key) { return .scalar(t) }
        if let v = Self.styleValue(in: style, forKey: key) { return v }
        return type(of: self).defaultValue(forKey: key)
    }

    /// Sets the model value of `key` (§1.1): inside a context this is a change in the current
    /// transaction (§9), which runs the key's action unless actions are disabled (§10) and marks
    /// the layer for display when ``needsDisplay(forKey:)`` says so (§11). Nil removes the value
    /// (the key reads its default again).
    ///
    /// A value of another kind than the key holds (a point for `opacity`, or a colour for a custom
    /// key that holds numbers) is ignored: the model keeps its value. A key's kind is the
    /// catalog's (`LayerProperty`) or that of its first value.
    public func setValue(_ value: AnimationValue?, forKey key: String) {
        // A change reads most of the layer's fields (~250 bytes) and its last action record
        // (~450 bytes): their lines asked for at once, before the work that needs them.
        let record = lastActionRecord.map(Prefetch.address(of:)) ?? 0
        Prefetch.lines(at: Prefetch.address(of: self), bytes: 256)
        Prefetch.lines(at: record, bytes: 448)
        if setTimingValue(value, forKey: key) { return }
        if let value, let kind = kind(forKey: key), kind != value.kind { return }
        guard let context, id != nil else {
            keyedValues[key] = value
            if type(of: self).needsDisplay(forKey: key) { needsDisplayFlag = true }
            return
        }
        context.change(self, key: key, to: value)
    }

    /// The keys that have a value set on this layer, sorted (on a presentation copy: every key
    /// the engine presents for the layer too). Defaults are not listed.
    public var definedKeys: [String] { keyedValues.sorted.map(\.key) }

    /// The value at a key path: a property, or a field of one (`position.x`, `bounds.size.width`,
    /// `transform.rotation.z`, `transform.scale`; semantics §4.6, §15.3).
    public func value(forKeyPath keyPath: String) -> AnimationValue? {
        let (property, field) = AnimationKeyPath.split(keyPath)
        guard let value = value(forKey: property) else { return nil }
        guard let field else { return value }
        guard let f = try? ValueField(path: field, of: value.kind) else { return nil }
        return f.get(from: value)
    }

    /// Sets the value at a key path: a field path changes only that field of the property's model
    /// value, then sets the property (its action runs under the property's key, [inferred]). A
    /// path the property has no field for, or a value of the wrong kind, is ignored.
    public func setValue(_ value: AnimationValue?, forKeyPath keyPath: String) {
        let (property, field) = AnimationKeyPath.split(keyPath)
        guard let field else { return setValue(value, forKey: property) }
        guard let value, let current = self.value(forKey: property) ?? LayerProperty.named(property)?.defaultValue,
              let f = try? ValueField(path: field, of: current.kind), f.kind == value.kind else { return }
        setValue(f.set(value, in: current), forKey: property)
    }

    /// The default of `key` when the layer has no value for it (semantics §11): opacity 1,
    /// anchorPoint (0.5, 0.5), transforms identity, borderColor opaque black, the rest zero;
    /// `backgroundColor` nil. Nil for keys the class does not know. Subclasses override it for
    /// their custom properties and call super.
    open class func defaultValue(forKey key: String) -> AnimationValue? {
        guard let property = LayerProperty.named(key), !property.isShapeLayerProperty, key != "backgroundColor" else { return nil }
        return property.defaultValue
    }

    /// Whether changing `key` — in the model or through an animation — redisplays the layer
    /// (semantics §11): false by default. Subclasses override it for keys they draw.
    open class func needsDisplay(forKey key: String) -> Bool { false }

    /// Whether animating `key` is motion, which ``LayerContext/reducedMotion`` reduces:
    /// "position", "bounds", "anchorPoint", "transform", "sublayerTransform", "zPosition",
    /// "path" and key paths under them ("position.x", "transform.rotation.z") are; opacity,
    /// colours, stroke ends, widths and custom keys are not, unless a subclass says so (a
    /// custom `progress` that sweeps an arc across the screen, say).
    open class func isMotion(forKey key: String) -> Bool {
        Layer.motionKeys.contains(AnimationKeyPath.split(key).property)
    }

    /// The action a change of `event` runs when nothing before it in the lookup answered (§10
    /// step 4): for an implicitly animated property (§12) a basic animation with no values —
    /// run, it animates from the presentation value before the change to the new model value —
    /// with the transaction's timing function or `.default` (§3.3) and the transaction's
    /// duration; nil for other events.
    open class func defaultAction(forKey event: String) -> LayerAction? {
        guard let i = LayerProperty.index(named: event), LayerProperty.traits[i].isImplicitlyAnimated,
              !LayerProperty.traits[i].isShapeLayerProperty else { return nil }
        return TransactionStack.current.implicitAction(index: i, key: event)
    }

    /// The §10 lookup for `event`: the delegate's answer, then ``actions``, then the `style`
    /// chain's `actions`, then ``defaultAction(forKey:)``. The first non-nil answer wins; `.null`
    /// stops the search and gives nil (no action). Subclasses override it and call super.
    open func action(forKey event: String) -> LayerAction? {
        if let delegate, let answer = delegate.action(for: self, forKey: event) { return Self.run(answer) }
        if let answer = actions?[event] { return Self.run(answer) }
        var style = self.style
        var depth = 0
        while let s = style, depth < 64 {   // bounded: a style chain is data, it may be cyclic
            if let table = s["actions"] as? [String: LayerAction], let answer = table[event] { return Self.run(answer) }
            style = s["style"] as? [String: Any]
            depth += 1
        }
        return type(of: self).defaultAction(forKey: event).flatMap(Self.run)
    }

    /// Draws the layer: by default asks the delegate (`delegate?.display(self)`). Called by
    /// ``LayerContext/tick(at:)`` on the presentation copy of a layer that needs display (§11).
    open func display() {
        delegate?.display(self)
    }

    /// Marks the layer for display in the next tick.
    public func setNeedsDisplay() {
        guard !needsDisplayFlag else { return }
        needsDisplayFlag = true
        context?.needsDisplay(self)
    }

    /// Whether the layer is marked for display in the next tick.
    public func needsDisplay() -> Bool { needsDisplayFlag }

    // MARK: Tree

    /// The layer this one is a sublayer of.
    public var superlayer: Layer? { storedSuperlayer }

    /// The sublayers, back to front; nil when there are none (as in Core Animation).
    public var sublayers: [Layer]? {
        let layers = compactedSublayers
        return layers.isEmpty ? nil : layers
    }

    /// The sublayers without holes, back to front: closes the holes removals left first (linear
    /// in the sublayers once after removals, then free).
    var compactedSublayers: [Layer] {
        if sublayerHoles > 0 { compactSublayers() }
        return storedSublayers
    }

    /// How many sublayers the layer has.
    var sublayerCount: Int { storedSublayers.count - sublayerHoles }

    private func compactSublayers() {
        sublayerMoves += storedSublayers.count
        storedSublayers.removeAll { $0 === Layer.hole }
        for (k, layer) in storedSublayers.enumerated() { layer.indexInSuperlayer = k }
        sublayerHoles = 0
    }

    private func appendSublayer(_ layer: Layer) {
        layer.storedSuperlayer = self
        layer.indexInSuperlayer = storedSublayers.count
        storedSublayers.append(layer)
    }

    /// Takes `layer` out of ``storedSublayers`` in constant time (amortised): a hole at its index,
    /// the holes closed once they are half the array.
    private func removeSublayer(_ layer: Layer) {
        storedSublayers[layer.indexInSuperlayer] = Layer.hole   // kept true by append, compaction and removal
        sublayerHoles += 1
        layer.storedSuperlayer = nil
        if sublayerHoles > 8 && 2 * sublayerHoles > storedSublayers.count { compactSublayers() }
    }

    /// Appends `layer` to the sublayers (removing it from its superlayer first). A layer joining a
    /// context's tree brings its model values and waiting animations into the engine; moving
    /// within one context keeps its animations. Adding a layer to itself or to one of its own
    /// sublayers (a cycle), a presentation copy, or a context's root layer is ignored.
    public func addSublayer(_ layer: Layer) {
        // Not itself, an ancestor (a cycle: only a layer with sublayers can be one, so building a
        // chain downwards never walks it), a presentation copy, nor another context's root.
        guard layer !== self, layer.sublayerCount == 0 || !isDescendant(of: layer), modelLayer == nil, layer.modelLayer == nil,
              layer !== Layer.hole, self !== Layer.hole, !(layer.context != nil && layer.storedSuperlayer == nil) else { return }
        if let old = layer.storedSuperlayer {
            if old.context != nil && old.context === context {
                old.removeSublayer(layer)
                appendSublayer(layer)
                context?.moved(layer)
                return
            }
            layer.removeFromSuperlayer()
        }
        appendSublayer(layer)
        if let context { context.attach(layer) }
    }

    /// Removes the layer from its superlayer. If it was in a context's tree, it and its
    /// sublayers leave it: their animations are removed, each stopping with the outcome
    /// `cancelled` (`animationDidStop(finished: false)` in the next tick); model values stay.
    public func removeFromSuperlayer() {
        guard let parent = storedSuperlayer else { return }
        parent.removeSublayer(self)
        context?.detach(self)
    }

    func isDescendant(of layer: Layer) -> Bool {
        var current = storedSuperlayer
        while let c = current {   // bounded: a tree has no cycles (this check keeps it so)
            ancestorSteps += 1
            if c === layer { return true }
            current = c.storedSuperlayer
        }
        return false
    }

    // MARK: Model and presentation (semantics §1.1)

    /// A copy of the layer with its presentation values after the last tick (made with
    /// ``init(layer:)``, so it keeps the subclass), or nil until the layer has been through a tick
    /// in a context. The copy is in no tree; its ``model()`` is this layer. One copy per call:
    /// hosts that read many layers every frame read the engine in bulk instead.
    public func presentation() -> Self? {
        if modelLayer != nil { return self }
        guard let context, let id, context.tickCount > joinedAtTick else { return nil }
        let copy = type(of: self).init(layer: self)
        copy.modelLayer = self
        for slot in context.store.slots(of: id) {
            if let key = context.store.key(of: slot), let value = context.store.presentationValue(of: slot) {
                copy.keyedValues[key.property] = value
            }
        }
        return copy
    }

    /// The model layer: the layer itself, or for a presentation copy the layer it was made from.
    public func model() -> Self {
        (modelLayer as? Self) ?? self
    }

    // MARK: Helpers

    /// The kind of values `key` holds, if known: the catalog's, else its value's.
    func kind(forKey key: String) -> ValueKind? {
        if let i = LayerProperty.index(named: key) { return LayerProperty.traits[i].kind }
        return keyedValues[key]?.kind ?? type(of: self).defaultValue(forKey: key)?.kind
    }

    /// The model value the engine composes over for `key`: the layer's value, else the catalog's
    /// default (a nil `backgroundColor` composes as clear).
    func engineModelValue(forKey key: String) -> AnimationValue? {
        value(forKey: key) ?? LayerProperty.named(key)?.defaultValue
    }

    static func styleValue(in style: [String: Any]?, forKey key: String) -> AnimationValue? {
        var style = style
        var depth = 0
        while let s = style, depth < 64 {   // bounded, as in action(forKey:)
            if let v = s[key] as? AnimationValue { return v }
            style = s["style"] as? [String: Any]
            depth += 1
        }
        return nil
    }

    /// `.null` stops a lookup with no action (§10).
    static func run(_ answer: LayerAction) -> LayerAction? {
        if case .null = answer { return nil }
        return answer
    }
}
