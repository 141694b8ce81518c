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

    /// Whether the Float kernel meets design.md's 2e-5 bound for `f` (semantics §3.2).
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
/// **Algorithm (mirror, √-warped bisection B9, guarded Newton N2).** For `x > 0.5` the mirror
/// image (the curve seen from (1, 1): control points (1 − x2, 1 − y2), (1 − x1, 1 − y1)) is solved
/// at `1 − x` and `1 − y′` returned, so both ends of the curve are solved near `s = 0`, where Float
/// has its precision; the batch kernels take `1 − p` from the Double timing stage, so even `p`
/// within 1e-9 of 1 is exact. Then 9 division-free bisection steps on `t ∈ [0, 1]` with `s = t²`
/// (`t ± h`, `h` halving: each step one square, one Horner evaluation, one compare, one blend)
/// bracket the root, and 2 Newton steps in `s`, each clamped into the bracket, converge.
///
/// Why `s = t²`: curves with `x1 ≈ 0` rise like `y ∝ √x` at the start (`x′(0) = 0`). A uniform
/// bisection leaves such a root deep inside its first cell, where Newton only halves the error per
/// step — 1e-4 off at x = 1e-7 with 10 uniform steps (measured). Warped cells are finest near 0
/// (width ≈ 2t·2⁻¹⁰) and no wider than 2⁻⁹ elsewhere, so Newton starts within a few per cent of
/// the root except for roots inside the first cell (s < 2⁻²⁰), whose y is that small too. Measured
/// worst over the kernel tests' corner grid, ends included: 8 steps 2.4e-6 but 1.0e-5 at x = 1e-45;
/// 9 steps 2.5e-6 everywhere; 10 steps 2.0e-6, 15 % slower than 9. Never Newton alone from `s = x`: on steep curves it diverges
/// (performance-notes.md). `x ≤ 0` gives exactly 0 and `x ≥ 1` exactly 1. Curves on the diagonal
/// (`y = x`) return their input (per lane, and the whole block skips the solve when every lane is
/// linear). Nearly vertical curves (``CompiledCurve/isWithinFloatPrecision(_:)``) come out NaN and
/// are evaluated in Double (``CurveColumns``).
///
/// **Error bound.** ≤ 2e-5 absolute for control points x1, x2 in [0, 1] and y in [−1, 2]; the
/// kernel tests measure ≤ 2.5e-6 on every curve it keeps (they require ≤ 1e-5), over a grid
/// through the domain's corners with inputs down to the smallest Float from either end; W1's max
/// and p99.99 are in perf-reports.
///
/// **Speed.** Latency-bound: each bisection step is a chain of dependent vector operations, so
/// ``evaluate4(inputs:outputs:curves:block:)`` interleaves four blocks (four independent chains);
/// W1 figures in perf-reports.
enum CurveKernel {
    /// Polynomial coefficients `x(s) = ((ax·s + bx)·s + cx)·s` and `y(s)` of 16 curves.
    @inline(__always)
    static func coefficients(_ p1: SIMD16<Float>, _ p2: SIMD16<Float>) -> (a: SIMD16<Float>, b: SIMD16<Float>, c: SIMD16<Float>) {
        let c = 3 * p1, b = 3 * (p2 - p1) - c
        return (1 - c - b, b, c)
    }

    /// The bisection steps on `t` (`s = t²`).
    @inline(__always) static var bisectionSteps: Int { 9 }

    /// `s` with `x(s) = u` for 16 curves whose inputs are already mirrored: `u` in [0, 0.5].
    @inline(__always)
    static func solve(_ u: SIMD16<Float>, _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>) -> SIMD16<Float> {
        var t = SIMD16<Float>(repeating: 0.5)
        var h = SIMD16<Float>(repeating: 0.25)
        // t stays the midpoint of a bracket of half-width 2h around the root's √s.
        for _ in 0..<bisectionSteps {
            let s = t * t
            let f = mad(mad(ax, s, bx), s, cx) * s
            t = (t + h).replacing(with: t - h, where: f .> u)
            h *= 0.5
        }
        return polish(t, 2 * h, u, ax, bx, cx)
    }

    /// Two Newton steps in `s` from `s`, each clamped into `[low, high]` (a step that divides by a
    /// zero slope stays put).
    @inline(__always)
    static func newton(_ s: SIMD16<Float>, _ u: SIMD16<Float>, _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>,
                       _ low: SIMD16<Float>, _ high: SIMD16<Float>) -> SIMD16<Float> {
        var s = s
        for _ in 0..<2 {
            let f = mad(mad(ax, s, bx), s, cx) * s
            let slope = mad(mad(3 * ax, s, 2 * bx), s, cx)
            var next = s - (f - u) / slope
            next.replace(with: s, where: next .!= next)
            next.replace(with: low, where: next .< low)
            next.replace(with: high, where: next .> high)
            s = next
        }
        return s
    }

