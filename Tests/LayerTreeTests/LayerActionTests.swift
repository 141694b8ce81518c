import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

/// A delegate that answers one action for every event.
final class FixedDelegate: LayerDelegate {
    let answer: LayerAction?
    var asked: [String] = []
    init(_ answer: LayerAction?) { self.answer = answer }
    func action(for layer: Layer, forKey event: String) -> LayerAction? {
        asked.append(event)
        return answer
    }
}

/// A subclass that overrides the lookup (the seed's pattern for a custom property).
final class ProgressLayer: Layer {
    override class func defaultValue(forKey key: String) -> AnimationValue? {
        key == "progress" ? 0 : super.defaultValue(forKey: key)
    }
    override func action(forKey event: String) -> LayerAction? {
        if event == "progress" {
            var a = BasicAnimation(keyPath: "progress")
            a.duration = 1
            return .animation(a)
        }
        if event == "opacity" { return .null }
        return super.action(forKey: event)
    }
}

@Suite("Actions (§10, §12)")
struct LayerActionTests {
    func marker(_ duration: Double) -> LayerAction {
        var a = BasicAnimation(keyPath: "opacity")
        a.duration = duration
        return .animation(a)
    }

    func duration(of layer: Layer) -> Double? { layer.animation(forKey: "opacity")?.duration }

    @Test("§10 the lookup order: delegate, then actions, then style's actions (nested), then defaultAction")
    func lookupOrder() {
        let layer = Layer()
        let ctx = context(with: layer)
        defer { withExtendedLifetime(ctx) {} }
        let delegate = FixedDelegate(marker(1))
        layer.delegate = delegate
        layer.actions = ["opacity": marker(2)]
        layer.style = ["actions": ["opacity": marker(3)], "style": ["actions": ["opacity": marker(4)]]]
        layer.opacity = 0.1
        #expect(duration(of: layer) == 1)
        layer.delegate = nil
        layer.opacity = 0.2
        #expect(duration(of: layer) == 2)
        layer.actions = nil
        layer.opacity = 0.3
        #expect(duration(of: layer) == 3)
        layer.style = ["style": ["actions": ["opacity": marker(4)]]]
        layer.opacity = 0.4
        #expect(duration(of: layer) == 4)
        layer.style = nil
        layer.opacity = 0.5
        #expect(duration(of: layer) == 0.25, "the default action, with the transaction's duration")
        #expect(delegate.asked == ["opacity"])
    }

    @Test("§10 §17 #12 .null stops the search: no action even if actions has one")
    func nullStops() {
        let layer = Layer()
        let ctx = context(with: layer)
        defer { withExtendedLifetime(ctx) {} }
        let delegate = FixedDelegate(.null)
        layer.delegate = delegate
        layer.actions = ["opacity": marker(2)]
        layer.opacity = 0.5
        #expect(layer.animationKeys() == nil)
        #expect(layer.action(forKey: "opacity") == nil)
        layer.delegate = nil
        layer.actions = ["opacity": .null]
        layer.opacity = 0.25
        #expect(layer.animationKeys() == nil)
    }

    @Test("§10 §17 #13 nil from the delegate continues the search")
    func nilContinues() {
        let layer = Layer()
        let ctx = context(with: layer)
        defer { withExtendedLifetime(ctx) {} }
        let delegate = FixedDelegate(nil)
        layer.delegate = delegate
        layer.actions = ["opacity": marker(2)]
        layer.opacity = 0.5
        #expect(duration(of: layer) == 2)
    }

    @Test("§10 subclasses override action(forKey:): a custom property animates, a property is silenced")
    func subclassOverrides() throws {
        let layer = ProgressLayer()
        let ctx = context(with: layer)
        layer.setValue(.scalar(1), forKey: "progress")
        let a = try #require(layer.animation(forKey: "progress") as? BasicAnimation)
        #expect(a.fromValue == .scalar(0) && a.toValue == nil && a.duration == 1)
        layer.opacity = 0
        #expect(layer.animation(forKey: "opacity") == nil)
        ctx.tick(at: 0.5)
        #expect(near(layer.presentation()?.value(forKey: "progress")?.scalarValue, 0.5))
    }

