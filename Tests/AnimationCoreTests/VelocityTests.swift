import AnimationCore
import Foundation
import Testing

/// The reference's velocity against differences of the reference's values: a fourth-order central
/// difference (h = 1e-5 s), whose truncation and rounding errors are below 1e-8 of the values here.
/// The bound is 1e-6 × max(1, |rate|, |difference|) per component (docs/velocity.md).
private func checkVelocities(model: [String: AnimationValue], animations: [any Animation], times: [Double],
                             sourceLocation: SourceLocation = #_sourceLocation) {
    let h = 1e-5
    func values(_ t: Double) -> [String: [Double]] {
        ReferenceEvaluator.presentationValues(model: model, animations: animations, at: t).mapValues(\.components)
    }
    var checked = 0
    for t in times {
        let rates = ReferenceEvaluator.presentationValuesWithRates(model: model, animations: animations, at: t)
        let (p1, m1, p2, m2) = (values(t + h), values(t - h), values(t + 2 * h), values(t - 2 * h))
        for (key, vr) in rates {
            let analytic = vr.rate.components
            #expect(vr.value.components == values(t)[key], "value of \(key) at \(t)", sourceLocation: sourceLocation)
            for k in analytic.indices {
                let numeric = (8 * (p1[key]![k] - m1[key]![k]) - (p2[key]![k] - m2[key]![k])) / (12 * h)
                let scale = max(1, abs(numeric), abs(analytic[k]))
                #expect(abs(analytic[k] - numeric) <= 1e-6 * scale,
                        "\(key)[\(k)] at t = \(t): \(analytic[k]) against \(numeric)", sourceLocation: sourceLocation)
                checked += 1
            }
        }
    }
    #expect(checked > 0, sourceLocation: sourceLocation)
}

/// Times spread over [a, b) from a fixed seed (a linear congruential sequence).
private func times(_ count: Int, in range: ClosedRange<Double>, seed: UInt64 = 1) -> [Double] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return range.lowerBound + (range.upperBound - range.lowerBound) * Double(state >> 11) / Double(1 << 53)
    }
}

private func rotated(_ angle: Double, scale: Double, tx: Double, perspective: Double = 0) -> Transform3D {
    var t = Transform3D.rotation(angle: angle, x: 0.3, y: 0.4, z: 1).concatenating(.scale(x: scale, y: 1.5 * scale, z: 1))
    t = t.concatenating(.translation(x: tx, y: -2 * tx, z: 0.5 * tx))
    t.m34 = perspective
    return t
}

@Suite("Velocity in the reference (docs/velocity.md)")
struct VelocityTests {
    @Test("a timing function's slope is its curve's dy/dx, one-sided at the ends, the limit where both derivatives vanish")
    func timingFunctionSlopeIsDyDx() throws {
        let functions: [TimingFunction] = [.linear, .easeIn, .easeOut, .easeInEaseOut, .default,
                                           try TimingFunction(controlPoints: 0.3, -0.8, 0.6, 1.9),
                                           try TimingFunction(controlPoints: 0.9, 0.1, 0.1, 0.9)]
        for f in functions {
            for x in stride(from: 0.01, through: 0.99, by: 0.049) {
                let h = 1e-6
                let numeric = (8 * (f.value(at: x + h) - f.value(at: x - h)) - (f.value(at: x + 2 * h) - f.value(at: x - 2 * h))) / (12 * h)
                #expect(abs(f.slope(at: x) - numeric) <= 1e-6 * max(1, abs(numeric)), "\(f) at \(x)")
            }
        }
        // easeOut = (0, 0, 0.58, 1): x′ and y′ vanish together at 0; the limit is y″/x″ = 1/0.58.
        #expect(abs(TimingFunction.easeOut.slope(at: 0) - 1 / 0.58) < 1e-12)
        #expect(abs(TimingFunction.easeIn.slope(at: 1) - 1 / 0.58) < 1e-12)
        #expect(TimingFunction.easeInEaseOut.slope(at: 0) == 0)
        #expect(TimingFunction.linear.slope(at: 0.3) == 1)
        let vertical = try TimingFunction(controlPoints: 0, 1, 1, 1)
        #expect(vertical.slope(at: 0).isFinite && vertical.slope(at: 0) > 1e6)
    }

