import AnimationBatch
import AnimationCore
import AnimationWorkloads

/// Animations decoded from fuzz input: every field of every kind, with edge values where allowed.
extension FuzzInput {
    /// Media timing with every field drawn (begin, duration 0 or negative, speed 0 or negative,
    /// offsets, repeat counts and durations up to ∞, autoreverse, fill mode; one in eight
    /// instant, as reduced motion makes it).
    public mutating func timing(edges: Bool) -> MediaTiming {
        var timing = MediaTiming()
        timing.beginTime = choice(3) == 0 ? 0 : number(scale: 4, edges: edges)
        timing.duration = choice(4) == 0 ? 0 : number(scale: 5, edges: edges)
        timing.speed = choice(2) == 0 ? 1 : number(scale: 4, edges: edges)
        timing.timeOffset = choice(3) == 0 ? 0 : number(scale: 4, edges: edges)
        switch choice(4) {
        case 0: timing.repeatCount = number(scale: 4, edges: edges)
        case 1: timing.repeatDuration = number(scale: 10, edges: edges)
        case 2: timing.repeatCount = .infinity
        default: break
        }
        timing.autoreverses = bool()
        timing.fillMode = FillMode.allCases[choice(FillMode.allCases.count)]
        timing.isInstant = choice(8) == 0
        return timing
    }

    /// A timing function: a named one, or control points (x outside [0, 1] and non-finite ones
    /// are refused by the initialiser: then nil, which is linear).
    public mutating func timingFunction(edges: Bool) -> TimingFunction? {
        switch choice(4) {
        case 0: return nil
        case 1: return TimingFunction(name: TimingFunction.Name.allCases[choice(TimingFunction.Name.allCases.count)])
        default:
            return try? TimingFunction(controlPoints: fraction(edges: edges), number(scale: 3, edges: edges),
                                       fraction(edges: edges), number(scale: 3, edges: edges))
        }
    }

