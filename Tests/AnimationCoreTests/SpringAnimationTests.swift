import AnimationCore
import Foundation
import PropertyBased
import Testing

/// x(t) of m·x″ + c·x′ + k·x = 0, x(0) = 1, x′(0) = −v0, by 4th-order Runge–Kutta with a fine step.
func integratedDisplacement(at t: Double, mass m: Double, stiffness k: Double, damping c: Double, v0: Double) -> Double {
    let steps = max(1, Int(t / 1e-4))
    let h = t / Double(steps)
    var x = 1.0, v = -v0
    func accel(_ x: Double, _ v: Double) -> Double { (-k * x - c * v) / m }
    for _ in 0..<steps {
        let k1x = v, k1v = accel(x, v)
        let k2x = v + 0.5 * h * k1v, k2v = accel(x + 0.5 * h * k1x, v + 0.5 * h * k1v)
        let k3x = v + 0.5 * h * k2v, k3v = accel(x + 0.5 * h * k2x, v + 0.5 * h * k2v)
        let k4x = v + h * k3v, k4v = accel(x + h * k3x, v + h * k3v)
        x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    }
    return x
}

func spring(damping: Double = 10, stiffness: Double = 100, mass: Double = 1, velocity: Double = 0, overdamping: Bool = false) -> SpringAnimation {
    var s = SpringAnimation(keyPath: "position.x")
    s.fromValue = 0
    s.toValue = 100
    s.damping = damping
    s.stiffness = stiffness
    s.mass = mass
    s.initialVelocity = velocity
    s.allowsOverdamping = overdamping
    s.duration = 5
    return s
}

@Suite("SpringAnimation (semantics §6)")
struct SpringAnimationTests {
    @Test("§6.1 defaults: mass 1, stiffness 100, damping 10, initial velocity 0")
    func defaults() {
        let s = SpringAnimation(keyPath: "opacity")
        #expect(s.mass == 1 && s.stiffness == 100 && s.damping == 10 && s.initialVelocity == 0 && !s.allowsOverdamping)
    }

    @Test("§6.1 positive initial velocity moves toward the target")
    func positiveVelocityMovesTowardTarget() {
        let still = spring(velocity: 0), pushed = spring(velocity: 20), pulled = spring(velocity: -20)
        #expect(pushed.response(at: 0.02) > still.response(at: 0.02))
        #expect(pulled.response(at: 0.02) < 0)
        #expect(abs(pushed.response(at: 1e-6) / 1e-6 - 20) < 1e-3)   // y′(0) = v0
    }

    @Test("§6.2 the closed forms match the integrated equation of motion in every regime")
    func closedFormMatchesIntegration() {
        let cases: [(damping: Double, overdamping: Bool, velocity: Double)] = [
            (5, false, 0), (15, false, 3), (20, false, -4), (20 + 1e-7, true, 2), (35, true, 0), (80, true, 10), (0, false, 1),
        ]
        for c in cases {
            let s = spring(damping: c.damping, velocity: c.velocity, overdamping: c.overdamping)
            let effectiveDamping = 2 * s.dampingRatio * (s.stiffness * s.mass).squareRoot()
            for t in [0.0, 0.05, 0.2, 0.7, 1.5, 3] {
                let x = integratedDisplacement(at: t, mass: 1, stiffness: 100, damping: effectiveDamping, v0: c.velocity)
                #expect(abs(s.response(at: t) - (1 - x)) < 1e-9, "damping \(c.damping) at t = \(t)")
            }
        }
    }

    @Test("§6.2 value = lerp(start, end, y(t)) with start and end from §4.1")
    func valueLerpsWithResponse() {
        var s = spring()
        s.fromValue = nil   // from the base: 20 → 100
        let v = ReferenceEvaluator.sample(s, at: 0.3, base: .scalar(20)).value?.scalarValue
        #expect(v == 20 + 80 * s.response(at: 0.3))
    }

    @Test("§6.2 the overdamped form meets the critical one continuously as ζ → 1")
    func overdampedIsContinuousAtCritical() {
        let critical = spring(damping: 20)
        for epsilon in [1e-12, 1e-9, 1e-6] {
            let over = spring(damping: 20 * (1 + epsilon), overdamping: true)
            for t in [0.01, 0.1, 0.5, 2] {
                #expect(abs(over.response(at: t) - critical.response(at: t)) < 1e-5)
            }
        }
        let far = spring(damping: 1e6, overdamping: true)
        #expect(far.response(at: 1e4).isFinite)
    }

