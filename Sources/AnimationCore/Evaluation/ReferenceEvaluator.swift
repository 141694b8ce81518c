/// The timing of an enclosing ``AnimationGroup`` as its children see it.
public struct GroupTiming: Sendable, Hashable {
    public var timing: MediaTiming
    public var timingFunction: TimingFunction?

    public init(timing: MediaTiming, timingFunction: TimingFunction?) {
        self.timing = timing
        self.timingFunction = timingFunction
    }

    /// The parent time of the group's children at `parentTime`, or nil when the group shows
    /// nothing there (semantics §7): the group's basic local time in seconds after its timing
    /// function, `timingFunction(p) · duration` (§2.7). Children are thereby clipped to
    /// [0, duration].
    public func childTime(atParentTime parentTime: Double) -> (state: TimingState, childTime: Double?) {
        let state = timing.state(atParentTime: parentTime)
        guard state.contributes else { return (state, nil) }
        return (state, (timingFunction ?? .linear).value(at: state.progress) * timing.effectiveDuration)
    }

    /// d(child time)/d(parent time) in `state` (velocity, docs/velocity.md): the timing function's
    /// slope × duration × the group's progress rate; 0 where the group is filled or paused.
    public func childTimeRate(in state: TimingState) -> Double {
        guard state.progressRate != 0 else { return 0 }
        return (timingFunction ?? .linear).slope(at: state.progress) * timing.effectiveDuration * state.progressRate
    }
}

/// A property animation with the timings of the groups around it: the unit that is evaluated (and
/// that the batch engine compiles into one track).
public struct AnimationLeaf: Sendable {
    /// The property animation.
    public var animation: any PropertyAnimation
    /// The enclosing groups' timings, outermost first (semantics §2.7).
    public var groups: [GroupTiming]
    /// The child indices from the top-level animation down to this one; empty for a top-level
    /// property animation.
    public var indexPath: [Int]

    public init(animation: any PropertyAnimation, groups: [GroupTiming] = [], indexPath: [Int] = []) {
        self.animation = animation
        self.groups = groups
        self.indexPath = indexPath
    }
}

extension Animation {
    /// The property animations inside this one, depth first in child order — the order in which
    /// they compose (semantics §8.4) — each with its enclosing groups' timings. A property
    /// animation is its own single leaf; a group contributes its children's leaves.
    public var leaves: [AnimationLeaf] {
        var result: [AnimationLeaf] = []
        func visit(_ animation: any Animation, _ groups: [GroupTiming], _ path: [Int]) {
            if let property = animation as? any PropertyAnimation {
                result.append(AnimationLeaf(animation: property, groups: groups, indexPath: path))
            } else if let group = animation as? AnimationGroup {
                let timing = GroupTiming(timing: group.timing, timingFunction: group.timingFunction)
                for (i, child) in group.animations.enumerated() { visit(child, groups + [timing], path + [i]) }
            }
        }
        visit(self, [], [])
        return result
    }
}

/// What one top-level property animation shows at one parent time.
public struct AnimationSample: Sendable, Hashable {
    /// The phase of the animation's active duration (semantics §2.4).
    public var phase: TimingPhase
    /// True once the active duration has passed and the animation is removed on completion
    /// (semantics §1.4): it shows nothing, whatever its fill mode.
    public var isRemoved: Bool
    /// The value on the animation's key path with the animation applied over the base — replacing
    /// it, or added to it when additive — or nil when the animation contributes nothing (outside its
    /// active duration without fill, removed, or values of another kind than the base).
    public var value: AnimationValue?
}

/// The scalar reference: Core Animation's semantics as plain Double-precision functions, the
/// specification every faster path is tested against.
///
/// Clarity over speed: each step is one rule of semantics.md, cited where it is applied.
public enum ReferenceEvaluator {
    /// The state of `leaf`'s own timing at the top-level parent time `parentTime`, passing through
    /// its groups (semantics §2.7, §7), and the top-level animation's state. `leafState` is nil
    /// when nothing shows: a group or the leaf outside its active time without fill, or the
    /// top-level animation removed on completion (§1.4). Children's own `isRemovedOnCompletion`
    /// is ignored (§7).
    public static func state(of leaf: AnimationLeaf, at parentTime: Double, isRemovedOnCompletion: Bool)
        -> (topLevel: TimingState, leafState: TimingState?) {
        var time = parentTime
        var rate = 1.0   // d(time)/d(parentTime): the groups' child-time rates multiplied
        var topLevel: TimingState?
        for group in leaf.groups {
            let (state, childTime) = group.childTime(atParentTime: time)
            if topLevel == nil {
                topLevel = state
                if isRemovedOnCompletion && state.phase == .after { return (state, nil) }  // §1.4
            }
            guard let childTime else { return (topLevel ?? state, nil) }
            time = childTime
            rate *= group.childTimeRate(in: state)
        }
        var own = leaf.animation.timing.state(atParentTime: time)
        let top = topLevel ?? own
        if leaf.groups.isEmpty && isRemovedOnCompletion && own.phase == .after { return (top, nil) }  // §1.4
        if own.progressRate != 0 { own.progressRate *= rate }
        return (top, own.contributes ? own : nil)
    }

