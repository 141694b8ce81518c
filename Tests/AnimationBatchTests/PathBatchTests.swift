import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Foundation
import Testing

/// The angle difference `a − b` moved into (−π, π].
private func turnDifference(_ a: Double, _ b: Double) -> Double {
    var d = (a - b).truncatingRemainder(dividingBy: 2 * Double.pi)
    if d > Double.pi { d -= 2 * Double.pi }
    if d <= -Double.pi { d += 2 * Double.pi }
    return abs(d)
}

@Suite("PathBatch: paced paths and their rotation angles (semantics §5.6, §5.7)")
struct PathBatchTests {
    /// Layers each following `paths[k]` in paced mode with `modes[k]`, over a transform model of
    /// identity: the presentation transform is the z rotation by the angle.
    private func angles(paths: [Path], modes: [RotationMode], calculationMode: CalculationMode = .paced, at times: [Double],
                        check: (_ layer: Int, _ time: Double, _ batch: Double, _ reference: Double) -> Void) throws {
        let store = TrackStore()
        var animations: [KeyframeAnimation] = []
        for (k, path) in paths.enumerated() {
            let layer = LayerID(UInt64(k + 1))
            try store.setModelValue(.transform(.identity), layer: layer, property: "transform")
            let fly = KeyframeAnimation(keyPath: "position", path: path, calculationMode: calculationMode, rotationMode: modes[k],
                                        duration: 3)
            animations.append(fly)
            try store.add(fly, layer: layer)
        }
        let evaluator = FrameEvaluator(store: store)
        for t in times {
            evaluator.evaluate(at: t)
            for (k, fly) in animations.enumerated() {
                guard case .transform(let m)? = evaluator.value(layer: LayerID(UInt64(k + 1)), property: "transform") else {
                    Issue.record("no transform for layer \(k)")
                    return
                }
                let reference = fly.rotationAngle(in: fly.timing.state(atParentTime: t))!
                check(k, t, atan2(m.m12, m.m11), reference)
            }
        }
    }

    @Test("§5.7 on circles and random paths the angle table's angles agree with the reference's, autoReverse's half turn included")
    func anglesAgreeWithReference() throws {
        var random = RandomAnimations(seed: 75)
        var paths: [Path] = []
        for radius in [5.0, 50, 500] {
            var circle = Path()
            circle.addArc(center: Point(x: 0, y: 0), radius: radius, startAngle: 0.3, endAngle: 0.3 + 2 * Double.pi, clockwise: false)
            paths.append(circle)
        }
        for _ in 0..<TestScale.count(debug: 6, release: 60) { paths.append(random.path()) }
        let modes = paths.indices.map { $0 % 2 == 0 ? RotationMode.auto : .autoReverse }
        var rng = SplitMix64(seed: 76)
        let times = (0..<TestScale.count(debug: 40, release: 400)).map { _ in Double.random(in: 0..<3, using: &rng) }
        let measures = paths.map(PathMeasure.init)
        var worst = 0.0
        try angles(paths: paths, modes: modes, at: times) { k, t, batch, reference in
            let miss = turnDifference(batch, reference)
            // The batch's progress is a Float: the point it stands on may be a few 1e-7 of the
            // length away, which turns a curve's tangent by the curvature times that (and moves a
            // corner's jump): the reference a hair earlier or later must then agree.
            let near = [-2e-6, 2e-6, -2e-5, 2e-5].contains { delta in
                let f = min(1, max(0, t / 3 + delta))
                return turnDifference(batch, measures[k].angle(atFraction: f, reverse: modes[k] == .autoReverse)) <= 2e-5
            }
            #expect(miss <= TangentAngleTable.defaultTolerance + 2e-6 || near, "layer \(k) at \(t): \(batch) vs \(reference)")
            if miss <= 1 { worst = max(worst, miss) }
        }
        #expect(worst <= TangentAngleTable.defaultTolerance + 2e-6 || TestScale.isFull)
    }

    @Test("§5.7 linear, cubic and discrete path animations turn by the segment's own direction, as the reference does")
    func bezierAnglesAgreeWithReference() throws {
        var random = RandomAnimations(seed: 57)
        var paths: [Path] = []
        var circle = Path()
        circle.addArc(center: Point(x: 0, y: 0), radius: 60, startAngle: 0.3, endAngle: 0.3 + 2 * Double.pi, clockwise: false)
        paths.append(circle)
        var square = Path()
        square.addRect(Rect(x: 0, y: 0, width: 100, height: 50))
        paths.append(square)
        for _ in 0..<TestScale.count(debug: 6, release: 60) { paths.append(random.path()) }
        let modes = paths.indices.map { $0 % 2 == 0 ? RotationMode.auto : .autoReverse }
        var rng = SplitMix64(seed: 58)
        let times = (0..<TestScale.count(debug: 40, release: 400)).map { _ in Double.random(in: 0..<3, using: &rng) }
        for calculationMode in [CalculationMode.linear, .cubic, .discrete] {
            let animations = paths.indices.map {
                KeyframeAnimation(keyPath: "position", path: paths[$0], calculationMode: calculationMode, rotationMode: modes[$0], duration: 3)
            }
            try angles(paths: paths, modes: modes, calculationMode: calculationMode, at: times) { k, t, batch, reference in
                let miss = turnDifference(batch, reference)
                // Float progress: the point may sit a few 1e-7 of the duration away (a curve's
                // tangent turns with it, a corner's jump moves): the reference a hair earlier or
                // later must then agree.
                let near = [-2e-6, 2e-6, -2e-5, 2e-5].contains { delta in
                    let state = animations[k].timing.state(atParentTime: t + 3 * delta)
                    return animations[k].rotationAngle(in: state).map { turnDifference(batch, $0) <= 2e-5 } ?? false
                }
                #expect(miss <= 2e-5 || near, "\(calculationMode), layer \(k) at \(t): \(batch) vs \(reference)")
            }
        }
    }

