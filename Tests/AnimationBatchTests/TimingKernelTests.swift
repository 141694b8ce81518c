import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// The timing kernel's instant timings (reduced motion, docs/reduced-motion.md) against the
/// reference's `MediaTiming.state`: phases, events and the values they show.
@Suite("Timing kernel: instant timings")
struct TimingKernelTests {
    @Test("instant timings: values and events agree with the reference before, at and after the begin time")
    func instantAgreesWithReference() throws {
        var rng = SplitMix64(seed: 41)
        let store = TrackStore()
        let evaluator = FrameEvaluator(store: store, configuration: FrameEvaluator.Configuration(maximumThreads: 1))
        var added: [(layer: LayerID, animation: any Animation, handle: AnimationHandle)] = []
        for i in 0..<64 {
            var timing = MediaTiming(beginTime: Double.random(in: 0...2, using: &rng), duration: Double.random(in: 0.1...2, using: &rng))
            timing.speed = [1, 2, -1, 0.5, 0][i % 5]
            timing.timeOffset = i % 3 == 0 ? Double.random(in: 0...1, using: &rng) : 0
            timing.repeatCount = [0, 1.5, 3, .infinity][i % 4]
            timing.autoreverses = i % 2 == 0
            timing.fillMode = FillMode.allCases[i % FillMode.allCases.count]
            timing.isInstant = true
            let animation: any Animation
            if i % 4 == 3 {
                var keyframes = KeyframeAnimation(keyPath: "opacity")
                keyframes.values = [.scalar(0), .scalar(0.8), .scalar(0.3)]
                keyframes.timing = timing
                keyframes.isRemovedOnCompletion = i % 8 != 3
                animation = keyframes
            } else if i % 4 == 2 {
                var child = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)
                child.timingFunction = .easeIn
                var group = AnimationGroup(animations: [child], duration: timing.duration)
                group.timing = timing
                group.isRemovedOnCompletion = i % 8 != 2
                animation = group
            } else {
                var basic = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: timing.duration)
                basic.timing = timing
                basic.timingFunction = .easeInEaseOut
                basic.isRemovedOnCompletion = i % 8 != 1
                animation = basic
            }
            let layer = LayerID(UInt64(i + 1))
            try store.setModelValue(.scalar(-1), layer: layer, property: "opacity")
            added.append((layer, animation, try store.add(animation, layer: layer)))
        }
        var started = Set<AnimationHandle>(), stopped = Set<AnimationHandle>()
        for t in [0.0, 0.5, 1.0, 1.0.nextUp, 1.5, 2.0, 2.5, 10.0] {
            evaluator.evaluate(at: t)
            for event in evaluator.events {
                if event.kind == .started { started.insert(event.animation) } else { stopped.insert(event.animation) }
            }
            for entry in added {
                // The reference: the model, or what the animation shows while the engine keeps it.
                let kept = store.animation(entry.handle) != nil
                let expected = kept ? ReferenceEvaluator.presentationValues(model: ["opacity": .scalar(-1)], animations: [entry.animation],
                                                                            at: t)["opacity"]?.scalarValue ?? -1 : -1
                let got = try #require(evaluator.value(layer: entry.layer, property: "opacity")?.scalarValue)
                #expect(abs(got - expected) <= 1e-6, "t = \(t), \(entry.animation.timing)")
                // Started and stopped exactly when the reference's phase says so (speed 0 never ends).
                let phase = entry.animation.timing.state(atParentTime: t).phase
                #expect(started.contains(entry.handle) == (phase != .before), "t = \(t), \(entry.animation.timing)")
                #expect(stopped.contains(entry.handle) == (phase == .after), "t = \(t), \(entry.animation.timing)")
            }
        }
    }

    @Test("§2.3 an autoreversing duration near the largest Double shows finite values, in the batch as in the reference")
    func autoreversedHugeDurationShowsFiniteValues() throws {
        // The fuzzer's case (Fuzz/Regressions/c-interface): a period of 2d = ∞ folded to NaN.
        let store = TrackStore()
        let layer = LayerID(1)
        try store.setModelValue(.rect(Rect(x: 1, y: 2, width: 30, height: 40)), layer: layer, property: "bounds")
        var grow = BasicAnimation(keyPath: "bounds")
        grow.fromValue = .rect(Rect(x: 0, y: 0, width: 10, height: 10))
        grow.toValue = .rect(Rect(x: 5, y: 5, width: 90, height: 70))
        grow.timing = MediaTiming(beginTime: -0.12767223620965884, duration: .greatestFiniteMagnitude, timeOffset: -2.7053788052185856,
                                  repeatCount: 0.4352941176470586, autoreverses: true, fillMode: .both)
        _ = try store.add(grow, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        for t in [0.5, 3.4313115129320195, 100, 1e9] {
            evaluator.evaluate(at: t)
            let value = try #require(evaluator.value(layer: layer, property: "bounds"))
            let finite = value.components.allSatisfy { $0.isFinite }
            #expect(finite, "t = \(t): \(value)")
            let reference = ReferenceEvaluator.presentationValues(model: ["bounds": .rect(Rect(x: 1, y: 2, width: 30, height: 40))],
                                                                  animations: [grow], at: t)["bounds"]
            let referenceFinite = reference?.components.allSatisfy { $0.isFinite } == true
            #expect(referenceFinite, "t = \(t): \(String(describing: reference))")
        }
    }
}
