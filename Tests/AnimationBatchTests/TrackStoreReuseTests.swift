import AnimationBatch
import AnimationCore
import Testing

/// Replacement by key in place and parked tracks (semantics §1.2, §1.4, §8.1, §8.4): what a
/// host observes is exactly what removing and adding gives.
@Suite("Track store: replacement in place and parked tracks")
struct TrackStoreReuseTests {
    func fade(from: Double = 0, to: Double? = 1, duration: Double = 1, begin: Double = 0) -> BasicAnimation {
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = .scalar(from)
        a.toValue = to.map { .scalar($0) }
        a.duration = duration
        a.beginTime = begin
        a.timingFunction = .easeIn
        return a
    }

    /// Runs the same script on a store with and without reuse: every frame's values and events
    /// must agree bit for bit.
    func script(parks: Bool, _ body: (TrackStore, FrameEvaluator, inout [String]) throws -> Void) rethrows -> [String] {
        let store = TrackStore()
        store.parksFinishedAnimations = parks
        let evaluator = FrameEvaluator(store: store)
        var log: [String] = []
        try body(store, evaluator, &log)
        return log
    }

    func record(_ evaluator: FrameEvaluator, at t: Double, _ log: inout [String], layers: [LayerID]) {
        evaluator.evaluate(at: t)
        for layer in layers {
            for property in ["opacity", "position"] {
                if let v = evaluator.value(layer: layer, property: property) { log.append("\(t) \(layer) \(property) \(v)") }
            }
        }
        log.append("\(t) events \(evaluator.events.map { "\($0.kind)\($0.outcome.map { "-\($0)" } ?? "")" })")
    }

