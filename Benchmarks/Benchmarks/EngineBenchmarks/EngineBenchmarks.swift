// package-benchmark suites over docs/architecture.md's standard workloads: W1 (timing curves), W2 at 10k,
// 100k and 1M properties, W2 with every value read in bulk and with 1 % retargeted per tick, W3
// (the seed layers: the engine's frame on a scene's store, and LayerTree's tick with every value
// read in bulk beside the engine's frame on the same tree, and ticks after 1 % of the layers were
// given an implicit animation), each kernel family alone, and the scalar reference on the same
// data — on 1 and 2 threads.
// Metrics: wall clock, throughput and malloc count (a steady-state frame must count 0). The
// instruction metric needs hardware counters, which these virtual machines do not expose:
// `instruction-count` measures instructions per evaluation under callgrind instead.
//
// BENCHMARK_SCALE=small (the CI smoke) shrinks every workload 10× and measures each for a quarter
// of a second: the smoke checks that every benchmark runs and allocates nothing per frame, and
// the 2–3 s each measured for the report took 4.7 of its minutes.
import AnimationBatch
import AnimationCore
import AnimationScene
import AnimationWorkloads
import Benchmark
import Foundation
import LayerTree
import LayerTreeSeeds

let small = ProcessInfo.processInfo.environment["BENCHMARK_SCALE"] == "small"
func scaled(_ n: Int) -> Int { small ? max(n / 10, 1_000) : n }
/// How long a benchmark measures: `n` seconds for a report, a quarter second in the smoke.
func seconds(_ n: Int) -> Duration { small ? .milliseconds(250) : .seconds(n) }

let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

/// W1's state: the inputs, the compiled curves and an output buffer (padded to blocks of 16).
struct W1State {
    var workload: W1Workload
    var batch: TimingCurveBatch
    var outputs: UnsafeMutableBufferPointer<Float>
}

/// The churn benchmark's state, kept across its runs: the store, its evaluator, every layer's
/// current handle and the animation it retargets to.
final class ChurnState {
    let store: TrackStore
    let evaluator: FrameEvaluator
    var handles: [AnimationHandle]
    let originals: [any Animation]
    var cursor = 0
    var frame = 1

    init(_ workload: W2Workload) throws {
        let store = try workload.makeStore()
        self.store = store
        evaluator = FrameEvaluator(store: store, configuration: .init(maximumThreads: 1))
        handles = workload.layers.map { store.animations(of: $0.layer).first! }
        originals = workload.layers.map { $0.animations[0] }
        evaluator.evaluate(at: 0)
    }

    /// The next layer's animation replaced by itself begun at `t`.
    func retargetNext(at t: Double) {
        let i = cursor % handles.count
        var animation = originals[i]
        animation.timing.beginTime = t
        handles[i] = (try? store.replace(handles[i], with: animation)) ?? handles[i]
        cursor += 1
    }
}

/// Every presentation column of a store copied out, as a renderer uploads it (the bulk read of
/// the end-to-end benchmarks).
final class ColumnCopier {
    let store: TrackStore
    var properties: [String] = []
    var staging: UnsafeMutablePointer<Double>
    var capacity = 1

    init(_ store: TrackStore) {
        self.store = store
        staging = .allocate(capacity: 1)
        staging.initialize(to: 0)
    }

    deinit { staging.deallocate() }

    func copy() {
        if properties.count != store.presentationColumnCount {
            properties = store.presentationProperties
            let largest = properties.compactMap { store.presentation(of: $0)?.values.count }.max() ?? 1
            if largest > capacity {
                staging.deallocate()
                capacity = 2 * largest
                staging = .allocate(capacity: capacity)
                staging.initialize(repeating: 0, count: capacity)
            }
        }
        for property in properties {
            guard let column = store.presentation(of: property), let values = column.values.baseAddress,
                  column.values.count <= capacity else { continue }
            staging.update(from: values, count: column.values.count)
        }
    }
}

/// A frame benchmark: one frame per iteration, times stepping through 4 s at 60 Hz. The scaling
/// factor is the number of animated properties, so throughput reads as properties per second.
func frameBenchmark(_ name: String, threads: Int, scheduler: FrameEvaluator.Configuration.Scheduler = .workerPool,
                    maximumSeconds: Int = 2, velocities: Bool = false, makeStore: @escaping @Sendable () throws -> TrackStore) {
    Benchmark(name,
              configuration: .init(metrics: metrics, tags: ["threads": "\(threads)", "build": BuildInfo.summary],
                                   timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                   maxDuration: seconds(maximumSeconds), maxIterations: 10_000)) { (benchmark: Benchmark, store: TrackStore) in
        let evaluator = FrameEvaluator(store: store, configuration: .init(maximumThreads: threads, scheduler: scheduler,
                                                                          computesVelocity: velocities))
        evaluator.evaluate(at: 0)   // plan, start the workers, warm the caches
        var frame = 1
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            evaluator.evaluate(at: Double(frame % 240) / 60)
            frame += 1
        }
        benchmark.stopMeasurement()
        blackHole(evaluator.time)
    } setup: {
        try makeStore()
    }
}

