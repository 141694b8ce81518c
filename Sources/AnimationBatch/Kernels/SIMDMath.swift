import CKernelSupport

/// Elementary functions on `SIMD16<Float>`, branch-free: Swift has no vector `exp`/`sin`, and the
/// scalar ones called lane by lane are what makes naive SIMD code slower than scalar
/// (docs/architecture.md, "Measured facts"). Range reduction by Cody–Waite constant splits; Taylor polynomials on
/// the reduced range (known coefficients, errors bounded by the next term).
enum SIMDMath {
    /// The nearest integer of each lane, for |x| < 2²²: adding 1.5·2²³ puts the integer in the low
    /// mantissa bits (round to nearest even), and the bit pattern minus that constant's is the
    /// integer. One add and one subtract — Swift's `SIMD16<Int32>(_:rounding:)` converts lane by
    /// lane through generic code (measured: 15 % of a frame before this).
    @inline(__always)
    static func roundToInt(_ x: SIMD16<Float>) -> SIMD16<Int32> {
        unsafeBitCast(x + 12_582_912, to: SIMD16<Int32>.self) &- SIMD16<Int32>(repeating: 0x4B40_0000)
    }

    /// The inverse for small non-negative integers (0 ≤ n < 2²²): OR the integer into the mantissa
    /// of 1.5·2²³ and subtract it.
    @inline(__always)
    static func float(_ n: SIMD16<Int32>) -> SIMD16<Float> {
        unsafeBitCast(n | SIMD16<Int32>(repeating: 0x4B40_0000), to: SIMD16<Float>.self) - 12_582_912
    }

    /// `x.rounded(.down)`, bit for bit (±0, ±∞ and NaN included): one instruction where the build
    /// targets a CPU with vector rounding, otherwise exact arithmetic instead of a libm `floor` call
    /// per lane (`animation_floor_double`). In C, so that Swift's optimizer sees one small call:
    /// written here with both forms, the spring kernel's helpers grew past its inlining budget
    /// and were left as calls (springs 40 % slower, measured).
    @_transparent
    static func floor(_ x: SIMD8<Double>) -> SIMD8<Double> { animation_floor_double(x) }

    /// `x.rounded(.down)` for Floats (`animation_floor`).
    @_transparent
    static func floor(_ x: SIMD16<Float>) -> SIMD16<Float> { animation_floor(x) }

    /// `x.rounded(.toNearestOrEven)`, bit for bit (`animation_round_even`).
    @_transparent
    static func roundedToNearestEven(_ x: SIMD16<Float>) -> SIMD16<Float> { animation_round_even(x) }

    /// Sixteen bytes as Floats (0…255).
    @inline(__always)
    static func float(_ bytes: SIMD16<UInt8>) -> SIMD16<Float> {
        float(widen(bytes))
    }

    /// eˣ. Relative error ≤ 2e-7 for x in [−87.3, 88.7]; 0 below (the true value is under Float's
    /// smallest normal), +∞ above.
    @inline(__always)
    static func exp(_ x: SIMD16<Float>) -> SIMD16<Float> {
        let lowest: Float = -87.3, highest: Float = 88.7
        var c = x.replacing(with: lowest, where: x .< lowest)
        c.replace(with: highest, where: c .> highest)
        let n = roundedToNearestEven(c * 1.442_695_04)
        // r = c − n·ln 2, with ln 2 split so that n·ln2_hi is exact (n ≤ 128).
        let r = (c - n * 0.693_359_375) - n * -2.121_944_4e-4
        // e^r on |r| ≤ 0.347 by Taylor to r⁷ (next term 2.6e-8 relative).
        var p = r * (1.0 / 5040) + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        // 2ⁿ by building the exponent bits (n ≥ −126 here, so the result is normal).
        let bits = (roundToInt(n) &+ SIMD16<Int32>(repeating: 127)) &<< SIMD16<Int32>(repeating: 23)
        let scale = unsafeBitCast(bits, to: SIMD16<Float>.self)
        var result = p * scale
        result.replace(with: 0, where: x .< lowest)
        result.replace(with: .infinity, where: x .> highest)
        return result
    }

    /// eˣ − 1 without cancellation near 0: Taylor to x⁸ for |x| < 0.5 (next term 5e-9 relative),
    /// `exp(x) − 1` elsewhere (negative arguments come from overshooting timing functions).
    @inline(__always)
    static func expm1(_ x: SIMD16<Float>) -> SIMD16<Float> {
        var p = x * (1.0 / 40320) + 1.0 / 5040
        p = p * x + 1.0 / 720
        p = p * x + 1.0 / 120
        p = p * x + 1.0 / 24
        p = p * x + 1.0 / 6
        p = p * x + 0.5
        p = p * x + 1
        let small = p * x
        return (exp(x) - 1).replacing(with: small, where: (x .< 0.5) .& (x .> -0.5))
    }

