import AnimationCore
import Foundation
import PropertyBased
import Testing

/// The solver's specification: plain bisection on the Bernstein form in 80-bit arithmetic where the
/// platform has it (x86-64 Linux), 128 steps, no cleverness to share bugs with.
func referenceTimingValue(_ f: TimingFunction, _ x: Double) -> Double {
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    #if arch(x86_64) && !os(Windows)
    typealias Wide = Float80
    #else
    typealias Wide = Double
    #endif
    let (x1, y1, x2, y2, target) = (Wide(f.x1), Wide(f.y1), Wide(f.x2), Wide(f.y2), Wide(x))
    func bx(_ s: Wide) -> Wide {
        let r = 1 - s
        return 3 * x1 * s * r * r + 3 * x2 * s * s * r + s * s * s
    }
    var lo: Wide = 0, hi: Wide = 1
    for _ in 0..<128 {
        let mid = (lo + hi) / 2
        if bx(mid) < target { lo = mid } else { hi = mid }
    }
    let s = (lo + hi) / 2, r = 1 - s
    return Double(3 * y1 * s * r * r + 3 * y2 * s * s * r + s * s * s)
}

/// A deterministic generator for the randomised comparisons (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Sizes of the randomised tests: modest in debug builds, full in optimised ones (`.ci/run` runs
/// `swift test -c release`).
enum TestScale {
    #if DEBUG
    static let isFull = false
    #else
    static let isFull = true
    #endif
    static func count(debug: Int, release: Int) -> Int { isFull ? release : debug }
}

@Suite("TimingFunction (semantics §3)")
struct TimingFunctionTests {
    // MARK: §3.1 named functions

    @Test("§3.1 the five named functions have Apple's control points")
    func namedFunctionsHaveDocumentedControlPoints() throws {
        let expected: [(TimingFunction, Double, Double, Double, Double)] = [
            (.linear, 0, 0, 1, 1), (.easeIn, 0.42, 0, 1, 1), (.easeOut, 0, 0, 0.58, 1),
            (.easeInEaseOut, 0.42, 0, 0.58, 1), (.default, 0.25, 0.1, 0.25, 1),
        ]
        for (f, x1, y1, x2, y2) in expected {
            #expect(try f.controlPoint(at: 1) == Point(x: x1, y: y1))
            #expect(try f.controlPoint(at: 2) == Point(x: x2, y: y2))
        }
        #expect(TimingFunction(name: .easeIn) == .easeIn)
        #expect(TimingFunction.easeOut.name == .easeOut)
        #expect(try TimingFunction(controlPoints: 0.3, 0, 1, 1).name == nil)
    }

    @Test("§3.1 a cubic Bézier from (0,0) to (1,1): exact ends")
    func curveRunsFromOriginToOneWithExactEnds() throws {
        let curves: [TimingFunction] = [.linear, .easeIn, .easeOut, .easeInEaseOut, .default,
                                        try TimingFunction(controlPoints: 0, 1.5, 1, -0.5)]
        for f in curves {
            #expect(f.value(at: 0) == 0)
            #expect(f.value(at: 1) == 1)
            #expect(f.value(at: -3) == 0)
            #expect(f.value(at: 7) == 1)
        }
    }

    @Test("§17 #1 easeInEaseOut at x = 0.5 is 0.5")
    func example1EaseInEaseOutIsSymmetric() {
        #expect(abs(TimingFunction.easeInEaseOut.value(at: 0.5) - 0.5) <= 1e-15)
    }

    @Test("§3.1 linear is the identity, exactly")
    func linearIsIdentity() {
        for x in stride(from: 0.0, through: 1.0, by: 0.01) {
            #expect(TimingFunction.linear.value(at: x) == x)
        }
        #expect(TimingFunction.linear.isLinear)
        #expect(!TimingFunction.easeIn.isLinear)
    }

    // MARK: §3.2 evaluation

    @Test("§3.2 getControlPoint: 0 → (0,0), 1 → c1, 2 → c2, 3 → (1,1); other indices throw")
    func controlPointIndices() throws {
        let f = try TimingFunction(controlPoints: 0.1, 0.2, 0.3, 0.4)
        #expect(try f.controlPoint(at: 0) == Point(x: 0, y: 0))
        #expect(try f.controlPoint(at: 1) == Point(x: 0.1, y: 0.2))
        #expect(try f.controlPoint(at: 2) == Point(x: 0.3, y: 0.4))
        #expect(try f.controlPoint(at: 3) == Point(x: 1, y: 1))
        #expect(throws: AnimationError.self) { try f.controlPoint(at: 4) }
        #expect(throws: AnimationError.self) { try f.controlPoint(at: -1) }
    }

