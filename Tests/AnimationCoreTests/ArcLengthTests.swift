@testable import AnimationCore
import Foundation
import Testing

/// The quadrature under every arc length (semantics §14.6): 16-node Gauss–Legendre, its terms
/// added as a tree; the vector form for a cubic's speed must give the scalar form's bits.
@Suite("Arc-length quadrature")
struct GaussLegendreTests {
    /// Debug builds take the scalar rule in both (the vectors are ~400× slower unoptimised): the
    /// comparison means something only in optimised builds, which CI's release test run covers.
    @Test("§14.6 the vector quadrature of a cubic's speed equals the scalar one bit for bit: random cubics and intervals, degenerate ones too (optimised builds)",
          .enabled(if: TestScale.isFull))
    func vectorEqualsScalar() {
        var rng = SeededGenerator(seed: 0x474c_3136)
        func coordinate() -> Double {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: return 0
            case 1: return Double.random(in: -1e-9...1e-9, using: &rng)
            case 2: return Double.random(in: -1e6...1e6, using: &rng)
            default: return Double.random(in: -300...300, using: &rng)
            }
        }
        for _ in 0..<5_000 {
            let c = CubicSpeed(coordinate(), coordinate(), coordinate(), coordinate(), coordinate(), coordinate(), coordinate(), coordinate())
            var a = Double.random(in: 0...1, using: &rng), b = Double.random(in: 0...1, using: &rng)
            if Bool.random(using: &rng) { (a, b) = (0, 1) } else if a > b { (a, b) = (b, a) }
            let scalar = GaussLegendre.integrate(a, b) { c($0) }
            let vector = GaussLegendre.integrate(a, b, speedOf: c)
            #expect(vector.bitPattern == scalar.bitPattern, "\(c) on [\(a), \(b)]: \(vector) vs \(scalar)")
        }
    }

    @Test("§14.6 the quadrature is exact for polynomials up to degree 31 and gives a straight segment its length")
    func exactForPolynomials() {
        for degree in [0, 1, 5, 15, 31] {
            let d = Double(degree)
            let integral = GaussLegendre.integrate(0.25, 1.5) { pow($0, d) }
            let exact = (pow(1.5, d + 1) - pow(0.25, d + 1)) / (d + 1)
            #expect(abs(integral - exact) <= 1e-14 * exact, "degree \(degree): \(integral) vs \(exact)")
        }
        // A cubic whose control points lie evenly on a line of length 5 has constant speed 5.
        let line = CubicSpeed(0, 0, 1, 4.0 / 3, 2, 8.0 / 3, 3, 4)
        #expect(abs(GaussLegendre.integrate(0, 1, speedOf: line) - 5) <= 1e-14)
    }
}

/// Arc-length tables (semantics §14.6, §5.5): cut at the speed's minima (`SpeedMinima`), then
/// refined until two levels agree.
@Suite("Arc-length tables at cusps")
struct ArcLengthCuspTests {
    /// The turns of the one-dimensional cubic Bézier with control values `u`: the roots in (0, 1)
    /// of u′(t)/3 = (a − 2b + c)t² + 2(b − a)t + a (a, b, c the differences), in order.
    static func turns(_ u: [Double]) -> [Double] {
        let a = u[1] - u[0], b = u[2] - u[1], c = u[3] - u[2]
        let qa = a - 2 * b + c, qb = 2 * (b - a), qc = a
        var roots: [Double] = []
        if qa == 0 {
            if qb != 0 { roots = [-qc / qb] }
        } else {
            let discriminant = qb * qb - 4 * qa * qc
            if discriminant >= 0 {
                roots = [(-qb - discriminant.squareRoot()) / (2 * qa), (-qb + discriminant.squareRoot()) / (2 * qa)]
            }
        }
        return roots.filter { $0 > 0 && $0 < 1 }.sorted()
    }