    @Test("the progress rate is ±speed/duration while active, negative in a reversed half, zero in fills and pauses")
    func progressRateFollowsTheFold() {
        var timing = MediaTiming(beginTime: 0, duration: 2, speed: 3, repeatCount: 2, autoreverses: true, fillMode: .both)
        #expect(timing.state(atParentTime: 0.1).progressRate == 1.5)
        #expect(timing.state(atParentTime: 0.9).progressRate == -1.5)
        #expect(timing.state(atParentTime: -1).progressRate == 0)
        #expect(timing.state(atParentTime: 100).progressRate == 0)
        timing.speed = -3
        #expect(timing.state(atParentTime: 0.1).progressRate == 1.5)    // the reversed half, played backwards
        #expect(timing.state(atParentTime: 1.0).progressRate == -1.5)
        timing.speed = 0
        #expect(timing.state(atParentTime: 0.5).progressRate == 0)
        // Reversed play of an infinite autoreversing repeat reaches negative local times: the half
        // is the fold's own (the batch's velocity column found this). At parent time 0.8 the local
        // time is −0.3: the cycle's 1.7 of 2, the reversed half, progress rising as time runs on.
        let endless = MediaTiming(beginTime: 0.5, duration: 1, speed: -1, repeatCount: .infinity, autoreverses: true)
        #expect(endless.state(atParentTime: 0.8).progress == 0.30000000000000004 && endless.state(atParentTime: 0.8).progressRate == 1)
        #expect(endless.state(atParentTime: 1.8).progressRate == -1)   // local −1.3: 0.7 of the cycle, a forward half
    }

