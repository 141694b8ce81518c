import AnimationCore
import CKernelSupport

/// A timing function as its two inner control points in Float: four floats per track. The kernel
/// derives the polynomial coefficients, the mirrored curve and the "linear" test in registers,
/// which costs fewer cycles than streaming 13 precomputed floats per track.
struct CompiledCurve: Sendable, Hashable {
    var x1, y1, x2, y2: Float

    init(_ f: TimingFunction?) {
        let f = f ?? .linear
        (x1, y1, x2, y2) = (Float(f.x1), Float(f.y1), Float(f.x2), Float(f.y2))
    }

    static let linear = CompiledCurve(nil)

    /// Whether the Float kernel meets docs/architecture.md's 2e-5 bound for `f` (semantics §3.2).
    ///
    /// The kernel finds `s` with `x(s) = x` in Float, so its answer carries the rounding of `x(s)`
    /// (a few units of 2⁻²⁴ times the size of the polynomial's terms, and of the control points'
    /// conversion to Float) magnified by the curve's slope `y′(s) / x′(s)`. Curves that are nearly
    /// vertical somewhere — `x′(s)` near zero inside (0, 1), as for control points near
    /// (1, y1, 0, y2) — magnify it past the bound: at (1, −1, 0, 2), x = 0.5 the Float solve is off
    /// by 6e-3, and no number of iterations helps. Such curves are evaluated in Double by the
    /// reference instead (`TimingFunction.value(at:)`).
    ///
    /// ``floatErrorEstimate(_:)`` samples `s` at 127 points and at the minimum of `x′`, each in the
    /// orientation (direct or mirrored) the kernel uses there, and takes the largest
    /// `2⁻²⁴ · (4·terms(x)·|y′|/x′ + 4·terms(y))`. Measured against the kernel on grids around
    /// the corners (release test run), the estimate overstates the kernel's error 6 to 11 fold
    /// (estimate 2.0e-5: error 2.6e-6; 4.1e-5: 5.3e-6; 8.3e-5: 1.4e-5; 1.7e-4: 2.8e-5), so the
    /// threshold of 2e-5 keeps accepted curves near 3.5e-6: a value of a basic animation, whose
    /// bound is 1e-5 × (|from| + |to| + 1), stays within it too.
    static func isWithinFloatPrecision(_ f: TimingFunction?) -> Bool {
        guard let f else { return true }
        return floatErrorEstimate(f) <= floatErrorThreshold
    }

    static let floatErrorThreshold = 2e-5

    /// ``isWithinFloatPrecision(_:)`` remembered per distinct curve (the estimate costs about a
    /// microsecond; scenes reuse a few curves many times).
    struct PrecisionCache {
        private var known: [TimingFunction: Bool] = [:]

        mutating func isWithinFloatPrecision(_ f: TimingFunction?) -> Bool {
            guard let f, !f.isLinear else { return true }
            if let answer = known[f] { return answer }
            let answer = CompiledCurve.isWithinFloatPrecision(f)
            known[f] = answer
            return answer
        }
    }

    /// The estimate of ``isWithinFloatPrecision(_:)``.
    static func floatErrorEstimate(_ f: TimingFunction) -> Double {
        let (x1, y1, x2, y2) = (f.x1, f.y1, f.x2, f.y2)
        if x1 == y1 && x2 == y2 { return 0 }
        func coefficients(_ p1: Double, _ p2: Double) -> (Double, Double, Double) {
            let c = 3 * p1, b = 3 * (p2 - p1) - c
            return (1 - c - b, b, c)
        }
        let direct = (x: coefficients(x1, x2), y: coefficients(y1, y2))
        let mirrored = (x: coefficients(1 - x2, 1 - x1), y: coefficients(1 - y2, 1 - y1))
        func estimate(_ s: Double) -> Double {
            let xs = ((direct.x.0 * s + direct.x.1) * s + direct.x.2) * s
            let (c, u) = xs <= 0.5 ? (direct, s) : (mirrored, 1 - s)
            let dx = (3 * c.x.0 * u + 2 * c.x.1) * u + c.x.2
            let dy = (3 * c.y.0 * u + 2 * c.y.1) * u + c.y.2
            let terms = abs(c.x.0) * u * u * u + abs(c.x.1) * u * u + abs(c.x.2) * u
            let termsY = abs(c.y.0) * u * u * u + abs(c.y.1) * u * u + abs(c.y.2) * u
            guard dx > 0 else { return dy == 0 && terms == 0 ? 0 : .infinity }
            return 0x1p-24 * (4 * terms * abs(dy) / dx + 4 * termsY)
        }
        // The minimum of x′(s) = 3·ax·s² + 2·bx·s + cx, where it lies inside.
        let (ax, bx, _) = direct.x
        let vertex = ax != 0 ? -bx / (3 * ax) : -1
        var worst = vertex > 0 && vertex < 1 ? estimate(vertex) : 0
        for k in 1..<128 { worst = max(worst, estimate(Double(k) / 128)) }
        return worst
    }
}

