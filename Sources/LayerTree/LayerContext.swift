import AnimationBatch
import AnimationCore

/// Owns the clock, the batch engine and every layer in the tree under ``rootLayer``: Core
/// Animation's render server and display link in one object (semantics §1, §8, §9).
///
/// Layers in the tree keep their model values themselves and in the engine's ``store``; their
/// animations live only in the engine, compiled into tracks that a ``tick(at:)`` evaluates for
/// every layer at once. A layer's presentation values are in the engine after a tick: one at a
/// time through ``Layer/presentation()``, or in bulk through ``slot(of:forKey:)`` and the
/// engine's columns (`FrameEvaluator.changedSlots`, `TrackStore.presentation(of:)`).
///
/// **Isolation (Swift 6).** A context and its layers are confined to one thread: the one that
/// creates the context, changes its layers and calls ``tick(at:)``. They are not `Sendable`, so
/// the compiler keeps them in the isolation domain that created them; transactions are per
/// thread (§9.1), so that thread's transactions are the tree's. Not `@MainActor`: servers and
/// engines tick trees off the main thread, several trees on several threads, one tree each.
/// Within a tick the engine uses its own worker threads and returns before any callback runs.
///
/// **A tick** (``tick(at:)``), in this order:
/// 1. the thread's implicit transaction is committed (when no explicit one is open);
/// 2. the clock moves to the new time;
/// 3. the engine evaluates every animation of every layer and removes those that finished and
///    are removed on completion (§1.4);
/// 4. `display()` is called on the presentation copy of each layer that needs display (§11):
///    a needs-display key changed in the model or in the presentation, or `setNeedsDisplay()`
///    was called — once per layer, in the order the layers were marked (those whose keys changed
///    in the presentation are marked during the tick, in the order their keys were first
///    animated or set);
/// 5. animation delegates are told, each animation at most one start and one stop (§8.1):
///    first the stops of animations removed, replaced or cancelled since the last tick
///    (`finished: false`) in the order that happened, then this tick's starts, then this
///    tick's finishes (`finished: true`), each in the order the animations were added;
/// 6. transaction completion blocks whose animations are all done run, in the order they
///    became ready (§9.3).
///
/// Callbacks may change the tree, add and remove animations and open transactions: what they do
/// happens at the tick's time, and its effects show from the next tick.
public final class LayerContext {
    /// The batch engine's store: every layer's slots and animations.
    public let store: TrackStore
    /// The batch engine's frame evaluator (its changed set and events are the last tick's).
    public let evaluator: FrameEvaluator

    /// Whether every tick also computes every key's velocity in the engine's kernels, beside its
    /// value (docs/velocity.md, "the velocity column"): ``Layer/velocity(forKey:)`` then reads
    /// what the tick computed instead of working it out from the layer's animations, and
    /// `evaluator.velocities(of:)` reads a whole property's in bulk. Off by default: nothing is
    /// computed or kept for velocities. Takes effect at the next tick.
    public var computesVelocity: Bool {
        get { evaluator.configuration.computesVelocity }
        set { evaluator.configuration.computesVelocity = newValue }
    }
    /// The root of the tree: layers added under it (at any depth) are animated by this context.
    public let rootLayer: Layer

    /// The context's time at the latest tick (0 before the first): the time passed to
    /// ``tick(at:)``, less ``timeLag`` where a ``gapPolicy`` dropped part of a long gap. Property changes and
    /// ``Layer/add(_:forKey:delegate:)`` made between two ticks happen at this time: their
    /// animations begin at it (semantics §1.5).
    public private(set) var currentTime: Double = 0
    /// How many ticks have run.
    public private(set) var tickCount = 0
    /// The last error of an animation that could not be added where nothing can throw: an
    /// action's (it runs inside a property setter; the change itself is kept), or one that waited
    /// for its layer to join the tree (``Layer/add(_:forKey:delegate:)``) and turned out to name
    /// a key the layer has no value for.
    public private(set) var lastActionError: AnimationError?

    /// What a long gap between ticks means, and what it has dropped (``gapPolicy``).
    var gapState = GapState()

