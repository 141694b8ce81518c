import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

/// A subclass with a custom animatable property, as the seed's progress ring declares it: a
/// public property clamped into a hidden animatable key (semantics §11).
final class RingLayer: Layer {
    nonisolated(unsafe) static var drawn: [Double] = []
    var drawnValues: [Double] = []
    override class func defaultValue(forKey key: String) -> AnimationValue? {
        key == "ringProgress" ? 0 : super.defaultValue(forKey: key)
    }
    override class func needsDisplay(forKey key: String) -> Bool {
        key == "ringProgress" || super.needsDisplay(forKey: key)
    }
    var progress: Double {
        get { value(forKey: "ringProgress")?.scalarValue ?? 0 }
        set { setValue(.scalar(min(max(newValue, 0), 1)), forKey: "ringProgress") }
    }
}

/// Records display calls (on presentation copies).
final class DisplayRecorder: LayerDelegate {
    var values: [Double] = []
    var copies: [ObjectIdentifier] = []
    var classes: [String] = []
    func display(_ layer: Layer) {
        values.append(layer.value(forKey: "ringProgress")?.scalarValue ?? .nan)
        copies.append(ObjectIdentifier(layer))
        classes.append(String(describing: type(of: layer)))
    }
}

@Suite("Layer: model values, keys and presentation (§1.1, §11)")
struct LayerTests {
    @Test("§1.1 setting a property changes the model at once; presentation() is nil before a tick")
    func modelChangesAtOnce() {
        freshTransactions()
        let context = LayerContext()
        let layer = Layer()
        context.rootLayer.addSublayer(layer)
        layer.opacity = 0.25
        #expect(layer.opacity == 0.25)
        #expect(layer.presentation() == nil)
        context.tick(at: 1)
        #expect(near(layer.presentation()?.opacity, 0.25 + 0.75 * 0), "no animation has run yet at its begin")
    }

