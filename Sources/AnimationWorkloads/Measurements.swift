import AnimationBatch
import AnimationCore
import Dispatch

/// Wall-clock nanoseconds (monotonic).
@inline(__always) func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Frame-time statistics of one run.
public struct FrameStatistics: Sendable, Codable {
    /// The number of frames measured.
    public var frames: Int
    /// The median frame time.
    public var p50Seconds: Double
    /// The 99th-percentile frame time.
    public var p99Seconds: Double
    /// The mean frame time.
    public var meanSeconds: Double
    /// The fastest frame.
    public var minSeconds: Double

    /// The statistics of `samples` (seconds per frame).
    public init(_ samples: [Double]) {
        let sorted = samples.sorted()
        frames = sorted.count
        func quantile(_ q: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q + 0.5))] }
        p50Seconds = quantile(0.5)
        p99Seconds = quantile(0.99)
        meanSeconds = sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count)
        minSeconds = sorted.first ?? .nan
    }
}

/// W1's figures: the timing-curve kernel against the scalar reference on the same data.
public struct W1Figures: Sendable, Codable {
    /// The number of evaluations (one per function and input).
    public var evaluations: Int
    /// Wall-clock ns per evaluation, one thread and two.
    public var nanosecondsPerEvaluation1Thread: Double
    /// Wall-clock ns per evaluation on two threads.
    public var nanosecondsPerEvaluation2Threads: Double
    /// Core-time ns per evaluation with two threads (wall × 2).
    public var coreNanosecondsPerEvaluation2Threads: Double
    /// The Double reference (`TimingFunction.value(at:)`), one thread.
    public var referenceNanosecondsPerEvaluation: Double
    /// The reference's time over the kernel's, one thread each.
    public var speedupOverReference1Thread: Double
    /// The largest |kernel − reference| over all evaluations.
    public var maximumError: Double
    /// The 99.99th percentile of |kernel − reference|.
    public var p9999Error: Double
    /// The largest error on the five named curves.
    public var maximumErrorNamedCurves: Double
    /// Evaluations whose nearly vertical curve the kernel hands to Double
    /// (`TimingCurveBatch.usesFloatKernel(for:)`); included in the timings.
    public var doubleEvaluated: Int
}

/// W2's figures at one size and thread count.
public struct W2Figures: Sendable, Codable {
    /// Animated properties (tracks) in the store.
    public var properties: Int
    /// The most threads a frame used.
    public var threads: Int
    /// Frame times.
    public var frames: FrameStatistics
    /// Properties evaluated per second at the median frame time.
    public var evaluationsPerSecond: Double
    /// Heap allocations per frame (nil where they cannot be counted).
    public var allocationsPerFrame: Double?
}

/// The scalar reference on a sample of W2, and the batch's largest deviation from it.
public struct ReferenceFigures: Sendable, Codable {
    /// How many properties the reference evaluated (every k-th layer of the workload).
    public var sampleProperties: Int
    /// The reference's time per property and frame.
    public var nanosecondsPerProperty: Double
    /// The largest |batch − reference| over the sample and frames, relative to
    /// 1 + |reference value|.
    public var maximumRelativeError: Double
    /// The largest |batch − reference| as a fraction of docs/architecture.md's precision table for the
    /// property (``PrecisionTable/tolerance(property:model:animations:reference:)``): within the
    /// contract when ≤ 1.
    public var maximumErrorOfTolerance: Double

    /// Figures measured elsewhere (a scene file's reference run, say).
    public init(sampleProperties: Int, nanosecondsPerProperty: Double, maximumRelativeError: Double, maximumErrorOfTolerance: Double) {
        self.sampleProperties = sampleProperties
        self.nanosecondsPerProperty = nanosecondsPerProperty
        self.maximumRelativeError = maximumRelativeError
        self.maximumErrorOfTolerance = maximumErrorOfTolerance
    }
}