    @Test("§10 the default action animates from the presentation value: a change mid-flight continues without a jump")
    func retargetWithoutJump() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.begin()
        Transaction.setAnimationTimingFunction(.linear)
        Transaction.setAnimationDuration(1)
        layer.position = Point(x: 100, y: 0)
        Transaction.commit()
        ctx.tick(at: 0.5)
        let midway = try #require(layer.presentation()?.position)
        #expect(near(midway.x, 50))
        Transaction.begin()
        Transaction.setAnimationTimingFunction(.linear)
        Transaction.setAnimationDuration(1)
        layer.position = Point(x: 0, y: 100)
        Transaction.commit()
        let a = try #require(layer.animation(forKey: "position") as? BasicAnimation)
        #expect(a.fromValue == .point(midway))
        ctx.tick(at: 0.5)   // the new animation's first frame: where the old one was
        #expect(layer.presentation()?.position == midway)
        ctx.tick(at: 1.0)
        #expect(near(layer.presentation()?.position.x, 25) && near(layer.presentation()?.position.y, 50))
    }

    @Test("§12 every implicitly animatable layer property has a default action; path and custom keys have none")
    func implicitProperties() {
        for name in ["anchorPoint", "backgroundColor", "borderColor", "borderWidth", "bounds", "contentsRect", "cornerRadius",
                     "opacity", "position", "shadowColor", "shadowOffset", "shadowOpacity", "shadowRadius",
                     "sublayerTransform", "transform", "zPosition"] {
            #expect(Layer.defaultAction(forKey: name) != nil, "\(name)")
        }
        for name in ["fillColor", "lineDashPhase", "lineWidth", "miterLimit", "strokeColor", "strokeStart", "strokeEnd"] {
            #expect(ShapeLayer.defaultAction(forKey: name) != nil, "\(name)")
            #expect(Layer.defaultAction(forKey: name) == nil, "\(name) is a shape layer's")
        }
        #expect(ShapeLayer.defaultAction(forKey: "path") == nil)
        #expect(Layer.defaultAction(forKey: "progress") == nil)
        #expect(Layer.defaultAction(forKey: "frame") == nil)
    }

    @Test("§10 §3.3 the default action is a basic animation of its key with the transaction's timing function, whichever was set last")
    func defaultActionFollowsTheTransaction() throws {
        freshTransactions()
        func animation(_ layerClass: Layer.Type, _ key: String) throws -> BasicAnimation {
            guard case .animation(let a)? = layerClass.defaultAction(forKey: key) else {
                Issue.record("no default action for \(key)")
                return BasicAnimation(keyPath: "")
            }
            return try #require(a as? BasicAnimation)
        }
        let plain = try animation(Layer.self, "opacity")
        #expect(plain.keyPath == "opacity" && plain.timingFunction == .default && plain.duration == 0)
        #expect(plain.fromValue == nil && plain.toValue == nil && plain.byValue == nil)
        Transaction.begin()
        Transaction.setAnimationTimingFunction(.linear)
        #expect(try animation(Layer.self, "opacity").timingFunction == .linear)
        #expect(try animation(Layer.self, "position").keyPath == "position", "each key its own action")
        #expect(try animation(ShapeLayer.self, "strokeEnd").timingFunction == .linear)
        Transaction.begin()
        Transaction.setAnimationTimingFunction(.easeIn)
        #expect(try animation(Layer.self, "opacity").timingFunction == .easeIn)
        Transaction.commit()
        #expect(try animation(Layer.self, "opacity").timingFunction == .linear, "the enclosing level's again")
        Transaction.commit()
        let after = try animation(Layer.self, "opacity")
        #expect(after.timingFunction == .default && after.keyPath == "opacity")
        // What a change does with the action it got (values, duration) is its own copy's.
        let layer = Layer()
        let ctx = context(with: layer)
        layer.opacity = 0.5
        let added = try #require(layer.animation(forKey: "opacity") as? BasicAnimation)
        #expect(added.fromValue == .scalar(1) && added.duration == 0.25)
        #expect(try animation(Layer.self, "opacity").fromValue == nil && animation(Layer.self, "opacity").duration == 0)
        ctx.tick(at: 0.125)
        #expect(near(layer.presentation()?.opacity, 1 - 0.5 * TimingFunction.default.value(at: 0.5)))
    }

    @Test("§10 an action runs again as the same action when all but its values and begin time agree (its signature)")
    func implicitSignatureMatchesInPlace() {
        var base = BasicAnimation(keyPath: "opacity")
        base.timingFunction = .default
        let signature = ImplicitSignature(base)
        var variants: [(String, BasicAnimation, Bool)] = []
        func variant(_ name: String, same: Bool, _ change: (inout BasicAnimation) -> Void) {
            var a = base
            change(&a)
            variants.append((name, a, same))
        }
        variant("itself", same: true) { _ in }
        variant("values", same: true) { $0.fromValue = 0.5; $0.toValue = 1; $0.byValue = 0.25 }
        variant("begin time", same: true) { $0.beginTime = 3 }
        variant("duration", same: false) { $0.duration = 2 }
        variant("speed", same: false) { $0.speed = 2 }
        variant("time offset", same: false) { $0.timeOffset = 0.5 }
        variant("repeat count", same: false) { $0.repeatCount = 2 }
        variant("repeat duration", same: false) { $0.repeatDuration = 2 }
        variant("autoreverses", same: false) { $0.autoreverses = true }
        variant("fill mode", same: false) { $0.fillMode = .forwards }
        variant("timing function", same: false) { $0.timingFunction = .linear }
        variant("no timing function", same: false) { $0.timingFunction = nil }
        variant("removed on completion", same: false) { $0.isRemovedOnCompletion = false }
        variant("additive", same: false) { $0.isAdditive = true }
        variant("cumulative", same: false) { $0.isCumulative = true }
        variant("value function", same: false) { $0.valueFunction = .rotateZ }
        variant("NaN duration", same: false) { $0.duration = .nan }
        for (name, animation, same) in variants {
            #expect(signature.matches(animation) == same, "\(name)")
            #expect(signature.matches(animation) == (signature == ImplicitSignature(animation)), "\(name)")
        }
    }

    @Test("§10 onOrderIn runs when a layer joins the tree")
    func onOrderIn() {
        let ctx = context()
        let layer = Layer()
        var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)
        a.timingFunction = .linear
        layer.actions = ["onOrderIn": .animation(a)]
        ctx.rootLayer.addSublayer(layer)
        #expect(layer.animationKeys() == ["onOrderIn"])
        ctx.tick(at: 0.5)
        #expect(near(layer.presentation()?.opacity, 0.5))
    }

    @Test("an action whose animation cannot be added keeps the change and reports the error")
    func failingAction() {
        let layer = Layer()
        let ctx = context(with: layer)
        var bad = BasicAnimation(keyPath: "opacity")
        bad.repeatCount = -3
        layer.actions = ["opacity": .animation(bad)]
        layer.opacity = 0.5
        #expect(layer.opacity == 0.5)
        #expect(ctx.lastActionError?.field == "repeatCount")
    }

    /// Runs a script of property changes (mid-flight, after finishing, twice in a tick, under
    /// other durations, with a completion block, with the host's own animation under the key,
    /// with actions disabled, on a layer with its own time, across leaving and rejoining the
    /// tree, on a layer given its own time while its animation was parked) and logs every tick's presentation values, callbacks and draws.
    func implicitScript(takesOver: Bool) -> (log: [String], takeovers: Int) {
        freshTransactions()
        let ctx = LayerContext(configuration: FrameEvaluator.Configuration(maximumThreads: 1))
        ctx.retargetsImplicitAnimations = takesOver
        let plain = Layer(), styled = Layer(), slow = Layer(), ring = ProgressLayer()
        styled.actions = ["opacity": { var a = BasicAnimation(keyPath: "opacity"); a.duration = 0.4; a.timingFunction = .easeOut; return .animation(a) }()]
        slow.speed = 2
        for l in [plain, styled, slow, ring] { ctx.rootLayer.addSublayer(l) }
        let sink = LogSink()
        var log: [String] = []
        var t = 0.0
        func tick(_ n: Int = 1) {
            for _ in 0..<n {
                t += 1.0 / 30
                ctx.tick(at: t)
                for (k, l) in [plain, styled, slow, ring].enumerated() {
                    let p = l.presentation()
                    log.append("\(t) \(k) \(String(describing: p?.opacity)) \(String(describing: p?.position)) "
                               + "\(String(describing: p?.backgroundColor)) \(String(describing: p?.value(forKey: "progress")))")
                }
                log.append("keys \(String(describing: plain.animationKeys())) \(String(describing: slow.animationKeys()))")
                log.append(contentsOf: sink.lines)
                sink.lines = []
            }
        }
        tick()
        plain.opacity = 0.2; styled.opacity = 0.3; slow.position = Point(x: 10, y: 5); ring.setValue(0.5, forKey: "progress")
        tick(3)
        plain.opacity = 0.9; styled.opacity = 1; slow.position = Point(x: -4, y: 8); ring.setValue(1, forKey: "progress")   // mid-flight
        plain.opacity = 0.6   // twice in one tick: from where the first started
        tick(20)
        plain.opacity = 0.1; plain.backgroundColor = Color(red: 1, green: 0, blue: 0)   // finished: parked
        tick(2)
        slow.opacity = 0.5; slow.position = Point(x: 3, y: 3)
        tick(2)
        slow.opacity = 0.6   // live, and not the layer's newest: it becomes the newest
        tick(2)
        Transaction.begin()
        Transaction.setAnimationDuration(1.5)   // another duration: a new animation
        plain.opacity = 0.7
        Transaction.commit()
        tick(4)
        Transaction.begin()
        Transaction.setCompletionBlock { sink.lines.append("completion") }   // waited for: through add
        plain.opacity = 0.3; styled.opacity = 0.5
        Transaction.commit()
        tick(20)
        try? plain.add(BasicAnimation(keyPath: "opacity", from: 0.0, to: 0.5, duration: 0.5), forKey: "opacity",
                       delegate: SharedLog("host", sink))   // the host's own animation under the key
        tick(3)
        plain.opacity = 0.8   // replaces the host's: not taken over
        tick(3)
        plain.opacity = 0.4
        tick(3)
        plain.removeAnimation(forKey: "opacity")
        plain.opacity = 0.95
        tick(2)
        Transaction.begin()
        Transaction.setDisableActions(true)
        plain.opacity = 0.5   // no action; the running one now ends at the new model
        Transaction.commit()
        tick(3)
        slow.removeFromSuperlayer()
        slow.position = Point(x: 1, y: 1)
        ctx.rootLayer.addSublayer(slow)   // rejoined: its old handles name nothing
        slow.position = Point(x: 2, y: 3)
        tick(3)
        slow.position = Point(x: 0, y: 0)
        ring.setValue(0.25, forKey: "progress")
        tick(40)
        plain.speed = 0.5   // a layer time given while its animation is parked: taken over, it runs under it
        plain.opacity = 0.35
        tick(12)
        return (log, ctx.implicitTakeovers)
    }

    @Test("§10 an action run again takes its last animation over in the engine: the same values and callbacks as adding it")
    func takeoverEqualsAdd() {
        let added = implicitScript(takesOver: false), takenOver = implicitScript(takesOver: true)
        #expect(added.takeovers == 0)
        #expect(takenOver.takeovers >= 8, "most re-runs went through the columns (\(takenOver.takeovers))")
        #expect(added.log.count > 400 && added.log.contains("completion") && added.log.contains("host stop false"))
        #expect(added.log == takenOver.log)
        if added.log != takenOver.log, let k = added.log.indices.first(where: { $0 >= takenOver.log.count || added.log[$0] != takenOver.log[$0] }),
           k < takenOver.log.count {
            Issue.record("first difference at line \(k): \(added.log[k]) | \(takenOver.log[k])")
        }
    }
}

