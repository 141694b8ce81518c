/// Animations that run together in one timeline: Core Animation's `CAAnimationGroup` (semantics §7).
///
/// Children run concurrently in the group's time: a child's parent time is the group's basic local
/// time in seconds, after the group's repeat, autoreverse and timing function (§2.7). Children are
/// **clipped**, not scaled, to the group's duration: a 10 s child in a 5 s group shows its first
/// 5 s. Children's `isRemovedOnCompletion` is ignored; their fill modes act within the group's
/// active range, and outside it (unless the group fills) they show nothing.
public struct AnimationGroup: Animation {
    /// The children, each a ``PropertyAnimation`` or another group.
    public var animations: [any Animation]
    public var timing: MediaTiming
    public var timingFunction: TimingFunction?
    public var isRemovedOnCompletion: Bool

    /// A group of `animations` with Core Animation's defaults (duration 0 becomes 0.25 s when added,
    /// semantics §1.3).
    public init(animations: [any Animation] = [], duration: Double = 0) {
        self.animations = animations
        self.timing = MediaTiming(duration: duration)
        self.timingFunction = nil
        self.isRemovedOnCompletion = true
    }

    /// Checks the group's timing and every child, naming a child's field as
    /// `animations[i].field`.
    ///
    /// - Throws: ``AnimationError`` naming the first invalid field, or `animations[i]` for a child
    ///   of a type this module does not evaluate.
    public func validate() throws {
        try timing.validate()
        for (i, child) in animations.enumerated() {
            do {
                guard child is any PropertyAnimation || child is AnimationGroup else {
                    throw AnimationError(field: "", reason: "\(type(of: child)) is not an animation this engine evaluates")
                }
                try child.validate()
            } catch let error as AnimationError {
                throw error.prefixed(by: "animations[\(i)]")
            }
        }
    }

    /// Resolves the group's own duration and its children's (semantics §1.3).
    public func resolvingDefaultDuration(_ duration: Double) -> AnimationGroup {
        var copy = self
        if !(copy.timing.duration > 0) { copy.timing.duration = duration }
        copy.animations = animations.map { $0.resolvingDefaultDuration(duration) }
        return copy
    }
}