/// The timing-curve kernel: `y = f(x)` for 16 cubic Béziers at once (semantics §3.2).
///
/// **Algorithm (mirror, √-warped bisection B8, guarded Newton and chord steps).** For `x > 0.5` the
/// mirror image (the curve seen from (1, 1): control points (1 − x2, 1 − y2), (1 − x1, 1 − y1)) is
/// solved at `1 − x` and `1 − y′` returned, so both ends of the curve are solved near `s = 0`,
/// where Float has its precision; the batch kernels take `1 − p` from the Double timing stage, so
/// even `p` within 1e-9 of 1 is exact. Then 8 division-free bisection steps on `t ∈ [0, 1]` with
/// `s = t²` (`t ± h`, `h` halving: each step one square, three multiply-adds and a sign transfer —
/// five vector operations, ``bisectionStep(_:_:_:_:_:_:)``), and a ninth for the lanes whose input
/// is below 2⁻¹⁴ (``smallInputStep(_:_:_:_:_:_:)``; skipped when no lane of the block, or of the
/// four interleaved blocks, has one; outside AVX-512 builds the four-block kernel solves such
/// blocks again one by one, ``smallInputsInline``), bracket the root, and 2 steps in `s`,
/// each clamped into the bracket, converge: a Newton step, then one that reuses the first slope (a
/// chord step); both multiply by a reciprocal estimate of it instead of dividing
/// (``newton(_:_:_:_:_:_:_:)``); the clamps are a `max` and a `min`, which also catch a step's one
/// possible NaN.
///
/// Why `s = t²`: curves with `x1 ≈ 0` rise like `y ∝ √x` at the start (`x′(0) = 0`). A uniform
/// bisection leaves such a root deep inside its first cell, where Newton only halves the error per
/// step — 1e-4 off at x = 1e-7 with 10 uniform steps (measured). Warped cells are finest near 0
/// (width ≈ 2t·2⁻⁹ after eight steps) and no wider than 2⁻⁸ elsewhere, so Newton starts within a
/// few per cent of the root except for roots in the first cells, which only small inputs have.
/// Measured worst over the kernel tests' corner grid, ends included, with two Newton steps: 8
/// steps 2.4e-6 but 1.0e-5 at x = 1e-45; 9 steps 2.5e-6 everywhere; 10 steps 2.0e-6, 15 % slower
/// than 9. With the chord step: 9 steps 3.25e-6; 8 steps 4.9e-6 at mid-range inputs (x = 0.523 on
/// (0.99, 0.5, 0.1, 2), a steep curve) but 2.2e-5 at x = 1e-10 (curves with x1 = 0), which the
/// ninth step for small inputs brings back to 3.2e-6; 7 steps 2.9e-5 at mid-range inputs, beyond
/// the contract whatever small inputs get.
///
/// Never Newton alone from `s = x`: on steep curves it diverges (docs/architecture.md, "Measured facts"). `x ≤ 0`
/// gives exactly 0 and `x ≥ 1` exactly 1. Curves on the diagonal (`y = x`) return their input (per
/// lane, and the whole block skips the solve when every lane is linear). Nearly vertical curves
/// (``CompiledCurve/isWithinFloatPrecision(_:)``) come out NaN and are evaluated in Double
/// (``CurveColumns``).
///
/// **Error bound.** ≤ 2e-5 absolute for control points x1, x2 in [0, 1] and y in [−1, 2]; the
/// kernel tests measure ≤ 4.9e-6 on every curve it keeps (they require ≤ 1e-5), over a grid through
/// the domain's corners with inputs down to the smallest Float from either end; W1's max and p99.99
/// are in perf-reports (2.4e-6 at 1,000,000 evaluations with eight steps, 1.1e-6 with nine).
///
/// **Speed.** One block alone is latency-bound (each bisection step is a chain of dependent vector
/// operations, about 19 cycles), so ``evaluate4(_:curves:block:outputs:)`` interleaves four blocks
/// (four independent chains) — W1 and the batches' curve stage both go through it: W1 runs at
/// about 1.8 ns per evaluation on one thread, native build, 83 instructions in the portable build
/// (callgrind). Five interleaved blocks measured no faster than four. The measurements behind each
/// step of the solve are in `perf-reports/kernel-history.md`.
enum CurveKernel {
    /// Polynomial coefficients `x(s) = ((ax·s + bx)·s + cx)·s` and `y(s)` of 16 curves.
    @inline(__always)
    static func coefficients(_ p1: SIMD16<Float>, _ p2: SIMD16<Float>) -> (a: SIMD16<Float>, b: SIMD16<Float>, c: SIMD16<Float>) {
        let c = 3 * p1, b = 3 * (p2 - p1) - c
        return (1 - c - b, b, c)
    }

    /// The bisection steps on `t` (`s = t²`).
    @inline(__always) static var bisectionSteps: Int { 8 }

    /// `s` with `x(s) = u` for 16 curves whose inputs are already mirrored: `u` in [0, 0.5].
    @inline(__always)
    static func solve(_ u: SIMD16<Float>, _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>) -> SIMD16<Float> {
        var t = SIMD16<Float>(repeating: 0.5)
        var h = SIMD16<Float>(repeating: 0.25)
        // t stays the midpoint of a bracket of half-width 2h around the root's √s.
        for _ in 0..<bisectionSteps {
            t = bisectionStep(t, h, u, ax, bx, cx)
            h *= 0.5
        }
        var width = 2 * h
        if anyLane(isSmallInput(u)) { (t, width) = smallInputStep(t, h, u, ax, bx, cx) }
        return polish(t, width, u, ax, bx, cx)
    }

