import Foundation

/// Gauss–Legendre quadrature on 16 nodes, computed once by Newton's method on the Legendre
/// polynomial (nodes to full double precision).
package enum GaussLegendre {
    package static let order = 16
    package static let rule: (nodes: [Double], weights: [Double]) = {
        let n = order
        var nodes = [Double](), weights = [Double]()
        for i in 1...n {
            var x = cos(Double.pi * (Double(i) - 0.25) / (Double(n) + 0.5))
            var derivative = 0.0
            for _ in 0..<100 {
                var p0 = 1.0, p1 = x
                for k in 1..<n {
                    let p2 = ((2 * Double(k) + 1) * x * p1 - Double(k) * p0) / Double(k + 1)
                    p0 = p1
                    p1 = p2
                }
                derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
                let dx = p1 / derivative
                x -= dx
                if abs(dx) < 1e-16 { break }
            }
            nodes.append(x)
            weights.append(2 / ((1 - x * x) * derivative * derivative))
        }
        return (nodes, weights)
    }()

    /// The rule's nodes and weights as two vectors of eight (nodes 0–7, then 8–15).
    package static let lanes: (nodes: (SIMD8<Double>, SIMD8<Double>), weights: (SIMD8<Double>, SIMD8<Double>)) = {
        func vector(_ v: [Double], _ from: Int) -> SIMD8<Double> { SIMD8(v[from..<from + 8]) }
        return ((vector(rule.nodes, 0), vector(rule.nodes, 8)), (vector(rule.weights, 0), vector(rule.weights, 8)))
    }()

    /// ∫ₐᵇ f. The sixteen terms wᵢ·f(xᵢ) are added as a tree of halves — term i with term i + 8,
    /// then i with i + 4, i with i + 2, then the last two — the order
    /// ``integrate(_:_:speedOf:)`` adds its vectors in, so both give the same bits.
    package static func integrate(_ a: Double, _ b: Double, _ f: (Double) -> Double) -> Double {
        let half = (b - a) / 2, mid = (a + b) / 2
        let nodes = rule.nodes, weights = rule.weights
        @inline(__always) func term(_ i: Int) -> Double { weights[i] * f(mid + half * nodes[i]) }
        let q0 = term(0) + term(8), q1 = term(1) + term(9), q2 = term(2) + term(10), q3 = term(3) + term(11)
        let q4 = term(4) + term(12), q5 = term(5) + term(13), q6 = term(6) + term(14), q7 = term(7) + term(15)
        let r0 = q0 + q4, r1 = q1 + q5, r2 = q2 + q6, r3 = q3 + q7
        return ((r0 + r2) + (r1 + r3)) * half
    }

    /// ∫ₐᵇ |B′(t)| dt for the cubic whose derivative is `c`: ``integrate(_:_:_:)`` with
    /// `c.speed` (the same bits), its sixteen speeds computed as two vectors of eight. A
    /// trim's cut and a position along a spatial tangent solve on this quadrature (Newton, a few
    /// steps each): scalar, its 16 speeds were a fifth of a Lottie tick.
    package static func integrate(_ a: Double, _ b: Double, speedOf c: CubicSpeed) -> Double {
        #if DEBUG
        // Unoptimised, SIMD8<Double> arithmetic goes lane by lane through generic witnesses: this
        // quadrature made a debug W2 store of 2,000 properties take 100 s to build. The scalar
        // rule gives the same bits (see above); optimised builds, where the tests compare the two,
        // take the vectors.
        return integrate(a, b) { c($0) }
        #else
        let half = (b - a) / 2, mid = (a + b) / 2
        @inline(__always) func speeds(_ x: SIMD8<Double>) -> SIMD8<Double> {
            // `CubicSpeed.callAsFunction`, lane by lane: the same operations in the same order.
            let t = mid + half * x
            let s = 1 - t
            let p = 3 * s * s, q = 6 * s * t, r = 3 * t * t
            let dx = p * c.ax + q * c.bx + r * c.cx, dy = p * c.ay + q * c.by + r * c.cy
            return (dx * dx + dy * dy).squareRoot()
        }
        let (nodes, weights) = lanes
        let q = weights.0 * speeds(nodes.0) + weights.1 * speeds(nodes.1)
        let r = q.lowHalf + q.highHalf
        let u = r.lowHalf + r.highHalf
        return (u[0] + u[1]) * half
        #endif
    }
}

