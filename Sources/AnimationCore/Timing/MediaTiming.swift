import Foundation

/// What an animation shows outside its active duration: Core Animation's `fillMode`
/// (semantics §2.6).
public enum FillMode: String, Sendable, CaseIterable {
    /// Nothing before the start or after the end: the model value shows (the default).
    case removed
    /// After the end, hold the final state (visible only when the animation is not removed on
    /// completion, semantics §1.4).
    case forwards
    /// Before the start, hold the initial state.
    case backwards
    /// Both of the above.
    case both

    /// True for `.backwards` and `.both`.
    public var fillsBackwards: Bool { self == .backwards || self == .both }
    /// True for `.forwards` and `.both`.
    public var fillsForwards: Bool { self == .forwards || self == .both }
}

/// Where a parent time falls relative to a timing's active duration (semantics §2.4).
public enum TimingPhase: String, Sendable, CaseIterable {
    /// Before the active duration begins.
    case before
    /// Within the active duration.
    case active
    /// After the active duration has ended.
    case after
}

/// The timing properties of an animation, a group or a layer: Core Animation's `CAMediaTiming`
/// protocol as a value (semantics §2).
///
/// The properties keep Core Animation's names and defaults (§2.1). Nothing is checked when a
/// property is set; ``validate()`` (called when an animation is added or compiled) rejects
/// values that have no meaning, naming the field:
///
/// | property | rejected | defined outcome |
/// |---|---|---|
/// | `beginTime`, `timeOffset` | NaN, ±∞ | — |
/// | `duration` | NaN, +∞ | ≤ 0 (and −∞) means "the default": 0.25 s (§1.3); with `autoreverses`, above half the largest Double: that half (the period stays finite) |
/// | `speed` | NaN, ±∞ | 0 pauses (§2.4), < 0 plays backwards |
/// | `repeatCount` | NaN, < 0 | 0 means one iteration, +∞ repeats forever; a count whose active duration overflows is infinite |
/// | `repeatDuration` | NaN, < 0 | 0 means "use repeatCount", +∞ repeats forever |
public struct MediaTiming: Sendable, Hashable {
    /// When the timing starts, in its parent's time (semantics §2.2). For an animation added to a
    /// layer, 0 means "now" (§1.5); inside a group it is relative to the group's start.
    public var beginTime: Double
    /// The length of one iteration in seconds. ≤ 0 means ``defaultDuration`` (§1.3).
    public var duration: Double
    /// How fast local time runs relative to the parent's (§2.2). 0 pauses, negative runs backwards.
    public var speed: Double
    /// An offset added to local time; within the active duration it wraps (§2.4).
    public var timeOffset: Double
    /// How many times the iteration runs; fractional counts end part-way, `.infinity` never ends,
    /// 0 means once (§2.3, §16).
    public var repeatCount: Double
    /// How long to repeat, in local seconds; overrides ``repeatCount`` when > 0 (§2.3).
    public var repeatDuration: Double
    /// Whether each iteration plays forwards and then backwards (§2.3, §2.5).
    public var autoreverses: Bool
    /// What to show outside the active duration (§2.6).
    public var fillMode: FillMode
    /// Whether the active duration takes no time (reduced motion's `.instant`, docs/reduced-motion.md;
    /// not Core Animation's): before `beginTime` the timing is before its start, from `beginTime`
    /// on it is after its end, showing the state its active duration ends in (the forwards fill's,
    /// §2.6, which `fillMode` and removal on completion govern as after any end; a backwards fill
    /// shows the same state before it). With speed 0 it stays active, frozen in that state.
    public var isInstant: Bool

    /// A timing with Core Animation's defaults (semantics §2.1) unless given.
    public init(beginTime: Double = 0, duration: Double = 0, speed: Double = 1, timeOffset: Double = 0,
                repeatCount: Double = 0, repeatDuration: Double = 0, autoreverses: Bool = false,
                fillMode: FillMode = .removed, isInstant: Bool = false) {
        self.isInstant = isInstant
        self.beginTime = beginTime
        self.duration = duration
        self.speed = speed
        self.timeOffset = timeOffset
        self.repeatCount = repeatCount
        self.repeatDuration = repeatDuration
        self.autoreverses = autoreverses
        self.fillMode = fillMode
    }

    /// The duration an animation with `duration ≤ 0` gets when added outside a transaction that
    /// sets one: `CATransaction.animationDuration`'s default, 0.25 s (semantics §1.3, §9.2).
    public static let defaultDuration = 0.25

