import AnimationBatch
import AnimationCore

/// An interruptible, scrubbable, reversible animator of layer properties: UIKit's
/// `UIViewPropertyAnimator` model on a ``LayerContext`` (the article <doc:InterruptibleAnimation> has
/// the state table; docs/property-animator.md the rules in full).
///
/// Its animations blocks change model values; the animator animates each change from the value
/// shown before the block (the presentation value) to the value after it, on its own clock:
/// running forwards or backwards, paused at any ``fractionComplete``, continued with another
/// timing function or pace. It does so with the engine's own timing — each change is a group
/// animation whose timing is the animator's state, re-added only when the state changes — so a
/// running animator costs a frame what any animation does, and every value it shows is the
/// engine's, exact at every tick.
///
/// **Fractions.** ``fractionComplete`` is the fraction of the duration that has passed, before
/// the timing curve: a change shows `from + (to − from)·curve(fraction)` (a spring's response
/// for a damping-ratio animator).
///
/// **The clock.** The animator runs on its context's time (``LayerContext/currentTime``):
/// started at a tick's time, it completes in the first tick at or after `start + duration`. A
/// layer with a time of its own (a speed, an offset) runs its part of the animation on its own
/// time, as any animation added to it does (semantics §2.7).
///
/// **Reduced motion.** The animator's animations run as written whatever
/// ``LayerContext/reducedMotion`` says: its host drives it (a gesture scrubs it), and an instant
/// one could not be scrubbed. A host that honours the setting gives it a shorter duration.
public final class PropertyAnimator {
    /// Where the animator is in its life (the state table is the DocC article's).
    public enum State: Sendable, Equatable {
        /// Not started, or finished: its blocks have not run, or its last run has ended.
        case inactive
        /// Started or paused: its blocks have run and its changes are animating.
        case active
        /// Stopped part-way: its changes hold their current values until ``finishAnimation(at:)``.
        case stopped
    }

    /// Where a run ended, as its completions are told.
    public enum Position: Sendable, Equatable {
        case start
        case end
        case current
    }

    /// The length of a run from fraction 0 to 1, in seconds of the context's time.
    public let duration: Double
    /// Where the animator is.
    public private(set) var state: State = .inactive

    /// Whether the animator is active and moving (not paused).
    public var isRunning: Bool {
        if case .running = motion, state == .active { return true }
        return false
    }

    /// Whether it runs toward its start: set while running, it turns around at the current
    /// fraction (the rest takes as long as the part already run did); reaching the start
    /// completes with ``Position/start`` and the model values are the values before the blocks.
    public var isReversed = false {
        didSet {
            guard isReversed != oldValue, state == .active, case .running(let from, let rate, let at) = motion else { return }
            let f = fraction(from: from, rate: rate, at: at, reversed: oldValue)
            install(.running(from: f, rate: rate, at: context.currentTime))
        }
    }

    /// The fraction of the duration that has passed (before the timing curve). Setting it
    /// scrubs a paused animator; on an inactive one it runs the blocks and pauses there (a value
    /// outside [0, 1] is clamped; NaN changes nothing). Setting it while running or stopped
    /// changes nothing (UIKit's rule: pause first).
    public var fractionComplete: Double {
        get {
            switch state {
            case .inactive: return 0
            case .stopped: return stoppedFraction
            case .active:
                switch motion {
                case .paused(let f): return f
                case .running(let from, let rate, let at): return fraction(from: from, rate: rate, at: at, reversed: isReversed)
                }
            }
        }
        set {
            guard !newValue.isNaN else { return }
            let f = min(max(newValue, 0), 1)
            switch state {
            case .inactive:
                activate()
                install(.paused(f))
            case .active:
                guard case .paused = motion else { return }
                install(.paused(f))
            case .stopped:
                return
            }
        }
    }

    /// The animator's context.
    public let context: LayerContext

    /// How the changes move: the curve of a timing-function animator, or a spring's damping
    /// ratio.
    enum Curve {
        case timing(TimingFunction)
        case spring(dampingRatio: Double)
    }

    /// What the animator's clock does now.
    enum Motion {
        /// Held at a fraction.
        case paused(Double)
        /// Moving from fraction `from` at context time `at`, `rate` fractions per second, toward
        /// 1 (or 0 when reversed).
        case running(from: Double, rate: Double, at: Double)
    }

