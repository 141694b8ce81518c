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

/// Tree edits a hostile host can repeat (issue "Hardening, round two"; docs/bad-input.md): each in
/// work linear in what it touches, shown by operation counts, and no recursion as deep as the tree.
@Suite("Layer tree edits: linear work, no recursion")
struct LayerTreeEditTests {
    /// Adds `count` siblings to a parent, removes them all in order, and returns the entries the
    /// parent's list moved; checks what the remaining siblings read on the way.
    func siblingRemovalMoves(_ count: Int) -> Int {
        let parent = Layer()
        let children = (0..<count).map { k -> Layer in
            let l = Layer()
            l.name = "\(k)"
            parent.addSublayer(l)
            return l
        }
        // Every other one first: the rest keep their order.
        for k in stride(from: 0, to: count, by: 2) { children[k].removeFromSuperlayer() }
        #expect(parent.sublayers?.map(\.name) == stride(from: 1, to: count, by: 2).map { "\($0)" })
        #expect(children[0].superlayer == nil && children[1].superlayer === parent)
        for k in stride(from: 1, to: count, by: 2) { children[k].removeFromSuperlayer() }
        #expect(parent.sublayers == nil)
        return parent.sublayerMoves
    }

    @Test("removing each of many siblings is amortised constant work, and the rest keep their order")
    func removingSiblingsIsLinear() {
        let small = siblingRemovalMoves(2_000), large = siblingRemovalMoves(4_000)
        // Shifting the array (or searching it) per removal moved ~n²/2 entries.
        #expect(large <= 2 * small + 64, "moved \(small) for 2,000 siblings, \(large) for 4,000")
        #expect(large <= 3 * 4_000)
    }

    @Test("a sublayer removed and added again goes to the front-most place, once")
    func removedAndAddedAgain() {
        let parent = Layer(), a = Layer(), b = Layer(), c = Layer()
        for l in [a, b, c] { parent.addSublayer(l) }
        b.removeFromSuperlayer()
        parent.addSublayer(b)
        parent.addSublayer(a)   // already a sublayer: moves to the front
        #expect(parent.sublayers?.map(ObjectIdentifier.init) == [c, b, a].map(ObjectIdentifier.init))
        #expect(a.superlayer === parent && b.superlayer === parent)
    }

    @Test("building a chain downwards walks no ancestors, in or out of a context; a cycle is still refused")
    func buildingAChainWalksNoAncestors() {
        freshTransactions()
        let context = LayerContext()
        for root in [Layer(), context.rootLayer] {
            var chain = [root]
            for _ in 0..<3_000 {
                let l = Layer()
                chain.last!.addSublayer(l)
                chain.append(l)
            }
            #expect(chain.reduce(0) { $0 + $1.ancestorSteps } == 0)
            // The root's first sublayer under the deepest layer would be a cycle: ignored.
            chain.last!.addSublayer(chain[1])
            #expect(chain[1].superlayer === root)
            #expect(chain.last!.sublayers == nil)
        }
        context.tick(at: 0)
        #expect(context.invariantViolations().isEmpty)
    }

    @Test("a deep chain of timed layers joins, is retimed and leaves a context in linear engine work")
    func timedChainInAContextIsLinear() throws {
        func work(_ depth: Int) throws -> Int {
            freshTransactions()
            let context = LayerContext()
            var last = context.rootLayer
            var first: Layer?
            for k in 0..<depth {
                let l = Layer()
                if k % 3 == 0 { l.speed = 2 }
                last.addSublayer(l)
                last = l
                first = first ?? l
            }
            try last.add(BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1), forKey: "fade")
            context.tick(at: 0)
            first!.speed = 3
            context.tick(at: 0.25)
            #expect(context.invariantViolations().isEmpty)
            first!.removeFromSuperlayer()
            context.tick(at: 0.5)
            #expect(context.invariantViolations().isEmpty)
            return context.store.clockWalkSteps
        }
        let small = try work(300), large = try work(600)
        #expect(large <= 2 * small + 16, "engine work \(small) at depth 300, \(large) at 600")
    }

    /// A chain of `depth` layers under a new top layer, outside any context: its top and its deepest layer.
    static func chain(depth: Int) -> (top: Layer, deepest: Layer) {
        let top = Layer()
        var last = top
        for _ in 0..<depth {
            let l = Layer()
            last.addSublayer(l)
            last = l
        }
        return (top, last)
    }

    @Test("dropping a 100,000-deep tree releases it in a loop, not a call per level")
    func droppingADeepTreeDoesNotRecurse() {
        weak var deepest: Layer?
        do {
            let (root, last) = Self.chain(depth: 100_000)
            deepest = last
            #expect(deepest != nil && root.sublayers?.count == 1)
        }
        // Released as the root was (a recursive release overflowed the stack before this line).
        #expect(deepest == nil)
    }

    @Test("a deep chain in a context leaves it and is dropped without recursion")
    func deepChainLeavesAContext() {
        freshTransactions()
        let context = LayerContext()
        weak var deepest: Layer?
        do {
            let (top, last) = Self.chain(depth: 20_000)
            deepest = last
            context.rootLayer.addSublayer(top)
            context.tick(at: 0)
            #expect(context.invariantViolations().isEmpty)
            top.removeFromSuperlayer()
            context.tick(at: 1)
            #expect(context.invariantViolations().isEmpty)
        }
        #expect(deepest == nil)
    }
}