    /// Reduced motion for the animations added from now on (``ReducedMotion``, docs/reduced-motion.md):
    /// `.off` by default. Animations that move things (``Layer/isMotion(forKey:)``) added while it
    /// is `.scaleDurations(f)` run in `f` of their time; while it is `.instant` they take none —
    /// implicit actions, `View.animate` and explicit adds alike, unless added with a
    /// ``MotionPreference`` that says otherwise. Running animations keep the timing they were
    /// added with. A scale factor outside (0, 1] is refused: the setting stays as it was and
    /// ``lastActionError`` names `reducedMotion`.
    public var reducedMotion: ReducedMotion = .off {
        didSet {
            guard !reducedMotion.isValid else { return }
            if case .scaleDurations(let factor) = reducedMotion {
                lastActionError = AnimationError(field: "reducedMotion", reason: "scaleDurations needs a factor in (0, 1] (got \(factor))")
            }
            reducedMotion = oldValue
        }
    }

    /// Called at the start of every model change in the tree (a ``PropertyAnimator`` records
    /// what its blocks change, and the value shown before).
    var changeObserver: ((Layer, String) -> Void)?
    private var animatorCount = 0

    /// A root-layer key of its own for a new ``PropertyAnimator``'s clock.
    func newAnimatorKey() -> String {
        animatorCount += 1
        return "propertyAnimatorClock\(animatorCount)"
    }

    /// Records `error` as ``lastActionError`` (for what cannot throw: an animator's initialiser).
    func report(_ error: AnimationError) {
        lastActionError = error
    }

    /// Every layer in the tree by its engine name.
    private(set) var layers: [LayerID: Layer] = [:]
    private var nextLayerID: UInt64 = 1
    /// What the context keeps of an animation with a delegate or a transaction waiting for it.
    private struct Entry {
        var animation: any Animation
        var delegate: (any AnimationDelegate)?
        var groups: [CompletionGroup]
        var sequence: UInt64
    }
    private var entries: [AnimationHandle: Entry] = [:]
    private var nextSequence: UInt64 = 0
    /// Layers with needs-display keys in the engine (§11), in the order they were first watched.
    private(set) var watchedLayers: [Layer] = []
    /// Layers marked for display since the last tick, each once, in order; and the list being
    /// displayed (two arrays swapped, so that a tick that displays allocates nothing).
    private(set) var displayList: [Layer] = []
    private var displaying: [Layer] = []
    /// The tick's callbacks (reused: a steady-state tick allocates nothing).
    private enum CallbackKind: Int { case removedStop = 0, start = 1, finish = 2 }
    private struct Callback {
        var kind: CallbackKind
        var order: UInt64
        var entry: Entry
        var finished: Bool
    }
    private var callbacks: [Callback] = []
    private var delivering: [Callback] = []

    /// A context with an empty root layer and an engine with the given configuration.
    ///
    /// Creating a context commits this thread's implicit transaction, when it is the only one
    /// open, as a new turn of a run loop would (§9.1): settings left on it earlier (a
    /// `setDisableActions(true)` outside `begin()`, say) do not leak into the new tree's changes.
    public init(configuration: FrameEvaluator.Configuration = FrameEvaluator.Configuration()) {
        TransactionStack.current.commitImplicit(runNow: true)
        store = TrackStore()
        // A property changed again and again (each change an implicit animation, §10) takes its
        // finished animation's track over instead of compiling one and reaping it again.
        store.parksFinishedAnimations = true
        evaluator = FrameEvaluator(store: store, configuration: configuration)
        rootLayer = Layer()
        rootLayer.name = "root"
        attach(rootLayer)
    }

    /// The engine's name for `layer`, or nil when it is not in this context's tree.
    public func layerID(of layer: Layer) -> LayerID? {
        layer.context === self ? layer.id : nil
    }

    /// The layer the engine calls `id`, if it is in the tree.
    public func layer(_ id: LayerID) -> Layer? { layers[id] }

    /// The engine slot of `key` on `layer` (nil when it has no value or animation in the engine
    /// yet): a host reads it in bulk after each tick (`TrackStore.presentationValue(of:)`,
    /// `presentationComponents(of:)`, `FrameEvaluator.value(of:)`), without a presentation copy.
    public func slot(of layer: Layer, forKey key: String) -> SlotHandle? {
        guard let id = layerID(of: layer) else { return nil }
        return store.slot(layer: id, property: key)
    }

    /// How many layers are in the tree (the root included).
    public var layerCount: Int { layers.count }

    // MARK: Tick