    private let curve: Curve
    private var motion = Motion.paused(0)
    private var pendingBlocks: [() -> Void] = []
    private var completions: [(Position) -> Void] = []
    private(set) var tracks: [Track] = []
    private var stoppedFraction = 0.0
    /// Fractions per second of the running clock, 1/duration unless continued at another pace.
    private var rate: Double
    /// Bumped whenever the animations are re-added: callbacks of older ones are not this run's.
    private var generation = 0
    /// The root layer's custom key whose animation is the animator's clock (no dot: a dot would make it a key path).
    private let clockKey: String

    /// An animator of `duration` seconds that paces its changes with `timingFunction`.
    ///
    /// A duration that is not finite and positive becomes 0.25 s (Core Animation's default, §1.3),
    /// and `context.lastActionError` names `duration`.
    public init(duration: Double, timingFunction: TimingFunction, context: LayerContext, animations: (() -> Void)? = nil) {
        self.context = context
        self.duration = Self.checked(duration, context: context)
        curve = .timing(timingFunction)
        rate = 1 / self.duration
        clockKey = context.newAnimatorKey()
        if let animations { pendingBlocks.append(animations) }
    }

    /// An animator of `duration` seconds whose changes move as a spring of `dampingRatio` (1:
    /// critically damped, below 1 overshooting), settled to within 10⁻⁴ of the change by the end.
    /// A ratio that is not finite and positive becomes 1, and `context.lastActionError` names
    /// `dampingRatio`.
    public init(duration: Double, dampingRatio: Double, context: LayerContext, animations: (() -> Void)? = nil) {
        self.context = context
        self.duration = Self.checked(duration, context: context)
        if dampingRatio > 0 && dampingRatio.isFinite {
            curve = .spring(dampingRatio: dampingRatio)
        } else {
            context.report(AnimationError(field: "dampingRatio", reason: "must be finite and positive (got \(dampingRatio)); 1 is used"))
            curve = .spring(dampingRatio: 1)
        }
        rate = 1 / self.duration
        clockKey = context.newAnimatorKey()
        if let animations { pendingBlocks.append(animations) }
    }

    private static func checked(_ duration: Double, context: LayerContext) -> Double {
        guard duration > 0 && duration.isFinite else {
            context.report(AnimationError(field: "duration", reason: "must be finite and positive (got \(duration)); 0.25 s is used"))
            return MediaTiming.defaultDuration
        }
        return duration
    }

    // MARK: Blocks and completions

    /// Adds a block of changes: kept for the start while inactive; run at once while active, its
    /// changes animating over the rest of the run (from the current fraction to the end).
    /// Ignored while stopped.
    public func addAnimations(_ animations: @escaping () -> Void) {
        switch state {
        case .inactive: pendingBlocks.append(animations)
        case .stopped: return
        case .active:
            let f = fractionComplete
            record(animations, startingAt: f)
            reinstall(at: f)
        }
    }

    /// Adds a block called once when the current (or next) run ends, with where it ended; not
    /// called for a run stopped with `stopAnimation(true)`.
    public func addCompletion(_ completion: @escaping (Position) -> Void) {
        completions.append(completion)
    }

    // MARK: Transitions

    /// Starts or resumes: an inactive animator runs its blocks and moves from fraction 0 (from
    /// its end when reversed); a paused one resumes from its fraction. Changes nothing while
    /// running or stopped.
    public func startAnimation() {
        startAnimation(afterDelay: 0)
    }

    /// ``startAnimation()`` after `delay` seconds of the context's time, holding its fraction
    /// until then. A delay that is not finite and ≥ 0 changes nothing.
    public func startAnimation(afterDelay delay: Double) {
        guard delay >= 0 && delay.isFinite else { return }
        switch state {
        case .stopped: return
        case .active:
            guard case .paused(let f) = motion else { return }
            install(.running(from: f, rate: rate, at: context.currentTime + delay))
        case .inactive:
            activate()
            install(.running(from: isReversed ? 1 : 0, rate: rate, at: context.currentTime + delay))
        }
    }

