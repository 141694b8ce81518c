// `animation-engine memory`: bytes per track of each kind and per layer, and whether memory comes
// back after many add/remove and create/remove cycles (docs/bad-input.md: memory comes back). Measured as the
// process's heap in use (glibc's mallinfo2) in a process of its own, so nothing else allocates
// meanwhile.
import AnimationBatch
import AnimationCore
import ArgumentParser
import CAllocationCounter
import Foundation
import LayerTree

struct Memory: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure heap bytes per track and per layer, and check that memory returns after add/remove cycles.",
        discussion: """
        Bytes per track: N layers get a model value each (bytes per slot), then one animation each \
        of a kind (bytes per track, the animation's records and columns included). Cycles: animations \
        added and removed on 1,000 layers with a frame after every 100 changes, and LayerTree layers \
        created, animated, ticked and removed, and whole contexts of 100 animated layers dropped \
        (--layer-cycles / 100 of them); the heap in use is compared before and after (after a \
        warm-up round that grows every reused buffer to its working size). Exit code 1 when a cycle \
        run ends more than --slack bytes above where it started.
        """
    )

    @Option(help: "Layers per kind measured.")
    var layers: Int = 20_000

    @Option(help: "Animation add/remove cycles in the store.")
    var cycles: Int = 1_000_000

    @Option(help: "LayerTree layer create/remove cycles.")
    var layerCycles: Int = 100_000

    @Option(help: "Bytes a cycle run may end above where it started.")
    var slack: Int = 65_536

    @Flag(help: "Print one JSON object, and nothing else, on standard output.")
    var json = false

    func validate() throws {
        guard (1...1_000_000).contains(layers) else { throw ValidationError("--layers must be in 1…1000000") }
        guard (0...100_000_000).contains(cycles) else { throw ValidationError("--cycles must be in 0…100000000") }
        guard (0...10_000_000).contains(layerCycles) else { throw ValidationError("--layer-cycles must be in 0…10000000") }
        guard slack >= 0 else { throw ValidationError("--slack must be ≥ 0") }
    }

    struct Kind: Codable {
        var kind: String
        var bytesPerSlot: Double
        var bytesPerTrack: Double
    }

    struct Cycles: Codable {
        var what: String
        var cycles: Int
        var heapBefore: Int
        var heapAfter: Int
        var difference: Int
        var returned: Bool
    }

    struct Report: Codable {
        var layers: Int
        var kinds: [Kind]
        var bytesPerLayer: Double
        var bytesPerShapeLayer: Double
        var cycles: [Cycles]
    }

    func run() throws {
        guard allocation_counter_heap_in_use() >= 0 else { throw fail("the heap in use cannot be measured here (glibc without a sanitizer is needed)") }
        func heap() -> Int { Int(allocation_counter_heap_in_use()) }
        let ids = (1...layers).map { LayerID(UInt64($0)) }

        var kinds: [Kind] = []
        func measure(_ name: String, property: String, model: AnimationValue, _ make: (Int) -> any Animation) throws {
            var store: TrackStore? = TrackStore()
            let start = heap()
            for id in ids { _ = try store!.setModelValue(model, layer: id, property: property) }
            let slots = heap()
            for (i, id) in ids.enumerated() { try store!.add(make(i), layer: id) }
            let animated = heap()
            kinds.append(Kind(kind: name, bytesPerSlot: Double(slots - start) / Double(layers),
                              bytesPerTrack: Double(animated - slots) / Double(layers)))
            store = nil
        }
        func basic(_ keyPath: String, _ from: AnimationValue, _ to: AnimationValue) -> BasicAnimation {
            var b = BasicAnimation(keyPath: keyPath)
            b.fromValue = from
            b.toValue = to
            b.timing.duration = 1
            b.timing.repeatCount = .infinity
            return b
        }
        let identity = AnimationValue.transform(.identity)
        try measure("basic scalar", property: "opacity", model: .scalar(1)) { i in basic("opacity", .scalar(0), .scalar(Double(i % 7))) }
        try measure("basic point", property: "position", model: .point(.zero)) { i in basic("position", .point(.zero), .point(Point(x: Double(i), y: 1))) }
        try measure("basic color", property: "backgroundColor", model: .color(Color(red: 0, green: 0, blue: 0, alpha: 1))) { _ in
            basic("backgroundColor", .color(Color(red: 1, green: 0, blue: 0, alpha: 1)), .color(Color(red: 0, green: 0, blue: 1, alpha: 1)))
        }
        try measure("basic transform", property: "transform", model: identity) { i in
            basic("transform", identity, .transform(Transform3D.scale(x: 2, y: 2).rotatedBy(angle: Double(i % 5), x: 0, y: 0, z: 1)))
        }
        try measure("keyframe scalar (8 values)", property: "opacity", model: .scalar(1)) { i in
            var k = KeyframeAnimation(keyPath: "opacity", values: (0..<8).map { Double(($0 + i) % 5) / 4 })
            k.timing.duration = 2
            return k
        }
        try measure("spring scalar", property: "opacity", model: .scalar(1)) { i in
            var s = SpringAnimation(keyPath: "opacity")
            s.fromValue = .scalar(0)
            s.toValue = .scalar(1)
            s.damping = 5 + Double(i % 3)
            return s
        }
        try measure("path (8 elements)", property: "position", model: .point(.zero)) { i in
            var path = Path()
            path.move(to: Point(x: 0, y: Double(i % 9)))
            for k in 1...7 { path.addCurve(to: Point(x: Double(10 * k), y: 0), control1: Point(x: Double(10 * k - 7), y: 5),
                                           control2: Point(x: Double(10 * k - 3), y: -5)) }
            return KeyframeAnimation(keyPath: "position", path: path, duration: 2)
        }

        // Bytes per LayerTree layer in a context: position, bounds and opacity set, one tick.
        func layerBytes(_ make: () -> Layer) -> Double {
            var context: LayerContext? = LayerContext()
            context!.tick(at: 0)
            let start = heap()
            for i in 0..<layers {
                let layer = make()
                layer.position = Point(x: Double(i), y: 0)
                layer.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
                layer.opacity = 0.5
                context!.rootLayer.addSublayer(layer)
            }
            Transaction.flush()
            context!.tick(at: 1)
            let end = heap()
            context = nil
            return Double(end - start) / Double(layers)
        }
        Transaction.begin()
        Transaction.setDisableActions(true)   // model values only: the per-layer cost, not animations'
        let perLayer = layerBytes { Layer() }
        let perShapeLayer = layerBytes { ShapeLayer() }
        Transaction.commit()

        var runs: [Cycles] = []
        if cycles > 0 { runs.append(try storeCycles(heap: heap)) }
        if layerCycles > 0 {
            runs.append(layerTreeCycles(heap: heap))
            runs.append(contextCycles(heap: heap))
        }

        let report = Report(layers: layers, kinds: kinds, bytesPerLayer: perLayer, bytesPerShapeLayer: perShapeLayer, cycles: runs)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("heap per slot and per track (\(layers) layers of each kind):")
            for k in kinds {
                let name = k.kind.padding(toLength: 28, withPad: " ", startingAt: 0)
                print("  \(name)" + String(format: "%7.1f B per slot, %7.1f B per track", k.bytesPerSlot, k.bytesPerTrack))
            }
            print(String(format: "LayerTree: %.1f B per layer, %.1f B per shape layer (position, bounds, opacity; in a context, ticked)", perLayer, perShapeLayer))
            for r in runs {
                print("\(r.what): \(r.cycles) cycles, heap \(r.heapBefore) → \(r.heapAfter) B (\(r.difference >= 0 ? "+" : "")\(r.difference)): \(r.returned ? "returned" : "NOT returned")")
            }
        }
        if runs.contains(where: { !$0.returned }) { throw ExitCode(1) }
    }

    /// Animations added and removed on 1,000 layers, a frame after every 100 changes (a host's
    /// pattern: events are delivered by frames), after a warm-up round of the same size.
    func storeCycles(heap: () -> Int) throws -> Cycles {
        let store = TrackStore()
        let evaluator = FrameEvaluator(store: store)
        let layerCount = 1_000
        for l in 1...layerCount { _ = try store.setModelValue(.scalar(1), layer: LayerID(UInt64(l)), property: "opacity") }
        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = .scalar(0)
        fade.toValue = .scalar(1)
        fade.timing.duration = 10
        var time = 0.0
        // 10^6 cycles take seconds: progress on standard error (kept off the measured heap's
        // way: a line is written between batches, and its memory is returned before `after`).
        let bar = ProgressBar(label: "memory: animation add/remove cycles")
        var finished = 0
        let total = min(cycles, 100_000) + cycles
        func round(_ count: Int) throws {
            var handles: [AnimationHandle] = []
            handles.reserveCapacity(100)
            var done = 0
            while done < count {
                let batch = min(100, count - done)
                for k in 0..<batch { handles.append(try store.add(fade, layer: LayerID(UInt64((done + k) % layerCount + 1)))) }
                time += 1.0 / 60
                evaluator.evaluate(at: time)
                for h in handles { _ = store.remove(h) }
                handles.removeAll(keepingCapacity: true)
                evaluator.evaluate(at: time)
                done += batch
                finished += batch
                if finished % 10_000 == 0 { bar.update(Double(finished) / Double(max(total, 1))) }
            }
        }
        try round(min(cycles, 100_000))   // warm-up: every reused buffer at its working size
        let before = heap()
        try round(cycles)
        bar.update(1)
        let after = heap()
        return Cycles(what: "store: animation add/remove", cycles: cycles, heapBefore: before, heapAfter: after,
                      difference: after - before, returned: after - before <= slack)
    }

    /// Whole trees dropped: a context with 100 layers, each with an explicit animation and a
    /// delegate, ticked twice and released without removing anything (the host's last reference
    /// goes; layers refer to their context weakly). `layerCycles / 100` contexts.
    func contextCycles(heap: () -> Int) -> Cycles {
        final class Listener: AnimationDelegate {}
        func round(_ count: Int) {
            for _ in 0..<count {
                let context = LayerContext()
                for k in 0..<100 {
                    let layer = k % 2 == 0 ? Layer() : ShapeLayer()
                    context.rootLayer.addSublayer(layer)
                    try? layer.add(BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1), forKey: "fade", delegate: Listener())
                }
                context.tick(at: 0)
                context.tick(at: 0.5)
            }
        }
        let contexts = max(1, layerCycles / 100)
        round(min(contexts, 100))
        let before = heap()
        round(contexts)
        let after = heap()
        return Cycles(what: "LayerTree: context of 100 animated layers created and dropped", cycles: contexts, heapBefore: before,
                      heapAfter: after, difference: after - before, returned: after - before <= slack)
    }

    /// LayerTree layers created with three properties, animated implicitly, ticked and removed,
    /// 100 at a time.
    func layerTreeCycles(heap: () -> Int) -> Cycles {
        let context = LayerContext()
        var time = 0.0
        func round(_ count: Int) {
            var made: [Layer] = []
            made.reserveCapacity(100)
            var done = 0
            while done < count {
                let batch = min(100, count - done)
                Transaction.begin()
                Transaction.setDisableActions(true)
                for k in 0..<batch {
                    let layer = Layer()
                    layer.position = Point(x: Double(k), y: 0)
                    context.rootLayer.addSublayer(layer)
                    made.append(layer)
                }
                Transaction.commit()
                time += 1.0 / 60
                context.tick(at: time)
                for layer in made { layer.opacity = 0.25 }   // an implicit animation each (§10)
                time += 1.0 / 60
                context.tick(at: time)
                for layer in made { layer.removeFromSuperlayer() }
                made.removeAll(keepingCapacity: true)
                time += 1.0 / 60
                context.tick(at: time)
                done += batch
            }
        }
        round(min(layerCycles, 10_000))
        let before = heap()
        round(layerCycles)
        let after = heap()
        return Cycles(what: "LayerTree: layer create/animate/remove", cycles: layerCycles, heapBefore: before, heapAfter: after,
                      difference: after - before, returned: after - before <= slack)
    }
}