/// Runs the workloads and measures them (speed beside the reference, errors, allocations).
public enum Measure {
    /// Runs W1 `repeats` times per thread count and checks every output against the Double reference.
    public static func w1(_ workload: W1Workload, repeats: Int = 20) -> W1Figures {
        let n = workload.functions.count
        let batch = TimingCurveBatch(functions: workload.functions)
        // The workload's inputs are padded to whole blocks of 16 (never empty), and the outputs match
        // them: the kernel reads and writes whole blocks inside both. Freed on return.
        let outputs = UnsafeMutableBufferPointer<Float>.allocate(capacity: workload.inputs.count)
        defer { outputs.deallocate() }
        let inputs = UnsafePointer(workload.inputs.baseAddress!)
        func time(threads: Int) -> Double {
            batch.evaluate(inputs: inputs, outputs: outputs.baseAddress!, threads: threads)   // warm-up
            var best = Double.infinity
            for _ in 0..<max(1, repeats) {
                let start = nanoseconds()
                batch.evaluate(inputs: inputs, outputs: outputs.baseAddress!, threads: threads)
                best = min(best, Double(nanoseconds() - start))
            }
            return best / Double(n)
        }
        let one = time(threads: 1)
        let two = time(threads: 2)
        // Accuracy against the reference, and the reference's own speed, on the same inputs.
        var errors = [Double](repeating: 0, count: n)
        var namedMax = 0.0
        let start = nanoseconds()
        var sink = 0.0
        for i in 0..<n { sink += workload.functions[i].value(at: Double(inputs[i])) }
        let referenceTime = Double(nanoseconds() - start) / Double(n)
        for i in 0..<n {
            let expected = workload.functions[i].value(at: Double(inputs[i]))
            // NaN where a number was due counts as an infinite error (sorting NaN would hide it).
            let e = outputs[i].isNaN != expected.isNaN ? .infinity : outputs[i].isNaN ? 0 : abs(Double(outputs[i]) - expected)
            errors[i] = e
            if i % 5 == 0 { namedMax = max(namedMax, e) }
        }
        errors.sort()
        return W1Figures(evaluations: n, nanosecondsPerEvaluation1Thread: one, nanosecondsPerEvaluation2Threads: two,
                         coreNanosecondsPerEvaluation2Threads: two * 2, referenceNanosecondsPerEvaluation: referenceTime + sink * 0,
                         speedupOverReference1Thread: referenceTime / one, maximumError: errors.last ?? 0,
                         p9999Error: errors.isEmpty ? 0 : errors[min(n - 1, Int(Double(n) * 0.9999))], maximumErrorNamedCurves: namedMax,
                         doubleEvaluated: batch.referenceEvaluatedCount)
    }

    /// Runs `frames` W2 frames at 60 Hz on `threads` threads. `countAllocations` (when given) wraps a
    /// frame and returns how many heap allocations it made.
    public static func frames(_ evaluator: FrameEvaluator, frames count: Int, threads: Int,
                              countAllocations: ((() -> Void) -> Int)? = nil) -> W2Figures {
        evaluator.configuration.maximumThreads = threads
        evaluator.configuration.parallelThreshold = threads > 1 ? 0 : Int.max
        evaluator.evaluate(at: -1)   // plan, wake threads
        evaluator.evaluate(at: -0.5)
        var samples: [Double] = []
        samples.reserveCapacity(count)
        var allocations = 0
        for t in W2Workload.frameTimes(count) {
            if let countAllocations {
                var elapsed = 0.0
                allocations += countAllocations {
                    let start = nanoseconds()
                    evaluator.evaluate(at: t)
                    elapsed = Double(nanoseconds() - start)
                }
                samples.append(elapsed / 1e9)
            } else {
                let start = nanoseconds()
                evaluator.evaluate(at: t)
                samples.append(Double(nanoseconds() - start) / 1e9)
            }
        }
        let statistics = FrameStatistics(samples)
        let properties = evaluator.store.trackCount
        return W2Figures(properties: properties, threads: threads, frames: statistics,
                         evaluationsPerSecond: Double(properties) / statistics.p50Seconds,
                         allocationsPerFrame: countAllocations == nil ? nil : Double(allocations) / Double(count))
    }