    /// Pauses at the current fraction; on an inactive animator runs the blocks and pauses at 0.
    /// Changes nothing while stopped.
    public func pauseAnimation() {
        switch state {
        case .stopped: return
        case .inactive:
            activate()
            install(.paused(0))
        case .active:
            install(.paused(fractionComplete))
        }
    }

    /// Stops an active animator where it is: the model values become the values shown now and
    /// nothing moves. `withoutFinishing` false leaves it ``State/stopped``, to be finished with
    /// ``finishAnimation(at:)``; true makes it inactive at once, and its completions are not
    /// called. Changes nothing unless active.
    public func stopAnimation(_ withoutFinishing: Bool) {
        guard state == .active else { return }
        let f = fractionComplete
        setModel { track in track.value(at: f, duration: duration) }
        removeAnimations()
        if withoutFinishing {
            completions.removeAll()
            endRun()
        } else {
            stoppedFraction = f
            state = .stopped
        }
    }

    /// Finishes a stopped animator: the model values become the start values (before the
    /// blocks), the end values or stay as they are (`.current`), its completions are called with
    /// `position`, and it is inactive. Changes nothing unless stopped.
    public func finishAnimation(at position: Position) {
        guard state == .stopped else { return }
        switch position {
        case .start: setModel { $0.startValue }
        case .end: setModel { $0.endValue }
        case .current: break
        }
        complete(at: position)
    }

    /// Resumes a paused animator: the rest of the run takes `durationFactor` × ``duration``
    /// seconds, paced by `function` (nil keeps the animator's curve). With a new function the
    /// rest of each change runs from its current value along `function` (played backwards when
    /// reversed), so values stay continuous. Changes nothing unless paused, or when
    /// `durationFactor` is not finite and positive.
    public func continueAnimation(withTimingFunction function: TimingFunction?, durationFactor: Double) {
        guard state == .active, case .paused(let f) = motion, durationFactor > 0, durationFactor.isFinite else { return }
        let remaining = isReversed ? f : 1 - f
        rate = remaining > 0 ? remaining / (durationFactor * duration) : 1 / (durationFactor * duration)
        if let function {
            for track in tracks { track.rebase(at: f, reversed: isReversed, curve: .timing(function), forward: curve, duration: duration) }
        }
        install(.running(from: f, rate: rate, at: context.currentTime))
    }

    // MARK: Running the blocks

    /// Runs the pending blocks, recording their changes, and becomes active.
    private func activate() {
        state = .active
        rate = 1 / duration
        let blocks = pendingBlocks
        pendingBlocks.removeAll()
        for block in blocks { record(block, startingAt: 0) }
    }

    /// Runs `block` with actions disabled, recording each key it changes with the value shown
    /// before; each change becomes (or extends) a track from `start` to the end.
    private func record(_ block: () -> Void, startingAt start: Double) {
        var changed: [(layer: Layer, key: String, before: AnimationValue, velocity: AnimationValue?)] = []
        let previous = context.changeObserver
        // Under .preserveVelocity a key this animator does not animate yet starts at the
        // velocity it has (docs/retargeting.md), read with its value, before the change.
        let keepsVelocity = Transaction.retargetMode() == .preserveVelocity
        context.changeObserver = { [context, tracks] layer, key in
            guard !changed.contains(where: { $0.layer === layer && $0.key == key }),
                  let before = context.presentationValue(of: layer, forKey: key) else { return }
            let isNew = !tracks.contains { $0.layer === layer && $0.key == key }
            let velocity = keepsVelocity && isNew ? context.presentationVelocity(of: layer, forKey: key) : nil
            changed.append((layer, key, before, velocity))
        }
        Transaction.begin()
        Transaction.setDisableActions(true)
        block()
        Transaction.commit()
        context.changeObserver = previous
        for change in changed {
            guard let after = change.layer.engineModelValue(forKey: change.key), after.kind == change.before.kind else { continue }
            if let track = tracks.first(where: { $0.layer === change.layer && $0.key == change.key }) {
                track.retarget(at: start, from: change.before, to: after, curve: curve)
            } else {
                let track = Track(layer: change.layer, key: change.key, segment: Segment(low: start, high: 1, from: change.before,
                                                                                        to: after, curve: curve))
                if let velocity = change.velocity, velocity.components.contains(where: { $0 != 0 }) {
                    track.keepVelocity(velocity, duration: duration)
                }
                tracks.append(track)
            }
        }
    }

