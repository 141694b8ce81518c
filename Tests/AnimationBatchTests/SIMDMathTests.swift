// The kernels' C helpers: vector rounding (SIMDMath.floor and roundedToNearestEven call them; in
// builds without vector rounding instructions — the portable x86-64 build that `swift test` makes —
// exact arithmetic that must give the standard library's bits) and the path kernel's quad loads.
@testable import AnimationBatch
import AnimationWorkloads
import CKernelSupport
import Foundation
import Testing

@Suite("Kernel helpers (SIMDMath, path loads)")
struct SIMDMathTests {
    /// Doubles around every boundary the arithmetic has: ±0, halves, integers, 2⁵² and its
    /// neighbours, the largest finite values, the smallest subnormals, ±∞ and NaN — then random ones.
    static var doubles: [Double] {
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.4, -0.4, 0.6, -0.6, 1, -1, 3, -3,
                                0x1p52, -0x1p52, 0x1p52 - 0.5, -(0x1p52 - 0.5), 0x1p52 + 1, 0x1p53, 0x1p52.nextDown, 0x1p51 + 0.5,
                                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
                                -.leastNonzeroMagnitude, .leastNormalMagnitude, 1.0.nextDown, -(1.0.nextDown),
                                .infinity, -.infinity, .nan]
        var generator = SplitMix64(seed: 0x5EED_F100)
        for _ in 0..<2_000 {
            values.append(Double.random(in: -1e6...1e6, using: &generator))
            values.append(Double(bitPattern: generator.next()))   // any bits: every exponent, NaN payloads
        }
        return values
    }

    static var floats: [Float] {
        var values: [Float] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.4, -0.4, 0.6, -0.6, 1, -1,
                               0x1p23, -0x1p23, 0x1p23 - 0.5, -(0x1p23 - 0.5), 0x1p22 + 0.5, Float(0x1p23).nextDown, 0x1p24,
                               .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
                               -.leastNonzeroMagnitude, Float(1).nextDown, .infinity, -.infinity, .nan]
        var generator = SplitMix64(seed: 0x5EED_F1F0)
        for _ in 0..<2_000 {
            values.append(Float.random(in: -1e4...1e4, using: &generator))
            values.append(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
        }
        return values
    }

    /// The same bits as the standard library, NaN for NaN.
    static func same(_ a: Double, _ b: Double) -> Bool {
        a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
    }

    static func same(_ a: Float, _ b: Float) -> Bool {
        a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
    }

    /// `body` on the values in vectors of `V.scalarCount` lanes (the last one padded with the last value).
    static func forEachVector<V: SIMD>(of values: [V.Scalar], _ body: (V) -> Void) {
        for start in stride(from: 0, to: values.count, by: V.scalarCount) {
            var x = V()
            for k in 0..<V.scalarCount { x[k] = values[min(start + k, values.count - 1)] }
            body(x)
        }
    }

    @Test("floor on Doubles gives rounded(.down)'s bits")
    func floorDoubles() {
        Self.forEachVector(of: Self.doubles) { (x: SIMD8<Double>) in
            let y = animation_floor_double(x)
            for k in 0..<8 {
                #expect(Self.same(y[k], x[k].rounded(.down)), "floor(\(x[k])) gave \(y[k])")
            }
        }
    }

    @Test("floor and round-to-even on Floats give the standard library's bits")
    func floats() {
        Self.forEachVector(of: Self.floats) { (x: SIMD16<Float>) in
            let down = animation_floor(x), nearest = animation_round_even(x)
            for k in 0..<16 {
                #expect(Self.same(down[k], x[k].rounded(.down)), "floor(\(x[k])) gave \(down[k])")
                #expect(Self.same(nearest[k], x[k].rounded(.toNearestOrEven)), "rounded(\(x[k])) gave \(nearest[k])")
            }
        }
    }

    @Test("animation_gather_quads gives each lane its four floats, transposed")
    func gatherQuads() {
        let table = (0..<400).map { Float($0) * 0.5 - 7 }
        var generator = SplitMix64(seed: 0x9A7E)
        for _ in 0..<50 {
            var index = SIMD16<Int32>(repeating: 0)
            for k in 0..<16 { index[k] = Int32(generator.next() % 397) }   // four readable floats from each
            var out = [Float](repeating: .nan, count: 64)
            table.withUnsafeBufferPointer { t in animation_gather_quads(t.baseAddress!, index, &out) }
            for k in 0..<16 {
                for j in 0..<4 {
                    #expect(out[16 * j + k] == table[Int(index[k]) + j], "lane \(k), float \(j)")
                }
            }
        }
    }
}

@Suite("SIMDMath.atan2: the rotation-mode angle of curved path tracks (semantics §5.7)")
struct SIMDMathAtan2Tests {
    @Test("atan2 within 4e-7 rad of Double's on every octant, the axes, zeros and wide ratios")
    func atan2AgreesWithDouble() {
        var points: [(Float, Float)] = [(0, 1), (0, -1), (1, 0), (-1, 0), (0, 0), (1, 1), (-1, 1), (1, -1), (-1, -1),
                                        (1e-30, 1), (1, 1e-30), (-1e-30, -1), (3e7, -2), (0.414_213_56, 1), (1, 0.414_213_56),
                                        (2.414_213_6, 1), (-2.414_213_6, 1), (.infinity, 1), (1, .infinity)]
        var generator = SplitMix64(seed: 0xA7A2)
        for _ in 0..<20_000 {
            let scale = Float.random(in: -6...6, using: &generator)
            points.append((Float.random(in: -1...1, using: &generator) * powf(10, scale), Float.random(in: -1...1, using: &generator)))
        }
        var worst = 0.0
        for start in stride(from: 0, to: points.count, by: 16) {
            var y = SIMD16<Float>(repeating: 1), x = SIMD16<Float>(repeating: 1)
            for lane in 0..<16 where start + lane < points.count { (y[lane], x[lane]) = points[start + lane] }
            let angle = SIMDMath.atan2(y, x)
            for lane in 0..<16 where start + lane < points.count {
                let expected = Foundation.atan2(Double(y[lane]), Double(x[lane]))
                let miss = abs(Double(angle[lane]) - expected)
                worst = max(worst, miss)
                #expect(miss <= 4e-7, "atan2(\(y[lane]), \(x[lane])) = \(angle[lane]), expected \(expected)")
            }
        }
        #expect(worst > 0)
    }
}
