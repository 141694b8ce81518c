import AnimationBatch
import AnimationCore

// Animations on a layer (semantics §1.2–§1.5, §8).
extension Layer {
    /// Adds a copy of `animation` under `key` (§1.2): validated (an invalid one throws
    /// `AnimationError` naming the field and changes nothing), `duration ≤ 0` set to the current
    /// transaction's `animationDuration` (§1.3), `beginTime` 0 set to the layer's current local
    /// time (§1.5). An animation already under `key` is removed (its delegate gets
    /// `animationDidStop(finished: false)` in the next tick, §8.1); nil adds an anonymous one.
    /// `delegate` gets `animationDidStart` and `animationDidStop(_:finished:)` exactly once each,
    /// in ticks (§8.1); the animation retains it.
    ///
    /// Outside a context the animation waits, validated, and is added when the layer joins one
    /// (its beginTime and duration resolved then); if it names a key the layer has no value for,
    /// it is dropped then and ``LayerContext/lastActionError`` says why. A waiting animation that
    /// is replaced or removed before the layer joins a context never ran: it is dropped and its
    /// delegate is told nothing (as Core Animation tells nothing for a layer outside a window).
    ///
    /// - Throws: `AnimationError` naming the first invalid field, or `keyPath` when it names a
    ///   key the layer has no value for.
    public func add(_ animation: any Animation, forKey key: String?, delegate: (any AnimationDelegate)? = nil) throws {
        try add(animation, forKey: key, delegate: delegate, motion: .system)
    }

    /// Removes the animation under `key`: it stops unfinished (§8.1) and the presentation value
    /// returns to the model value from the next tick (§8.5).
    public func removeAnimation(forKey key: String) {
        guard let context, let id else {
            waitingAnimations.removeAll { $0.key == key }
            return
        }
        context.store.removeAnimation(forKey: key, layer: id)
    }

    /// Removes every animation on the layer, in add order (each stops unfinished, §8.1).
    public func removeAllAnimations() {
        guard let context, let id else {
            waitingAnimations.removeAll()
            return
        }
        context.store.removeAllAnimations(layer: id)
    }

    /// The animation under `key` as the layer keeps it (the copy made when it was added, with
    /// its resolved duration and beginTime, §8.2), or nil.
    public func animation(forKey key: String) -> (any Animation)? {
        guard let context, let id else { return waitingAnimations.last { $0.key == key }?.animation }
        return context.store.animation(forKey: key, layer: id).flatMap(context.store.animation(_:))
    }

    /// The keys of the layer's keyed animations in add order (§8.2); nil when there are none.
    public func animationKeys() -> [String]? {
        let keys: [String]
        if let context, let id {
            keys = context.store.animationKeys(layer: id)
        } else {
            keys = waitingAnimations.compactMap(\.key)
        }
        return keys.isEmpty ? nil : keys
    }
}
