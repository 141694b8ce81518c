import AnimationCore

/// The paths that morph (`sh` with keyframes) of a compiled program as flat tables, read by a
/// tick through raw pointers: ``LottieShapes/bezier(_:frame:into:)``'s operations, in the same
/// order (the same bits), with no array copied, retained or bounds-checked per vertex (reading
/// the property's keys, each a struct of arrays, retained four arrays per morph per frame).
///
/// Holds raw memory (the tables), written once in init and freed in deinit; immutable after
/// init, so sharing it between a tick's threads is safe.
final class LottieMorphs: @unchecked Sendable {
    struct Morph {
        var keyStart: Int
        var keyCount: Int
        var vertexCount: Int
    }

    struct Key {
        var frame: Double
        /// Offsets into ``numbers`` of the key's start path and its end (−1: none given); six
        /// numbers per vertex: the vertex, its in tangent, its out tangent (x, y each).
        var start: Int
        var end: Int
        var startClosed: Bool
        var endClosed: Bool
        var hold: Bool
        var easing: TimingFunction
    }

    let morphs: UnsafeMutableBufferPointer<Morph>
    let keys: UnsafeMutableBufferPointer<Key>
    let numbers: UnsafeMutableBufferPointer<Double>

    /// Flattens `properties` (morph `m` is `properties[m]`; each has keys, as the program's
    /// builder ensures: a path without keys is computed when compiled).
    init(_ properties: [LottieShapeProperty]) {
        var morphList: [Morph] = [], keyList: [Key] = [], numberList: [Double] = []
        func add(_ b: LottieBezier) -> Int {
            let offset = numberList.count
            for k in b.vertices.indices {
                numberList += [b.vertices[k].x, b.vertices[k].y, b.inTangents[k].x, b.inTangents[k].y,
                               b.outTangents[k].x, b.outTangents[k].y]
            }
            return offset
        }
        for p in properties {
            morphList.append(Morph(keyStart: keyList.count, keyCount: p.keys.count, vertexCount: p.keys.first?.start.vertices.count ?? 0))
            for k in p.keys {
                keyList.append(Key(frame: k.frame, start: add(k.start), end: k.end.map(add) ?? -1, startClosed: k.start.closed,
                                   endClosed: k.end?.closed ?? false, hold: k.hold, easing: k.easing))
            }
        }
        func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))   // a base address even when empty
            _ = buffer.initialize(from: array)
            return buffer
        }
        morphs = copy(morphList)
        keys = copy(keyList)
        numbers = copy(numberList)
    }

    deinit {   // copies made in init and owned here alone (see the type's note)
        morphs.deallocate()
        keys.deallocate()
        numbers.deallocate()
    }

    // Unchecked reads below: morph numbers come from the program's builder, offsets from init
    // (every key of a morph has its vertex count: the reader refuses keys that differ).

    /// Morph `m` at `frame` into `sink`: ``LottieShapes/bezier(_:frame:into:)``.
    func emit<S: LottiePathSink>(_ m: Int, frame: Double, into sink: inout S) {
        let morph = morphs[m], n = morph.vertexCount
        guard morph.keyCount > 0 else { return }
        let first = keys[morph.keyStart]
        if frame < first.frame { return emit(first.start, first.start, first.startClosed, 0, n, into: &sink) }
        var low = 0, high = morph.keyCount - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if keys[morph.keyStart + mid].frame <= frame { low = mid } else { high = mid - 1 }
        }
        let k = keys[morph.keyStart + low]
        guard low + 1 < morph.keyCount else {
            return k.end >= 0 ? emit(k.end, k.end, k.endClosed, 0, n, into: &sink) : emit(k.start, k.start, k.startClosed, 0, n, into: &sink)
        }
        let next = keys[morph.keyStart + low + 1]
        if k.hold || next.frame <= k.frame { return emit(k.start, k.start, k.startClosed, 0, n, into: &sink) }
        let progress = (frame - k.frame) / (next.frame - k.frame)
        emit(k.start, k.end >= 0 ? k.end : next.start, k.startClosed, k.easing.value(at: progress), n, into: &sink)
    }

    /// ``LottieShapes/emit(_:_:_:into:)`` on offsets `a` and `b` (`closed`: `a`'s flag).
    @inline(__always)
    func emit<S: LottiePathSink>(_ a: Int, _ b: Int, _ closed: Bool, _ f: Double, _ n: Int, into sink: inout S) {
        guard n > 0 else { return }
        let v = UnsafePointer(numbers.baseAddress.unsafelyUnwrapped)   // never empty (see init)
        @inline(__always) func mix(_ i: Int) -> Point {   // number i of a and b, and i + 1: one point
            let p = Point(x: v[a + i], y: v[a + i + 1])
            return f == 0 ? p : Point(x: p.x + (v[b + i] - p.x) * f, y: p.y + (v[b + i + 1] - p.y) * f)
        }
        @inline(__always) func vertex(_ k: Int) -> Point { mix(6 * k) }
        @inline(__always) func inHandle(_ k: Int) -> Point { vertex(k) + mix(6 * k + 2) }
        @inline(__always) func outHandle(_ k: Int) -> Point { vertex(k) + mix(6 * k + 4) }
        sink.move(vertex(0))
        if n > 1 {
            for k in 1..<n { sink.curve(outHandle(k - 1), inHandle(k), vertex(k)) }
        }
        if closed {
            if n > 1 { sink.curve(outHandle(n - 1), inHandle(0), vertex(0)) }
            sink.close()
        }
    }
}
