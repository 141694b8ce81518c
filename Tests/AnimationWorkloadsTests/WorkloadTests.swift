import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// The standard workloads (docs/architecture.md, "Standard workloads") are what every benchmark, the CLI's
/// `bench` and the reports measure: these tests pin their definition, so that figures from
/// different versions measure the same thing.
@Suite("Workloads")
struct WorkloadTests {
    @Test("SplitMix64 gives the published sequence (Vigna's splitmix64.c: seeds 0 and 1234567)")
    func splitMix() {
        var zero = SplitMix64(seed: 0)
        #expect([zero.next(), zero.next(), zero.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
        var other = SplitMix64(seed: 1_234_567)
        #expect(other.next() == 6_457_827_717_110_365_317)
        #expect(other.next() == 0x2C73_F084_5854_0FA5)
    }

    @Test("W1: every fifth curve named, the others from 4,096 random curves in the stated ranges, inputs in [0, 1] padded with zeros, reproducible from the seed")
    func w1() {
        let a = W1Workload(count: 1_000, seed: 1), b = W1Workload(count: 1_000, seed: 1), c = W1Workload(count: 1_000, seed: 2)
        defer { a.deallocate(); b.deallocate(); c.deallocate() }
        #expect(a.functions.count == 1_000)
        #expect(a.inputs.count == 1_008)   // a multiple of 16
        let named = TimingFunction.Name.allCases.map(TimingFunction.init(name:))
        var randomCurves = Set<TimingFunction>()
        for (i, f) in a.functions.enumerated() {
            if i % 5 == 0 {
                #expect(f == named[(i / 5) % named.count], "element \(i)")
            } else {
                #expect((0...1).contains(f.x1) && (0...1).contains(f.x2), "element \(i): \(f)")
                #expect((-0.5...1.5).contains(f.y1) && (-0.5...1.5).contains(f.y2), "element \(i): \(f)")
                randomCurves.insert(f)
            }
        }
        // 800 draws from 4,096 curves: about 730 distinct are expected; far fewer would mean the
        // random set collapsed.
        #expect(randomCurves.count > 600)
        #expect((0..<1_000).allSatisfy { (0...1).contains(a.inputs[$0]) })
        #expect((1_000..<1_008).allSatisfy { a.inputs[$0] == 0 })
        #expect(a.functions == b.functions && Array(a.inputs) == Array(b.inputs))
        #expect(Array(a.inputs) != Array(c.inputs))
    }

    /// The W2 family of a layer's single animation.
    static func family(_ animation: any Animation) -> W2Workload.Family? {
        switch animation {
        case let b as BasicAnimation:
            switch b.keyPath {
            case "opacity": .basicScalar
            case "position": .basicPoint
            case "backgroundColor": .basicColor
            default: nil
            }
        case let k as KeyframeAnimation:
            k.path != nil ? (k.calculationMode == .paced ? .path : nil) : (k.values?.count == 8 ? .keyframe : nil)
        case is SpringAnimation: .spring
        default: nil
        }
    }

    @Test("W2: one animation per layer in the mix's shares (40/15/10/15/10/10 %), reproducible from the seed; `only` gives one family")
    func w2Mix() {
        let n = 4_000
        let w = W2Workload(properties: n)
        #expect(w.layers.count == n)
        #expect(Set(w.layers.map(\.layer)).count == n)
        var counts: [W2Workload.Family: Int] = [:]
        for layer in w.layers {
            #expect(layer.animations.count == 1)
            guard let animation = layer.animations.first, let family = Self.family(animation) else {
                Issue.record("layer \(layer.layer): not a W2 animation: \(layer.animations)")
                continue
            }
            counts[family, default: 0] += 1
        }
        let shares: [W2Workload.Family: Double] = [.basicScalar: 0.40, .basicPoint: 0.15, .basicColor: 0.10,
                                                   .keyframe: 0.15, .path: 0.10, .spring: 0.10]
        for (family, share) in shares {
            // ±3 percentage points: over four standard deviations of a binomial share at n = 4,000.
            let measured = Double(counts[family, default: 0]) / Double(n)
            #expect(abs(measured - share) < 0.03, "\(family): \(measured)")
        }
        let again = W2Workload(properties: 200)
        #expect(String(describing: again.layers.map(\.animations)) == String(describing: W2Workload(properties: 200).layers.map(\.animations)))
        #expect(String(describing: again.layers.map(\.animations)) != String(describing: W2Workload(properties: 200, seed: 3).layers.map(\.animations)))
        for family in W2Workload.Family.allCases {
            let only = W2Workload(properties: 300, only: family)
            #expect(only.layers.allSatisfy { $0.animations.count == 1 && Self.family($0.animations[0]) == family }, "\(family)")
        }
    }