/// A cubic Bézier's derivative B′(t) = 3(1−t)²·a + 6(1−t)t·b + 3t²·c, with a, b, c the
/// differences of consecutive control points: its speed |B′(t)|, the integrand of arc length.
package struct CubicSpeed: Sendable {
    package let ax, ay, bx, by, cx, cy: Double

    /// The cubic with control points (x0, y0) … (x3, y3).
    @inline(__always)
    package init(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ x3: Double, _ y3: Double) {
        (ax, ay) = (x1 - x0, y1 - y0)
        (bx, by) = (x2 - x1, y2 - y1)
        (cx, cy) = (x3 - x2, y3 - y2)
    }

    /// Where the speed bends sharply (``SpeedMinima``): B′(t) / 3 = A·t² + B·t + C with
    /// A = a − 2b + c, B = 2(b − a), C = a.
    package var speedMinima: SpeedMinima {
        let qx = ax - 2 * bx + cx, qy = ay - 2 * by + cy, lx = 2 * (bx - ax), ly = 2 * (by - ay)
        return SpeedMinima(aa: qx * qx + qy * qy, ab: qx * lx + qy * ly, ac: qx * ax + qy * ay,
                           bb: lx * lx + ly * ly, bc: lx * ax + ly * ay, cc: ax * ax + ay * ay)
    }

    /// |B′(t)| as `PathSegment.derivative(at:)` and a square root give it (no overflow below
    /// control polygons of `ArcLength.plainSpeedScale`, where the breakpoint tables use it too).
    @inline(__always)
    package func callAsFunction(_ t: Double) -> Double {
        let s = 1 - t
        let p = 3 * s * s, q = 6 * s * t, r = 3 * t * t
        let dx = p * ax + q * bx + r * cx, dy = p * ay + q * by + r * cy
        return (dx * dx + dy * dy).squareRoot()
    }
}

/// Where a speed |D(t)| bends sharply in (0, 1), for D(t) = A·t² + B·t + C a quadratic vector (a
/// cubic Bézier's derivative, a cubic Hermite segment's): its local minima narrower than a
/// hundredth of [0, 1], at most two, in increasing order. Arc-length tables cut [0, 1] there
/// before they refine (``ArcLength/table(scale:minima:speed:)``).
///
/// Why: at a cusp the speed has a kink, |t − t₀| at its bottom. A kink that lies between an
/// interval's end and the quadrature's outermost node (0.53 % of the interval in) is invisible:
/// both halves integrate a polynomial exactly and agree with the whole, and the length misses the
/// kink's area — a cusp at t = 0.4988 lost 1.3e-3 of 213 where 1e-12 is claimed. With the minimum
/// at a breakpoint the speed is smooth inside every interval. Near t₀ the speed is
/// √(ε² + |D′(t₀)|²·(t − t₀)²): a minimum whose width ε / |D′(t₀)| is at least 1/100 cannot hide
/// inside any interval's gap, and is left to the refinement — cutting at every minimum of a
/// smooth curve slowed a Lottie tick that walks moving trimmed paths by up to 11 %.
package struct SpeedMinima: Sendable, Equatable {
    package private(set) var count = 0
    package private(set) var first = 0.0
    package private(set) var second = 0.0

    /// None: [0, 1] is refined whole.
    package init() {}

    /// The sharp minima of |D| from the dot products of D's coefficients (`aa` = A·A, `ab` = A·B,
    /// and so on). The minima of |D|² are where g(t) = ½·(|D|²)′ = 2·aa·t³ + 3·ab·t² +
    /// (bb + 2·ac)·t + bc crosses zero upwards: g is monotone between the roots of g′ (a
    /// quadratic), and each piece of (0, 1) where it rises through zero holds one, found by a
    /// Newton solve kept inside its bracket (at most 64 steps). None where a product is not finite.
    package init(aa: Double, ab: Double, ac: Double, bb: Double, bc: Double, cc: Double) {
        guard aa.isFinite, ab.isFinite, ac.isFinite, bb.isFinite, bc.isFinite, cc.isFinite else { return }
        let linear = bb + 2 * ac
        @inline(__always) func g(_ t: Double) -> Double { ((2 * aa * t + 3 * ab) * t + linear) * t + bc }
        @inline(__always) func slope(_ t: Double) -> Double { (6 * aa * t + 6 * ab) * t + linear }
        // The roots of g′ = qa·t² + qb·t + qc inside (0, 1), in increasing order.
        let qa = 6 * aa, qb = 6 * ab, qc = linear
        var turns = (0.0, 0.0), turnCount = 0
        func turn(_ r: Double) {
            guard r > 0 && r < 1 else { return }   // NaN fails too
            if turnCount == 0 { turns.0 = r } else { turns = (min(turns.0, r), max(turns.0, r)) }
            turnCount += 1
        }
        if qa == 0 {
            if qb != 0 { turn(-qc / qb) }
        } else {
            let discriminant = qb * qb - 4 * qa * qc
            if discriminant > 0 {
                // The root of larger magnitude without cancellation, the other from their product.
                let q = -0.5 * (qb + (qb < 0 ? -discriminant.squareRoot() : discriminant.squareRoot()))
                turn(q / qa)
                if q != 0 { turn(qc / q) }
            }
        }
        func solve(_ lo: Double, _ hi: Double) {
            guard g(lo) < 0 && g(hi) > 0 else { return }
            var lo = lo, hi = hi
            var t = (lo + hi) / 2
            for _ in 0..<64 {
                let v = g(t)
                if v == 0 { break }
                if v < 0 { lo = t } else { hi = t }
                var next = t - v / slope(t)
                if !(next > lo && next < hi) { next = (lo + hi) / 2 }   // outside the bracket, or NaN: bisect
                if next == t { break }
                t = next
            }
            // Sharp: |D(t)|² below (1/100)² · |D′(t)|².
            let speed2 = (((aa * t + 2 * ab) * t + linear) * t + 2 * bc) * t + cc
            let bend2 = (4 * aa * t + 4 * ab) * t + bb
            guard t > 0 && t < 1 && speed2 < 1e-4 * bend2 && (count == 0 || t > first) else { return }
            if count == 0 { first = t } else { second = t }
            count += 1
        }
        switch turnCount {
        case 0: solve(0, 1)
        case 1: solve(0, turns.0); solve(turns.0, 1)
        default: solve(0, turns.0); solve(turns.0, turns.1); solve(turns.1, 1)
        }
    }

    /// Visits the pieces of [0, 1] between the minima as `(a, b)`, left to right or right to
    /// left (a depth-first walk pushes them right to left, so that it pops them in order).
    @inline(__always)
    package func forEachPiece(rightToLeft: Bool, _ visit: (Double, Double) -> Void) {
        switch (count, rightToLeft) {
        case (0, _): visit(0, 1)
        case (1, false): visit(0, first); visit(first, 1)
        case (1, true): visit(first, 1); visit(0, first)
        case (_, false): visit(0, first); visit(first, second); visit(second, 1)
        case (_, true): visit(second, 1); visit(first, second); visit(0, first)
        }
    }
}

