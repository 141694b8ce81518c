import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Foundation
import Testing

@Suite("KeyframeBatch: rotation angles along keyframed paths (semantics §5.7)")
struct KeyframeBatchTests {
    /// The angle difference `a − b` moved into [0, π].
    private func turnDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 2 * Double.pi)
        if d > Double.pi { d -= 2 * Double.pi }
        if d <= -Double.pi { d += 2 * Double.pi }
        return abs(d)
    }

    /// The worst angle difference between the batch and the reference over `times`, for layers
    /// that each follow `paths[k]` (linear mode: every drawn segment its own Hermite segment, the
    /// form `KeyframeBatch` evaluates) over a transform model of identity, so the presentation
    /// transform is the z rotation by the angle; `fill` backwards so progress 0 shows before the
    /// start.
    private func worstTurn(paths: [Path], mode: RotationMode, times: [Double]) throws -> (difference: Double, at: String) {
        let store = TrackStore()
        var animations: [KeyframeAnimation] = []
        for (k, path) in paths.enumerated() {
            let layer = LayerID(UInt64(k + 1))
            try store.setModelValue(.transform(.identity), layer: layer, property: "transform")
            var fly = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .linear, rotationMode: mode, duration: 1)
            fly.timing.fillMode = .backwards
            animations.append(fly)
            try store.add(fly, layer: layer)
        }
        let evaluator = FrameEvaluator(store: store)
        var worst = (difference: 0.0, at: "")
        for t in times {
            evaluator.evaluate(at: t)
            for (k, fly) in animations.enumerated() {
                let value = try #require(evaluator.value(layer: LayerID(UInt64(k + 1)), property: "transform"))
                guard case .transform(let m) = value else {
                    Issue.record("layer \(k) shows \(value), not a transform")
                    continue
                }
                let reference = try #require(fly.rotationAngle(in: fly.timing.state(atParentTime: t)))
                let difference = turnDifference(atan2(m.m12, m.m11), reference)
                if difference > worst.difference { worst = (difference, "path \(k) at t = \(t): batch \(atan2(m.m12, m.m11)), reference \(reference)") }
            }
        }
        return worst
    }

    @Test("§5.7 a line too short to have a direction at the path's start (7e-15 at (66, −38)) turns the layer by the direction after it, as the reference does")
    func lineTooShortForADirectionAtTheStart() throws {
        // The keyframes fuzzer's finding: a rounded rectangle drawn from a point whose closing line
        // is 7e-15 long. The reference (in Double) finds no direction under 1e-12 and takes the
        // curve's after it (up); the batch read the line's own (down) from its Float tangents: a
        // half turn apart at progress 0.
        var path = Path()
        let start = Point(x: 66.47188525215533, y: -37.962157625696186)
        path.move(to: start)
        path.addLine(to: Point(x: 66.47188525215533, y: -37.96215762569619))
        path.addCurve(to: Point(x: 63.47188525215533, y: -35.75188830395971),
                      control1: Point(x: 66.47188525215533, y: -36.741459586350345), control2: Point(x: 65.12873950155533, y: -35.75188830395971))
        path.addLine(to: Point(x: 4, y: -35.75188830395971))
        path.addCurve(to: Point(x: 1, y: -37.96215762569619), control1: Point(x: 2.3431457506, y: -35.75188830395971),
                      control2: Point(x: 1, y: -36.741459586350345))
        path.closeSubpath()
        #expect(path.tangent(atLength: 0).y > 0.99, "the reference's direction at the start is the curve's, up")
        // Before the start (progress 0), through the first segment and into the curve.
        let times = [-1.0, 0] + (1...40).map { Double($0) / 200 }
        for mode in [RotationMode.auto, .autoReverse] {
            let worst = try worstTurn(paths: [path], mode: mode, times: times)
            #expect(worst.difference <= 1e-5, "\(mode): \(worst.at)")
        }
    }

    @Test("§5.7 on segments a few Float ulps to thousands of ulps long, far from the origin, the angle is the reference's within 3e-4 rad")
    func shortSegmentsFarFromTheOriginTurnAsTheReference() throws {
        // A line or a gentle cubic 2^k ulps of its coordinates long (k = 0 … 20), between two long
        // lines, at coordinates 1 … 1e6 and at any heading. Below 2⁻⁸ of the coordinates the
        // derivative's Float rounding (the endpoints' difference) would be most of it: those lanes
        // take the reference's angle; above it the rounding is under 3e-4 rad.
        var generator = SplitMix64(seed: 57)
        var paths: [Path] = []
        for k in 0...20 {
            for place in [1.0, 100, 1e4, 1e6] {
                let heading = Double.random(in: -Double.pi...Double.pi, using: &generator)
                let corner = Point(x: place * Double.random(in: -1...1, using: &generator), y: place * Double.random(in: -1...1, using: &generator))
                let size = Double(Float(place).ulp) * pow(2, Double(k)) * Double.random(in: 0.5...1, using: &generator)
                let (c, s) = (cos(heading), sin(heading))
                let end = Point(x: corner.x + size * c, y: corner.y + size * s)
                var path = Path()
                path.move(to: Point(x: corner.x - place * s, y: corner.y + place * c))
                path.addLine(to: corner)
                if k % 2 == 0 {
                    path.addLine(to: end)
                } else {
                    // Bends by ~0.3 rad each way: the direction changes slowly with the fraction.
                    path.addCurve(to: end, control1: Point(x: corner.x + size / 3 * (c - 0.3 * s), y: corner.y + size / 3 * (s + 0.3 * c)),
                                  control2: Point(x: end.x - size / 3 * (c + 0.3 * s), y: end.y - size / 3 * (s - 0.3 * c)))
                }
                path.addLine(to: Point(x: end.x + place * c, y: end.y + place * s))
                paths.append(path)
            }
        }
        // Inside the middle segment (the second third of the time), at 50 fractions.
        let times = (1..<50).map { 1.0 / 3 + Double($0) / 150 }
        for mode in [RotationMode.auto, .autoReverse] {
            let worst = try worstTurn(paths: paths, mode: mode, times: times)
            #expect(worst.difference <= 3e-4, "\(mode): \(worst.at)")
        }
    }
}
