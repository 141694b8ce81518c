import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

@Suite("Layer velocity (docs/velocity.md)")
struct LayerVelocityTests {
    /// The presentation value of `key` at `t`, by ticking a context there (every animation is a
    /// function of time: ticking back and forth is exact).
    private func components(_ layer: Layer, _ key: String, at t: Double) -> [Double] {
        layer.context!.tick(at: t)
        return layer.presentation()!.value(forKeyPath: key)!.components
    }

    /// The velocity read at `t`: equal to the reference's rate at the layer's time times its speed
    /// (the wiring, to 1e-9: the engine converts times with its own rounding), and within 1 % of a central difference of the values ticks show (the engine
    /// shows values in single precision within design.md's table, so the difference step is
    /// 10 ms and the bound coarse: it catches a wrong time scale or key, not rounding).
    private func expectVelocityMatches(_ layer: Layer, _ key: String, at t: Double, model: [String: AnimationValue],
                                       sourceLocation: SourceLocation = #_sourceLocation) {
        let h = 1e-2
        let (p1, m1) = (components(layer, key, at: t + h), components(layer, key, at: t - h))
        let (p2, m2) = (components(layer, key, at: t + 2 * h), components(layer, key, at: t - 2 * h))
        layer.context!.tick(at: t)
        let v = layer.velocity(forKey: key)!.components
        #expect(v.count == p1.count, sourceLocation: sourceLocation)
        let animations = (layer.animationKeys() ?? []).compactMap { layer.animation(forKey: $0) }
        let (property, fieldPath) = AnimationKeyPath.split(key)
        let local = layer.localTime(atContextTime: t)
        let reference = ReferenceEvaluator.presentationValuesWithRates(model: model, animations: animations, at: local)[property]!
        var expected = reference.rate.rateScaled(by: layer.speed)
        if let fieldPath, let field = try? ValueField(path: fieldPath, of: reference.value.kind) {
            expected = field.rate(of: reference.value, movingAt: expected)
        }
        for k in v.indices {
            #expect(abs(v[k] - expected.components[k]) <= 1e-9 * max(1, abs(v[k])), "\(key)[\(k)] at \(t): \(v[k]) against the reference's \(expected.components[k])",
                    sourceLocation: sourceLocation)
            let numeric = (8 * (p1[k] - m1[k]) - (p2[k] - m2[k])) / (12 * h)
            #expect(abs(v[k] - numeric) <= 1e-2 * max(1, abs(numeric)), "\(key)[\(k)] at \(t): \(v[k]) against \(numeric)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("velocity is nil before the layer's first tick, and zero of the key's kind when nothing moves it")
    func nilBeforeFirstTickZeroAtRest() throws {
        freshTransactions()
        let layer = Layer()
        #expect(layer.velocity(forKey: "opacity") == nil)
        let ctx = LayerContext(configuration: FrameEvaluator.Configuration(maximumThreads: 1))
        ctx.rootLayer.addSublayer(layer)
        #expect(layer.velocity(forKey: "position") == nil)
        ctx.tick(at: 0)
        #expect(layer.velocity(forKey: "position") == .point(.zero))
        #expect(layer.velocity(forKey: "opacity") == .scalar(0))
        #expect(layer.velocity(forKey: "transform.rotation.z") == .scalar(0))
        #expect(layer.velocity(forKey: "transform")?.components == [Double](repeating: 0, count: 16))
        #expect(layer.velocity(forKey: "noSuchKey") == nil)
        let shape = ShapeLayer()
        var path = Path()
        path.addLines(between: [Point(x: 0, y: 0), Point(x: 10, y: 0)])
        shape.path = path
        ctx.rootLayer.addSublayer(shape)
        ctx.tick(at: 0.1)
        #expect(shape.velocity(forKey: "path") == nil)        // a path has no numeric value
        #expect(shape.velocity(forKey: "strokeEnd") == .scalar(0))
    }

    @Test("where the value jumps or turns, the velocity just after: a new iteration moves on, an autoreversed one turns back, a discrete key rests")
    func velocityJustAfterJumpsAndTurns() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var repeated = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)
        repeated.timingFunction = .linear
        repeated.repeatCount = 3
        try layer.add(repeated, forKey: "repeat")
        var turning = BasicAnimation(keyPath: "position.x", from: 0.0, to: 50.0, duration: 1)
        turning.timingFunction = .linear
        turning.autoreverses = true
        try layer.add(turning, forKey: "turn")
        let steps = KeyframeAnimation(keyPath: "bounds.size.width", values: [10.0, 20.0, 30.0], calculationMode: .discrete, duration: 3)
        try layer.add(steps, forKey: "steps")
        ctx.tick(at: 1)                                              // exactly an iteration's end, a half's end, a switch
        #expect(layer.velocity(forKey: "opacity") == .scalar(1))      // the next iteration, from 0 again, moving up
        #expect(layer.velocity(forKey: "position.x") == .scalar(-50)) // the reversed half
        #expect(layer.velocity(forKey: "bounds.size.width") == .scalar(0))
        #expect(layer.presentation()?.bounds.size.width == 20)
    }

    @Test("a basic animation's velocity at the latest tick, on the model layer and its presentation copy alike")
    func basicVelocityOnModelAndPresentation() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var a = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 100, y: -50), duration: 2)
        a.timingFunction = .linear
        try layer.add(a, forKey: "move")
        ctx.tick(at: 0.5)
        #expect(layer.velocity(forKey: "position") == .point(Point(x: 50, y: -25)))
        #expect(layer.presentation()?.velocity(forKey: "position") == .point(Point(x: 50, y: -25)))
        #expect(layer.velocity(forKey: "position.x") == .scalar(50))
        ctx.tick(at: 2.5)
        #expect(layer.velocity(forKey: "position") == .point(.zero))
    }

    @Test("the ReadingVelocity article's example: a fling eased out, caught at 0.25 s, moves at 519.83 points per second")
    func readingVelocityArticleExample() throws {
        let card = Layer()
        let ctx = context(with: card)
        var fling = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 300), to: Point(x: 320, y: 300), duration: 0.8)
        fling.timingFunction = .easeOut
        try card.add(fling, forKey: "fling")
        ctx.tick(at: 0.25)
        let speed = try #require(card.velocity(forKey: "position")?.components)
        #expect(abs(speed[0] - 519.8285833186299) < 1e-6 && speed[1] == 0, "\(speed)")
    }

    @Test("after an implicit change takes its last animation over in the engine's columns, velocity follows the new values")
    func velocityAfterAnImplicitTakeover() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        layer.position = Point(x: 100, y: 0)          // an implicit animation, 0.25 s
        ctx.tick(at: 0.1)
        layer.position = Point(x: -300, y: 80)        // taken over in place
        #expect(ctx.implicitTakeovers == 1)
        ctx.tick(at: 0.2)
        let v = try #require(layer.velocity(forKey: "position")?.components)
        let h = 1e-3
        let (p, m) = (components(layer, "position", at: 0.2 + h), components(layer, "position", at: 0.2 - h))
        for k in 0..<2 {
            let numeric = (p[k] - m[k]) / (2 * h)
            #expect(abs(v[k] - numeric) <= 1e-2 * max(1, abs(numeric)), "\(v) against \(numeric)")
        }
    }

    @Test("velocity is per second of context time: a layer's speed multiplies it, a paused layer has none")
    func layerSpeedScalesVelocity() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        layer.speed = 2
        var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 4)
        a.timingFunction = .linear
        try layer.add(a, forKey: "fade")
        ctx.tick(at: 0.5)
        #expect(layer.velocity(forKey: "opacity") == .scalar(0.5))
        layer.speed = 0
        ctx.tick(at: 0.6)
        #expect(layer.velocity(forKey: "opacity") == .scalar(0))
    }

    @Test("velocity matches differences of ticked values for springs, keyframes, paths with rotation and stacked transforms")
    func velocityMatchesTickedDifferences() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        layer.speed = 1.3
        var spring = SpringAnimation(keyPath: "bounds")
        (spring.fromValue, spring.toValue) = (.rect(Rect(x: 0, y: 0, width: 10, height: 10)), .rect(Rect(x: 5, y: 5, width: 80, height: 40)))
        spring.damping = 6
        spring.initialVelocity = 2
        spring.duration = 3
        try layer.add(spring, forKey: "grow")
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addCurve(to: Point(x: 100, y: 20), control1: Point(x: 30, y: 90), control2: Point(x: 60, y: -70))
        var follow = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, rotationMode: .auto, duration: 3)
        follow.timingFunction = .easeInEaseOut
        try layer.add(follow, forKey: "follow")
        var turn = BasicAnimation(keyPath: "transform.rotation.z", from: 0.0, to: 3.0, duration: 3)
        turn.isAdditive = true
        try layer.add(turn, forKey: "turn")
        var colour = KeyframeAnimation(keyPath: "backgroundColor", values: [Color(red: 0, green: 0, blue: 0, alpha: 1),
                                                                           Color(red: 1, green: 0.5, blue: 0, alpha: 1),
                                                                           Color(red: 0, green: 1, blue: 1, alpha: 0.5)],
                                       calculationMode: .cubic, duration: 3)
        colour.repeatCount = 2
        try layer.add(colour, forKey: "colour")
        var model: [String: AnimationValue] = [:]
        for key in ["bounds", "position", "transform", "backgroundColor"] { model[key] = layer.value(forKey: key) ?? LayerProperty.named(key)?.defaultValue }
        for t in [0.31, 0.77, 1.42, 1.9] {
            for key in ["bounds", "position", "transform", "transform.rotation.z", "backgroundColor"] {
                expectVelocityMatches(layer, key, at: t, model: model)
            }
        }
        _ = ctx
    }
}