    /// A display-link step (the order is the type's): commits the implicit transaction (its
    /// animations begin at the *old* ``currentTime``), moves the clock to `time`, evaluates every
    /// animation, removes finished ones (§1.4), calls `display()` on the presentation copy of
    /// each layer that needs it (§11), then delivers animation-delegate callbacks and
    /// transaction completions. A time that is not finite is ignored (nothing happens).
    ///
    /// `time` is the host's; the context's time (``currentTime``) is the same unless a
    /// ``gapPolicy`` dropped part of a long gap (``timeLag``).
    public func tick(at time: Double) {
        guard time.isFinite else { return }
        let stack = TransactionStack.current
        stack.commitImplicit(runNow: false)
        currentTime = contextTime(forHostTime: time)
        let time = currentTime
        checkInvariants()   // debug and fuzzing builds only: nothing in release
        evaluator.evaluate(at: time)
        tickCount += 1
        displayLayers()
        deliverCallbacks(stack: stack)
        stack.runReadyCompletions()
    }

    private func displayLayers() {
        for layer in watchedLayers {
            guard let id = layer.id else { continue }
            // By index, writing in place: iterating a copy while writing would copy the storage.
            var index = layer.displayedValues.startIndex
            while index != layer.displayedValues.endIndex {
                let (key, shown) = layer.displayedValues[index]
                if let slot = store.slot(layer: id, property: key), let now = store.presentationValue(of: slot), now != shown {
                    layer.displayedValues.values[index] = now
                    if !layer.needsDisplayFlag { layer.setNeedsDisplay() }
                }
                index = layer.displayedValues.index(after: index)
            }
        }
        guard !displayList.isEmpty else { return }
        swap(&displayList, &displaying)
        for layer in displaying where layer.needsDisplayFlag && layer.context === self {
            layer.needsDisplayFlag = false
            (layer.presentation() ?? layer).display()
        }
        displaying.removeAll(keepingCapacity: true)
    }

    private func deliverCallbacks(stack: TransactionStack) {
        guard !entries.isEmpty else { return }
        callbacks.removeAll(keepingCapacity: true)
        for event in evaluator.events {
            guard let entry = entries[event.animation] else { continue }
            switch event.kind {
            case .started:
                callbacks.append(Callback(kind: .start, order: entry.sequence, entry: entry, finished: false))
            case .stopped:
                let finished = event.outcome == .finished
                entries[event.animation] = nil
                for group in entry.groups { group.animationStopped(finished: finished, stack: stack) }
                // Removal stops keep the order they happened in (the events' order); this tick's
                // finishes go in add order.
                callbacks.append(Callback(kind: finished ? .finish : .removedStop, order: finished ? entry.sequence : UInt64(callbacks.count),
                                          entry: entry, finished: finished))
            }
        }
        guard !callbacks.isEmpty else { return }
        callbacks.sort { ($0.kind.rawValue, $0.order) < ($1.kind.rawValue, $1.order) }
        swap(&callbacks, &delivering)
        defer { delivering.removeAll(keepingCapacity: true) }
        for callback in delivering {
            guard let delegate = callback.entry.delegate else { continue }
            if callback.kind == .start {
                delegate.animationDidStart(callback.entry.animation)
            } else {
                delegate.animationDidStop(callback.entry.animation, finished: callback.finished)
            }
        }
    }

    // MARK: Changes (called by layers)