    /// The scalar reference on every `stride`-th layer of the workload over `frames` frames, and the
    /// batch's largest relative deviation from it on those layers.
    public static func reference(_ workload: W2Workload, evaluator: FrameEvaluator, frames count: Int, sample: Int) -> ReferenceFigures {
        let step = max(1, workload.layers.count / max(1, sample))
        let sampled = Swift.stride(from: 0, to: workload.layers.count, by: step).map { workload.layers[$0] }
        let times = W2Workload.frameTimes(count)
        // The reference's speed: every sampled property at every frame time.
        let start = nanoseconds()
        var sink = 0
        for t in times {
            for layer in sampled {
                sink &+= ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t).count
            }
        }
        let perProperty = Double(nanoseconds() - start) / Double(times.count * sampled.count) + Double(sink & 0)
        // The batch against it, on a few frames.
        var worst = 0.0, worstOfTolerance = 0.0
        for t in Swift.stride(from: 0, to: times.count, by: max(1, times.count / 8)).map({ times[$0] }) {
            evaluator.evaluate(at: t)
            for layer in sampled {
                let reference = ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t)
                for (property, expected) in reference {
                    guard let batch = evaluator.value(layer: layer.layer, property: property) else { continue }
                    for (a, b) in zip(batch.components, expected.components) {
                        worst = max(worst, abs(a - b) / (1 + abs(b)))
                    }
                    let tolerance = PrecisionTable.tolerance(property: property, model: layer.model[property],
                                                             animations: layer.animations, reference: expected)
                    worstOfTolerance = max(worstOfTolerance, PrecisionTable.maxDifference(batch, expected) / tolerance)
                }
            }
        }
        return ReferenceFigures(sampleProperties: sampled.count, nanosecondsPerProperty: perProperty, maximumRelativeError: worst,
                                maximumErrorOfTolerance: worstOfTolerance)
    }
}

/// What reading a frame's presentation values costs a host (docs/architecture.md, "End-to-end frame").
public struct ReadFigures: Sendable, Codable {
    /// Slots read.
    public var values: Int
    /// Every property's column read in bulk (each component touched once), per value; median of
    /// the repeats.
    public var bulkNanosecondsPerValue: Double
    /// `FrameEvaluator.value(of:)` on every slot, per call; median of the repeats.
    public var valueOfNanosecondsPerCall: Double
    /// Frames with every value then read in bulk (the work a host does), on `threads` threads.
    public var endToEnd: FrameStatistics
    /// Frames alone, the same run, alternating with the end-to-end ones.
    public var frameAlone: FrameStatistics
    public var threads: Int
    /// Slots listed as changed per frame, on average.
    public var changedPerFrame: Double
}

/// What a renderer does with a column: copies it into its own (upload) buffer, every byte touched
/// once. (A summing loop would time its add chain, 4 cycles per component.) Holds raw memory as
/// large as the store's largest column: the caller frees it with ``release()``.
struct StagingBuffer {
    private let storage: UnsafeMutableBufferPointer<Double>

    init(for store: TrackStore) {
        let largest = store.presentationProperties.compactMap { store.presentation(of: $0)?.values.count }.max() ?? 0
        // Owned by this value until `release()`, which the caller defers.
        storage = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(1, largest))
        storage.initialize(repeating: 0)
    }

    /// Copies `column` in (nothing when nil) and returns its middle component, for the caller to
    /// keep so that the copy is not optimised away.
    func upload(_ column: PresentationColumn?) -> Double {
        guard let column, let source = column.values.baseAddress else { return 0 }
        // The columns of one store have at most `largest` components (velocities have the values' rows).
        storage.baseAddress!.update(from: source, count: column.values.count)
        return storage[column.values.count / 2]
    }

    func release() {
        // The one deallocation of the memory `init` allocated.
        storage.deallocate()
    }
}