    /// `f(r)` for 16 curves given by their control points: `r` clamped to [0, 1] (NaN kept), `u`
    /// its mirrored form (`1 − r` where `mirror`, formed by the caller in the precision it has).
    @inline(__always)
    static func evaluate(_ r: SIMD16<Float>, mirrored u: SIMD16<Float>, mirror: SIMDMask<SIMD16<Int32>>,
                         x1: SIMD16<Float>, y1: SIMD16<Float>, x2: SIMD16<Float>, y2: SIMD16<Float>) -> SIMD16<Float> {
        let linear = (x1 .== y1) .& (x2 .== y2)
        if all(linear) { return r }
        let (ax, bx, cx) = coefficients(x1.replacing(with: 1 - x2, where: mirror), x2.replacing(with: 1 - x1, where: mirror))
        let s = solve(u, ax, bx, cx)
        return finish(s, r, u, mirror, linear: linear, y1: y1, y2: y2)
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
        let p = narrow(timing.progressLow, timing.progressHigh)
        let one = SIMD8<Double>(repeating: 1), zero = SIMD8<Double>(repeating: 0)
        let mirrorLow = timing.progressLow .> 0.5, mirrorHigh = timing.progressHigh .> 0.5
        let u = narrow(timing.progressLow.replacing(with: one - timing.progressLow, where: mirrorLow),
                       timing.progressHigh.replacing(with: one - timing.progressHigh, where: mirrorHigh))
        let mirror = narrow(zero.replacing(with: one, where: mirrorLow), zero.replacing(with: one, where: mirrorHigh)) .> 0
        var y = evaluate(p, mirrored: u, mirror: mirror, x1: load16(c.x1, i), y1: load16(c.y1, i), x2: load16(c.x2, i), y2: load16(c.y2, i))
        if any(y .!= y) { y = c.patched(y, block: i, progress: timing.progressLow, timing.progressHigh) }
        return y
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
        if any(y .!= y) { y = c.patched(y, block: i, inputs: r) }
        return y
    }

    /// The Newton steps after the bisection on `t`, bracketed by `t ± width` (squared).
    @inline(__always)
    static func polish(_ t: SIMD16<Float>, _ width: SIMD16<Float>, _ u: SIMD16<Float>,
                       _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>) -> SIMD16<Float> {
        var low = t - width
        low = low.replacing(with: 0, where: low .< 0)
        let high = t + width
        return newton(t * t, u, ax, bx, cx, low * low, high * high)
    }