    /// One bisection step on `t` (`s = t²`): `t − h` where `x(s) > u`, else `t + h`, in five
    /// vector operations — `s`, three multiply-adds giving `x(s) − u`, then `t − copysign(h, x(s) − u)`
    /// (the sign bit moved by one bitwise select; `h > 0`). A compare and a blend instead cost two
    /// more operations per step, and the kernel is bound by its operation count on this machine
    /// (four interleaved blocks run no faster than eight).
    @_transparent
    static func bisectionStep(_ t: SIMD16<Float>, _ h: SIMD16<Float>, _ u: SIMD16<Float>,
                              _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>) -> SIMD16<Float> {
        let s = t * t
        let d = mad(mad(mad(ax, s, bx), s, cx), s, -u)
        let signed = unsafeBitCast(h, to: SIMD16<UInt32>.self) | (unsafeBitCast(d, to: SIMD16<UInt32>.self) & signBit)
        return t - unsafeBitCast(signed, to: SIMD16<Float>.self)
    }

    /// Lanes whose (mirrored) input lies in `(0, 2⁻¹⁴)`: their roots can lie in the first few
    /// cells of the bisection, where a cell is wide relative to its `s` (`s = t²`), so they take
    /// one more bisection step (``smallInputStep(_:_:_:_:_:_:)``). Inputs of exactly 0 are not
    /// among them: their answer is exactly 0 whatever the solve gives (``finish(_:_:_:_:linear:y1:y2:)``).
    @_transparent
    static func isSmallInput(_ u: SIMD16<Float>) -> SIMDMask<SIMD16<Int32>> {
        (u .> 0) .& (u .< SIMD16<Float>(repeating: 0x1p-14))
    }

    /// A ninth bisection step for the lanes of ``isSmallInput(_:)``, after the eight every lane
    /// takes: `t` and the bracket's half-width for the polish, per lane (`2h` for the others,
    /// unchanged). Per lane, so a lane's answer does not depend on the other lanes of its block
    /// or group: outputs stay bit-identical for any chunking.
    ///
    /// With eight steps for every lane the kernel tests' corner grid measured 2.2e-5 at x = 1e-10
    /// on curves with x1 = 0 (y ∝ √x there: the root sits in the second cell, a factor of 4 wide
    /// in `s`), and every error above 2.6e-6 at inputs up to 1.0e-5 came from such roots; with the
    /// ninth step for inputs below 2⁻¹⁴ (6.1e-5), the worst input there is 3.2e-6, as with nine
    /// steps for all.
    @_transparent
    static func smallInputStep(_ t: SIMD16<Float>, _ h: SIMD16<Float>, _ u: SIMD16<Float>,
                               _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>) -> (t: SIMD16<Float>, width: SIMD16<Float>) {
        let small = isSmallInput(u)
        return (t.replacing(with: bisectionStep(t, h, u, ax, bx, cx), where: small), (2 * h).replacing(with: h, where: small))
    }

    /// The sign bit of every lane (a computed constant: a `static let` in a kernel is a guarded
    /// global load per use).
    @_transparent
    static var signBit: SIMD16<UInt32> { SIMD16<UInt32>(repeating: 0x8000_0000) }

    /// A Newton step in `s` from `s`, then a chord step that reuses its slope, each clamped into
    /// `[low, high]` (``newtonStep(_:_:_:_:_:_:_:_:)``).
    ///
    /// The step multiplies by an estimate of `1 / x′(s)` (``reciprocalEstimate(_:)``: `vrcp14ps`
    /// with AVX-512, relative error < 2⁻¹⁴; a division in other builds) instead of dividing, and the
    /// second step multiplies by the same estimate instead of evaluating the slope again at the
    /// first step's answer. A step with a slope off by a factor `1 + ε` removes all but `ε` of the
    /// error; after the bisection the root is within a cell of the first step's point, so the
    /// first slope is within about that cell's relative width of the true one, and the second step
    /// still lands within Float's reach of the root: on the kernel tests' corner grid the worst case
    /// went from 2.5e-6 (two Newton steps) to 3.2e-6 (native build), and W1's maximum error stayed
    /// at 5.2e-7 on 16,384 evaluations. Reusing the slope saves two multiply-adds and a reciprocal
    /// per block and shortens the second step's chain: W1 in cache (16,384 evaluations, best of
    /// seven runs, twice, alternating with the two-Newton-step build) 1.71–1.73 against 1.75–1.76 ns.
    @_transparent
    static func newton(_ s: SIMD16<Float>, _ u: SIMD16<Float>, _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>,
                       _ low: SIMD16<Float>, _ high: SIMD16<Float>) -> SIMD16<Float> {
        let inverseSlope = reciprocalEstimate(mad(mad(3 * ax, s, 2 * bx), s, cx))
        let s1 = newtonStep(s, u, ax, bx, cx, inverseSlope, low, high)
        return newtonStep(s1, u, ax, bx, cx, inverseSlope, low, high)
    }