    /// sin x and cos x. Absolute error ≤ 2e-7 for |x| ≤ 1e3 (the reduction's error grows with |x|:
    /// about 1e-10·|x| from the split of π/2, plus the input's own rounding).
    @inline(__always)
    static func sinCos(_ x: SIMD16<Float>) -> (sin: SIMD16<Float>, cos: SIMD16<Float>) {
        let n = roundedToNearestEven(x * 0.636_619_77)  // x · 2/π
        // r = x − n·π/2 with π/2 in three parts (the first two exact in products with small n).
        let r = ((x - n * 1.570_312_5) - n * 4.837_512_969_970_703_1e-4) - n * 7.549_789_954_891_882e-8
        let r2 = r * r
        // sin r to r⁹, cos r to r¹⁰ on |r| ≤ π/4 (next terms below 1e-9).
        var s = r2 * (1.0 / 362_880) - 1.0 / 5040
        s = s * r2 + 1.0 / 120
        s = s * r2 - 1.0 / 6
        s = s * r2 * r + r
        var c = r2 * (-1.0 / 3_628_800) + 1.0 / 40320
        c = c * r2 - 1.0 / 720
        c = c * r2 + 1.0 / 24
        c = c * r2 - 0.5
        c = c * r2 + 1
        // Quadrant q = n mod 4: (sin, cos) = (s, c), (c, −s), (−s, −c), (−c, s). Computed in Float
        // (integer vector selects compile lane by lane here).
        let q = n - 4 * floor(n * 0.25)
        let swap = (q - 2 * floor(q * 0.5)) .> 0.5
        var sine = s.replacing(with: c, where: swap)
        var cosine = c.replacing(with: s, where: swap)
        sine.replace(with: -sine, where: q .> 1.5)
        cosine.replace(with: -cosine, where: (q .> 0.5) .& (q .< 2.5))
        return (sine, cosine)
    }
}

extension SIMDMath {
    /// |x| per lane.
    @inline(__always)
    static func magnitude(_ x: SIMD16<Float>) -> SIMD16<Float> { x.replacing(with: -x, where: x .< 0) }

    /// atan2(y, x) in [−π, π]; (0, 0) gives 0. Absolute error ≤ 4e-7 rad (3.0e-7 measured over
    /// 20,000 points, at results near ±π, where a Float's ulp is 2.4e-7). The argument is reduced
    /// to [0, tan(π/8)] (Cephes' `atanf`: above tan(3π/8) through π/2 − atan(1/a), above tan(π/8)
    /// through π/4 + atan((a − 1)/(a + 1))), then its odd polynomial of degree 9; the quadrant
    /// from the signs.
    @inline(__always)
    static func atan2(_ y: SIMD16<Float>, _ x: SIMD16<Float>) -> SIMD16<Float> {
        let ax = magnitude(x), ay = magnitude(y)
        let big = ay .> ax
        // a = min/max in [0, 1]: the reduction's first step without a division by zero.
        let numerator = ax.replacing(with: ay, where: .!big), denominator = ay.replacing(with: ax, where: .!big)
        var a = numerator / denominator.replacing(with: 1, where: denominator .== 0)
        let middle = a .> 0.414_213_56   // tan(π/8)
        a.replace(with: (a - 1) / (a + 1), where: middle)
        let z = a * a
        // Horner's steps one per line: as one expression the literals took half a second to type-check.
        var r: SIMD16<Float> = 8.053_744_5e-2 * z - 1.387_768_6e-1
        r = r * z + 1.997_771_1e-1
        r = r * z - 3.333_294_9e-1
        r = (r * z) * a + a
        r.replace(with: r + Float.pi / 4, where: middle)
        r.replace(with: Float.pi / 2 - r, where: big)   // atan(ay/ax) = π/2 − atan(ax/ay)
        r.replace(with: Float.pi - r, where: x .< 0)
        r.replace(with: -r, where: y .< 0)
        return r
    }
}

/// Whether any lane of `mask` is set — `any(_:)` without the standard library's out-of-line
/// reduction (see `animation_any`).
@inline(__always) func anyLane(_ mask: SIMDMask<SIMD16<Int32>>) -> Bool {
    animation_any(unsafeBitCast(mask, to: SIMD16<Int32>.self)) != 0
}

/// Whether every lane of `mask` is set — `all(_:)` without the out-of-line reduction.
@inline(__always) func allLanes(_ mask: SIMDMask<SIMD16<Int32>>) -> Bool {
    animation_all(unsafeBitCast(mask, to: SIMD16<Int32>.self)) != 0
}

/// The set lanes of `mask`, lowest first, each passed to `body` (a bit walk: no lane-by-lane mask
/// tests, which compile to an extract per lane).
@inline(__always) func forEachLane(of mask: SIMDMask<SIMD16<Int32>>, _ body: (Int) -> Void) {
    var bits = animation_mask_bits(unsafeBitCast(mask, to: SIMD16<Int32>.self))
    while bits != 0 {
        body(bits.trailingZeroBitCount)
        bits &= bits - 1
    }
}
