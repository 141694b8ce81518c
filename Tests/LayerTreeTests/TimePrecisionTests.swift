import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

/// A display link that has run for 30 days or a year gives the presentation values it gives at
/// time 0, to within 1 µs of animation time: explicit animations (begin time 0 resolved to now),
/// implicit ones, and a sublayer with its own speed and time offset (§2.7).
@Suite("Layer time precision: 30 days and a year of host time")
struct LayerTimePrecisionTests {
    static let epochs: [Double] = [0, 30 * 86_400, 365.25 * 86_400]
    static let offsets = [0.0, 0.05, 0.37, 0.99, 1.3, 2.25, 3.7, 6.1]
    static let window = 1e-6

    /// Opacity, position and the sublayer's rotation at `epoch + s` for every offset s (and s ± δ
    /// when `shift` is ±δ): the same script from a clock that starts at `epoch`.
    static func run(epoch: Double, shift: Double) throws -> [[Double]] {
        let layer = Layer(), child = Layer()
        child.speed = 2
        child.timeOffset = 0.25
        layer.addSublayer(child)
        let ctx = context(with: layer, at: epoch)
        var fade = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1.5, timingFunction: .easeInEaseOut)
        fade.repeatCount = 2
        fade.autoreverses = true
        try layer.add(fade, forKey: "fade")
        var spin = BasicAnimation(keyPath: "transform.rotation.z", from: 0.0, to: Double.pi, duration: 1)
        spin.repeatCount = .infinity
        try child.add(spin, forKey: "spin")
        Transaction.begin()
        Transaction.setAnimationDuration(2)
        layer.position = Point(x: 300, y: -40)   // implicit: from the presentation value, 2 s
        Transaction.commit()
        return try offsets.map { s in
            ctx.tick(at: epoch + s + shift)
            let shown = try #require(layer.presentation()), turned = try #require(child.presentation())
            return [shown.opacity, shown.position.x, shown.position.y] + turned.transform.elements
        }
    }

    @Test("§2.7 a layer tree at 30 days and a year shows what it shows at 0, within 1 µs of animation time")
    func layerTreeKeepsTime() throws {
        let zero = try Self.run(epoch: 0, shift: 0)
        let before = try Self.run(epoch: 0, shift: -Self.window), after = try Self.run(epoch: 0, shift: Self.window)
        for epoch in Self.epochs.dropFirst() {
            let shown = try Self.run(epoch: epoch, shift: 0)
            for k in Self.offsets.indices {
                // Values are Float after local time in the engine: two Float ulps of slack.
                let fits = zip(shown[k].indices, shown[k]).allSatisfy { c, value in
                    let allowed = max(abs(before[k][c] - zero[k][c]), abs(after[k][c] - zero[k][c])) + 2 * Double(Float(zero[k][c]).ulp)
                    return value.isFinite && abs(value - zero[k][c]) <= allowed
                }
                #expect(fits, "epoch \(epoch), \(Self.offsets[k]) s: \(shown[k]) against \(zero[k])")
            }
        }
        // The script moves: opacity, position and rotation all change between the offsets.
        #expect(Set(zero.map { $0[0] }).count > 3 && Set(zero.map { $0[1] }).count > 3 && Set(zero.map { $0[3] }).count > 3)
    }
}
