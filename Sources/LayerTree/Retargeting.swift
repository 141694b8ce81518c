import AnimationBatch
import AnimationCore

// MARK: Retargeting that keeps velocity (docs/retargeting.md)

/// What an action's animation that replaces a running animation of the same key starts from
/// (docs/retargeting.md), set per transaction (``Transaction/setRetargetMode(_:)``).
public enum RetargetMode: Sendable, Equatable {
    /// Core Animation: the new animation starts from the presentation value, at the speed its own
    /// curve gives it — the old velocity is dropped (a kink where a change interrupts a motion).
    case restart
    /// The new animation starts from the presentation value *and* its velocity: value and
    /// velocity are continuous at the change (C¹), and the key still reaches the new model value
    /// exactly when the new animation ends. A spring takes the velocity as `initialVelocity`; a
    /// timing-curve animation by a carry term `A·p·(1 − p)²` that vanishes, with its slope, by
    /// the end (docs/retargeting.md gives the formula and why).
    case preserveVelocity
}

extension Transaction {
    /// How an action that replaces a running animation of its key starts (``RetargetMode``): the
    /// innermost level's setting, else ``RetargetMode/restart`` (Core Animation's behaviour).
    public static func retargetMode() -> RetargetMode {
        TransactionStack.current.retargetMode
    }

    /// Sets the current level's ``retargetMode()``: the changes made in this transaction (and in
    /// those nested in it, unless they set their own) run their actions under `mode`.
    public static func setRetargetMode(_ mode: RetargetMode) {
        let stack = TransactionStack.current
        stack.hasSetRetargetMode = true
        stack.currentLevel().retargetMode = mode
    }
}

/// Building the animation that keeps a velocity (docs/retargeting.md).
enum VelocityCarry {
    /// The timing function of the carry's falling half: `x(s) = s` exactly and `y(s) = 2s² − s³`,
    /// so that `linear − this = p·(1 − p)²` — the Hermite basis that starts at 0 with slope 1 and
    /// ends at 0 with slope 0.
    static let falling = try! TimingFunction(controlPoints: 1.0 / 3, 0, 2.0 / 3, 2.0 / 3)   // constants in range

    /// Kinds whose values compose componentwise (additive = sum): a carry term can be added.
    static func carries(_ kind: ValueKind) -> Bool {
        kind != .transform && kind != .affineTransform
    }

    /// `main` — an animation from the presentation value to `model` (its `fromValue` set; a
    /// spring whose `initialVelocity` is still free), with its duration resolved — fitted to start
    /// at `velocity` (per second of the time it runs in): the main animation to add (a spring
    /// with the `initialVelocity` that best matches the velocity: its start rate is linear in it,
    /// so the best is the projection onto its own direction of travel) and the amplitude `A` of
    /// the carry that adds what its start rate still misses, `w`: `A = w / p′` for the timing's
    /// progress rate `p′` (nil when nothing is missed, to rounding). Nil when it cannot be done
    /// (a transform; a paused, infinite or empty timing).
    static func fit(_ main: any PropertyAnimation, velocity: AnimationValue, model: AnimationValue)
        -> (main: any PropertyAnimation, amplitude: AnimationValue?)? {
        guard carries(velocity.kind), velocity.kind == model.kind else { return nil }
        var main = main
        var start = main.timing
        start.beginTime = 0
        let state = start.state(atParentTime: 0)
        guard state.contributes, state.progressRate != 0, start.activeDuration.isFinite else { return nil }
        let v = velocity.components
        func startRate(_ animation: any PropertyAnimation) -> [Double]? {
            var prepared = animation
            prepared.timing = start
            return prepared.velocity(in: state, base: model, baseRate: .zeroRate(of: model.kind))?.components
        }
        if var spring = main as? SpringAnimation {
            spring.initialVelocity = 0
            guard let r0 = startRate(spring) else { return nil }
            spring.initialVelocity = 1
            guard let r1 = startRate(spring) else { return nil }
            let g = zip(r1, r0).map { $0 - $1 }
            let gg = g.reduce(0) { $0 + $1 * $1 }
            let projection = gg > 0 ? zip(zip(v, r0), g).reduce(0) { $0 + ($1.0.0 - $1.0.1) * $1.1 } / gg : 0
            spring.initialVelocity = projection.isFinite ? projection : 0
            main = spring
        }
        guard let rate = startRate(main), rate.count == v.count else { return nil }
        let amplitude = zip(v, rate).map { ($0 - $1) / state.progressRate }
        let scale = v.reduce(0) { max($0, abs($1)) } + rate.reduce(0) { max($0, abs($1)) }
        // Nothing left to carry (to rounding): the main animation starts at the velocity alone.
        guard amplitude.contains(where: { abs($0 * state.progressRate) > 1e-12 * scale }), amplitude.allSatisfy(\.isFinite) else {
            return (main, nil)
        }
        return (main, try? AnimationValue(kind: model.kind, components: amplitude))
    }

    /// The carry of amplitude `amplitude` on `main`'s key path with `main`'s timing: two additive
    /// animations, from 0 to `A` linearly and from 0 to `−A` along ``falling``, whose sum is
    /// `A·p·(1 − p)²`.
    static func carry(_ amplitude: AnimationValue, like main: any PropertyAnimation) -> [BasicAnimation] {
        let zero = AnimationValue.zeroRate(of: amplitude.kind)
        return [(amplitude, TimingFunction.linear), (amplitude.rateScaled(by: -1), falling)].map { end, function in
            var c = BasicAnimation(keyPath: main.keyPath)
            (c.fromValue, c.toValue) = (zero, end)
            c.isAdditive = true
            c.timing = main.timing
            c.timingFunction = function
            return c
        }
    }

    /// An action's `main` animation of `key` (``fit(_:velocity:model:)``) made to start at
    /// `velocity`: the fitted main animation alone when it needs no carry (a spring whose
    /// `initialVelocity` does it), else main and carry in a group under the key — so that the
    /// next change of the key replaces all of them — whose duration is main's active duration.
    /// Nil when there is nothing to change: the caller adds `main` as it is.
    ///
    /// Why it works: the carry `A·p·(1 − p)²` is 0 with rate `w` at the start and 0 with rate 0
    /// at every iteration's end, so the value starts at the presentation value with velocity
    /// `velocity` and ends where `main` ends.
    static func animation(_ main: any PropertyAnimation, key: String, velocity: AnimationValue, model: AnimationValue,
                          transactionDuration: Double) -> (any Animation)? {
        let resolved = main.resolvingDefaultDuration(transactionDuration)
        guard let (fitted, amplitude) = fit(resolved, velocity: velocity, model: model) else { return nil }
        guard let amplitude else { return fitted is SpringAnimation ? fitted : nil }
        let timing = resolved.timing
        var child = fitted
        child.timing.beginTime = 0
        var group = AnimationGroup(animations: [child] + carry(amplitude, like: child),
                                   duration: timing.activeEndTimeInParent - timing.beginTime)
        group.timing.beginTime = timing.beginTime
        group.timing.fillMode = timing.fillMode
        group.isRemovedOnCompletion = main.isRemovedOnCompletion
        return group
    }
}
