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
/// **Algorithm (B10N2 with a mirror).** For `x > 0.5` the mirror image (the curve seen from (1, 1):
/// control points (1 − x2, 1 − y2), (1 − x1, 1 − y1)) is solved at `1 − x` and `1 − y′` returned, so
/// the flat end of curves with `x2 ≈ 1` is solved where Float has its precision; the batch kernels
/// take `1 − p` from the Double timing stage, so even `p` within 1e-9 of 1 is exact. Then 10
/// division-free bisection steps on `s ∈ [0, 1]` (`s ± h`, `h` halving: each step one Horner
/// evaluation, one compare, one blend) bracket the root within 2⁻¹¹, and 2 Newton steps, each
/// clamped into that bracket, converge (quadratically where `x′(s)` is not small). Never Newton
/// alone from `s = x`: on steep curves it diverges (performance-notes.md). `x ≤ 0` gives exactly 0
/// and `x ≥ 1` exactly 1. Curves on the diagonal (`y = x`) skip the solve (per lane, and the whole
/// block when every lane is linear).
///
/// **Error bound.** ≤ 2e-5 absolute for control points x1, x2 in [0, 1] and y in [−1, 2]; measured
/// over W1 (10⁶ evaluations, named and random curves): max 2.2e-6, p99.99 7e-7 (perf-reports).
///
/// **Speed.** See perf-reports (W1: ns per evaluation, one and two threads).
enum CurveKernel {
    /// Polynomial coefficients `x(s) = ((ax·s + bx)·s + cx)·s` and `y(s)` of 16 curves.
    @inline(__always)
    static func coefficients(_ x1: SIMD16<Float>, _ y1: SIMD16<Float>, _ x2: SIMD16<Float>, _ y2: SIMD16<Float>)
        -> (ax: SIMD16<Float>, bx: SIMD16<Float>, cx: SIMD16<Float>, ay: SIMD16<Float>, by: SIMD16<Float>, cy: SIMD16<Float>) {
        let cx = 3 * x1, bx = 3 * (x2 - x1) - cx, ax = 1 - cx - bx
        let cy = 3 * y1, by = 3 * (y2 - y1) - cy, ay = 1 - cy - by
        return (ax, bx, cx, ay, by, cy)
    }

    /// Solves 16 curves whose inputs are already mirrored: `x` in [0, 0.5] (0 means an end).
    @inline(__always)
    static func solve(x: SIMD16<Float>, ax: SIMD16<Float>, bx: SIMD16<Float>, cx: SIMD16<Float>,
                      ay: SIMD16<Float>, by: SIMD16<Float>, cy: SIMD16<Float>) -> SIMD16<Float> {
        var s = SIMD16<Float>(repeating: 0.5)
        var h = SIMD16<Float>(repeating: 0.25)
        // Bisection: s stays the midpoint of a bracket of half-width 2h around the root.
        for _ in 0..<10 {
            let xs = mad(mad(ax, s, bx), s, cx) * s
            s += h.replacing(with: -h, where: xs .> x)
            h *= 0.5
        }
        let lo = s - 2 * h, hi = s + 2 * h
        // Guarded Newton: a step that leaves the bracket (or divides by a zero slope) is clamped.
        for _ in 0..<2 {
            let xs = mad(mad(ax, s, bx), s, cx) * s
            let slope = mad(mad(3 * ax, s, 2 * bx), s, cx)
            var next = s - (xs - x) / slope
            next.replace(with: s, where: next .!= next)
            next.replace(with: lo, where: next .< lo)
            next.replace(with: hi, where: next .> hi)
            s = next
        }
        var y = mad(mad(ay, s, by), s, cy) * s
        y.replace(with: 0, where: x .<= 0)
        return y
    }