    /// A model change of `key` on `layer` (§1.1) in the current transaction (§9.1): the action is
    /// looked up before the change, so that the delegate and the action see the old value, and
    /// run after it ([inferred]; §10).
    ///
    /// A key with an action keeps one ``ActionRecord`` on its layer (where the action started
    /// this tick, the animation it added last, the engine slot), so that the change finds all of
    /// it with one look-up: changes are what a host makes by the hundred between ticks.
    func change(_ layer: Layer, key: String, to value: AnimationValue?) {
        changeObserver?(layer, key)
        let stack = TransactionStack.current
        stack.touch()
        var action: LayerAction?
        var before: AnimationValue?
        var beforeVelocity: AnimationValue?
        var record: ActionRecord?
        if !stack.disablesActions {
            action = layer.action(forKey: key)
            if action != nil {
                let r = layer.actionRecord(forKey: key) ?? layer.newActionRecord(forKey: key)
                record = r
                // What the change will touch in the engine, as the last change of the key
                // found it, asked for at once (a hint).
                if let hints = r.hints { store.prefetchChange(hints) }
                // A second change of the key before the next tick animates from where the first
                // one started: the engine's row already shows the first change's model (§9.5).
                let keepsVelocity = stack.retargetMode == .preserveVelocity
                if r.startTick == tickCount, let earlier = r.startValue {
                    before = earlier
                    if keepsVelocity {
                        beforeVelocity = r.startVelocity.flatMap { $0.tick == tickCount ? $0.value : nil }
                            ?? presentationVelocity(of: layer, record: r)
                    }
                } else {
                    before = presentationValue(of: layer, forKey: key, record: r)
                    // Read with the value, before the model changes: an animation whose end is
                    // the model moves differently once the model has moved.
                    beforeVelocity = keepsVelocity ? presentationVelocity(of: layer, record: r) : nil
                    if let before {
                        r.startTick = tickCount
                        r.startValue = before
                        // Written only when read (its line is past the ones a change prefetches).
                        if let beforeVelocity { r.startVelocity = StartVelocity(tick: tickCount, value: beforeVelocity) }
                    }
                }
            }
        }
        layer.keyedValues[key] = value
        if let id = layer.id {
            if let value {
                if let slot = record?.slot, store.setModelValue(value, slot: slot) {
                    // Written through the slot found for the presentation value above.
                } else if let slot = try? store.setModelValue(value, layer: id, property: key) {
                    record?.slot = slot
                }
            } else if store.slot(layer: id, property: key) != nil, let model = layer.engineModelValue(forKey: key) {
                _ = try? store.setModelValue(model, layer: id, property: key)   // back to the default
            }
        }
        if case .animation(let animation)? = action {
            if let beforeVelocity, let before,
               runKeepingVelocity(animation, forKey: key, on: layer, from: before, velocity: beforeVelocity, record: record, stack: stack) {
                // Added with the velocity it replaces (docs/retargeting.md).
            } else {
                run(animation, forKey: key, on: layer, from: before, record: record, stack: stack)
            }
        }
        if let record, let slot = record.slot { record.hints = store.changeHints(slot: slot, animation: record.implicitHandle) }
        if type(of: layer).needsDisplay(forKey: key) {
            if layer.id != nil, value != nil { watch(layer, key: key) }
            layer.setNeedsDisplay()
        }
    }

    /// Runs an action's animation (§10): adds it under the event's key. A basic or spring
    /// animation of the event's key with no values animates from the presentation value before
    /// the change (`before`) to the new model value (§4.1, §6.1), so a change in flight continues
    /// without a jump.
    private func run(_ animation: any Animation, forKey key: String, on layer: Layer, from before: AnimationValue?,
                     record: ActionRecord? = nil, stack: TransactionStack = .current) {
        // A spring is a basic animation (§6.1): with no values it too goes from the value before
        // the change to the new one (§4.1's last row) — added anew each time (the takeover in the
        // engine's columns is for basic animations).
        if let before, var spring = animation as? SpringAnimation, spring.keyPath == key,
           spring.fromValue == nil, spring.toValue == nil, spring.byValue == nil {
            spring.fromValue = before
            add(action: spring, forKey: key, on: layer, implicit: nil, record: record)
            record?.implicitSignature = nil   // the key's last animation is no basic one to take over
            record?.implicitHandle = nil
            return
        }
        guard let before, var basic = animation as? BasicAnimation, basic.keyPath == key,
              basic.fromValue == nil, basic.toValue == nil, basic.byValue == nil else {
            return add(action: animation, forKey: key, on: layer, implicit: nil, record: record)
        }
        if retargetsImplicitAnimations, let record, retarget(basic, forKey: key, on: layer, from: before, record: record, stack: stack) {
            return
        }
        let implicit = basic
        basic.fromValue = before
        add(action: basic, forKey: key, on: layer, implicit: implicit, record: record)
    }

