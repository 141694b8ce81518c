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

    /// ∫ₐᵇ f.
    package static func integrate(_ a: Double, _ b: Double, _ f: (Double) -> Double) -> Double {
        let half = (b - a) / 2, mid = (a + b) / 2
        var sum = 0.0
        for i in 0..<order { sum += rule.weights[i] * f(mid + half * rule.nodes[i]) }
        return sum * half
    }
}

/// Arc length of a parametric curve on [0, 1] given its speed |c′(t)|: an adaptive breakpoint table
/// and its inversion. Shared by paths (semantics §14.6) and cubic-paced keyframes (§5.5).
enum ArcLength {
    /// Breakpoints (t, length from t = 0), from (0, 0) to (1, L): 16-node Gauss–Legendre on each
    /// interval, halved until the two halves agree with the whole within `1e-13 · scale`.
    /// Bounded: at most 30 halvings deep and 4,096 intervals in all; a non-finite speed stops the
    /// refinement at once (the length is then non-finite too).
    static func table(scale: Double, speed: (Double) -> Double) -> [(t: Double, s: Double)] {
        let tolerance = 1e-13 * max(scale, .leastNormalMagnitude)
        var table: [(t: Double, s: Double)] = [(0, 0)]
        var stack: [(a: Double, b: Double, whole: Double, depth: Int)] = [(0, 1, GaussLegendre.integrate(0, 1, speed), 0)]
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
        guard let last = table.last, local < last.s else { return 1 }
        guard local > 0 else { return 0 }
        var k = 0
        var upper = table.count - 1
        while k < upper - 1 {
            let mid = (k + upper) / 2
            if table[mid].s <= local { k = mid } else { upper = mid }
        }
        let (a, sa) = table[k]
        let (b, sb) = table[upper]
        var lo = a, hi = b
        var t = sb > sa ? a + (b - a) * (local - sa) / (sb - sa) : a
        for _ in 0..<60 {
            let f = sa + GaussLegendre.integrate(a, t, speed) - local
            if abs(f) <= 1e-13 * max(1, last.s) { return t }
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