    /// `f(x)` for 16 curves given by their control points, `x` already mirrored where `mirror` is
    /// set (the caller forms `1 − x` in the precision it has).
    @inline(__always)
    static func evaluate(mirroredInput x: SIMD16<Float>, mirror: SIMDMask<SIMD16<Int32>>, raw: SIMD16<Float>,
                         x1: SIMD16<Float>, y1: SIMD16<Float>, x2: SIMD16<Float>, y2: SIMD16<Float>) -> SIMD16<Float> {
        let linear = (x1 .== y1) .& (x2 .== y2)
        if all(linear) { return raw }
        // The mirror image's control points: (1 − x2, 1 − y2), (1 − x1, 1 − y1).
        let c = coefficients(x1.replacing(with: 1 - x2, where: mirror), y1.replacing(with: 1 - y2, where: mirror),
                             x2.replacing(with: 1 - x1, where: mirror), y2.replacing(with: 1 - y1, where: mirror))
        let y = solve(x: x, ax: c.ax, bx: c.bx, cx: c.cx, ay: c.ay, by: c.by, cy: c.cy)
        // Identity curves return their input; so does NaN (the solve would turn it into a number).
        return y.replacing(with: 1 - y, where: mirror).replacing(with: raw, where: linear .| (raw .!= raw))
    }

    /// `f(p)` for 16 tracks whose progress comes from the Double timing stage.
    @inline(__always)
    static func evaluate(_ timing: TimingBlock, curves c: CurveColumns, block i: Int) -> SIMD16<Float> {
        let p = narrow(timing.progressLow, timing.progressHigh)
        let one = SIMD8<Double>(repeating: 1), zero = SIMD8<Double>(repeating: 0)
        let mirrorLow = timing.progressLow .> 0.5, mirrorHigh = timing.progressHigh .> 0.5
        let x = narrow(timing.progressLow.replacing(with: one - timing.progressLow, where: mirrorLow),
                       timing.progressHigh.replacing(with: one - timing.progressHigh, where: mirrorHigh))
        let mirror = narrow(zero.replacing(with: one, where: mirrorLow), zero.replacing(with: one, where: mirrorHigh)) .> 0
        var y = evaluate(mirroredInput: x, mirror: mirror, raw: p,
                         x1: load16(c.x1, i), y1: load16(c.y1, i), x2: load16(c.x2, i), y2: load16(c.y2, i))
        if any(y .!= y) {
            c.patch(&y, block: i) { lane in lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8] }
        }
        return y
    }

    /// `f(x)` for 16 Float inputs (the W1 workload's form): mirrors in Float (`1 − x` is exact for x
    /// in [0.5, 1]); inputs outside [0, 1] clamp.
    @inline(__always)
    static func evaluate(x: SIMD16<Float>, curves c: CurveColumns, block i: Int) -> SIMD16<Float> {
        let clamped = x.replacing(with: 0, where: x .< 0).replacing(with: 1, where: x .> 1)
        let mirror = clamped .> 0.5
        var y = evaluate(mirroredInput: clamped.replacing(with: 1 - clamped, where: mirror), mirror: mirror, raw: clamped,
                         x1: load16(c.x1, i), y1: load16(c.y1, i), x2: load16(c.x2, i), y2: load16(c.y2, i))
        if any(y .!= y) { c.patch(&y, block: i) { Double(clamped[$0]) } }
        return y
    }
}

/// `a·b + c`: one fused instruction when the build targets a CPU with FMA, else a multiply and an
/// add (`addingProduct` without hardware FMA is a libm call per lane). `animation_has_fma()` is a
/// compile-time constant here.
@inline(__always) func mad(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
    animation_has_fma() != 0 ? c.addingProduct(a, b) : a * b + c
}

/// Two independent blocks of curves, solved together (see ``CurveKernel/solve(_:_:)``).
struct CurvePair {
    var x: (SIMD16<Float>, SIMD16<Float>)
    var ax: (SIMD16<Float>, SIMD16<Float>), bx: (SIMD16<Float>, SIMD16<Float>), cx: (SIMD16<Float>, SIMD16<Float>)
    var ay: (SIMD16<Float>, SIMD16<Float>), by: (SIMD16<Float>, SIMD16<Float>), cy: (SIMD16<Float>, SIMD16<Float>)
}