    /// Checks every property (see the table in the type's documentation).
    ///
    /// - Throws: ``AnimationError`` naming the first invalid property.
    public func validate() throws {
        try AnimationError.requireFinite(beginTime, "beginTime")
        try AnimationError.requireNotNaN(duration, "duration")
        if duration == .infinity {
            throw AnimationError(field: "duration", reason: "must be finite (got inf); use repeatCount = .infinity to run forever")
        }
        try AnimationError.requireFinite(speed, "speed")
        try AnimationError.requireFinite(timeOffset, "timeOffset")
        try AnimationError.requireNotNaN(repeatCount, "repeatCount")
        if repeatCount < 0 {
            throw AnimationError(field: "repeatCount", reason: "must be ≥ 0 (got \(repeatCount))")
        }
        try AnimationError.requireNotNaN(repeatDuration, "repeatDuration")
        if repeatDuration < 0 {
            throw AnimationError(field: "repeatDuration", reason: "must be ≥ 0 (got \(repeatDuration))")
        }
    }

    // MARK: Derived durations (semantics §2.3)

    /// `duration`, or ``defaultDuration`` when `duration ≤ 0` (semantics §1.3). Evaluation always
    /// uses this, so an animation evaluated without being added behaves as if added outside a
    /// transaction. An autoreversing timing's is at most half the largest Double, so that its
    /// period `2d` stays finite: an infinite period made the fold's `k · P` a `0 · ∞` (NaN values
    /// from finite input, found by the fuzzer), and a duration beyond 9e307 s never reaches its
    /// reversed half either way.
    public var effectiveDuration: Double {
        let d = duration > 0 ? duration : Self.defaultDuration
        return autoreverses ? min(d, .greatestFiniteMagnitude / 2) : d
    }

    /// One repeat cycle, including the reversed half: `d · (autoreverses ? 2 : 1)` (semantics §2.3).
    public var iterationDuration: Double { effectiveDuration * (autoreverses ? 2 : 1) }

    /// The active duration in local time (semantics §2.3):
    /// `repeatDuration` if > 0, else `repeatCount · P` if `repeatCount` > 0, else `P`. It is
    /// `.infinity` for infinite repeats (and for finite ones whose product overflows).
    public var activeDuration: Double {
        if repeatDuration > 0 { return repeatDuration }
        if repeatCount > 0 { return repeatCount * iterationDuration }
        return iterationDuration
    }

    /// The parent time at which the active duration ends, `beginTime + activeDuration / |speed|`;
    /// `.infinity` when it never ends (speed 0, infinite repeats). A negative speed plays the
    /// active duration backwards over the same parent times, [beginTime, this) (semantics §2.4:
    /// active iff `−AD < e ≤ 0` with `e = (tp − b)·s`, which is `b ≤ tp < b + AD/|s|`).
    public var activeEndTimeInParent: Double {
        if isInstant && speed != 0 { return beginTime }
        if speed == 0 || !activeDuration.isFinite { return .infinity }
        return beginTime + activeDuration / abs(speed)
    }

    // MARK: Time conversion (semantics §2.2)

    /// The header formula `t = (tp − beginTime) · speed + timeOffset` (semantics §2.2): the local
    /// time of a layer whose parent's time is `parentTime`. Layers use this linear map only
    /// (they neither repeat nor fill); it is what `convertTime(_:from:)` composes (§2.7).
    public func localTime(fromParent parentTime: Double) -> Double {
        (parentTime - beginTime) * speed + timeOffset
    }

    /// The inverse of ``localTime(fromParent:)``: `(t − timeOffset) / speed + beginTime`. With speed
    /// 0 every parent time maps to the same local time, and this returns `beginTime`.
    public func parentTime(fromLocal localTime: Double) -> Double {
        speed == 0 ? beginTime : (localTime - timeOffset) / speed + beginTime
    }

    /// The local time of the innermost of a chain of timings (root first) at `time` in the root's
    /// parent space: `map_n(…map_1(map_0(time)))` (semantics §2.7).
    public static func localTime(_ time: Double, through chain: [MediaTiming]) -> Double {
        chain.reduce(time) { $1.localTime(fromParent: $0) }
    }

    /// The inverse of ``localTime(_:through:)``: the root-parent time at which the innermost timing
    /// of `chain` reads `localTime`.
    public static func parentTime(_ localTime: Double, through chain: [MediaTiming]) -> Double {
        chain.reversed().reduce(localTime) { $1.parentTime(fromLocal: $0) }
    }

    // MARK: Phase, fill and fold (semantics §2.4–§2.6)