    // MARK: The clock in the engine

    /// The fraction of a running clock at the context's current time.
    private func fraction(from: Double, rate: Double, at: Double, reversed: Bool) -> Double {
        let elapsed = max(0, context.currentTime - at) * rate
        return reversed ? max(0, from - elapsed) : min(1, from + elapsed)
    }

    /// Re-adds the animations for `motion` as a running or paused one from fraction `f`.
    private func reinstall(at f: Double) {
        if case .running = motion { install(.running(from: f, rate: rate, at: context.currentTime)) } else { install(.paused(f)) }
    }

    /// Makes `motion` the animator's: each track's group and the clock's re-added with its timing.
    private func install(_ motion: Motion) {
        self.motion = motion
        generation += 1
        Transaction.begin()
        Transaction.setDisableActions(true)
        defer { Transaction.commit() }
        for track in tracks {
            guard let layer = track.layer else { continue }
            try? layer.add(group(track.childAnimations(duration: duration), motion: motion, on: layer), forKey: track.key,
                           delegate: nil, motion: .alwaysAnimate)
        }
        let root = context.rootLayer
        if root.value(forKey: clockKey) == nil { root.setValue(.scalar(0), forKey: clockKey) }
        var tick = BasicAnimation(keyPath: clockKey, from: 0.0, to: 1.0, duration: duration)
        tick.timingFunction = .linear
        tick.fillMode = .both
        try? root.add(group([tick], motion: motion, on: root), forKey: clockKey,
                      delegate: ClockDelegate(animator: self, generation: generation), motion: .alwaysAnimate)
    }

    /// A group of `children` (each placed within the run's [0, duration] by its own begin time)
    /// whose timing is `motion` on `layer`'s time now.
    ///
    /// - Paused at f: speed 0 at local time f·d of an autoreversing period, which reads f·d for
    ///   every f in [0, 1] (at 1 the mirrored half's end; a plain period would wrap it to 0).
    /// - Running forwards from f: a group of (1 − f)·d whose children begin f·d earlier, so its
    ///   local time u shows the run at f·d + u; its backwards fill holds f until it starts.
    /// - Running backwards from f: a group of f·d at negative speed, which begins at its end
    ///   (semantics §2.4) and fills back to f before its start and to 0 after its end.
    private func group(_ children: [any PropertyAnimation], motion: Motion, on layer: Layer) -> AnimationGroup {
        let d = duration
        var group = AnimationGroup(animations: children, duration: d)
        group.isRemovedOnCompletion = false
        group.fillMode = .both
        func localTime(_ t: Double) -> Double {
            let local = layer.convertTime(t, from: nil)
            // Begin time 0 means "now" when added (§1.5): a time that is 0 by arithmetic is kept.
            return local == 0 && layer.convertTime(context.currentTime, from: nil) != 0 ? -Double.leastNonzeroMagnitude : local
        }
        switch motion {
        case .paused(let f):
            group.speed = 0
            group.autoreverses = true
            group.timeOffset = f * d
            group.beginTime = localTime(context.currentTime)
        case .running(let f, let rate, let at):
            let span = isReversed ? f * d : (1 - f) * d
            // A run with nothing left completes in the first tick after (a tiny active duration).
            group.duration = span > 0 ? span : d * 1e-9
            group.speed = (isReversed ? -rate : rate) * d
            group.beginTime = localTime(at)
            if !isReversed {
                group.animations = children.map { child in
                    var shifted = child
                    shifted.timing.beginTime -= f * d
                    return shifted
                }
            }
        }
        return group
    }

    /// The clock's group finished: the run reached its end (or its start, reversed).
    fileprivate func clockFinished(generation: Int) {
        guard generation == self.generation, state == .active, case .running = motion else { return }
        let position: Position = isReversed ? .start : .end
        setModel { position == .start ? $0.startValue : $0.endValue }
        removeAnimations()
        complete(at: position)
    }

    private func complete(at position: Position) {
        let blocks = completions
        completions.removeAll()
        endRun()
        for block in blocks { block(position) }
    }