extension CurveKernel {
    /// ``solve(x:ax:bx:cx:ay:by:cy:)`` for two blocks at once, their steps interleaved in one loop
    /// body: the solve is bound by the latency of its dependency chain (10 bisection steps of a
    /// 3-step Horner evaluation), so two independent chains take little longer than one
    /// (performance-notes.md: "2–4 independent vectors per loop iteration"). `SIMD32` would express
    /// the same, but falls off Swift's fast path (lane-by-lane code, 300× slower, measured).
    @inline(__always)
    static func solve(_ c: CurvePair) -> (SIMD16<Float>, SIMD16<Float>) {
        var s0 = SIMD16<Float>(repeating: 0.5), s1 = s0
        var h = SIMD16<Float>(repeating: 0.25)
        for _ in 0..<10 {
            let x0 = mad(mad(c.ax.0, s0, c.bx.0), s0, c.cx.0) * s0
            let x1 = mad(mad(c.ax.1, s1, c.bx.1), s1, c.cx.1) * s1
            s0 += h.replacing(with: -h, where: x0 .> c.x.0)
            s1 += h.replacing(with: -h, where: x1 .> c.x.1)
            h *= 0.5
        }
        let lo0 = s0 - 2 * h, hi0 = s0 + 2 * h, lo1 = s1 - 2 * h, hi1 = s1 + 2 * h
        for _ in 0..<2 {
            let x0 = mad(mad(c.ax.0, s0, c.bx.0), s0, c.cx.0) * s0
            let x1 = mad(mad(c.ax.1, s1, c.bx.1), s1, c.cx.1) * s1
            let slope0 = mad(mad(3 * c.ax.0, s0, 2 * c.bx.0), s0, c.cx.0)
            let slope1 = mad(mad(3 * c.ax.1, s1, 2 * c.bx.1), s1, c.cx.1)
            var n0 = s0 - (x0 - c.x.0) / slope0
            var n1 = s1 - (x1 - c.x.1) / slope1
            n0.replace(with: s0, where: n0 .!= n0)
            n1.replace(with: s1, where: n1 .!= n1)
            n0.replace(with: lo0, where: n0 .< lo0)
            n1.replace(with: lo1, where: n1 .< lo1)
            n0.replace(with: hi0, where: n0 .> hi0)
            n1.replace(with: hi1, where: n1 .> hi1)
            s0 = n0
            s1 = n1
        }
        var y0 = mad(mad(c.ay.0, s0, c.by.0), s0, c.cy.0) * s0
        var y1 = mad(mad(c.ay.1, s1, c.by.1), s1, c.cy.1) * s1
        y0.replace(with: 0, where: c.x.0 .<= 0)
        y1.replace(with: 0, where: c.x.1 .<= 0)
        return (y0, y1)
    }

    /// The inputs of one block for ``solve(_:)``: mirrored input and mirrored coefficients.
    @inline(__always)
    static func prepare(mirroredInput x: SIMD16<Float>, mirror: SIMDMask<SIMD16<Int32>>,
                        x1: SIMD16<Float>, y1: SIMD16<Float>, x2: SIMD16<Float>, y2: SIMD16<Float>)
        -> (x: SIMD16<Float>, ax: SIMD16<Float>, bx: SIMD16<Float>, cx: SIMD16<Float>, ay: SIMD16<Float>, by: SIMD16<Float>, cy: SIMD16<Float>) {
        let c = coefficients(x1.replacing(with: 1 - x2, where: mirror), y1.replacing(with: 1 - y2, where: mirror),
                             x2.replacing(with: 1 - x1, where: mirror), y2.replacing(with: 1 - y1, where: mirror))
        return (x, c.ax, c.bx, c.cx, c.ay, c.by, c.cy)
    }

