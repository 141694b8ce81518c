import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// The timing-curve kernel against `TimingFunction.value(at:)` (docs/architecture.md precision table:
/// ≤ 2e-5 absolute, exact at 0 and 1; semantics §3.2).
@Suite("Timing-curve kernel")
struct TimingCurveBatchTests {
    /// `functions[i](inputs[i])` through the batch.
    static func evaluate(_ functions: [TimingFunction], _ inputs: [Float], threads: Int = 1) -> [Float] {
        (try? TimingCurveBatch(functions: functions).evaluate(inputs, threads: threads)) ?? []
    }

    /// Curves on a grid that includes every corner of the contract's domain (x1, x2 in [0, 1],
    /// y1, y2 in [−1, 2]), each at 64 inputs across [0, 1] and 24 from the smallest Float to 1e-2
    /// away from either end (where curves with x1 = 0 rise like √x or ∛x), and curves near the
    /// nearly vertical corner (1, y1, 0, y2) densely around x = 0.5, where their slope is largest.
    static func cornerCases() -> (functions: [TimingFunction], inputs: [Float]) {
        var fs: [TimingFunction] = [], xs: [Float] = []
        let grid: [Double] = [0, 0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1]
        let ys: [Double] = [-1, 0, 0.5, 1, 2]
        for x1 in grid { for x2 in grid { for y1 in ys { for y2 in ys {
            let f = try! TimingFunction(controlPoints: x1, y1, x2, y2)
            for k in 0..<64 {
                fs.append(f)
                xs.append(Float(k) / 63 * (k % 2 == 0 ? 1 : 0.999))
            }
            // Near the ends, where curves with x1 ≈ 0 or x2 ≈ 1 are steepest (y ~ √x).
            for e: Float in [.leastNonzeroMagnitude, 1e-20, 1e-10, 1e-7, 1e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2] {
                fs += [f, f]
                xs += [e, 1 - e]
            }
        } } } }
        for x1 in [1.0, 0.999, 0.99, 0.98, 0.97, 0.95] { for x2 in [0.0, 0.001, 0.01, 0.02, 0.03, 0.05] {
            for (y1, y2) in [(-1.0, 2.0), (0.0, 1.0), (2.0, -1.0), (0.5, 0.5)] {
                let f = try! TimingFunction(controlPoints: x1, y1, x2, y2)
                for k in -100...100 {
                    fs.append(f)
                    xs.append(0.5 + Float(k) * (k % 2 == 0 ? 1e-4 : 1e-6))
                }
            }
        } }
        return (fs, xs)
    }

    @Test("every curve of the contract's domain within 2e-5, Float-kernel curves within 1e-5")
    func corners() {
        let (fs, xs) = Self.cornerCases()
        let y = Self.evaluate(fs, xs)
        var worstKernel = 0.0, worstAll = 0.0, fallbacks = 0
        for i in fs.indices {
            let e = abs(Double(y[i]) - fs[i].value(at: Double(xs[i])))
            worstAll = max(worstAll, e)
            if TimingCurveBatch.usesFloatKernel(for: fs[i]) { worstKernel = max(worstKernel, e) } else { fallbacks += 1 }
        }
        #expect(worstAll <= 2e-5)
        // 1e-5, not 2e-5: a basic animation's value bound is 1e-5 × (|from| + |to| + 1), and the
        // curve's error reaches the value multiplied by |to − from| (measured: 4.9e-6 native, with eight bisection steps).
        #expect(worstKernel <= 1e-5)
        // The nearly vertical corner really is handed to Double: the Float kernel is 6e-3 off there.
        #expect(!TimingCurveBatch.usesFloatKernel(for: try! TimingFunction(controlPoints: 1, -1, 0, 2)))
        #expect(fallbacks > 0)
        // Only curves near the vertical corner need Double (the grid is dense there: 222 of its
        // 2,025 curves, all with x1 ≥ 0.9 and x2 ≤ 0.1).
        let gridCurves = stride(from: 0, to: 2025 * 88, by: 88).map { fs[$0] }
        let gridFallbacks = gridCurves.filter { !TimingCurveBatch.usesFloatKernel(for: $0) }
        #expect(gridFallbacks.allSatisfy { $0.x1 >= 0.9 && $0.x2 <= 0.1 }, "\(gridFallbacks.filter { $0.x1 < 0.9 || $0.x2 > 0.1 })")
    }

