import Testing
@testable import AnimationBatch
import AnimationCore
import AnimationWorkloads

/// `KeptAnimation`: what the engine keeps of an added animation comes back exactly (semantics
/// §1.2: an animation read back is the animation added).
@Suite struct KeptAnimationTests {
    /// Doubles a user can give, the awkward ones included (NaN with a payload, −0, infinities).
    static func number(_ g: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<8, using: &g) {
        case 0: return Double(bitPattern: 0x7FF8_0000_0000_1234)
        case 1: return -0.0
        case 2: return .infinity
        case 3: return -Double.greatestFiniteMagnitude
        default: return Double.random(in: -1e6...1e6, using: &g)
        }
    }

    static func value(_ kind: ValueKind, _ g: inout SplitMix64) -> AnimationValue {
        AnimationValue(kind: kind) { _ in number(&g) }
    }

    static func settings(_ g: inout SplitMix64) -> PropertyAnimationSettings {
        var s = PropertyAnimationSettings()
        func maybe(_ v: inout Double) { if Bool.random(using: &g) { v = number(&g) } }
        maybe(&s.timing.beginTime)
        maybe(&s.timing.duration)
        maybe(&s.timing.speed)
        maybe(&s.timing.timeOffset)
        maybe(&s.timing.repeatCount)
        maybe(&s.timing.repeatDuration)
        s.timing.autoreverses = Bool.random(using: &g)
        s.timing.isInstant = Bool.random(using: &g)
        s.timing.fillMode = FillMode.allCases.randomElement(using: &g)!
        s.timingFunction = [nil, .easeIn, .default, try! TimingFunction(controlPoints: 0.3, -2.5, 0.9, 7.25)].randomElement(using: &g)!
        s.isRemovedOnCompletion = Bool.random(using: &g)
        s.isAdditive = Bool.random(using: &g)
        s.isCumulative = Bool.random(using: &g)
        s.valueFunction = Bool.random(using: &g) ? ValueFunction.allCases.randomElement(using: &g) : nil
        return s
    }

    static func keyPath(_ g: inout SplitMix64) -> String {
        ["", "opacity", "transform.rotation.z", "sublayerTransform.translation.x", "ünïcödé.wéight", String(repeating: "k", count: 300)]
            .randomElement(using: &g)!
    }

    /// Bit patterns of every number a value holds, so that NaN compares equal to itself.
    static func bits(_ v: AnimationValue?) -> [UInt64]? {
        guard let v else { return nil }
        var out: [UInt64] = [UInt64(ValueKind.allCases.firstIndex(of: v.kind)!)]
        v.forEachComponent { _, x in out.append(x.bitPattern) }
        return out
    }

    static func bits(_ s: PropertyAnimationSettings) -> [UInt64] {
        let t = s.timing
        var out = [t.beginTime, t.duration, t.speed, t.timeOffset, t.repeatCount, t.repeatDuration].map(\.bitPattern)
        out += [t.autoreverses ? 1 : 0, t.isInstant ? 1 : 0, UInt64(FillMode.allCases.firstIndex(of: t.fillMode)!)]
        out += s.timingFunction.map { [1, $0.x1.bitPattern, $0.y1.bitPattern, $0.x2.bitPattern, $0.y2.bitPattern] } ?? [0]
        out += [s.isRemovedOnCompletion ? 1 : 0, s.isAdditive ? 1 : 0, s.isCumulative ? 1 : 0]
        out += [s.valueFunction.map { UInt64(ValueFunction.allCases.firstIndex(of: $0)! + 1) } ?? 0]
        return out
    }

    @Test func `§1.2 a packed basic animation reads back bit for bit, every field`() throws {
        var g = SplitMix64(seed: 12)
        for _ in 0..<400 {
            var a = BasicAnimation(keyPath: Self.keyPath(&g))
            let kind = ValueKind.allCases.randomElement(using: &g)!
            if Bool.random(using: &g) { a.fromValue = Self.value(kind, &g) }
            if Bool.random(using: &g) { a.toValue = Self.value(kind, &g) }
            if Bool.random(using: &g) { a.byValue = Self.value(kind, &g) }
            a.settings = Self.settings(&g)
            let kept = KeptAnimation(a)
            guard case .packed = kept else { Issue.record("a basic animation was boxed"); continue }
            let back = try #require(kept.animation as? BasicAnimation)
            #expect(back.keyPath == a.keyPath)
            #expect(Self.bits(back.fromValue) == Self.bits(a.fromValue))
            #expect(Self.bits(back.toValue) == Self.bits(a.toValue))
            #expect(Self.bits(back.byValue) == Self.bits(a.byValue))
            #expect(Self.bits(back.settings) == Self.bits(a.settings))
        }
    }

    @Test func `§1.2 a packed spring animation reads back bit for bit, its parameters included`() throws {
        var g = SplitMix64(seed: 99)
        for _ in 0..<400 {
            var a = SpringAnimation(keyPath: Self.keyPath(&g))
            let kind = ValueKind.allCases.randomElement(using: &g)!
            if Bool.random(using: &g) { a.fromValue = Self.value(kind, &g) }
            if Bool.random(using: &g) { a.toValue = Self.value(kind, &g) }
            a.settings = Self.settings(&g)
            (a.mass, a.stiffness, a.damping, a.initialVelocity) = (Self.number(&g), Self.number(&g), Self.number(&g), Self.number(&g))
            a.allowsOverdamping = Bool.random(using: &g)
            let kept = KeptAnimation(a)
            guard case .packed = kept else { Issue.record("a spring animation was boxed"); continue }
            let back = try #require(kept.animation as? SpringAnimation)
            #expect(back.keyPath == a.keyPath)
            #expect(Self.bits(back.fromValue) == Self.bits(a.fromValue))
            #expect(Self.bits(back.toValue) == Self.bits(a.toValue))
            #expect(back.byValue == nil)
            #expect(Self.bits(back.settings) == Self.bits(a.settings))
            #expect([back.mass, back.stiffness, back.damping, back.initialVelocity].map(\.bitPattern)
                    == [a.mass, a.stiffness, a.damping, a.initialVelocity].map(\.bitPattern))
            #expect(back.allowsOverdamping == a.allowsOverdamping)
        }
    }

    static func path(_ g: inout SplitMix64) -> Path {
        var elements: [Path.Element] = [.move(to: Point(x: number(&g), y: number(&g)))]
        for _ in 0..<Int.random(in: 0..<6, using: &g) {
            let p = Point(x: number(&g), y: number(&g)), c = Point(x: number(&g), y: number(&g))
            elements.append([.line(to: p), .quadCurve(to: p, control: c), .curve(to: p, control1: c, control2: Point(x: 1, y: -0.0)),
                             .closeSubpath, .move(to: c)].randomElement(using: &g)!)
        }
        return Path(elements: elements)
    }

    static func list(_ g: inout SplitMix64) -> [Double]? {
        Bool.random(using: &g) ? (0..<Int.random(in: 0..<5, using: &g)).map { _ in number(&g) } : nil
    }

    static func bits(_ list: [Double]?) -> [UInt64]? { list.map { $0.map(\.bitPattern) } }

    /// A path's elements, current point and subpath start as bit patterns (NaN equals itself).
    static func bits(_ path: Path?) -> [UInt64]? {
        guard let path else { return nil }
        func point(_ p: Point?) -> [UInt64] { p.map { [1, $0.x.bitPattern, $0.y.bitPattern] } ?? [0] }
        var out: [UInt64] = []
        for element in path.elements {
            switch element {
            case .move(let p): out += [0] + point(p)
            case .line(let p): out += [1] + point(p)
            case .quadCurve(let p, let c): out += [2] + point(p) + point(c)
            case .curve(let p, let c1, let c2): out += [3] + point(p) + point(c1) + point(c2)
            case .closeSubpath: out += [4]
            }
        }
        return out + point(path.currentPoint)
    }

    @Test func `§1.2 §5 a packed keyframe animation reads back bit for bit: values, path, key times, functions, spline parameters, modes`() throws {
        var g = SplitMix64(seed: 5)
        for _ in 0..<300 {
            var k = KeyframeAnimation(keyPath: Self.keyPath(&g))
            let kind = ValueKind.allCases.randomElement(using: &g)!
            if Bool.random(using: &g) { k.values = (0..<Int.random(in: 0..<9, using: &g)).map { _ in Self.value(kind, &g) } }
            if Bool.random(using: &g) { k.path = Self.path(&g) }
            k.keyTimes = Self.list(&g)
            if Bool.random(using: &g) { k.timingFunctions = [.easeIn, try TimingFunction(controlPoints: 0.1, 3, 0.2, -1)] }
            k.calculationMode = CalculationMode.allCases.randomElement(using: &g)!
            (k.tensionValues, k.continuityValues, k.biasValues) = (Self.list(&g), Self.list(&g), Self.list(&g))
            k.rotationMode = Bool.random(using: &g) ? RotationMode.allCases.randomElement(using: &g) : nil
            k.settings = Self.settings(&g)
            let kept = KeptAnimation(k)
            guard case .packed = kept else { Issue.record("a keyframe animation was boxed"); continue }
            let back = try #require(kept.animation as? KeyframeAnimation)
            #expect(back.keyPath == k.keyPath)
            #expect(back.values.map { $0.map { Self.bits($0)! } } == k.values.map { $0.map { Self.bits($0)! } })
            #expect(Self.bits(back.path) == Self.bits(k.path))
            #expect(Self.bits(back.keyTimes) == Self.bits(k.keyTimes))
            #expect(back.timingFunctions == k.timingFunctions)
            #expect(back.calculationMode == k.calculationMode && back.rotationMode == k.rotationMode)
            #expect(Self.bits(back.tensionValues) == Self.bits(k.tensionValues))
            #expect(Self.bits(back.continuityValues) == Self.bits(k.continuityValues))
            #expect(Self.bits(back.biasValues) == Self.bits(k.biasValues))
            #expect(Self.bits(back.settings) == Self.bits(k.settings))
            // The plan is rebuilt from the same inputs: the same key times in use.
            #expect(Self.bits(back.effectiveKeyTimes) == Self.bits(k.effectiveKeyTimes))
        }
    }

    @Test func `§1.2 groups, values of mixed kinds and over-long key paths are kept as given`() throws {
        let group = AnimationGroup(animations: [BasicAnimation(keyPath: "opacity", from: 0, to: 1, duration: 1)], duration: 2)
        guard case .boxed(let box) = KeptAnimation(group) else { Issue.record("a group was packed"); return }
        #expect((box.animation as? AnimationGroup)?.animations.count == 1)
        var mixed = KeyframeAnimation(keyPath: "position")
        mixed.values = [.scalar(1), .point(Point(x: 1, y: 2))]
        guard case .boxed = KeptAnimation(mixed) else { Issue.record("mixed keyframe values were packed"); return }
        var long = BasicAnimation(keyPath: String(repeating: "x", count: 70_000))
        long.toValue = 1
        guard case .boxed(let longBox) = KeptAnimation(long) else { Issue.record("a 70,000-byte key path was packed"); return }
        #expect((longBox.animation as? BasicAnimation)?.keyPath.utf8.count == 70_000)
    }

    @Test func `a packed basic animation of a number takes at most 56 bytes`() {
        var a = BasicAnimation(keyPath: "opacity")
        (a.fromValue, a.toValue) = (0, 1)
        a.timing.duration = 1
        a.timing.repeatCount = .infinity
        guard case .packed(let packed) = KeptAnimation(a) else { Issue.record("not packed"); return }
        #expect(packed.payloadBytes <= 56)   // header, key path, two values, two timing fields
    }
}