    @Test("§3.2 the solve matches an 80-bit bisection within 1e-9 on named and random curves")
    func solverMatchesHighPrecisionBisection() throws {
        var rng = SeededGenerator(seed: 0xC0FFEE)
        let n = TestScale.count(debug: 100_000, release: 1_000_000)
        var errors: [Double] = []
        errors.reserveCapacity(n)
        let named: [TimingFunction] = [.linear, .easeIn, .easeOut, .easeInEaseOut, .default]
        var randomCurves: [TimingFunction] = []
        for _ in 0..<4096 {
            randomCurves.append(try TimingFunction(
                controlPoints: Double.random(in: 0...1, using: &rng), Double.random(in: -1...2, using: &rng),
                Double.random(in: 0...1, using: &rng), Double.random(in: -1...2, using: &rng)))
        }
        // The hardest curves: vertical tangents at an end (x1 = 0 or x2 = 1 with y off the diagonal).
        randomCurves += [try TimingFunction(controlPoints: 0, 1, 1, 0), try TimingFunction(controlPoints: 0, 2, 1, -1),
                         try TimingFunction(controlPoints: 1, 0, 0, 1), try TimingFunction(controlPoints: 0, 1, 0, 1)]
        var namedMax = 0.0
        for i in 0..<n {
            let f = i % 5 == 0 ? named[(i / 5) % named.count] : randomCurves[Int.random(in: 0..<randomCurves.count, using: &rng)]
            var x = Double.random(in: 0...1, using: &rng)
            if i % 97 == 0 { x = 1 - pow(2, -Double.random(in: 1...52, using: &rng)) }  // near the flat end
            if i % 89 == 0 { x = pow(2, -Double.random(in: 1...60, using: &rng)) }       // near the steep start
            let error = abs(f.value(at: x) - referenceTimingValue(f, x))
            if i % 5 == 0 { namedMax = max(namedMax, error) }
            errors.append(error)
        }
        errors.sort()
        let maximum = errors.last ?? 0
        let p9999 = errors[min(errors.count - 1, Int(Double(errors.count) * 0.9999))]
        print("TimingFunction solver vs 80-bit bisection over \(n) inputs: max \(maximum), p99.99 \(p9999), named-curve max \(namedMax)")
        #expect(maximum <= 1e-9)
    }

    @Test("§3.2 steep curves never diverge (the unbracketed-Newton bug)")
    func steepCurvesStayWithinTheirRange() throws {
        // Newton alone from s = x gave 1.73 instead of 0.98 on curves like these.
        let steep = [try TimingFunction(controlPoints: 0, 1, 0, 1), try TimingFunction(controlPoints: 1, 0, 1, 0),
                     try TimingFunction(controlPoints: 0.99, 0, 0.01, 1), try TimingFunction(controlPoints: 0, 0.9, 0.05, 1)]
        for f in steep {
            for k in 0...1000 {
                let x = Double(k) / 1000
                let y = f.value(at: x)
                #expect(y >= -1e-12 && y <= 1 + 1e-12)
                #expect(abs(y - referenceTimingValue(f, x)) <= 1e-9)
            }
        }
    }

    // MARK: §3.3 default nil = linear

    @Test("§3.3 an animation's timing function defaults to nil, which is linear")
    func animationTimingFunctionDefaultsToLinear() {
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = 0
        a.toValue = 1
        a.duration = 1
        #expect(a.timingFunction == nil)
        let v = ReferenceEvaluator.sample(a, at: 0.3, base: 1).value
        #expect(v == .scalar(0.3))
    }

    // MARK: properties

    @Test("property: output is monotonic when y1 and y2 lie in [0, 1]")
    func monotonicForUnitYControlPoints() async throws {
        await propertyCheck(count: 300, input: Gen.double(in: 0...1), Gen.double(in: 0...1), Gen.double(in: 0...1),
                            Gen.double(in: 0...1)) { x1, y1, x2, y2 in
            let f = try TimingFunction(controlPoints: x1, y1, x2, y2)
            var previous = 0.0
            for k in 0...400 {
                let y = f.value(at: Double(k) / 400)
                #expect(y >= previous, "not monotonic at x = \(Double(k) / 400) for \(f)")
                previous = y
            }
        }
    }

