import AnimationCore

/// Every property of a compiled program as rows of flat tables (struct of arrays): a channel is a
/// dimension and a range of keyframe segments; a segment is two frames, offsets into one table of
/// numbers (its start and end values) and one of easing curves, a hold flag and an optional
/// spatial curve. A tick reads these through raw pointers: no Swift object is touched, retained or
/// released per value (copying properties that held arrays was 23 % of a tick). The
/// arithmetic is ``LottieProperty``'s, operation for operation: the same bits.
///
/// Holds raw memory (the tables), written once by the builder and freed in deinit; immutable
/// after init, so sharing it between a tick's threads is safe.
final class LottieChannels: @unchecked Sendable {
    struct Channel {
        var dimension: Int
        var segmentStart: Int
        var segmentCount: Int
        /// Offsets of the value before the first key, and at and after the last.
        var first: Int
        var last: Int
        var firstFrame: Double
    }

    struct Segment {
        var startFrame: Double
        var endFrame: Double
        /// The start values, then the end values (a channel's dimension each).
        var values: Int
        var easing: Int
        var easingCount: Int
        var hold: Bool
        /// An index into ``spatial``, or −1.
        var spatial: Int
    }

    let channels: UnsafeMutableBufferPointer<Channel>
    let segments: UnsafeMutableBufferPointer<Segment>
    let values: UnsafeMutableBufferPointer<Double>
    let curves: UnsafeMutableBufferPointer<TimingFunction>
    /// Spatial segments' arc-length tables (read only for those segments; a direction, for
    /// auto-orient, is taken from them).
    let spatial: [LottieProperty.SpatialCurve]

    /// A spatial segment's cubic kept flat: its control points, length and breakpoint table (`count`
    /// `(t, s)` pairs at `pairs` in ``spatialPairs``; count 0 when its curve is not one cubic,
    /// which the reader never makes).
    struct SpatialCubic {
        var x0, y0, x1, y1, x2, y2, x3, y3: Double
        var length: Double
        var pairs: Int
        var count: Int
    }

    /// Points along spatial segments come from these, read in place: through
    /// ``LottieProperty/SpatialCurve``, each point copied its measure's arrays, and two threads
    /// retaining the same arrays contended for their counts.
    let spatialCubics: UnsafeMutableBufferPointer<SpatialCubic>
    let spatialPairs: UnsafeMutableBufferPointer<Double>

    /// Collects channels while a program is compiled.
    struct Builder {
        var channels: [Channel] = []
        var segments: [Segment] = []
        var values: [Double] = []
        var curves: [TimingFunction] = []
        var spatial: [LottieProperty.SpatialCurve] = []
        var spatialCubics: [SpatialCubic] = []
        var spatialPairs: [Double] = []
        /// Where each single curve already is in ``curves`` (by its bits): equal curves share an
        /// index, so that ``SolveMemo`` finds their solves.
        var curveIndex: [[UInt64]: Int] = [:]

        /// A spatial segment's curve, kept as it is and flat; its index.
        mutating func add(_ curve: LottieProperty.SpatialCurve) -> Int {
            spatial.append(curve)
            var flat = SpatialCubic(x0: 0, y0: 0, x1: 0, y1: 0, x2: 0, y2: 0, x3: 0, y3: 0, length: curve.measure.length,
                                    pairs: spatialPairs.count, count: 0)
            if let cubic = curve.measure.onlyCubic {
                (flat.x0, flat.y0, flat.x1, flat.y1) = (cubic.p0.x, cubic.p0.y, cubic.p1.x, cubic.p1.y)
                (flat.x2, flat.y2, flat.x3, flat.y3) = (cubic.p2.x, cubic.p2.y, cubic.p3.x, cubic.p3.y)
                flat.count = cubic.table.count
                for pair in cubic.table { spatialPairs += [pair.t, pair.s] }
            }
            spatialCubics.append(flat)
            return spatial.count - 1
        }

