import AnimationCore

/// A timing function's polynomial coefficients in Float, for the curve kernel: the curve
/// `x(s) = ((ax·s + bx)·s + cx)·s`, `y(s)` likewise, and the same for its mirror image (the curve
/// seen from (1, 1): control points (1 − x2, 1 − y2), (1 − x1, 1 − y1)).
struct CompiledCurve: Sendable, Hashable {
    var ax, bx, cx, ay, by, cy: Float
    var mirroredAx, mirroredBx, mirroredCx, mirroredAy, mirroredBy, mirroredCy: Float
    /// True for curves on the diagonal (y = x): the solve is skipped (semantics §3.1).
    var isLinear: Bool

    init(_ f: TimingFunction?) {
        let f = f ?? .linear
        func coefficients(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> (Float, Float, Float, Float, Float, Float) {
            let cx = 3 * x1, bx = 3 * (x2 - x1) - cx, ax = 1 - cx - bx
            let cy = 3 * y1, by = 3 * (y2 - y1) - cy, ay = 1 - cy - by
            return (Float(ax), Float(bx), Float(cx), Float(ay), Float(by), Float(cy))
        }
        (ax, bx, cx, ay, by, cy) = coefficients(f.x1, f.y1, f.x2, f.y2)
        (mirroredAx, mirroredBx, mirroredCx, mirroredAy, mirroredBy, mirroredCy) = coefficients(1 - f.x2, 1 - f.y2, 1 - f.x1, 1 - f.y1)
        isLinear = f.isLinear
    }

    static let linear = CompiledCurve(nil)
}

/// The timing-curve kernel: `y = f(x)` for 16 cubic Béziers at once (semantics §3.2).
///
/// **Algorithm (B10N2 with a mirror).** For `x > 0.5` the mirror image is solved at `1 − x` (exact)
/// and `1 − y′` returned, so the flat end of curves with `x2 ≈ 1` is solved where Float has its
/// precision; the batch kernels take `1 − p` from the Double timing stage, so even `p` within 1e-9
/// of 1 is exact. Then 10 division-free bisection steps on `s ∈ [0, 1]` (`s ± h`, `h` halving:
/// each step one Horner evaluation, one compare, one blend) bracket the root within 2⁻¹¹, and 2
/// Newton steps, each clamped into that bracket, converge (quadratically where `x′(s)` is not
/// small). Never Newton alone from `s = x`: on steep curves it diverges (performance-notes.md).
/// `x ≤ 0` gives exactly 0 and `x ≥ 1` exactly 1. Linear curves skip the solve (a per-lane mask,
/// and the whole block when every lane is linear).
///
/// **Error bound.** ≤ 2e-5 absolute for control points x1, x2 in [0, 1] and y in [−1, 2], measured
/// against the Double reference over the W1 workload (`CurveKernelTests`; figures in
/// perf-reports). performance-notes.md: B10N2 measured 2e-7 on Apple's curves and 1.3e-5 on random
/// ones; the worst lanes are curves with x1 ≈ 0 or x2 ≈ 1, where more bisection helps and more
/// Newton does not.
///
/// **Speed.** performance-notes.md measured B10N2 at 2.5 ns per evaluation on one core with
/// `-Xcc -march=native`; this kernel's own figures are in perf-reports.
enum CurveKernel {
    /// Solves 16 curves whose inputs are already mirrored: `x` in [0, 0.5] (0 means an end), with
    /// the coefficients selected per lane by the caller.
    @inline(__always)
    static func solve(x: SIMD16<Float>, ax: SIMD16<Float>, bx: SIMD16<Float>, cx: SIMD16<Float>,
                      ay: SIMD16<Float>, by: SIMD16<Float>, cy: SIMD16<Float>) -> SIMD16<Float> {
        var s = SIMD16<Float>(repeating: 0.5)
        var h = SIMD16<Float>(repeating: 0.25)
        // Bisection: s stays the midpoint of a bracket of half-width 2h around the root.
        for _ in 0..<10 {
            let xs = ((ax * s + bx) * s + cx) * s
            s += h.replacing(with: -h, where: xs .> x)
            h *= 0.5
        }
        let lo = s - 2 * h, hi = s + 2 * h
        // Guarded Newton: a step that leaves the bracket (or divides by a zero slope) is clamped.
        for _ in 0..<2 {
            let xs = ((ax * s + bx) * s + cx) * s
            let slope = (3 * ax * s + 2 * bx) * s + cx
            var next = s - (xs - x) / slope
            next.replace(with: s, where: next .!= next)
            next.replace(with: lo, where: next .< lo)
            next.replace(with: hi, where: next .> hi)
            s = next
        }
        var y = ((ay * s + by) * s + cy) * s
        y.replace(with: 0, where: x .<= 0)
        return y
    }