    /// Under ``RetargetMode/preserveVelocity``: an action's basic or spring animation of the
    /// event's key with no values, started from `before` at `velocity` (per second of the
    /// layer's time) by ``VelocityCarry``. False when there is no velocity to keep (at rest, a
    /// transform, another kind of action) or the animation that keeps it cannot be added: the
    /// caller runs the action as ``RetargetMode/restart`` does.
    private func runKeepingVelocity(_ animation: any Animation, forKey key: String, on layer: Layer, from before: AnimationValue,
                                    velocity: AnimationValue, record: ActionRecord?, stack: TransactionStack) -> Bool {
        guard velocity.components.contains(where: { $0 != 0 }), let model = layer.engineModelValue(forKey: key) else { return false }
        var main: any PropertyAnimation
        if var basic = animation as? BasicAnimation, basic.fromValue == nil, basic.toValue == nil, basic.byValue == nil {
            basic.fromValue = before
            main = basic
        } else if var spring = animation as? SpringAnimation, spring.fromValue == nil, spring.toValue == nil, spring.byValue == nil {
            spring.fromValue = before
            main = spring
        } else {
            return false
        }
        guard main.keyPath == key,
              let keeping = VelocityCarry.animation(main, key: key, velocity: velocity, model: model,
                                                    transactionDuration: stack.animationDuration),
              (try? add(keeping, to: layer, forKey: key, delegate: nil)) != nil else { return false }
        // A group (or a spring) is not the action's basic animation: the next change adds anew.
        record?.implicitSignature = nil
        record?.implicitHandle = nil
        return true
    }

    /// d(presentation value)/dt of the key `record` is for, per second of `layer`'s own time
    /// (the engine's rate over the product of the speeds above it), or nil where that time is
    /// frozen or the key has no slot.
    private func presentationVelocity(of layer: Layer, record: ActionRecord) -> AnimationValue? {
        presentationVelocity(of: layer, forKey: record.key, slot: record.slot)
    }

    /// d(presentation value)/dt of `key` on `layer` now, per second of `layer`'s own time; nil
    /// where that time is frozen or the key has no slot. `slot`: the key's, when known.
    func presentationVelocity(of layer: Layer, forKey key: String, slot known: SlotHandle? = nil) -> AnimationValue? {
        guard let id = layer.id else { return nil }
        let slot = known.flatMap { store.key(of: $0) != nil ? $0 : nil } ?? store.slot(layer: id, property: key)
        guard let slot, let rate = store.velocity(of: slot, atFrameTime: currentTime) else { return nil }
        var speed = 1.0
        var current: Layer? = layer
        while let l = current {   // bounded: a tree has no cycles
            speed *= l.timing.speed
            current = l.storedSuperlayer
        }
        guard speed != 0, speed.isFinite else { return nil }
        return speed == 1 ? rate : rate.rateScaled(by: 1 / speed)
    }

    /// Adds an action's animation; an implicit one (a basic animation with no values, `implicit`)
    /// added with begin time 0 is remembered in the key's record for taking over next time.
    private func add(action animation: any Animation, forKey key: String, on layer: Layer, implicit: BasicAnimation?,
                     record: ActionRecord?) {
        do {
            let handle = try add(animation, to: layer, forKey: key, delegate: nil)
            // An implicit animation comes with its key's record (it needs the value before the
            // change, which only a property change has).
            if let implicit, let record, let handle, implicit.timing.beginTime == 0 {
                record.implicitSignature = ImplicitSignature(implicit)
                record.implicitDuration = Transaction.animationDuration()
                record.implicitMotion = implicitMotion(forKey: key, on: layer)
                record.implicitHandle = handle
            }
        } catch let error as AnimationError {
            lastActionError = error
        } catch {
            lastActionError = AnimationError(field: key, reason: "\(error)")
        }
    }

    /// The reduced-motion mode an implicit animation of `key` on `layer` is added under (its
    /// track keeps that timing: a takeover needs the same).
    private func implicitMotion(forKey key: String, on layer: Layer) -> ReducedMotion {
        reducedMotion != .off && type(of: layer).isMotion(forKey: key) ? reducedMotion : .off
    }

    /// Whether a key's action that runs again takes its last animation over in place
    /// (``retarget(_:forKey:on:from:record:stack:)``); off only to test that it changes nothing.
    var retargetsImplicitAnimations = true
    /// How many action runs took their last animation over (for tests).
    private(set) var implicitTakeovers = 0