    @Test("§1.1 the presentation value is the model with the animations applied; model() returns the model layer")
    func presentationAppliesAnimations() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.setDisableActions(true)
        layer.opacity = 1
        try layer.add(opacityFade(duration: 2), forKey: "fade")
        ctx.tick(at: 0.5)   // began at 0 (the tick before the add)
        let p = try #require(layer.presentation())
        #expect(near(p.opacity, 0.25))
        #expect(layer.opacity == 1)
        #expect(p.model() === layer)
        #expect(layer.model() === layer)
        #expect(p !== layer)
    }

    @Test("§11 presentation copies are made with init(layer:) and keep the subclass")
    func presentationKeepsSubclass() throws {
        let ring = RingLayer()
        ring.progress = 0.5
        let ctx = context(with: ring)
        ctx.tick(at: 0.1)
        let p = try #require(ring.presentation())
        #expect(type(of: p) == RingLayer.self)
        #expect(p.progress == 0.5)
    }

    @Test("§11 defaults: opacity 1, anchorPoint (0.5, 0.5), transforms identity, borderColor black, backgroundColor nil, rest zero")
    func defaults() {
        let layer = Layer()
        #expect(layer.opacity == 1)
        #expect(layer.anchorPoint == Point(x: 0.5, y: 0.5))
        #expect(layer.transform == .identity && layer.sublayerTransform == .identity)
        #expect(layer.position == .zero && layer.bounds == .zero)
        #expect(layer.cornerRadius == 0 && layer.borderWidth == 0 && layer.zPosition == 0)
        #expect(layer.backgroundColor == nil)
        #expect(layer.borderColor == .black)
        #expect(layer.value(forKey: "progress") == nil)
        #expect(layer.speed == 1 && layer.beginTime == 0 && layer.timeOffset == 0)
    }

    @Test("§11 defaultValue(forKey:) supplies unset keys; the style chain is consulted before it")
    func styleBeforeDefault() {
        let ring = RingLayer()
        #expect(ring.progress == 0)
        ring.style = ["style": ["ringProgress": AnimationValue.scalar(0.75)]]
        #expect(ring.progress == 0.75)
        ring.style = ["ringProgress": AnimationValue.scalar(0.5), "style": ["ringProgress": AnimationValue.scalar(0.75)]]
        #expect(ring.progress == 0.5)
        ring.progress = 0.25
        #expect(ring.progress == 0.25, "a value set on the layer comes first")
    }

    @Test("typed properties and keys are the same storage; key paths read and write fields")
    func keysAndKeyPaths() {
        let layer = Layer()
        layer.position = Point(x: 3, y: 4)
        #expect(layer.value(forKey: "position") == .point(Point(x: 3, y: 4)))
        #expect(layer.value(forKeyPath: "position.x") == .scalar(3))
        layer.setValue(.scalar(10), forKeyPath: "position.y")
        #expect(layer.position == Point(x: 3, y: 10))
        layer.setValue(.scalar(.pi / 2), forKeyPath: "transform.rotation.z")
        #expect(near(layer.value(forKeyPath: "transform.rotation.z")?.scalarValue, .pi / 2, 1e-12))
        layer.setValue(.scalar(2), forKeyPath: "bounds.size.width")
        #expect(layer.bounds.size.width == 2)
        layer.setValue(.scalar(0.5), forKey: "opacity")
        #expect(layer.opacity == 0.5)
        layer.setValue(.scalar(2), forKey: "speed")
        #expect(layer.speed == 2)
    }

    @Test("a value of another kind than the key holds is ignored")
    func wrongKindIgnored() {
        let layer = Layer()
        layer.opacity = 0.5
        layer.setValue(.point(Point(x: 1, y: 1)), forKey: "opacity")
        #expect(layer.opacity == 0.5)
        layer.setValue(.scalar(1), forKey: "custom")
        layer.setValue(.color(.black), forKey: "custom")
        #expect(layer.value(forKey: "custom") == .scalar(1))
        layer.setValue(.scalar(1), forKeyPath: "position.nope")
        #expect(layer.position == .zero)
        layer.speed = .nan
        #expect(layer.speed == 1)
    }

    @Test("§12 frame is derived from position, bounds and anchorPoint")
    func frameIsDerived() {
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(layer.position == Point(x: 60, y: 45))
        #expect(layer.bounds.size == Size(width: 100, height: 50))
        #expect(layer.frame == Rect(x: 10, y: 20, width: 100, height: 50))
    }

    @Test("sublayers, superlayer and removeFromSuperlayer; cycles are refused")
    func tree() {
        let a = Layer(), b = Layer(), c = Layer()
        a.addSublayer(b)
        b.addSublayer(c)
        #expect(a.sublayers?.count == 1 && b.superlayer === a && c.superlayer === b)
        c.addSublayer(a)   // a cycle: ignored
        #expect(a.superlayer == nil && c.sublayers == nil)
        a.addSublayer(c)   // moves c
        #expect(c.superlayer === a && b.sublayers == nil && a.sublayers?.count == 2)
        c.removeFromSuperlayer()
        #expect(c.superlayer == nil && a.sublayers?.count == 1)
    }

    @Test("§11 needsDisplay(forKey:): a change in the model or through an animation displays the presentation copy")
    func needsDisplayForKey() throws {
        let ring = RingLayer()
        let recorder = DisplayRecorder()
        ring.delegate = recorder
        let ctx = context(with: ring)
        #expect(recorder.values.isEmpty || recorder.values == [0])
        recorder.values = []
        Transaction.setDisableActions(true)
        ring.progress = 0.5
        #expect(ring.needsDisplay())
        ctx.tick(at: 0.1)
        #expect(recorder.values == [0.5])
        #expect(!ring.needsDisplay())
        ctx.tick(at: 0.2)
        #expect(recorder.values == [0.5], "nothing changed: no display")
        var a = BasicAnimation(keyPath: "ringProgress", from: 0.0, to: 1.0, duration: 1)
        a.beginTime = 0
        try ring.add(a, forKey: "p")
        ctx.tick(at: 0.45)   // began at 0.2
        #expect(recorder.values.count == 2 && near(recorder.values.last, 0.25))
        #expect(recorder.classes.last == "RingLayer")
        #expect(recorder.copies.last != ObjectIdentifier(ring), "display() is called on the presentation copy")
        ctx.tick(at: 0.7)
        #expect(recorder.values.count == 3 && near(recorder.values.last, 0.5))
        ring.setNeedsDisplay()
        ctx.tick(at: 0.7)
        #expect(recorder.values.count == 4)
    }
}

@Suite("Layer: the tree's edges")
struct LayerTreeEdgeTests {
    @Test("a context's root, a presentation copy and a cycle cannot be added as sublayers")
    func refusedSublayers() throws {
        let a = context(), b = context()
        let layer = Layer()
        a.rootLayer.addSublayer(layer)
        layer.addSublayer(b.rootLayer)
        #expect(layer.sublayers == nil && b.rootLayer.superlayer == nil)
        a.tick(at: 0.1)
        let copy = try #require(layer.presentation())
        a.rootLayer.addSublayer(copy)
        #expect(a.rootLayer.sublayers?.count == 1)
        #expect(a.layerCount == 2 && b.layerCount == 1)
    }

    @Test("a layer moved to another context leaves the first: its animations stop there, cancelled")
    func movingBetweenContexts() throws {
        let a = context(), b = context()
        let layer = Layer()
        a.rootLayer.addSublayer(layer)
        let r = Recorder()
        try layer.add(opacityFade(duration: 5), forKey: "f", delegate: r)
        a.tick(at: 0.5)
        b.rootLayer.addSublayer(layer)
        #expect(a.layerID(of: layer) == nil && b.layerID(of: layer) != nil)
        #expect(layer.animationKeys() == nil)
        a.tick(at: 0.6)
        #expect(r.log == ["start", "stop(false)"])
        #expect(a.layerCount == 1 && b.layerCount == 2)
    }
}
