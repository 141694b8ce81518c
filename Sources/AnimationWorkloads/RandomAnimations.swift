import AnimationBatch
import AnimationCore

/// One layer of a random scene: its model values and its animations in add order.
public struct RandomLayer: Sendable {
    /// The layer.
    public var layer: LayerID
    /// Its model values, by property.
    public var model: [String: AnimationValue]
    /// Its animations, in add order.
    public var animations: [any Animation]
}

/// Seeded random animations covering every kind the engine evaluates — basic, spring, keyframe in
/// all five modes, paths in every mode with and without rotation, groups (nested) — on every value
/// type, with every timing option: begin times, durations (including 0), speeds (including 0 and
/// negative), offsets, fractional and infinite repeats, repeat durations, autoreverse, all fill modes,
/// removal on completion, named and random timing functions, from/to/by in every combination,
/// additive and cumulative, field key paths and value functions; several animations on one
/// property compose.
///
/// Times are on a grid of 1/16 s, so that every animation's begin and end fall exactly on
/// ``boundaryTimes`` (the agreement tests evaluate there, and at random times).
public struct RandomAnimations {
    /// The generator (the same seed gives the same animations).
    public var rng: SplitMix64

    /// When true, every timing drawn is plain — speed 1, no time offset — and everything else
    /// stays random: the timings almost every real animation has, which the batch evaluates
    /// through its own path (blocks of plain timings skip the speed, offset and wrap steps).
    public var plainTiming = false
    /// When true (and ``plainTiming`` is not), every timing drawn runs forwards at speed 1 with
    /// a time offset of 0, ±0.25, 0.5 or 1: a layer spread in phase, which the batch evaluates
    /// through its forward path (blocks of such timings skip the speed column and the
    /// reversed-playback cases).
    public var forwardTiming = false

    /// A generator seeded with `seed`.
    public init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    /// A generator seeded with `seed` whose timings are all plain when `plainTiming` is true, and
    /// all forward (speed 1, time offsets) when `forwardTiming` is.
    public init(seed: UInt64, plainTiming: Bool, forwardTiming: Bool = false) {
        self.init(seed: seed)
        self.plainTiming = plainTiming
        self.forwardTiming = forwardTiming
    }

    /// The properties a random layer has, with their kinds.
    public static let properties: [(name: String, kind: ValueKind)] = [
        ("opacity", .scalar), ("position", .point), ("bounds", .rect), ("backgroundColor", .color),
        ("transform", .transform), ("shadowOffset", .size), ("progress", .scalar),
    ]

    /// Every multiple of 1/16 in [−1, 9]: each random animation begins and ends on one of these.
    public static let boundaryTimes: [Double] = (-16...144).map { Double($0) / 16 }

