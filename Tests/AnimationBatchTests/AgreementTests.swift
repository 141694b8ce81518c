import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Foundation
import Testing

/// Sizes: modest in debug builds (SIMD code is ~400× slower there), full in the optimised run that
/// `.ci/run` performs (`swift test -c release`).
enum TestScale {
    #if DEBUG
    static let isFull = false
    #else
    static let isFull = true
    #endif
    static func count(debug: Int, release: Int) -> Int { isFull ? release : debug }
}

/// A random scene loaded into a store, with what the reference needs to judge it.
struct Scene {
    let layers: [RandomLayer]
    let store = TrackStore()
    var handles: [[AnimationHandle]] = []

    init(seed: UInt64, layers count: Int, plainTiming: Bool = false, forwardTiming: Bool = false) throws {
        var random = RandomAnimations(seed: seed, plainTiming: plainTiming, forwardTiming: forwardTiming)
        layers = (0..<count).map { random.layer(LayerID(UInt64($0 + 1))) }
        for layer in layers {
            for (property, value) in layer.model { try store.setModelValue(value, layer: layer.layer, property: property) }
        }
        for layer in layers {
            handles.append(try layer.animations.map { try store.add($0, layer: layer.layer) })
        }
    }

    /// Frame times: every 1/16 in [−1, 9] (all begin and end boundaries of the random animations),
    /// points just before and after some of them, and random times.
    static func frameTimes(seed: UInt64, random count: Int, boundaries: Bool) -> [Double] {
        var rng = SplitMix64(seed: seed)
        var times = boundaries ? RandomAnimations.boundaryTimes : []
        if boundaries {
            for t in stride(from: -0.5, through: 4, by: 0.5) { times += [t - 1e-7, t + 1e-7] }
        }
        times += (0..<count).map { _ in Double.random(in: -1...9, using: &rng) }
        return times.sorted()
    }
}

func magnitude(_ v: AnimationValue) -> Double { PrecisionTable.magnitude(v) }

func tolerance(property: String, layer: RandomLayer, reference: AnimationValue) -> Double {
    PrecisionTable.tolerance(property: property, model: layer.model[property], animations: layer.animations, reference: reference)
}

func maxDifference(_ a: AnimationValue, _ b: AnimationValue) -> Double { PrecisionTable.maxDifference(a, b) }

/// Whether a mismatch sits at a jump (a discrete key time, equal key times, a move in a path): the
/// batch decides in Float, the reference in Double, so near a jump either side is right. Accepted
/// when the batch value matches the reference a hair earlier or later.
func matchesNearJump(_ batch: AnimationValue, layer: RandomLayer, property: String, at t: Double, tolerance: Double) -> Bool {
    for delta in [1e-6, -1e-6, 1e-5, -1e-5, 1e-4, -1e-4] {
        let nearby = ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t + delta)[property]!
        if maxDifference(batch, nearby) <= tolerance { return true }
    }
    return false
}

/// Started/finished by the rule the engine uses (semantics §8.1): started when a top-level
/// animation's phase leaves "before" (or on its first frame out of it), finished when it enters
/// "after".
func referenceEvents(_ scene: Scene, previous: inout [AnimationHandle: TimingPhase?], at t: Double) -> Set<AnimationEvent> {
    var events = Set<AnimationEvent>()
    for (l, layer) in scene.layers.enumerated() {
        for (a, animation) in layer.animations.enumerated() {
            let handle = scene.handles[l][a]
            let phase = t.isNaN ? TimingPhase.before : ReferenceEvaluator.phase(of: animation, at: t)
            let before = previous[handle] ?? nil
            if (before == nil || before == .before) && phase != .before { events.insert(AnimationEvent(animation: handle, kind: .started)) }
            if before != .after && phase == .after { events.insert(AnimationEvent(animation: handle, kind: .stopped, outcome: .finished)) }
            previous[handle] = phase
        }
    }
    return events
}

@Suite("Batch vs reference (docs/architecture.md precision table)")
struct AgreementTests {
    @Test("randomised agreement: every kind, value type, timing option and mode, at boundaries and random times")
    func randomisedAgreement() throws {
        let scene = try Scene(seed: 0xA11CE, layers: TestScale.count(debug: 150, release: 5_000))
        try checkAgreement(scene, minimumAnimations: TestScale.count(debug: 150, release: 10_000))
    }

    /// With random timings almost no block of 16 tracks has only plain timings (speed 1, no offset),
    /// so those blocks' own path gets its own scene.
    @Test("randomised agreement with plain timings only (the kernel's plain-block path)")
    func randomisedAgreementPlainTimings() throws {
        let scene = try Scene(seed: 0x9A1B, layers: TestScale.count(debug: 100, release: 2_500), plainTiming: true)
        try checkAgreement(scene, minimumAnimations: TestScale.count(debug: 100, release: 4_000))
    }

