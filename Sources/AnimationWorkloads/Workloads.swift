import AnimationBatch
import AnimationCore
import CBuildInfo

/// What the running binary was built for: the CPU features its C targets saw (the `-Xcc` flags
/// reach Swift's code generation too) and whether it is optimised.
public enum BuildInfo {
    /// For example "x86-64 sse4.2 avx avx2 fma avx512f" for `-Xcc -march=native` on this machine, or
    /// "x86-64" for a portable build.
    public static var cpuFeatures: String { String(cString: animation_build_cpu_features()) }

    /// "release" or "debug".
    public static var configuration: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// A one-line description: configuration and CPU features, naming the flag that produces them.
    public static var summary: String {
        let features = cpuFeatures
        let flags = features.contains("avx512f") || features.contains("avx2") ? "CPU-specific (-Xcc -march=…)" : "portable"
        return "\(configuration), \(flags): \(features)"
    }
}

/// Workload W1 of docs/architecture.md: cubic timing functions evaluated at random progress values — the
/// five named curves and 4,096 random curves (x1, x2 in [0, 1], y1, y2 in [−0.5, 1.5]).
public struct W1Workload {
    /// One curve per element (a fifth named, the rest drawn from the random set).
    public let functions: [TimingFunction]
    /// Inputs in [0, 1], padded with zeros to a multiple of 16.
    public let inputs: UnsafeMutableBufferPointer<Float>

    /// `count` functions and inputs from `seed` (allocates the inputs: call ``deallocate()``).
    public init(count: Int = 1_000_000, seed: UInt64 = 1) {
        var rng = SplitMix64(seed: seed)
        let named: [TimingFunction] = TimingFunction.Name.allCases.map(TimingFunction.init(name:))
        var random: [TimingFunction] = []
        for _ in 0..<4096 {
            let f = try? TimingFunction(controlPoints: Double.random(in: 0...1, using: &rng), Double.random(in: -0.5...1.5, using: &rng),
                                        Double.random(in: 0...1, using: &rng), Double.random(in: -0.5...1.5, using: &rng))
            random.append(f ?? .linear)
        }
        var functions: [TimingFunction] = []
        functions.reserveCapacity(count)
        for i in 0..<count {
            functions.append(i % 5 == 0 ? named[(i / 5) % named.count] : random[Int.random(in: 0..<random.count, using: &rng)])
        }
        self.functions = functions
        let padded = (count + 15) / 16 * 16
        inputs = .allocate(capacity: padded)   // whole blocks for the kernel; owned by the workload, freed once by `deallocate()`
        for i in 0..<padded { inputs[i] = i < count ? Float.random(in: 0...1, using: &rng) : 0 }
    }

    /// Frees the inputs.
    public func deallocate() { inputs.deallocate() }
}

/// Workload W2 of docs/architecture.md: N animated properties, one per layer — 40 % basic scalar (named and
/// custom curves), 15 % basic point, 10 % basic colour, 15 % keyframe (8 keys; linear, cubic,
/// discrete), 10 % path position in paced mode (arcs and curves), 10 % spring — with begin times,
/// durations, repeat counts, autoreverse and fill modes drawn at random from a fixed seed; a frame
/// every 1/60 s.
public struct W2Workload {
    /// One layer per property, each with one animation.
    public let layers: [RandomLayer]

    /// The animation families of W2, for measuring one kernel family alone.
    public enum Family: String, CaseIterable, Sendable {
        case basicScalar, basicPoint, basicColor, keyframe, path, spring

        /// The family's share of the mix.
        var share: ClosedRange<Double> {
            switch self {
            case .basicScalar: 0...0.40
            case .basicPoint: 0.40...0.55
            case .basicColor: 0.55...0.65
            case .keyframe: 0.65...0.80
            case .path: 0.80...0.90
            case .spring: 0.90...1
            }
        }
    }