    /// The fast path of ``run(_:forKey:on:from:record:stack:)``: the same action as last time on
    /// this key (equal but for the values it gets when run) under the same transaction duration,
    /// with no completion block waiting, takes the animation it added last time over in the
    /// engine's columns (`TrackStore.retargetImplicit`) — live, or finished and parked. The result
    /// is that of adding the copy (tested bit for bit); false when the engine cannot, and the
    /// caller adds.
    private func retarget(_ action: BasicAnimation, forKey key: String, on layer: Layer, from before: AnimationValue,
                          record: ActionRecord, stack: TransactionStack) -> Bool {
        guard action.timing.beginTime == 0, let id = layer.id, let last = record.implicitHandle,
              record.implicitDuration == stack.animationDuration, !stack.hasOpenGroups,
              record.implicitMotion == implicitMotion(forKey: key, on: layer),
              record.implicitSignature?.matches(action) == true else { return false }
        let beginTime = localTime(of: layer)
        guard let handle = store.retargetImplicit(last, layer: id, forKey: key, from: before, beginTime: beginTime) else {
            return false
        }
        record.implicitHandle = handle
        implicitTakeovers += 1
        return true
    }

    /// The presentation value of `key` on `layer` now: the engine's after the last tick (or the
    /// model set since), else the model value. Through the slot `record` remembers, when given
    /// (looked up again, and remembered, when missing or stale).
    func presentationValue(of layer: Layer, forKey key: String, record: ActionRecord? = nil) -> AnimationValue? {
        if let slot = record?.slot, let v = store.presentationValue(of: slot) { return v }
        if let id = layer.id, let slot = store.slot(layer: id, property: key) {
            record?.slot = slot
            if let v = store.presentationValue(of: slot) { return v }
        }
        return layer.engineModelValue(forKey: key)
    }

    /// Adds an animation to a layer in the tree (``Layer/add(_:forKey:delegate:)``); returns its
    /// engine handle (nil when the layer is not in the tree).
    @discardableResult
    func add(_ animation: any Animation, to layer: Layer, forKey key: String?, delegate: (any AnimationDelegate)?,
             motion: MotionPreference = .system) throws -> AnimationHandle? {
        guard let id = layer.id else { return nil }
        let stack = TransactionStack.current
        stack.touch()
        // §1.3, §1.5: duration from the transaction, beginTime 0 → the layer's time now; then
        // reduced motion, in the animation's timing (docs/reduced-motion.md).
        var prepared: any Animation = try animation.preparedForAdding(layerTime: localTime(of: layer),
                                                                      transactionDuration: Transaction.animationDuration())
        prepared = motionMode(for: prepared, on: layer, preference: motion).apply(to: prepared)
        if let property = prepared as? any PropertyAnimation {
            try prepareSlots(for: property, on: layer, id: id)
        } else {
            for leaf in prepared.leaves { try prepareSlots(for: leaf.animation, on: layer, id: id) }
        }
        let handle = try store.add(prepared, layer: id, forKey: key)
        if delegate != nil || stack.hasOpenGroups {
            let groups = stack.openGroups()
            for group in groups { group.pending += 1 }
            entries[handle] = Entry(animation: prepared, delegate: delegate, groups: groups, sequence: nextSequence)
            nextSequence += 1
        }
        return handle
    }

    /// Keys outside the catalog, and subclass defaults, need the layer's model value in the
    /// engine before an animation of them is added.
    private func prepareSlots(for animation: any PropertyAnimation, on layer: Layer, id: LayerID) throws {
        let property = AnimationKeyPath.split(animation.keyPath).property
        if store.slot(layer: id, property: property) == nil, let model = layer.engineModelValue(forKey: property) {
            try store.setModelValue(model, layer: id, property: property)
        }
        if type(of: layer).needsDisplay(forKey: property) { watch(layer, key: property) }
        // §5.7: a path animation with a rotation mode turns the layer's transform, which needs a
        // slot for the engine to turn.
        if let keyframes = animation as? KeyframeAnimation, keyframes.rotationMode != nil, keyframes.path != nil,
           store.slot(layer: id, property: "transform") == nil, let model = layer.engineModelValue(forKey: "transform") {
            try store.setModelValue(model, layer: id, property: "transform")
        }
    }

    /// `layer` was marked for display (``Layer/setNeedsDisplay()`` lists it once per mark).
    func needsDisplay(_ layer: Layer) {
        if layer.context === self { displayList.append(layer) }
    }