        /// The channel of `property` (a new row each time; −1 for nil).
        mutating func add(_ property: LottieProperty?) -> Int {
            guard let property else { return -1 }
            let first = values.count
            values.append(contentsOf: property.first)
            let last = values.count
            values.append(contentsOf: property.last)
            let segmentStart = segments.count
            for s in property.segments {
                let offset = values.count
                values.append(contentsOf: s.start)
                values.append(contentsOf: s.end)
                var easing = curves.count
                // One curve for every dimension when they are all the same (most files): solved
                // once per segment rather than once per dimension, with the same result.
                let shared = s.easing.allSatisfy { $0 == s.easing[0] }
                if shared, let curve = s.easing.first {
                    let bits = [curve.x1, curve.y1, curve.x2, curve.y2].map(\.bitPattern)
                    if let known = curveIndex[bits] { easing = known } else { curveIndex[bits] = easing; curves.append(curve) }
                } else {
                    curves.append(contentsOf: s.easing)
                }
                let spatialIndex = s.spatial.map { add($0) } ?? -1
                segments.append(Segment(startFrame: s.startFrame, endFrame: s.endFrame, values: offset, easing: easing,
                                        easingCount: shared ? min(s.easing.count, 1) : s.easing.count, hold: s.hold,
                                        spatial: spatialIndex))
            }
            channels.append(Channel(dimension: property.dimension, segmentStart: segmentStart, segmentCount: property.segments.count,
                                    first: first, last: last, firstFrame: property.firstFrame))
            return channels.count - 1
        }
    }

