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
    /// Spatial segments' arc-length tables (read only for those segments).
    let spatial: [LottieProperty.SpatialCurve]

    /// Collects channels while a program is compiled.
    struct Builder {
        var channels: [Channel] = []
        var segments: [Segment] = []
        var values: [Double] = []
        var curves: [TimingFunction] = []
        var spatial: [LottieProperty.SpatialCurve] = []

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
                let easing = curves.count
                // One curve for every dimension when they are all the same (most files): solved
                // once per segment rather than once per dimension, with the same result.
                let shared = s.easing.allSatisfy { $0 == s.easing[0] }
                curves.append(contentsOf: shared ? Array(s.easing.prefix(1)) : s.easing)
                var spatialIndex = -1
                if let curve = s.spatial {
                    spatialIndex = spatial.count
                    spatial.append(curve)
                }
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
    }

    deinit {   // copies made in init and owned here alone (see the type's note)
        channels.deallocate()
        segments.deallocate()
        values.deallocate()
        curves.deallocate()
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
    func evaluate(_ id: Int, atFrame frame: Double, into out: UnsafeMutablePointer<Double>) {
        let c = channels[id], n = c.dimension
        guard c.segmentCount > 0 else { for d in 0..<n { out[d] = values[c.first + d] }; return }
        guard let i = segmentIndex(c, frame) else {
            let from = frame < c.firstFrame ? c.first : c.last
            for d in 0..<n { out[d] = values[from + d] }
            return
        }
        let s = segments[i]
        let start = s.values, end = s.values + n
        if s.hold || s.endFrame <= s.startFrame { for d in 0..<n { out[d] = values[start + d] }; return }
        let progress = (frame - s.startFrame) / (s.endFrame - s.startFrame)
        if s.spatial >= 0 {
            let eased = curves[s.easing].value(at: progress)
            let p = spatial[s.spatial].point(atFraction: eased)
            for d in 0..<n { out[d] = values[start + d] }
            out[0] = p.x
            if n > 1 { out[1] = p.y }
            for d in 2..<max(n, 2) where d < n { out[d] = values[start + d] + (values[end + d] - values[start + d]) * eased }
            return
        }
        if s.easingCount <= 1 {
            let eased = curves[s.easing].value(at: progress)
            for d in 0..<n { out[d] = values[start + d] + (values[end + d] - values[start + d]) * eased }
            return
        }
        for d in 0..<n {
            let eased = curves[s.easing + (d < s.easingCount ? d : 0)].value(at: progress)
            out[d] = values[start + d] + (values[end + d] - values[start + d]) * eased
        }
    }

    /// The first number of channel `id` at `frame` (0 for none).
    @inline(__always)
    func scalar(_ id: Int, atFrame frame: Double) -> Double {
        let n = channels[id].dimension
        guard n > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { buffer in
            evaluate(id, atFrame: frame, into: buffer.baseAddress!)   // capacity n > 0
            return buffer[0]
        }
    }

    /// The first two numbers of channel `id` at `frame` (0 where missing).
    @inline(__always)
    func pair(_ id: Int, atFrame frame: Double) -> (Double, Double) {
        let n = channels[id].dimension
        guard n > 0 else { return (0, 0) }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { buffer in
            evaluate(id, atFrame: frame, into: buffer.baseAddress!)   // capacity n > 0
            return (buffer[0], n > 1 ? buffer[1] : 0)
        }
    }

    /// The direction of travel of position channel `id` at `frame` (``LottieProperty``'s).
    func direction(_ id: Int, atFrame frame: Double) -> Point? {
        let c = channels[id]
        guard c.segmentCount > 0, c.dimension >= 2 else { return nil }
        let lastEnd = segments[c.segmentStart + c.segmentCount - 1].endFrame
        let i = segmentIndex(c, frame) ?? (frame >= lastEnd ? c.segmentStart + c.segmentCount - 1 : c.segmentStart)
        let s = segments[i]
        guard !s.hold else { return nil }
        if s.spatial >= 0 {
            let progress = s.endFrame > s.startFrame ? min(max((frame - s.startFrame) / (s.endFrame - s.startFrame), 0), 1) : 1
            let t = spatial[s.spatial].tangent(atFraction: curves[s.easing].value(at: progress))
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
    func matrix(_ t: Transform, atFrame frame: Double, extraRotation: Double = 0) -> AffineTransform {
        let (ax, ay) = pair(t.anchor, atFrame: frame)
        var sx = 100.0, sy = 100.0
        let n = channels[t.scale].dimension
        if n > 0 {
            withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { buffer in
                evaluate(t.scale, atFrame: frame, into: buffer.baseAddress!)   // capacity n > 0
                sx = buffer[0]
                sy = n > 1 ? buffer[1] : sx
            }
        }
        let p: Point
        if t.positionX >= 0 && t.positionY >= 0 {
            p = Point(x: scalar(t.positionX, atFrame: frame), y: scalar(t.positionY, atFrame: frame))
        } else if t.position >= 0 {
            let (x, y) = pair(t.position, atFrame: frame)
            p = Point(x: x, y: y)
        } else {
            p = Point(x: 0, y: 0)
        }
        let r = scalar(t.rotation, atFrame: frame) * .pi / 180 + extraRotation
        var m = AffineTransform.translation(x: -ax, y: -ay)
        m = m.concatenating(.scale(x: sx / 100, y: sy / 100))
        if r != 0 { m = m.concatenating(.rotation(angle: r)) }
        return m.concatenating(.translation(x: p.x, y: p.y))
    }

    /// ``LottieTransform/opacity(atFrame:)`` from channels.
    func opacity(_ t: Transform, atFrame frame: Double) -> Double {
        min(max(scalar(t.opacity, atFrame: frame) / 100, 0), 1)
    }
}

extension LottieChannels.Builder {
    /// A transform's channels.
    mutating func add(_ t: LottieTransform) -> LottieChannels.Transform {
        LottieChannels.Transform(anchor: add(t.anchor), position: add(t.position), positionX: add(t.positionX), positionY: add(t.positionY),
                                 scale: add(t.scale), rotation: add(t.rotation), opacity: add(t.opacity))
    }
}