    /// `f(x)` for two blocks of Float inputs starting at `i` (the W1 form).
    @inline(__always)
    static func evaluatePair(x: (SIMD16<Float>, SIMD16<Float>), curves c: CurveColumns, block i: Int) -> (SIMD16<Float>, SIMD16<Float>) {
        func clamp(_ v: SIMD16<Float>) -> SIMD16<Float> { v.replacing(with: 0, where: v .< 0).replacing(with: 1, where: v .> 1) }
        let r0 = clamp(x.0), r1 = clamp(x.1)
        let m0 = r0 .> 0.5, m1 = r1 .> 0.5
        let a = prepare(mirroredInput: r0.replacing(with: 1 - r0, where: m0), mirror: m0,
                        x1: load16(c.x1, i), y1: load16(c.y1, i), x2: load16(c.x2, i), y2: load16(c.y2, i))
        let b = prepare(mirroredInput: r1.replacing(with: 1 - r1, where: m1), mirror: m1,
                        x1: load16(c.x1, i + 16), y1: load16(c.y1, i + 16), x2: load16(c.x2, i + 16), y2: load16(c.y2, i + 16))
        let (y0, y1) = solve(CurvePair(x: (a.x, b.x), ax: (a.ax, b.ax), bx: (a.bx, b.bx), cx: (a.cx, b.cx),
                                       ay: (a.ay, b.ay), by: (a.by, b.by), cy: (a.cy, b.cy)))
        let linear0 = (load16(c.x1, i) .== load16(c.y1, i)) .& (load16(c.x2, i) .== load16(c.y2, i))
        let linear1 = (load16(c.x1, i + 16) .== load16(c.y1, i + 16)) .& (load16(c.x2, i + 16) .== load16(c.y2, i + 16))
        var f0 = y0.replacing(with: 1 - y0, where: m0).replacing(with: r0, where: linear0 .| (r0 .!= r0))
        var f1 = y1.replacing(with: 1 - y1, where: m1).replacing(with: r1, where: linear1 .| (r1 .!= r1))
        if any((f0 .!= f0) .| (f1 .!= f1)) {
            c.patch(&f0, block: i) { Double(r0[$0]) }
            c.patch(&f1, block: i + 16) { Double(r1[$0]) }
        }
        return (f0, f1)
    }
}

/// Four independent blocks of curves, solved together (see ``CurveKernel/solve(_:)-4``).
struct CurveQuad {
    var x: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>)
    var ax: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>), bx: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>), cx: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>)
    var ay: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>), by: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>), cy: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>)
}