    /// Applies one leaf to the accumulated value of its property (semantics §8.4): reads the
    /// key path's field if it names one, evaluates the animation over it, adds (§4.3) or
    /// replaces, and writes the field back. Returns `accumulated` unchanged when the leaf shows
    /// nothing or does not fit the property's kind.
    public static func apply(_ leaf: AnimationLeaf, state: TimingState, to accumulated: AnimationValue) -> AnimationValue {
        apply(leaf, state: state, to: accumulated, ownValue: { $0 })
    }

    /// ``apply(_:state:to:)`` with the animation's own value passed through `adjust` before it
    /// composes: the keyframes fuzz target's measure of single precision rounds it there, to
    /// Float, where the batch stores it.
    package static func apply(_ leaf: AnimationLeaf, state: TimingState, to accumulated: AnimationValue,
                              ownValue adjust: (AnimationValue) -> AnimationValue) -> AnimationValue {
        let animation = leaf.animation
        let fieldPath = AnimationKeyPath.split(animation.keyPath).field
        var field: ValueField?
        if let fieldPath {
            guard let f = try? ValueField(path: fieldPath, of: accumulated.kind) else { return accumulated }
            field = f
        }
        let base = field?.get(from: accumulated) ?? accumulated
        guard let value = animation.value(in: state, base: base) else { return accumulated }
        let v = adjust(value)
        let composed = animation.isAdditive ? base.adding(v) : v  // §4.3: base ⊕ v
        return field?.set(composed, in: accumulated) ?? composed
    }

    /// What a top-level property animation shows at `parentTime` over `base`, the value of its key
    /// path beneath it (semantics §2, §4, §6).
    public static func sample(_ animation: some PropertyAnimation, at parentTime: Double,
                              base: AnimationValue) -> AnimationSample {
        let leaf = AnimationLeaf(animation: animation)
        let (top, state) = state(of: leaf, at: parentTime, isRemovedOnCompletion: animation.isRemovedOnCompletion)
        let removed = animation.isRemovedOnCompletion && top.phase == .after
        guard let state, let v = animation.value(in: state, base: base) else {
            return AnimationSample(phase: top.phase, isRemoved: removed, value: nil)
        }
        return AnimationSample(phase: top.phase, isRemoved: removed,
                               value: animation.isAdditive ? base.adding(v) : v)
    }

    /// The phase of a top-level animation's active duration at `parentTime` (semantics §2.4); the
    /// moments an animation starts and finishes (§8.1) are where this changes.
    public static func phase(of animation: any Animation, at parentTime: Double) -> TimingPhase {
        animation.timing.state(atParentTime: parentTime).phase
    }

    /// The presentation value of `property` (semantics §1.1, §8.4): `model`, then every leaf of
    /// `animations` (in add order) whose key path is `property` or one of its fields — and, for
    /// `transform`, the rotation of path animations with a rotation mode (§5.7).
    ///
    /// - Parameters:
    ///   - property: the property's name (`opacity`, `transform`, …).
    ///   - model: its model value.
    ///   - animations: top-level animations as added to a layer, in add order.
    ///   - parentTime: the layer's time.
    public static func presentationValue(ofProperty property: String, model: AnimationValue,
                                         animations: [any Animation], at parentTime: Double) -> AnimationValue {
        presentationValues(model: [property: model], animations: animations, at: parentTime)[property] ?? model
    }

    /// ``apply(_:state:to:)`` with rates: the leaf's value over `accumulated` and its rate when
    /// `accumulated` moves at `accumulatedRate` (docs/velocity.md) — the field's rate read, the
    /// animation's velocity over it, the additive sum's rate, the field's rate written back.
    /// Unchanged (value and rate) where ``apply(_:state:to:)`` leaves the value unchanged; an
    /// animation type without a velocity (``PropertyAnimation/velocity(in:base:baseRate:)`` nil)
    /// shows its value at rest.
    public static func applyWithRate(_ leaf: AnimationLeaf, state: TimingState, to accumulated: ValueAndRate) -> ValueAndRate {
        let animation = leaf.animation
        var field: ValueField?
        if let fieldPath = AnimationKeyPath.split(animation.keyPath).field {
            guard let f = try? ValueField(path: fieldPath, of: accumulated.value.kind) else { return accumulated }
            field = f
        }
        let base = field?.get(from: accumulated.value) ?? accumulated.value
        let baseRate = field.map { ValueRates.fieldGet($0, from: accumulated.value, rate: accumulated.rate) } ?? accumulated.rate
        guard let v = animation.value(in: state, base: base) else { return accumulated }
        let vRate = animation.velocity(in: state, base: base, baseRate: baseRate) ?? .zeroRate(of: v.kind)
        let composed = animation.isAdditive ? base.adding(v) : v  // §4.3: base ⊕ v
        let composedRate = animation.isAdditive
            ? ValueRates.adding(base: base, baseRate: baseRate, delta: v, deltaRate: vRate) : vRate
        guard let field else { return ValueAndRate(value: composed, rate: composedRate) }
        return ValueAndRate(value: field.set(composed, in: accumulated.value),
                            rate: ValueRates.fieldSet(field, composed, rate: composedRate, in: accumulated.value,
                                                      valueRate: accumulated.rate))
    }