    /// Blocks whose timings all run forwards with time offsets (a scene spread in phase) have a
    /// path of their own too.
    @Test("randomised agreement with forward timings only (speed 1, time offsets: the kernel's forward-block path)")
    func randomisedAgreementForwardTimings() throws {
        let scene = try Scene(seed: 0xF0E1, layers: TestScale.count(debug: 100, release: 2_500), forwardTiming: true)
        try checkAgreement(scene, minimumAnimations: TestScale.count(debug: 100, release: 4_000))
    }

    /// Every value and event of `scene` against the reference, at the boundary and random times.
    func checkAgreement(_ scene: Scene, minimumAnimations: Int) throws {
        let times = Scene.frameTimes(seed: 7, random: TestScale.count(debug: 20, release: 40), boundaries: true)
        let evaluator = FrameEvaluator(store: scene.store)
        var checked = 0, nearJumps = 0
        var worstRatio = 0.0
        var failures: [String] = []
        var previous: [AnimationHandle: TimingPhase?] = [:]
        var eventFrames = 0
        // Each layer's tolerance bounds, worked out once (they depend on the animations, not the time).
        var bounds = [PrecisionTable.Bounds](repeating: .init(), count: scene.layers.count)
        for t in times {
            evaluator.evaluate(at: t)
            for (l, layer) in scene.layers.enumerated() {
                let reference = ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: t)
                for (property, expected) in reference {
                    guard let batch = evaluator.value(layer: layer.layer, property: property) else {
                        failures.append("\(layer.layer) \(property): no slot")
                        continue
                    }
                    let tol = bounds[l].tolerance(property: property, model: layer.model[property], animations: layer.animations,
                                                  reference: expected)
                    let difference = maxDifference(batch, expected)
                    checked += 1
                    if difference <= tol {
                        worstRatio = max(worstRatio, difference / tol)
                    } else if matchesNearJump(batch, layer: layer, property: property, at: t, tolerance: tol) {
                        nearJumps += 1
                    } else {
                        failures.append("\(layer.layer) \(property) at t = \(t): batch \(batch), reference \(expected), tolerance \(tol)")
                    }
                }
            }
            let expectedEvents = referenceEvents(scene, previous: &previous, at: t)
            let actual = Set(evaluator.events.filter { $0.outcome != .removed })
            if actual != expectedEvents {
                failures.append("events at t = \(t): batch \(actual.subtracting(expectedEvents).sorted { $0.animation < $1.animation }.prefix(3)) not in reference; missing \(expectedEvents.subtracting(actual).sorted { $0.animation < $1.animation }.prefix(3))")
            }
            eventFrames += 1
        }
        let animations = scene.layers.reduce(0) { $0 + $1.animations.count }
        print("agreement: \(animations) animations (\(scene.store.trackCount) tracks) × \(times.count) times: \(checked) values checked, worst error \(worstRatio) of the tolerance, \(nearJumps) at jumps; events compared on \(eventFrames) frames")
        #expect(failures.isEmpty, "\(failures.count) failures; the first: \(failures.prefix(8).joined(separator: "\n"))")
        #expect(animations >= minimumAnimations)
    }

    @Test("plain-timing and forward-timing blocks give the general path's bits", arguments: [false, true])
    func plainBlocksMatchTheGeneralPath(forward: Bool) throws {
        // The same plain-timed (or forward-timed) animations in two stores: alone (their blocks all
        // plain or forward, the fast paths) and mixed with other timings (most of their blocks take
        // the general path).
        var random = RandomAnimations(seed: 0x51A1, plainTiming: !forward, forwardTiming: forward)
        var others = RandomAnimations(seed: 0x0E5)
        let layers = (0..<TestScale.count(debug: 90, release: 1_500)).map { random.layer(LayerID(UInt64($0 + 1))) }
        let alone = TrackStore(), mixed = TrackStore()
        var sameAnimation: [AnimationHandle: AnimationHandle] = [:]   // mixed store's handle → alone's
        for (k, layer) in layers.enumerated() {
            for (property, value) in layer.model {
                try alone.setModelValue(value, layer: layer.layer, property: property)
                try mixed.setModelValue(value, layer: layer.layer, property: property)
            }
            for animation in layer.animations {
                let handle = try alone.add(animation, layer: layer.layer)
                sameAnimation[try mixed.add(animation, layer: layer.layer)] = handle
            }
            if k % 2 == 0 {
                let other = others.layer(LayerID(UInt64(1_000_000 + k)))
                for (property, value) in other.model { try mixed.setModelValue(value, layer: other.layer, property: property) }
                for animation in other.animations { _ = try mixed.add(animation, layer: other.layer) }
            }
        }
        let fast = FrameEvaluator(store: alone), general = FrameEvaluator(store: mixed)
        var compared = 0, mismatches: [String] = []
        for t in Scene.frameTimes(seed: 3, random: 10, boundaries: true) + [.nan, .infinity, -.infinity, -0.0] {
            fast.evaluate(at: t)
            general.evaluate(at: t)
            for layer in layers {
                for property in layer.model.keys {
                    let a = fast.value(layer: layer.layer, property: property)?.components.map(\.bitPattern)
                    let b = general.value(layer: layer.layer, property: property)?.components.map(\.bitPattern)
                    if a == nil || a != b { mismatches.append("\(layer.layer) \(property) at t = \(t)") }
                    compared += 1
                }
            }
            // The same events too (the other layers' animations left out).
            let mapped = general.events.compactMap { e in
                sameAnimation[e.animation].map { AnimationEvent(animation: $0, kind: e.kind, outcome: e.outcome) }
            }
            if Set(mapped) != Set(fast.events) { mismatches.append("events at t = \(t)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differences; the first: \(mismatches.prefix(5))")
        #expect(compared >= layers.count * RandomAnimations.properties.count)
    }

    @Test("bit-identical outputs and the same events in the same order for 1, 2 and 8 chunks, on one thread and on all cores")
    func chunkingDoesNotChangeResults() throws {
        var runs: [[[UInt64]]] = []
        var eventRuns: [[[AnimationEvent]]] = []
        for (chunks, threads) in [(1, 1), (2, 0), (8, 0), (8, 1)] {
            // A fresh store per run: events depend on the phases the store's tracks last showed.
            let scene = try Scene(seed: 42, layers: TestScale.count(debug: 60, release: 3_000))
            // In (layer, property) order: slot numbers follow the order models were set in, which
            // follows dictionary order and differs between stores.
            let slots = scene.store.allSlots.sorted { a, b in
                let (x, y) = (scene.store.key(of: a)!, scene.store.key(of: b)!)
                return (x.layer.rawValue, x.property) < (y.layer.rawValue, y.property)
            }
            let evaluator = FrameEvaluator(store: scene.store, configuration: .init(parallelThreshold: 0, chunksPerBatch: chunks, maximumThreads: threads))
            var frames: [[UInt64]] = [], events: [[AnimationEvent]] = []
            for t in [0.1, 0.6, 1.3, 2.7, 9.0] {
                evaluator.evaluate(at: t)
                frames.append(slots.flatMap { evaluator.value(of: $0)!.components.map(\.bitPattern) })
                events.append(Array(evaluator.events))
            }
            runs.append(frames)
            eventRuns.append(events)
        }
        #expect(runs.allSatisfy { $0 == runs[0] })
        #expect(eventRuns.allSatisfy { $0 == eventRuns[0] })
        // Starts on the first frame and finishes later: the comparison covers both kinds.
        let kinds = Set(eventRuns[0].joined().map(\.kind))
        #expect(kinds.contains(.started) && kinds.contains(.stopped))
    }

    @Test("adding, removing and replacing animations leaves every other output unchanged")
    func mutationsDoNotDisturbOthers() throws {
        var scene = try Scene(seed: 99, layers: TestScale.count(debug: 80, release: 2_000))
        let evaluator = FrameEvaluator(store: scene.store, configuration: .init(parallelThreshold: 0, chunksPerBatch: 4))
        let t = 0.7
        evaluator.evaluate(at: t)
        // Again at the same time: the first frame reaped the animations it finished (semantics
        // §1.4), which can move a slot from composed to exclusive (the same value, rounded once
        // in Float instead of in Double). What follows compares against a settled store.
        evaluator.evaluate(at: t)
        func snapshot() -> [LayerID: [String: [UInt64]]] {
            var result: [LayerID: [String: [UInt64]]] = [:]
            for layer in scene.layers {
                for property in layer.model.keys {
                    result[layer.layer, default: [:]][property] = evaluator.value(layer: layer.layer, property: property)!.components.map(\.bitPattern)
                }
            }
            return result
        }
        let before = snapshot()
        var random = RandomAnimations(seed: 1234)
        var touched = Set<LayerID>()
        var removedCount = 0
        for (l, layer) in scene.layers.enumerated() where l % 5 == 0 {
            touched.insert(layer.layer)
            // The frames above reaped the animations they finished (§1.4): those handles are stale.
            let alive = scene.store.animation(scene.handles[l][0]) != nil
            switch (l / 5) % 3 {
            case 0 where alive:
                // One that already reported its finish has stopped: its removal reports nothing (§8.1).
                if scene.store.hasFinished(scene.handles[l][0]) == false { removedCount += 1 }
                #expect(scene.store.remove(scene.handles[l][0]))
            case 1 where alive: try scene.store.replace(scene.handles[l][0], with: random.propertyAnimation())
            default: scene.handles[l].append(try scene.store.add(random.animation(), layer: layer.layer))
            }
        }
        evaluator.evaluate(at: t)
        let after = snapshot()
        for layer in scene.layers where !touched.contains(layer.layer) {
            #expect(after[layer.layer] == before[layer.layer], "\(layer.layer) changed")
        }
        // Removed animations report their stop with the next frame.
        let removed = evaluator.events.filter { $0.outcome == .removed }.count
        #expect(removed == removedCount && removedCount > 0)
    }
}
