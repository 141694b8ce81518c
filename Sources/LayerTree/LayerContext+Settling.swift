import AnimationBatch

// Settle queries (docs/settling.md): a host skips the frames in which nothing can change, and a
// test runs a tree to its end by jumping from event to event instead of waiting on a clock.
extension LayerContext {
    /// True when, without new input, no presentation value changes at any later tick and no
    /// callback is pending: no animation runs or waits to begin, no delegate's `animationDidStart`
    /// or `animationDidStop`, transaction completion or `display()` waits for a tick. An
    /// animation that has ended but is kept by `fillMode` forwards with `isRemovedOnCompletion`
    /// false is settled; so is one on a frozen clock (a layer or animation with speed 0,
    /// semantics §2.8) once a tick has started it. One that repeats forever on a moving clock is
    /// not, ever (``hasInfiniteAnimations``).
    ///
    /// Costs nothing to speak of for a tree whose animations were removed on completion (the
    /// default): a settled tree of 10,000 layers answers in about 40 ns where its tick takes about
    /// 100 µs, so a host asks before each frame and skips the tick. Animations kept by a forwards
    /// fill are passed over one by one (about 1.5 ns each).
    public var isSettled: Bool {
        if !displayList.isEmpty || TransactionStack.current.hasCompletionDue { return false }
        return store.isSettled(atFrameTime: currentTime)
    }

    /// The earliest time later than ``currentTime`` at which an animation in the tree begins or
    /// ends its active duration (semantics §2.4; inside groups too, §7), or at which a pending
    /// callback becomes due (one that waits for the next tick: `currentTime.nextUp`); nil when
    /// there is none. A host that is settled until then can sleep; a test ticks at each such time
    /// in turn and sees every start and stop, each in the tick at the time it happens.
    ///
    /// Exact for top-level animations: a tick at the time returned sees the animation in its new
    /// phase, a tick one Double earlier does not. Inside groups, exact to a few ulps.
    public var nextEventTime: Double? {
        if !displayList.isEmpty || TransactionStack.current.hasCompletionDue { return currentTime.nextUp }
        return store.nextEventTime(after: currentTime)
    }

    /// True while some animation in the tree is in its active duration on a moving clock: its
    /// value may change at every tick. When it is false, nothing changes before
    /// ``nextEventTime`` (nil: before new input), so a host skips every frame until then:
    ///
    /// ```swift
    /// if !context.hasRunningAnimations, let next = context.nextEventTime, now < next { return }
    /// if !context.hasRunningAnimations, context.nextEventTime == nil { return }   // until new input
    /// context.tick(at: now)
    /// ```
    public var hasRunningAnimations: Bool {
        store.hasRunningAnimations(atFrameTime: currentTime)
    }

    /// True while some animation in the tree repeats forever (an infinite `repeatCount` or
    /// `repeatDuration`) on a clock that moves: ``isSettled`` then stays false. One whose time
    /// overflowed past its end by the last tick (a speed near 1e308) has ended and does not count.
    public var hasInfiniteAnimations: Bool {
        store.hasInfiniteAnimations
    }
}