extension Measure {
    /// Reads of `evaluator`'s store after its frames: bulk (every column), one value at a time
    /// (`FrameEvaluator.value(of:)`), and frames with and without the bulk read, alternating so
    /// that both see the same machine.
    public static func reads(_ evaluator: FrameEvaluator, frames count: Int, threads: Int) -> ReadFigures {
        let store = evaluator.store
        evaluator.configuration.maximumThreads = threads
        evaluator.configuration.parallelThreshold = threads > 1 ? 0 : Int.max
        evaluator.evaluate(at: 0.5)
        let slots = store.allSlots
        let properties = store.presentationProperties
        var sink = 0.0
        let staging = StagingBuffer(for: store)
        defer { staging.release() }
        func bulk() {
            for property in properties { sink += staging.upload(store.presentation(of: property)) }
        }
        var bulkSamples: [Double] = [], valueSamples: [Double] = []
        for _ in 0..<15 {
            var start = nanoseconds()
            bulk()
            bulkSamples.append(Double(nanoseconds() - start) / Double(max(1, slots.count)))
            start = nanoseconds()
            for slot in slots {
                if case .scalar(let x)? = evaluator.value(of: slot) { sink += x }
            }
            valueSamples.append(Double(nanoseconds() - start) / Double(max(1, slots.count)))
        }
        var endToEnd: [Double] = [], alone: [Double] = []
        var changed = 0
        for (k, t) in W2Workload.frameTimes(count).enumerated() {
            var start = nanoseconds()
            evaluator.evaluate(at: t)
            if k % 2 == 0 {
                bulk()
                endToEnd.append(Double(nanoseconds() - start) / 1e9)
            } else {
                alone.append(Double(nanoseconds() - start) / 1e9)
            }
            changed += evaluator.changedSlots.count
            start = 0
        }
        if sink == .infinity { print("") }   // keeps the reads
        return ReadFigures(values: slots.count, bulkNanosecondsPerValue: FrameStatistics(bulkSamples).p50Seconds,
                           valueOfNanosecondsPerCall: FrameStatistics(valueSamples).p50Seconds,
                           endToEnd: FrameStatistics(endToEnd), frameAlone: FrameStatistics(alone), threads: threads,
                           changedPerFrame: Double(changed) / Double(max(1, count)))
    }
}

/// What velocities cost (docs/velocity.md, "The batch engine"): frames with the velocity column
/// against frames without it, alternating in one run on the same store, and every velocity read
/// in bulk.
public struct VelocityFigures: Sendable, Codable {
    /// Slots whose velocity a bulk read returns.
    public var values: Int
    /// Frames that also compute every track's velocity.
    public var withVelocity: FrameStatistics
    /// Frames without, alternating with them.
    public var without: FrameStatistics
    /// `withVelocity.p50 / without.p50 − 1`: what the column adds to a frame.
    public var addedFraction: Double
    /// Every property's velocities read in bulk (`FrameEvaluator.velocities(of:)`, each component
    /// copied once), per value; median of the repeats.
    public var bulkNanosecondsPerValue: Double
    /// The first bulk read of every property's velocities after each frame, per value (median
    /// of fifteen frames): a renderer's read, which also fills the rows the kernels left to the
    /// scalar reference (`FrameEvaluator.velocities(of:)`); the later reads of the same frame
    /// are ``bulkNanosecondsPerValue``.
    public var firstReadNanosecondsPerValue: Double
    /// Slots whose velocity the kernels computed (the rest are read from the scalar reference).
    public var computedValues: Int
    public var threads: Int
}