/// W2's frame, then every property's column copied out as a renderer uploads it: the values
/// (`TrackStore.presentation(of:)`), or with `velocities` the velocity column computed beside
/// them and read in bulk (`FrameEvaluator.velocities(of:)`).
func bulkReadBenchmark(_ name: String, threads: Int, properties size: Int, velocities: Bool) {
    Benchmark(name,
              configuration: .init(metrics: metrics, tags: ["threads": "\(threads)", "build": BuildInfo.summary],
                                   timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                   maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, store: TrackStore) in
        let evaluator = FrameEvaluator(store: store, configuration: .init(maximumThreads: threads, computesVelocity: velocities))
        evaluator.evaluate(at: 0)
        let properties = store.presentationProperties
        let largest = properties.compactMap { store.presentation(of: $0)?.values.count }.max() ?? 1
        let staging = UnsafeMutablePointer<Double>.allocate(capacity: max(1, largest))
        staging.initialize(repeating: 0, count: max(1, largest))
        defer { staging.deallocate() }
        var frame = 1
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            evaluator.evaluate(at: Double(frame % 240) / 60)
            for property in properties {
                let column = velocities ? evaluator.velocities(of: property) : store.presentation(of: property)
                guard let column, let values = column.values.baseAddress else { continue }
                staging.update(from: values, count: column.values.count)
            }
            frame += 1
        }
        benchmark.stopMeasurement()
        blackHole(staging[0])
    } setup: {
        try W2Workload(properties: size).makeStore()
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration.metrics = metrics

    // W1: the timing-curve kernel, 1 and 2 threads, and the scalar reference on the same curves.
    let w1Count = scaled(1 << 20) / 16 * 16   // whole blocks: the kernel reads and writes 16 at a time
    for threads in [1, 2] {
        Benchmark("W1 timing curves (\(w1Count)) engine, \(threads) thread\(threads == 1 ? "" : "s")",
                  configuration: .init(metrics: metrics, tags: ["threads": "\(threads)", "evaluations": "\(w1Count)", "build": BuildInfo.summary],
                                       timeUnits: .microseconds, maxDuration: seconds(2))) { (benchmark: Benchmark, state: W1State) in
            let (workload, batch, outputs) = (state.workload, state.batch, state.outputs)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                batch.evaluate(inputs: workload.inputs.baseAddress!, outputs: outputs.baseAddress!, threads: threads)
            }
            benchmark.stopMeasurement()
            blackHole(outputs[0])
        } setup: {
            let workload = W1Workload(count: w1Count)
            let batch = TimingCurveBatch(functions: workload.functions)
            let outputs = UnsafeMutableBufferPointer<Float>.allocate(capacity: workload.inputs.count)
            outputs.initialize(repeating: 0)
            return W1State(workload: workload, batch: batch, outputs: outputs)
        }
    }
    let referenceCount = scaled(100_000)
    Benchmark("W1 timing curves (\(referenceCount)) scalar reference, 1 thread",
              configuration: .init(metrics: metrics, tags: ["threads": "1", "evaluations": "\(referenceCount)"],
                                   timeUnits: .microseconds, maxDuration: seconds(2))) { (benchmark: Benchmark, workload: W1Workload) in
        var sum = 0.0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for i in 0..<referenceCount { sum += workload.functions[i].value(at: Double(workload.inputs[i])) }
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    } setup: {
        W1Workload(count: referenceCount)
    }

    // W2 at three sizes, 1 and 2 threads.
    for size in [10_000, 100_000, 1_000_000].map(scaled) {
        for threads in [1, 2] {
            frameBenchmark("W2 frame (\(size) properties), \(threads) thread\(threads == 1 ? "" : "s")", threads: threads,
                           maximumSeconds: size >= 1_000_000 ? 4 : 2) {
                try W2Workload(properties: size).makeStore()
            }
        }
    }
    // The scalar reference on a W2 sample: the same animations, one property at a time.
    let sample = scaled(20_000)
    Benchmark("W2 frame (\(sample) properties) scalar reference, 1 thread",
              configuration: .init(metrics: metrics, tags: ["threads": "1", "properties": "\(sample)"],
                                   timeUnits: .microseconds, maxDuration: seconds(3), maxIterations: 50)) { (benchmark: Benchmark, workload: W2Workload) in
        var frame = 1
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let t = Double(frame % 240) / 60
            for layer in workload.layers {
                blackHole(ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t))
            }
            frame += 1
        }
        benchmark.stopMeasurement()
    } setup: {
        W2Workload(properties: sample)
    }

    // The velocity column (docs/velocity.md): W2's frame with every track's velocity ("W2 frame"
    // above without), and every velocity then read in bulk.
    let velocitySize = scaled(100_000)
    for threads in [1, 2] {
        frameBenchmark("W2 frame with velocities (\(velocitySize) properties), \(threads) thread\(threads == 1 ? "" : "s")",
                       threads: threads, velocities: true) {
            try W2Workload(properties: velocitySize).makeStore()
        }
    }
    bulkReadBenchmark("W2 frame with velocities + bulk velocity read (\(velocitySize) properties), 2 threads",
                      threads: 2, properties: velocitySize, velocities: true)

    // What a host does each frame beside evaluating: every property's column copied out, as a
    // renderer uploads it (W2 at 100k, 1 and 2 threads; the frame alone is "W2 frame" above).
    let readSize = scaled(100_000)
    for threads in [1, 2] {
        bulkReadBenchmark("W2 frame + bulk read (\(readSize) properties), \(threads) thread\(threads == 1 ? "" : "s")",
                          threads: threads, properties: readSize, velocities: false)
    }

    // Changing animations: 1 % of W2's layers retargeted (each animation replaced by itself begun
    // now, a recompilation for keyframe and path animations, in place for basic and spring ones),
    // then the next evaluation — per iteration. Adding compiles and allocates by design.
    let churnSize = scaled(100_000)
    Benchmark("W2 retarget 1 % then evaluate (\(churnSize) properties), 1 thread",
              configuration: .init(metrics: metrics, tags: ["threads": "1", "build": BuildInfo.summary],
                                   timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                   maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, churn: ChurnState) in
        let perTick = max(1, churn.handles.count / 100)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let t = Double(churn.frame % 240) / 60
            for _ in 0..<perTick { churn.retargetNext(at: t) }
            churn.evaluator.evaluate(at: t)
            churn.frame += 1
        }
        benchmark.stopMeasurement()
        blackHole(churn.evaluator.time)
    } setup: {
        try ChurnState(W2Workload(properties: churnSize))
    }

    // Every basic and spring animation of W2 retargeted to a new value in one call
    // (`TrackStore.retarget(_:from:to:beginTime:)` over arrays), each iteration to the other of
    // two sets of targets; the frame after it is not timed.
    let retargetSize = scaled(134_000)   // about 100,000 basic and spring animations
    Benchmark("W2 retarget every basic and spring animation in one call (\(retargetSize) properties), 1 thread",
              configuration: .init(metrics: metrics, tags: ["threads": "1", "build": BuildInfo.summary],
                                   timeUnits: .milliseconds, warmupIterations: 1, scalingFactor: .one,
                                   maxDuration: seconds(3), maxIterations: 200)) { (benchmark: Benchmark, churn: ChurnState) in
        var indices: [Int] = [], handles: [AnimationHandle] = [], near: [AnimationValue] = [], far: [AnimationValue] = []
        for (i, animation) in churn.originals.enumerated() where animation is BasicAnimation || animation is SpringAnimation {
            guard let kind = (animation as? any PropertyAnimation)?.valueKind else { continue }
            indices.append(i)
            handles.append(churn.handles[i])
            near.append(AnimationValue.additiveIdentity(of: kind))
            far.append(try! AnimationValue(kind: kind, components: Array(repeating: 1, count: kind.componentCount)))
        }
        for _ in benchmark.scaledIterations {
            let t = Double(churn.frame % 240) / 60
            benchmark.startMeasurement()
            do {
                try churn.store.retarget(&handles, to: churn.frame % 2 == 0 ? far : near, beginTime: t)
            } catch {
                fatalError("retarget: \(error)")   // a benchmark that measured a refusal would mislead
            }
            benchmark.stopMeasurement()
            churn.evaluator.evaluate(at: t)
            churn.frame += 1
        }
        for (k, i) in indices.enumerated() { churn.handles[i] = handles[k] }   // the next run starts from these
    } setup: {
        try ChurnState(W2Workload(properties: retargetSize))
    }

    // Each kernel family alone (200k properties), 1 thread.
    let familySize = scaled(200_000)
    for family in W2Workload.Family.allCases {
        frameBenchmark("family \(family.rawValue) (\(familySize) properties), 1 thread", threads: 1) {
            try W2Workload(properties: familySize, only: family).makeStore()
        }
    }

    // W3: the seed layers (10,000), 1 and 2 threads.
    let seedLayers = scaled(10_000)
    for threads in [1, 2] {
        frameBenchmark("W3 seed layers (\(seedLayers) layers), \(threads) thread\(threads == 1 ? "" : "s")", threads: threads) {
            try SceneEvaluation(try SeedScene.make(layers: seedLayers)).store
        }
    }

    // W3 through LayerTree: `LayerContext.tick` (commit, evaluate, reap, display, callbacks) with
    // every value read in bulk, and the engine's own frame with the same read on the same tree's
    // store (the ratio of the LayerTree issue, ≤ 1.25×), 1 and 2 threads.
    for threads in [1, 2] {
        Benchmark("W3 LayerContext.tick + bulk read (\(seedLayers) layers), \(threads) thread\(threads == 1 ? "" : "s")",
                  configuration: .init(metrics: metrics, tags: ["threads": "\(threads)", "build": BuildInfo.summary],
                                       timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                       maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, context: LayerContext) in
            context.evaluator.configuration.maximumThreads = threads
            let copier = ColumnCopier(context.store)
            context.tick(at: 0)
            copier.copy()
            var frame = 1
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                context.tick(at: Double(frame) / 60)
                copier.copy()
                frame += 1
            }
            benchmark.stopMeasurement()
            blackHole(copier.staging[0])
        } setup: {
            try SeedTree.make(layers: seedLayers)
        }
    }
    Benchmark("W3 engine frame + bulk read on the LayerTree's store (\(seedLayers) layers), 2 threads",
              configuration: .init(metrics: metrics, tags: ["threads": "2", "build": BuildInfo.summary],
                                   timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                   maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, context: LayerContext) in
        context.evaluator.configuration.maximumThreads = 2
        let copier = ColumnCopier(context.store)
        context.tick(at: 0)
        copier.copy()
        var frame = 1
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            context.evaluator.evaluate(at: Double(frame) / 60)
            copier.copy()
            frame += 1
        }
        benchmark.stopMeasurement()
        blackHole(copier.staging[0])
    } setup: {
        try SeedTree.make(layers: seedLayers)
    }
    // 1 % of the layers given a new implicit animation (an opacity change: the default action,
    // from the presentation value), then a tick with the bulk read — per iteration. Changes
    // allocate (actions, and compiling until a layer's key has a parked track); the tick does not.
    Benchmark("LayerTree implicit animations on 1 % of the seed layers then tick + bulk read (\(seedLayers) layers), 2 threads",
              configuration: .init(metrics: metrics, tags: ["threads": "2", "build": BuildInfo.summary],
                                   timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                   maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, context: LayerContext) in
        context.evaluator.configuration.maximumThreads = 2
        let copier = ColumnCopier(context.store)
        let layers = context.rootLayer.sublayers ?? []
        let perTick = max(1, layers.count / 100)
        var next = 0, frame = 1
        context.tick(at: 0)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for _ in 0..<perTick {
                let layer = layers[next % layers.count]
                layer.opacity = layer.opacity == 1 ? 0.5 : 1
                next += 1
            }
            context.tick(at: Double(frame) / 60)
            copier.copy()
            frame += 1
        }
        benchmark.stopMeasurement()
        blackHole(copier.staging[0])
    } setup: {
        try SeedTree.make(layers: seedLayers)
    }

    // Retargeting (docs/retargeting.md): 1 % of the layers change their opacity per tick inside a
    // 3 s transaction, so that every change interrupts an animation still moving — under Core
    // Animation's .restart and under .preserveVelocity (the velocity read, the spring or carry
    // fitted, a group of three added). Per iteration: the changes, then a tick.
    for mode in [RetargetMode.restart, .preserveVelocity] {
        Benchmark("LayerTree changes interrupting moving animations on 1 % of the seed layers then tick (\(seedLayers) layers), \(mode), 2 threads",
                  configuration: .init(metrics: metrics, tags: ["threads": "2", "build": BuildInfo.summary],
                                       timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                       maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, context: LayerContext) in
            context.evaluator.configuration.maximumThreads = 2
            let layers = context.rootLayer.sublayers ?? []
            let perTick = max(1, layers.count / 100)
            var next = 0, frame = 1
            context.tick(at: 0)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                Transaction.begin()
                Transaction.setAnimationDuration(3)
                Transaction.setRetargetMode(mode)
                for _ in 0..<perTick {
                    let layer = layers[next % layers.count]
                    layer.opacity = layer.opacity == 1 ? 0.5 : 1
                    next += 1
                }
                Transaction.commit()
                context.tick(at: Double(frame) / 60)
                frame += 1
            }
            benchmark.stopMeasurement()
        } setup: {
            try SeedTree.make(layers: seedLayers)
        }
    }

    // Velocity reads (docs/velocity.md): `Layer.velocity(forKey:)` of every key the engine holds
    // for 1 % of the seed layers (progress, stroke ends, positions on arcs with their rotation,
    // colours, springs) — per read. Computed from the layer's animations when asked.
    Benchmark("Layer.velocity of every animated key of 1 % of the seed layers (\(seedLayers) layers), per read",
              configuration: .init(metrics: metrics, tags: ["threads": "1", "build": BuildInfo.summary],
                                   timeUnits: .nanoseconds, warmupIterations: 3, scalingFactor: .one,
                                   maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, context: LayerContext) in
        let layers = Array((context.rootLayer.sublayers ?? []).prefix(max(1, seedLayers / 100)))
        let reads: [(Layer, String)] = layers.flatMap { layer in
            context.store.slots(of: context.layerID(of: layer)!).compactMap { context.store.key(of: $0).map { (layer, $0.property) } }
        }
        var sum = 0.0, k = 0
        context.tick(at: 0.7)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let (layer, name) = reads[k % reads.count]
            sum += layer.velocity(forKey: name)?.components.first ?? 0
            k += 1
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    } setup: {
        try SeedTree.make(layers: seedLayers)
    }

    // A settled tree (docs/settling.md): 10,000 layers whose opacity changed once and whose
    // implicit animations have ended — removed on completion (the default), or kept by a
    // forwards fill. What a host pays per frame when it asks `isSettled` and skips the tick,
    // beside the tick it would run without asking.
    for kept in [false, true] {
        let what = kept ? "animations kept by a forwards fill" : "animations ended and removed"
        func settledTree() -> LayerContext {
            let context = LayerContext(configuration: FrameEvaluator.Configuration(maximumThreads: 2))
            for _ in 0..<seedLayers { context.rootLayer.addSublayer(Layer()) }
            context.tick(at: 0)
            for layer in context.rootLayer.sublayers ?? [] {
                if kept {
                    var fade = BasicAnimation(keyPath: "opacity", from: 1.0, to: 0.5, duration: 0.25)
                    fade.fillMode = .forwards
                    fade.isRemovedOnCompletion = false
                    try? layer.add(fade, forKey: "fade")
                } else {
                    layer.opacity = 0.5
                }
            }
            context.tick(at: 0.1)
            context.tick(at: 1)
            return context
        }
        Benchmark("Settled tree (\(seedLayers) layers, \(what)): isSettled per frame",
                  configuration: .init(metrics: metrics, tags: ["threads": "2", "build": BuildInfo.summary],
                                       timeUnits: .nanoseconds, warmupIterations: 3, scalingFactor: .kilo,
                                       maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, context: LayerContext) in
            precondition(context.isSettled)
            var settled = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { settled += context.isSettled ? 1 : 0 }
            benchmark.stopMeasurement()
            blackHole(settled)
        } setup: {
            settledTree()
        }
        Benchmark("Settled tree (\(seedLayers) layers, \(what)): tick per frame",
                  configuration: .init(metrics: metrics, tags: ["threads": "2", "build": BuildInfo.summary],
                                       timeUnits: .microseconds, warmupIterations: 3, scalingFactor: .one,
                                       maxDuration: seconds(2), maxIterations: 10_000)) { (benchmark: Benchmark, context: LayerContext) in
            var frame = 61
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                context.tick(at: Double(frame) / 60)
                frame += 1
            }
            benchmark.stopMeasurement()
        } setup: {
            settledTree()
        }
    }

    // The Dispatch scheduler (`FrameEvaluator.Configuration.Scheduler.dispatch`), 2 threads, beside
    // the worker pool above: W2 at 100k and W3. `concurrentPerform` allocates on every call on
    // Linux, so these frames are not allocation-free (perf-report's check leaves them out).
    let dispatchSize = scaled(100_000)
    frameBenchmark("Dispatch scheduler: W2 frame (\(dispatchSize) properties), 2 threads", threads: 2, scheduler: .dispatch) {
        try W2Workload(properties: dispatchSize).makeStore()
    }
    frameBenchmark("Dispatch scheduler: W3 seed layers (\(seedLayers) layers), 2 threads", threads: 2, scheduler: .dispatch) {
        try SceneEvaluation(try SeedScene.make(layers: seedLayers)).store
    }
}