    @Test("§1.2 §8.4 replacing by key in place moves the animation to the end of the order and the keys")
    func inPlaceMovesToEnd() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(0.5, layer: layer, property: "opacity")
        let first = try store.add(fade(), layer: layer, forKey: "implicit")
        var additive = fade(from: 0.25, to: 0.25, duration: 10)
        additive.isAdditive = true
        try store.add(additive, layer: layer, forKey: "extra")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        let second = try store.add(fade(from: 1, to: 1), layer: layer, forKey: "implicit")
        #expect(store.trackCount == 2)
        #expect(store.animation(first) == nil)
        #expect(store.animationKeys(layer: layer) == ["extra", "implicit"])
        evaluator.evaluate(at: 0.6)
        // Now last: it replaces what the additive one added (1), instead of being added to (1.25).
        #expect(evaluator.value(layer: layer, property: "opacity") == .scalar(1))
        #expect(Array(evaluator.events) == [AnimationEvent(animation: first, kind: .stopped, outcome: .replaced),
                                             AnimationEvent(animation: second, kind: .started)])
    }

    @Test("§1.4 §8.1 parked animations: invisible, their handles stale, the slot back on its exact model, no events")
    func parkedAnimationsAreGone() throws {
        let store = TrackStore(), layer = LayerID(1)
        store.parksFinishedAnimations = true
        try store.setModelValue(0.9, layer: layer, property: "opacity")
        let other = try store.add(fade(duration: 10), layer: LayerID(2), forKey: "opacity")   // the batch's first lane
        let a = try store.add(fade(duration: 0.5), layer: layer, forKey: "opacity")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.25)
        evaluator.evaluate(at: 0.75)
        #expect(Array(evaluator.events) == [AnimationEvent(animation: a, kind: .stopped, outcome: .finished)])
        // The parked lane moves into the hole the other leaves: it must still show nowhere.
        #expect(store.remove(other))
        evaluator.evaluate(at: 0.8)
        #expect(store.animation(a) == nil && store.animationCount == 0 && store.allAnimations.isEmpty)
        #expect(evaluator.value(layer: layer, property: "opacity") == .scalar(0.9), "exactly the model")
        #expect(store.animationKeys(layer: layer).isEmpty && store.animation(forKey: "opacity", layer: layer) == nil)
        #expect(!store.remove(a))
        evaluator.evaluate(at: 1)
        #expect(evaluator.value(layer: layer, property: "opacity") == .scalar(0.9), "exactly the model")
        #expect(evaluator.events.isEmpty)
        #expect(store.trackCount == 1, "the track is kept")
    }

    @Test("a parked track taken over by the next animation under its key gives what a fresh add gives, bit for bit")
    func unparkEqualsFreshAdd() throws {
        let runs = [false, true].map { parks in
            script(parks: parks) { store, evaluator, log in
                let layer = LayerID(7)
                _ = try? store.setModelValue(0.3, layer: layer, property: "opacity")
                _ = try? store.add(fade(duration: 0.5), layer: layer, forKey: "opacity")
                for k in 0..<4 { record(evaluator, at: Double(k) * 0.25, &log, layers: [layer]) }
                // Another animation on the slot: the revived track joins a composed slot.
                var extra = fade(from: 0.1, to: 0.2, duration: 3, begin: 0.9)
                extra.isAdditive = true
                _ = try? store.add(extra, layer: layer, forKey: "extra")
                // The key's next animation: the same shape, new values, timing and function.
                var next = fade(from: 0.8, to: nil, duration: 2, begin: 1)
                next.timingFunction = .default
                _ = try? store.add(next, layer: layer, forKey: "opacity")
                for k in 4..<14 { record(evaluator, at: Double(k) * 0.25, &log, layers: [layer]) }
                // Another shape (a spring) cannot take the parked basic track over.
                _ = try? store.add(SpringAnimation(keyPath: "opacity", from: 0.0, to: 1.0, mass: 1, stiffness: 100, damping: 10),
                                   layer: layer, forKey: "opacity")
                for k in 14..<18 { record(evaluator, at: Double(k) * 0.25, &log, layers: [layer]) }
                log.append("animations \(store.animationCount) keys \(store.animationKeys(layer: layer))")
            }
        }
        #expect(runs[0] == runs[1])
        #expect(runs[0].count > 30)
    }

    @Test("parked tracks go with their layer and their slot")
    func parkedTracksGoWithLayerAndSlot() throws {
        let store = TrackStore()
        store.parksFinishedAnimations = true
        try store.add(fade(duration: 0.1), layer: LayerID(1), forKey: "opacity")
        try store.add(fade(duration: 0.1), layer: LayerID(2), forKey: "opacity")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 1)
        #expect(store.trackCount == 2 && store.animationCount == 0)
        #expect(store.removeLayer(LayerID(1)))
        #expect(store.trackCount == 1)
        let slot = try #require(store.slot(layer: LayerID(2), property: "opacity"))
        #expect(store.removeSlot(slot))
        #expect(store.trackCount == 0)
        evaluator.evaluate(at: 2)
        #expect(evaluator.events.isEmpty)
    }

    @Test("§1.2 a key names one animation: with parking turned off, a new animation under a parked key frees the parked one")
    func keyNamesOneAnimation() throws {
        let store = TrackStore(), layer = LayerID(1)
        store.parksFinishedAnimations = true
        try store.add(fade(duration: 0.1), layer: layer, forKey: "opacity")
        try store.add(fade(duration: 0.1), layer: layer, forKey: "other")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 1)   // both finish and park
        #expect(store.animationCount == 0 && store.trackCount == 2 && store.parkedAnimationCount == 2)
        #expect(store.animation(forKey: "opacity", layer: layer) == nil && store.animationKeys(layer: layer).isEmpty)
        store.parksFinishedAnimations = false
        let added = try store.add(fade(from: 0.5, to: 0.5, duration: 1, begin: 1), layer: layer, forKey: "opacity")
        #expect(store.parkedAnimationCount == 1, "the key's parked animation was freed")
        #expect(store.animation(forKey: "opacity", layer: layer) == added)
        #expect(store.animationKeys(layer: layer) == ["opacity"])
        #expect(store.invariantViolations().isEmpty, "\(store.invariantViolations())")
        evaluator.evaluate(at: 1.5)
        #expect(evaluator.value(layer: layer, property: "opacity") == .scalar(0.5))
        #expect(store.remove(added))
        #expect(store.animation(forKey: "opacity", layer: layer) == nil)
        #expect(store.removeLayer(layer))
        #expect(store.parkedAnimationCount == 0 && store.trackCount == 0)
        #expect(store.invariantViolations().isEmpty, "\(store.invariantViolations())")
    }

    @Test("an invalid animation under a parked key throws and leaves the parked track parked")
    func invalidUnpark() throws {
        let store = TrackStore(), layer = LayerID(1)
        store.parksFinishedAnimations = true
        try store.add(fade(duration: 0.1), layer: layer, forKey: "opacity")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 1)
        var bad = fade()
        bad.repeatCount = -1
        #expect(throws: AnimationError.self) { try store.add(bad, layer: layer, forKey: "opacity") }
        #expect(store.animationCount == 0 && store.trackCount == 1)
        evaluator.evaluate(at: 2)
        #expect(evaluator.value(layer: layer, property: "opacity") == .scalar(1))
        let good = try store.add(fade(from: 0.5, to: 0.5, duration: 1, begin: 2), layer: layer, forKey: "opacity")
        evaluator.evaluate(at: 2.5)
        #expect(evaluator.value(layer: layer, property: "opacity") == .scalar(0.5))
        #expect(store.animation(good) != nil)
    }

    /// The animation an implicit action adds (LayerTree, §10): from a value to the one beneath.
    func implicit(from: Double, begin: Double, duration: Double = 0.5) -> BasicAnimation {
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = .scalar(from)
        a.duration = duration
        a.beginTime = begin
        a.timingFunction = .default
        return a
    }

    @Test("§10 an implicit action's animation taken over in the columns (live or parked) equals adding its copy, bit for bit")
    func retargetImplicitEqualsAdd() throws {
        let runs = [false, true].map { fast in
            script(parks: true) { store, evaluator, log in
                let layer = LayerID(3)
                _ = try? store.setModelValue(0.2, layer: layer, property: "opacity")
                var handle = try? store.add(implicit(from: 1, begin: 0), layer: layer, forKey: "opacity")
                // Re-adds the key's animation from `from` at `t`: in the columns, or as a copy.
                func again(from: Double, at t: Double) {
                    if fast, let h = handle, let taken = store.retargetImplicit(h, layer: layer, forKey: "opacity", from: .scalar(from), beginTime: t) {
                        handle = taken
                        log.append("taken over \(taken)")
                    } else {
                        handle = try? store.add(implicit(from: from, begin: t), layer: layer, forKey: "opacity")
                        log.append("added \(String(describing: handle))")
                    }
                }
                for k in 0..<3 { record(evaluator, at: Double(k) * 0.1, &log, layers: [layer]) }
                again(from: 0.7, at: 0.25)   // mid-flight: the live animation
                _ = try? store.setModelValue(0.6, layer: layer, property: "opacity")   // the end follows the model
                for k in 3..<12 { record(evaluator, at: Double(k) * 0.1, &log, layers: [layer]) }
                log.append("animation \(String(describing: handle.flatMap { store.animation($0) }))")
                again(from: 0.9, at: 1.2)   // finished and parked
                for k in 12..<22 { record(evaluator, at: Double(k) * 0.1, &log, layers: [layer]) }
                again(from: 0.1, at: 2.2)
                for k in 22..<26 { record(evaluator, at: Double(k) * 0.1, &log, layers: [layer]) }
                log.append("animations \(store.animationCount) tracks \(store.trackCount) keys \(store.animationKeys(layer: layer))")
            }
        }
        #expect(runs[0].filter { !$0.hasPrefix("taken") && !$0.hasPrefix("added") }
                == runs[1].filter { !$0.hasPrefix("taken") && !$0.hasPrefix("added") })
        #expect(runs[1].filter { $0.hasPrefix("taken") }.count == 3, "each re-add went through the columns")
        // Same handles whichever way: the copy's add reuses the track in place too.
        #expect(runs[0].filter { $0.hasPrefix("added") }.map { String($0.dropFirst(6)) }
                == runs[1].filter { $0.hasPrefix("taken") }.map { (line: String) -> String in "Optional(\(line.dropFirst(11)))" })
        #expect(runs[0].count > 40)
    }

    @Test("§10 the columns decline what they cannot take over, and nothing changes")
    func retargetImplicitDeclines() throws {
        let store = TrackStore(), layer = LayerID(1)
        store.parksFinishedAnimations = true
        try store.setModelValue(0.5, layer: layer, property: "opacity")
        let evaluator = FrameEvaluator(store: store)
        let h = try store.add(implicit(from: 1, begin: 0), layer: layer, forKey: "opacity")
        #expect(store.retargetImplicit(h, layer: layer, forKey: "opacity", from: .point(Point(x: 1, y: 1)), beginTime: 0) == nil, "another kind")
        #expect(store.retargetImplicit(h, layer: layer, forKey: "opacity", from: .scalar(.nan), beginTime: 0) == nil, "not finite")
        #expect(store.retargetImplicit(h, layer: layer, forKey: "opacity", from: 0.3, beginTime: .infinity) == nil, "begin not finite")
        #expect(store.retargetImplicit(h, layer: LayerID(2), forKey: "opacity", from: 0.3, beginTime: 0) == nil, "another layer")
        #expect(store.retargetImplicit(h, layer: layer, forKey: "other", from: 0.3, beginTime: 0) == nil, "another key")
        // A second animation on the slot: the value beneath is no longer the model.
        var extra = fade(from: 0.1, to: 0.2, duration: 3)
        extra.isAdditive = true
        let e = try store.add(extra, layer: layer, forKey: "extra")
        #expect(store.retargetImplicit(h, layer: layer, forKey: "opacity", from: 0.3, beginTime: 0) == nil, "composed slot")
        #expect(store.remove(e))
        // Replaced under its key by the host: the old handle no longer names the key's animation.
        let replaced = try store.add(fade(), layer: layer, forKey: "opacity")
        #expect(store.retargetImplicit(h, layer: layer, forKey: "opacity", from: 0.3, beginTime: 0) == nil, "replaced")
        evaluator.evaluate(at: 0.5)
        let reference = TrackStore()
        try reference.setModelValue(0.5, layer: layer, property: "opacity")
        try reference.add(fade(), layer: layer, forKey: "opacity")
        let referenceFrames = FrameEvaluator(store: reference)
        referenceFrames.evaluate(at: 0.5)
        #expect(evaluator.value(layer: layer, property: "opacity") == referenceFrames.value(layer: layer, property: "opacity"))
        #expect(store.animation(replaced) != nil && store.animationCount == 1)
        // Parked, then freed with its slot: a handle from before cannot revive anything.
        evaluator.evaluate(at: 2)
        #expect(store.animationCount == 0)
        let slot = try #require(store.slot(layer: layer, property: "opacity"))
        #expect(store.removeSlot(slot))
        try store.setModelValue(0.5, layer: layer, property: "opacity")
        #expect(store.retargetImplicit(replaced, layer: layer, forKey: "opacity", from: 0.3, beginTime: 2) == nil, "freed")
    }

    @Test("§10 prefetch hints change nothing: fresh, stale (slots freed, lanes moved, columns grown) and another store's hints leave every frame as without them")
    func prefetchHintsChangeNothing() throws {
        let foreign = TrackStore()
        let foreignSlot = try foreign.setModelValue(0.5, layer: LayerID(1), property: "opacity")
        let foreignAnimation = try foreign.add(implicit(from: 1, begin: 0), layer: LayerID(1), forKey: "opacity")
        let foreignHints = foreign.changeHints(slot: foreignSlot, animation: foreignAnimation)
        let runs = [false, true].map { (hinted: Bool) -> [String] in
            script(parks: true) { store, evaluator, log in
                let layers = (1...24).map { LayerID(UInt64($0)) }
                var handles: [LayerID: AnimationHandle] = [:]
                var hints: [ChangeHints] = []
                for (k, layer) in layers.enumerated() {
                    let slot = try? store.setModelValue(.scalar(Double(k) / 24), layer: layer, property: "opacity")
                    handles[layer] = try? store.add(implicit(from: 1, begin: 0, duration: 0.25 + Double(k % 5) * 0.1), layer: layer, forKey: "opacity")
                    if let slot { hints.append(store.changeHints(slot: slot, animation: handles[layer])) }
                }
                for step in 0..<12 {
                    let t = Double(step) * 0.2
                    if hinted {
                        for h in hints { store.prefetchChange(h) }   // fresh at first, stale later
                        store.prefetchChange(foreignHints)
                    }
                    // Changes that free slots, move lanes and grow columns.
                    let layer = layers[(step * 7) % layers.count]
                    if step % 3 == 0 { _ = store.removeLayer(layer) }
                    for extra in 0..<(step % 4) * 8 {
                        let other = LayerID(UInt64(100 + step * 40 + extra))
                        _ = try? store.setModelValue(0.3, layer: other, property: "opacity")
                        _ = try? store.add(implicit(from: 0.9, begin: t, duration: 0.3), layer: other, forKey: "opacity")
                    }
                    if let h = handles[layers[(step * 5 + 1) % layers.count]] {
                        let again = store.retargetImplicit(h, layer: layers[(step * 5 + 1) % layers.count], forKey: "opacity",
                                                           from: .scalar(0.8), beginTime: t)
                        log.append("retarget \(again != nil)")
                    }
                    record(evaluator, at: t, &log, layers: layers)
                    log.append("invariants \(store.invariantViolations())")
                }
            }
        }
        #expect(runs[0] == runs[1])
        #expect(runs[0].count > 200)
        #expect(runs[0].contains("retarget true"), "the script takes an animation over")
    }
}