    /// One step in `s` towards `x(s) = u`, `s − (x(s) − u) · inverseSlope`, clamped into
    /// `[low, high]`: a step by an infinite inverse (a zero slope) lands on an end of the bracket
    /// (on `low` when the residual is zero too).
    @_transparent
    static func newtonStep(_ s: SIMD16<Float>, _ u: SIMD16<Float>, _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>,
                           _ inverseSlope: SIMD16<Float>, _ low: SIMD16<Float>, _ high: SIMD16<Float>) -> SIMD16<Float> {
        let residual = mad(mad(mad(ax, s, bx), s, cx), s, -u)
        let next = mad(negated(residual), inverseSlope, s)
        // max then min, as x86 computes them (`vmaxps`, `vminps`: a NaN first operand gives the
        // second), so the only NaN a step can make — 0 × ∞, a zero residual times an infinite
        // inverse — lands on `low` with no test of its own.
        let raised = next.replacing(with: low, where: .!(next .> low))
        return raised.replacing(with: high, where: .!(raised .< high))
    }

    /// `−v` by flipping the sign bits: Swift's prefix minus on a vector is `0 − v`, an operation of
    /// its own (and `+0` for `v = +0`), while a sign flip folds into the multiply-add that uses it
    /// (`vfnmadd`).
    @_transparent
    static func negated(_ v: SIMD16<Float>) -> SIMD16<Float> {
        unsafeBitCast(unsafeBitCast(v, to: SIMD16<UInt32>.self) ^ signBit, to: SIMD16<Float>.self)
    }

    /// `1 / x` per lane, estimated: `vrcp14ps` with AVX-512 (relative error < 2⁻¹⁴), the division
    /// otherwise (`animation_reciprocal_estimate`).
    @_transparent
    static func reciprocalEstimate(_ x: SIMD16<Float>) -> SIMD16<Float> {
        animation_reciprocal_estimate(x)
    }

    /// `f(r)` for 16 curves given by their control points: `r` clamped to [0, 1] (NaN kept), `u`
    /// its mirrored form (`1 − r` where `mirror`, formed by the caller in the precision it has).
    @inline(__always)
    static func evaluate(_ r: SIMD16<Float>, mirrored u: SIMD16<Float>, mirror: SIMDMask<SIMD16<Int32>>,
                         x1: SIMD16<Float>, y1: SIMD16<Float>, x2: SIMD16<Float>, y2: SIMD16<Float>) -> SIMD16<Float> {
        solved(r, mirrored: u, mirror: mirror, x1: x1, y1: y1, x2: x2, y2: y2).y
    }

    /// ``evaluate(_:mirrored:mirror:x1:y1:x2:y2:)`` with the solved parameter `s` of each lane (of
    /// the mirrored curve where mirrored; `u` itself where every curve is linear): the same bits
    /// as the four-block kernel's, for a frame's velocities.
    @inline(__always)
    static func solved(_ r: SIMD16<Float>, mirrored u: SIMD16<Float>, mirror: SIMDMask<SIMD16<Int32>>,
                       x1: SIMD16<Float>, y1: SIMD16<Float>, x2: SIMD16<Float>, y2: SIMD16<Float>) -> (y: SIMD16<Float>, s: SIMD16<Float>) {
        let linear = (x1 .== y1) .& (x2 .== y2)
        if allLanes(linear) { return (r, u) }
        let (ax, bx, cx) = coefficients(x1.replacing(with: 1 - x2, where: mirror), x2.replacing(with: 1 - x1, where: mirror))
        let s = solve(u, ax, bx, cx)
        return (finish(s, r, u, mirror, linear: linear, y1: y1, y2: y2), s)
    }

    /// `y(s)` (mirrored like the solve), the mirror undone; exact 0 and 1 at the ends, identity
    /// curves and NaN inputs returning the input.
    @inline(__always)
    static func finish(_ s: SIMD16<Float>, _ r: SIMD16<Float>, _ u: SIMD16<Float>, _ mirror: SIMDMask<SIMD16<Int32>>,
                       linear: SIMDMask<SIMD16<Int32>>, y1: SIMD16<Float>, y2: SIMD16<Float>) -> SIMD16<Float> {
        let (ay, by, cy) = coefficients(y1.replacing(with: 1 - y2, where: mirror), y2.replacing(with: 1 - y1, where: mirror))
        var y = mad(mad(ay, s, by), s, cy) * s
        y.replace(with: 0, where: u .<= 0)
        return y.replacing(with: 1 - y, where: mirror).replacing(with: r, where: linear .| (r .!= r))
    }

    /// `f(p)` for 16 tracks whose progress comes from the Double timing stage.
    @inline(__always)
    static func evaluate(_ timing: TimingBlock, curves c: CurveColumns, block i: Int) -> SIMD16<Float> {
        solved(timing, curves: c, block: i).y
    }

