import AnimationCore

/// UIKit's part in implicit animation (the seed "how UIView kept layers from animating"): a view
/// owns a layer and is its delegate, and answers the layer's action lookups (semantics §10 step
/// 1) with `.null` outside an animation block — so changing a view's layer does not animate —
/// and with an animation inside ``animate(withDuration:animations:completion:)``.
///
/// Set the layer's delegate to nil, or answer nil from a subclass's
/// ``action(for:forKey:)``, and the lookup goes on to the layer's own actions: the layer
/// animates implicitly again (the seed's experiments).
open class View: LayerDelegate {
    /// The class of the view's layer (default ``Layer``); subclasses override it.
    open class var layerClass: Layer.Type { Layer.self }

    /// The view's layer, made with `layerClass.init()`; the view is its delegate.
    public let layer: Layer

    /// A view with a new layer of ``layerClass``.
    public init() {
        layer = Self.layerClass.init()
        layer.delegate = self
    }

    /// Outside an animation block `.null` (no implicit animation); inside one, for a key the
    /// layer animates by default (§12), a basic animation with the block's duration and
    /// ease-in-ease-out pacing, from the presentation value (UIKit's default curve); `.null` for
    /// other keys.
    open func action(for layer: Layer, forKey event: String) -> LayerAction? {
        guard let duration = TransactionStack.current.viewAnimations.last, duration > 0,
              type(of: layer).defaultAction(forKey: event) != nil else { return .null }
        var animation = BasicAnimation(keyPath: event)
        animation.duration = duration
        animation.timingFunction = .easeInEaseOut
        return .animation(animation)
    }

    /// Runs `animations` in a transaction in which the layers of views animate their changes
    /// over `duration` seconds (a duration that is not finite and positive changes them without
    /// animation). `completion` runs once every animation added in the block has stopped —
    /// `true` when all finished, `false` when one was removed first — in a later tick's
    /// completion step; at once when the block added none (semantics §9.3).
    public static func animate(withDuration duration: Double, animations: () -> Void,
                               completion: ((Bool) -> Void)? = nil) {
        let stack = TransactionStack.current
        Transaction.begin()
        let level = stack.currentLevel()
        if duration > 0 && duration.isFinite { level.duration = duration }
        if let completion {
            let group = CompletionGroup(block: {})
            group.finishedBlock = completion
            level.completion = group
        }
        stack.viewAnimations.append(duration.isFinite ? duration : 0)
        animations()
        stack.viewAnimations.removeLast()
        Transaction.commit()
    }
}