    /// A path of up to `maximumElements` builder calls (every `add…` method, with and without a
    /// transform, singular ones included).
    public mutating func path(maximumElements: Int, edges: Bool) -> Path {
        var path = Path()
        for _ in 0..<int(in: 0...maximumElements) {
            let transform: AffineTransform = switch choice(6) {
            case 0: AffineTransform(a: number(scale: 3, edges: edges), b: number(scale: 3, edges: edges),
                                    c: number(scale: 3, edges: edges), d: number(scale: 3, edges: edges),
                                    tx: number(edges: edges), ty: number(edges: edges))
            case 1: AffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 5, ty: 5)   // singular
            default: .identity
            }
            switch choice(12) {
            case 0, 1: path.move(to: point(edges: edges), transform: transform)
            case 2, 3: path.addLine(to: point(edges: edges), transform: transform)
            case 4: path.addQuadCurve(to: point(edges: edges), control: point(edges: edges), transform: transform)
            case 5, 6: path.addCurve(to: point(edges: edges), control1: point(edges: edges), control2: point(edges: edges),
                                     transform: transform)
            case 7: path.closeSubpath()
            case 8: path.addArc(center: point(edges: edges), radius: number(scale: 50, edges: edges),
                                startAngle: number(scale: 7, edges: edges), endAngle: number(scale: 7, edges: edges),
                                clockwise: bool(), transform: transform)
            case 9: path.addArc(tangent1End: point(edges: edges), tangent2End: point(edges: edges),
                                radius: number(scale: 50, edges: edges), transform: transform)
            case 10:
                let rect = Rect(x: number(edges: edges), y: number(edges: edges), width: number(edges: edges),
                                height: number(edges: edges))
                switch choice(3) {
                case 0: path.addRect(rect, transform: transform)
                case 1: path.addEllipse(in: rect, transform: transform)
                default: path.addRoundedRect(in: rect, cornerWidth: number(scale: 30, edges: edges),
                                             cornerHeight: number(scale: 30, edges: edges), transform: transform)
                }
            default:
                // The path added to itself (bounded: doubling 24 times would be 16 million elements).
                if path.elements.count <= 64 {
                    let copy = path
                    path.addPath(copy, transform: transform)
                }
            }
        }
        return path
    }

    /// A keyframe animation of `keyPath` over values of `kind` (or along a path, for points):
    /// every calculation mode, key times (unsorted, outside [0, 1], of the wrong count), timing
    /// functions, TCB parameters, rotation modes.
    public mutating func keyframeAnimation(keyPath: String, kind: ValueKind, edges: Bool) -> KeyframeAnimation {
        var animation = KeyframeAnimation(keyPath: keyPath)
        let count = int(in: 0...9)
        if kind == .point && choice(4) == 0 {
            animation.path = path(maximumElements: 8, edges: edges)
            if bool() { animation.rotationMode = RotationMode.allCases[choice(RotationMode.allCases.count)] }
        } else {
            animation.values = (0..<count).map { _ in value(of: kind, edges: edges) }
        }
        animation.calculationMode = CalculationMode.allCases[choice(CalculationMode.allCases.count)]
        if bool() {
            var times: [Double] = []
            let timeCount = choice(5) == 0 ? int(in: 0...10) : count
            var last = 0.0
            for k in 0..<timeCount {
                // Mostly sorted within [0, 1] (the valid case), sometimes anything.
                last = choice(5) == 0 ? number(scale: 1, edges: edges) : (k == 0 ? 0 : min(1, last + fraction(edges: false) / 2))
                times.append(last)
            }
            animation.keyTimes = times
        }
        if bool() { animation.timingFunctions = (0..<int(in: 0...10)).map { _ in timingFunction(edges: edges) ?? .linear } }
        if choice(3) == 0 {
            let tcbCount = choice(4) == 0 ? int(in: 0...10) : count
            animation.tensionValues = (0..<tcbCount).map { _ in number(scale: 2, edges: edges) }
            animation.continuityValues = bool() ? (0..<tcbCount).map { _ in number(scale: 2, edges: edges) } : nil
            animation.biasValues = bool() ? (0..<tcbCount).map { _ in number(scale: 2, edges: edges) } : nil
        }
        options(&animation, edges: edges)
        return animation
    }

    /// Timing, timing function and the flags every property animation has, drawn in that order.
    private mutating func options(_ animation: inout some PropertyAnimation, edges: Bool) {
        animation.timing = timing(edges: edges)
        animation.timingFunction = timingFunction(edges: edges)
        animation.isRemovedOnCompletion = bool()
        animation.isAdditive = bool()
        animation.isCumulative = bool()
    }

    /// Any of from / to / by (all three, or none).
    private mutating func fromToBy(_ kind: ValueKind, edges: Bool) -> (AnimationValue?, AnimationValue?, AnimationValue?) {
        let from = bool() ? value(of: kind, edges: edges) : nil
        let to = bool() ? value(of: kind, edges: edges) : nil
        return (from, to, choice(3) == 0 ? value(of: kind, edges: edges) : nil)
    }

    /// A basic animation with any of from / to / by (all three, or none, included).
    public mutating func basicAnimation(keyPath: String, kind: ValueKind, edges: Bool) -> BasicAnimation {
        var animation = BasicAnimation(keyPath: keyPath)
        (animation.fromValue, animation.toValue, animation.byValue) = fromToBy(kind, edges: edges)
        options(&animation, edges: edges)
        return animation
    }

    /// A spring animation: mass, stiffness, damping and velocity drawn (zero, negative and edge
    /// values included).
    public mutating func springAnimation(keyPath: String, kind: ValueKind, edges: Bool) -> SpringAnimation {
        var animation = SpringAnimation(keyPath: keyPath)
        (animation.fromValue, animation.toValue, animation.byValue) = fromToBy(kind, edges: edges)
        if bool() { animation.mass = abs(number(scale: 5, edges: edges)) }
        if bool() { animation.stiffness = abs(number(scale: 300, edges: edges)) }
        if bool() { animation.damping = abs(number(scale: 30, edges: edges)) }
        if bool() { animation.initialVelocity = number(scale: 10, edges: edges) }
        animation.allowsOverdamping = bool()
        animation.timing = timing(edges: edges)
        animation.isRemovedOnCompletion = bool()
        animation.isAdditive = bool()
        return animation
    }
}

/// The properties the animation targets draw from, with their kinds.
let fuzzProperties: [(name: String, kind: ValueKind)] = [
    ("opacity", .scalar), ("position", .point), ("bounds", .rect), ("backgroundColor", .color),
    ("transform", .transform), ("cornerRadius", .scalar), ("bounds.size", .size),
]