    private func watch(_ layer: Layer, key: String) {
        if layer.displayedValues[key] == nil {
            layer.displayedValues[key] = presentationValue(of: layer, forKey: key)
        }
        if !layer.isWatched {
            layer.isWatched = true
            watchedLayers.append(layer)
        }
    }

    // MARK: Tree (called by layers)

    /// `layer` and its sublayers join the tree: each gets an engine name, its model values, its
    /// own time when it or an ancestor has one (§2.7), then its waiting animations.
    func attach(_ layer: Layer) {
        defer {
            // §10: a layer joining the tree runs its `onOrderIn` action, if it has one.
            if layer !== rootLayer, !Transaction.disableActions(), case .animation(let animation)? = layer.action(forKey: "onOrderIn") {
                run(animation, forKey: "onOrderIn", on: layer, from: nil)
            }
        }
        // Each layer with whether an ancestor has a timing of its own (§2.7), passed down the walk
        // from the superlayer's mark: asking each layer walked its ancestors, quadratic in a
        // chain's depth.
        var pending: [(layer: Layer, timedAbove: Bool)] = [(layer, layer.storedSuperlayer?.timedInTree ?? false)]
        while let (l, timedAbove) = pending.popLast() {
            let id = LayerID(nextLayerID)
            nextLayerID += 1
            l.context = self
            l.id = id
            l.joinedAtTick = tickCount
            layers[id] = l
            for (key, value) in l.keyedValues.sorted {
                _ = try? store.setModelValue(value, layer: id, property: key)
                if type(of: l).needsDisplay(forKey: key) { watch(l, key: key) }
            }
            let timed = timedAbove || !l.timing.isIdentity
            updateTime(of: l, timedInTree: timed)
            let waiting = l.waitingAnimations
            l.waitingAnimations = []
            for w in waiting {
                // Checked when added; what needs the tree (a key the layer has no value for) is
                // checked now, and a failure is reported where an action's would be.
                do {
                    try add(w.animation, to: l, forKey: w.key, delegate: w.delegate, motion: w.motion)
                } catch {
                    lastActionError = (error as? AnimationError) ?? AnimationError(field: w.key ?? "animation", reason: "\(error)")
                }
            }
            if l.needsDisplayFlag { needsDisplay(l) }
            pending.append(contentsOf: l.compactedSublayers.reversed().lazy.map { ($0, timed) })
        }
    }

    /// `layer` and its sublayers leave the tree: their animations are cancelled (their stops
    /// come with the next tick) and the engine forgets them; model values stay on the layers.
    func detach(_ layer: Layer) {
        var pending: [Layer] = [layer]
        while let l = pending.popLast() {
            if let id = l.id {
                store.removeLayer(id)
                layers[id] = nil
            }
            if l.isWatched {
                l.isWatched = false
                watchedLayers.removeAll { $0 === l }
            }
            displayList.removeAll { $0 === l }
            l.context = nil
            l.id = nil
            l.displayedValues = [:]
            for record in l.actionRecords.values { record.leftTree() }   // handles and slots of this tree's store
            pending.append(contentsOf: l.compactedSublayers)
        }
    }

    /// Whether a layer of the tree has had a timing other than the identity (§2.7) since the
    /// context was made: until then every layer's time is the context's, and ``localTime(of:)``
    /// skips the walk to the root (two weak loads per level; 0.15 µs of an implicit change).
    private var treeHasLayerTime = false

    /// `layer`'s local time now (§2.7): its ancestors' maps from the root down, then its own.
    func localTime(of layer: Layer) -> Double {
        treeHasLayerTime ? layer.localTime(atContextTime: currentTime) : currentTime
    }

    /// `layer` moved within the tree: its time now derives from its new superlayer's.
    func moved(_ layer: Layer) {
        updateSubtreeTime(layer)
    }

    /// `layer`'s timing changed (§2.7, §2.8): it and its subtree get or update their own times.
    func timingChanged(_ layer: Layer) {
        updateSubtreeTime(layer)
    }

    private func updateSubtreeTime(_ layer: Layer) {
        var pending: [(layer: Layer, timedAbove: Bool)] = [(layer, layer.storedSuperlayer?.timedInTree ?? false)]
        while let (l, timedAbove) = pending.popLast() {
            let timed = timedAbove || !l.timing.isIdentity
            updateTime(of: l, timedInTree: timed)
            pending.append(contentsOf: l.compactedSublayers.lazy.map { ($0, timed) })
        }
    }