    /// The length of a cubic whose control points lie on a line, at signed distances `u` along a
    /// unit direction: it runs back and forth, |u(tᵢ₊₁) − u(tᵢ)| between consecutive turns.
    static func collinearLength(_ u: [Double]) -> Double {
        func value(_ t: Double) -> Double {
            let s = 1 - t
            return s * s * s * u[0] + 3 * s * s * t * u[1] + 3 * s * t * t * u[2] + t * t * t * u[3]
        }
        let stops = [0.0] + turns(u) + [1.0]
        return zip(stops, stops.dropFirst()).reduce(0) { $0 + abs(value($1.1) - value($1.0)) }
    }

    /// The measured length of that cubic drawn from `origin` along the unit direction at `angle`.
    static func measuredLength(_ u: [Double], angle: Double, origin: Point) -> (length: Double, scale: Double) {
        let (dx, dy) = (cos(angle), sin(angle))
        func point(_ k: Int) -> Point { Point(x: origin.x + u[k] * dx, y: origin.y + u[k] * dy) }
        var path = Path()
        path.move(to: point(0))
        path.addCurve(to: point(3), control1: point(1), control2: point(2))
        let scale = abs(u[1] - u[0]) + abs(u[2] - u[1]) + abs(u[3] - u[2])
        return (PathMeasure(path).length, scale)
    }

    @Test("§14.6 a cubic that turns back on itself (a cusp) is measured within 1e-12 of its control polygon wherever the cusp falls — beside a quadrature node too, as the path fuzzer's cusp at t = 0.4988 was (1.3e-3 short)")
    func cuspsAreMeasuredExactly() {
        // The fuzzer's curve: (0, 0) out to (74.9, 74.9) along the diagonal and back to (−1, −1).
        let fuzzed = Self.measuredLength([0, 100 * 2.0.squareRoot(), 100 * 2.0.squareRoot(), -(2.0.squareRoot())],
                                         angle: .pi / 4, origin: .zero)
        let fuzzedExact = Self.collinearLength([0, 100, 100, -1]) * 2.0.squareRoot()
        #expect(abs(fuzzed.length - fuzzedExact) <= 1e-12 * fuzzed.scale, "\(fuzzed.length) against \(fuzzedExact)")
        #expect(abs(fuzzedExact - 213.19401376225574) <= 1e-9)

        // The cusp swept across (0.30, 0.70) in steps far finer than a quadrature node's gap at
        // every level: u = (0, h, h, w), whose turn is where h(1 − 2t) + w t² = 0.
        var worst = 0.0
        for step in 0...4_000 {
            let w = -200 + 0.1 * Double(step)
            let u = [0, 100, 100, w]
            guard !Self.turns(u).isEmpty else { continue }
            let measured = Self.measuredLength(u, angle: 0.3, origin: Point(x: 7, y: -3))
            worst = max(worst, abs(measured.length - Self.collinearLength(u)) / measured.scale)
        }
        #expect(worst <= 1e-12, "largest error \(worst) of the control polygon over the sweep")

        // Random collinear cubics with at least one turn, at any angle and place.
        var rng = SeededGenerator(seed: 0x4355_5350)
        var checked = 0
        while checked < 2_000 {
            let u = (0..<4).map { _ in Double.random(in: -300...300, using: &rng) }
            guard !Self.turns(u).isEmpty else { continue }
            checked += 1
            let angle = Double.random(in: -.pi...(.pi), using: &rng)
            let origin = Point(x: Double.random(in: -500...500, using: &rng), y: Double.random(in: -500...500, using: &rng))
            let measured = Self.measuredLength(u, angle: angle, origin: origin)
            let exact = Self.collinearLength(u)
            #expect(abs(measured.length - exact) <= 1e-12 * measured.scale, "u = \(u), angle \(angle): \(measured.length) against \(exact)")
        }
    }

