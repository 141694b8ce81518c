import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Foundation
import Testing

@Suite("The batch engine's velocity column (docs/velocity.md)")
struct VelocityColumnTests {
    /// The column's error, measured against the scalar reference's analytic velocity.
    static func differences(seed: UInt64, layers: Int, times: Int, plain: Bool = false, clocks: Bool = false) throws
        -> (compared: Int, computed: Int, worst: Double, failures: [String]) {
        let scene = try Scene(seed: seed, layers: layers, plainTiming: plain)
        if clocks {
            // Layer clocks (semantics §2.2): every other layer runs on its own time, some under a
            // parent's, at speeds that pause, reverse and double.
            for (k, layer) in scene.layers.enumerated() where k % 2 == 1 {
                let parent = k >= 3 && k % 3 == 0 ? scene.layers[k - 2].layer : nil
                try scene.store.setLayerTime(layer.layer, parent: parent,
                                             timing: LayerTiming(beginTime: Double(k % 4) * 0.25, speed: [2, 0.5, -1, 0][k % 4], timeOffset: 0.125))
            }
        }
        let evaluator = FrameEvaluator(store: scene.store, configuration: .init(reapsFinishedAnimations: false, computesVelocity: true))
        var rng = SplitMix64(seed: seed ^ 0x7E10C)
        var compared = 0, computed = 0, worst = 0.0
        var failures: [String] = []
        for _ in 0..<times {
            let t = Double.random(in: -1...9, using: &rng)
            evaluator.evaluate(at: t)
            for layer in scene.layers {
                for (property, _) in layer.model {
                    guard let slot = scene.store.slot(layer: layer.layer, property: property) else { continue }
                    let column = try #require(evaluator.velocity(of: slot))
                    let reference = try #require(scene.store.velocity(of: slot, atFrameTime: t))
                    compared += 1
                    guard evaluator.computedVelocity(of: slot) else { continue }
                    computed += 1
                    let error = maxDifference(column, reference) / max(1, magnitude(reference), scale(of: layer, property: property, at: t))
                    worst = max(worst, error)
                    if error > Self.bound(layer, property) { failures.append("layer \(layer.layer.rawValue) \(property) t = \(t): column \(column), reference \(reference)") }
                }
            }
        }
        return (compared, computed, worst, failures)
    }

    /// The column's bound relative to the velocity's scale (docs/velocity.md): 1e-3, and 1e-2
    /// where the batch shows cubic-paced keyframes resampled as linear keys (within 1e-6 of the
    /// values' scale): the velocity is their chords' slopes, whose error grows where the
    /// arc-length parameterisation has a kink.
    static func bound(_ layer: RandomLayer, _ property: String) -> Double {
        func resampled(_ a: any Animation) -> Bool {
            if let group = a as? AnimationGroup { return group.animations.contains(where: resampled) }
            guard let k = a as? KeyframeAnimation else { return false }
            return k.calculationMode == .cubicPaced && k.path == nil
        }
        return layer.animations.contains(where: resampled) ? 1e-2 : 1e-3
    }