/// Target `keyframes`: animations of every kind built from fuzz input (the keyframe constructor
/// with every calculation mode, TCB, key times and paths; basic; spring; groups of them) on one
/// layer. Whatever the input: nothing crashes or hangs. When validation accepts the animations
/// and every number was ordinary: the scalar reference gives finite values, and the batch engine
/// agrees with it within docs/architecture.md's precision table at eight times and at NaN and ±∞ (or
/// matches it a hair away, at a jump: the batch decides in Float).
public func fuzzKeyframes(_ bytes: [UInt8]) throws {
    var input = FuzzInput(bytes)
    let edges = input.bool()
    var model: [String: AnimationValue] = [:]
    var animations: [any Animation] = []
    for _ in 0..<input.int(in: 1...3) {
        let property = fuzzProperties[input.choice(fuzzProperties.count)]
        let base = String(property.name.split(separator: ".")[0])
        let baseKind = fuzzProperties.first { $0.name == base }!.kind
        if model[base] == nil { model[base] = input.value(of: baseKind, edges: edges) }
        let animation: any PropertyAnimation = switch input.choice(4) {
        case 0: input.basicAnimation(keyPath: property.name, kind: property.kind, edges: edges)
        case 1: input.springAnimation(keyPath: property.name, kind: property.kind, edges: edges)
        default: input.keyframeAnimation(keyPath: property.name, kind: property.kind, edges: edges)
        }
        if input.choice(4) == 0 {
            var group = AnimationGroup(animations: [animation], duration: input.number(scale: 5, edges: edges))
            group.timing = input.timing(edges: edges)
            animations.append(group)
        } else {
            animations.append(animation)
        }
    }
    // Eight times from the input, then NaN and ±∞ (which do not make the input unusual: the
    // engines must agree on them for any animation).
    let times = (0..<8).map { _ in input.number(scale: 8, edges: edges) } + [.nan, .infinity, -.infinity]

    // Everything the constructors built can be asked for, valid or not.
    for animation in animations { _ = animation.leaves.map { ($0.animation.valueKind, $0.animation.keyPath) } }

    let store = TrackStore()
    let layer = LayerID(1)
    var accepted: [any Animation] = []
    for (property, value) in model { _ = try? store.setModelValue(value, layer: layer, property: property) }
    // Both engines get the copy a layer keeps (§1.3, §1.5: durations ≤ 0 resolved, groups'
    // children included), as every public entry above the store hands it over.
    for animation in animations {
        guard let prepared = try? animation.preparedForAdding(layerTime: 0), (try? store.add(prepared, layer: layer)) != nil else { continue }
        accepted.append(prepared)
    }
    // Times jump back and forth: a finished animation must stay to be evaluated again, as in the
    // reference (which never removes anything).
    var configuration = FrameEvaluator.Configuration()
    configuration.reapsFinishedAnimations = false
    let evaluator = FrameEvaluator(store: store, configuration: configuration)
    let ordinary = !input.sawUnusual
    // Each property's tolerance bound, worked out once (it walks the animations and measures paths).
    var bounds = PrecisionTable.Bounds()
    for t in times {
        evaluator.evaluate(at: t)
        let reference = ReferenceEvaluator.presentationValues(model: model, animations: accepted, at: t)
        for (property, expected) in reference {
            guard let batch = evaluator.value(layer: layer, property: property) else {
                throw FuzzFailure("\(property): no slot in the batch engine")
            }
            guard ordinary else { continue }
            // Values past Float's range (repeated transforms can reach 1e80 from ordinary input)
            // are outside what the batch holds (docs/architecture.md: single precision): not compared, but
            // never NaN where the reference is finite (they saturate, see docs/bad-input.md).
            guard PrecisionTable.magnitude(expected) <= Double(Float.greatestFiniteMagnitude) / 16 else {
                try check(!expected.components.allSatisfy(\.isFinite) || !batch.components.contains(where: \.isNaN),
                          "\(property) at t = \(t): batch \(batch) is NaN where the reference gives \(expected); "
                          + "model \(model), animations \(accepted)")
                continue
            }
            try check(expected.components.allSatisfy(\.isFinite),
                      "\(property) at t = \(t): the reference gives \(expected) from ordinary input; model \(model), animations \(accepted)")
            let tolerance = bounds.tolerance(property: property, model: model[property], animations: accepted, reference: expected)
            if PrecisionTable.maxDifference(batch, expected) <= tolerance { continue }
            // The same where a stage beneath passed that range (a cumulative transform held at
            // 1e150 under a spring that starts from it): the batch held that stage at ±3.4e38, so
            // what was built on it is not the reference's either — but never NaN.
            if stageValues(model: model[property], stages: stages(property: property, animations: accepted, at: t)).contains(where: {
                PrecisionTable.magnitude($0) > Double(Float.greatestFiniteMagnitude) / 16 }) {
                try check(!batch.components.contains(where: \.isNaN),
                          "\(property) at t = \(t): batch \(batch) is NaN where the reference gives \(expected); "
                          + "model \(model), animations \(accepted)")
                continue
            }
            // Next to a jump in the reference the batch may show the other side: a nearby time
            // does. The smallest steps are a fraction of a Float ulp of progress (6e-8 near 1, at
            // the fuzzer's speeds): where the values beneath an animation that decomposes them are
            // steep (a cumulative stack near 1e15), the batch's single-precision value beneath
            // crosses a switch of the decomposition (§15.3) that far from the reference's.
            let nearJump = [1e-9, -1e-9, 1e-8, -1e-8, 1e-6, -1e-6, 1e-5, -1e-5, 1e-4, -1e-4].contains { delta in
                let nearby = ReferenceEvaluator.presentationValues(model: model, animations: accepted, at: t + delta)[property]!
                return PrecisionTable.maxDifference(batch, nearby) <= tolerance
            }
            // The batch's documented bound for discrete keys and jumps (KeyframeBatch): a switch
            // may happen one Float ulp of progress before or after the reference's. A key at
            // progress 1 that coincides with an iteration's end shows for no time at all in the
            // reference, so no nearby time finds it: the reference with every such key time moved
            // one Float ulp does.
            let earlySwitch = !nearJump && [-1, 1].contains { direction in
                let shifted = accepted.map { shiftingSwitchKeyTimes($0, by: direction) }
                let value = ReferenceEvaluator.presentationValues(model: model, animations: shifted, at: t)[property]!
                return PrecisionTable.maxDifference(batch, value) <= tolerance
            }
            // The batch holds each animation's progress in Float (docs/architecture.md): where the
            // reference's progress lies within a Float ulp of a jump that no time shows — a path's
            // jump at its very end (semantics §5.6) met at 1 − 3.6e-15 of a repeating animation, whose
            // next instant is the next iteration's 0 — the batch's progress rounds onto the jump's
            // other side. The reference with every progress rounded to Float, down and up (the two
            // Floats around it, within one ulp: the nearest is one of them), is what it may show.
            let roundedProgress = !nearJump && !earlySwitch && [-1, 1].contains { direction in
                let roundedStages = stages(property: property, animations: accepted, at: t, progress: { progress in
                    let single = Float(progress)
                    if direction < 0 { return Double(Double(single) <= progress ? single : single.nextDown) }
                    return Double(Double(single) >= progress ? single : single.nextUp)
                })
                let rounded = stageValues(model: model[property], stages: roundedStages).last ?? expected
                return PrecisionTable.maxDifference(batch, rounded) <= tolerance
            }
            // An ill-conditioned stack — an animation whose ends come from the value beneath, over
            // a nearly singular accumulated transform; one that interpolates by decomposition a
            // cumulative transform near 1e15 — amplifies the single-precision rounding of the
            // values (docs/architecture.md: values in Float) far past the table's bound.
            // Measured, not assumed: what Float's rounding of every stage value moves the
            // reference, to first order and all components at once
            // (``floatSensitivity(property:model:animations:at:)``); the batch may differ by twice that.
            let sensitivity = nearJump || earlySwitch || roundedProgress
                ? 0 : floatSensitivity(property: property, model: model, animations: accepted, at: t)
            let conditioned = !nearJump && !earlySwitch && !roundedProgress
                && PrecisionTable.maxDifference(batch, expected) <= tolerance + 2 * sensitivity
            // A path animation's turn (semantics §5.7) reaches the batch as a Float angle within
            // 1e-5 rad of the reference's (`PathBatch`'s tables, Float's rounding of π for
            // autoReverse included); an animation above it that starts from the value beneath and
            // interpolates it by decomposition can amplify that a thousandfold (a by-only additive
            // transform over a general matrix turned by π: 1.5e-7 rad moved the result by 1.3e-4
            // of its size). The reference with every turn moved by the same angle, up to that
            // bound, is what the batch may show — to its Float rounding measured as above.
            let turnedWithinBound = !nearJump && !earlySwitch && !roundedProgress && !conditioned && property == "transform"
                && turnAngleOffsets.contains { offset in
                    let turned = stages(property: property, animations: accepted, at: t, angle: { $0 + offset })
                    let value = stageValues(model: model[property], stages: turned).last ?? expected
                    return PrecisionTable.maxDifference(batch, value) <= tolerance + 2 * sensitivity
                }
            try check(nearJump || earlySwitch || roundedProgress || conditioned || turnedWithinBound,
                      "\(property) at t = \(t): batch \(batch), reference \(expected), tolerance \(tolerance); "
                      + "model \(model), animations \(accepted)")
        }
    }
}