    /// Where `parentTime` falls and what the timing shows there (semantics §2.4–§2.6).
    ///
    /// - `e = (parentTime − beginTime) · speed`. For speed > 0 the phase is before (`e < 0`),
    ///   active (`0 ≤ e < AD`) or after (`e ≥ AD`); for speed < 0 it is before (`e > 0`), active
    ///   (`−AD < e ≤ 0`) or after (`e ≤ −AD`); speed 0 is always active at `e = 0` (a pause, §2.4).
    /// - Active: local time `t = (e + timeOffset) mod AD` in [0, AD) (in (0, AD] for negative
    ///   speeds, so that reversed playback starts at the end), then the fold of §2.5.
    /// - Before with backwards fill: the state at `e = 0`; after with forwards fill: the state at
    ///   the end of the active duration, end-inclusive (a fractional repeat count stops at that
    ///   fraction; an integral count with autoreverse ends on the start value). Otherwise
    ///   `contributes` is false and the model value shows.
    /// - A NaN `parentTime` is treated as "before the start" with no fill: no contribution.
    ///   `±∞` fall before or after like any other time; in an infinitely repeating timing an
    ///   infinite local time has no defined iteration, so it contributes nothing.
    public func state(atParentTime parentTime: Double) -> TimingState {
        let activeDuration = self.activeDuration
        if parentTime.isNaN { return .none(.before) }
        if isInstant { return instantState(atParentTime: parentTime) }
        if speed == 0 {
            // A pause (§2.4, §2.8): local time is timeOffset, whatever the parent time.
            return fold(activeTime: wrap(timeOffset, activeDuration, endInclusive: false), phase: .active)
        }
        let elapsed = (parentTime - beginTime) * speed
        if speed > 0 {
            if elapsed < 0 {
                guard fillMode.fillsBackwards else { return .none(.before) }
                return fold(activeTime: wrap(timeOffset, activeDuration, endInclusive: false), phase: .before)
            }
            if elapsed < activeDuration {
                return fold(activeTime: wrap(elapsed + timeOffset, activeDuration, endInclusive: false), phase: .active)
                    .moving(speed: speed, duration: effectiveDuration, autoreverses: autoreverses)
            }
            guard fillMode.fillsForwards else { return .none(.after) }
            return fold(activeTime: wrap(activeDuration + timeOffset, activeDuration, endInclusive: true), phase: .after)
        }
        // speed < 0: the active duration is crossed from its end toward its start (§2.4, inferred).
        if elapsed > 0 {
            guard fillMode.fillsBackwards else { return .none(.before) }
            return fold(activeTime: wrap(timeOffset, activeDuration, endInclusive: true), phase: .before)
        }
        if elapsed > -activeDuration {
            return fold(activeTime: wrap(elapsed + timeOffset, activeDuration, endInclusive: true), phase: .active)
                .moving(speed: speed, duration: effectiveDuration, autoreverses: autoreverses)
        }
        guard fillMode.fillsForwards else { return .none(.after) }
        return fold(activeTime: wrap(timeOffset - activeDuration, activeDuration, endInclusive: false), phase: .after)
    }

    /// The state the active duration ends in: the forwards fill's of §2.6 (`t = AD + o`, end
    /// inclusive; `o − AD` for negative speeds), as if the timing were not instant.
    public var endState: TimingState {
        let activeDuration = self.activeDuration
        if speed < 0 { return fold(activeTime: wrap(timeOffset - activeDuration, activeDuration, endInclusive: false), phase: .after) }
        return fold(activeTime: wrap(activeDuration + timeOffset, activeDuration, endInclusive: true), phase: .after)
    }

    /// ``state(atParentTime:)`` of an instant timing (``isInstant``): before its begin time (by
    /// the sign of the speed, §2.4), else after, both showing ``endState`` where they fill.
    private func instantState(atParentTime parentTime: Double) -> TimingState {
        var end = endState
        if speed == 0 {
            end.phase = .active
            return end
        }
        let elapsed = (parentTime - beginTime) * speed
        let before = speed > 0 ? elapsed < 0 : elapsed > 0
        end.phase = before ? .before : .after
        guard before ? fillMode.fillsBackwards : fillMode.fillsForwards else { return .none(end.phase) }
        return end
    }

    /// `x` wrapped into [0, AD) — or (0, AD] when `endInclusive` — for a finite active duration;
    /// unchanged for an infinite one (the fold's own floor handles any sign then).
    private func wrap(_ x: Double, _ activeDuration: Double, endInclusive: Bool) -> Double {
        guard activeDuration.isFinite else { return x }
        var t = fmod(x, activeDuration)  // exact, sign of x
        if t < 0 { t += activeDuration }
        if endInclusive && t == 0 { return activeDuration }
        if !endInclusive && t >= activeDuration { return 0 }
        return t
    }