    @Test("the named curves and typical custom curves use the Float kernel")
    func namedUseKernel() throws {
        for name in TimingFunction.Name.allCases {
            #expect(TimingCurveBatch.usesFloatKernel(for: TimingFunction(name: name)), "\(name)")
        }
        for (x1, y1, x2, y2) in [(0.4, 0.0, 0.2, 1.0), (0.68, -0.6, 0.32, 1.6), (0.0, 0.0, 1.0, 1.0), (0.5, 2.0, 0.5, -1.0)] {
            #expect(TimingCurveBatch.usesFloatKernel(for: try TimingFunction(controlPoints: x1, y1, x2, y2)))
        }
    }

    @Test("exact at 0 and 1; inputs outside [0, 1] clamp; NaN stays NaN; identity returns its input")
    func edges() throws {
        let curves = [TimingFunction(name: .easeIn), TimingFunction(name: .easeInEaseOut), .linear,
                      try TimingFunction(controlPoints: 1, -1, 0, 2), try TimingFunction(controlPoints: 0.3, 2, 0.7, -1)]
        let inputs: [Float] = [0, 1, -0.5, 1.5, -.infinity, .infinity, .nan, -0.0]
        var fs: [TimingFunction] = [], xs: [Float] = []
        for f in curves { for x in inputs { fs.append(f); xs.append(x) } }
        let y = Self.evaluate(fs, xs)
        for i in fs.indices {
            let x = xs[i]
            if x.isNaN { #expect(y[i].isNaN, "\(fs[i]) at NaN gave \(y[i])"); continue }
            #expect(y[i] == (x >= 1 ? 1 : 0), "\(fs[i]) at \(x) gave \(y[i])")
        }
        let ramp = (0..<100).map { Float($0) / 99 }
        #expect(Self.evaluate([TimingFunction](repeating: .linear, count: ramp.count), ramp) == ramp)
    }

    @Test("W1's curves and inputs: within 2e-5 of the reference")
    func workload() {
        let w = W1Workload(count: TestScale.count(debug: 20_000, release: 1_000_000), seed: 7)
        defer { w.deallocate() }
        let y = Self.evaluate(w.functions, Array(w.inputs.prefix(w.functions.count)), threads: 2)
        // W1's random curves (x1, x2 uniform in [0, 1]) rarely come near the vertical corner.
        let fallbacks = w.functions.filter { !TimingCurveBatch.usesFloatKernel(for: $0) }.count
        #expect(fallbacks < w.functions.count / 100, "\(fallbacks) of \(w.functions.count) in Double")
        var worst = 0.0
        for i in w.functions.indices {
            worst = max(worst, abs(Double(y[i]) - w.functions[i].value(at: Double(w.inputs[i]))))
        }
        #expect(worst <= 2e-5)
        #expect(worst <= 1e-5, "worst \(worst)")
    }

    @Test("the safe form names a count mismatch")
    func countMismatch() {
        let batch = TimingCurveBatch(functions: [.linear, .linear])
        #expect(throws: AnimationError.self) { try batch.evaluate([0.5]) }
        #expect((try? batch.evaluate([0.25, 0.75])) == [0.25, 0.75])
        #expect((try? TimingCurveBatch(functions: []).evaluate([])) == [])
    }

    @Test("results are bit-identical for every thread count and block range split")
    func threadInvariance() {
        let (fs, xs) = Self.cornerCases()
        let one = Self.evaluate(fs, xs, threads: 1)
        for threads in [2, 3, 8] {
            let other = Self.evaluate(fs, xs, threads: threads)
            #expect(one.map(\.bitPattern) == other.map(\.bitPattern), "\(threads) threads")
        }
        // Block ranges of every length from 1 to 5 (the quad, pair and single paths).
        let batch = TimingCurveBatch(functions: fs)
        let padded = batch.blockCount * 16
        let x = xs + [Float](repeating: 0, count: padded - xs.count)
        var y = [Float](repeating: .nan, count: padded)
        x.withUnsafeBufferPointer { xb in
            y.withUnsafeMutableBufferPointer { yb in
                var block = 0, length = 1
                while block < batch.blockCount {
                    let end = min(batch.blockCount, block + length)
                    batch.evaluate(inputs: xb.baseAddress!, outputs: yb.baseAddress!, blocks: block..<end)
                    block = end
                    length = length % 5 + 1
                }
            }
        }
        #expect(Array(y.prefix(xs.count)).map(\.bitPattern) == one.map(\.bitPattern))
    }
}
