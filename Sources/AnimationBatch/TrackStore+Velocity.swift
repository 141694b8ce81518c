import AnimationCore

// Velocity read per slot (docs/velocity.md): the scalar reference's analytic rate over the slot's
// animations, at the time a frame evaluates them. Computed when asked, from the animations as
// added: nothing is kept or computed per frame for it.

extension TrackStore {
    /// d(presentation value)/dt of `slot` at frame time `time`, per second of frame time: the
    /// reference's rate (`ReferenceEvaluator.presentationValuesWithRates(model:animations:at:)`)
    /// of the slot's property over its layer's animations, in add order (semantics §8.4), at the
    /// layer's local time, times d(local time)/d(frame time) (its clocks' speeds). A value of the
    /// property's kind; zero where nothing moves; nil for a stale handle.
    ///
    /// Cost: the layer's animations are read back (a keyframe animation rebuilds its plan), so a
    /// read costs microseconds, not the nanoseconds of a value read: read it when a velocity is
    /// needed (an interruption, a gesture's hand-off), not for every slot every frame.
    public func velocity(of slot: SlotHandle, atFrameTime time: Double) -> AnimationValue? {
        guard let (layer, property) = key(of: slot), let model = modelValue(of: slot) else { return nil }
        let rate = clocks.timeRate(of: layer)
        guard rate != 0 else { return .zeroRate(of: model.kind) }
        guard let s = tables.resolve(slot) else { return nil }
        var animations: [any Animation] = []
        for a in tables.listedAnimations(of: layer) {
            // Only what shows in the slot — a track of the property or a path's rotation turning
            // it (semantics §5.7) — read back: reading one unpacks it (a keyframe animation
            // rebuilds its plan), and a layer may hold many.
            let touches = tables.animations[a].tracks.contains { tables.tracks[$0].slot == s || tables.tracks[$0].rotationSlot == s }
            // As `animation(_:)` reads it: a retarget pending in the columns folded in.
            if touches, let animation = compiler.retargetedAnimation(a) ?? tables.animations[a].animation { animations.append(animation) }
        }
        guard !animations.isEmpty else { return .zeroRate(of: model.kind) }
        let local = localTime(of: layer, atFrameTime: time)
        let result = ReferenceEvaluator.presentationValuesWithRates(model: [property: model], animations: animations, at: local)
        guard let moving = result[property]?.rate else { return .zeroRate(of: model.kind) }
        let scaled = rate == 1 ? moving : moving.rateScaled(by: rate)
        // A NaN component comes only from intermediate rates that overflowed (∞ − ∞, 0 · ∞:
        // values near ±1e300 moving within a second); no direction survives that, and finite
        // input never reads NaN (docs/bad-input.md): 0.
        guard scaled.components.contains(where: \.isNaN) else { return scaled }
        return AnimationValue(kind: scaled.kind) { [components = scaled.components] c in components[c].isNaN ? 0 : components[c] }
    }
}

extension FrameEvaluator {
    /// ``TrackStore/velocity(of:atFrameTime:)`` at the last frame's time; nil before the first
    /// frame and for a stale handle.
    public func velocity(of slot: SlotHandle) -> AnimationValue? {
        time.isNaN ? nil : store.velocity(of: slot, atFrameTime: time)
    }

    /// The velocity of `property` on `layer` after the last frame (``velocity(of:)``); nil when
    /// the layer has no such slot or before the first frame.
    public func velocity(layer: LayerID, property: String) -> AnimationValue? {
        store.slot(layer: layer, property: property).flatMap(velocity(of:))
    }
}