    @Test("basic animations of every value kind move at (to − from)·slope·rate, through speed, offsets, repeats and reversal")
    func basicVelocityMatchesDifferences() throws {
        let kinds: [(String, AnimationValue, AnimationValue)] = [
            ("opacity", .scalar(0.2), .scalar(0.9)),
            ("position", .point(Point(x: -3, y: 4)), .point(Point(x: 50, y: -20))),
            ("bounds", .rect(Rect(x: 0, y: 1, width: 10, height: 20)), .rect(Rect(x: 5, y: -1, width: 30, height: 2))),
            ("backgroundColor", .color(Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 1)), .color(Color(red: 0.9, green: 0.5, blue: 0, alpha: 0.5))),
            ("transform", .transform(rotated(0.2, scale: 1, tx: 3)), .transform(rotated(2.4, scale: 2, tx: -5, perspective: -0.002))),
        ]
        for (key, from, to) in kinds {
            var a = BasicAnimation(keyPath: key)
            (a.fromValue, a.toValue) = (from, to)
            a.duration = 1.5
            a.timingFunction = try TimingFunction(controlPoints: 0.3, -0.4, 0.7, 1.3)
            a.speed = 1.7
            a.timeOffset = 0.2
            a.repeatCount = 2.5
            a.autoreverses = true
            checkVelocities(model: [key: from], animations: [a], times: times(12, in: 0...4.4))
            a.speed = -0.8
            checkVelocities(model: [key: from], animations: [a], times: times(12, in: 0...9, seed: 2))
        }
    }

    @Test("additive and from-less animations over a moving base add the base's rate; cumulative ones add n·(end′ − start′)")
    func compositionAddsRates() {
        for (key, model, by) in [("position", AnimationValue.point(Point(x: 1, y: 2)), AnimationValue.point(Point(x: 30, y: -7))),
                                 ("transform", .transform(rotated(0.1, scale: 1, tx: 0)), .transform(rotated(0.7, scale: 1.2, tx: 4)))] {
            var under = BasicAnimation(keyPath: key)
            under.byValue = by
            under.duration = 3
            under.timingFunction = .easeInEaseOut
            var additive = BasicAnimation(keyPath: key)
            (additive.fromValue, additive.toValue) = (AnimationValue.additiveIdentity(of: model.kind), by)
            additive.isAdditive = true
            additive.duration = 0.7
            additive.repeatCount = 3
            additive.isCumulative = true
            var fromOnly = BasicAnimation(keyPath: key)
            fromOnly.fromValue = by
            fromOnly.duration = 1.3
            fromOnly.timingFunction = .easeOut
            fromOnly.isCumulative = true
            fromOnly.repeatCount = 2
            checkVelocities(model: [key: model], animations: [under, additive], times: times(10, in: 0...2.1))
            checkVelocities(model: [key: model], animations: [under, fromOnly], times: times(10, in: 0...2.6, seed: 3))
        }
    }

    @Test("groups chain their timing functions' slopes and durations into the children's rates")
    func groupsChainRates() throws {
        var child = scalarAnimation(from: -5, to: 40) { $0.duration = 0.8; $0.timingFunction = .easeIn; $0.autoreverses = true }
        child.beginTime = 0.3
        var inner = AnimationGroup(animations: [child], duration: 2)
        inner.timingFunction = .easeInEaseOut
        inner.speed = 1.5
        var outer = AnimationGroup(animations: [inner], duration: 3)
        outer.timingFunction = try TimingFunction(controlPoints: 0.2, 0.8, 0.4, 0.1)
        outer.repeatCount = 2
        checkVelocities(model: ["opacity": .scalar(0)], animations: [outer], times: times(20, in: 0...6))
    }

    @Test("springs move at the closed form's rate: v0·(to − from)/s at their start, and through every damping regime")
    func springsMoveAtTheClosedFormRate() {
        for (damping, velocity) in [(4.0, 3.0), (20.0, -2.0), (35.0, 1.0)] {
            var s = SpringAnimation(keyPath: "position")
            (s.fromValue, s.toValue) = (.point(Point(x: 0, y: 10)), .point(Point(x: 100, y: -10)))
            s.damping = damping
            s.allowsOverdamping = true
            s.initialVelocity = velocity
            s.duration = 2
            checkVelocities(model: ["position": .point(.zero)], animations: [s], times: times(12, in: 0...1.99))
            let start = ReferenceEvaluator.presentationValuesWithRates(model: ["position": .point(.zero)], animations: [s], at: 0)
            #expect(abs(start["position"]!.rate.components[0] - velocity * 100) < 1e-9)
        }
    }

    @Test("keyframes move along their segment in every calculation mode; discrete ones do not move")
    func keyframesMoveAlongTheirSegments() throws {
        let values: [AnimationValue] = [.point(Point(x: 0, y: 0)), .point(Point(x: 40, y: 10)), .point(Point(x: 45, y: 80)), .point(Point(x: -20, y: 30))]
        for mode in CalculationMode.allCases {
            var k = KeyframeAnimation(keyPath: "position")
            k.values = values
            k.calculationMode = mode
            if mode == .linear || mode == .cubic { k.keyTimes = [0, 0.2, 0.7, 1] }
            k.timingFunctions = [.easeIn, .easeOut, .default]
            k.timingFunction = .easeInEaseOut
            k.tensionValues = [0, 0.5, -0.3, 0]
            k.duration = 2
            k.isCumulative = true
            k.repeatCount = 2
            checkVelocities(model: ["position": .point(.zero)], animations: [k], times: times(14, in: 0...3.9, seed: 5))
            if mode == .discrete {
                let r = ReferenceEvaluator.presentationValuesWithRates(model: ["position": .point(.zero)], animations: [k], at: 0.5)
                #expect(r["position"]!.rate == .point(.zero))
            }
        }
        var transforms = KeyframeAnimation(keyPath: "transform")
        transforms.values = [.transform(rotated(0, scale: 1, tx: 0)), .transform(rotated(1.2, scale: 2, tx: 3)), .transform(rotated(-0.5, scale: 0.5, tx: -4))]
        transforms.duration = 1
        checkVelocities(model: ["transform": .transform(.identity)], animations: [transforms], times: times(8, in: 0...0.99))
    }

    @Test("paths move at tangent × speed and turn their rotation at the curvature × speed")
    func pathsMoveAlongTheirTangent() {
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addCurve(to: Point(x: 100, y: 0), control1: Point(x: 20, y: 80), control2: Point(x: 70, y: -60))
        path.addLine(to: Point(x: 100, y: 50))
        path.addQuadCurve(to: Point(x: 0, y: 50), control: Point(x: 50, y: 120))
        for mode in [CalculationMode.linear, .paced, .cubic, .cubicPaced] {
            for rotation in [RotationMode?.none, .auto, .autoReverse] {
                var k = KeyframeAnimation(keyPath: "position", path: path, calculationMode: mode, rotationMode: rotation, duration: 2.5)
                k.timingFunction = .easeInEaseOut
                let model: [String: AnimationValue] = ["position": .point(.zero), "transform": .transform(.scale(x: 2, y: 1, z: 1))]
                checkVelocities(model: model, animations: [k], times: times(12, in: 0...2.49, seed: 7))
            }
        }
    }

    @Test("key-path fields and value functions: transform.rotation.z, scale and translation over a moving transform")
    func fieldsAndValueFunctionsMove() {
        var under = BasicAnimation(keyPath: "transform")
        (under.fromValue, under.toValue) = (.transform(rotated(0.3, scale: 1, tx: 1)), .transform(rotated(1.1, scale: 1.6, tx: -2)))
        under.duration = 2
        let model: [String: AnimationValue] = ["transform": .transform(.identity)]
        for (keyPath, from, to) in [("transform.rotation.z", 0.2, 2.0), ("transform.scale.x", 0.5, 3.0), ("transform.translation.y", -4.0, 9.0),
                                    ("transform.rotation.x", 0.1, 0.6)] {
            var field = BasicAnimation(keyPath: keyPath)
            (field.fromValue, field.toValue) = (.scalar(from), .scalar(to))
            field.duration = 1.5
            field.timingFunction = .easeIn
            checkVelocities(model: model, animations: [under, field], times: times(8, in: 0...1.49, seed: 11))
            field.isAdditive = true
            checkVelocities(model: model, animations: [under, field], times: times(8, in: 0...1.49, seed: 12))
        }
        for function in ValueFunction.allCases {
            var a = BasicAnimation(keyPath: "transform")
            (a.fromValue, a.toValue) = (.scalar(0.5), .scalar(2.5))
            a.valueFunction = function
            a.duration = 1
            a.isAdditive = true
            checkVelocities(model: model, animations: [under, a], times: times(6, in: 0...0.99, seed: 13))
        }
    }

    @Test("affine transforms move as the 3-D transforms they embed in")
    func affineTransformsMove() {
        var a = BasicAnimation(keyPath: "affineTransform")
        a.fromValue = .affineTransform(AffineTransform(a: 1, b: 0.2, c: -0.1, d: 1.5, tx: 3, ty: 4))
        a.toValue = .affineTransform(AffineTransform(a: -0.5, b: 1, c: -1.2, d: 0.3, tx: -8, ty: 1))
        a.duration = 1
        checkVelocities(model: ["affineTransform": .affineTransform(.identity)], animations: [a], times: times(8, in: 0...0.99))
    }

    @Test("outside the active duration, filled or not, nothing moves")
    func fillsDoNotMove() {
        let a = scalarAnimation { $0.fillMode = .both; $0.beginTime = 1 }
        for t in [0.5, 2.5] {
            let r = ReferenceEvaluator.presentationValuesWithRates(model: ["opacity": .scalar(0)], animations: [a], at: t)
            #expect(r["opacity"]!.rate == .scalar(0))
        }
    }
}