    init(_ builder: Builder) {
        func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))   // a base address even when empty
            _ = buffer.initialize(from: array)
            return buffer
        }
        channels = copy(builder.channels)
        segments = copy(builder.segments)
        values = copy(builder.values)
        curves = copy(builder.curves)
        spatial = builder.spatial
        spatialCubics = copy(builder.spatialCubics)
        spatialPairs = copy(builder.spatialPairs)
    }

    deinit {   // copies made in init and owned here alone (see the type's note)
        channels.deallocate()
        segments.deallocate()
        values.deallocate()
        curves.deallocate()
        spatialCubics.deallocate()
        spatialPairs.deallocate()
    }

    // Unchecked reads below: channel numbers come from the builder, offsets from `add`.

    /// The segment of channel `c` that holds `frame` (the later of two at one frame), or nil.
    @inline(__always)
    func segmentIndex(_ c: Channel, _ frame: Double) -> Int? {
        guard c.segmentCount > 0, frame >= segments[c.segmentStart].startFrame,
              frame < segments[c.segmentStart + c.segmentCount - 1].endFrame else { return nil }
        var low = 0, high = c.segmentCount - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[c.segmentStart + mid].startFrame <= frame { low = mid } else { high = mid - 1 }
        }
        return c.segmentStart + low
    }

    /// Writes channel `id`'s value at `frame` (its dimension of numbers) to `out`
    /// (``LottieProperty/evaluate(atFrame:into:)``).
    @inline(__always)
    func evaluate(_ id: Int, atFrame frame: Double, memo: SolveMemo, into out: UnsafeMutablePointer<Double>) {
        let c = channels[id]
        guard c.segmentCount > 0 else { for d in 0..<c.dimension { out[d] = values[c.first + d] }; return }
        evaluateAnimated(c, atFrame: frame, memo: memo, into: out)
    }

    /// ``evaluate(_:atFrame:memo:into:)`` for a channel with keyframes. Apart, so that a constant
    /// channel (most of a transform's) is a load where it is read, not a call: the calls were
    /// a tenth of a tick.
    @inline(never)
    func evaluateAnimated(_ c: Channel, atFrame frame: Double, memo: SolveMemo, into out: UnsafeMutablePointer<Double>) {
        let n = c.dimension
        guard let i = segmentIndex(c, frame) else {
            let from = frame < c.firstFrame ? c.first : c.last
            for d in 0..<n { out[d] = values[from + d] }
            return
        }
        let s = segments[i]
        let start = s.values, end = s.values + n
        if s.hold || s.endFrame <= s.startFrame { for d in 0..<n { out[d] = values[start + d] }; return }
        let progress = (frame - s.startFrame) / (s.endFrame - s.startFrame)
        if s.spatial >= 0 { return evaluateSpatial(s, n, progress, memo: memo, into: out) }
        if s.easingCount <= 1 {
            let eased = eased(s.easing, progress, memo)
            for d in 0..<n { out[d] = values[start + d] + (values[end + d] - values[start + d]) * eased }
            return
        }
        for d in 0..<n {
            let eased = eased(s.easing + (d < s.easingCount ? d : 0), progress, memo)
            out[d] = values[start + d] + (values[end + d] - values[start + d]) * eased
        }
    }

    /// A position segment's value: the point at the eased fraction of its curve's length
    /// (lottie §2.6), further dimensions mixed as usual. Apart: rarely taken, and its stack frame
    /// would burden every other evaluation.
    @inline(never)
    func evaluateSpatial(_ s: Segment, _ n: Int, _ progress: Double, memo: SolveMemo, into out: UnsafeMutablePointer<Double>) {
        let start = s.values, end = s.values + n
        let eased = eased(s.easing, progress, memo)
        let p = spatialPoint(s.spatial, atFraction: eased, memo)
        for d in 0..<n { out[d] = values[start + d] }
        out[0] = p.x
        if n > 1 { out[1] = p.y }
        for d in 2..<max(n, 2) where d < n { out[d] = values[start + d] + (values[end + d] - values[start + d]) * eased }
    }

    /// Curve `curve`'s value at `progress` (``TimingFunction/value(at:)``), taken from `memo`
    /// when this thread solved the same curve at the same progress already: channels keyed at
    /// the same frames with the same easing, and instances at the same frame, share one solve,
    /// with the same bits.
    @inline(__always)
    func eased(_ curve: Int, _ progress: Double, _ memo: SolveMemo) -> Double {
        memo.value(curve, progress) { (curves[curve].value(at: progress), 0) }.x
    }

    /// Spatial segment `k`'s point at `fraction` of its length: ``LottieProperty/SpatialCurve``'s
    /// `point(atFraction:)`, operation for operation — `PathMeasure.point(atLength:)` on a path of
    /// one cubic (its starts 0 and the length), `ArcLength.parameter` on its table, the cubic at
    /// that parameter.
    ///
    /// Taken from `memo` when this thread found the same point already (a bracketed Newton solve
    /// on a 16-point quadrature, three or four of them per point: most of a tick of a file that
    /// moves its layers along curves).
    @inline(__always)
    func spatialPoint(_ k: Int, atFraction fraction: Double, _ memo: SolveMemo) -> Point {
        let p = memo.value(-1 - k, fraction) {
            let p = spatialPoint(k, atFraction: fraction)
            return (p.x, p.y)
        }
        return Point(x: p.x, y: p.y)
    }

    /// ``spatialPoint(_:atFraction:_:)`` computed.
    @inline(never)
    func spatialPoint(_ k: Int, atFraction fraction: Double) -> Point {
        let c = spatialCubics[k]
        guard c.count > 0 else { return spatial[k].point(atFraction: fraction) }
        let s = min(max(fraction, 0), 1) * c.length
        let target = s.isNaN ? 0 : min(max(s, 0), c.length)
        let local = target - 0, segmentLength = c.length - 0
        let t: Double
        if !(segmentLength > 0) {
            t = local > 0 ? 1 : 0
        } else {
            // The table lies inside `spatialPairs` (the builder placed it there).
            t = ArcLength.parameter(ofLength: local, pairs: UnsafePointer(spatialPairs.baseAddress.unsafelyUnwrapped + c.pairs),
                                    count: c.count, cubic: CubicSpeed(c.x0, c.y0, c.x1, c.y1, c.x2, c.y2, c.x3, c.y3))
        }
        let u = 1 - t
        let a = u * u * u, b = 3 * u * u * t, d = 3 * u * t * t, e = t * t * t
        return Point(x: a * c.x0 + b * c.x1 + d * c.x2 + e * c.x3, y: a * c.y0 + b * c.y1 + d * c.y2 + e * c.y3)
    }

    /// The first number of channel `id` at `frame` (0 for none).
    @inline(__always)
    func scalar(_ id: Int, atFrame frame: Double, memo: SolveMemo) -> Double {
        let c = channels[id], n = c.dimension
        guard n > 0 else { return 0 }
        guard c.segmentCount > 0 else { return values[c.first] }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { buffer in
            evaluateAnimated(c, atFrame: frame, memo: memo, into: buffer.baseAddress!)   // capacity n > 0
            return buffer[0]
        }
    }

    /// The first two numbers of channel `id` at `frame` (0 where missing).
    @inline(__always)
    func pair(_ id: Int, atFrame frame: Double, memo: SolveMemo) -> (Double, Double) {
        let c = channels[id], n = c.dimension
        guard n > 0 else { return (0, 0) }
        guard c.segmentCount > 0 else { return (values[c.first], n > 1 ? values[c.first + 1] : 0) }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { buffer in
            evaluateAnimated(c, atFrame: frame, memo: memo, into: buffer.baseAddress!)   // capacity n > 0
            return (buffer[0], n > 1 ? buffer[1] : 0)
        }
    }

    /// The direction of travel of position channel `id` at `frame` (``LottieProperty``'s).
    func direction(_ id: Int, atFrame frame: Double, memo: SolveMemo) -> Point? {
        let c = channels[id]
        guard c.segmentCount > 0, c.dimension >= 2 else { return nil }
        let lastEnd = segments[c.segmentStart + c.segmentCount - 1].endFrame
        let i = segmentIndex(c, frame) ?? (frame >= lastEnd ? c.segmentStart + c.segmentCount - 1 : c.segmentStart)
        let s = segments[i]
        guard !s.hold else { return nil }
        if s.spatial >= 0 {
            let progress = s.endFrame > s.startFrame ? min(max((frame - s.startFrame) / (s.endFrame - s.startFrame), 0), 1) : 1
            let t = spatial[s.spatial].tangent(atFraction: eased(s.easing, progress, memo))
            return t.x == 0 && t.y == 0 ? nil : t
        }
        let n = c.dimension
        let dx = values[s.values + n] - values[s.values], dy = values[s.values + n + 1] - values[s.values + 1]
        return dx == 0 && dy == 0 ? nil : Point(x: dx, y: dy)
    }

    /// A transform's channels (−1: absent).
    struct Transform {
        var anchor: Int
        var position: Int
        var positionX: Int
        var positionY: Int
        var scale: Int
        var rotation: Int
        var opacity: Int
    }

    /// ``LottieTransform/matrix(atFrame:extraRotation:)`` from channels: the same operations.
    func matrix(_ t: Transform, atFrame frame: Double, memo: SolveMemo, extraRotation: Double = 0) -> AffineTransform {
        let (ax, ay) = pair(t.anchor, atFrame: frame, memo: memo)
        var sx = 100.0, sy = 100.0
        if channels[t.scale].dimension > 0 {
            (sx, sy) = pair(t.scale, atFrame: frame, memo: memo)
            if channels[t.scale].dimension == 1 { sy = sx }
        }
        let p: Point
        if t.positionX >= 0 && t.positionY >= 0 {
            p = Point(x: scalar(t.positionX, atFrame: frame, memo: memo), y: scalar(t.positionY, atFrame: frame, memo: memo))
        } else if t.position >= 0 {
            let (x, y) = pair(t.position, atFrame: frame, memo: memo)
            p = Point(x: x, y: y)
        } else {
            p = Point(x: 0, y: 0)
        }
        let r = scalar(t.rotation, atFrame: frame, memo: memo) * .pi / 180 + extraRotation
        var m = AffineTransform.translation(x: -ax, y: -ay)
        m = m.concatenating(.scale(x: sx / 100, y: sy / 100))
        if r != 0 { m = m.concatenating(.rotation(angle: r)) }
        return m.concatenating(.translation(x: p.x, y: p.y))
    }

    /// ``LottieTransform/opacity(atFrame:)`` from channels.
    func opacity(_ t: Transform, atFrame frame: Double, memo: SolveMemo) -> Double {
        min(max(scalar(t.opacity, atFrame: frame, memo: memo) / 100, 0), 1)
    }
}

