// This file imports LayerTree alone: what it uses from AnimationCore must come through it.
import LayerTree
import Testing

/// `import LayerTree` gives a host the values and animations the seeds' programs use (issue
/// "The first hour": one import, as QuartzCore brings Core Animation's types).
@Suite("import LayerTree alone")
struct ExportsTests {
    @Test("values, animations, timing functions and Core Animation's rotation-mode names come with import LayerTree")
    func oneImportIsEnough() throws {
        freshTransactions()
        let context = LayerContext()
        let layer = Layer()
        layer.bounds = Rect(x: 0, y: 0, width: 20, height: 20)
        layer.position = Point(x: 10, y: 10)
        layer.backgroundColor = Color(red: 1, green: 0, blue: 0)
        context.rootLayer.addSublayer(layer)
        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = 0
        fade.toValue = 1
        fade.duration = 1
        fade.timingFunction = TimingFunction.linear
        try layer.add(fade, forKey: "fade")
        var along = KeyframeAnimation(keyPath: "position")
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addLine(to: Point(x: 100, y: 0))
        along.path = path
        along.rotationMode = .rotateAuto
        along.duration = 1
        try layer.add(along, forKey: "along")
        context.tick(at: 0)
        context.tick(at: 0.5)
        let shown = try #require(layer.presentation())
        #expect(abs(shown.opacity - 0.5) < 1e-6)
        #expect(abs(shown.position.x - 50) < 1e-4 && shown.position.y == 0)
        #expect(RotationMode.rotateAuto == .auto && RotationMode.rotateAutoReverse == .autoReverse)
    }
}
