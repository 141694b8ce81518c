import AnimationCore

/// What an action lookup returns (semantics §10): Core Animation's `CAAction` reduced to what
/// layers run. A lookup step that returns Swift `nil` means "keep searching".
public enum LayerAction {
    /// Running it adds the animation to the layer under the event's key (the property name).
    case animation(any Animation)
    /// `NSNull`: stops the search; the change runs no action.
    case null
}

/// A layer's delegate (`CALayerDelegate`): it is asked first for a layer's actions (§10) and
/// draws the layer when asked to display (§11). Both requirements have default implementations.
public protocol LayerDelegate: AnyObject {
    /// The action for `event` on `layer`, or nil to let the lookup go on (§10 step 1).
    func action(for layer: Layer, forKey event: String) -> LayerAction?
    /// Draws `layer`: called with the presentation copy of a layer that needs display (§11).
    func display(_ layer: Layer)
}

extension LayerDelegate {
    public func action(for layer: Layer, forKey event: String) -> LayerAction? { nil }
    public func display(_ layer: Layer) {}
}

/// An animation's delegate (`CAAnimationDelegate`, semantics §8.1): told once when the animation's
/// active duration begins and once when it stops. Retained by the animation while it is on its
/// layer. Both requirements have default (empty) implementations.
public protocol AnimationDelegate: AnyObject {
    /// The animation's active duration began.
    func animationDidStart(_ animation: any Animation)
    /// The animation stopped: `finished` is true when its active duration ended, false when it
    /// was removed, replaced by key or cancelled with its layer before that.
    func animationDidStop(_ animation: any Animation, finished: Bool)
}

extension AnimationDelegate {
    public func animationDidStart(_ animation: any Animation) {}
    public func animationDidStop(_ animation: any Animation, finished: Bool) {}
}