/// The angles the keyframes target moves every turn of a transform by (``stages(property:animations:at:ownValue:progress:angle:)``)
/// to find the batch's: ±1e-5 rad, the bound its turns keep, and halvings of it down to 3.9e-8
/// (a Float ulp of π is 2.4e-7).
let turnAngleOffsets: [Double] = (0...8).flatMap { k in [1e-5 / Double(1 << k), -1e-5 / Double(1 << k)] }

/// The stages of the value of `property` at `t`, as `ReferenceEvaluator.presentationValues`
/// composes it (semantics §8.4): one function per animation that applies (its value over the
/// value beneath, and a rotation mode's turn of a transform, §5.7), in order. With `adjust`, each
/// animation's own value goes through it before it composes (`ReferenceEvaluator.apply(_:state:to:ownValue:)`);
/// with `adjustProgress`, each animation's progress (clamped to [0, 1] after it); with
/// `adjustAngle`, each turn's angle.
func stages(property: String, animations: [any Animation], at t: Double,
            ownValue adjust: ((AnimationValue) -> AnimationValue)? = nil,
            progress adjustProgress: ((Double) -> Double)? = nil,
            angle adjustAngle: ((Double) -> Double)? = nil) -> [(AnimationValue) -> AnimationValue] {
    var stages: [(AnimationValue) -> AnimationValue] = []
    ReferenceEvaluator.forEachShowingLeaf(of: animations, at: t) { leaf, state, leafProperty in
        var state = state
        if let adjustProgress { state.progress = min(1, max(0, adjustProgress(state.progress))) }
        let touches = leafProperty == property
        let turns = property == "transform" && (leaf.animation as? KeyframeAnimation)?.rotationMode != nil
        guard touches || turns else { return }
        stages.append { value in
            var value = value
            if touches {
                value = adjust.map { ReferenceEvaluator.apply(leaf, state: state, to: value, ownValue: $0) } ?? ReferenceEvaluator.apply(leaf, state: state, to: value)
            }
            if turns, let keyframe = leaf.animation as? KeyframeAnimation, let angle = keyframe.rotationAngle(in: state),
               case .transform(let transform) = value {
                value = .transform(Transform3D.rotation(angle: adjustAngle?(angle) ?? angle, x: 0, y: 0, z: 1).concatenating(transform))
            }
            return value
        }
    }
    return stages
}