/// A delegate whose action for every key is a spring animation with no values.
final class SpringActionDelegate: LayerDelegate {
    let damping: Double, duration: Double
    init(damping: Double, duration: Double) { (self.damping, self.duration) = (damping, duration) }
    func action(for layer: Layer, forKey event: String) -> LayerAction? {
        var s = SpringAnimation(keyPath: event)
        s.damping = damping
        s.duration = duration
        return .animation(s)
    }
}

@Suite("Spring actions (§4.1, §6.1, §10)")
struct SpringActionTests {

    @Test("§4.1 §6.1 a spring action with no values animates from the value before the change to the new one, as a basic action does")
    func springActionWithNoValuesAnimates() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        let delegate = SpringActionDelegate(damping: 20, duration: 1)
        layer.delegate = delegate
        layer.opacity = 0.2
        let spring = try #require(layer.animation(forKey: "opacity") as? SpringAnimation)
        #expect(spring.fromValue == .scalar(1) && spring.toValue == nil)
        ctx.tick(at: 0.1)
        let shown = try #require(layer.presentation()?.opacity)
        let expected = 1 + (0.2 - 1) * spring.response(at: 0.1)
        #expect(abs(shown - expected) < 1e-5, "\(shown) against \(expected)")
        ctx.tick(at: 0.2)
        let midFlight = try #require(layer.presentation()?.opacity)
        layer.opacity = 0.9                                  // again mid-flight: from where it is
        let again = try #require(layer.animation(forKey: "opacity") as? SpringAnimation)
        #expect(again.fromValue == .scalar(midFlight) && midFlight != 1 && midFlight != 0.2)
        ctx.tick(at: 5)
        #expect(layer.presentation()?.opacity == 0.9)
        withExtendedLifetime(delegate) {}
    }
}