    /// The frame times of a run: `frames` frames at 60 Hz from 0.
    public static func frameTimes(_ frames: Int) -> [Double] { (0..<frames).map { Double($0) / 60 } }

    /// Builds the layers (no store yet).
    /// - Parameters:
    ///   - count: the number of animated properties (one layer each).
    ///   - seed: the random seed (the same seed gives the same workload).
    ///   - only: every property of this family instead of the mix.
    ///   - progress: called now and then with the fraction done.
    public init(properties count: Int, seed: UInt64 = 2, only: Family? = nil, progress: (Double) -> Void = { _ in }) {
        var generator = Generator(seed: seed, only: only)
        var layers: [RandomLayer] = []
        layers.reserveCapacity(count)
        for i in 0..<count {
            if i % 65_536 == 0 { progress(Double(i) / Double(count)) }
            layers.append(generator.layer(i))
        }
        progress(1)
        self.layers = layers
    }

    /// A workload of the given layers (a sample of a larger one, ``streamedStore(properties:seed:only:sample:progress:)``).
    public init(layers: [RandomLayer]) {
        self.layers = layers
    }

    /// What ``init(properties:seed:only:progress:)`` then ``makeStore(progress:)`` give — the same
    /// store — built as the layers are drawn, keeping only every `count / sample`-th layer (the
    /// sample ``Measure/reference(_:evaluator:frames:sample:)`` judges, the same layers it would
    /// pick from the whole workload). A million layers' animations held beside the store were
    /// 0.9 GB of the million-property bench's peak.
    public static func streamedStore(properties count: Int, seed: UInt64 = 2, only: Family? = nil, sample: Int,
                                     progress: (Double) -> Void = { _ in }) throws -> (store: TrackStore, sample: W2Workload) {
        var generator = Generator(seed: seed, only: only)
        let store = TrackStore()
        let step = max(1, count / max(1, sample))
        var kept: [RandomLayer] = []
        for i in 0..<count {
            if i % 65_536 == 0 { progress(Double(i) / Double(count)) }
            let layer = generator.layer(i)
            try add(layer, to: store)
            if i % step == 0 { kept.append(layer) }
        }
        progress(1)
        return (store, W2Workload(layers: kept))
    }

    private static func add(_ layer: RandomLayer, to store: TrackStore) throws {
        for (property, value) in layer.model { try store.setModelValue(value, layer: layer.layer, property: property) }
        for animation in layer.animations { try store.add(animation, layer: layer.layer) }
    }

    /// Draws W2's layers in order from a seed.
    private struct Generator {
        var rng: SplitMix64
        let only: Family?
        var paths: [Path] = []

        init(seed: UInt64, only: Family?) {
            rng = SplitMix64(seed: seed)
            self.only = only
            // A library of paths made of arcs and curves, shared by the path animations.
            for _ in 0..<64 {
                var p = Path()
                p.addArc(center: Point(x: number(-100...100), y: number(-100...100)), radius: number(20...120),
                         startAngle: number(-3...3), endAngle: number(-3...3), clockwise: unit() < 0.5)
                p.addCurve(to: Point(x: number(-200...200), y: number(-200...200)), control1: Point(x: number(-200...200), y: number(-200...200)),
                           control2: Point(x: number(-200...200), y: number(-200...200)))
                p.addArc(center: Point(x: number(-100...100), y: number(-100...100)), radius: number(20...120),
                         startAngle: number(-3...3), endAngle: number(-3...3), clockwise: unit() < 0.5)
                paths.append(p)
            }
        }