@Suite("Layer velocity from the velocity column (docs/velocity.md)")
struct LayerVelocityColumnTests {
    @Test("with computesVelocity, every key's velocity is the tick's column, within the column's bound of the per-key read")
    func columnMatchesPerKeyReads() throws {
        freshTransactions()
        let ctx = LayerContext(configuration: FrameEvaluator.Configuration(maximumThreads: 1))
        var layers: [Layer] = []
        for k in 0..<12 {
            let layer = Layer()
            ctx.rootLayer.addSublayer(layer)
            layer.speed = [1, 2, 0.5][k % 3]
            var move = BasicAnimation(keyPath: "position")
            (move.fromValue, move.toValue) = (.point(Point(x: 0, y: 0)), .point(Point(x: 100 + Double(k), y: -40)))
            move.duration = 1.5
            move.timingFunction = TimingFunction(name: .easeInEaseOut)
            move.autoreverses = k % 2 == 0
            move.repeatCount = 3
            try layer.add(move, forKey: "move")
            var fade = SpringAnimation(keyPath: "opacity")
            (fade.fromValue, fade.toValue) = (.scalar(0), .scalar(1))
            fade.damping = [4, 20, 40][k % 3]
            try layer.add(fade, forKey: "fade")
            var path = Path()
            path.addArc(center: Point(x: 0, y: 0), radius: 30, startAngle: 0, endAngle: 3, clockwise: false)
            var fly = KeyframeAnimation(keyPath: "anchorPoint", path: path, calculationMode: .paced, duration: 2)
            fly.repeatCount = 2
            try layer.add(fly, forKey: "fly")
            layers.append(layer)
        }
        for t in [0.3, 0.77, 1.6, 2.9] {
            ctx.computesVelocity = false
            ctx.tick(at: t)
            let perKey = layers.map { layer in ["position", "opacity", "anchorPoint"].map { layer.velocity(forKey: $0)! } }
            ctx.computesVelocity = true
            ctx.tick(at: t)
            #expect(ctx.evaluator.hasVelocities)
            for (layer, expected) in zip(layers, perKey) {
                for (key, e) in zip(["position", "opacity", "anchorPoint"], expected) {
                    let v = try #require(layer.velocity(forKey: key))
                    let scale = max(1, e.components.map(abs).max() ?? 0)
                    #expect(zip(v.components, e.components).allSatisfy { abs($0 - $1) <= 1e-3 * scale }, "\(key) at \(t): \(v) against \(e)")
                    if let slot = ctx.store.slot(layer: layer.id!, property: key) { #expect(ctx.evaluator.computedVelocity(of: slot)) }
                }
            }
        }
    }
}
