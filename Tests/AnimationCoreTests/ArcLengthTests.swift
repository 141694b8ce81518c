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