    private func endRun() {
        state = .inactive
        motion = .paused(0)
        tracks.removeAll()
        generation += 1
        rate = 1 / duration
        if context.rootLayer.value(forKey: clockKey) != nil {
            Transaction.begin()
            Transaction.setDisableActions(true)
            context.rootLayer.setValue(nil, forKey: clockKey)
            Transaction.commit()
        }
    }

    private func removeAnimations() {
        generation += 1
        for track in tracks { track.layer?.removeAnimation(forKey: track.key) }
        context.rootLayer.removeAnimation(forKey: clockKey)
    }

    /// Sets each track's model value to `value(track)`, with actions disabled.
    private func setModel(_ value: (Track) -> AnimationValue) {
        Transaction.begin()
        Transaction.setDisableActions(true)
        for track in tracks { track.layer?.setValue(value(track), forKey: track.key) }
        Transaction.commit()
    }
}

/// The clock animation's delegate: tells its animator when a run ended.
private final class ClockDelegate: AnimationDelegate {
    weak var animator: PropertyAnimator?
    let generation: Int

    init(animator: PropertyAnimator, generation: Int) {
        self.animator = animator
        self.generation = generation
    }

    func animationDidStart(_ animation: any Animation) {}

    func animationDidStop(_ animation: any Animation, finished: Bool) {
        if finished { animator?.clockFinished(generation: generation) }
    }
}

/// A part of a change: from `from` at fraction `low` to `to` at fraction `high` along `curve`,
/// shown up to fraction `end` (≤ `high`: a later change of the key took over there, and the part
/// below keeps its shape).
struct Segment {
    var low: Double
    var high: Double
    var end: Double
    var from: AnimationValue
    var to: AnimationValue
    var curve: PropertyAnimator.Curve
    /// Under ``RetargetMode/preserveVelocity``, for the part that replaced a moving animation:
    /// the spring's initial velocity and the carry's amplitude that make it start at that
    /// animation's velocity (``VelocityCarry``). 0 and nil otherwise.
    var initialVelocity = 0.0
    var carry: AnimationValue?

    init(low: Double, high: Double, from: AnimationValue, to: AnimationValue, curve: PropertyAnimator.Curve) {
        self.low = low
        self.high = high
        end = high
        self.from = from
        self.to = to
        self.curve = curve
    }

    /// Fits the segment to start at `velocity` (per second, ``VelocityCarry/fit(_:velocity:model:)``)
    /// within a run of `duration` seconds; unchanged where that cannot be done (a transform).
    mutating func keepVelocity(_ velocity: AnimationValue, key: String, duration d: Double) {
        guard let (main, amplitude) = VelocityCarry.fit(animation(key: key, duration: d, first: true, last: true),
                                                        velocity: velocity, model: to) else { return }
        initialVelocity = (main as? SpringAnimation)?.initialVelocity ?? 0
        carry = amplitude
    }

    /// ``animation(key:duration:first:last:)`` and its carry's two additive animations, if any.
    func animations(key: String, duration d: Double, first: Bool, last: Bool) -> [any PropertyAnimation] {
        let main = animation(key: key, duration: d, first: first, last: last)
        guard let carry else { return [main] }
        return [main] + VelocityCarry.carry(carry, like: main)
    }

    /// The animation that shows it within a run of `duration` seconds: begins at low·d, lasts
    /// (high − low)·d, cut at end·d by its repeat duration (whose end state is the value there,
    /// §2.6), fills back only if `first` and forwards only if `last`.
    func animation(key: String, duration d: Double, first: Bool, last: Bool) -> any PropertyAnimation {
        let span = (high - low) * d
        var animation: any PropertyAnimation
        switch curve {
        case .timing(let function):
            var basic = BasicAnimation(keyPath: key)
            basic.fromValue = from
            basic.toValue = to
            basic.timingFunction = function
            animation = basic
        case .spring(let ratio):
            var spring = SpringAnimation(keyPath: key)
            spring.fromValue = from
            spring.toValue = to
            // The undamped frequency from the ratio, so that the response is within 10⁻⁴ of the
            // end by the segment's end: the slowest decay is ζω0 below critical damping and
            // (ζ − √(ζ² − 1))ω0 above; at critical damping (1 + x)e⁻ˣ = 10⁻⁴ at x ≈ 11.6.
            let decay = ratio < 1 ? ratio : ratio - (ratio * ratio - 1).squareRoot()
            let omega = 11.7 / (max(decay, 1e-6) * span)
            spring.mass = 1
            spring.stiffness = omega * omega
            spring.damping = 2 * ratio * omega
            spring.allowsOverdamping = true
            spring.initialVelocity = initialVelocity
            animation = spring
        }
        animation.timing.beginTime = low * d
        animation.timing.duration = span
        if end < high { animation.timing.repeatDuration = (end - low) * d }
        animation.timing.fillMode = first ? (last ? .both : .backwards) : (last ? .forwards : .removed)
        return animation
    }