        mutating func unit() -> Double { Double.random(in: 0..<1, using: &rng) }
        mutating func number(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
        mutating func curve() -> TimingFunction? {
            if unit() < 0.5 { return TimingFunction(name: TimingFunction.Name.allCases[Int(unit() * 5)]) }
            return try? TimingFunction(controlPoints: number(0...1), number(-0.5...1.5), number(0...1), number(-0.5...1.5))
        }
        mutating func timing() -> MediaTiming {
            MediaTiming(beginTime: number(0...1), duration: number(0.5...3), repeatCount: [0, 1, 2.5, .infinity][Int(unit() * 4)],
                        autoreverses: unit() < 0.3, fillMode: FillMode.allCases[Int(unit() * 4)])
        }
        mutating func point() -> AnimationValue { .point(Point(x: number(-200...200), y: number(-200...200))) }
        mutating func color() -> AnimationValue { .color(Color(red: unit(), green: unit(), blue: unit(), alpha: unit())) }

        /// Layer `i` (the layers must be drawn in order: each draws from the generator's stream).
        mutating func layer(_ i: Int) -> RandomLayer {
            var kind = unit()
            if let only { kind = only.share.lowerBound + (only.share.upperBound - only.share.lowerBound) * kind * 0.999 }
            let animation: any PropertyAnimation
            var model: [String: AnimationValue]
            if kind < 0.40 {
                var a = BasicAnimation(keyPath: "opacity")
                (a.fromValue, a.toValue) = (.scalar(number(0...1)), .scalar(number(0...1)))
                a.timing = timing()
                a.timingFunction = curve()
                a.isRemovedOnCompletion = false
                animation = a
                model = ["opacity": 1]
            } else if kind < 0.55 {
                var a = BasicAnimation(keyPath: "position")
                (a.fromValue, a.toValue) = (point(), point())
                a.timing = timing()
                a.timingFunction = curve()
                a.isRemovedOnCompletion = false
                animation = a
                model = ["position": .point(.zero)]
            } else if kind < 0.65 {
                var a = BasicAnimation(keyPath: "backgroundColor")
                (a.fromValue, a.toValue) = (color(), color())
                a.timing = timing()
                a.timingFunction = curve()
                a.isRemovedOnCompletion = false
                animation = a
                model = ["backgroundColor": .color(.clear)]
            } else if kind < 0.80 {
                let points = unit() < 0.5
                var k = KeyframeAnimation(keyPath: points ? "position" : "opacity")
                k.values = (0..<8).map { _ in points ? point() : .scalar(number(0...1)) }
                k.calculationMode = [CalculationMode.linear, .cubic, .discrete][Int(unit() * 3)]
                k.timing = timing()
                k.timingFunction = unit() < 0.5 ? nil : curve()
                k.isRemovedOnCompletion = false
                animation = k
                model = points ? ["position": .point(.zero)] : ["opacity": 1]
            } else if kind < 0.90 {
                var k = KeyframeAnimation(keyPath: "position")
                k.path = paths[Int(unit() * Double(paths.count))]
                k.calculationMode = .paced
                k.timing = timing()
                k.isRemovedOnCompletion = false
                animation = k
                model = ["position": .point(.zero)]
            } else {
                let points = unit() < 0.5
                var s = SpringAnimation(keyPath: points ? "position" : "opacity")
                (s.fromValue, s.toValue) = points ? (point(), point()) : (.scalar(number(0...1)), .scalar(number(0...1)))
                s.mass = number(0.5...2)
                s.stiffness = number(50...300)
                s.damping = number(5...30)
                s.initialVelocity = number(-5...5)
                s.timing = timing()
                s.duration = s.settlingDuration
                s.isRemovedOnCompletion = false
                animation = s
                model = points ? ["position": .point(.zero)] : ["opacity": 1]
            }
            return RandomLayer(layer: LayerID(UInt64(i + 1)), model: model, animations: [animation])
        }
    }

    /// A store holding every layer's model and animation.
    public func makeStore(progress: (Double) -> Void = { _ in }) throws -> TrackStore {
        let store = TrackStore()
        for (i, layer) in layers.enumerated() {
            if i % 65_536 == 0 { progress(Double(i) / Double(layers.count)) }
            try Self.add(layer, to: store)
        }
        progress(1)
        return store
    }
}