    /// ``evaluate(_:curves:block:)`` with each lane's solved parameter and 1 where it is the
    /// mirrored curve's (``solved(_:mirrored:mirror:x1:y1:x2:y2:)``).
    @inline(__always)
    static func solved(_ timing: TimingBlock, curves c: CurveColumns, block i: Int)
        -> (y: SIMD16<Float>, s: SIMD16<Float>, mirrored: SIMD16<Float>) {
        let p = narrow(timing.progressLow, timing.progressHigh)
        let one = SIMD8<Double>(repeating: 1), zero = SIMD8<Double>(repeating: 0)
        let mirrorLow = timing.progressLow .> 0.5, mirrorHigh = timing.progressHigh .> 0.5
        let u = narrow(timing.progressLow.replacing(with: one - timing.progressLow, where: mirrorLow),
                       timing.progressHigh.replacing(with: one - timing.progressHigh, where: mirrorHigh))
        let mirrored = narrow(zero.replacing(with: one, where: mirrorLow), zero.replacing(with: one, where: mirrorHigh))
        var (y, s) = solved(p, mirrored: u, mirror: mirrored .> 0, x1: load16(c.x1, i), y1: load16(c.y1, i), x2: load16(c.x2, i), y2: load16(c.y2, i))
        if anyLane(y .!= y) { y = c.patched(y, block: i, progress: timing.progressLow, timing.progressHigh) }
        return (y, s, mirrored)
    }

    /// Inputs clamped to [0, 1] (NaN kept).
    @inline(__always)
    static func clamp(_ v: SIMD16<Float>) -> SIMD16<Float> {
        v.replacing(with: 0, where: v .< 0).replacing(with: 1, where: v .> 1)
    }

    /// `f(x)` for 16 Float inputs (the W1 form): mirrors in Float (`1 − x` is exact for x in
    /// [0.5, 1]); inputs outside [0, 1] clamp.
    @inline(__always)
    static func evaluate(x: SIMD16<Float>, curves c: CurveColumns, block i: Int) -> SIMD16<Float> {
        let r = clamp(x)
        let mirror = r .> 0.5
        var y = evaluate(r, mirrored: r.replacing(with: 1 - r, where: mirror), mirror: mirror,
                         x1: load16(c.x1, i), y1: load16(c.y1, i), x2: load16(c.x2, i), y2: load16(c.y2, i))
        if anyLane(y .!= y) { y = c.patched(y, block: i, inputs: r) }
        return y
    }

    /// The Newton and chord steps after the bisection on `t`, bracketed by `t ± width` (squared).
    @_transparent
    static func polish(_ t: SIMD16<Float>, _ width: SIMD16<Float>, _ u: SIMD16<Float>,
                       _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>) -> SIMD16<Float> {
        var low = t - width
        low = low.replacing(with: 0, where: low .< 0)
        let high = t + width
        return newton(t * t, u, ax, bx, cx, low * low, high * high)
    }

    /// `r`, `u` and the mirror flag (1 or 0) of 64 Float inputs (the W1 form: clamped to [0, 1], NaN
    /// kept, mirrored in Float, where `1 − x` is exact for x in [0.5, 1]), written for ``evaluate4(_:curves:block:outputs:)``.
    @inline(__always)
    static func prepare4(inputs x: UnsafeMutablePointer<Float>, block i: Int, into scratch: UnsafeMutablePointer<Float>) {
        for k in stride(from: 0, to: 64, by: 16) {
            let r = clamp(load16(x, i + k))
            let mirror = r .> 0.5
            store16(r, scratch, k)
            store16(r.replacing(with: 1 - r, where: mirror), scratch, 64 + k)
            store16(SIMD16<Float>(repeating: 0).replacing(with: 1, where: mirror), scratch, 128 + k)
        }
    }

    /// `r`, `u` and the mirror flag of one block whose progress comes from the Double timing stage
    /// (`1 − p` formed in Double, so `p` within 1e-9 of 1 stays exact), at `scratch[k]`, `[64 + k]`
    /// and `[128 + k]`.
    @inline(__always)
    static func prepare(_ timing: TimingBlock, into scratch: UnsafeMutablePointer<Float>, at k: Int) {
        let one = SIMD8<Double>(repeating: 1), zero = SIMD8<Double>(repeating: 0)
        let mirrorLow = timing.progressLow .> 0.5, mirrorHigh = timing.progressHigh .> 0.5
        store16(narrow(timing.progressLow, timing.progressHigh), scratch, k)
        store16(narrow(timing.progressLow.replacing(with: one - timing.progressLow, where: mirrorLow),
                       timing.progressHigh.replacing(with: one - timing.progressHigh, where: mirrorHigh)), scratch, 64 + k)
        store16(narrow(zero.replacing(with: one, where: mirrorLow), zero.replacing(with: one, where: mirrorHigh)), scratch, 128 + k)
    }

