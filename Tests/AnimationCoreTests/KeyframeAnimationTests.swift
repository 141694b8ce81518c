import AnimationCore
import Foundation
import PropertyBased
import Testing

func keyframes(_ values: [AnimationValue], keyTimes: [Double]? = nil, mode: CalculationMode = .linear,
               _ configure: (inout KeyframeAnimation) -> Void = { _ in }) -> KeyframeAnimation {
    var a = KeyframeAnimation(keyPath: "opacity")
    a.values = values
    a.keyTimes = keyTimes
    a.calculationMode = mode
    a.duration = 1
    configure(&a)
    return a
}

func pointValue(_ a: KeyframeAnimation, at t: Double) -> Point? {
    ReferenceEvaluator.sample(a, at: t, base: .point(.zero)).value?.value(as: Point.self)
}

@Suite("KeyframeAnimation (semantics §5)")
struct KeyframeAnimationTests {
    // MARK: §5.1

    @Test("§5.1 a path overrides values and needs a point key path")
    func pathOverridesValues() throws {
        var path = Path()
        path.addLines(between: [Point(x: 0, y: 0), Point(x: 10, y: 0)])
        var a = KeyframeAnimation(keyPath: "position", path: path, duration: 1)
        a.values = [.point(Point(x: 99, y: 99))]
        #expect(pointValue(a, at: 0.5) == Point(x: 5, y: 0))
        try a.validate(forPropertyKind: .point)
        a.keyPath = "opacity"
        #expect(throws: AnimationError.self) { try a.validate(forPropertyKind: .scalar) }
    }

    // MARK: §5.2, §5.3

    @Test("§17 #10 linear values [0, 10, 30] without keyTimes: t = 0.25 → 5, t = 0.75 → 20")
    func example10UniformKeyTimes() {
        let a = keyframes([0, 10, 30])
        #expect(scalarValue(a, at: 0.25) == 5)
        #expect(scalarValue(a, at: 0.75) == 20)
        #expect(a.effectiveKeyTimes == [0, 0.5, 1])
    }

    @Test("§17 #11 discrete [A, B, C] with keyTimes [0, .5, .9, 1]: t = .49 / .5 / .95 → A / B / C")
    func example11DiscreteNPlusOneKeyTimes() {
        let a = keyframes([1, 2, 3], keyTimes: [0, 0.5, 0.9, 1], mode: .discrete)
        #expect(scalarValue(a, at: 0.49) == 1)
        #expect(scalarValue(a, at: 0.5) == 2)
        #expect(scalarValue(a, at: 0.95) == 3)
    }

    @Test("§5.3 default discrete key times are i/n: each value for 1/n, the last only via fill")
    func discreteDefaultKeyTimes() {
        var a = keyframes([1, 2, 3, 4], mode: .discrete)
        #expect(a.effectiveKeyTimes == [0, 0.25, 0.5, 0.75, 1])
        #expect(scalarValue(a, at: 0.2) == 1)
        #expect(scalarValue(a, at: 0.8) == 4)
        a.fillMode = .forwards
        a.isRemovedOnCompletion = false
        #expect(scalarValue(a, at: 5) == 4)
        let lenient = keyframes([1, 2, 3], keyTimes: [0, 0.5, 0.9], mode: .discrete)
        #expect(throws: Never.self) { try lenient.validate() }
        #expect(scalarValue(lenient, at: 0.95) == 3)
    }

