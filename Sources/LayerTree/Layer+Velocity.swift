import AnimationBatch
import AnimationCore

// MARK: Velocity: the derivative of a presentation value, computed, not differenced

extension Layer {
    /// d(presentation value)/dt at the latest tick, per second of context time (docs/velocity.md):
    /// a value of the key's own kind whose components are the rates — a `Double` for `opacity`,
    /// a `Point` for `position`, a `Rect` for `bounds`, a colour componentwise, a transform
    /// entrywise, and for a key path such as `transform.rotation.z` the field's rate (a `Double`).
    ///
    /// Computed analytically by the engine's reference (the timing function's slope, the spring's
    /// closed form, the keyframe segment's derivative, the path's tangent, through media timing,
    /// groups, layer speeds, additive and cumulative composition), with the layer's animations at
    /// the latest tick's time; not a difference of two frames. Zero of the key's kind when nothing
    /// moves it (no animation, a fill, a pause); nil for a key with no numeric value (a path) or
    /// before the layer's first tick. The same on the model layer and its presentation copy. At an
    /// instant where the value jumps (a discrete keyframe, a new iteration), or where its
    /// direction turns, the velocity just after it.
    ///
    /// Error: within 1e-6 of the rate relative to max(1, |rate|) of a fine central difference of
    /// the reference's values away from such instants (tested per kind). A read costs
    /// microseconds (the layer's animations are read back): ask when a velocity is needed — or
    /// set ``LayerContext/computesVelocity``, and every tick's kernels compute every key's
    /// velocity beside its value (within 1e-3 of the reference's, docs/velocity.md), which this
    /// then reads.
    public func velocity(forKey key: String) -> AnimationValue? {
        let model = modelLayer ?? self
        guard let context = model.context, let id = model.id, context.tickCount > model.joinedAtTick else { return nil }
        let (property, fieldPath) = AnimationKeyPath.split(key)
        let slot = context.store.slot(layer: id, property: property)
        guard let value = slot.flatMap(context.store.presentationValue(of:)) ?? model.value(forKey: property) else { return nil }
        let rate = slot.flatMap(context.evaluator.velocity(of:)) ?? .zeroRate(of: value.kind)
        guard let fieldPath else { return rate }
        guard let field = try? ValueField(path: fieldPath, of: value.kind) else { return nil }
        return field.rate(of: value, movingAt: rate)
    }
}