extension LottieChannels.Builder {
    /// A transform's channels.
    mutating func add(_ t: LottieTransform) -> LottieChannels.Transform {
        LottieChannels.Transform(anchor: add(t.anchor), position: add(t.position), positionX: add(t.positionX), positionY: add(t.positionY),
                                 scale: add(t.scale), rotation: add(t.rotation), opacity: add(t.opacity))
    }
}

/// Eased values, points along spatial segments and trims' cuts on compiled tables already
/// computed by this thread, for ``LottieChannels/eased(_:_:_:)``,
/// ``LottieChannels/spatialPoint(_:atFraction:_:)`` and `LottieWork.parameter(atLocal:in:tables:)`: a
/// direct-mapped table in a thread's working memory (raw memory, owned by ``LottieWork``), each
/// entry keyed by the program (``LottieProgram/memoKey``), the curve, segment or table, and the
/// input's bits. Each is a pure function of its key, so an entry another instance-frame wrote —
/// another instance at the same frame, or this one a tick ago — is the value this one would
/// compute, bit for bit: instances that show the same frames (stickers at whole frames) solve
/// each once per frame value, and the result does not depend on which thread or chunk wrote it.
struct SolveMemo {
    struct Entry {
        /// The program's ``LottieProgram/memoKey``; 0 for an entry never written.
        var program: Int
        /// A curve's index, −1 − k for spatial segment k's point, or ``cutKey(table:)`` for a
        /// trim's cut on a compiled breakpoint table.
        var index: Int
        var input: Double
        var x: Double
        var y: Double
    }

