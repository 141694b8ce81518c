import AnimationBatch
import AnimationCore

/// Reduced motion, inside the engine (docs/reduced-motion.md): what a context does with the
/// animations that move things (``Layer/isMotion(forKey:)``) when its user asked for less motion.
///
/// Applied by the engine's timing when an animation is added — its clock runs faster, or its
/// active duration takes no time — so no animation object is rewritten per frame and every
/// frame costs what it did. Non-motion animations (opacity, colours, stroke ends…) are untouched.
/// The setting applies to animations added after it changes; those running keep their timing.
public enum ReducedMotion: Sendable, Equatable {
    /// Animations run as written (the default).
    case off
    /// Motion animations run on a clock sped up by 1 / factor (0 < factor ≤ 1): each takes
    /// `factor` of its time, its curve and values unchanged (its `speed` divided by `factor`).
    case scaleDurations(Double)
    /// Motion animations take no time: from their begin time they show the state their active
    /// duration ends in (`MediaTiming.isInstant`).
    case instant
}

/// How one animation follows its context's ``LayerContext/reducedMotion``
/// (``Layer/add(_:forKey:delegate:motion:)``).
public enum MotionPreference: Sendable, Equatable {
    /// Follow the context's `reducedMotion` where the animation is motion (the default).
    case system
    /// Run as written whatever `reducedMotion` says (a progress indicator that must move).
    case alwaysAnimate
    /// Always as ``ReducedMotion/instant``, motion or not.
    case neverAnimate
}

extension ReducedMotion {
    /// Whether it is a mode a context accepts (a scale factor in (0, 1]).
    var isValid: Bool {
        if case .scaleDurations(let factor) = self { return factor > 0 && factor <= 1 }
        return true
    }

    /// `animation` (as prepared for adding) with this mode applied to its top-level timing.
    /// A scale so small that the speed overflows runs as `.instant`.
    func apply(to animation: any Animation) -> any Animation {
        if self == .off { return animation }   // the common case: no copy of the animation
        var adjusted = animation
        switch self {
        case .off:
            return animation
        case .scaleDurations(let factor):
            let speed = animation.timing.speed / factor
            if speed.isFinite {
                adjusted.timing.speed = speed
            } else {
                adjusted.timing.isInstant = true
            }
        case .instant:
            adjusted.timing.isInstant = true
        }
        return adjusted
    }
}

extension Layer {
    /// The keys whose animations move things (semantics §12's geometry): their animations, and
    /// those of key paths under them, are motion.
    static let motionKeys: Set<String> = ["position", "bounds", "anchorPoint", "transform", "sublayerTransform", "zPosition", "path"]

    /// ``add(_:forKey:delegate:)`` with a per-animation preference: `.system` follows the
    /// context's ``LayerContext/reducedMotion`` where the animation is motion (a group is motion
    /// when any animation inside it is: its children share one timing), `.alwaysAnimate` runs it
    /// as written, `.neverAnimate` makes it instant.
    ///
    /// An animation made instant still delivers `animationDidStart` and
    /// `animationDidStop(finished: true)` in the first tick at or after its begin time, and
    /// honours its fill mode and `isRemovedOnCompletion`. ``animation(forKey:)`` returns it as the
    /// engine runs it (its speed scaled, or its timing instant).
    ///
    /// - Throws: as ``add(_:forKey:delegate:)``.
    public func add(_ animation: any Animation, forKey key: String?, delegate: (any AnimationDelegate)?,
                    motion: MotionPreference) throws {
        try animation.validate()
        guard let context, id != nil else {
            if let key { waitingAnimations.removeAll { $0.key == key } }
            waitingAnimations.append((animation, key, delegate, motion))
            return
        }
        try context.add(animation, to: self, forKey: key, delegate: delegate, motion: motion)
    }
}

extension LayerContext {
    /// The mode `animation` runs under on `layer` with `preference`.
    func motionMode(for animation: any Animation, on layer: Layer, preference: MotionPreference) -> ReducedMotion {
        switch preference {
        case .alwaysAnimate: return .off
        case .neverAnimate: return .instant
        case .system:
            guard reducedMotion != .off else { return .off }
            let type = type(of: layer)
            if let property = animation as? any PropertyAnimation {
                return type.isMotion(forKey: property.keyPath) ? reducedMotion : .off
            }
            return animation.leaves.contains { type.isMotion(forKey: $0.animation.keyPath) } ? reducedMotion : .off
        }
    }
}
