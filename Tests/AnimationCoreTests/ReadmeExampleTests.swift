import AnimationCore
import Testing

/// The README's usage example, verbatim: it must compile and run.
@Suite("README")
struct ReadmeExampleTests {
    @Test("the usage example in README.md runs")
    func usageExampleRuns() throws {

        // A fade, exactly as in Core Animation.
        var fade = BasicAnimation(keyPath: "opacity")
        fade.fromValue = 0
        fade.toValue = 1
        fade.duration = 2
        fade.timingFunction = .easeInEaseOut

        // A spring that moves a layer and a full turn about z, in a group that repeats forever.
        var move = SpringAnimation(keyPath: "position")
        move.toValue = .point(Point(x: 300, y: 120))
        move.damping = 12
        move.duration = move.settlingDuration

        var spin = BasicAnimation(keyPath: "transform.rotation.z")
        spin.fromValue = 0
        spin.toValue = .scalar(2 * .pi)
        spin.duration = 1.5

        var group = AnimationGroup(animations: [move, spin], duration: 3)
        group.repeatCount = .infinity

        // Attach them to a layer's animation list (copies, keyed, durations and begin times resolved).
        var animations = AnimationList()
        try animations.add(fade, forKey: "fade", layerTime: 0)
        try animations.add(group, forKey: "dance", layerTime: 0)

        // The presentation values at any time: model values with the animations applied.
        let model: [String: AnimationValue] = [
            "opacity": 1,
            "position": .point(Point(x: 0, y: 0)),
            "transform": .transform(.identity),
        ]
        let shown = animations.presentationValues(model: model, at: 0.75)
        print(shown["opacity"]!, shown["position"]!)

        // A view that follows a circle at constant speed, turning with the path.
        var circle = Path()
        circle.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: .pi, endAngle: 0, clockwise: false)
        circle.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: 0, endAngle: .pi, clockwise: false)
        let orbit = KeyframeAnimation(keyPath: "position", path: circle, calculationMode: .paced,
                                      rotationMode: .auto, duration: 4)

        // What a shape layer draws for strokeStart = 0.1, strokeEnd = 0.6.
        let visible = circle.trimmed(from: 0.1, to: 0.6)

        // Timing functions are Core Animation's cubic Béziers, solved to 1e-9.
        let eased = TimingFunction.easeInEaseOut.value(at: 0.25)
        let custom = try TimingFunction(controlPoints: 0.2, 0.8, 0.3, 1.1)   // overshoots, as in CA
        #expect(shown["opacity"] != nil && eased > 0 && custom.value(at: 0.5) > 0.5)
        #expect(orbit.duration == 4 && visible.length > 0)
    }
}