/// Arc length of a parametric curve on [0, 1] given its speed |c′(t)|: an adaptive breakpoint table
/// and its inversion. Shared by paths (semantics §14.6) and cubic-paced keyframes (§5.5).
package enum ArcLength {
    /// The control polygons below which arc-length tables take |B′(t)| as the square root of the
    /// sum of squares (derivatives below 1e151: their squares cannot overflow), at and above
    /// which they use `hypot`. Shared by every copy of the table walk, which must agree bit for bit.
    package static let plainSpeedScale = 1e150

    /// Breakpoints (t, length from t = 0), from (0, 0) to (1, L): [0, 1] cut first where the speed
    /// bends sharply (``SpeedMinima``), then 16-node Gauss–Legendre on each interval, halved until
    /// the two halves agree with the whole within `1e-13 · scale`. Bounded: at most 30 halvings
    /// deep and 4,096 intervals in all; a non-finite speed stops the refinement at once (the length
    /// is then non-finite too).
    static func table(scale: Double, minima: SpeedMinima, speed: (Double) -> Double) -> [(t: Double, s: Double)] {
        let tolerance = 1e-13 * max(scale, .leastNormalMagnitude)
        var table: [(t: Double, s: Double)] = [(0, 0)]
        var stack: [(a: Double, b: Double, whole: Double, depth: Int)] = []
        minima.forEachPiece(rightToLeft: true) { a, b in stack.append((a, b, GaussLegendre.integrate(a, b, speed), 0)) }
        // Depth first, left before right: breakpoints come out in increasing t.
        while let (a, b, whole, depth) = stack.popLast() {
            let m = (a + b) / 2
            let left = GaussLegendre.integrate(a, m, speed), right = GaussLegendre.integrate(m, b, speed)
            let converged = abs(left + right - whole) <= tolerance
            if converged || !whole.isFinite || depth >= 30 || table.count >= 8192 {
                let base = table[table.count - 1].s
                table.append((m, base + left))
                table.append((b, base + left + right))
            } else {
                stack.append((m, b, right, depth + 1))
                stack.append((a, m, left, depth + 1))
            }
        }
        return table
    }

    /// The parameter t at which the length from 0 is `local`: locate the breakpoint interval, then a
    /// bracketed Newton solve on the quadrature (≤ 60 steps, to 1e-13 of the total length).
    static func parameter(ofLength local: Double, table: [(t: Double, s: Double)], speed: (Double) -> Double) -> Double {
        parameter(ofLength: local, table: table, speed: speed) { GaussLegendre.integrate($0, $1, speed) }
    }

    /// ``parameter(ofLength:table:speed:)`` for a cubic's speed, on the vector quadrature (the
    /// same bits).
    static func parameter(ofLength local: Double, table: [(t: Double, s: Double)], cubic c: CubicSpeed) -> Double {
        parameter(ofLength: local, table: table, speed: { c($0) }) { GaussLegendre.integrate($0, $1, speedOf: c) }
    }

    /// ``parameter(ofLength:table:cubic:)`` on a table kept flat: `count` breakpoints as `(t, s)`
    /// pairs from `pairs` (for callers that keep tables in raw memory: a Lottie tick reads its
    /// spatial segments' tables in place, with no array retained).
    package static func parameter(ofLength local: Double, pairs: UnsafePointer<Double>, count: Int, cubic c: CubicSpeed) -> Double {
        parameter(ofLength: local, pairs: pairs, count: count, speed: { c($0) }) { GaussLegendre.integrate($0, $1, speedOf: c) }
    }

    private static func parameter(ofLength local: Double, table: [(t: Double, s: Double)], speed: (Double) -> Double,
                                  integral: (Double, Double) -> Double) -> Double {
        table.withUnsafeBufferPointer { pairs in
            // (t, s) tuples are two Doubles each, t first: read as `2 × count` numbers. An empty
            // table has no base address; any pointer does then (count 0: never read).
            pairs.withMemoryRebound(to: Double.self) { numbers in
                parameter(ofLength: local, pairs: numbers.baseAddress ?? UnsafePointer(bitPattern: 8)!, count: table.count,
                          speed: speed, integral: integral)
            }
        }
    }

    private static func parameter(ofLength local: Double, pairs: UnsafePointer<Double>, count: Int, speed: (Double) -> Double,
                                  integral: (Double, Double) -> Double) -> Double {
        // Unchecked read: the last pair's s, count > 0.
        guard count > 0, local < pairs[2 * count - 1] else { return 1 }
        let last = pairs[2 * count - 1]
        guard local > 0 else { return 0 }
        return solve(ofLength: local, in: bracket(local, pairs: pairs, count: count), total: last, speed: speed, integral: integral)
    }

    /// The breakpoint interval `(a, sa, b, sb)` that holds `local` (0 < local < the last s): the
    /// last pair with s ≤ local and the next, by binary search over `count` `(t, s)` pairs.
    package static func bracket(_ local: Double, pairs: UnsafePointer<Double>, count: Int)
        -> (a: Double, sa: Double, b: Double, sb: Double) {
        // Unchecked reads: every index is below `count` pairs (binary search within 0 ..< count).
        var k = 0
        var upper = count - 1
        while k < upper - 1 {
            let mid = (k + upper) / 2
            if pairs[2 * mid + 1] <= local { k = mid } else { upper = mid }
        }
        return (pairs[2 * k], pairs[2 * k + 1], pairs[2 * upper], pairs[2 * upper + 1])
    }

    /// The parameter at length `local` inside the breakpoint interval `interval`, for a cubic:
    /// the bracketed Newton solve on the vector quadrature (≤ 60 steps, to 1e-13 of `total`, the
    /// curve's length).
    package static func solve(ofLength local: Double, in interval: (a: Double, sa: Double, b: Double, sb: Double), total: Double,
                              cubic c: CubicSpeed) -> Double {
        solve(ofLength: local, in: interval, total: total, speed: { c($0) }) { GaussLegendre.integrate($0, $1, speedOf: c) }
    }

    private static func solve(ofLength local: Double, in interval: (a: Double, sa: Double, b: Double, sb: Double), total: Double,
                              speed: (Double) -> Double, integral: (Double, Double) -> Double) -> Double {
        let (a, sa, b, sb) = interval
        var lo = a, hi = b
        var t = sb > sa ? a + (b - a) * (local - sa) / (sb - sa) : a
        for _ in 0..<60 {
            let f = sa + integral(a, t) - local
            if abs(f) <= 1e-13 * max(1, total) { return t }
            if f < 0 { lo = t } else { hi = t }
            let v = speed(t)
            var next = v > 0 ? t - f / v : .nan
            if !(next > lo && next < hi) { next = (lo + hi) / 2 }
            if abs(next - t) <= 1e-16 { return next }
            t = next
        }
        return t
    }
}