extension Measure {
    /// ``VelocityFigures`` for `evaluator`'s store on `threads` threads: `frames` frames at 60 Hz
    /// each way, in alternating runs of eight computing velocities and eight not (the
    /// configuration switched between frames), then fifteen bulk reads of every property's velocities after a frame that
    /// computed them, then fifteen frames each followed by one. The evaluator is left computing none.
    public static func velocities(_ evaluator: FrameEvaluator, frames count: Int, threads: Int) -> VelocityFigures {
        let store = evaluator.store
        evaluator.configuration.maximumThreads = threads
        evaluator.configuration.parallelThreshold = threads > 1 ? 0 : Int.max
        // Both states warmed up (the first frame with velocities gives the columns their storage).
        evaluator.configuration.computesVelocity = true
        evaluator.evaluate(at: 0.4)
        evaluator.configuration.computesVelocity = false
        evaluator.evaluate(at: 0.45)
        var with: [Double] = [], without: [Double] = []
        // Runs of eight frames each way, alternating: switching every frame measured each frame
        // in the caches the other kind had left.
        for (k, t) in W2Workload.frameTimes(count * 2).enumerated() {
            let computes = (k / 8) % 2 == 1
            evaluator.configuration.computesVelocity = computes
            let start = nanoseconds()
            evaluator.evaluate(at: t)
            let seconds = Double(nanoseconds() - start) / 1e9
            if computes { with.append(seconds) } else { without.append(seconds) }
        }
        evaluator.configuration.computesVelocity = true
        evaluator.evaluate(at: 0.5)
        let slots = store.allSlots
        let computed = slots.count { evaluator.computedVelocity(of: $0) }
        let properties = store.presentationProperties
        let staging = StagingBuffer(for: store)   // the velocities have the values' rows
        defer { staging.release() }
        var sink = 0.0
        /// Every property's velocities read once, in nanoseconds per slot.
        func readAll() -> Double {
            let start = nanoseconds()
            for property in properties { sink += staging.upload(evaluator.velocities(of: property)) }
            return Double(nanoseconds() - start) / Double(max(1, slots.count))
        }
        let samples = (0..<15).map { _ in readAll() }
        let firstReads = (0..<15).map { k in
            evaluator.evaluate(at: 0.5 + Double(k + 1) / 60)
            return readAll()
        }
        if sink == .infinity { print("") }   // keeps the reads
        evaluator.configuration.computesVelocity = false
        let withStatistics = FrameStatistics(with), withoutStatistics = FrameStatistics(without)
        return VelocityFigures(values: slots.count, withVelocity: withStatistics, without: withoutStatistics,
                               addedFraction: withStatistics.p50Seconds / withoutStatistics.p50Seconds - 1,
                               bulkNanosecondsPerValue: FrameStatistics(samples).p50Seconds,
                               firstReadNanosecondsPerValue: FrameStatistics(firstReads).p50Seconds, computedValues: computed, threads: threads)
    }
}

/// What changing animations costs a host (docs/architecture.md, "Standard workloads": churn): retargeting a share of the layers between frames, and every layer at once.
public struct ChurnFigures: Sendable, Codable {
    /// Layers (one animation each).
    public var properties: Int
    /// Animations replaced before each measured frame.
    public var retargetedPerFrame: Int
    public var threads: Int
    /// Frames right after the retargets (the frame only: `evaluate(at:)`).
    public var frameAfterRetarget: FrameStatistics
    /// Frames without retargets, the same run, alternating with them.
    public var frameAlone: FrameStatistics
    /// One `TrackStore.replace(_:with:)`, on average over the frames' retargets.
    public var replaceNanoseconds: Double
    /// Every layer's animation replaced in one go, on the calling thread.
    public var retargetAllSeconds: Double
    /// The frame after that.
    public var frameAfterRetargetAllSeconds: Double
    /// Basic and spring animations retargeted at once through `TrackStore.retarget(_:from:to:beginTime:)`
    /// (each to its slot's presentation value, from the value beneath): W2's other animations
    /// (keyframes, paths) have no target to move.
    public var retargetedValues: Int = 0
    /// The time those retargets took, on the calling thread.
    public var retargetValuesSeconds: Double = 0
    /// The same animations retargeted again (after a frame) in one call of
    /// `TrackStore.retarget(_:from:to:beginTime:)` over arrays of handles and values.
    public var retargetManySeconds: Double = 0
}