    @Test("§6.3 damping ratios above 1 act as 1 unless allowsOverdamping")
    func overdampingIsClampedByDefault() {
        let clamped = spring(damping: 60), critical = spring(damping: 20), over = spring(damping: 60, overdamping: true)
        #expect(clamped.dampingRatio == 1)
        #expect(clamped.response(at: 0.3) == critical.response(at: 0.3))
        #expect(over.dampingRatio == 3)
        #expect(over.response(at: 0.3) < critical.response(at: 0.3))
    }

    @Test("§6.4 the spring is a function of seconds: duration cuts it off, does not rescale it")
    func durationCutsOffWithoutRescaling() {
        var short = spring(), long = spring()
        short.duration = 1
        long.duration = 4
        #expect(ReferenceEvaluator.sample(short, at: 0.4, base: 0).value == ReferenceEvaluator.sample(long, at: 0.4, base: 0).value)
        #expect(ReferenceEvaluator.sample(short, at: 1.5, base: 0).value == nil)
    }

    @Test("§6.4 an animation-level timing function warps time first")
    func timingFunctionWarpsTime() {
        var s = spring()
        s.timingFunction = .easeIn
        s.duration = 2
        let expected = 100 * s.response(at: TimingFunction.easeIn.value(at: 0.25) * 2)
        #expect(ReferenceEvaluator.sample(s, at: 0.5, base: 0).value?.scalarValue == expected)
    }

    @Test("§6.5 settlingDuration: ≈2.85 s at damping 5, just over 1 s at damping 15")
    func settlingDurationMatchesDocumentation() {
        #expect(abs(spring(damping: 5).settlingDuration - 2.85) <= 0.05)
        let fifteen = spring(damping: 15).settlingDuration
        #expect(fifteen > 1 && fifteen <= 1.05)
    }

    @Test("§6.5 settlingDuration depends on all four parameters")
    func settlingDurationDependsOnAllParameters() {
        let base = spring(damping: 5).settlingDuration
        #expect(spring(damping: 5, mass: 2).settlingDuration != base)
        #expect(spring(damping: 5, stiffness: 300).settlingDuration != base)
        #expect(spring(damping: 5, velocity: 10).settlingDuration != base)
        #expect(spring(damping: 6).settlingDuration != base)
        #expect(spring(damping: 0).settlingDuration == .infinity)
        let critical = spring(damping: 20).settlingDuration
        #expect(critical > 0 && critical < 2)
        #expect(spring(damping: 200, overdamping: true).settlingDuration > critical)
    }

    @Test("§6.5 after settlingDuration the spring stays within 1e-3 of the target")
    func settledMeansSettled() {
        for s in [spring(damping: 5), spring(damping: 15), spring(damping: 20), spring(damping: 45, overdamping: true), spring(damping: 8, velocity: -30)] {
            let t0 = s.settlingDuration
            for k in 0...200 {
                #expect(abs(1 - s.response(at: t0 + Double(k) * 0.01)) <= 1e-3)
            }
        }
    }

    @Test("invalid spring parameters are rejected, naming the field")
    func invalidParametersAreRejected() {
        let cases: [(WritableKeyPath<SpringAnimation, Double>, Double, String)] = [
            (\.mass, 0, "mass"), (\.mass, .nan, "mass"), (\.stiffness, -1, "stiffness"), (\.stiffness, .infinity, "stiffness"),
            (\.damping, -0.1, "damping"), (\.initialVelocity, .nan, "initialVelocity"),
        ]
        for (path, value, field) in cases {
            var s = spring()
            s[keyPath: path] = value
            do {
                try s.validate()
                Issue.record("accepted \(field) = \(value)")
            } catch let error as AnimationError {
                #expect(error.field == field)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("property: the response tends to 1 and stays finite")
    func responseConverges() async {
        await propertyCheck(count: 200, input: Gen.double(in: 0.1...10), Gen.double(in: 1...1000), Gen.double(in: 0.5...100),
                            Gen.double(in: -50...50)) { mass, stiffness, damping, velocity in
            var s = spring(damping: damping, stiffness: stiffness, mass: mass, velocity: velocity, overdamping: true)
            s.allowsOverdamping = damping.truncatingRemainder(dividingBy: 2) < 1
            let settle = s.settlingDuration
            #expect(settle.isFinite && settle >= 0)
            #expect(abs(1 - s.response(at: settle * 1.01 + 0.001)) <= 1.5e-3)
            for t in stride(from: 0.0, through: 10, by: 0.37) { #expect(s.response(at: t).isFinite) }
        }
    }
}