    @Test("§14.6 a near-cusp — a turn narrower or wider than the 1/100 the table cuts at — is measured within 1e-11 of its control polygon, against 200,000 even Gauss–Legendre intervals (20,000 are 1.5e-12 off themselves)")
    func nearCuspsAreMeasuredExactly() {
        var rng = SeededGenerator(seed: 0x4e43_5350)
        for _ in 0..<TestScale.count(debug: 6, release: 100) {
            // Control points on a line, the second control point moved off it by 1e-6 … 10.
            let u = (0..<4).map { _ in Double.random(in: -300...300, using: &rng) }
            let off = pow(10, Double.random(in: -6 ... 1, using: &rng))
            let points = [Point(x: u[0], y: 0), Point(x: u[1], y: 0), Point(x: u[2], y: off), Point(x: u[3], y: 0)]
            var path = Path()
            path.move(to: points[0])
            path.addCurve(to: points[3], control1: points[1], control2: points[2])
            let measured = PathMeasure(path).length
            let c = CubicSpeed(points[0].x, points[0].y, points[1].x, points[1].y, points[2].x, points[2].y, points[3].x, points[3].y)
            let pieces = 200_000
            var reference = 0.0
            for k in 0..<pieces { reference += GaussLegendre.integrate(Double(k) / Double(pieces), Double(k + 1) / Double(pieces)) { c($0) } }
            let scale = abs(u[1] - u[0]) + hypot(u[2] - u[1], off) + hypot(u[3] - u[2], off)
            // A cut at a minimum ε wide leaves √(ε² + c²τ²) at the end of each piece: the rule's
            // outermost node sees it as c·τ + ε²/(2cτ), each halving moves the sum by about
            // 0.35·ε²/c, and the part the nodes miss is at most ln(2c·τ₁/ε) ≤ 40 times that — so a
            // refinement that stops at its 1e-13 tolerance can leave up to about 5e-12 (measured:
            // 4.7e-12 for a minimum 3.4e-7 wide). Exact cusps and smooth curves stay within 1e-12.
            #expect(abs(measured - reference) <= 1e-11 * scale, "u = \(u), off \(off): \(measured) against \(reference)")
        }
    }

    @Test("SpeedMinima finds the sharp local minima of |A·t² + B·t + C| in (0, 1) — narrower than 1/100 — and nothing else: random quadratic vectors, cusps, near-cusps and degenerate ones, against dense samples")
    func speedMinimaAreTheSpeedsSharpMinima() {
        var rng = SeededGenerator(seed: 0x4d49_4e49)
        let samples = 4_000
        var sharp = 0
        for trial in 0..<1_500 {
            func vector() -> (Double, Double) {
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: return (0, 0)
                default: return (Double.random(in: -100...100, using: &rng), Double.random(in: -100...100, using: &rng))
                }
            }
            var (a, b, c) = (vector(), vector(), vector())
            if trial % 3 != 2 {
                // A cusp: every coefficient on one line, so that D vanishes where its one
                // component does; every other one a near-cusp, C moved off the line a little.
                // The component (t − t₀)(p·t + q) vanishes at t₀ in (0, 1).
                let (dx, dy) = (cos(Double(trial)), sin(Double(trial)))
                let t0 = Double.random(in: 0.01...0.99, using: &rng)
                let (p, q) = (Double.random(in: -100...100, using: &rng), Double.random(in: -100...100, using: &rng))
                let (ka, kb, kc) = (p, q - p * t0, -q * t0)
                let off = trial % 3 == 1 ? pow(10, Double.random(in: -6 ... 1, using: &rng)) : 0
                (a, b, c) = ((ka * dx, ka * dy), (kb * dx, kb * dy), (kc * dx - off * dy, kc * dy + off * dx))
            }
            func f(_ t: Double) -> Double {
                let x = (a.0 * t + b.0) * t + c.0, y = (a.1 * t + b.1) * t + c.1
                return x * x + y * y
            }
            /// The minimum's width at t: |D| / |D′|.
            func width(_ t: Double) -> Double {
                let x = 2 * a.0 * t + b.0, y = 2 * a.1 * t + b.1
                return f(t).squareRoot() / (x * x + y * y).squareRoot()
            }
            let minima = SpeedMinima(aa: a.0 * a.0 + a.1 * a.1, ab: a.0 * b.0 + a.1 * b.1, ac: a.0 * c.0 + a.1 * c.1,
                                     bb: b.0 * b.0 + b.1 * b.1, bc: b.0 * c.0 + b.1 * c.1, cc: c.0 * c.0 + c.1 * c.1)
            var found: [Double] = []
            minima.forEachPiece(rightToLeft: false) { _, end in if end < 1 { found.append(end) } }
            #expect(found.count == minima.count && found == found.sorted())
            sharp += found.count
            let size = 1 + f(0) + f(1) + f(0.5)
            // Each is a sharp minimum: no lower value just beside it, narrower than 1/100.
            for m in found {
                #expect(m > 0 && m < 1)
                #expect(f(m) <= min(f(m - 1e-6), f(m + 1e-6)) + 1e-12 * size, "trial \(trial): \(m) is no minimum")
                #expect(width(m) < 0.01 * (1 + 1e-9), "trial \(trial): \(m) is \(width(m)) wide")
            }
            // Every minimum the samples show (lower than both neighbours), clearly sharp, is one found.
            for i in 1..<samples {
                let t = Double(i) / Double(samples)
                let (before, here, after) = (f(t - 1 / Double(samples)), f(t), f(t + 1 / Double(samples)))
                guard here < before && here < after && width(t) < 0.005 else { continue }
                #expect(found.contains { abs($0 - t) <= 1 / Double(samples) }, "trial \(trial): a minimum near \(t) not found (found \(found))")
            }
        }
        #expect(sharp >= 500, "only \(sharp) sharp minima in the trials")
    }
}