    /// `f` for four consecutive blocks (tracks or elements `i ..< i + 64`), from their prepared
    /// inputs: `scratch[0 ..< 64]` the clamped input `r`, `[64 ..< 128]` its mirrored form `u`,
    /// `[128 ..< 192]` 1 where mirrored. Writes `outputs[0 ..< 64]`; nearly vertical curves come
    /// out NaN (callers patch them from their own precision of the input).
    ///
    /// One self-contained function: the four solves are interleaved (four independent dependency
    /// chains), and only what a chain needs lives across the solve — `u`, `t` and three x
    /// coefficients per block; the y coefficients are formed from the control points afterwards —
    /// so the loop stays in registers (measured: passing the blocks' coefficients to a separate
    /// solve through memory cost 30 %, inlining this into its caller 150 %). When all 64 curves are
    /// linear the inputs are copied. With `parameters`, each lane's solved parameter goes there
    /// too (of the mirrored curve where mirrored; the mirrored input where all 64 are linear).
    @inline(never)
    static func evaluate4(_ scratch: UnsafeMutablePointer<Float>, curves c: CurveColumns, block i: Int,
                          outputs: UnsafeMutablePointer<Float>, parameters: UnsafeMutablePointer<Float>? = nil) {
        // Written out in one body with local helpers: the same steps through the static helpers
        // above were left uninlined here and split into 128-bit pieces (4× slower, measured).
        @inline(__always) func isLinear(_ b: Int) -> SIMDMask<SIMD16<Int32>> {
            (load16(c.x1, b) .== load16(c.y1, b)) .& (load16(c.x2, b) .== load16(c.y2, b))
        }
        let linear0 = isLinear(i), linear1 = isLinear(i + 16), linear2 = isLinear(i + 32), linear3 = isLinear(i + 48)
        if allLanes(linear0 .& linear1 .& linear2 .& linear3) {
            outputs.update(from: scratch, count: 64)
            parameters?.update(from: scratch + 64, count: 64)   // a linear curve's parameter is its input
            return
        }
        // x(s) coefficients of block b, mirrored where its flag is set.
        @inline(__always) func xCoefficients(_ b: Int, _ m: SIMDMask<SIMD16<Int32>>) -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
            let x1 = load16(c.x1, b), x2 = load16(c.x2, b)
            let p1 = x1.replacing(with: 1 - x2, where: m), p2 = x2.replacing(with: 1 - x1, where: m)
            let cx = 3 * p1, bx = 3 * (p2 - p1) - cx
            return (1 - cx - bx, bx, cx)
        }
        @inline(__always) func mirrorMask(_ k: Int) -> SIMDMask<SIMD16<Int32>> { load16(scratch, 128 + k) .> 0 }
        let u0 = load16(scratch, 64), u1 = load16(scratch, 80), u2 = load16(scratch, 96), u3 = load16(scratch, 112)
        let (ax0, bx0, cx0) = xCoefficients(i, mirrorMask(0))
        let (ax1, bx1, cx1) = xCoefficients(i + 16, mirrorMask(16))
        let (ax2, bx2, cx2) = xCoefficients(i + 32, mirrorMask(32))
        let (ax3, bx3, cx3) = xCoefficients(i + 48, mirrorMask(48))
        var t0 = SIMD16<Float>(repeating: 0.5), t1 = t0, t2 = t0, t3 = t0
        var h = SIMD16<Float>(repeating: 0.25)
        for _ in 0..<bisectionSteps {
            t0 = bisectionStep(t0, h, u0, ax0, bx0, cx0)
            t1 = bisectionStep(t1, h, u1, ax1, bx1, cx1)
            t2 = bisectionStep(t2, h, u2, ax2, bx2, cx2)
            t3 = bisectionStep(t3, h, u3, ax3, bx3, cx3)
            h *= 0.5
        }
        // The ninth step of small inputs (``smallInputStep(_:_:_:_:_:_:)``): here, skipped when none
        // has one, with AVX-512; in other builds by solving their blocks again, below.
        var w0 = 2 * h, w1 = w0, w2 = w0, w3 = w0
        if smallInputsInline && anyLane(isSmallInput(u0) .| isSmallInput(u1) .| isSmallInput(u2) .| isSmallInput(u3)) {
            (t0, w0) = smallInputStep(t0, h, u0, ax0, bx0, cx0)
            (t1, w1) = smallInputStep(t1, h, u1, ax1, bx1, cx1)
            (t2, w2) = smallInputStep(t2, h, u2, ax2, bx2, cx2)
            (t3, w3) = smallInputStep(t3, h, u3, ax3, bx3, cx3)
        }
        let s0 = polish(t0, w0, u0, ax0, bx0, cx0), s1 = polish(t1, w1, u1, ax1, bx1, cx1)
        let s2 = polish(t2, w2, u2, ax2, bx2, cx2), s3 = polish(t3, w3, u3, ax3, bx3, cx3)
        // y(s) from the control points (mirrored alike), the mirror undone, the ends and identity
        // curves exact, NaN inputs kept.
        @inline(__always) func finish(_ k: Int, _ s: SIMD16<Float>, _ u: SIMD16<Float>, _ linear: SIMDMask<SIMD16<Int32>>) {
            let b = i + k, m = mirrorMask(k), r = load16(scratch, k)
            let y1 = load16(c.y1, b), y2 = load16(c.y2, b)
            let q1 = y1.replacing(with: 1 - y2, where: m), q2 = y2.replacing(with: 1 - y1, where: m)
            let cy = 3 * q1, by = 3 * (q2 - q1) - cy, ay = 1 - cy - by
            var y = mad(mad(ay, s, by), s, cy) * s
            y.replace(with: 0, where: u .<= 0)
            store16(y.replacing(with: 1 - y, where: m).replacing(with: r, where: linear .| (r .!= r)), outputs, k)
        }
        // Each block's solved parameters stored as it finishes (for a frame's velocities), so
        // that no solution lives longer than it did without them.
        finish(0, s0, u0, linear0)
        parameters.map { store16(s0, $0, 0) }
        finish(16, s1, u1, linear1)
        parameters.map { store16(s1, $0, 16) }
        finish(32, s2, u2, linear2)
        parameters.map { store16(s2, $0, 32) }
        finish(48, s3, u3, linear3)
        parameters.map { store16(s3, $0, 48) }
        if !smallInputsInline {
            for k in stride(from: 0, to: 64, by: 16) where anyLane(isSmallInput(load16(scratch, 64 + k))) {
                solveAgain(scratch, at: k, curves: c, block: i + k, outputs: outputs, parameters: parameters)
            }
        }
    }

    /// Whether ``evaluate4(_:curves:block:outputs:)`` gives small inputs their ninth bisection step
    /// in line (AVX-512 builds) or solves their blocks again out of line (other builds: rare
    /// blocks, W1's random inputs have a small one in about 1 % of four-block groups). Both give
    /// every lane the bits of the one-block solve. Measured (W1, alternating runs on one core):
    /// in line, the native build runs 3–5 % faster than with nine steps for all (16,384 and
    /// 1,000,000 evaluations, fifteen and eleven runs), the portable one 4–5 % slower; solved
    /// again, the portable build runs as fast as with nine steps, the native one no faster.
    @_transparent
    static var smallInputsInline: Bool { animation_has_avx512() != 0 }

    /// Block `b`'s outputs from its prepared inputs at `scratch[k]`, `[64 + k]`, `[128 + k]`, through
    /// the one-block solve (``evaluate(_:mirrored:mirror:x1:y1:x2:y2:)``), which gives every lane the
    /// same bits as the four-block kernel, with the small inputs' ninth step.
    @inline(never)
    static func solveAgain(_ scratch: UnsafeMutablePointer<Float>, at k: Int, curves c: CurveColumns, block b: Int,
                           outputs: UnsafeMutablePointer<Float>, parameters: UnsafeMutablePointer<Float>?) {
        let (y, s) = solved(load16(scratch, k), mirrored: load16(scratch, 64 + k), mirror: load16(scratch, 128 + k) .> 0,
                            x1: load16(c.x1, b), y1: load16(c.y1, b), x2: load16(c.x2, b), y2: load16(c.y2, b))
        store16(y, outputs, k)
        if let parameters { store16(s, parameters, k) }
    }

    /// `outputs[i ..< i + 64] = f(inputs[i ..< i + 64])` for four blocks of Float inputs (the W1
    /// form), nearly vertical curves patched in Double.
    @inline(__always)
    static func evaluate4(inputs: UnsafePointer<Float>, outputs: UnsafeMutablePointer<Float>, curves c: CurveColumns, block i: Int,
                          scratch: UnsafeMutablePointer<Float>) {
        let x = UnsafeMutablePointer(mutating: inputs)
        prepare4(inputs: x, block: i, into: scratch)
        evaluate4(scratch, curves: c, block: i, outputs: outputs + i)
        for b in stride(from: i, to: i + 64, by: 16) {
            let y = load16(outputs, b)
            if anyLane(y .!= y) { store16(c.patched(y, block: b, inputs: clamp(load16(x, b))), outputs, b) }
        }
    }

    /// `f(p)` for `count` (1 to 4) consecutive blocks of tracks from their timing blocks, written to
    /// `outputs[0 ..< 16 · count]`; four blocks go through the interleaved kernel, fewer one by
    /// one. Curves evaluated in Double read the Double progress.
    ///
    /// With `parameters`, every block also leaves there each lane's solved curve parameter (of
    /// the mirrored curve where `scratch[128 ..< 192]` marks it), the same bits either way.
    @inline(__always)
    static func evaluate(_ timings: UnsafeMutablePointer<TimingBlock>, count: Int, curves c: CurveColumns, block i: Int,
                         scratch: UnsafeMutablePointer<Float>, outputs: UnsafeMutablePointer<Float>,
                         parameters: UnsafeMutablePointer<Float>? = nil) {
        guard count == 4 else {
            for k in 0..<count {
                guard let parameters else {
                    store16(evaluate(timings[k], curves: c, block: i + 16 * k), outputs, 16 * k)
                    continue
                }
                let (y, s, mirrored) = solved(timings[k], curves: c, block: i + 16 * k)
                store16(y, outputs, 16 * k)
                store16(s, parameters, 16 * k)
                store16(mirrored, scratch, 128 + 16 * k)
            }
            return
        }
        for k in 0..<4 { prepare(timings[k], into: scratch, at: 16 * k) }
        evaluate4(scratch, curves: c, block: i, outputs: outputs, parameters: parameters)
        for k in 0..<4 {
            let y = load16(outputs, 16 * k)
            if anyLane(y .!= y) {
                store16(c.patched(y, block: i + 16 * k, progress: timings[k].progressLow, timings[k].progressHigh), outputs, 16 * k)
            }
        }
    }
}