extension Measure {
    /// Retargets `fraction` of `workload`'s layers before every other frame — each animation
    /// replaced by itself begun at the frame's time (a restart: compiled anew) — and times those
    /// frames against the frames between; then replaces every layer's animation at once. Changes
    /// the store (every animation gets a new handle): run it after the other measurements.
    public static func churn(_ workload: W2Workload, evaluator: FrameEvaluator, frames count: Int, threads: Int,
                             fraction: Double = 0.01) throws -> ChurnFigures {
        let store = evaluator.store
        evaluator.configuration.maximumThreads = threads
        evaluator.configuration.parallelThreshold = threads > 1 ? 0 : Int.max
        var handles = workload.layers.map { store.animations(of: $0.layer).first! }
        let originals = workload.layers.map { $0.animations[0] }
        let perFrame = max(1, Int(Double(handles.count) * fraction))
        var cursor = 0
        func retarget(_ i: Int, at t: Double) throws {
            var animation = originals[i]
            animation.timing.beginTime = t
            handles[i] = try store.replace(handles[i], with: animation)
        }
        evaluator.evaluate(at: -1)
        var after: [Double] = [], alone: [Double] = [], replaceTotal = 0.0, replaced = 0
        for (k, t) in W2Workload.frameTimes(count).enumerated() {
            if k % 2 == 0 {
                let start = nanoseconds()
                for _ in 0..<perFrame {
                    try retarget(cursor % handles.count, at: t)
                    cursor += 1
                }
                replaceTotal += Double(nanoseconds() - start)
                replaced += perFrame
                let frame = nanoseconds()
                evaluator.evaluate(at: t)
                after.append(Double(nanoseconds() - frame) / 1e9)
            } else {
                let frame = nanoseconds()
                evaluator.evaluate(at: t)
                alone.append(Double(nanoseconds() - frame) / 1e9)
            }
        }
        let t = Double(count) / 60
        let start = nanoseconds()
        for i in handles.indices { try retarget(i, at: t) }
        let all = Double(nanoseconds() - start) / 1e9
        let frame = nanoseconds()
        evaluator.evaluate(at: t)
        let frameAfterAll = Double(nanoseconds() - frame) / 1e9
        // Every basic and spring animation to a new target, the values read before the clock runs.
        var targets: [(index: Int, value: AnimationValue)] = []
        for (i, layer) in workload.layers.enumerated() {
            let animation = originals[i]
            guard let property = animation as? any PropertyAnimation, animation is BasicAnimation || animation is SpringAnimation,
                  case let (property, nil) = AnimationKeyPath.split(property.keyPath),
                  let slot = store.slot(layer: layer.layer, property: property),
                  let value = store.presentationValue(of: slot) else { continue }
            targets.append((i, value))
        }
        let valuesStart = nanoseconds()
        for (i, value) in targets { handles[i] = try store.retarget(handles[i], to: value, beginTime: t) }
        let values = Double(nanoseconds() - valuesStart) / 1e9
        evaluator.evaluate(at: t + 1.0 / 60)
        // Again, in one call: every target read after that frame.
        var manyHandles = targets.map { handles[$0.index] }
        let manyTargets = targets.map { target in
            let layer = workload.layers[target.index].layer, property = AnimationKeyPath.split((originals[target.index] as! any PropertyAnimation).keyPath).property
            return store.slot(layer: layer, property: property).flatMap { store.presentationValue(of: $0) } ?? target.value
        }
        let manyStart = nanoseconds()
        try store.retarget(&manyHandles, to: manyTargets, beginTime: t + 1.0 / 60)
        let many = Double(nanoseconds() - manyStart) / 1e9
        for (k, target) in targets.enumerated() { handles[target.index] = manyHandles[k] }
        evaluator.evaluate(at: t + 2.0 / 60)
        var figures = ChurnFigures(properties: handles.count, retargetedPerFrame: perFrame, threads: threads,
                                   frameAfterRetarget: FrameStatistics(after), frameAlone: FrameStatistics(alone),
                                   replaceNanoseconds: replaceTotal / Double(max(1, replaced)), retargetAllSeconds: all,
                                   frameAfterRetargetAllSeconds: frameAfterAll)
        (figures.retargetedValues, figures.retargetValuesSeconds, figures.retargetManySeconds) = (targets.count, values, many)
        return figures
    }
}
