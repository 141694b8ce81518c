import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

/// A view that answers nil: the lookup goes on to the layer (the seed's second experiment).
final class PassingView: View {
    override func action(for layer: Layer, forKey event: String) -> LayerAction? { nil }
}

/// A view whose layer is a shape layer.
final class ShapeView: View {
    override class var layerClass: Layer.Type { ShapeLayer.self }
}

@Suite("View: how UIView kept layers from animating (§10)")
struct ViewTests {
    @Test("a view is its layer's delegate; layerClass makes the layer")
    func viewOwnsLayer() {
        let view = View(), shape = ShapeView()
        #expect(view.layer.delegate === view)
        #expect(shape.layer is ShapeLayer)
    }

    @Test("outside an animation block a view's layer does not animate (.null)")
    func noAnimationOutsideBlocks() {
        let view = View()
        let ctx = context(with: view.layer)
        view.layer.opacity = 0
        #expect(view.layer.animationKeys() == nil)
        ctx.tick(at: 0.1)
        #expect(view.layer.presentation()?.opacity == 0)
    }

    @Test("inside View.animate the layer animates with the block's duration and ease-in-ease-out")
    func animatesInsideBlocks() throws {
        let view = View()
        let ctx = context(with: view.layer)
        var finished: Bool?
        View.animate(withDuration: 2, animations: { view.layer.opacity = 0 }, completion: { finished = $0 })
        let a = try #require(view.layer.animation(forKey: "opacity") as? BasicAnimation)
        #expect(a.duration == 2 && a.timingFunction == .easeInEaseOut && a.fromValue == .scalar(1))
        ctx.tick(at: 1)
        #expect(near(view.layer.presentation()?.opacity, 0.5))
        #expect(finished == nil)
        ctx.tick(at: 2.5)
        #expect(finished == true)
        view.layer.opacity = 1   // outside again
        #expect(view.layer.animationKeys() == nil)
    }

    @Test("View.animate's completion gets false when an animation was removed first; true at once with none")
    func completionFlags() {
        let view = View()
        let ctx = context(with: view.layer)
        var finished: Bool?
        View.animate(withDuration: 1, animations: { view.layer.position = Point(x: 5, y: 5) }, completion: { finished = $0 })
        ctx.tick(at: 0.5)
        view.layer.removeAllAnimations()
        ctx.tick(at: 0.6)
        #expect(finished == false)
        var immediate: Bool?
        View.animate(withDuration: 1, animations: {}, completion: { immediate = $0 })
        #expect(immediate == true)
    }

    @Test("with the delegate set to nil, or a view answering nil, the layer animates again")
    func experimentsAnimateAgain() {
        let view = View()
        let passing = PassingView()
        let ctx = context(with: view.layer, passing.layer)
        defer { withExtendedLifetime(ctx) {} }
        view.layer.delegate = nil
        view.layer.opacity = 0.5
        #expect(view.layer.animationKeys() == ["opacity"])
        passing.layer.opacity = 0.5
        #expect(passing.layer.animationKeys() == ["opacity"])
    }

    @Test("a zero-duration block changes without animation")
    func zeroDuration() {
        let view = View()
        let ctx = context(with: view.layer)
        defer { withExtendedLifetime(ctx) {} }
        View.animate(withDuration: 0, animations: { view.layer.opacity = 0.5 })
        #expect(view.layer.animationKeys() == nil)
        #expect(Transaction.depth <= 1)
    }
}