/// `a·b + c`: one fused instruction when the build targets a CPU with FMA, else a multiply and an
/// add (`addingProduct` without hardware FMA is a libm call per lane). `animation_has_fma()` is a
/// compile-time constant here.
@inline(__always) func mad(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
    animation_has_fma() != 0 ? c.addingProduct(a, b) : a * b + c
}

/// The curve columns of a batch: four control-point coordinates per track, and the curves the
/// Float kernel hands to Double.
///
/// A track whose curve fails ``CompiledCurve/isWithinFloatPrecision(_:)`` has `x1 = x2 = y2 = NaN`
/// (so the kernel's answer is NaN in either orientation, except the exact 0 at the ends) and `y1`
/// holding the bits of an index into `functions`; the kernels replace NaN answers of such lanes
/// with `functions[index].value(at:)` in Double.
struct CurveColumns {
    let x1, y1, x2, y2: UnsafeMutablePointer<Float>
    let functions: UnsafePointer<TimingFunction>

    /// `y` with the lanes (tracks `i ..< i + 16`) whose curve is evaluated in Double replaced by
    /// their value at the Double progress `(low, high)`. Called only when some lane of `y` is NaN
    /// (NaN progress also gives NaN, and stays NaN). Values in and out, never `inout`: an `inout`
    /// vector pins the caller's register to memory (docs/architecture.md, "Measured facts").
    @inline(never)
    func patched(_ y: SIMD16<Float>, block i: Int, progress low: SIMD8<Double>, _ high: SIMD8<Double>) -> SIMD16<Float> {
        var y = y
        for lane in 0..<16 where y[lane].isNaN && x1[i + lane].isNaN {
            let function = functions[Int(y1[i + lane].bitPattern)]
            y[lane] = Float(function.value(at: lane < 8 ? low[lane] : high[lane - 8]))
        }
        return y
    }