    /// `outputs[i ..< i + 64] = f(inputs[i ..< i + 64])` for four blocks of Float inputs (the W1
    /// form), as one self-contained function: the four solves are interleaved (four independent
    /// dependency chains hide each step's latency), and only what a chain needs lives across the
    /// solve — the input, `t` and three x coefficients per block; the y coefficients are formed
    /// from the control points afterwards — so the loop stays in registers (measured: passing the
    /// blocks' coefficients to a separate solve through memory cost 30 %, inlining this into its
    /// caller 150 %). Nearly vertical curves come out NaN and are patched in memory afterwards.
    @inline(never)
    static func evaluate4(inputs: UnsafePointer<Float>, outputs: UnsafeMutablePointer<Float>, curves c: CurveColumns, block i: Int) {
        // Written out in one body with local helpers: the same steps through the static helpers
        // above were left uninlined here and split into 128-bit pieces (4× slower, measured).
        let x = UnsafeMutablePointer(mutating: inputs)
        @inline(__always) func clamped(_ v: SIMD16<Float>) -> SIMD16<Float> {
            v.replacing(with: 0, where: v .< 0).replacing(with: 1, where: v .> 1)
        }
        @inline(__always) func mirrored(_ v: SIMD16<Float>) -> SIMD16<Float> {
            v.replacing(with: 1 - v, where: v .> 0.5)
        }
        // x(s) coefficients of block b, mirrored where its input is above 0.5.
        @inline(__always) func xCoefficients(_ b: Int, _ r: SIMD16<Float>) -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
            let m = r .> 0.5
            let x1 = load16(c.x1, b), x2 = load16(c.x2, b)
            let p1 = x1.replacing(with: 1 - x2, where: m), p2 = x2.replacing(with: 1 - x1, where: m)
            let cx = 3 * p1, bx = 3 * (p2 - p1) - cx
            return (1 - cx - bx, bx, cx)
        }
        let r0 = clamped(load16(x, i)), r1 = clamped(load16(x, i + 16)), r2 = clamped(load16(x, i + 32)), r3 = clamped(load16(x, i + 48))
        let u0 = mirrored(r0), u1 = mirrored(r1), u2 = mirrored(r2), u3 = mirrored(r3)
        let (ax0, bx0, cx0) = xCoefficients(i, r0)
        let (ax1, bx1, cx1) = xCoefficients(i + 16, r1)
        let (ax2, bx2, cx2) = xCoefficients(i + 32, r2)
        let (ax3, bx3, cx3) = xCoefficients(i + 48, r3)
        var t0 = SIMD16<Float>(repeating: 0.5), t1 = t0, t2 = t0, t3 = t0
        var h = SIMD16<Float>(repeating: 0.25)
        for _ in 0..<bisectionSteps {
            let s0 = t0 * t0, s1 = t1 * t1, s2 = t2 * t2, s3 = t3 * t3
            let f0 = mad(mad(ax0, s0, bx0), s0, cx0) * s0
            let f1 = mad(mad(ax1, s1, bx1), s1, cx1) * s1
            let f2 = mad(mad(ax2, s2, bx2), s2, cx2) * s2
            let f3 = mad(mad(ax3, s3, bx3), s3, cx3) * s3
            t0 = (t0 + h).replacing(with: t0 - h, where: f0 .> u0)
            t1 = (t1 + h).replacing(with: t1 - h, where: f1 .> u1)
            t2 = (t2 + h).replacing(with: t2 - h, where: f2 .> u2)
            t3 = (t3 + h).replacing(with: t3 - h, where: f3 .> u3)
            h *= 0.5
        }
        let width = 2 * h
        @inline(__always) func newton(_ t: SIMD16<Float>, _ u: SIMD16<Float>, _ ax: SIMD16<Float>, _ bx: SIMD16<Float>, _ cx: SIMD16<Float>) -> SIMD16<Float> {
            var low = t - width
            low = low.replacing(with: 0, where: low .< 0)
            let high = t + width
            let lo = low * low, hi = high * high
            var s = t * t
            for _ in 0..<2 {
                let f = mad(mad(ax, s, bx), s, cx) * s
                let slope = mad(mad(3 * ax, s, 2 * bx), s, cx)
                var next = s - (f - u) / slope
                next.replace(with: s, where: next .!= next)
                next.replace(with: lo, where: next .< lo)
                next.replace(with: hi, where: next .> hi)
                s = next
            }
            return s
        }
        let s0 = newton(t0, u0, ax0, bx0, cx0), s1 = newton(t1, u1, ax1, bx1, cx1)
        let s2 = newton(t2, u2, ax2, bx2, cx2), s3 = newton(t3, u3, ax3, bx3, cx3)
        // y(s) from the control points (mirrored alike), the mirror undone, the ends and identity
        // curves exact, NaN inputs kept.
        @inline(__always) func finish(_ b: Int, _ s: SIMD16<Float>, _ r: SIMD16<Float>, _ u: SIMD16<Float>) -> SIMD16<Float> {
            let m = r .> 0.5
            let x1 = load16(c.x1, b), y1 = load16(c.y1, b), x2 = load16(c.x2, b), y2 = load16(c.y2, b)
            let q1 = y1.replacing(with: 1 - y2, where: m), q2 = y2.replacing(with: 1 - y1, where: m)
            let cy = 3 * q1, by = 3 * (q2 - q1) - cy, ay = 1 - cy - by
            var y = mad(mad(ay, s, by), s, cy) * s
            y.replace(with: 0, where: u .<= 0)
            let linear = (x1 .== y1) .& (x2 .== y2)
            return y.replacing(with: 1 - y, where: m).replacing(with: r, where: linear .| (r .!= r))
        }
        let y0 = finish(i, s0, r0, u0), y1 = finish(i + 16, s1, r1, u1)
        let y2 = finish(i + 32, s2, r2, u2), y3 = finish(i + 48, s3, r3, u3)
        store16(y0, outputs, i)
        store16(y1, outputs, i + 16)
        store16(y2, outputs, i + 32)
        store16(y3, outputs, i + 48)
        if any((y0 .!= y0) .| (y1 .!= y1) .| (y2 .!= y2) .| (y3 .!= y3)) {
            for b in stride(from: i, to: i + 64, by: 16) {
                store16(c.patched(load16(outputs, b), block: b, inputs: clamped(load16(x, b))), outputs, b)
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
    /// vector pins the caller's register to memory (performance-notes.md).
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
