import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// The README's batch example, verbatim after the animations it reuses: it must compile and run,
/// and agree with the reference.
@Suite("README (batch)")
struct ReadmeBatchExampleTests {
    @Test("the batch example in README.md runs")
    func batchExampleRuns() throws {
        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = 0
        fade.toValue = 1
        fade.duration = 2
        fade.timingFunction = .easeInEaseOut
        var move = SpringAnimation(keyPath: "position")
        move.toValue = .point(Point(x: 300, y: 120))
        move.damping = 12
        move.duration = move.settlingDuration
        var spin = BasicAnimation(keyPath: "transform.rotation.z")
        spin.fromValue = 0
        spin.toValue = .scalar(2 * .pi)
        spin.duration = 1.5
        var group = AnimationGroup(animations: [move, spin], duration: 3)
        group.repeatCount = .infinity

        let store = TrackStore()
        for i in 1...TestScale.count(debug: 200, release: 10_000) {
            let layer = LayerID(UInt64(i))
            try store.setModelValue(1, layer: layer, property: "opacity")
            try store.setModelValue(.point(Point(x: 0, y: 0)), layer: layer, property: "position")
            try store.add(fade, layer: layer)
            try store.add(group, layer: layer)
        }
        let frames = FrameEvaluator(store: store)
        frames.evaluate(at: 0.75)                        // every layer, all cores, no allocation
        let position = frames.value(layer: LayerID(42), property: "position")
        for event in frames.events where event.kind == .stopped {
            print(event)                                 // animations that stopped this frame (none yet)
        }

        let reference = ReferenceEvaluator.presentationValues(
            model: ["opacity": 1, "position": .point(Point(x: 0, y: 0)), "transform": .transform(.identity)],
            animations: [fade, group], at: 0.75)
        let batch = try #require(position)
        #expect(PrecisionTable.maxDifference(batch, reference["position"]!) < 1e-3)
        #expect(frames.events.count == store.animationCount)   // every animation started by 0.75

        // Every layer's opacity as contiguous memory (no copy), and what changed this frame.
        let opacities = try #require(store.presentation(of: "opacity"))
        #expect(opacities.count == store.layerCount && opacities.values.count == opacities.count)
        #expect(frames.changedSlots.count == store.slotCount, "the first frame: every new slot")
        // Core Animation's keys: adding under a taken key replaces; removing a layer cancels.
        let keyed = try store.add(fade, layer: LayerID(1), forKey: "fade")
        let again = try store.add(fade, layer: LayerID(1), forKey: "fade")
        #expect(store.animation(keyed) == nil && store.animation(forKey: "fade", layer: LayerID(1)) == again)
        let onTwo = store.animations(of: LayerID(2))
        #expect(store.removeLayer(LayerID(2)))
        frames.evaluate(at: 0.8)
        let stops = Set(frames.events.filter { $0.kind == .stopped }.map { "\($0.animation) \($0.outcome!)" })
        #expect(stops == Set([ "\(keyed) replaced"] + onTwo.map { "\($0) cancelled" }))
    }
}