    /// ``patched(_:block:progress:_:)`` for Float inputs (the W1 form).
    @inline(never)
    func patched(_ y: SIMD16<Float>, block i: Int, inputs x: SIMD16<Float>) -> SIMD16<Float> {
        var y = y
        for lane in 0..<16 where y[lane].isNaN && x1[i + lane].isNaN {
            let function = functions[Int(y1[i + lane].bitPattern)]
            y[lane] = Float(function.value(at: Double(x[lane])))
        }
        return y
    }
}

/// Storage for ``CurveColumns``.
final class CurveStorage {
    let x1 = Column<Float>(fill: 0), y1 = Column<Float>(fill: 0), x2 = Column<Float>(fill: 1), y2 = Column<Float>(fill: 1)
    /// The distinct curves evaluated in Double, with their positions in `functions`.
    private var functions: UnsafeMutablePointer<TimingFunction>
    private var functionCapacity = 4
    private var functionIndex: [TimingFunction: Int] = [:]
    private var precision = CompiledCurve.PrecisionCache()

    init() {
        functions = .allocate(capacity: functionCapacity)
    }

    deinit {
        // Owned: `functionIndex.count` initialised entries below `functionCapacity`, moved on growth.
        functions.deinitialize(count: functionIndex.count)
        functions.deallocate()
    }

    func reserve(_ needed: Int, count: Int) {
        for c in [x1, y1, x2, y2] { c.reserve(needed, count: count) }
    }

    /// Sets track `i`'s curve (nil: linear), marking it for Double evaluation when the Float kernel
    /// cannot meet the bound for it.
    func set(_ i: Int, _ function: TimingFunction?) {
        guard let function, !precision.isWithinFloatPrecision(function) else {
            let c = CompiledCurve(function)
            (x1[i], y1[i], x2[i], y2[i]) = (c.x1, c.y1, c.x2, c.y2)
            return
        }
        let index = functionIndex[function] ?? append(function)
        (x1[i], y1[i], x2[i], y2[i]) = (.nan, Float(bitPattern: UInt32(index)), .nan, .nan)
    }

    private func append(_ function: TimingFunction) -> Int {
        let index = functionIndex.count
        if index == functionCapacity {
            // The old entries are moved (not copied) into the new buffer, then the old one is freed.
            let grown = UnsafeMutablePointer<TimingFunction>.allocate(capacity: functionCapacity * 2)
            grown.moveInitialize(from: functions, count: index)
            functions.deallocate()
            functions = grown
            functionCapacity *= 2
        }
        (functions + index).initialize(to: function)
        functionIndex[function] = index
        return index
    }

    /// Sets track `i`'s curve from Float control points already checked at compile time (a
    /// keyframe segment's, copied from its record: nearly vertical segment curves never reach the
    /// Float kernels, see `TrackStore`).
    @inline(__always)
    func setControlPoints(_ i: Int, x1 a: Float, y1 b: Float, x2 c: Float, y2 d: Float) {
        (x1[i], y1[i], x2[i], y2[i]) = (a, b, c, d)
    }

    /// Whether track `i`'s curve is evaluated in Double.
    func isDoubleEvaluated(_ i: Int) -> Bool { x1[i].isNaN }

    func move(_ from: Int, to: Int) {
        for c in [x1, y1, x2, y2] { c[to] = c[from] }
    }

    var columns: CurveColumns {
        CurveColumns(x1: x1.base, y1: y1.base, x2: x2.base, y2: y2.base, functions: UnsafePointer(functions))
    }
}
