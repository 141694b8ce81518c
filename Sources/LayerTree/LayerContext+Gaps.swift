import AnimationBatch
import AnimationCore

/// What a long gap between two ticks means (``LayerContext/gapPolicy``).
///
/// Every animation is a function of time, so the engine catches up exactly after any gap: a
/// 10-second stall is as exact as a 16 ms frame, and every animation that began or ended in it
/// reports its start and stop in the tick after it. Where a stall should rather *pause* the
/// motion — a game that hitched, a server that fell behind, a tab that was in the background —
/// a policy lets the context's time fall behind the host's by the part of the gap it drops.
public enum GapPolicy: Sendable, Equatable {
    /// The context's time is the host's: no gap is dropped (the default; Core Animation's).
    case exact
    /// A tick advances the context's time by at most `maximumStep` seconds: a longer gap counts
    /// as `maximumStep`, the rest is dropped (the motion resumes where it stopped).
    case clamp(maximumStep: Double)
    /// A gap longer than `threshold` seconds counts as `step` seconds (lag smoothing, as
    /// GSAP's `lagSmoothing(threshold, adjustedLag)`): a hitch becomes one ordinary frame,
    /// while gaps up to the threshold pass exactly.
    case smoothLag(threshold: Double, step: Double)

    /// The time a gap of `gap` seconds advances the context by.
    func advance(for gap: Double) -> Double {
        switch self {
        case .exact: return gap
        case .clamp(let maximumStep): return min(gap, maximumStep)
        case .smoothLag(let threshold, let step): return gap > threshold ? step : gap
        }
    }
}

extension LayerContext {
    /// What a long gap between ticks means (``GapPolicy``; ``GapPolicy/exact`` by default).
    ///
    /// Under a policy other than `.exact`, ``tick(at:)`` takes the host's time and the context
    /// keeps its own: ``currentTime`` advances by the part of each gap the policy keeps, and
    /// ``timeLag`` (host time − context time) grows by the part it drops. Only gaps during which
    /// something ran count as lag (``hasRunningAnimations`` after the tick before): a gap in which
    /// nothing moved is idle time, kept exactly, so a host that skips settled frames
    /// (``nextEventTime`` is in the context's time: sleep until `nextEventTime + timeLag`) sees
    /// its animations begin on time. A host time earlier than the last one passes unchanged.
    ///
    /// Effect on callbacks: a dropped part of a gap did not happen for the tree. An animation
    /// that would have ended during a 10-second stall under `.exact` (its stop delivered in the
    /// tick after it) ends later instead, after it has run its remaining duration in context
    /// time; every start and stop is still delivered exactly once, in order (semantics §8.1).
    /// Animations added between ticks begin at ``currentTime``, the context's time.
    ///
    /// Set with ``setGapPolicy(_:)``.
    public var gapPolicy: GapPolicy { gapState.policy }

    /// Sets ``gapPolicy``, from the next tick on.
    ///
    /// - Throws: `AnimationError` naming `maximumStep` or `step` when it is not positive and
    ///   finite, or `threshold` when it is negative or not finite; the policy is then unchanged.
    public func setGapPolicy(_ policy: GapPolicy) throws {
        switch policy {
        case .exact: break
        case .clamp(let maximumStep):
            guard maximumStep > 0, maximumStep.isFinite else {
                throw AnimationError(field: "maximumStep", reason: "must be positive and finite (got \(maximumStep))")
            }
        case .smoothLag(let threshold, let step):
            guard threshold >= 0, threshold.isFinite else {
                throw AnimationError(field: "threshold", reason: "must be ≥ 0 and finite (got \(threshold))")
            }
            guard step > 0, step.isFinite else {
                throw AnimationError(field: "step", reason: "must be positive and finite (got \(step))")
            }
        }
        gapState.policy = policy
    }

    /// How far the context's time has fallen behind the host's: the parts of gaps that
    /// ``gapPolicy`` dropped (0 under ``GapPolicy/exact``). Host time = ``currentTime`` + this.
    public var timeLag: Double { gapState.lag }

    /// The context's time for a tick at host time `hostTime` (``gapPolicy``), remembering it.
    func contextTime(forHostTime hostTime: Double) -> Double {
        defer { gapState.lastHostTime = hostTime }
        guard gapState.policy != .exact, let last = gapState.lastHostTime, hostTime > last else {
            return hostTime - gapState.lag
        }
        let gap = hostTime - last
        let kept = gapState.policy.advance(for: gap)
        if kept < gap && store.hasRunningAnimations(atFrameTime: currentTime) {
            gapState.lag += gap - kept
        }
        return hostTime - gapState.lag
    }
}

/// A context's gap policy and what it has dropped so far.
struct GapState {
    var policy = GapPolicy.exact
    var lag = 0.0
    var lastHostTime: Double?
}
