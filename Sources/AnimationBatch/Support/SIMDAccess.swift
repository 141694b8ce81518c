// Loads and stores of whole SIMD blocks through raw pointers. docs/architecture.md, "Measured facts": building a SIMD
// vector lane by lane from array subscripts made a kernel 3× slower than scalar code; unaligned raw
// loads compile to single vector moves (our columns are aligned anyway).
//
// Safety of every access below: `p` is a column's base (``Column``) and `i` a block's first lane
// (a multiple of 16 below the column's count rounded up to 16); columns hold whole blocks of 16,
// so the 16 (or 8) elements from `i` are inside the allocation. The
// loads are unaligned, so no alignment is assumed.

@inline(__always) func load16(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> SIMD16<Float> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Float>.self)
}

@inline(__always) func store16(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>, _ i: Int) {
    UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: SIMD16<Float>.self)
}

@inline(__always) func load8(_ p: UnsafeMutablePointer<Double>, _ i: Int) -> SIMD8<Double> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Double>.self)   // in bounds: see the note above
}

/// Eight Floats from `p + i`, widened to Double (exactly).
@inline(__always) func load8Widened(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> SIMD8<Double> {
    let f = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
    var r = SIMD8<Double>()
    for lane in 0..<8 { r[lane] = Double(f[lane]) }
    return r
}

@inline(__always) func load16(_ p: UnsafeMutablePointer<UInt8>, _ i: Int) -> SIMD16<UInt8> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self)   // in bounds: see the note above
}

@inline(__always) func load16(_ p: UnsafeMutablePointer<Int32>, _ i: Int) -> SIMD16<Int32> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Int32>.self)   // in bounds: see the note above
}

/// Sixteen Doubles as two halves, the unit the timing kernel computes in.
@inline(__always) func load16(_ p: UnsafeMutablePointer<Double>, _ i: Int) -> (SIMD8<Double>, SIMD8<Double>) {
    (load8(p, i), load8(p, i + 8))
}

// The conversions below are written as lane loops on purpose: LLVM turns them into single vector
// instructions (vcvtpd2ps, vpmovzxbd, vpmovdb), whereas the standard library's generic converting
// initialisers stay out-of-line calls inside large kernels (measured: 5 % of a frame).

/// Two Double halves rounded to one Float block.
@inline(__always) func narrow(_ lo: SIMD8<Double>, _ hi: SIMD8<Double>) -> SIMD16<Float> {
    var r = SIMD16<Float>()
    for i in 0..<8 {
        r[i] = Float(lo[i])
        r[i + 8] = Float(hi[i])
    }
    return r
}

/// Sixteen bytes widened to Int32.
@inline(__always) func widen(_ b: SIMD16<UInt8>) -> SIMD16<Int32> {
    var r = SIMD16<Int32>()
    for i in 0..<16 { r[i] = Int32(b[i]) }
    return r
}

/// Bytes 0–7 widened to Int64 (not `lowHalf`, which stays an out-of-line generic call in big kernels).
@inline(__always) func widenLow(_ b: SIMD16<UInt8>) -> SIMD8<Int64> {
    var r = SIMD8<Int64>()
    for i in 0..<8 { r[i] = Int64(b[i]) }
    return r
}

/// Bytes 8–15 widened to Int64.
@inline(__always) func widenHigh(_ b: SIMD16<UInt8>) -> SIMD8<Int64> {
    var r = SIMD8<Int64>()
    for i in 0..<8 { r[i] = Int64(b[i + 8]) }
    return r
}

/// A Sendable carrier for pointers and references handed to `concurrentPerform`'s `@Sendable`
/// closure. Safe here because every chunk writes a disjoint range and the caller waits.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
