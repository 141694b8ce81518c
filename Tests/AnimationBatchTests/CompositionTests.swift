import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Foundation
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

/// Transform slots composed on their parts (semantics §4.6, §5.7): planar models under stacks of
/// transform fields and rotation modes, added in random orders, against the reference — including
/// frames whose values leave the planar form (a scale through zero, negative; a turn of unequal
/// scales before a field), which take the reference's sequence.
@Suite("Composition: transform slots")
struct TransformSlotTests {
    private struct Case {
        var model: Transform3D
        var animations: [any Animation]
    }

    private static func randomCase(_ rng: inout SplitMix64) throws -> Case {
        func number(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
        func chance(_ p: Double) -> Bool { number(0...1) < p }
        // A planar model: translation, positive scales (equal in x and y half the time), a turn.
        let sx = number(0.3...3), sy = chance(0.5) ? sx : number(0.3...3)
        var model = Transform3D.scale(x: sx, y: sy, z: number(0.5...2))
            .concatenating(.rotation(angle: number(-4...4), x: 0, y: 0, z: 1))
            .concatenating(.translation(x: number(-100...100), y: number(-100...100), z: number(-10...10)))
        if chance(0.1) { model = .identity }
        var animations: [any Animation] = []
        let fields: [(String, ClosedRange<Double>)] = [
            ("transform.rotation.z", -7...7), ("transform.rotation", -3...3), ("transform.scale", -0.5...3),
            ("transform.scale.x", 0.2...3), ("transform.scale.y", -1...3), ("transform.scale.z", 0.2...2),
            ("transform.translation.x", -50...50), ("transform.translation.y", -50...50), ("transform.translation.z", -5...5),
        ]
        for _ in 0..<Int.random(in: 1...5, using: &rng) {
            let begin = number(0...0.5), duration = number(0.5...2)
            switch number(0...1) {
            case ..<0.65:
                let (keyPath, range) = fields[Int.random(in: 0..<fields.count, using: &rng)]
                var a = BasicAnimation(keyPath: keyPath, from: number(range), to: number(range), duration: duration)
                a.isAdditive = chance(0.4)
                a.timing.beginTime = begin
                a.timing.fillMode = chance(0.5) ? .both : .removed
                animations.append(a)
            case ..<0.8:
                var a = BasicAnimation(keyPath: "transform.translation", from: Size(width: number(-50...50), height: number(-50...50)),
                                       to: Size(width: number(-50...50), height: number(-50...50)), duration: duration)
                a.isAdditive = chance(0.4)
                a.timing.beginTime = begin
                animations.append(a)
            default:
                var path = Path()
                if chance(0.5) {
                    path.addArc(center: .zero, radius: number(20...80), startAngle: number(-3...3), endAngle: number(-6...6),
                                clockwise: chance(0.5))
                } else {
                    path.addRect(Rect(x: 0, y: 0, width: number(20...100), height: number(20...100)))
                }
                var fly = KeyframeAnimation(keyPath: "position", path: path, calculationMode: chance(0.7) ? .paced : .linear,
                                            rotationMode: chance(0.5) ? .auto : .autoReverse, duration: duration)
                fly.timing.beginTime = begin
                fly.isAdditive = true
                animations.append(fly)
            }
        }
        return Case(model: model, animations: try animations.map { try $0.preparedForAdding(layerTime: 0) })
    }

    @Test("§4.6 §5.7 stacks of transform fields and rotation modes on planar models agree with the reference, in any add order")
    func stacksAgreeWithReference() throws {
        var rng = SplitMix64(seed: 46)
        let layers = TestScale.count(debug: 40, release: 400)
        var cases: [Case] = []
        for _ in 0..<layers { cases.append(try Self.randomCase(&rng)) }
        for order in 0..<2 {
            let store = TrackStore()
            for (k, c) in cases.enumerated() {
                let layer = LayerID(UInt64(k + 1))
                try store.setModelValue(.point(.zero), layer: layer, property: "position")
                // The transform model before the animations, or after them (§5.7: the turn follows
                // a transform slot created later).
                if order == 0 { try store.setModelValue(.transform(c.model), layer: layer, property: "transform") }
                for a in (order == 0 ? c.animations : c.animations.reversed()) { try store.add(a, layer: layer) }
                if order == 1 { try store.setModelValue(.transform(c.model), layer: layer, property: "transform") }
            }
            let evaluator = FrameEvaluator(store: store)
            for t in stride(from: -0.1, through: 2.6, by: 0.137) {
                evaluator.evaluate(at: t)
                for (k, c) in cases.enumerated() {
                    let animations = order == 0 ? c.animations : c.animations.reversed()
                    let model: [String: AnimationValue] = ["position": .point(.zero), "transform": .transform(c.model)]
                    let expected = ReferenceEvaluator.presentationValues(model: model, animations: animations, at: t)["transform"]!
                    let shown = evaluator.value(layer: LayerID(UInt64(k + 1)), property: "transform")!
                    let tolerance = PrecisionTable.tolerance(property: "transform", model: model["transform"], animations: animations,
                                                             reference: expected)
                    let miss = PrecisionTable.maxDifference(shown, expected)
                    #expect(miss <= tolerance || matchesNearTurn(shown, model: model, animations: animations, at: t, tolerance: tolerance),
                            "layer \(k), order \(order), at \(t): \(miss) > \(tolerance)")
                }
            }
        }
    }

    @Test("§4.6 a frame whose scale reaches zero takes the reference's sequence: the singular matrix loses its rotation there")
    func singularFrameFollowsReference() throws {
        let model = Transform3D.rotation(angle: 1, x: 0, y: 0, z: 1).concatenating(.translation(x: 5, y: 6, z: 0))
        let squash = BasicAnimation(keyPath: "transform.scale.x", from: 1.0, to: -1.0, duration: 1)
        var spin = BasicAnimation(keyPath: "transform.rotation.z", from: 0.5, to: 0.5, duration: 1)
        spin.isAdditive = true
        let animations: [any Animation] = [try squash.preparedForAdding(layerTime: 0), try spin.preparedForAdding(layerTime: 0)]
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(.transform(model), layer: layer, property: "transform")
        for a in animations { try store.add(a, layer: layer) }
        let evaluator = FrameEvaluator(store: store)
        for t in [0.25, 0.5, 0.75] {
            evaluator.evaluate(at: t)
            let expected = ReferenceEvaluator.presentationValues(model: ["transform": .transform(model)], animations: animations, at: t)
            let shown = evaluator.value(layer: layer, property: "transform")!
            #expect(PrecisionTable.maxDifference(shown, expected["transform"]!) <= 1e-5, "at \(t): \(shown) vs \(expected)")
        }
    }

    /// Near a corner of a path the turn jumps: the batch decides in Float, the reference in Double.
    private func matchesNearTurn(_ shown: AnimationValue, model: [String: AnimationValue], animations: [any Animation], at t: Double,
                                 tolerance: Double) -> Bool {
        [1e-6, -1e-6, 1e-5, -1e-5].contains { delta in
            let nearby = ReferenceEvaluator.presentationValues(model: model, animations: animations, at: t + delta)["transform"]!
            return PrecisionTable.maxDifference(shown, nearby) <= tolerance
        }
    }
}