    /// Entries a thread holds at most (a power of two): 320 KB, within the second-level cache.
    static let largestCapacity = 8192

    /// A table of `capacity` entries (a power of two, at most ``largestCapacity``) for a program
    /// of `keys` curves, spatial segments and cuts over `frames` frames: twice what each at every
    /// whole frame takes (direct-mapped, a fuller table loses most entries to collisions), so
    /// that the next tick finds what this one solved.
    static func capacity(keys: Int, frames: Double) -> Int {
        let wanted = 2 * Double(max(keys, 1)) * min(max(frames, 1), Double(largestCapacity))
        var capacity = 64
        while capacity < largestCapacity && Double(capacity) < wanted { capacity *= 2 }
        return capacity
    }

    /// The index of a trim's cut on the compiled breakpoint table at `table` (an offset into
    /// the program's numbers, below 2^40): apart from curves (≥ 0) and spatial segments
    /// (−1 … −2^40).
    @inline(__always)
    static func cutKey(table: Int) -> Int { -(1 << 41) - table }

    let entries: UnsafeMutablePointer<Entry>
    /// 64 − log2(capacity): the hash's top bits index the table.
    let shift: UInt64
    let program: Int

    /// The entry `index` at `input` lives in (direct-mapped by a hash of both).
    @inline(__always)
    func entry(_ index: Int, _ input: Double) -> UnsafeMutablePointer<Entry> {
        let hash = (UInt64(bitPattern: Int64(index)) &* 0x9E37_79B9_7F4A_7C15) ^ (input.bitPattern &* 0xC2B2_AE3D_27D4_EB4F)
        return entries + Int(truncatingIfNeeded: hash >> shift)   // the top log2(capacity) bits: < capacity
    }

    /// Whether `e` holds `index` at `input` for this program.
    @inline(__always)
    func holds(_ e: UnsafeMutablePointer<Entry>, _ index: Int, _ input: Double) -> Bool {
        e.pointee.program == program && e.pointee.index == index && e.pointee.input.bitPattern == input.bitPattern
    }

    /// `index`'s value at `input`: the entry's when it holds them, else `compute()`'s, kept there
    /// (replacing whatever the entry held).
    @inline(__always)
    func value(_ index: Int, _ input: Double, compute: () -> (x: Double, y: Double)) -> (x: Double, y: Double) {
        let e = entry(index, input)
        if holds(e, index, input) { return (e.pointee.x, e.pointee.y) }
        let v = compute()
        e.pointee = Entry(program: program, index: index, input: input, x: v.x, y: v.y)
        return v
    }
}
