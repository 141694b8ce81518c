import AnimationCore
import AnimationScene
import Foundation
import LayerTree

/// The progress-ring seed retargeted both ways (docs/retargeting.md): two rings run the seed's
/// script — 35 % over 1.2 s, then 85 % over 1.2 s from 0.6 s, mid-flight — the left one under
/// Core Animation's `RetargetMode.restart`, the right one under
/// `RetargetMode.preserveVelocity`. The left ring's progress has a kink at 0.6 s (its velocity
/// drops to the new curve's start rate, zero for ease-in-ease-out); the right one's is smooth
/// (its velocity is continuous). ``chart(fps:)`` draws both values and both velocities over time.
public final class RetargetSeed: SeedProgram {
    public static let name = "retarget"
    public static let title = "The progress ring retargeted mid-flight: restart against preserveVelocity"
    public let context = LayerContext()
    /// Retargeted under `.restart` (left) and under `.preserveVelocity` (right).
    public let restarted = ProgressRingLayer(), preserved = ProgressRingLayer()
    public let canvas = Size(width: 480, height: 240)
    public let duration = 2.4
    /// When the script retargets.
    public static let retargetTime = 0.6
    public private(set) var log: [String] = []
    private var script = Script()

    public init() {
        for (i, (ring, name)) in [(restarted, "restart"), (preserved, "preserve-velocity")].enumerated() {
            ring.name = name
            ring.position = Point(x: 120 + 240 * Double(i), y: 120)
            ring.bounds = Rect(x: 0, y: 0, width: 200, height: 200)
            context.rootLayer.addSublayer(ring)
        }
        script.at(0) { [unowned self] in
            Transaction.begin()
            Transaction.setAnimationDuration(1.2)
            restarted.progress = 0.35
            preserved.progress = 0.35
            Transaction.commit()
            log.append("\(Self.formatted(context.currentTime)) progress = 0.35 over 1.2 s, both rings")
        }
        script.at(Self.retargetTime) { [unowned self] in
            for (ring, mode) in [(restarted, RetargetMode.restart), (preserved, .preserveVelocity)] {
                let value = ring.presentation()?.progress ?? .nan
                let velocity = ring.velocity(forKey: ProgressRingLayer.progressKey)?.scalarValue ?? .nan
                Transaction.begin()
                Transaction.setAnimationDuration(1.2)
                Transaction.setRetargetMode(mode)
                ring.progress = 0.85
                Transaction.commit()
                let after = ring.velocity(forKey: ProgressRingLayer.progressKey)?.scalarValue ?? .nan
                log.append("\(Self.formatted(context.currentTime)) \(ring.name ?? ""): retarget to 0.85 from \(Self.formatted(value)) "
                           + "moving at \(Self.formatted(velocity))/s; the new animation starts at \(Self.formatted(after))/s")
            }
        }
    }

    public func advance(to time: Double) { script.advance(to: time) }

    private static func formatted(_ t: Double) -> String { String(format: "%.3f", t) }

    /// Both rings' progress and its velocity (`Layer.velocity(forKey:)`) after each tick of a
    /// fresh run at `fps`, from 0 to ``duration``.
    public static func samples(fps: Double) -> [(time: Double, restart: (value: Double, velocity: Double),
                                                 preserve: (value: Double, velocity: Double))] {
        let seed = RetargetSeed()
        let count = max(1, Int((seed.duration * fps).rounded(.down)) + 1)
        return (0..<count).map { k in
            let t = Double(k) / fps
            seed.advance(to: t)
            seed.context.tick(at: t)
            func read(_ ring: ProgressRingLayer) -> (Double, Double) {
                (ring.presentation()?.progress ?? 0, ring.velocity(forKey: ProgressRingLayer.progressKey)?.scalarValue ?? 0)
            }
            return (t, read(seed.restarted), read(seed.preserved))
        }
    }

    /// An SVG of two charts side by side: progress against time and its velocity against time,
    /// for both rings, sampled at `fps`.
    public static func chart(fps: Double) -> String {
        let s = samples(fps: fps)
        let value = SVGChart(title: "Progress, retargeted at \(formatted(retargetTime)) s", xLabel: "time (s)", yLabel: "progress",
                             series: [SVGChart.Series(name: "restart", points: s.map { ($0.time, $0.restart.value) }),
                                      SVGChart.Series(name: "preserveVelocity", points: s.map { ($0.time, $0.preserve.value) })])
        let velocity = SVGChart(title: "Velocity (Layer.velocity(forKey:))", xLabel: "time (s)", yLabel: "progress per second",
                                series: [SVGChart.Series(name: "restart", points: s.map { ($0.time, $0.restart.velocity) }),
                                         SVGChart.Series(name: "preserveVelocity", points: s.map { ($0.time, $0.preserve.velocity) })])
        return SVGChart.grid([value, velocity])
    }
}