    @Test("§5.7 on a polygon the angle jumps at each corner's length, not over a table interval")
    func cornersJumpWhereTheyAre() throws {
        var square = Path()
        square.addRect(Rect(x: 0, y: 0, width: 100, height: 100))   // 400 long, 3 s: a corner each 0.75 s
        let times = [0.1, 0.7499, 0.7501, 1.4999, 1.5001, 2.2499, 2.2501, 2.9]
        let expected = [0.0, 0, Double.pi / 2, Double.pi / 2, Double.pi, Double.pi, -Double.pi / 2, -Double.pi / 2]
        try angles(paths: [square], modes: [.auto], at: times) { _, t, batch, reference in
            let index = times.firstIndex(of: t)!
            #expect(turnDifference(batch, expected[index]) <= 1e-6, "at \(t): \(batch)")
            #expect(turnDifference(reference, expected[index]) <= 1e-12)
        }
    }

    @Test("§5.6 a move-to inside a paced path jumps in no time: around it the point stays on the path, as in the reference")
    func pacedPathJumpsAtAMove() throws {
        // The fuzzer's shape: a subpath ending far from where the next one starts. Before, the
        // interval holding the move lerped across the gap (370 px off the path at its middle).
        var path = Path()
        path.move(to: Point(x: 76, y: -125))
        path.addLine(to: Point(x: -5, y: -73))
        path.addCurve(to: Point(x: -7.5, y: -75.7), control1: Point(x: -8.2, y: -73.9), control2: Point(x: -8.2, y: -75))
        path.addLine(to: Point(x: -111.8, y: -322.3))
        path.move(to: Point(x: -42.5, y: 35.9))
        path.addLine(to: Point(x: 34.7, y: 32.6))
        path.move(to: Point(x: 0, y: 0))   // a second jump, and one onto a subpath of one zero-length line
        path.addLine(to: Point(x: 0, y: 0))
        path.move(to: Point(x: 10, y: 10))
        path.addLine(to: Point(x: 75.7, y: 15.9))
        let measure = PathMeasure(path)
        #expect(measure.jumps.count == 3)
        let store = TrackStore()
        let fly = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, duration: 1)
        for layer in 1...17 {   // lanes in two blocks
            try store.setModelValue(.point(Point(x: 0, y: 0)), layer: LayerID(UInt64(layer)), property: "position")
            try store.add(fly, layer: LayerID(UInt64(layer)))
        }
        let evaluator = FrameEvaluator(store: store)
        let tolerance = 1e-3 * measure.length
        var checked = 0, nearJumps = 0
        // Every time around each jump, densely (the table's intervals are about 1/1,000 of the duration).
        let jumpTimes = measure.jumps.map { $0.length / measure.length }
        let times = jumpTimes.flatMap { s in (-300...300).map { s + Double($0) * 1e-5 } } + stride(from: 0.0, through: 1, by: 1e-3)
        for t in times where t >= 0 && t <= 1 {
            evaluator.evaluate(at: t)
            let reference = ReferenceEvaluator.presentationValue(ofProperty: "position", model: .point(Point(x: 0, y: 0)),
                                                                 animations: [fly], at: t)
            for layer in [1, 17] {
                let batch = evaluator.value(layer: LayerID(UInt64(layer)), property: "position")!
                checked += 1
                if PrecisionTable.maxDifference(batch, reference) <= tolerance { continue }
                // Within a Float ulp of progress of a jump either side is right.
                let near = [-1e-6, 1e-6].contains { d in
                    PrecisionTable.maxDifference(batch, ReferenceEvaluator.presentationValue(
                        ofProperty: "position", model: .point(Point(x: 0, y: 0)), animations: [fly], at: t + d)) <= tolerance
                }
                nearJumps += near ? 1 : 0
                #expect(near, "t = \(t): batch \(batch), reference \(reference)")
            }
        }
        #expect(checked > 3_000 && nearJumps <= 12)
    }

    @Test("§5.6 a paced path that ends with a move onto zero-length segments ends on the point landed on, as in the reference")
    func pacedPathEndingWithAMove() throws {
        // The fuzzer's finding: forward fill at progress 1 showed (5, 5) here and (6, 3) in the
        // reference, which had walked back past the move to the last segment with length.
        var path = Path()
        path.move(to: Point(x: 6, y: 3))
        path.addCurve(to: Point(x: 12, y: 9), control1: Point(x: 8, y: 3), control2: Point(x: 12, y: 5))
        path.closeSubpath()
        path.move(to: Point(x: 5, y: 5))
        path.addCurve(to: Point(x: 5, y: 5), control1: Point(x: 5, y: 5), control2: Point(x: 5, y: 5))
        path.closeSubpath()
        for mode in [CalculationMode.paced, .cubicPaced] {
            var fly = KeyframeAnimation(keyPath: "position", path: path, calculationMode: mode, rotationMode: .autoReverse, duration: 1)
            fly.timing.fillMode = .forwards
            fly.isRemovedOnCompletion = false
            let store = TrackStore()
            try store.setModelValue(.point(Point(x: 0, y: 0)), layer: LayerID(1), property: "position")
            try store.add(fly, layer: LayerID(1))
            let evaluator = FrameEvaluator(store: store)
            for t in [0.999, 1, 2] {
                evaluator.evaluate(at: t)
                let reference = ReferenceEvaluator.presentationValue(ofProperty: "position", model: .point(Point(x: 0, y: 0)),
                                                                     animations: [fly], at: t)
                let batch = try #require(evaluator.value(layer: LayerID(1), property: "position"))
                #expect(PrecisionTable.maxDifference(batch, reference) <= 1e-3, "\(mode) t = \(t): batch \(batch), reference \(reference)")
                if t >= 1 { #expect(reference == .point(Point(x: 5, y: 5))) }
            }
        }
    }

    @Test("a progress that is NaN (a timing whose arithmetic overflows) reads the path's first sample, never outside its tables")
    func nanProgressStaysInsideTheTables() throws {
        // The fuzzer's case: an autoreversing duration of Double.greatestFiniteMagnitude made the
        // progress NaN (its period overflowed; the duration is now held at half the largest
        // Double), and a NaN frame time still does; the sample index made from a NaN progress
        // used to address gigabytes past the table.
        var path = Path()
        path.addEllipse(in: Rect(x: -88, y: -64, width: 66, height: 36))
        path.addLine(to: Point(x: 5, y: 5))
        let store = TrackStore()
        var fly = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, rotationMode: .auto,
                                    duration: .greatestFiniteMagnitude)
        fly.timing.autoreverses = true
        fly.timing.speed = -3.1
        for layer in 1...20 {   // more than one block of 16 lanes, each reading its own sample
            try store.setModelValue(.transform(.identity), layer: LayerID(UInt64(layer)), property: "transform")
            try store.add(fly, layer: LayerID(UInt64(layer)))
        }
        let evaluator = FrameEvaluator(store: store)
        for t in [0, 0.5, 7, -3, .nan, .infinity, -.infinity] {
            evaluator.evaluate(at: t)
            for layer in 1...20 {
                // What the reference shows at such a progress is not finite either; the batch must
                // simply not read outside its tables (the fuzz target runs this under AddressSanitizer).
                #expect(evaluator.value(layer: LayerID(UInt64(layer)), property: "position") != nil)
            }
        }
    }

    @Test("§5.6 a paced path of zero length (points joined by moves) follows its elements at even key times, as the reference does")
    func pacedPathOfZeroLength() throws {
        var path = Path()
        path.move(to: Point(x: -18, y: 39))
        path.closeSubpath()
        path.move(to: Point(x: 5, y: 5))
        path.addLine(to: Point(x: 5, y: 5))
        path.move(to: Point(x: 40, y: -7))
        path.addCurve(to: Point(x: 40, y: -7), control1: Point(x: 40, y: -7), control2: Point(x: 40, y: -7))
        for mode in [CalculationMode.paced, .cubicPaced] {
            var a = KeyframeAnimation(keyPath: "position", path: path, calculationMode: mode, duration: 1)
            a.fillMode = .both
            a.isRemovedOnCompletion = false
            #expect(!a.followsPathAtConstantSpeed)
            let store = TrackStore()
            try store.setModelValue(.point(Point(x: 0, y: 0)), layer: LayerID(1), property: "position")
            try store.add(a, layer: LayerID(1))
            let evaluator = FrameEvaluator(store: store, configuration: FrameEvaluator.Configuration(maximumThreads: 1))
            for t in stride(from: 0.0, through: 1.0, by: 0.05) {
                evaluator.evaluate(at: t)
                let expected = ReferenceEvaluator.presentationValue(ofProperty: "position", model: .point(Point(x: 0, y: 0)), animations: [a], at: t)
                let got = try #require(evaluator.value(layer: LayerID(1), property: "position"))
                #expect(zip(got.components, expected.components).allSatisfy { abs($0 - $1) <= 1e-4 }, "\(mode) at \(t): \(got) against \(expected)")
            }
        }
    }
}

private extension PathMeasure {
    /// The reference angle at fraction `f` of the length, plus π for autoReverse.
    func angle(atFraction f: Double, reverse: Bool) -> Double {
        let d = tangent(atLength: f * length)
        return atan2(d.y, d.x) + (reverse ? Double.pi : 0)
    }

}