    /// Folds an active local time `t` into one iteration (semantics §2.5):
    /// `k = floor(t / P)`, `u = t − k·P`, mirrored in the reversed half, `p = u / d`. At `t = AD`
    /// (the end, reached by a forwards fill or by reversed playback) `u` is the end of the last
    /// iteration instead of the start of the next.
    private func fold(activeTime t: Double, phase: TimingPhase) -> TimingState {
        guard t.isFinite else { return .none(phase) }
        let d = effectiveDuration
        let period = iterationDuration
        let activeDuration = self.activeDuration
        var iteration: Double
        var u: Double
        if activeDuration.isFinite && t >= activeDuration {
            // The end: the fraction of the last cycle comes from the count itself, so that it
            // stays exact for counts far beyond 2⁵³ (1e300 cycles still end on u = d).
            let cycles = repeatDuration > 0 ? repeatDuration / period : (repeatCount > 0 ? repeatCount : 1)
            var lastCycle = cycles - cycles.rounded(.down)
            if lastCycle == 0 { lastCycle = 1 }
            iteration = max(0, cycles.rounded(.up) - 1)
            u = lastCycle * period
        } else {
            iteration = (t / period).rounded(.down)
            u = t - iteration * period
        }
        // Before the first iteration (reversed playback of an infinite repeat reaches negative local
        // times) no iteration has completed: k counts from 0.
        iteration = max(0, iteration)
        // Rounding can leave u a hair outside [0, P]; clamp so the progress stays in [0, 1].
        u = min(max(u, 0), period)
        if autoreverses && u >= d { u = 2 * d - u }
        let progress = min(max(u / d, 0), 1)
        return TimingState(phase: phase, contributes: true, activeTime: t, iteration: iteration,
                           basicTime: progress * d, progress: progress)
    }
}

/// The state of a ``MediaTiming`` at one parent time (semantics §2.4–§2.6).
public struct TimingState: Sendable, Hashable {
    /// Before, within or after the active duration.
    public var phase: TimingPhase
    /// Whether anything is shown: true in the active phase and in a filled before/after phase.
    /// When false the other fields are 0 and the model value shows.
    public var contributes: Bool
    /// Local time within the active duration, after the offset wrap (§2.4).
    public var activeTime: Double
    /// Completed iterations `k` (used by cumulative animations, §4.4); a whole number ≥ 0.
    public var iteration: Double
    /// Time within the iteration in seconds, in [0, duration], after the autoreverse mirror (§2.5),
    /// before any timing function.
    public var basicTime: Double
    /// `basicTime / duration`, in [0, 1]: the input of the timing function (§2.5, §16).
    public var progress: Double
    /// d``progress``/dt per second of the parent's time just after this instant (velocity,
    /// docs/velocity.md): `±speed / duration` while active and moving — negative in an
    /// autoreversed half played forwards, or a forward half played at a negative speed — and 0
    /// in a fill, in a pause (speed 0) and for an instant timing. Where the direction turns (the
    /// end of a forward half) it is the rate of the half that follows in the direction of play.
    /// Through groups (``ReferenceEvaluator/state(of:at:isRemovedOnCompletion:)``) it is per
    /// second of the top-level parent's time.
    public var progressRate: Double

    public init(phase: TimingPhase, contributes: Bool, activeTime: Double, iteration: Double,
                basicTime: Double, progress: Double, progressRate: Double = 0) {
        self.phase = phase
        self.contributes = contributes
        self.activeTime = activeTime
        self.iteration = iteration
        self.basicTime = basicTime
        self.progress = progress
        self.progressRate = progressRate
    }

    /// This active state with its ``progressRate`` for a timing of `speed`, `duration` and
    /// `autoreverses` (its fold read again: which half the play moves into).
    func moving(speed: Double, duration d: Double, autoreverses: Bool) -> TimingState {
        guard contributes else { return self }
        var copy = self
        var reversed = false
        if autoreverses {
            // The time within the cycle before the mirror, as the fold computed it: u ∈ [0, 2d]
            // (from the unclamped cycle: reversed play of an infinite repeat reaches negative
            // local times, where the completed iterations read 0).
            let period = 2 * d
            let u = activeTime - (activeTime / period).rounded(.down) * period
            // Forward play enters the reversed half at u = d; backward play (speed < 0) leaves a
            // cycle's start (u = 0, after the first) into the previous cycle's reversed half.
            reversed = speed > 0 ? u >= d : (u > d || (u <= 0 && activeTime > 0))
        }
        copy.progressRate = (reversed ? -speed : speed) / d
        return copy
    }

    /// No contribution in `phase`.
    static func none(_ phase: TimingPhase) -> TimingState {
        TimingState(phase: phase, contributes: false, activeTime: 0, iteration: 0, basicTime: 0, progress: 0)
    }
}