    /// Gives `layer` its own time in the engine when it or an ancestor has a timing other than the
    /// identity (`timedInTree`, kept on the layer for the walks below it), and keeps it up to date
    /// (once given, it stays: re-pointing tracks costs more than a layer with the identity timing
    /// computes). Walks go from a layer of the tree down, so its parent's time, where the parent
    /// needs one, is in place already.
    private func updateTime(of layer: Layer, timedInTree: Bool) {
        layer.timedInTree = timedInTree
        guard let id = layer.id else { return }
        let hasTime = store.layerTime(of: id) != nil
        guard hasTime || timedInTree else { return }
        treeHasLayerTime = true
        var parentID: LayerID?
        if let pid = layer.storedSuperlayer?.id, store.layerTime(of: pid) != nil { parentID = pid }
        try? store.setLayerTime(id, parent: parentID, timing: layer.timing)
    }
}

/// What a layer remembers of one key's action (``Layer``'s `actionRecords`). A class, so that a
/// change reads and updates it with one look-up and no copy of the animation it holds.
///
/// Its fields are in the order a change reads them: the record is cold when a change comes (a
/// tick went by), and the first ones share its first cache lines.
final class ActionRecord {
    /// Its key.
    let key: String
    /// The tick count of the interval in which the key's action first ran (§9.5); -1 before any.
    var startTick = -1
    /// The key's engine slot (checked on every use: a stale handle is looked up again).
    var slot: SlotHandle?
    /// The animation the key's action added last, while it can be taken over: its engine handle,
    /// the transaction duration it got and what made it that action (fields rather than the
    /// animation: the comparison reads two cache lines, not the animation's nine).
    var implicitHandle: AnimationHandle?
    var implicitDuration = 0.0
    var implicitSignature: ImplicitSignature?
    /// The reduced-motion mode it was added under.
    var implicitMotion = ReducedMotion.off
    /// The presentation value the key's action started from in tick interval `startTick`.
    var startValue: AnimationValue?
    /// Where the last change of the key touched the engine (`TrackStore.prefetchChange(_:)`).
    var hints: ChangeHints?
    /// The velocity the key's action started from and the tick interval it was read in, under
    /// ``RetargetMode/preserveVelocity`` only (a change under ``RetargetMode/restart`` neither
    /// reads nor writes it): boxed, so that a record grows by a word, not by a value — records
    /// are read cold, and a larger one cost every implicit change 0.3 µs.
    var startVelocity: StartVelocity?

    init(key: String) { self.key = key }

    /// The layer left its tree: the animation and slot belong to that tree's store.
    func leftTree() {
        implicitSignature = nil
        implicitHandle = nil
        slot = nil
        hints = nil
    }
}

/// A velocity read at a change (``ActionRecord/startVelocity``).
final class StartVelocity {
    let tick: Int
    let value: AnimationValue
    init(tick: Int, value: AnimationValue) { (self.tick, self.value) = (tick, value) }
}

/// What makes an implicit action's animation (a basic animation with no values, §10) the same
/// action when it runs again: everything but its values and begin time, which a run gives it —
/// its shared settings with the begin time left out. The key path is the record's key (a run
/// checks it).
struct ImplicitSignature: Equatable {
    var settings: PropertyAnimationSettings

    init(_ a: BasicAnimation) {
        settings = a.settings
        settings.timing.beginTime = 0
    }

    /// Whether `a` has this signature.
    func matches(_ a: BasicAnimation) -> Bool { self == ImplicitSignature(a) }
}

extension Layer {
    /// A new, empty action record for `key`, kept on the layer.
    func newActionRecord(forKey key: String) -> ActionRecord {
        let record = ActionRecord(key: key)
        actionRecords[key] = record
        lastActionRecord = record
        return record
    }

    /// The action record of `key`, if any: the last one used when it is `key`'s (a host changes
    /// the same property again and again; the field is in the layer's own cache lines, the
    /// table's storage is not), else from the table.
    func actionRecord(forKey key: String) -> ActionRecord? {
        if let last = lastActionRecord, last.key == key { return last }
        guard let record = actionRecords[key] else { return nil }
        lastActionRecord = record
        return record
    }
}

