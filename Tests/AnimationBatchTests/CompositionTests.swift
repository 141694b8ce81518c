import AnimationBatch
import AnimationCore
import Testing

/// Composition into slots (semantics §4.3, §4.6, §8.4): the fast path (component slots) and the
/// general one must both equal the reference, across model changes between frames.
@Suite("Composition")
struct CompositionTests {
    /// A layer whose `position` is composed from a whole-value animation, two additive field
    /// animations and a replacing field animation; `bounds.size` from a field; and a transform
    /// field (the general path).
    func layer() throws -> (model: [String: AnimationValue], animations: [any Animation]) {
        let model: [String: AnimationValue] = ["position": .point(Point(x: 10, y: 20)),
                                               "bounds": .rect(Rect(x: 0, y: 0, width: 40, height: 30)),
                                               "transform": .transform(.identity)]
        var moveX = BasicAnimation(keyPath: "position.x", from: 0.0, to: 5.0, duration: 2)
        moveX.isAdditive = true
        let move = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 100, y: 50), duration: 1,
                                  timingFunction: .easeInEaseOut)
        var moveY = SpringAnimation(keyPath: "position.y", from: -10.0, to: 0.0, stiffness: 200, damping: 12)
        moveY.isAdditive = true
        moveY.timing.duration = 3
        let grow = BasicAnimation(keyPath: "bounds.size", to: Size(width: 80, height: 60), duration: 1.5)
        let spin = BasicAnimation(keyPath: "transform.rotation.z", from: 0.0, to: Double.pi, duration: 1)
        let animations: [any Animation] = [try moveX.preparedForAdding(layerTime: 0), try move.preparedForAdding(layerTime: 0),
                                           try moveY.preparedForAdding(layerTime: 0), try grow.preparedForAdding(layerTime: 0),
                                           try spin.preparedForAdding(layerTime: 0)]
        return (model, animations)
    }

    func close(_ a: AnimationValue?, _ b: AnimationValue?, _ tolerance: Double = 1e-3) -> Bool {
        guard let a, let b, a.kind == b.kind else { return false }
        return zip(a.components, b.components).allSatisfy { abs($0 - $1) <= tolerance * (1 + abs($1)) }
    }

    @Test("component slots and transform fields equal the reference, frame after frame")
    func agreesWithReference() throws {
        let (model, animations) = try layer()
        let store = TrackStore()
        for (name, value) in model { try store.setModelValue(value, layer: LayerID(1), property: name) }
        for a in animations { _ = try store.add(a, layer: LayerID(1)) }
        let evaluator = FrameEvaluator(store: store)
        for k in 0...40 {
            let t = Double(k) * 0.09
            evaluator.evaluate(at: t)
            let expected = ReferenceEvaluator.presentationValues(model: model, animations: animations, at: t)
            for name in ["position", "bounds", "transform"] {
                #expect(close(evaluator.value(layer: LayerID(1), property: name), expected[name]), "\(name) at \(t)")
            }
        }
    }

    @Test("a model set between frames shows at once and is composed from at the next frame")
    func modelChanges() throws {
        let (model, animations) = try layer()
        let store = TrackStore()
        for (name, value) in model { try store.setModelValue(value, layer: LayerID(1), property: name) }
        for a in animations { _ = try store.add(a, layer: LayerID(1)) }
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 1.5)
        let newPosition = AnimationValue.point(Point(x: -300, y: 400))
        try store.setModelValue(newPosition, layer: LayerID(1), property: "position")
        #expect(evaluator.value(layer: LayerID(1), property: "position") == newPosition, "the new model, before any frame")
        #expect(close(evaluator.value(layer: LayerID(1), property: "bounds"),
                      ReferenceEvaluator.presentationValues(model: model, animations: animations, at: 1.5)["bounds"]),
                "other slots keep the last frame's value")
        var changed = model
        changed["position"] = newPosition
        for t in [1.6, 2.5, 4.0] {
            evaluator.evaluate(at: t)
            let expected = ReferenceEvaluator.presentationValues(model: changed, animations: animations, at: t)
            #expect(close(evaluator.value(layer: LayerID(1), property: "position"), expected["position"]), "position at \(t)")
        }
    }

    @Test("removing an animation leaves the remaining composition exact")
    func removal() throws {
        let (model, animations) = try layer()
        let store = TrackStore()
        for (name, value) in model { try store.setModelValue(value, layer: LayerID(1), property: name) }
        let handles = try animations.map { try store.add($0, layer: LayerID(1)) }
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        #expect(store.remove(handles[1]))
        var remaining = animations
        remaining.remove(at: 1)
        for t in [0.5, 0.8, 1.9] {
            evaluator.evaluate(at: t)
            let expected = ReferenceEvaluator.presentationValues(model: model, animations: remaining, at: t)
            #expect(close(evaluator.value(layer: LayerID(1), property: "position"), expected["position"]), "position at \(t)")
        }
    }
}
