import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// Random sequences of add (keyed and anonymous) / replace / remove / removeSlot / removeLayer /
/// model change / tick / seek against a model of what must happen (semantics §1.2, §1.4, §8.1):
/// every animation ends exactly once with the right outcome, starts at most once, finishes only
/// once its active duration has ended, and values agree with the reference over the animations
/// still on each layer; at the end, with every layer removed, storage is empty.
@Suite("Lifecycle under random sequences (exactly once, storage returns to empty)")
struct LifecyclePropertyTests {
    struct Live {
        var layer: Int
        var key: String?
        var animation: any Animation
        /// Add order on its layer (a replacement keeps its place).
        var order: Int
    }

    @Test("random add / replace / remove / removeSlot / removeLayer / tick / seek sequences",
          arguments: Array(UInt64(1)...UInt64(TestScale.count(debug: 6, release: 40))))
    func randomSequences(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9)
        var random = RandomAnimations(seed: seed)
        let layerCount = 6
        let layers = (0..<layerCount).map { random.layer(LayerID(UInt64($0 + 1))) }
        let store = TrackStore()
        let threads = Int.random(in: 0...1, using: &rng)
        let evaluator = FrameEvaluator(store: store, configuration: .init(parallelThreshold: 0, chunksPerBatch: 3, maximumThreads: threads))
        var model: [[String: AnimationValue]] = layers.map(\.model)
        var live: [AnimationHandle: Live] = [:]
        var expectedStops: [AnimationHandle: AnimationEvent.Outcome] = [:]   // from mutations, due next frame
        var started: Set<AnimationHandle> = [], stopped: Set<AnimationHandle> = [], everAdded: Set<AnimationHandle> = []
        // Finished and not removed on completion: their stop was reported, a later removal reports none.
        var finished: Set<AnimationHandle> = []
        func expectStop(_ h: AnimationHandle, _ outcome: AnimationEvent.Outcome) {
            if !finished.contains(h) { expectedStops[h] = outcome }
        }
        var nextOrder = 0
        var time = -0.5
        var failures: [String] = []
        var log: [String] = []

        func setModels(_ l: Int) throws {
            for (property, value) in model[l] { try store.setModelValue(value, layer: layers[l].layer, property: property) }
        }
        for l in 0..<layerCount { try setModels(l) }

        func add(_ l: Int) throws {
            let key: String? = Bool.random(using: &rng) ? ["a", "b", "c"].randomElement(using: &rng)! : nil
            let animation = random.animation()
            if let key, let (old, _) = live.first(where: { $0.value.layer == l && $0.value.key == key }) {
                live[old] = nil
                expectStop(old, .replaced)
            }
            let handle = try store.add(animation, layer: layers[l].layer, forKey: key)
            everAdded.insert(handle)
            live[handle] = Live(layer: l, key: key, animation: animation, order: nextOrder)
            nextOrder += 1
        }

        func frame(at t: Double) {
            evaluator.evaluate(at: t)
            var due = expectedStops
            expectedStops = [:]
            for event in evaluator.events {
                let h = event.animation
                switch event.kind {
                case .started:
                    if !started.insert(h).inserted { failures.append("\(h) started twice") }
                    if let entry = live[h], ReferenceEvaluator.phase(of: entry.animation, at: t) == .before {
                        failures.append("\(h) started before its active duration at \(t)")
                    }
                case .stopped:
                    if !stopped.insert(h).inserted { failures.append("\(h) stopped twice (\(event.outcome!))") }
                    if let outcome = due.removeValue(forKey: h) {
                        if event.outcome != outcome { failures.append("\(h) stopped \(event.outcome!), expected \(outcome)") }
                    } else if event.outcome == .finished, let entry = live[h] {
                        if ReferenceEvaluator.phase(of: entry.animation, at: t) != .after {
                            failures.append("\(h) finished before its end at \(t)")
                        }
                        if entry.animation.isRemovedOnCompletion {
                            live[h] = nil   // reaped (§1.4)
                            if store.animation(h) != nil { failures.append("\(h) finished but was not reaped") }
                        } else {
                            finished.insert(h)
                            if store.hasFinished(h) != true { failures.append("\(h) finished but is not marked") }
                        }
                    } else {
                        failures.append("unexpected \(event)")
                    }
                }
            }
            for (h, outcome) in due { failures.append("\(h) did not report its stop (\(outcome))") }
            // Values: the reference over the animations still on each layer, in add order.
            for l in 0..<layerCount where !model[l].isEmpty {
                let animations = live.values.filter { $0.layer == l }.sorted { $0.order < $1.order }.map(\.animation)
                let reference = ReferenceEvaluator.presentationValues(model: model[l], animations: animations, at: t)
                var judged = layers[l]
                judged.model = model[l]
                judged.animations = animations
                for (property, expected) in reference {
                    guard let shown = evaluator.value(layer: layers[l].layer, property: property) else {
                        failures.append("layer \(l) \(property): no value")
                        continue
                    }
                    let tol = tolerance(property: property, layer: judged, reference: expected)
                    if maxDifference(shown, expected) > tol
                        && !matchesNearJump(shown, layer: judged, property: property, at: t, tolerance: tol) {
                        failures.append("layer \(l) \(property) at \(t): \(shown) vs \(expected) after \(log.suffix(12))")
                    }
                }
            }
        }