    /// `f(p)` for 16 tracks whose progress comes from the Double timing stage.
    @inline(__always)
    static func evaluate(_ timing: TimingBlock, curves c: CurveColumns, block i: Int) -> SIMD16<Float> {
        let p = narrow(timing.progressLow, timing.progressHigh)
        let linear = load16(c.isLinear, i) .!= 0
        if all(linear) { return p }
        let mirrorLow = timing.progressLow .> 0.5, mirrorHigh = timing.progressHigh .> 0.5
        let xLow = timing.progressLow.replacing(with: 1 - timing.progressLow, where: mirrorLow)
        let xHigh = timing.progressHigh.replacing(with: 1 - timing.progressHigh, where: mirrorHigh)
        let x = narrow(xLow, xHigh)
        let m = narrow(SIMD8<Double>(repeating: 0).replacing(with: 1, where: mirrorLow),
                       SIMD8<Double>(repeating: 0).replacing(with: 1, where: mirrorHigh)) .!= 0
        let y = solve(x: x,
                      ax: load16(c.ax, i).replacing(with: load16(c.mirroredAx, i), where: m),
                      bx: load16(c.bx, i).replacing(with: load16(c.mirroredBx, i), where: m),
                      cx: load16(c.cx, i).replacing(with: load16(c.mirroredCx, i), where: m),
                      ay: load16(c.ay, i).replacing(with: load16(c.mirroredAy, i), where: m),
                      by: load16(c.by, i).replacing(with: load16(c.mirroredBy, i), where: m),
                      cy: load16(c.cy, i).replacing(with: load16(c.mirroredCy, i), where: m))
        return y.replacing(with: 1 - y, where: m).replacing(with: p, where: linear)
    }

    /// `f(x)` for 16 Float inputs with per-lane coefficients (the W1 workload's form): mirrors in
    /// Float (`1 − x` is exact for x in [0.5, 1]).
    @inline(__always)
    static func evaluate(x: SIMD16<Float>, curves c: CurveColumns, block i: Int) -> SIMD16<Float> {
        let clamped = x.replacing(with: 0, where: x .< 0).replacing(with: 1, where: x .> 1)
        let m = clamped .> 0.5
        let xm = clamped.replacing(with: 1 - clamped, where: m)
        let y = solve(x: xm,
                      ax: load16(c.ax, i).replacing(with: load16(c.mirroredAx, i), where: m),
                      bx: load16(c.bx, i).replacing(with: load16(c.mirroredBx, i), where: m),
                      cx: load16(c.cx, i).replacing(with: load16(c.mirroredCx, i), where: m),
                      ay: load16(c.ay, i).replacing(with: load16(c.mirroredAy, i), where: m),
                      by: load16(c.by, i).replacing(with: load16(c.mirroredBy, i), where: m),
                      cy: load16(c.cy, i).replacing(with: load16(c.mirroredCy, i), where: m))
        let linear = load16(c.isLinear, i) .!= 0
        return y.replacing(with: 1 - y, where: m).replacing(with: clamped, where: linear)
    }
}

/// The curve columns of a batch: twelve coefficients and the linear flag per track.
struct CurveColumns {
    let ax, bx, cx, ay, by, cy: UnsafeMutablePointer<Float>
    let mirroredAx, mirroredBx, mirroredCx, mirroredAy, mirroredBy, mirroredCy: UnsafeMutablePointer<Float>
    /// 1 for linear curves, 0 otherwise (a Float column: its mask is a Float mask).
    let isLinear: UnsafeMutablePointer<Float>
}

/// Storage for ``CurveColumns``.
final class CurveStorage {
    let ax = Column<Float>(fill: 0), bx = Column<Float>(fill: 0), cx = Column<Float>(fill: 1)
    let ay = Column<Float>(fill: 0), by = Column<Float>(fill: 0), cy = Column<Float>(fill: 1)
    let mirroredAx = Column<Float>(fill: 0), mirroredBx = Column<Float>(fill: 0), mirroredCx = Column<Float>(fill: 1)
    let mirroredAy = Column<Float>(fill: 0), mirroredBy = Column<Float>(fill: 0), mirroredCy = Column<Float>(fill: 1)
    let isLinear = Column<Float>(fill: 1)

    var floatColumns: [Column<Float>] {
        [ax, bx, cx, ay, by, cy, mirroredAx, mirroredBx, mirroredCx, mirroredAy, mirroredBy, mirroredCy, isLinear]
    }

    func reserve(_ needed: Int, count: Int) {
        for c in floatColumns { c.reserve(needed, count: count) }
    }

    func set(_ i: Int, _ c: CompiledCurve) {
        ax[i] = c.ax; bx[i] = c.bx; cx[i] = c.cx; ay[i] = c.ay; by[i] = c.by; cy[i] = c.cy
        mirroredAx[i] = c.mirroredAx; mirroredBx[i] = c.mirroredBx; mirroredCx[i] = c.mirroredCx
        mirroredAy[i] = c.mirroredAy; mirroredBy[i] = c.mirroredBy; mirroredCy[i] = c.mirroredCy
        isLinear[i] = c.isLinear ? 1 : 0
    }

    func move(_ from: Int, to: Int) {
        for c in floatColumns { c[to] = c[from] }
    }

    var columns: CurveColumns {
        CurveColumns(ax: ax.base, bx: bx.base, cx: cx.base, ay: ay.base, by: by.base, cy: cy.base,
                     mirroredAx: mirroredAx.base, mirroredBx: mirroredBx.base, mirroredCx: mirroredCx.base,
                     mirroredAy: mirroredAy.base, mirroredBy: mirroredBy.base, mirroredCy: mirroredCy.base,
                     isLinear: isLinear.base)
    }
}