    @Test("W2's store holds one track per property, and a frame agrees with the reference within the precision table")
    func w2Store() throws {
        let w = W2Workload(properties: 300)
        let store = try w.makeStore()
        #expect(store.trackCount == 300)
        let evaluator = FrameEvaluator(store: store)
        for t in [W2Workload.frameTimes(120)[30], W2Workload.frameTimes(120)[90]] {
            evaluator.evaluate(at: t)
            for layer in w.layers {
                for (property, expected) in ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t) {
                    let value = try #require(evaluator.value(layer: layer.layer, property: property))
                    let bound = PrecisionTable.tolerance(property: property, model: layer.model[property], animations: layer.animations,
                                                         reference: expected)
                    #expect(PrecisionTable.maxDifference(value, expected) <= bound, "\(layer.layer) \(property) at \(t)")
                }
            }
        }
        let times: [Double] = [0, 1.0 / 60, 2.0 / 60]
        #expect(W2Workload.frameTimes(3) == times)
    }

    @Test("the precision table: a spring's share grows with the value judged; a bound kept for a layer gives the same tolerance")
    func precisionTableBoundsKept() {
        var bounce = SpringAnimation(keyPath: "opacity")
        (bounce.fromValue, bounce.toValue) = (0, 10)
        // scale = max(|reference|, 10 · 2); the spring's share 1e-4 · 2 · scale · 1.
        for reference in [0.5, 100.0] {
            let scale = max(reference, 20)
            let expected = 1e-5 * (1 + 2 * scale) + 1e-4 * 2 * scale
            #expect(abs(PrecisionTable.tolerance(property: "opacity", model: 0, animations: [bounce], reference: .scalar(reference)) - expected) < 1e-12)
        }
        var kept = PrecisionTable.Bounds()
        for reference in [0.5, 100.0, -3.0, 1e6] {
            #expect(kept.tolerance(property: "opacity", model: 0, animations: [bounce], reference: .scalar(reference))
                    == PrecisionTable.tolerance(property: "opacity", model: 0, animations: [bounce], reference: .scalar(reference)))
        }
    }

    @Test("the precision table: a basic animation's bound, and how values compare (NaN, kinds, Float saturation)")
    func precisionTable() {
        var fade = BasicAnimation(keyPath: "opacity")
        (fade.fromValue, fade.toValue) = (2, -3)
        // scale = max(|reference|, |model|, |v|·(repeats + 1)) with one repeat: 3 · 2 = 6.
        let bound = PrecisionTable.tolerance(property: "opacity", model: 1, animations: [fade], reference: 0.5)
        #expect(abs(bound - 1e-5 * (1 + 2 * 6)) < 1e-12)
        // Another property's animations do not count.
        #expect(PrecisionTable.tolerance(property: "position", model: .point(.zero), animations: [fade], reference: .point(.zero)) == 1e-5)
        #expect(PrecisionTable.maxDifference(1, 1.5) == 0.5)
        #expect(PrecisionTable.maxDifference(.scalar(.nan), .scalar(.nan)) == 0)
        #expect(PrecisionTable.maxDifference(.scalar(.nan), 1) == .infinity)
        #expect(PrecisionTable.maxDifference(1, .point(Point(x: 1, y: 0))) == .infinity)
        // Float saturation: +∞ stands for a finite value beyond ±3.4e38 of the same sign, no other.
        #expect(PrecisionTable.maxDifference(.scalar(.infinity), .scalar(4e38)) == 0)
        #expect(PrecisionTable.maxDifference(.scalar(.infinity), .scalar(-4e38)) == .infinity)
        #expect(PrecisionTable.maxDifference(.scalar(.infinity), .scalar(1)) == .infinity)
        #expect(PrecisionTable.magnitude(.point(Point(x: -7, y: 2))) == 7)
    }

    @Test("random animations: the same seed gives the same layers; plain timing means speed 1 and no offset everywhere")
    func randomAnimations() {
        var a = RandomAnimations(seed: 5), b = RandomAnimations(seed: 5)
        let first = (1...40).map { a.layer(LayerID(UInt64($0))) }, second = (1...40).map { b.layer(LayerID(UInt64($0))) }
        #expect(String(describing: first.map(\.animations)) == String(describing: second.map(\.animations)))
        var plain = RandomAnimations(seed: 5, plainTiming: true)
        let layers = (1...200).map { plain.layer(LayerID(UInt64($0))) }
        let leaves = layers.flatMap { $0.animations.flatMap(\.leaves) }
        #expect(leaves.count >= 200)
        #expect(leaves.allSatisfy { $0.animation.timing.speed == 1 && $0.animation.timing.timeOffset == 0 })
        #expect(layers.allSatisfy { $0.animations.allSatisfy { $0.timing.speed == 1 && $0.timing.timeOffset == 0 } })
        #expect(RandomAnimations.boundaryTimes.first == -1 && RandomAnimations.boundaryTimes.last == 9)
    }
}