    /// The value at fraction `f` (held at its ends outside [low, end]), as the reference computes it
    /// (the carry, when there is one, added over the main animation's value).
    func value(at f: Double, key: String, duration d: Double) -> AnimationValue {
        let t = min(max(f, low), end) * d
        var value = from
        for (k, child) in animations(key: key, duration: d, first: true, last: true).enumerated() {
            value = ReferenceEvaluator.sample(child, at: t, base: value).value ?? (k == 0 ? from : value)
        }
        return value
    }
}

/// One key of one layer that the animator's blocks changed: its segments, in order, contiguous
/// from the fraction its first change began at up to 1.
final class Track {
    weak var layer: Layer?
    let key: String
    private(set) var segments: [Segment]

    init(layer: Layer, key: String, segment: Segment) {
        self.layer = layer
        self.key = key
        segments = [segment]
    }

    /// The value before the blocks (at the lowest fraction) and after them (at 1).
    var startValue: AnimationValue { segments[0].from }
    var endValue: AnimationValue { segments[segments.count - 1].to }

    /// The value at fraction `f`.
    func value(at f: Double, duration: Double) -> AnimationValue {
        let segment = segments.last { $0.low <= f } ?? segments[0]
        return segment.value(at: f, key: key, duration: duration)
    }

    /// The animations of its segments within a run of `duration` seconds (with their carries).
    func childAnimations(duration: Double) -> [any PropertyAnimation] {
        segments.enumerated().flatMap { k, segment in
            segment.animations(key: key, duration: duration, first: k == 0, last: k == segments.count - 1)
        }
    }

    /// The first segment made to start at `velocity` (``Segment/keepVelocity(_:key:duration:)``).
    func keepVelocity(_ velocity: AnimationValue, duration: Double) {
        segments[0].keepVelocity(velocity, key: key, duration: duration)
    }

    /// From fraction `f` on the key goes from `from` to `to` along `curve`; below `f` it stays
    /// as it was (the segment across `f` cut there).
    func retarget(at f: Double, from: AnimationValue, to: AnimationValue, curve: PropertyAnimator.Curve) {
        segments.removeAll { $0.low >= f }
        for k in segments.indices where segments[k].end > f { segments[k].end = f }
        segments.append(Segment(low: f, high: 1, from: from, to: to, curve: curve))
    }

    /// The rest of the change from fraction `f` — toward 1, or toward its start when `reversed`
    /// — re-paced along `curve` from the value shown at `f`: continuous there, with the same
    /// ends. Backwards, the curve is mirrored (its control points turned half a turn about
    /// (0.5, 0.5)), so that the rest follows it in time; the part above `f` goes on from the
    /// value at `f` along `forward`, should the animator turn around again.
    func rebase(at f: Double, reversed: Bool, curve: PropertyAnimator.Curve, forward: PropertyAnimator.Curve, duration: Double) {
        let current = value(at: f, duration: duration)
        if reversed {
            let low = segments[0].low
            guard f > low else { return }
            var mirrored = curve
            if case .timing(let function) = curve,
               let m = try? TimingFunction(controlPoints: 1 - function.x2, 1 - function.y2, 1 - function.x1, 1 - function.y1) {
                mirrored = .timing(m)
            }
            let end = endValue
            segments = [Segment(low: low, high: f, from: startValue, to: current, curve: mirrored)]
            if f < 1 { segments.append(Segment(low: f, high: 1, from: current, to: end, curve: forward)) }
        } else {
            guard f < 1 else { return }
            retarget(at: f, from: current, to: endValue, curve: curve)
        }
    }
}
