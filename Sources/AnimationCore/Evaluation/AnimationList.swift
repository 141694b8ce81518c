/// The animations attached to one layer, in add order, with Core Animation's keyed semantics
/// (semantics §1.2–§1.5, §8.1–§8.5). The layer tree keeps one per layer.
///
/// - ``add(_:forKey:layerTime:transactionDuration:)`` stores a copy (§1.2), resolves a
///   `duration ≤ 0` (§1.3) and a `beginTime` of 0 (§1.5), and replaces an animation with the same
///   key (its entry is returned so the caller can report `finished: false`, §8.1).
/// - ``removeCompleted(at:)`` removes the animations whose active duration has passed and that are
///   removed on completion (§1.4), returning them (`finished: true`).
/// - ``presentationValue(ofProperty:model:at:)`` composes model and animations (§8.4); after
///   removal the model value shows again (§8.5).
public struct AnimationList: Sendable {
    /// One attached animation.
    public struct Entry: Sendable {
        /// The key it was added under; nil for anonymous animations, which are never replaced.
        public let key: String?
        /// The stored copy, with its duration and begin time resolved.
        public let animation: any Animation
    }

    /// The attached animations in add order (§8.2).
    public private(set) var entries: [Entry] = []

    public init() {}

    /// Attaches a copy of `animation` (semantics §1.2, §1.3, §1.5).
    ///
    /// - Parameters:
    ///   - animation: The animation; validated, then copied (later changes to it have no effect).
    ///   - key: The key; an existing animation with the same key is removed first (§1.2). Nil adds
    ///     an anonymous animation.
    ///   - layerTime: The layer's current local time, which a `beginTime` of 0 becomes (§1.5).
    ///   - transactionDuration: The current transaction's `animationDuration`, if it sets one; a
    ///     `duration ≤ 0` becomes this, else 0.25 s (§1.3).
    /// - Returns: The entry the new animation replaced, if any.
    /// - Throws: ``AnimationError`` naming the first invalid field; nothing changes then. For
    ///   property animations on a property of ``LayerProperty/all``, also a key path or value kind
    ///   that does not fit the property.
    @discardableResult
    public mutating func add(_ animation: any Animation, forKey key: String?, layerTime: Double,
                             transactionDuration: Double? = nil) throws -> Entry? {
        let prepared = try animation.preparedForAdding(layerTime: layerTime, transactionDuration: transactionDuration)
        for leaf in prepared.leaves {
            let property = AnimationKeyPath.split(leaf.animation.keyPath).property
            guard let kind = LayerProperty.named(property)?.kind else { continue }
            do {
                try leaf.animation.validate(forPropertyKind: kind)
            } catch let error as AnimationError {
                // animations[2].animations[0].keyPath for a leaf two groups down.
                throw error.prefixed(by: leaf.indexPath.map { "animations[\($0)]" }.joined(separator: "."))
            }
        }
        let replaced = key.flatMap { removeAnimation(forKey: $0) }
        entries.append(Entry(key: key, animation: prepared))
        return replaced
    }

    /// The attached animation for `key` (semantics §8.2), or nil.
    public func animation(forKey key: String) -> (any Animation)? {
        entries.first { $0.key == key }?.animation
    }

    /// The keys of the keyed animations, in add order (semantics §8.2).
    public var animationKeys: [String] { entries.compactMap(\.key) }

    /// Removes the animation for `key` and returns its entry (its delegate would get
    /// `finished: false`, §8.1).
    @discardableResult
    public mutating func removeAnimation(forKey key: String) -> Entry? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: i)
    }

    /// Removes every animation and returns them in add order (`finished: false`, §8.1).
    @discardableResult
    public mutating func removeAllAnimations() -> [Entry] {
        defer { entries.removeAll() }
        return entries
    }

    /// Removes the animations that are removed on completion and whose active duration has passed
    /// at `layerTime` (semantics §1.4), returning them in add order (`finished: true`, §8.1).
    @discardableResult
    public mutating func removeCompleted(at layerTime: Double) -> [Entry] {
        var removed: [Entry] = []
        entries.removeAll { entry in
            let done = entry.animation.isRemovedOnCompletion
                && entry.animation.timing.state(atParentTime: layerTime).phase == .after
            if done { removed.append(entry) }
            return done
        }
        return removed
    }

    /// The presentation value of `property` at `layerTime` over `model` (semantics §1.1, §8.4).
    public func presentationValue(ofProperty property: String, model: AnimationValue, at layerTime: Double) -> AnimationValue {
        ReferenceEvaluator.presentationValue(ofProperty: property, model: model,
                                             animations: entries.map(\.animation), at: layerTime)
    }

    /// The presentation values of every property in `model` at `layerTime` (semantics §1.1).
    public func presentationValues(model: [String: AnimationValue], at layerTime: Double) -> [String: AnimationValue] {
        ReferenceEvaluator.presentationValues(model: model, animations: entries.map(\.animation), at: layerTime)
    }
}
