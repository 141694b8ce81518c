import AnimationCore

/// An animated or static property of a Lottie file as numbers: a scalar, a point, a colour
/// (lottie §2). Keyframes are turned into segments when the file is read, each with its easing
/// curves and, for a position with spatial tangents, the arc-length table of its path.
public struct LottieProperty: Sendable {
    /// How many numbers a value has.
    public let dimension: Int
    /// The keyframes' segments in time order (empty for a static property).
    let segments: [Segment]
    /// The value before the first key (and the static value).
    let first: [Double]
    /// The value at and after the last key.
    let last: [Double]
    /// The first key's frame (`.infinity` for a static property).
    let firstFrame: Double

    /// One keyframe segment, key k → key k + 1 (lottie §2.2–§2.6).
    struct Segment: Sendable {
        var startFrame: Double
        var endFrame: Double
        var start: [Double]
        var end: [Double]
        /// `h: 1`: the start value until the next key (lottie §2.5).
        var hold: Bool
        /// One curve per dimension, or one for all (lottie §2.4).
        var easing: [TimingFunction]
        /// The segment's path when its spatial tangents bend it (lottie §2.6).
        var spatial: SpatialCurve?
    }

    /// A position segment's cubic, walked by arc length (lottie §2.6).
    struct SpatialCurve: Sendable {
        let measure: PathMeasure
        /// The point at `fraction` of the curve's length (clamped to the curve).
        func point(atFraction fraction: Double) -> Point {
            measure.point(atLength: min(max(fraction, 0), 1) * measure.length)
        }
        /// The curve's direction at `fraction` of its length.
        func tangent(atFraction fraction: Double) -> Point {
            measure.tangent(atLength: min(max(fraction, 0), 1) * measure.length)
        }
    }

    /// A static property.
    public init(constant value: [Double]) {
        dimension = value.count
        segments = []
        first = value
        last = value
        firstFrame = .infinity
    }

    init(dimension: Int, segments: [Segment], first: [Double], last: [Double]) {
        self.dimension = dimension
        self.segments = segments
        self.first = first
        self.last = last
        firstFrame = segments.first?.startFrame ?? .infinity
    }

    /// Whether the property has keyframes.
    public var isAnimated: Bool { !segments.isEmpty }

    /// The segment that holds `frame`, or nil before the first key and at or after the last.
    /// Two keys at the same frame are a jump: the later one's segment wins (lottie §2.3).
    func segment(at frame: Double) -> Segment? {
        segmentIndex(at: frame).map { segments[$0] }
    }

    /// The index of ``segment(at:)`` (no copy of the segment: a tick reads it in place).
    func segmentIndex(at frame: Double) -> Int? {
        segments.withUnsafeBufferPointer { list in
            guard let firstSegment = list.first, frame >= firstSegment.startFrame,
                  let lastSegment = list.last, frame < lastSegment.endFrame else { return nil }
            // The last segment whose start is ≤ frame (binary search: segments are sorted).
            var low = 0, high = list.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if list[mid].startFrame <= frame { low = mid } else { high = mid - 1 }
            }
            return low
        }
    }

    /// The value at `frame` (the file's frame numbers, fractional allowed).
    public func value(atFrame frame: Double) -> [Double] {
        [Double](unsafeUninitializedCapacity: max(dimension, 1)) { buffer, count in
            evaluate(atFrame: frame, into: buffer.baseAddress!)   // capacity ≥ 1: never nil
            count = dimension
        }
    }

    /// Calls `body` with the value at `frame` in temporary storage (no heap allocation for the
    /// usual sizes: what a tick uses).
    func withValue(atFrame frame: Double, _ body: (UnsafeBufferPointer<Double>) -> Void) {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: max(dimension, 1)) { buffer in
            evaluate(atFrame: frame, into: buffer.baseAddress!)   // capacity ≥ 1: never nil
            body(UnsafeBufferPointer(rebasing: buffer[0..<dimension]))
        }
    }

    /// Writes the `dimension` numbers of the value at `frame` to `out` (lottie §2.2–§2.6).
    func evaluate(atFrame frame: Double, into out: UnsafeMutablePointer<Double>) {
        let n = dimension
        guard !segments.isEmpty else { return first.withUnsafeBufferPointer { v in for d in 0..<n { out[d] = v[d] } } }
        guard let i = segmentIndex(at: frame) else {
            return (frame < firstFrame ? first : last).withUnsafeBufferPointer { v in for d in 0..<n { out[d] = v[d] } }
        }
        // The segment read in place: copying it would retain its arrays (a tick reads thousands).
        segments.withUnsafeBufferPointer { list in
            let s = list.baseAddress! + i   // i is a valid index (segmentIndex)
            s.pointee.start.withUnsafeBufferPointer { start in
                if s.pointee.hold || s.pointee.endFrame <= s.pointee.startFrame {
                    for d in 0..<n { out[d] = start[d] }
                    return
                }
                let progress = (frame - s.pointee.startFrame) / (s.pointee.endFrame - s.pointee.startFrame)
                s.pointee.end.withUnsafeBufferPointer { end in
                    s.pointee.easing.withUnsafeBufferPointer { easing in
                        if let curve = s.pointee.spatial {
                            let eased = easing[0].value(at: progress)
                            let p = curve.point(atFraction: eased)
                            for d in 0..<n { out[d] = start[d] }
                            out[0] = p.x
                            if n > 1 { out[1] = p.y }
                            for d in 2..<max(n, 2) where d < end.count { out[d] = start[d] + (end[d] - start[d]) * eased }
                            return
                        }
                        for d in 0..<n {
                            let eased = easing[d < easing.count ? d : 0].value(at: progress)
                            out[d] = start[d] + (end[d] - start[d]) * eased
                        }
                    }
                }
            }
        }
    }

    /// The direction of travel at `frame` for a position (lottie §3.4): the tangent of the
    /// segment's path, or of the straight line between its ends; nil when the value does not
    /// move there.
    func direction(atFrame frame: Double) -> Point? {
        guard let s = segment(at: frame) ?? (frame >= (segments.last?.endFrame ?? .infinity) ? segments.last : segments.first),
              !s.hold, s.start.count >= 2, s.end.count >= 2 else { return nil }
        if let curve = s.spatial {
            let progress = s.endFrame > s.startFrame ? min(max((frame - s.startFrame) / (s.endFrame - s.startFrame), 0), 1) : 1
            let t = curve.tangent(atFraction: s.easing[0].value(at: progress))
            return t.x == 0 && t.y == 0 ? nil : t
        }
        let dx = s.end[0] - s.start[0], dy = s.end[1] - s.start[1]
        return dx == 0 && dy == 0 ? nil : Point(x: dx, y: dy)
    }

    /// The scalar at `frame` (the first number; 0 for an empty value).
    public func scalar(atFrame frame: Double) -> Double {
        var x = 0.0
        withValue(atFrame: frame) { v in x = v.first ?? 0 }
        return x
    }
}