    @Test("property: easeOut(x) = 1 − easeIn(1 − x)")
    func easeOutMirrorsEaseIn() async {
        await propertyCheck(count: 1000, input: Gen.double(in: 0...1)) { x in
            #expect(abs(TimingFunction.easeOut.value(at: x) - (1 - TimingFunction.easeIn.value(at: 1 - x))) <= 1e-12)
        }
    }

    // MARK: bad input

    @Test("control points with x outside [0, 1] are rejected, naming the value")
    func controlPointXOutsideUnitIntervalIsRejected() {
        #expect(throws: AnimationError(field: "controlPoints.x1", reason: "must be in [0, 1] so that the curve is a function of time (got 1.5)")) {
            try TimingFunction(controlPoints: 1.5, 0, 1, 1)
        }
        #expect(throws: AnimationError.self) { try TimingFunction(controlPoints: 0, 0, -0.01, 1) }
    }

    @Test("y control points beyond ±1e9 are rejected, naming the value: no NaN from finite input (found by the C-interface fuzzer)")
    func hugeOvershootIsRejected() throws {
        let bound = TimingFunction.maximumOvershoot
        #expect(throws: AnimationError(field: "controlPoints.y1", reason: "must be within ±\(bound) (got \(1e10))")) {
            try TimingFunction(controlPoints: 0.5, 1e10, 0.5, 1)
        }
        #expect(throws: AnimationError.self) { try TimingFunction(controlPoints: 0.5, 0, 0.5, -.greatestFiniteMagnitude) }
        // At the bound, with the other y at the opposite bound: still a finite value everywhere.
        let extreme = try TimingFunction(controlPoints: 0.3, bound, 0.7, -bound)
        for x in stride(from: 0.0, through: 1.0, by: 1.0 / 64) { #expect(extreme.value(at: x).isFinite, "x = \(x)") }
    }

    @Test("non-finite control points are rejected, naming the value")
    func nonFiniteControlPointsAreRejected() {
        for (args, field) in [((Double.nan, 0.0, 1.0, 1.0), "x1"), ((0, Double.infinity, 1, 1), "y1"),
                              ((0, 0, Double.nan, 1), "x2"), ((0, 0, 1, -Double.infinity), "y2")] {
            do {
                _ = try TimingFunction(controlPoints: args.0, args.1, args.2, args.3)
                Issue.record("accepted \(args)")
            } catch let error as AnimationError {
                #expect(error.field == "controlPoints.\(field)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("§16 NaN progress propagates; infinite progress clamps to the ends")
    func nanPropagatesInfinityClamps() {
        #expect(TimingFunction.easeIn.value(at: .nan).isNaN)
        #expect(TimingFunction.easeIn.value(at: .infinity) == 1)
        #expect(TimingFunction.easeIn.value(at: -.infinity) == 0)
    }

    @Test("§16 y control points outside [0, 1] overshoot as they are")
    func overshootIsKept() throws {
        let back = try TimingFunction(controlPoints: 0.6, -0.28, 0.735, 0.045)
        #expect(back.value(at: 0.2) < 0)
        let over = try TimingFunction(controlPoints: 0.175, 0.885, 0.32, 1.275)
        #expect(over.value(at: 0.6) > 1)
    }

    @Test("§3 an overshooting curve's turning progresses are where its output turns; a monotone curve has none")
    func turningProgresses() throws {
        #expect(TimingFunction.easeInEaseOut.turningProgresses.isEmpty)
        #expect(TimingFunction.linear.turningProgresses.isEmpty)
        let overshoot = try TimingFunction(controlPoints: 0.3, -0.6, 0.7, 1.6)
        let turns = overshoot.turningProgresses.sorted()
        #expect(turns.count == 2)
        for x in turns {
            let here = overshoot.value(at: x), h = 1e-4
            let (left, right) = (overshoot.value(at: x - h), overshoot.value(at: x + h))
            #expect((here <= left && here <= right) || (here >= left && here >= right), "not an extremum at \(x)")
        }
    }
}
