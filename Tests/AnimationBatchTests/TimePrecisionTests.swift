import AnimationBatch
import AnimationCore
import Testing

/// A host whose clock has run for 30 days or a year gets the presentation values it would get at
/// time 0, to within 1 µs of animation time (docs/architecture.md: time in Double, `tp − beginTime` formed in
/// Double before anything is Float), in the scalar reference and in the batch engine.
@Suite("Time precision: 30 days and a year of host time")
struct TimePrecisionTests {
    /// Host clocks: 0, 30 days, a year.
    static let epochs: [Double] = [0, 30 * 86_400, 365.25 * 86_400]
    /// Times after the animations begin, over repeats, reversals, a spring settling, a group.
    static let offsets = [0.0, 0.1, 0.37, 0.99, 1.5, 2.25, 3.7, 5.05, 7.3, 11.9, 40.3]
    /// One microsecond of animation time.
    static let window = 1e-6

    /// The animations, each beginning at `begin`: an eased fade repeating with reversal, a spring,
    /// a paced path that turns with it (repeating for ever), a group spinning (repeating for ever).
    static func animations(begin: Double) -> [any Animation] {
        var fade = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1, timingFunction: .easeInEaseOut)
        fade.repeatCount = 3
        fade.autoreverses = true
        var spring = SpringAnimation(keyPath: "bounds", to: Rect(x: 0, y: 0, width: 300, height: 120))
        spring.damping = 12
        spring.duration = spring.settlingDuration
        var circle = Path()
        circle.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: .pi, endAngle: 0, clockwise: false)
        circle.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: 0, endAngle: .pi, clockwise: false)
        var orbit = KeyframeAnimation(keyPath: "position", path: circle, calculationMode: .paced, rotationMode: .auto, duration: 4)
        orbit.repeatCount = .infinity
        var spin = BasicAnimation(keyPath: "transform.rotation.z", from: 0.0, to: 2 * Double.pi, duration: 1.5)
        spin.timingFunction = .easeIn
        var group = AnimationGroup(animations: [spin], duration: 3)
        group.repeatCount = .infinity
        var all: [any Animation] = [fade, spring, orbit, group]
        for k in all.indices { all[k].beginTime = begin }
        return all
    }

    static let model: [String: AnimationValue] = [
        "opacity": 1, "bounds": .rect(Rect(x: 0, y: 0, width: 10, height: 10)),
        "position": .point(Point(x: 0, y: 0)), "transform": .transform(.identity),
    ]

    /// Whether `shown` (at epoch + s) is what the clock at 0 shows at s ± 1 µs: every component
    /// within the largest change over that window, plus `slack` ulps of the stored precision.
    static func withinWindow(_ shown: [Double], at zero: [Double], before: [Double], after: [Double], ulp: (Double) -> Double) -> Bool {
        guard shown.count == zero.count else { return false }
        for k in shown.indices {
            let allowed = max(abs(before[k] - zero[k]), abs(after[k] - zero[k])) + 2 * ulp(zero[k])
            guard shown[k].isFinite, abs(shown[k] - zero[k]) <= allowed else { return false }
        }
        return true
    }

    @Test("§2 the reference at 30 days and a year equals the reference at 0 within 1 µs of animation time")
    func referenceKeepsTime() throws {
        func values(epoch: Double, at times: [Double]) throws -> [[Double]] {
            var list = AnimationList()
            for (k, a) in Self.animations(begin: epoch + 0.5).enumerated() { try list.add(a, forKey: "a\(k)", layerTime: epoch) }
            return times.map { t in
                let shown = list.presentationValues(model: Self.model, at: epoch + 0.5 + t)
                return ["opacity", "bounds", "position", "transform"].flatMap { shown[$0]!.components }
            }
        }
        let zero = try values(epoch: 0, at: Self.offsets)
        let before = try values(epoch: 0, at: Self.offsets.map { $0 - Self.window })
        let after = try values(epoch: 0, at: Self.offsets.map { $0 + Self.window })
        for epoch in Self.epochs.dropFirst() {
            let shown = try values(epoch: epoch, at: Self.offsets)
            for k in Self.offsets.indices {
                #expect(Self.withinWindow(shown[k], at: zero[k], before: before[k], after: after[k], ulp: { $0.ulp }),
                        "epoch \(epoch), \(Self.offsets[k]) s after the start: \(shown[k]) against \(zero[k])")
            }
        }
    }

    @Test("§2 the batch engine at 30 days and a year equals itself at 0 within 1 µs of animation time")
    func batchKeepsTime() throws {
        let layer = LayerID(1)
        // One store per clock; frames in increasing time (before, at, after each offset).
        func frames(epoch: Double) throws -> (at: [[Double]], before: [[Double]], after: [[Double]]) {
            let store = TrackStore()
            for (property, value) in Self.model { try store.setModelValue(value, layer: layer, property: property) }
            for (k, a) in Self.animations(begin: epoch + 0.5).enumerated() { try store.add(a, layer: layer, forKey: "a\(k)") }
            let evaluator = FrameEvaluator(store: store, configuration: .init(maximumThreads: 1))
            var at: [[Double]] = [], before: [[Double]] = [], after: [[Double]] = []
            func read(_ t: Double) -> [Double] {
                evaluator.evaluate(at: epoch + 0.5 + t)
                return ["opacity", "bounds", "position", "transform"].flatMap { evaluator.value(layer: layer, property: $0)?.components ?? [.nan] }
            }
            for s in Self.offsets {
                before.append(read(s - Self.window))
                at.append(read(s))
                after.append(read(s + Self.window))
            }
            return (at, before, after)
        }
        let zero = try frames(epoch: 0)
        // Values are Float after local time (docs/architecture.md): two Float ulps of slack.
        func floatUlp(_ x: Double) -> Double { Double(Float(x).ulp) }
        for epoch in Self.epochs.dropFirst() {
            let shown = try frames(epoch: epoch).at
            for k in Self.offsets.indices {
                #expect(Self.withinWindow(shown[k], at: zero.at[k], before: zero.before[k], after: zero.after[k], ulp: floatUlp),
                        "epoch \(epoch), \(Self.offsets[k]) s after the start: \(shown[k]) against \(zero.at[k])")
            }
        }
    }
}
