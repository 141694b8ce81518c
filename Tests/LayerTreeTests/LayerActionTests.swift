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
}