/// A Bézier path of a Lottie shape (`sh`, lottie §4.3): vertices with in and out tangents
/// relative to their vertex.
public struct LottieBezier: Sendable, Equatable {
    /// `c`: a last segment joins the last vertex to the first.
    public var closed: Bool
    /// `v`.
    public var vertices: [Point]
    /// `i`: each vertex's incoming control point, relative to it.
    public var inTangents: [Point]
    /// `o`: each vertex's outgoing control point, relative to it.
    public var outTangents: [Point]

    /// A path of `vertices` with tangents relative to them.
    public init(closed: Bool, vertices: [Point], inTangents: [Point], outTangents: [Point]) {
        self.closed = closed
        self.vertices = vertices
        self.inTangents = inTangents
        self.outTangents = outTangents
    }

    /// The path as rlottie builds it: a move to the first vertex, one cubic per segment (straight
    /// segments too), and for a closed path a last cubic back to the first vertex and a close
    /// (the evaluations' own builder, `LottieShapes`).
    public func path(transform: AffineTransform = .identity) -> Path {
        var sink = PathSink()
        LottieShapes.emit(self, self, 0, into: &sink)
        return transform.isIdentity ? sink.path : sink.path.applying(transform)
    }

    /// Vertex by vertex from `self` to `other` at `fraction` (same vertex counts).
    func interpolated(to other: LottieBezier, fraction f: Double) -> LottieBezier {
        func mix(_ a: [Point], _ b: [Point]) -> [Point] {
            zip(a, b).map { Point(x: $0.x + ($1.x - $0.x) * f, y: $0.y + ($1.y - $0.y) * f) }
        }
        return LottieBezier(closed: closed, vertices: mix(vertices, other.vertices),
                            inTangents: mix(inTangents, other.inTangents), outTangents: mix(outTangents, other.outTangents))
    }
}

/// An animated or static path (`sh`'s `ks`): morphs interpolate vertex by vertex with the
/// segment's easing (lottie §4.3).
public struct LottieShapeProperty: Sendable {
    struct Key: Sendable {
        var frame: Double
        var start: LottieBezier
        var end: LottieBezier?
        var hold: Bool
        var easing: TimingFunction
    }
    let keys: [Key]
    let constant: LottieBezier?

    /// A static path.
    public init(constant: LottieBezier) {
        self.constant = constant
        keys = []
    }

    init(keys: [Key]) {
        self.keys = keys
        constant = nil
    }

    /// The path at `frame`.
    public func value(atFrame frame: Double) -> LottieBezier {
        if let constant { return constant }
        guard let first = keys.first else { return LottieBezier(closed: false, vertices: [], inTangents: [], outTangents: []) }
        if frame < first.frame { return first.start }
        // The last key at or before `frame` (the later of two at one frame, lottie §2.3).
        var low = 0, high = keys.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if keys[mid].frame <= frame { low = mid } else { high = mid - 1 }
        }
        let k = keys[low]
        guard low + 1 < keys.count else { return k.end ?? k.start }
        let next = keys[low + 1]
        let end = k.end ?? next.start
        if k.hold || next.frame <= k.frame { return k.start }
        let progress = (frame - k.frame) / (next.frame - k.frame)
        return k.start.interpolated(to: end, fraction: k.easing.value(at: progress))
    }
}

extension Point {
    static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
}