    @Test("§5.2 keyTimes of the wrong count, outside [0, 1], NaN or decreasing are rejected, naming the field")
    func invalidKeyTimesAreRejected() {
        #expect(throws: AnimationError(field: "keyTimes", reason: "needs one entry per values (3) in linear mode (got 2)")) {
            try keyframes([0, 1, 2], keyTimes: [0, 1]).validate()
        }
        #expect(throws: AnimationError(field: "keyTimes", reason: "needs one entry more than the values (3) in discrete mode (got 5)")) {
            try keyframes([0, 1, 2], keyTimes: [0, 0.1, 0.2, 0.3, 1], mode: .discrete).validate()
        }
        #expect(throws: AnimationError(field: "keyTimes[1]", reason: "must be in [0, 1] (got 1.5)")) {
            try keyframes([0, 1, 2], keyTimes: [0, 1.5, 1]).validate()
        }
        #expect(throws: AnimationError(field: "keyTimes[1]", reason: "must be in [0, 1] (got nan)")) {
            try keyframes([0, 1, 2], keyTimes: [0, .nan, 1]).validate()
        }
        #expect(throws: AnimationError(field: "keyTimes", reason: "must be non-decreasing (keyTimes[2] = 0.3 after 0.5)")) {
            try keyframes([0, 1, 2, 3], keyTimes: [0, 0.5, 0.3, 1]).validate()
        }
        #expect(throws: Never.self) { try keyframes([0, 1, 2], keyTimes: [0, 9], mode: .paced).validate() }  // ignored
    }

    @Test("empty or mixed values, bad TCB parameters and empty paths are rejected")
    func invalidKeyframeDataIsRejected() {
        #expect(throws: AnimationError(field: "values", reason: "must not be empty (or set path)")) { try keyframes([]).validate() }
        #expect(throws: AnimationError(field: "values[1]", reason: "is a point but values[0] is a scalar")) {
            try keyframes([0, .point(.zero)]).validate()
        }
        #expect(throws: AnimationError(field: "tensionValues[0]", reason: "must be finite (got nan)")) {
            try keyframes([0, 1], mode: .cubic) { $0.tensionValues = [.nan] }.validate()
        }
        var empty = KeyframeAnimation(keyPath: "position")
        empty.path = Path()
        #expect(throws: AnimationError(field: "path", reason: "is empty")) { try empty.validate() }
        var nan = Path()
        nan.move(to: .zero)
        nan.addLine(to: Point(x: .nan, y: 1))
        empty.path = nan
        #expect(throws: AnimationError(field: "path.elements[1]", reason: "has a non-finite point")) { try empty.validate() }
    }

    @Test("more than a million keyframes (values, key times, timing functions, …) are refused, naming the field")
    func tooManyKeyframesAreRefused() {
        let limit = KeyframeAnimation.maximumKeyframeCount
        var animation = keyframes([0, 1])
        animation.timingFunctions = Array(repeating: .linear, count: limit + 1)
        #expect(throws: AnimationError(field: "timingFunctions", reason: "has \(limit + 1) entries (at most \(limit))")) {
            try animation.validate()
        }
        animation.timingFunctions = Array(repeating: .linear, count: limit)   // at the bound: accepted
        #expect(throws: Never.self) { try animation.validate() }
        var times = keyframes([0, 1])
        times.keyTimes = Array(repeating: 0.5, count: limit + 1)
        #expect(throws: AnimationError(field: "keyTimes", reason: "has \(limit + 1) entries (at most \(limit))")) { try times.validate() }
    }

    @Test("§5.2 key times whose ends are inside (0, 1) hold the first and last values outside them")
    func innerKeyTimesHoldEnds() {
        let a = keyframes([10, 20], keyTimes: [0.2, 0.6])
        #expect(scalarValue(a, at: 0.1) == 10)
        #expect(scalarValue(a, at: 0.4) == 15)
        #expect(scalarValue(a, at: 0.8) == 20)
    }

    // MARK: §5.4

    @Test("§5.4 the animation's function first, then the segment's own")
    func timingPipeline() throws {
        let a = keyframes([0, 10, 30]) {
            $0.timingFunction = .easeIn
            $0.timingFunctions = [.easeOut]
        }
        let t = 0.4
        let p1 = TimingFunction.easeIn.value(at: t)
        let expected = p1 < 0.5 ? 10 * TimingFunction.easeOut.value(at: p1 / 0.5) : 10 + 20 * (p1 - 0.5) / 0.5
        #expect(abs(try #require(scalarValue(a, at: t)) - expected) < 1e-12)
        let late = 0.9
        let q = (TimingFunction.easeIn.value(at: late) - 0.5) / 0.5   // segment 1 has no function: linear
        #expect(abs(try #require(scalarValue(a, at: late)) - (10 + 20 * q)) < 1e-12)
    }

    @Test("§5.4 equal key times jump: the later value wins")
    func zeroLengthSegmentJumps() {
        let a = keyframes([0, 10, 50, 60], keyTimes: [0, 0.5, 0.5, 1])
        #expect(scalarValue(a, at: 0.4999) ?? 0 < 10)
        #expect(scalarValue(a, at: 0.5) == 50)
        #expect(scalarValue(a, at: 0.75) == 55)
    }

    // MARK: §5.5

    @Test("§5.5 linear mode interpolates every value kind, transforms by decomposition")
    func linearModeForEveryKind() {
        let colors = keyframes([.color(.black), .color(.white)])
        #expect(ReferenceEvaluator.sample(colors, at: 0.5, base: .color(.clear)).value == .color(Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1)))
        let turns = keyframes([.transform(.identity), .transform(.rotation(angle: 1, x: 0, y: 0, z: 1))])
        guard case .transform(let m)? = ReferenceEvaluator.sample(turns, at: 0.5, base: .transform(.identity)).value else {
            Issue.record("not a transform")
            return
        }
        #expect(abs(zAngle(m) - 0.5) < 1e-12)
    }

    @Test("§5.5 paced mode: key times from distances, constant speed, keyTimes and functions ignored")
    func pacedModeHasConstantSpeed() {
        let a = keyframes([0, 10, 40], keyTimes: [0, 0.9, 1], mode: .paced) {
            $0.timingFunction = .easeIn
            $0.timingFunctions = [.easeOut, .easeOut]
        }
        #expect(a.effectiveKeyTimes == [0, 0.25, 1])
        for t in stride(from: 0.0, to: 1, by: 0.05) {
            #expect(abs(scalarValue(a, at: t)! - 40 * t) < 1e-12)
        }
        let still = keyframes([5, 5, 5], mode: .paced)
        #expect(still.effectiveKeyTimes == [0, 0.5, 1])   // all-zero distances fall back to even
        let points = keyframes([.point(.zero), .point(Point(x: 3, y: 4)), .point(Point(x: 3, y: 14))], mode: .paced)
        #expect(points.effectiveKeyTimes == [0, 1.0 / 3, 1])
    }

    @Test("§5.5 cubic mode is Catmull–Rom through the values with default TCB")
    func cubicModeIsCatmullRom() throws {
        let values: [Double] = [0, 10, 5, 20]
        let a = keyframes(values.map { .scalar($0) }, mode: .cubic)
        for i in 0..<values.count - 1 {
            #expect(abs(try #require(scalarValue(a, at: Double(i) / 3)) - values[i]) < 1e-12)
        }
        // Catmull–Rom on segment 1 (10 → 5): outgoing tangent at key 1 (5 − 0)/2 = 2.5, incoming at
        // key 2 (20 − 10)/2 = 5.
        let q = 0.5
        let (h00, h10, h01, h11) = (2 * q * q * q - 3 * q * q + 1, q * q * q - 2 * q * q + q, -2 * q * q * q + 3 * q * q, q * q * q - q * q)
        let expected = h00 * 10 + h10 * 2.5 + h01 * 5 + h11 * 5
        #expect(abs(try #require(scalarValue(a, at: 1.5 / 3)) - expected) < 1e-12)
        // End rule v₋₁ = v₀: the first tangent is half the first chord.
        let first = 0.25
        let (e00, e10, e01, e11) = (2 * first * first * first - 3 * first * first + 1, first * first * first - 2 * first * first + first,
                                    -2 * first * first * first + 3 * first * first, first * first * first - first * first)
        #expect(abs(try #require(scalarValue(a, at: first / 3)) - (e00 * 0 + e10 * 5 + e01 * 10 + e11 * 2.5)) < 1e-12)
    }

    @Test("§5.5 tension 1 flattens the tangents; continuity +1 makes sharp corners; bias shifts them")
    func kochanekBartelsParameters() throws {
        let tight = keyframes([0, 10, 0], mode: .cubic) { $0.tensionValues = [1, 1, 1] }
        let q = 0.25
        let linearBlend = (2 * q * q * q - 3 * q * q + 1) * 0 + (-2 * q * q * q + 3 * q * q) * 10
        #expect(abs(try #require(scalarValue(tight, at: q / 2)) - linearBlend) < 1e-12)
        // C = +1: the curve leaves key 1 along the next chord and arrives along the previous one.
        let sharp = keyframes([0, 10, 10], mode: .cubic) { $0.continuityValues = [0, 1, 0] }
        let before = try #require(scalarValue(sharp, at: 0.5 - 1e-6)), after = try #require(scalarValue(sharp, at: 0.5 + 1e-6))
        #expect(abs((10 - before) / 1e-6 - 20) < 1e-3)   // incoming slope: the chord 0 → 10 per half
        #expect(abs((after - 10) / 1e-6) < 1e-3)         // outgoing slope: the flat chord 10 → 10
        let biased = keyframes([0, 10, 0], mode: .cubic) { $0.biasValues = [0, 1, 0] }
        let plain = keyframes([0, 10, 0], mode: .cubic)
        #expect(try #require(scalarValue(biased, at: 0.4)) != (try #require(scalarValue(plain, at: 0.4))))
    }

    @Test("§5.5 non-uniform key times scale the tangents")
    func nonUniformKeyTimesScaleTangents() throws {
        let a = keyframes([0, 10, 20], keyTimes: [0, 0.2, 1], mode: .cubic)
        // Key 1: chord-based tangent 10, outgoing scaled by 2·0.8/1.0, incoming by 2·0.2/1.0.
        let slopeIn = (10 - (try #require(scalarValue(a, at: 0.2 - 1e-7)))) / 1e-7
        let slopeOut = ((try #require(scalarValue(a, at: 0.2 + 1e-7))) - 10) / 1e-7
        #expect(abs(slopeIn - 10 * 0.4 / 0.2) < 1e-3)
        #expect(abs(slopeOut - 10 * 1.6 / 0.8) < 1e-3)
    }

    @Test("§5.5 cubicPaced moves at constant speed along the spline")
    func cubicPacedHasConstantSpeed() throws {
        let a = keyframes([.point(.zero), .point(Point(x: 100, y: 0)), .point(Point(x: 100, y: 100)), .point(Point(x: 0, y: 300))],
                          keyTimes: [0, 0.1, 0.2, 1], mode: .cubicPaced) { $0.timingFunction = .easeIn }
        var previous = try #require(pointValue(a, at: 0))
        var steps: [Double] = []
        for k in 1...200 {
            let p = try #require(pointValue(a, at: Double(k) / 200 * 0.9999))
            steps.append(distance(previous, p))
            previous = p
        }
        let mean = steps.reduce(0, +) / Double(steps.count)
        #expect(steps.allSatisfy { abs($0 - mean) < 2e-3 * mean })
        #expect(pointValue(a, at: 0) == Point(x: 0, y: 0))
    }

    @Test("§5.5 transforms in cubic modes interpolate linearly by decomposition; cubicPaced is paced")
    func cubicTransformsFallBackToLinear() {
        let values: [AnimationValue] = [.transform(.identity), .transform(.translation(x: 10, y: 0)), .transform(.translation(x: 10, y: 30))]
        let cubic = keyframes(values, mode: .cubic), linear = keyframes(values)
        for t in [0.1, 0.4, 0.8] {
            #expect(ReferenceEvaluator.sample(cubic, at: t, base: .transform(.identity)).value == ReferenceEvaluator.sample(linear, at: t, base: .transform(.identity)).value)
        }
        let cubicPaced = keyframes(values, mode: .cubicPaced), paced = keyframes(values, mode: .paced)
        #expect(cubicPaced.effectiveKeyTimes == paced.effectiveKeyTimes)
        for t in [0.1, 0.4, 0.8] {
            #expect(ReferenceEvaluator.sample(cubicPaced, at: t, base: .transform(.identity)).value == ReferenceEvaluator.sample(paced, at: t, base: .transform(.identity)).value)
        }
    }

    // MARK: §5.6

    @Test("§5.6 path keyframes: every element but a move, spread evenly by count, curves by Bézier parameter")
    func pathKeyframesByCount() throws {
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 100, y: 0))     // long
        path.addLine(to: Point(x: 100, y: 10))    // short
        path.addCurve(to: Point(x: 0, y: 10), control1: Point(x: 90, y: 40), control2: Point(x: 0, y: 40))
        let a = KeyframeAnimation(keyPath: "position", path: path, duration: 3)
        let thirds: [Double] = [0, 1.0 / 3, 2.0 / 3, 1]
        #expect(a.effectiveKeyTimes == thirds)
        #expect(pointValue(a, at: 0.5) == Point(x: 50, y: 0))
        #expect(distance(try #require(pointValue(a, at: 1.5)), Point(x: 100, y: 5)) < 1e-12)
        let onCurve = try #require(pointValue(a, at: 2.5))
        let t = 0.5, s = 1 - t
        let expected = Point(x: s * s * s * 100 + 3 * s * s * t * 90 + 3 * s * t * t * 0 + t * t * t * 0,
                             y: s * s * s * 10 + 3 * s * s * t * 40 + 3 * s * t * t * 40 + t * t * t * 10)
        #expect(distance(onCurve, expected) < 1e-12)
    }

    @Test("§5.6 an ellipse animated linearly rests for the last fifth (the close segment)")
    func ellipseRestsForLastFifth() throws {
        var ellipse = Path()
        ellipse.addEllipse(in: Rect(x: 0, y: 0, width: 100, height: 60))
        let a = KeyframeAnimation(keyPath: "position", path: ellipse, duration: 5)
        #expect(a.effectiveKeyTimes.count == 6)
        let restingPoint = Point(x: 100, y: 30)
        for t in [4.0, 4.3, 4.9] { #expect(pointValue(a, at: t) == restingPoint) }
        #expect(try #require(pointValue(a, at: 3.9)) != restingPoint)
        let paced = KeyframeAnimation(keyPath: "position", path: ellipse, calculationMode: .paced, duration: 5)
        #expect(try #require(pointValue(paced, at: 4.5)) != restingPoint)   // paced gives the close no time
    }

    @Test("§5.6 a move in the middle jumps; paced follows the path at constant speed")
    func moveInMiddleJumps() throws {
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 10, y: 0))
        path.move(to: Point(x: 100, y: 100))
        path.addLine(to: Point(x: 130, y: 100))
        let paced = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, duration: 1)
        #expect(pointValue(paced, at: 0.2) == Point(x: 8, y: 0))
        #expect(pointValue(paced, at: 0.25) == Point(x: 100, y: 100))
        #expect(pointValue(paced, at: 0.5) == Point(x: 110, y: 100))
        let linear = KeyframeAnimation(keyPath: "position", path: path, duration: 1)
        #expect(pointValue(linear, at: 0.49) == Point(x: 9.8, y: 0))
        #expect(pointValue(linear, at: 0.5) == Point(x: 100, y: 100))
        var dot = Path()
        dot.move(to: Point(x: 7, y: 8))
        #expect(pointValue(KeyframeAnimation(keyPath: "position", path: dot, duration: 1), at: 0.5) == Point(x: 7, y: 8))
    }

    @Test("§5.6 a zero-length path in paced mode falls back to even spacing")
    func zeroLengthPacedPath() {
        var path = Path()
        path.move(to: Point(x: 1, y: 1))
        path.addLine(to: Point(x: 1, y: 1))
        let a = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, duration: 1)
        #expect(pointValue(a, at: 0.5) == Point(x: 1, y: 1))
    }

    // MARK: §5.7

    @Test("§5.7 rotationMode auto adds the tangent angle; autoReverse adds π more")
    func rotationModeFollowsTangent() throws {
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 10, y: 10))
        var a = KeyframeAnimation(keyPath: "position", path: path, rotationMode: .auto, duration: 1)
        let state = a.timing.state(atParentTime: 0.5)
        let quarter: Double = .pi / 4
        #expect(abs(try #require(a.rotationAngle(in: state)) - quarter) < 1e-15)
        a.rotationMode = .autoReverse
        #expect(abs(try #require(a.rotationAngle(in: state)) - 5 * quarter) < 1e-15)
        a.rotationMode = nil
        #expect(a.rotationAngle(in: state) == nil)
        let shown = ReferenceEvaluator.presentationValues(
            model: ["position": .point(.zero), "transform": .transform(.scale(x: 2, y: 2))],
            animations: [KeyframeAnimation(keyPath: "position", path: path, rotationMode: .auto, duration: 1)], at: 0.5)
        #expect(shown["position"] == .point(Point(x: 5, y: 5)))
        guard case .transform(let m)? = shown["transform"] else { Issue.record("no transform"); return }
        #expect(maxDifference(m, Transform3D.rotation(angle: .pi / 4, x: 0, y: 0, z: 1).concatenating(.scale(x: 2, y: 2))) < 1e-15)
    }

    @Test("§5.7 at a zero-length segment the previous angle is kept")
    func rotationKeepsPreviousAngleAtZeroLength() throws {
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 0, y: 10))
        path.addLine(to: Point(x: 0, y: 10))
        let a = KeyframeAnimation(keyPath: "position", path: path, rotationMode: .auto, duration: 2)
        #expect(abs(try #require(a.rotationAngle(in: a.timing.state(atParentTime: 1.5))) - .pi / 2) < 1e-15)
    }

    // MARK: §4.3, §4.4 for keyframes

    @Test("§4.4 cumulative keyframes add k · (last − first)")
    func cumulativeKeyframes() {
        let a = keyframes([0, 10, 4]) { $0.isCumulative = true; $0.repeatCount = 3 }
        let value: Double? = scalarValue(a, at: 2.25)
        #expect(value == 13)   // iteration 2: 5 + 2 · (4 − 0)
    }

    @Test("§4.3 additive keyframes add to the base")
    func additiveKeyframes() {
        let a = keyframes([0, 10]) { $0.isAdditive = true }
        #expect(scalarValue(a, at: 0.5, base: 100) == 105)
    }

    // MARK: seed scenes

    @Test("seed (b): a circle from two addArc calls followed in paced mode: equal times, equal arc lengths")
    func seedPacedCircle() throws {
        var circle = Path()
        circle.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: .pi, endAngle: 0, clockwise: false)
        circle.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: 0, endAngle: .pi, clockwise: false)
        let a = KeyframeAnimation(keyPath: "position", path: circle, calculationMode: .paced, duration: 4)
        let measure = PathMeasure(circle)
        var previousAngle = Double.pi
        for k in 1..<40 {
            let p = try #require(pointValue(a, at: 4 * Double(k) / 40))
            #expect(abs(distance(p, Point(x: 200, y: 200)) - 100) < 2.73e-4 * 100)
            var angle = atan2(p.y - 200, p.x - 200)
            while angle < previousAngle { angle += 2 * .pi }
            #expect(abs(angle - previousAngle - 2 * .pi / 40) < 2e-4)   // equal steps round the circle
            previousAngle = angle
            #expect(distance(p, measure.point(atLength: measure.length * Double(k) / 40)) < 1e-9)
        }
    }

    @Test("seed (c): a half-circle arc rotated toward a tapped point ends exactly there")
    func seedArcToTappedPoint() throws {
        let start = Point(x: 50, y: 300), target = Point(x: 250, y: 120)
        let mid = Point(x: (start.x + target.x) / 2, y: (start.y + target.y) / 2)
        let radius = distance(start, target) / 2
        let angle = atan2(target.y - start.y, target.x - start.x)
        var arc = Path()
        arc.addArc(center: .zero, radius: radius, startAngle: .pi, endAngle: 0, clockwise: true,
                   transform: AnimationCore.AffineTransform.rotation(angle: angle).concatenating(.translation(x: mid.x, y: mid.y)))
        var move = KeyframeAnimation(keyPath: "position", path: arc, calculationMode: .paced, rotationMode: .auto, duration: 0.8)
        move.fillMode = .forwards
        move.isRemovedOnCompletion = false
        move.timingFunction = .easeInEaseOut
        let begin = try #require(pointValue(move, at: 0)), end = try #require(pointValue(move, at: 5))
        #expect(distance(begin, start) < 1e-12)
        #expect(distance(end, target) < 1e-12)
        let halfway = try #require(pointValue(move, at: 0.4))
        #expect(abs(distance(halfway, mid) - radius) < 2.73e-4 * radius)
    }

    @Test("property: paced mode gives constant speed within the path's precision")
    func pacedSpeedIsConstant() async {
        let coordinate = Gen.double(in: -200...200)
        await propertyCheck(count: 30, input: coordinate, coordinate, coordinate, coordinate, coordinate, coordinate) { a, b, c, d, e, f in
            var path = Path()
            path.move(to: Point(x: a, y: b))
            path.addQuadCurve(to: Point(x: c, y: d), control: Point(x: e, y: f))
            path.addLine(to: Point(x: f, y: a))
            path.addCurve(to: Point(x: b, y: c), control1: Point(x: d, y: e), control2: Point(x: a, y: f))
            let animation = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, duration: 1)
            let measure = PathMeasure(path)
            guard measure.length > 1e-6 else { return }
            // Equal times cover equal lengths: the prefix up to each sample is t · L.
            for k in 1...9 {
                let t = Double(k) / 10
                guard let p = pointValue(animation, at: t) else { Issue.record("no value"); return }
                let prefix = measure.trimmed(from: 0, to: t)
                #expect(distance(prefix.currentPoint ?? .zero, p) <= 1e-9 * measure.length)
            }
        }
    }
}
