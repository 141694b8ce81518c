import AnimationBatch
import AnimationCore
import AnimationScene
import AnimationWorkloads
import Dispatch
import LayerTree

/// Workload W3 of docs/architecture.md as a layer tree: the layers of `SeedScene` (the five seed kinds,
/// spread in phase), each a `Layer` or `ShapeLayer` under a context's root with its model
/// values and its animations added through `Layer.add(_:forKey:delegate:)`. The same
/// animations as the scene, so the engine's figures for the scene and the tree's ticks compare.
public enum SeedTree {
    /// A context holding `layers` seed layers, before its first tick.
    ///
    /// - Throws: `SceneError` at `layers` when the count is not in 1…10,000,000.
    public static func make(layers count: Int, configuration: FrameEvaluator.Configuration = .init()) throws -> LayerContext {
        let scene = try SeedScene.make(layers: count)
        let context = LayerContext(configuration: configuration)
        Transaction.begin()
        Transaction.setDisableActions(true)
        defer { Transaction.commit() }
        for sceneLayer in scene.layers {
            let layer: Layer
            if sceneLayer.type == .shape {
                let shape = ShapeLayer()
                shape.path = sceneLayer.path
                layer = shape
            } else {
                layer = Layer()
            }
            layer.name = sceneLayer.id
            for (name, value) in sceneLayer.properties { layer.setValue(value, forKey: name) }
            context.rootLayer.addSublayer(layer)
            for (k, animation) in sceneLayer.animations.enumerated() {
                try layer.add(animation, forKey: "seed-\(k)")
            }
        }
        return context
    }
}

/// What ticking a layer tree costs beside the engine alone (W3 of docs/architecture.md, "Standard workloads").
public struct TickFigures: Sendable, Codable {
    public var layers: Int
    public var properties: Int
    public var threads: Int
    /// `LayerContext.tick(at:)` then every presentation value read in bulk.
    public var tickEndToEnd: FrameStatistics
    /// The engine's frame (`FrameEvaluator.evaluate(at:)`) then the same bulk read, on the same
    /// store, alternating with the ticks.
    public var engineEndToEnd: FrameStatistics
    /// Ticks (with the bulk read) after 1 % of the layers were given a new implicit animation.
    public var churnTickEndToEnd: FrameStatistics
    /// Ticks without changes, alternating with the churn ticks.
    public var quietTickEndToEnd: FrameStatistics
    /// Layers changed before each churn tick.
    public var changedPerChurnTick: Int
    /// The changes alone (the part of each churn tick before `tick(at:)`).
    public var churnChanges: FrameStatistics
    /// Heap allocations per steady-state tick (nil when not counted).
    public var allocationsPerTick: Double?

    /// tick end to end ÷ engine end to end (goal ≤ 1.25).
    public var tickOverEngine: Double { tickEndToEnd.p50Seconds / engineEndToEnd.p50Seconds }
    /// churn tick ÷ quiet tick (goal ≤ 1.3).
    public var churnOverQuiet: Double { churnTickEndToEnd.p50Seconds / quietTickEndToEnd.p50Seconds }
}

/// Measurements of layer trees.
public enum LayerTreeMeasure {
    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Times `frames` ticks of `context` against the engine's frames on the same store (both
    /// followed by a bulk read of every presentation column, what a host does), alternating, on
    /// `threads` threads; then ticks after 1 % of the layers were given a new implicit `opacity`
    /// animation, against quiet ticks. `countAllocations`, when given, wraps a steady-state tick
    /// and returns its heap allocations. Leaves the context ticked past its animations' start.
    public static func ticks(_ context: LayerContext, frames count: Int, threads: Int,
                             countAllocations: ((() -> Void) -> Int)? = nil) -> TickFigures {
        let evaluator = context.evaluator, store = context.store
        evaluator.configuration.maximumThreads = threads
        evaluator.configuration.parallelThreshold = threads > 1 ? 0 : Int.max
        context.tick(at: 0)
        context.tick(at: 1.0 / 60)
        let reader = BulkReader(store)
        defer { reader.release() }
        var ticks: [Double] = [], engine: [Double] = []
        var t = 2.0 / 60
        for k in 0..<2 * count {
            let start = now()
            if k % 2 == 0 { context.tick(at: t) } else { evaluator.evaluate(at: t) }
            reader.read()
            let elapsed = Double(now() - start) / 1e9
            if k % 2 == 0 { ticks.append(elapsed) } else { engine.append(elapsed) }
            t += 1.0 / 60
        }
        var allocations: Double?
        if let countAllocations {
            var total = 0
            for _ in 0..<min(count, 60) {
                total += countAllocations { context.tick(at: t) }
                t += 1.0 / 60
            }
            allocations = Double(total) / Double(min(count, 60))
        }
        // Churn: 1 % of the layers get a new implicit animation (an opacity change runs the
        // default action, §10) before every other tick; a different 1 % each time.
        let layers = context.rootLayer.sublayers ?? []
        let changed = max(1, layers.count / 100)
        var churn: [Double] = [], quiet: [Double] = [], changes: [Double] = []
        var next = 0
        for k in 0..<2 * count {
            let start = now()
            if k % 2 == 0 {
                for _ in 0..<changed {
                    let layer = layers[next % layers.count]
                    layer.opacity = layer.opacity == 1 ? 0.5 : 1
                    next += 1
                }
                changes.append(Double(now() - start) / 1e9)
            }
            context.tick(at: t)
            reader.read()
            let elapsed = Double(now() - start) / 1e9
            if k % 2 == 0 { churn.append(elapsed) } else { quiet.append(elapsed) }
            t += 1.0 / 60
        }
        reader.consume()
        return TickFigures(layers: context.layerCount - 1, properties: store.trackCount, threads: threads,
                           tickEndToEnd: FrameStatistics(ticks), engineEndToEnd: FrameStatistics(engine),
                           churnTickEndToEnd: FrameStatistics(churn), quietTickEndToEnd: FrameStatistics(quiet),
                           changedPerChurnTick: changed, churnChanges: FrameStatistics(changes),
                           allocationsPerTick: allocations)
    }
}

/// Reads every presentation column of a store into a staging buffer, as a renderer uploads it
/// (holds raw memory: the staging buffer, freed by ``release()``).
final class BulkReader {
    private let store: TrackStore
    private var staging: UnsafeMutableBufferPointer<Double>
    private var sink = 0.0
    /// The store's presentation properties, listed again when a column is added.
    private var properties: [String] = []

    init(_ store: TrackStore) {
        self.store = store
        staging = .allocate(capacity: 1)
        staging.initialize(repeating: 0)
    }

    func read() {
        if properties.count != store.presentationColumnCount { properties = store.presentationProperties }
        for property in properties {
            guard let column = store.presentation(of: property), let source = column.values.baseAddress else { continue }
            if column.values.count > staging.count {
                // The reader's own buffer (allocated in init, freed by `release()`), replaced before any use.
                staging.deallocate()
                staging = .allocate(capacity: column.values.count * 2)
                staging.initialize(repeating: 0)
            }
            // The staging buffer holds at least `count` Doubles (grown above).
            staging.baseAddress!.update(from: source, count: column.values.count)
            sink += staging[column.values.count / 2]
        }
    }

    /// Keeps the reads from being optimised away.
    func consume() {
        if sink == .infinity { print("") }
    }

    func release() { staging.deallocate() }
}