    mutating func unit() -> Double { Double.random(in: 0..<1, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    mutating func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &rng)] }
    mutating func number(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }

    // MARK: Pieces

    /// Random timing: begin times and durations on the 1/16 s grid, speeds (0 and negative included),
    /// offsets, repeats, autoreverse, fill modes (speed 1 and no offset when ``plainTiming``).
    public mutating func timing() -> MediaTiming {
        var t = MediaTiming()
        t.beginTime = pick([0, 0, 0.25, 0.5, 1, -0.5, 1.5])
        t.duration = pick([0, 0.25, 0.5, 0.75, 1, 1, 1.5, 2])
        t.speed = pick([1, 1, 1, 1, 2, 0.5, -1, 0])
        t.timeOffset = chance(0.7) ? 0 : pick([0.25, 0.5, -0.25, 1])
        if forwardTiming { (t.speed, t.timeOffset) = (1, pick([0, 0.25, 0.5, -0.25, 1])) }
        if plainTiming { (t.speed, t.timeOffset) = (1, 0) }
        if chance(0.1) {
            t.repeatDuration = pick([0.75, 1.25, 2.5])
        } else {
            t.repeatCount = pick([0, 0, 0, 0.5, 1, 1.5, 2, 3, .infinity])
        }
        t.autoreverses = chance(0.25)
        t.fillMode = pick(FillMode.allCases)
        return t
    }

    /// nil (linear), a named curve, a random curve, or (5 %) a nearly vertical one.
    public mutating func timingFunction() -> TimingFunction? {
        switch unit() {
        case ..<0.25: return nil
        case ..<0.6: return TimingFunction(name: pick(TimingFunction.Name.allCases))
        case ..<0.95:
            return try? TimingFunction(controlPoints: number(0...1), number(-0.5...1.5), number(0...1), number(-0.5...1.5))
        default:
            // Nearly vertical mid-curve: some go to the Double fallback (TimingCurveBatch.usesFloatKernel).
            return try? TimingFunction(controlPoints: number(0.97...1), number(-1...2), number(0...0.03), number(-1...2))
        }
    }

    /// A random value of `kind`.
    public mutating func value(_ kind: ValueKind) -> AnimationValue {
        switch kind {
        case .scalar: return .scalar(number(-100...100))
        case .point: return .point(Point(x: number(-100...100), y: number(-100...100)))
        case .size: return .size(Size(width: number(-100...100), height: number(-100...100)))
        case .rect: return .rect(Rect(x: number(-100...100), y: number(-100...100), width: number(0...200), height: number(0...200)))
        case .color: return .color(Color(red: number(0...1), green: number(0...1), blue: number(0...1), alpha: number(0...1)))
        case .transform:
            var m = Transform3D.scale(x: number(0.5...2), y: number(0.5...2), z: number(0.5...2))
                .concatenating(.rotation(angle: number(-3...3), x: number(-1...1), y: number(-1...1), z: number(0.1...1)))
                .concatenating(.translation(x: number(-100...100), y: number(-100...100), z: number(-50...50)))
            if chance(0.2) { m.m34 = -1 / number(300...1000) }
            return .transform(m)
        case .affineTransform:
            return .affineTransform(AffineTransform.rotation(angle: number(-3...3)).scaledBy(x: number(0.5...2), y: number(0.5...2))
                .translatedBy(x: number(-100...100), y: number(-100...100)))
        }
    }

    /// A random path: an ellipse, a rounded rectangle, or lines, curves, arcs, moves and closes.
    public mutating func path() -> Path {
        var p = Path()
        switch unit() {
        case ..<0.1:
            p.addEllipse(in: Rect(x: number(-100...0), y: number(-100...0), width: number(10...200), height: number(10...200)))
        case ..<0.2:
            p.addRoundedRect(in: Rect(x: number(-100...0), y: number(-100...0), width: number(20...200), height: number(20...200)),
                             cornerWidth: number(0...10), cornerHeight: number(0...10))
        default:
            p.move(to: Point(x: number(-100...100), y: number(-100...100)))
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                let to = Point(x: number(-100...100), y: number(-100...100))
                switch unit() {
                case ..<0.3: p.addLine(to: to)
                case ..<0.5: p.addQuadCurve(to: to, control: Point(x: number(-100...100), y: number(-100...100)))
                case ..<0.75:
                    p.addCurve(to: to, control1: Point(x: number(-100...100), y: number(-100...100)),
                               control2: Point(x: number(-100...100), y: number(-100...100)))
                case ..<0.9:
                    p.addArc(center: Point(x: number(-50...50), y: number(-50...50)), radius: number(5...80),
                             startAngle: number(-3...3), endAngle: number(-6...6), clockwise: chance(0.5))
                case ..<0.95: p.move(to: to)
                default: p.closeSubpath()
                }
            }
        }
        return p
    }

    mutating func configure(_ a: inout some PropertyAnimation) {
        a.timing = timing()
        a.timingFunction = timingFunction()
        a.isRemovedOnCompletion = chance(0.5)
        a.isAdditive = chance(0.15)
        a.isCumulative = chance(0.15)
    }

    /// A random basic animation of `keyPath` (from/to/by in every combination).
    public mutating func basic(_ keyPath: String, _ kind: ValueKind) -> BasicAnimation {
        var a = BasicAnimation(keyPath: keyPath)
        configure(&a)
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: (a.fromValue, a.toValue) = (value(kind), value(kind))
        case 1: (a.fromValue, a.byValue) = (value(kind), value(kind))
        case 2: (a.toValue, a.byValue) = (value(kind), value(kind))
        case 3: a.fromValue = value(kind)
        case 4: a.toValue = value(kind)
        case 5: a.byValue = value(kind)
        default: break
        }
        return a
    }

    /// A random spring animation of `keyPath`.
    public mutating func spring(_ keyPath: String, _ kind: ValueKind) -> SpringAnimation {
        var s = SpringAnimation(keyPath: keyPath)
        configure(&s)
        s.fromValue = chance(0.8) ? value(kind) : nil
        s.toValue = value(kind)
        s.mass = number(0.5...2)
        s.stiffness = number(50...300)
        s.damping = pick([number(0...5), number(5...40), number(40...80)])
        s.initialVelocity = number(-10...10)
        s.allowsOverdamping = chance(0.4)
        s.duration = pick([0.5, 1, 2, 3])
        return s
    }

    /// A random keyframe animation of `keyPath` in any calculation mode.
    public mutating func keyframes(_ keyPath: String, _ kind: ValueKind) -> KeyframeAnimation {
        var k = KeyframeAnimation(keyPath: keyPath)
        configure(&k)
        let n = Int.random(in: 1...8, using: &rng)
        k.values = (0..<n).map { _ in value(kind) }
        k.calculationMode = pick(CalculationMode.allCases)
        if chance(0.4) {
            let count = k.calculationMode == .discrete ? n + 1 : n
            var times = (0..<count).map { _ in number(0...1) }.sorted()
            if count > 0 { times[0] = 0 }
            if count > 1 { times[count - 1] = 1 }
            if count > 3 && chance(0.2) { times[2] = times[1] }   // a zero-length segment: a jump
            k.keyTimes = times
        }
        if chance(0.3) { k.timingFunctions = (0..<max(n - 1, 0)).compactMap { _ in timingFunction() ?? .linear } }
        if chance(0.3) {
            k.tensionValues = (0..<n).map { _ in number(-1...1) }
            k.continuityValues = (0..<n).map { _ in number(-1...1) }
            k.biasValues = (0..<n).map { _ in number(-1...1) }
        }
        return k
    }

    /// A random path animation of `position`, in any mode, with or without a rotation mode.
    public mutating func pathAnimation() -> KeyframeAnimation {
        var k = KeyframeAnimation(keyPath: "position")
        configure(&k)
        k.path = path()
        k.calculationMode = pick(CalculationMode.allCases)
        if chance(0.3) { k.rotationMode = pick(RotationMode.allCases) }
        if chance(0.2) { k.timingFunctions = (0..<6).map { _ in timingFunction() ?? .linear } }
        return k
    }

    /// A random property animation on one of the layer's properties (or a field of one).
    public mutating func propertyAnimation() -> any PropertyAnimation {
        if chance(0.1) {
            let (keyPath, kind): (String, ValueKind) = pick([("position.x", .scalar), ("bounds.size.width", .scalar),
                                                             ("bounds.origin", .point), ("transform.rotation.z", .scalar),
                                                             ("transform.scale", .scalar), ("transform.translation.x", .scalar),
                                                             ("transform.translation", .size)])
            return chance(0.5) ? basic(keyPath, kind) : keyframes(keyPath, kind)
        }
        if chance(0.03) {
            var v = basic("transform", .scalar)
            v.fromValue = .scalar(number(-3...3))
            v.toValue = .scalar(number(-3...3))
            v.byValue = nil
            v.valueFunction = pick(ValueFunction.allCases)
            return v
        }
        if chance(0.1) { return pathAnimation() }
        let (name, kind) = pick(Self.properties)
        switch unit() {
        case ..<0.4: return basic(name, kind)
        case ..<0.6: return spring(name, kind)
        default:
            var k = keyframes(name, kind)
            if kind == .transform && (k.calculationMode == .cubic || k.calculationMode == .cubicPaced) && chance(0.5) {
                k.calculationMode = .linear
            }
            return k
        }
    }

    /// A random group: 1–3 children, sometimes a nested group, with its own timing.
    public mutating func group(depth: Int = 0) -> AnimationGroup {
        var g = AnimationGroup()
        g.timing = timing()
        g.timingFunction = timingFunction()
        g.isRemovedOnCompletion = chance(0.5)
        g.duration = pick([0, 0.5, 1, 2, 3])
        var children: [any Animation] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            if depth < 1 && chance(0.2) {
                children.append(group(depth: depth + 1))
            } else {
                children.append(propertyAnimation())
            }
        }
        g.animations = children
        return g
    }

    /// A random animation: a property animation, or (15 %) a group.
    public mutating func animation() -> any Animation {
        if chance(0.15) { return group() }
        return propertyAnimation()
    }

    /// A layer with every property of ``properties`` set to a random model value and 1–3 random
    /// animations.
    public mutating func layer(_ id: LayerID) -> RandomLayer {
        var model: [String: AnimationValue] = [:]
        for (name, kind) in Self.properties { model[name] = value(kind) }
        var animations: [any Animation] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) { animations.append(animation()) }
        return RandomLayer(layer: id, model: model, animations: animations)
    }
}