/// Cubic-paced splines that turn back (semantics §5.5): their arc length, like a path's, is cut
/// at the speed's minima.
@Suite("Cubic-paced spline lengths")
struct CubicPacedLengthTests {
    @Test("§5.5 a cubic-paced spline of numbers that turns back inside a segment is measured within 1e-12 of its scale: the kink of its speed at the turn is a breakpoint")
    func turningSplineIsMeasuredExactly() {
        var rng = SeededGenerator(seed: 0x5350_4c4e)
        var turning = 0
        for _ in 0..<400 {
            let n = Int.random(in: 3...6, using: &rng)
            let values = (0..<n).map { _ in AnimationValue.scalar(Double.random(in: -100...100, using: &rng)) }
            let tension = (0..<n).map { _ in Double.random(in: -1...1, using: &rng) }
            let plan = KeyframePlan(values: values, path: nil, keyTimes: nil, mode: .cubicPaced, tension: tension, continuity: nil, bias: nil)
            for i in 0..<(n - 1) {
                let (a, b) = (values[i].components[0], values[i + 1].components[0])
                let (d, s) = (plan.outgoing[i][0], plan.incoming[i + 1][0])
                // x′(q) = A q² + B q + C: its roots are the turns; between them x is monotone.
                let qa = 6 * (a - b) + 3 * (d + s), qb = 6 * (b - a) - 4 * d - 2 * s, qc = d
                var roots: [Double] = []
                if qa != 0 {
                    let discriminant = qb * qb - 4 * qa * qc
                    if discriminant >= 0 {
                        roots = [(-qb - discriminant.squareRoot()) / (2 * qa), (-qb + discriminant.squareRoot()) / (2 * qa)]
                    }
                } else if qb != 0 {
                    roots = [-qc / qb]
                }
                let stops = [0.0] + roots.filter { $0 > 0 && $0 < 1 }.sorted() + [1.0]
                if stops.count > 2 { turning += 1 }
                func x(_ q: Double) -> Double {
                    let q2 = q * q, q3 = q2 * q
                    return (2 * q3 - 3 * q2 + 1) * a + (q3 - 2 * q2 + q) * d + (-2 * q3 + 3 * q2) * b + (q3 - q2) * s
                }
                let exact = zip(stops, stops.dropFirst()).reduce(0) { $0 + abs(x($1.1) - x($1.0)) }
                let measured = plan.splineTables[i].last?.s ?? 0
                let scale = abs(a - b) + abs(d) + abs(s)
                #expect(abs(measured - exact) <= 1e-12 * scale, "segment \(i) of \(values), tension \(tension): \(measured) against \(exact)")
            }
        }
        #expect(turning >= 100, "only \(turning) segments turned back")
    }
}
