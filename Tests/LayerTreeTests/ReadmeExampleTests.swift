import AnimationBatch
import AnimationCore
import LayerTree
import Testing

/// The README's and the DocC overview's LayerTree example, as written there.
@Suite("README: layers, as in Core Animation")
struct LayerTreeReadmeExampleTests {
    @Test("the README's example runs and prints what it says")
    func readmeExample() {
        freshTransactions()
        var log: [String] = []
        let context = LayerContext()
        let badge = ShapeLayer()
        badge.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        badge.position = Point(x: 100, y: 100)
        context.rootLayer.addSublayer(badge)
        context.tick(at: 0)

        badge.opacity = 0
        Transaction.begin()
        Transaction.setAnimationDuration(2)
        Transaction.setCompletionBlock { log.append("moved") }
        badge.position = Point(x: 300, y: 100)
        Transaction.commit()

        context.tick(at: 0.125)
        let shown = badge.presentation()!.opacity
        #expect(abs(shown - 0.1975966) < 1e-5, "\(shown)")
        #expect(badge.opacity == 0)
        #expect(log.isEmpty)
        context.tick(at: 2.1)
        #expect(log == ["moved"])
    }
}