/// The value entering each of `stages` (``stages(property:animations:at:ownValue:progress:angle:)``; `model` first), then
/// the result; empty for a property without a model value.
func stageValues(model: AnimationValue?, stages: [(AnimationValue) -> AnimationValue]) -> [AnimationValue] {
    guard let model else { return [] }
    var values = [model]
    for stage in stages { values.append(stage(values[values.count - 1])) }
    return values
}

/// What single precision can move the reference's value of `property` at `t`, measured on the
/// reference itself; the batch holds every stage value (``stageValues(model:stages:)``)
/// in Float. The larger of two measures, each a function of the stage values alone:
/// - a first-order bound: for each stage value and each of its components, the change of the
///   result when that component moves by one Float ulp, summed — what a stack that is steep but
///   smooth in its values beneath (a cumulative transform near 1e15) does to the rounding;
/// - the spread: the largest change of the result when every component of one stage value moves
///   at once by half a Float ulp (its rounding) in 64 sign patterns — what a stack that switches
///   between branches does (a decomposition, semantics §15.3, of a nearly singular value beneath:
///   roundings that no single component's ulp reaches move it by everything);
/// - the own values' rounding: the reference with every animation's own value, before it composes
///   over the value beneath, rounded to Float — where the batch keeps it — once to the nearest
///   and in 16 sign patterns of half an ulp. A rounding of a transform's own value moves the
///   stack by far more than the composed value's ulps where composing cancels (a by-only
///   cumulative transform over a near-singular stack: Δ = to · from⁻¹ repeated).
/// 0 for a property `model` lacks.
func floatSensitivity(property: String, model: [String: AnimationValue], animations: [any Animation], at t: Double) -> Double {
    let stages = stages(property: property, animations: animations, at: t)
    let entering = stageValues(model: model[property], stages: stages)
    guard let result = entering.last else { return 0 }
    func replayed(from k: Int, components: [Double]) -> AnimationValue {
        stages[k...].reduce(AnimationValue(kind: entering[k].kind) { components[$0] }) { $1($0) }
    }
    var firstOrder = 0.0
    var spread = 0.0
    // A fixed generator: a failure must replay with the same measure.
    var random = SplitMix64(seed: 0x5EED)
    for (k, value) in entering.enumerated() {
        let components = value.components
        let ulps = components.map { Double(Float($0).ulp) }
        for c in components.indices where ulps[c].isFinite {
            var moved = components
            moved[c] += ulps[c]
            firstOrder += PrecisionTable.maxDifference(replayed(from: k, components: moved), result)
        }
        for _ in 0..<64 {
            let moved = components.indices.map { c in
                ulps[c].isFinite ? components[c] + (random.next() & 1 == 0 ? 0.5 : -0.5) * ulps[c] : components[c]
            }
            spread = max(spread, PrecisionTable.maxDifference(replayed(from: k, components: moved), result))
        }
    }
    // The stages are walked once; each rounding of the own values goes through `rounding`.
    var rounding: (AnimationValue) -> AnimationValue = { v in AnimationValue(kind: v.kind) { Double(Float(v.components[$0])) } }
    let ownStages = AnimationFuzzing.stages(property: property, animations: animations, at: t) { rounding($0) }
    var ownValues = PrecisionTable.maxDifference(stageValues(model: model[property], stages: ownStages).last ?? result, result)
    for _ in 0..<16 {
        let signs = (0..<16).map { _ in random.next() & 1 == 0 ? 0.5 : -0.5 }
        rounding = { v in
            AnimationValue(kind: v.kind) { c in
                let ulp = Double(Float(v.components[c]).ulp)
                return ulp.isFinite ? v.components[c] + signs[c % signs.count] * ulp : v.components[c]
            }
        }
        let moved = stageValues(model: model[property], stages: ownStages).last ?? result
        ownValues = max(ownValues, PrecisionTable.maxDifference(moved, result))
    }
    return max(firstOrder, spread, ownValues)
}

/// `animation` with the key times of its keyframe animations that switch at key times (its own,
/// or its group's children's) moved one Float ulp down (`direction` −1) or up (+1): discrete
/// ones, and those with a jump (two equal key times, where the later value wins, semantics §5.4).
/// Key times stay within [0, 1]: a key at 0 moved below it (or at 1 above it) would make the
/// whole list invalid, and the reference would use even key times instead (§5.3), moving no
/// switch — for the even key times of a discrete animation, which start at 0, always.
func shiftingSwitchKeyTimes(_ animation: any Animation, by direction: Int) -> any Animation {
    if var group = animation as? AnimationGroup {
        group.animations = group.animations.map { shiftingSwitchKeyTimes($0, by: direction) }
        return group
    }
    guard var keyframes = animation as? KeyframeAnimation else { return animation }
    let times = keyframes.effectiveKeyTimes
    let jumps = zip(times, times.dropFirst()).contains { $0 == $1 }
    guard keyframes.calculationMode == .discrete || jumps else { return animation }
    keyframes.keyTimes = keyframes.effectiveKeyTimes.map { t in
        let single = Float(t)
        return min(1, max(0, Double(direction < 0 ? single.nextDown : single.nextUp)))
    }
    return keyframes
}