    /// What the velocity is measured against: the value's own size per unit of time (a value
    /// moving by Δ over its duration moves at about Δ / duration).
    static func scale(of layer: RandomLayer, property: String, at t: Double) -> Double {
        let a = ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t - 1e-3)[property]!
        let b = ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t + 1e-3)[property]!
        return maxDifference(a, b) / 2e-3
    }

    /// Every row of every property after a frame, bits and all (NaN rows included).
    static func rows(_ evaluator: FrameEvaluator, properties: [String]) -> [[UInt64]] {
        properties.map { p in evaluator.velocities(of: p).map { Array($0.values).map(\.bitPattern) } ?? [] }
    }

    @Test("the column agrees with the reference's velocity for every kind the kernels compute")
    func columnAgreesWithTheReference() throws {
        let r = try Self.differences(seed: 0xC01, layers: TestScale.count(debug: 30, release: 300), times: TestScale.count(debug: 6, release: 40))
        print("velocity column: \(r.computed) of \(r.compared) velocities from the kernels, worst \(r.worst) of the velocity's scale")
        for f in r.failures.prefix(20) { print(f) }
        #expect(r.failures.isEmpty)
        #expect(r.computed * 10 >= r.compared * 8)   // most slots are the kernels' (whole transforms are not)
    }

    @Test("the column agrees with the reference under plain timings, groups nested in groups and layer clocks")
    func columnAgreesThroughClocksAndGroups() throws {
        let n = TestScale.count(debug: 30, release: 300), times = TestScale.count(debug: 5, release: 30)
        for (seed, plain, clocks) in [(UInt64(0xC02), true, false), (0xC03, false, true)] {
            let r = try Self.differences(seed: seed, layers: n, times: times, plain: plain, clocks: clocks)
            print("velocity column, seed \(seed): \(r.computed) of \(r.compared) from the kernels, worst \(r.worst)")
            for f in r.failures.prefix(10) { print("seed \(seed):", f) }
            #expect(r.failures.isEmpty, "seed \(seed): worst \(r.worst)")
            #expect(r.computed * 10 >= r.compared * 8)
        }
    }

    @Test("§5.6 a paced path moves at the tangent × its length, turning at a corner where it is, not across a table interval")
    func pacedPathTurnsAtCorners() throws {
        var square = Path()
        square.addLines(between: [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 100), Point(x: 0, y: 100)])
        let store = TrackStore()
        try store.setModelValue(.point(Point(x: 0, y: 0)), layer: LayerID(1), property: "position")
        _ = try store.add(KeyframeAnimation(keyPath: "position", path: square, calculationMode: .paced, duration: 3), layer: LayerID(1))
        let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
        // 300 points in 3 s: 100 points per second, along +x until t = 1, then along +y.
        for (t, expected) in [(0.5, Point(x: 100, y: 0)), (1 - 1e-5, Point(x: 100, y: 0)), (1 + 1e-5, Point(x: 0, y: 100)),
                              (2.5, Point(x: -100, y: 0))] {
            evaluator.evaluate(at: t)
            let slot = try #require(store.slot(layer: LayerID(1), property: "position"))
            #expect(evaluator.computedVelocity(of: slot))
            guard case .point(let v)? = evaluator.velocity(of: slot) else { Issue.record("no velocity at \(t)"); continue }
            #expect(abs(v.x - expected.x) <= 1e-3 * 100 && abs(v.y - expected.y) <= 1e-3 * 100, "t = \(t): \(v)")
        }
    }

    @Test("§5.6 in an interval its direction table marks exact (a cusp) a paced path's velocity is the reference's, computed by the frame")
    func pacedPathCuspComputedByTheFrame() throws {
        // A cubic whose direction reverses at its middle: no piece of the table follows it there.
        var cusp = Path()
        cusp.move(to: Point(x: 0, y: 0))
        cusp.addCurve(to: Point(x: 100, y: 0), control1: Point(x: 100, y: 100), control2: Point(x: 0, y: 100))
        let measure = PathMeasure(cusp)
        // The tables the batch builds: the position table to 2e-4 of the length, the direction
        // table over the same samples.
        let count = ArcLengthTable(measure: measure, tolerance: 2e-4 * measure.length).points.count
        let directions = TangentAngleTable(measure: measure, sampleCount: count)
        let exact = directions.intervals.indices.filter { directions.intervals[$0].isExact }
        try #require(!exact.isEmpty)
        let store = TrackStore()
        let layer = LayerID(1)
        try store.setModelValue(.point(Point(x: 0, y: 0)), layer: layer, property: "position")
        let duration = 2.0
        _ = try store.add(KeyframeAnimation(keyPath: "position", path: cusp, calculationMode: .paced, duration: duration), layer: layer)
        let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
        let slot = try #require(store.slot(layer: layer, property: "position"))
        for i in exact.prefix(6) {
            for w in [0.2, 0.5, 0.8] {
                let t = (Double(i) + w) / Double(count - 1) * duration
                evaluator.evaluate(at: t)
                #expect(evaluator.computedVelocity(of: slot), "t = \(t)")
                guard case .point(let v)? = evaluator.velocity(of: slot),
                      case .point(let r)? = store.velocity(of: slot, atFrameTime: t) else { Issue.record("no velocity at \(t)"); continue }
                // 1e-3 of the speed (docs/velocity.md); the speed is the length / 2 s.
                let scale = max(1, (r.x * r.x + r.y * r.y).squareRoot())
                #expect(abs(v.x - r.x) <= 1e-3 * scale && abs(v.y - r.y) <= 1e-3 * scale, "t = \(t): \(v) vs \(r)")
            }
        }
    }

    @Test("an exclusive track's velocity row follows its slot when columns grow, rows move and layers go")
    func velocityRowsFollowTheirSlots() throws {
        let store = TrackStore()
        let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
        var layers: [LayerID] = []
        func addLayers(_ count: Int) throws {
            for _ in 0..<count {
                let layer = LayerID(UInt64(layers.count + 1))
                layers.append(layer)
                let k = Double(layers.count)
                try store.setModelValue(.scalar(0), layer: layer, property: "opacity")
                var fade = BasicAnimation(keyPath: "opacity")
                (fade.fromValue, fade.toValue, fade.duration) = (.scalar(k), .scalar(2 * k + 1), 1 + k / 100)
                fade.timingFunction = .easeInEaseOut
                _ = try store.add(fade, layer: layer)
            }
        }
        func check(at t: Double) throws {
            evaluator.evaluate(at: t)
            #expect(store.invariantViolations().isEmpty, "\(store.invariantViolations())")
            let column = try #require(evaluator.velocities(of: "opacity"))
            #expect(column.count == store.presentation(of: "opacity")?.count)
            for row in 0..<column.count {
                let slot = try #require(column.slot(atRow: row))
                #expect(evaluator.computedVelocity(of: slot))
                guard case .scalar(let v)? = column.value(atRow: row),
                      case .scalar(let r)? = store.velocity(of: slot, atFrameTime: t) else { Issue.record("row \(row)"); continue }
                #expect(abs(v - r) <= 1e-3 * max(1, abs(r)), "row \(row) at \(t): \(v) vs \(r)")
            }
        }
        try addLayers(20)
        try check(at: 0.3)
        // The column grows (its rows move) while the batch already shows velocities.
        try addLayers(100)
        try check(at: 0.4)
        // Removed layers move the column's last rows into theirs.
        for layer in layers.prefix(30) where layer.rawValue % 3 == 0 { _ = store.removeLayer(layer) }
        try check(at: 0.5)
        try addLayers(40)
        try check(at: 0.6)
    }

    @Test("off, nothing is computed: no column is read, and the per-slot read is the reference's")
    func offComputesNothing() throws {
        let scene = try Scene(seed: 0xC04, layers: 20)
        let evaluator = FrameEvaluator(store: scene.store)
        evaluator.evaluate(at: 1.3)
        #expect(!evaluator.hasVelocities)
        #expect(evaluator.velocities(of: "position") == nil)
        for layer in scene.layers {
            let slot = try #require(scene.store.slot(layer: layer.layer, property: "opacity"))
            #expect(!evaluator.computedVelocity(of: slot))
            #expect(evaluator.velocity(of: slot) == scene.store.velocity(of: slot, atFrameTime: 1.3))
        }
    }

    @Test("the bulk read gives every row the per-slot read gives, rows the kernels leave to the reference filled from it",
          arguments: [1, 4])
    func bulkReadMatchesSingleReads(chunks: Int) throws {
        // The frame lists the rows it leaves to the reference (whole transforms, transform and
        // general compositions, nearly vertical curves) as its chunks write
        // them; the bulk read fills those. Several chunks on two threads list them too.
        let scene = try Scene(seed: 0xC05, layers: TestScale.count(debug: 40, release: 400))
        let evaluator = FrameEvaluator(store: scene.store, configuration: .init(parallelThreshold: 0, chunksPerBatch: chunks,
                                                                                maximumThreads: chunks == 1 ? 1 : 2, computesVelocity: true))
        var leftToTheReference = 0
        for t in [0.3, 0.7, 1.9, 3.1] {
            evaluator.evaluate(at: t)
            leftToTheReference += scene.store.allSlots.count { !evaluator.computedVelocity(of: $0) }
            for (property, _) in RandomAnimations.properties {
                let column = try #require(evaluator.velocities(of: property))
                #expect(column.count == scene.store.presentation(of: property)?.count)
                for row in 0..<column.count {
                    let slot = try #require(column.slot(atRow: row))
                    let value = try #require(column.value(atRow: row))
                    #expect(value == evaluator.velocity(of: slot), "\(property) row \(row) at \(t)")
                    #expect(value.components.allSatisfy { !$0.isNaN }, "\(property) row \(row) at \(t)")
                }
            }
        }
        #expect(leftToTheReference > 0)
    }

    @Test("rows left to the reference follow their animations: a keyframe animation replaced or removed between frames")
    func bulkReadFollowsChangedAnimations() throws {
        // Two keyframe animations on transform fields compose as a transform: the row is left to
        // the reference, which the bulk read fills from the animations the store holds now.
        let store = TrackStore()
        let layer = LayerID(1)
        try store.setModelValue(.transform(.identity), layer: layer, property: "transform")
        let grow = KeyframeAnimation(keyPath: "transform.scale.x", values: [1.0, 2.0, 1.5], duration: 2)
        var spin = KeyframeAnimation(keyPath: "transform.rotation.z", values: [0.0, 1.0, 3.0], duration: 2)
        _ = try store.add(grow, layer: layer)
        _ = try store.add(spin, layer: layer, forKey: "spin")
        let slot = try #require(store.slot(layer: layer, property: "transform"))
        let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
        func bulk() throws -> AnimationValue { try #require(evaluator.velocities(of: "transform")?.value(atRow: 0)) }
        evaluator.evaluate(at: 0.5)
        #expect(!evaluator.computedVelocity(of: slot))
        let first = try bulk()
        #expect(first == store.velocity(of: slot, atFrameTime: 0.5))
        evaluator.evaluate(at: 0.6)
        #expect(try bulk() == store.velocity(of: slot, atFrameTime: 0.6))
        // Replaced under the same key: the next frame's row is the new animation's.
        spin.values = [0.0, 5.0, 9.0]
        _ = try store.add(spin, layer: layer, forKey: "spin")
        evaluator.evaluate(at: 0.6)
        let replaced = try bulk()
        #expect(replaced == store.velocity(of: slot, atFrameTime: 0.6))
        #expect(replaced != first)
        // Removed: the remaining animation's alone.
        #expect(store.removeAnimation(forKey: "spin", layer: layer))
        evaluator.evaluate(at: 0.7)
        #expect(try bulk() == store.velocity(of: slot, atFrameTime: 0.7))
    }

    @Test("a slot whose animations are removed is at rest from then on: its row is zero, not the last frame's velocity")
    func removedAnimationLeavesTheSlotAtRest() throws {
        let store = TrackStore()
        let layer = LayerID(1)
        try store.setModelValue(.point(Point(x: 0, y: 0)), layer: layer, property: "position")
        var move = BasicAnimation(keyPath: "position")
        (move.fromValue, move.toValue) = (.point(Point(x: 0, y: 0)), .point(Point(x: 100, y: 50)))
        move.duration = 2
        let handle = try store.add(move, layer: layer)
        let evaluator = FrameEvaluator(store: store, configuration: .init(computesVelocity: true))
        evaluator.evaluate(at: 1)
        #expect(evaluator.velocity(layer: layer, property: "position") == .point(Point(x: 50, y: 25)))
        #expect(store.remove(handle))
        #expect(evaluator.velocity(layer: layer, property: "position") == .point(Point(x: 0, y: 0)))
        evaluator.evaluate(at: 1.5)
        #expect(evaluator.velocity(layer: layer, property: "position") == .point(Point(x: 0, y: 0)))
        #expect(evaluator.velocities(of: "position")?.value(atRow: 0) == .point(Point(x: 0, y: 0)))
    }

    @Test("velocities are bit-identical for any chunking and thread count")
    func chunkingInvariance() throws {
        // The layers alone, not a `Scene` (whose own store this test would never read): under the
        // thread sanitizer, adding the animations is most of the test's time.
        var random = RandomAnimations(seed: 0xC06)
        let layers = (0..<TestScale.count(debug: 30, release: 2_000)).map { random.layer(LayerID(UInt64($0 + 1))) }
        let properties = RandomAnimations.properties.map(\.name)
        var results: [[[UInt64]]] = []
        for configuration in [FrameEvaluator.Configuration(parallelThreshold: .max, maximumThreads: 1, computesVelocity: true),
                              FrameEvaluator.Configuration(parallelThreshold: 1, chunkSize: 16, chunksPerBatch: 3, maximumThreads: 2,
                                                           computesVelocity: true),
                              FrameEvaluator.Configuration(parallelThreshold: 1, chunkSize: 64, maximumThreads: 4, computesVelocity: true)] {
            let store = TrackStore()
            for layer in layers {
                for (property, value) in layer.model { try store.setModelValue(value, layer: layer.layer, property: property) }
                for animation in layer.animations { _ = try store.add(animation, layer: layer.layer) }
            }
            let evaluator = FrameEvaluator(store: store, configuration: configuration)
            var frames: [[UInt64]] = []
            for t in [0.1, 1.7, 3.3] {
                evaluator.evaluate(at: t)
                frames += Self.rows(evaluator, properties: properties)
            }
            results.append(frames)
        }
        #expect(results[0] == results[1])
        #expect(results[0] == results[2])
    }
}