extension CurveKernel {
    /// The solve of ``solve(x:ax:bx:cx:ay:by:cy:)`` for four blocks, interleaved in one loop body
    /// (generated: the same lines four times). Four chains hide more of each step's latency than two.
    @inline(__always)
    static func solve(_ c: CurveQuad) -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        var s0 = SIMD16<Float>(repeating: 0.5)
        var s1 = SIMD16<Float>(repeating: 0.5)
        var s2 = SIMD16<Float>(repeating: 0.5)
        var s3 = SIMD16<Float>(repeating: 0.5)
        var h = SIMD16<Float>(repeating: 0.25)
        for _ in 0..<10 {
            let x0 = mad(mad(c.ax.0, s0, c.bx.0), s0, c.cx.0) * s0
            let x1 = mad(mad(c.ax.1, s1, c.bx.1), s1, c.cx.1) * s1
            let x2 = mad(mad(c.ax.2, s2, c.bx.2), s2, c.cx.2) * s2
            let x3 = mad(mad(c.ax.3, s3, c.bx.3), s3, c.cx.3) * s3
            s0 += h.replacing(with: -h, where: x0 .> c.x.0)
            s1 += h.replacing(with: -h, where: x1 .> c.x.1)
            s2 += h.replacing(with: -h, where: x2 .> c.x.2)
            s3 += h.replacing(with: -h, where: x3 .> c.x.3)
            h *= 0.5
        }
        let lo0 = s0 - 2 * h, hi0 = s0 + 2 * h
        let lo1 = s1 - 2 * h, hi1 = s1 + 2 * h
        let lo2 = s2 - 2 * h, hi2 = s2 + 2 * h
        let lo3 = s3 - 2 * h, hi3 = s3 + 2 * h
        for _ in 0..<2 {
            let x0 = mad(mad(c.ax.0, s0, c.bx.0), s0, c.cx.0) * s0
            let x1 = mad(mad(c.ax.1, s1, c.bx.1), s1, c.cx.1) * s1
            let x2 = mad(mad(c.ax.2, s2, c.bx.2), s2, c.cx.2) * s2
            let x3 = mad(mad(c.ax.3, s3, c.bx.3), s3, c.cx.3) * s3
            let slope0 = mad(mad(3 * c.ax.0, s0, 2 * c.bx.0), s0, c.cx.0)
            let slope1 = mad(mad(3 * c.ax.1, s1, 2 * c.bx.1), s1, c.cx.1)
            let slope2 = mad(mad(3 * c.ax.2, s2, 2 * c.bx.2), s2, c.cx.2)
            let slope3 = mad(mad(3 * c.ax.3, s3, 2 * c.bx.3), s3, c.cx.3)
            var n0 = s0 - (x0 - c.x.0) / slope0
            var n1 = s1 - (x1 - c.x.1) / slope1
            var n2 = s2 - (x2 - c.x.2) / slope2
            var n3 = s3 - (x3 - c.x.3) / slope3
            n0.replace(with: s0, where: n0 .!= n0)
            n1.replace(with: s1, where: n1 .!= n1)
            n2.replace(with: s2, where: n2 .!= n2)
            n3.replace(with: s3, where: n3 .!= n3)
            n0.replace(with: lo0, where: n0 .< lo0)
            n1.replace(with: lo1, where: n1 .< lo1)
            n2.replace(with: lo2, where: n2 .< lo2)
            n3.replace(with: lo3, where: n3 .< lo3)
            n0.replace(with: hi0, where: n0 .> hi0)
            n1.replace(with: hi1, where: n1 .> hi1)
            n2.replace(with: hi2, where: n2 .> hi2)
            n3.replace(with: hi3, where: n3 .> hi3)
            s0 = n0
            s1 = n1
            s2 = n2
            s3 = n3
        }
        var y0 = mad(mad(c.ay.0, s0, c.by.0), s0, c.cy.0) * s0
        var y1 = mad(mad(c.ay.1, s1, c.by.1), s1, c.cy.1) * s1
        var y2 = mad(mad(c.ay.2, s2, c.by.2), s2, c.cy.2) * s2
        var y3 = mad(mad(c.ay.3, s3, c.by.3), s3, c.cy.3) * s3
        y0.replace(with: 0, where: c.x.0 .<= 0)
        y1.replace(with: 0, where: c.x.1 .<= 0)
        y2.replace(with: 0, where: c.x.2 .<= 0)
        y3.replace(with: 0, where: c.x.3 .<= 0)
        return (y0, y1, y2, y3)
    }

    /// `f(x)` for four blocks of Float inputs starting at `i` (the W1 form).
    @inline(__always)
    static func evaluateQuad(x: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>), curves c: CurveColumns, block i: Int) -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        func clamp(_ v: SIMD16<Float>) -> SIMD16<Float> { v.replacing(with: 0, where: v .< 0).replacing(with: 1, where: v .> 1) }
        let r0 = clamp(x.0), m0 = r0 .> 0.5
        let p0 = prepare(mirroredInput: r0.replacing(with: 1 - r0, where: m0), mirror: m0, x1: load16(c.x1, i + 0), y1: load16(c.y1, i + 0), x2: load16(c.x2, i + 0), y2: load16(c.y2, i + 0))
        let r1 = clamp(x.1), m1 = r1 .> 0.5
        let p1 = prepare(mirroredInput: r1.replacing(with: 1 - r1, where: m1), mirror: m1, x1: load16(c.x1, i + 16), y1: load16(c.y1, i + 16), x2: load16(c.x2, i + 16), y2: load16(c.y2, i + 16))
        let r2 = clamp(x.2), m2 = r2 .> 0.5
        let p2 = prepare(mirroredInput: r2.replacing(with: 1 - r2, where: m2), mirror: m2, x1: load16(c.x1, i + 32), y1: load16(c.y1, i + 32), x2: load16(c.x2, i + 32), y2: load16(c.y2, i + 32))
        let r3 = clamp(x.3), m3 = r3 .> 0.5
        let p3 = prepare(mirroredInput: r3.replacing(with: 1 - r3, where: m3), mirror: m3, x1: load16(c.x1, i + 48), y1: load16(c.y1, i + 48), x2: load16(c.x2, i + 48), y2: load16(c.y2, i + 48))
        let y = solve(CurveQuad(x: (p0.x, p1.x, p2.x, p3.x), ax: (p0.ax, p1.ax, p2.ax, p3.ax), bx: (p0.bx, p1.bx, p2.bx, p3.bx), cx: (p0.cx, p1.cx, p2.cx, p3.cx), ay: (p0.ay, p1.ay, p2.ay, p3.ay), by: (p0.by, p1.by, p2.by, p3.by), cy: (p0.cy, p1.cy, p2.cy, p3.cy)))
        let linear0 = (load16(c.x1, i + 0) .== load16(c.y1, i + 0)) .& (load16(c.x2, i + 0) .== load16(c.y2, i + 0))
        let linear1 = (load16(c.x1, i + 16) .== load16(c.y1, i + 16)) .& (load16(c.x2, i + 16) .== load16(c.y2, i + 16))
        let linear2 = (load16(c.x1, i + 32) .== load16(c.y1, i + 32)) .& (load16(c.x2, i + 32) .== load16(c.y2, i + 32))
        let linear3 = (load16(c.x1, i + 48) .== load16(c.y1, i + 48)) .& (load16(c.x2, i + 48) .== load16(c.y2, i + 48))
        var f0 = y.0.replacing(with: 1 - y.0, where: m0).replacing(with: r0, where: linear0 .| (r0 .!= r0))
        var f1 = y.1.replacing(with: 1 - y.1, where: m1).replacing(with: r1, where: linear1 .| (r1 .!= r1))
        var f2 = y.2.replacing(with: 1 - y.2, where: m2).replacing(with: r2, where: linear2 .| (r2 .!= r2))
        var f3 = y.3.replacing(with: 1 - y.3, where: m3).replacing(with: r3, where: linear3 .| (r3 .!= r3))
        if any((f0 .!= f0) .| (f1 .!= f1) .| (f2 .!= f2) .| (f3 .!= f3)) {
            c.patch(&f0, block: i) { Double(r0[$0]) }
            c.patch(&f1, block: i + 16) { Double(r1[$0]) }
            c.patch(&f2, block: i + 32) { Double(r2[$0]) }
            c.patch(&f3, block: i + 48) { Double(r3[$0]) }
        }
        return (f0, f1, f2, f3)
    }
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

    /// Replaces the lanes of `y` (tracks `i ..< i + 16`) whose curve is evaluated in Double: their
    /// value at `progress(lane)`. Called only when some lane of `y` is NaN (NaN progress also gives
    /// NaN, and stays NaN).
    @inline(never)
    func patch(_ y: inout SIMD16<Float>, block i: Int, progress: (Int) -> Double) {
        for lane in 0..<16 where y[lane].isNaN && x1[i + lane].isNaN {
            let function = functions[Int(y1[i + lane].bitPattern)]
            y[lane] = Float(function.value(at: progress(lane)))
        }
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

    /// Whether track `i`'s curve is evaluated in Double.
    func isDoubleEvaluated(_ i: Int) -> Bool { x1[i].isNaN }

    func move(_ from: Int, to: Int) {
        for c in [x1, y1, x2, y2] { c[to] = c[from] }
    }

    var columns: CurveColumns {
        CurveColumns(x1: x1.base, y1: y1.base, x2: x2.base, y2: y2.base, functions: UnsafePointer(functions))
    }
}
