import AnimationCore

/// A layer's own time (semantics §2.2, §2.7): its `beginTime`, `speed` and `timeOffset`, and the
/// layer whose time it derives from.
public struct LayerTiming: Sendable, Equatable {
    /// The layer's `beginTime` in its parent's time.
    public var beginTime: Double
    /// The layer's `speed` (0 freezes its subtree: the pause of §2.8).
    public var speed: Double
    /// The layer's `timeOffset`.
    public var timeOffset: Double

    /// The identity timing: beginTime 0, speed 1, timeOffset 0 (semantics §2.1).
    public init(beginTime: Double = 0, speed: Double = 1, timeOffset: Double = 0) {
        self.beginTime = beginTime
        self.speed = speed
        self.timeOffset = timeOffset
    }

    /// Whether the layer's time is its parent's (beginTime 0, speed 1, timeOffset 0).
    public var isIdentity: Bool { beginTime == 0 && speed == 1 && timeOffset == 0 }

    /// The layer's local time at parent time `parentTime`: `(tp − b) · s + o` (semantics §2.2).
    /// A layer's time is not clipped or repeated: a layer has no active duration of its own.
    @inlinable
    public func localTime(atParentTime parentTime: Double) -> Double {
        (parentTime - beginTime) * speed + timeOffset
    }

    /// The parent time at which the layer's local time is `localTime`: the inverse of
    /// ``localTime(atParentTime:)``. A frozen layer (speed 0) shows `timeOffset` at every parent
    /// time; its inverse is taken as `beginTime`, the parent time at which it froze [inferred].
    @inlinable
    public func parentTime(atLocalTime localTime: Double) -> Double {
        speed == 0 ? beginTime : (localTime - timeOffset) / speed + beginTime
    }
}