        for l in 0..<layerCount { for _ in 0..<2 { try add(l) } }
        for _ in 0..<TestScale.count(debug: 40, release: 120) {
            let l = Int.random(in: 0..<layerCount, using: &rng)
            let onLayer = live.filter { $0.value.layer == l }.map(\.key)
            let op = Int.random(in: 0..<100, using: &rng)
            log.append("op \(op) on layer \(l)")
            switch op {
            case 0..<25:
                if model[l].isEmpty {   // a removed layer comes back
                    model[l] = layers[l].model
                    try setModels(l)
                }
                try add(l)
            case 25..<35:
                if let h = onLayer.randomElement(using: &rng) {
                    let animation = random.animation()
                    let new = try store.replace(h, with: animation)
                    everAdded.insert(new)
                    live[new] = Live(layer: l, key: live[h]!.key, animation: animation, order: live[h]!.order)
                    live[h] = nil
                    expectStop(h, .replaced)
                }
            case 35..<45:
                if let h = onLayer.randomElement(using: &rng) {
                    #expect(store.remove(h))
                    live[h] = nil
                    expectStop(h, .removed)
                }
            case 45..<49:
                if !model[l].isEmpty {
                    #expect(store.removeLayer(layers[l].layer))
                    for h in onLayer {
                        live[h] = nil
                        expectStop(h, .cancelled)
                    }
                    model[l] = [:]
                }
            case 49..<53:
                // A slot goes: the animations with a leaf on its property are cancelled.
                if let property = model[l].keys.sorted().randomElement(using: &rng),
                   let slot = store.slot(layer: layers[l].layer, property: property) {
                    #expect(store.removeSlot(slot))
                    for h in onLayer where live[h]!.animation.leaves.contains(where: {
                        AnimationKeyPath.split($0.animation.keyPath).property == property
                    }) {
                        live[h] = nil
                        expectStop(h, .cancelled)
                    }
                    // The reference judges the layer without the property, and the animations
                    // on it are gone; a later add brings the whole model back.
                    model[l] = [:]
                    store.removeLayer(layers[l].layer)
                    for h in live.filter({ $0.value.layer == l }).map(\.key) {
                        live[h] = nil
                        expectStop(h, .cancelled)
                    }
                }
            case 53..<60:
                if let (property, value) = model[l].randomElement(using: &rng) {
                    let changed = value.adding(value)   // another value of the same kind
                    model[l][property] = changed
                    try store.setModelValue(changed, layer: layers[l].layer, property: property)
                }
            case 60..<80:
                time += Double.random(in: 0...0.4, using: &rng)
                frame(at: time)
            default:
                time = Double.random(in: -1...8, using: &rng)   // a seek, backwards or forwards
                frame(at: time)
            }
            // The store's tables and its plan agree after every change, before the frame that
            // replans (debug frames check them too, once the plan is up to date).
            let broken = store.invariantViolations()
            if !broken.isEmpty { failures.append("after op \(op): \(broken)") }
        }
        // Every layer removed: everything still live is cancelled, and storage is empty.
        for l in 0..<layerCount where !model[l].isEmpty {
            store.removeLayer(layers[l].layer)
            for h in live.filter({ $0.value.layer == l }).map(\.key) {
                live[h] = nil
                expectStop(h, .cancelled)
            }
            model[l] = [:]
        }
        frame(at: time)
        #expect(live.isEmpty)
        #expect(stopped == everAdded, "every animation stopped exactly once: \(everAdded.subtracting(stopped).count) never did")
        #expect(store.trackCount == 0 && store.animationCount == 0 && store.slotCount == 0 && store.layerCount == 0)
        #expect(store.presentationProperties.allSatisfy { store.presentation(of: $0)!.count == 0 })
        #expect(failures.isEmpty, "\(failures.count) failures; the first: \(failures.prefix(6).joined(separator: "\n"))")
    }
}