    /// The presentation values of every property in `model` and their velocities, d(value)/dt per
    /// second of the time `parentTime` is measured in (docs/velocity.md): model values do not
    /// move; each leaf applies as ``presentationValues(model:animations:at:)`` applies it, with
    /// ``applyWithRate(_:state:to:)``, and a path's rotation turns `transform` at
    /// `R_z′(θ)·θ′·T + R_z(θ)·T′`. Multiply by d(parentTime)/dt to measure in another time
    /// (a layer's speed). A rate component is NaN only where its value's is: one that intermediate
    /// rates overflowing opposite ways made NaN (∞ − ∞, 0 · ∞: values near ±1e38 moving within
    /// 1e-300 s) reads 0 — no direction survives that (docs/bad-input.md).
    public static func presentationValuesWithRates(model: [String: AnimationValue], animations: [any Animation],
                                                   at parentTime: Double) -> [String: ValueAndRate] {
        var result = model.mapValues { ValueAndRate(value: $0, rate: .zeroRate(of: $0.kind)) }
        forEachShowingLeaf(of: animations, at: parentTime) { leaf, state, property in
            if let accumulated = result[property] {
                result[property] = applyWithRate(leaf, state: state, to: accumulated)
            }
            if let keyframe = leaf.animation as? KeyframeAnimation, let angle = keyframe.rotationAngle(in: state),
               let current = result["transform"], case .transform(let transform) = current.value,
               case .transform(let transformRate) = current.rate {
                let angleRate = keyframe.rotationRate(in: state) ?? 0
                let rotation = Transform3D.rotation(angle: angle, x: 0, y: 0, z: 1)
                let rotationRate = ValueFunction.rotateZ.transformRate(for: angle).elementwiseScaled(by: angleRate)
                result["transform"] = ValueAndRate(
                    value: .transform(rotation.concatenating(transform)),
                    rate: .transform(rotationRate.concatenating(transform).elementwiseAdding(rotation.concatenating(transformRate))))
            }
        }
        for (property, moving) in result where moving.rate.components.contains(where: \.isNaN) {
            let (values, rates) = (moving.value.components, moving.rate.components)
            let rate = AnimationValue(kind: moving.rate.kind) { c in
                rates[c].isNaN && !(c < values.count && values[c].isNaN) ? 0 : rates[c]
            }
            result[property] = ValueAndRate(value: moving.value, rate: rate)
        }
        return result
    }

    /// Calls `body` with every leaf of `animations` that shows at `parentTime` (its state
    /// contributes, semantics §2.4, §7, §1.4), in the order they compose (add order, depth first,
    /// §8.4), with its state and the property its key path names: the walk every presentation
    /// function of the reference shares.
    public static func forEachShowingLeaf(of animations: [any Animation], at parentTime: Double,
                                          _ body: (_ leaf: AnimationLeaf, _ state: TimingState, _ property: String) throws -> Void) rethrows {
        for animation in animations {
            for leaf in animation.leaves {
                let (_, state) = state(of: leaf, at: parentTime, isRemovedOnCompletion: animation.isRemovedOnCompletion)
                guard let state else { continue }
                try body(leaf, state, AnimationKeyPath.split(leaf.animation.keyPath).property)
            }
        }
    }

    /// The presentation values of every property in `model` (semantics §1.1, §8.4). Animations on
    /// properties absent from `model` are ignored: the model gives each property its kind. A path
    /// animation with a rotation mode also turns `transform` by its tangent angle, applied before
    /// the transform accumulated so far (`R_z(θ) · transform`, §5.7) at its place in add order.
    public static func presentationValues(model: [String: AnimationValue], animations: [any Animation],
                                          at parentTime: Double) -> [String: AnimationValue] {
        var result = model
        forEachShowingLeaf(of: animations, at: parentTime) { leaf, state, property in
            if let accumulated = result[property] {
                result[property] = apply(leaf, state: state, to: accumulated)
            }
            if let keyframe = leaf.animation as? KeyframeAnimation, let angle = keyframe.rotationAngle(in: state),
               case .transform(let transform)? = result["transform"] {
                result["transform"] = .transform(Transform3D.rotation(angle: angle, x: 0, y: 0, z: 1).concatenating(transform))
            }
        }
        return result
    }
}

/// A value and its rate of change, d(value)/dt, as a value of the same kind whose components are
/// the components' derivatives (docs/velocity.md).
public struct ValueAndRate: Sendable, Hashable {
    public var value: AnimationValue
    public var rate: AnimationValue

    public init(value: AnimationValue, rate: AnimationValue) {
        self.value = value
        self.rate = rate
    }
}
