import Foundation

/// One drawn piece of a path: a line or a cubic Bézier (quadratic curves are raised to cubics,
/// which is exact and keeps the parameter). Close elements become lines back to the subpath start.
struct PathSegment: Sendable, Hashable {
    enum Kind: Sendable, Hashable { case line, cubic }
    let kind: Kind
    let p0: Point, p1: Point, p2: Point, p3: Point
    /// The index of the path element that drew this segment.
    let elementIndex: Int
    /// True for the line a `closeSubpath` draws.
    let isClose: Bool
    /// True for the first drawn segment after a move (a new subpath starts here).
    let startsSubpath: Bool

    static func line(_ a: Point, _ b: Point, element: Int, isClose: Bool = false, startsSubpath: Bool) -> PathSegment {
        PathSegment(kind: .line, p0: a, p1: a, p2: b, p3: b, elementIndex: element, isClose: isClose, startsSubpath: startsSubpath)
    }

    var start: Point { p0 }
    var end: Point { p3 }

    func point(at t: Double) -> Point {
        switch kind {
        case .line:
            return Point(x: p0.x + (p3.x - p0.x) * t, y: p0.y + (p3.y - p0.y) * t)
        case .cubic:
            let s = 1 - t
            let a = s * s * s, b = 3 * s * s * t, c = 3 * s * t * t, d = t * t * t
            return Point(x: a * p0.x + b * p1.x + c * p2.x + d * p3.x, y: a * p0.y + b * p1.y + c * p2.y + d * p3.y)
        }
    }

    func derivative(at t: Double) -> Point {
        switch kind {
        case .line:
            return Point(x: p3.x - p0.x, y: p3.y - p0.y)
        case .cubic:
            let s = 1 - t
            let a = 3 * s * s, b = 6 * s * t, c = 3 * t * t
            return Point(x: a * (p1.x - p0.x) + b * (p2.x - p1.x) + c * (p3.x - p2.x),
                         y: a * (p1.y - p0.y) + b * (p2.y - p1.y) + c * (p3.y - p2.y))
        }
    }

    /// The unit direction of travel at `t`, or nil where the segment has none (a point). At a
    /// vanishing derivative the limit direction is used: the first distinct control point after
    /// the start, the last before the end, or just before `t` inside the curve.
    func direction(at t: Double) -> Point? {
        func unit(_ d: Point) -> Point? {
            let l = hypot(d.x, d.y)
            return l > 1e-12 * max(1, scale) ? Point(x: d.x / l, y: d.y / l) : nil
        }
        if let d = unit(derivative(at: t)) { return d }
        if kind == .line { return nil }
        if t <= 0 {
            return unit(Point(x: p1.x - p0.x, y: p1.y - p0.y)) ?? unit(Point(x: p2.x - p0.x, y: p2.y - p0.y))
                ?? unit(Point(x: p3.x - p0.x, y: p3.y - p0.y))
        }
        if t >= 1 {
            return unit(Point(x: p3.x - p2.x, y: p3.y - p2.y)) ?? unit(Point(x: p3.x - p1.x, y: p3.y - p1.y))
                ?? unit(Point(x: p3.x - p0.x, y: p3.y - p0.y))
        }
        return unit(derivative(at: max(0, t - 1e-6))) ?? unit(derivative(at: min(1, t + 1e-6)))
    }

    /// The size of the control polygon: a scale for tolerances.
    var scale: Double {
        hypot(p1.x - p0.x, p1.y - p0.y) + hypot(p2.x - p1.x, p2.y - p1.y) + hypot(p3.x - p2.x, p3.y - p2.y)
    }

    /// The part of the segment between parameters `t0 ≤ t1` (de Casteljau, exact).
    func sub(from t0: Double, to t1: Double) -> PathSegment {
        if kind == .line {
            return .line(point(at: t0), point(at: t1), element: elementIndex, isClose: isClose, startsSubpath: startsSubpath)
        }
        // Split at t1 and keep the left part, then split that at t0 / t1 and keep the right part.
        let left = t1 >= 1 ? self : split(at: t1).0
        let right = t0 <= 0 ? left : left.split(at: t1 > 0 ? t0 / t1 : 0).1
        return right
    }

    func split(at t: Double) -> (PathSegment, PathSegment) {
        func mix(_ a: Point, _ b: Point) -> Point { Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t) }
        let a = mix(p0, p1), b = mix(p1, p2), c = mix(p2, p3)
        let d = mix(a, b), e = mix(b, c)
        let f = mix(d, e)
        return (PathSegment(kind: .cubic, p0: p0, p1: a, p2: d, p3: f, elementIndex: elementIndex, isClose: isClose, startsSubpath: startsSubpath),
                PathSegment(kind: .cubic, p0: f, p1: e, p2: c, p3: p3, elementIndex: elementIndex, isClose: isClose, startsSubpath: false))
    }

    /// The parameters in (0, 1) at which the one-dimensional cubic Bézier with control values
    /// `a`, `b`, `c`, `d` turns: the roots of its derivative, at most two. Paths' extrema and
    /// timing functions' turning points (``TimingFunction/turningProgresses``) both use it.
    static func derivativeRoots(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> [Double] {
        // B′(t)/3 = (b−a)(1−t)² + 2(c−b)(1−t)t + (d−c)t² = A t² + B t + C
        let qa = (b - a) - 2 * (c - b) + (d - c), qb = 2 * ((c - b) - (b - a)), qc = b - a
        var ts: [Double] = []
        if abs(qa) < 1e-15 {
            if qb != 0 { ts.append(-qc / qb) }
        } else {
            let disc = qb * qb - 4 * qa * qc
            if disc >= 0 {
                let r = disc.squareRoot()
                ts.append((-qb + r) / (2 * qa))
                ts.append((-qb - r) / (2 * qa))
            }
        }
        return ts.filter { $0 > 0 && $0 < 1 }
    }

    /// Points where the curve reaches an extreme in x or y (roots of the derivative in (0, 1)).
    var extrema: [Point] {
        guard kind == .cubic else { return [] }
        let ts = Self.derivativeRoots(p0.x, p1.x, p2.x, p3.x) + Self.derivativeRoots(p0.y, p1.y, p2.y, p3.y)
        return ts.map { point(at: $0) }
    }
}

/// A path prepared for measuring by arc length (semantics §13, §14.6): total length, the point and
/// direction at any length, and the map back to a segment and parameter.
///
/// Lines are measured exactly; curves by adaptive Gauss–Legendre quadrature (16 nodes; each
/// curve first cut where its speed bends sharply, as at a cusp (`SpeedMinima`); intervals halved
/// until two levels agree within 1e-13 of the curve's control-polygon length; bounded). Measured
/// error of lengths ≤ 1e-12 of the control polygon against closed forms (circles, lines, curves
/// that turn back on themselves), ≤ 1e-11 at a near-cusp (the cut leaves the minimum's
/// √(ε² + c²τ²) at a piece's end, part of which the refinement's test cannot see) — far inside
/// the 1e-6 asked by semantics §14.6. Moves between subpaths add no length; close elements add
/// the line back to the subpath start; zero-length segments add 0 (§13).
public struct PathMeasure: Sendable {
    let segments: [PathSegment]
    /// The length at the start of each segment, then the total (count = segments + 1).
    let starts: [Double]
    /// Per cubic segment, the adaptive breakpoints (t, length from the segment's start); empty for
    /// lines.
    let tables: [[(t: Double, s: Double)]]
    /// The first point of the path, where a path of moves only "is".
    let firstPoint: Point

    /// The total drawn length.
    public let length: Double

    /// One drawn segment as a cubic Bézier (lines have their end points as control points; quads
    /// are raised to cubics exactly; a close element is a line back to the subpath start).
    public struct Segment: Sendable, Hashable {
        public var start: Point
        public var control1: Point
        public var control2: Point
        public var end: Point
        /// True for straight segments (lines and closes).
        public var isLine: Bool
        /// The arc length of the segment.
        public var length: Double
    }

    /// The drawn segments in order: one per path element other than a move (semantics §5.6).
    public var drawnSegments: [Segment] {
        segments.enumerated().map { i, s in
            Segment(start: s.p0, control1: s.kind == .line ? s.p0 : s.p1, control2: s.kind == .line ? s.p3 : s.p2,
                    end: s.p3, isLine: s.kind == .line, length: starts[i + 1] - starts[i])
        }
    }

    /// Prepares `path` for measuring.
    public init(_ path: Path) {
        let segments = Self.segments(of: path)
        var starts = [0.0]
        var tables: [[(t: Double, s: Double)]] = []
        for segment in segments {
            if segment.kind == .line {
                tables.append([])
                starts.append(starts[starts.count - 1] + hypot(segment.p3.x - segment.p0.x, segment.p3.y - segment.p0.y))
            } else {
                let table = Self.lengthTable(segment)
                tables.append(table)
                starts.append(starts[starts.count - 1] + (table.last?.s ?? 0))
            }
        }
        self.segments = segments
        self.starts = starts
        self.tables = tables
        self.length = starts[starts.count - 1]
        self.firstPoint = path.elements.first?.endPoint ?? .zero
    }

    /// The drawn segments of `path` in order.
    static func segments(of path: Path) -> [PathSegment] {
        var result: [PathSegment] = []
        var current: Point?
        var subpathStart: Point?
        var fresh = true
        for (i, element) in path.elements.enumerated() {
            switch element {
            case .move(let p):
                current = p
                subpathStart = p
                fresh = true
            case .line(let p):
                guard let c = current else { continue }
                result.append(.line(c, p, element: i, startsSubpath: fresh))
                current = p
                fresh = false
            case .quadCurve(let p, let q):
                guard let c = current else { continue }
                // Degree elevation: the same curve, the same parameter.
                let c1 = Point(x: c.x + 2.0 / 3.0 * (q.x - c.x), y: c.y + 2.0 / 3.0 * (q.y - c.y))
                let c2 = Point(x: p.x + 2.0 / 3.0 * (q.x - p.x), y: p.y + 2.0 / 3.0 * (q.y - p.y))
                result.append(PathSegment(kind: .cubic, p0: c, p1: c1, p2: c2, p3: p, elementIndex: i, isClose: false, startsSubpath: fresh))
                current = p
                fresh = false
            case .curve(let p, let c1, let c2):
                guard let c = current else { continue }
                result.append(PathSegment(kind: .cubic, p0: c, p1: c1, p2: c2, p3: p, elementIndex: i, isClose: false, startsSubpath: fresh))
                current = p
                fresh = false
            case .closeSubpath:
                guard let c = current, let s = subpathStart else { continue }
                result.append(.line(c, s, element: i, isClose: true, startsSubpath: fresh))
                current = s
                fresh = true  // a drawing element after a close starts a new subpath at the same point
            }
        }
        return result
    }

    /// Adaptive breakpoints of a cubic's arc length: (t, length from t = 0), from (0, 0) to (1, L).
    static func lengthTable(_ segment: PathSegment) -> [(t: Double, s: Double)] {
        let scale = segment.scale
        let (p0, p1, p2, p3) = (segment.p0, segment.p1, segment.p2, segment.p3)
        let minima = CubicSpeed(p0.x, p0.y, p1.x, p1.y, p2.x, p2.y, p3.x, p3.y).speedMinima
        // A square root of the sum of squares where it cannot overflow (an animation's coordinates
        // are within ±1e38): `hypot` made half the cost of measuring a long path. Beyond (a
        // Lottie file's coordinates are only finite), `hypot`.
        guard scale < ArcLength.plainSpeedScale else {
            return ArcLength.table(scale: scale, minima: minima) { t in
                let d = segment.derivative(at: t)
                return hypot(d.x, d.y)
            }
        }
        return ArcLength.table(scale: scale, minima: minima) { t in
            let d = segment.derivative(at: t)
            return (d.x * d.x + d.y * d.y).squareRoot()
        }
    }

    /// The segment and parameter at arc length `s` (clamped to [0, length]; NaN counts as 0). At a
    /// boundary between segments the later one is chosen, except at the very end, where trailing
    /// zero-length segments are passed over back to the last one with length or to a jump.
    func location(atLength s: Double) -> (segment: Int, t: Double)? {
        guard !segments.isEmpty else { return nil }
        let target = s.isNaN ? 0 : min(max(s, 0), length)
        // The last segment whose start ≤ target, then the last non-empty one before the end.
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= target { lo = mid } else { hi = mid - 1 }
        }
        var i = lo
        if target >= length {
            // At the end: the last segment that has length, so the end is approached from inside
            // it — unless a move-to lies between it and the end: then the point landed on, as at
            // every other jump (a zero-time segment's later value wins, semantics §5.5, §5.6).
            i = segments.count - 1
            while i > 0 && starts[i + 1] - starts[i] == 0 && !jumps(before: i) { i -= 1 }
        }
        let local = target - starts[i]
        let segmentLength = starts[i + 1] - starts[i]
        guard segmentLength > 0 else { return (i, local > 0 ? 1 : 0) }
        if segments[i].kind == .line { return (i, min(1, local / segmentLength)) }
        return (i, parameter(atLocal: local, in: i))
    }

    /// The path's only drawn segment when it is one cubic: its control points and its breakpoint
    /// table (for callers that keep them flat, as a Lottie tick keeps its spatial segments).
    package var onlyCubic: (p0: Point, p1: Point, p2: Point, p3: Point, table: [(t: Double, s: Double)])? {
        guard segments.count == 1, segments[0].kind == .cubic else { return nil }
        let s = segments[0]
        return (s.p0, s.p1, s.p2, s.p3, tables[0])
    }

    /// Where the drawn path jumps (semantics §5.6: a move-to inside the path takes no time): at
    /// arc length `length` the point leaves `from`, the end of what was drawn before, for `to`,
    /// the start of the next drawn segment. Points at `length` itself are `to`'s side
    /// (``point(atLength:)``); in length order.
    public var jumps: [(length: Double, from: Point, to: Point)] {
        guard segments.count > 1 else { return [] }
        return (1..<segments.count).compactMap { j in
            jumps(before: j) ? (starts[j], segments[j - 1].end, segments[j].start) : nil
        }
    }

    /// True when a segment in `first + 1 ... last` does not start where the one before it ended.
    func hasJump(after first: Int, through last: Int) -> Bool {
        guard last > first else { return false }
        return (first + 1...last).contains(where: jumps(before:))
    }

    /// True when segment `j` (≥ 1) does not start where segment `j − 1` ended.
    private func jumps(before j: Int) -> Bool {
        segments[j].start != segments[j - 1].end
    }

    /// The point at arc length `s` along the drawn path (semantics §14.6), `s` clamped to
    /// [0, length] (NaN counts as 0). A path without drawn segments gives its first point, an empty
    /// path (0, 0).
    public func point(atLength s: Double) -> Point {
        guard let (i, t) = location(atLength: s) else { return firstPoint }
        return segments[i].point(at: t)
    }

    /// The unit direction of travel at arc length `s` (semantics §14.6, §5.7). Where the path has
    /// no direction — a zero-length segment or a cusp — the direction before that point is kept;
    /// at the very start the first direction after it; (1, 0) for a path with no direction at all.
    public func tangent(atLength s: Double) -> Point {
        guard let (i, t) = location(atLength: s) else { return Point(x: 1, y: 0) }
        return direction(inSegment: i, at: t)
    }

    /// The direction of travel arriving at length `s` (its left limit; `s` clamped to [0, length],
    /// NaN counts as 0): at a join between segments the direction the earlier one ends with, where
    /// ``tangent(atLength:)`` gives the later one's. Equal to it everywhere else, and at 0.
    func tangent(arrivingAt s: Double) -> Point {
        let target = s.isNaN ? 0 : min(max(s, 0), length)
        guard !segments.isEmpty, target > 0 else { return tangent(atLength: target) }
        // The last segment that starts strictly before the target: it has length (a zero-length
        // one would end where the next starts, also before the target) and reaches the target.
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] < target { lo = mid } else { hi = mid - 1 }
        }
        return direction(inSegment: lo, at: parameter(atLocal: min(target - starts[lo], starts[lo + 1] - starts[lo]), in: lo))
    }

    /// Segment `i`'s direction at `t`; where it has none, the previous direction (semantics §5.7):
    /// the end direction of the nearest segment before that has one, else the start direction of
    /// the nearest one after, else (1, 0).
    func direction(inSegment i: Int, at t: Double) -> Point {
        if let d = segments[i].direction(at: t) { return d }
        for j in stride(from: i - 1, through: 0, by: -1) {
            if let d = segments[j].direction(at: 1) { return d }
        }
        for j in (i + 1)..<max(i + 1, segments.count) {
            if let d = segments[j].direction(at: 0) { return d }
        }
        return Point(x: 1, y: 0)
    }
}

extension Path {
    /// The total drawn length (semantics §13, §14.6): lines exactly, curves to ≤ 1e-12 relative.
    /// For repeated queries build a ``PathMeasure`` once.
    public var length: Double { PathMeasure(self).length }

    /// The point at arc length `length` (see ``PathMeasure/point(atLength:)``).
    public func point(atLength length: Double) -> Point { PathMeasure(self).point(atLength: length) }

    /// The unit tangent at arc length `length` (see ``PathMeasure/tangent(atLength:)``).
    public func tangent(atLength length: Double) -> Point { PathMeasure(self).tangent(atLength: length) }
}

/// Points along a path evenly spaced in arc length, for sampling "the point at fraction f" by an
/// index and a lerp — the form the batch engine evaluates (semantics §5.6 paced, §5.7, §13).
///
/// `sample(atFraction:)` returns `lerp(points[i], points[i+1], w)` at `f·(count − 1) = i + w`, and
/// the lerped tangent angle.
///
/// **Error bound.** ``maximumError`` bounds `|sample(atFraction: f).point − point(atLength: f·L)|`
/// for every f on intervals without a subpath jump. It is rigorous: the deviation is 2-Lipschitz in
/// length (both the lerp and the exact point move at most one unit per unit of length), so its
/// maximum over an interval of length h is at most the largest value at 7 interior check points
/// (spacing h/8) plus h/8. ``measuredError`` is that largest checked value alone; on smooth paths
/// it approaches the sagitta h²/(8ρ) for the tightest radius of curvature ρ (a circle of radius 100
/// sampled 256 times: 7.6e-3, 1.2e-5 of the length). ``init(measure:tolerance:)`` picks the
/// smallest sample count whose bound meets a tolerance.
public struct ArcLengthTable: Sendable {
    /// The total length of the path.
    public let length: Double
    /// `points[i]` is the point at length `i · length / (count − 1)`.
    public let points: [Point]
    /// `angles[i]` is the tangent angle (radians, atan2) at `points[i]`, unwrapped so that
    /// neighbours differ by less than π.
    public let angles: [Double]
    /// A rigorous bound on the position error of `sample(atFraction:)` over intervals without a
    /// subpath jump (see the type's documentation).
    public let maximumError: Double
    /// The largest position error found at the check points (7 per interval).
    public let measuredError: Double

    /// The most samples ``init(measure:tolerance:)`` will use.
    public static let maximumSampleCount = 16_384

    /// Samples `path` at `sampleCount` (≥ 2; smaller counts are raised to 2, larger ones than
    /// ``maximumSampleCount`` lowered) points evenly spaced in length.
    public init(path: Path, sampleCount: Int = 256) {
        self.init(measure: PathMeasure(path), sampleCount: sampleCount)
    }

    /// The smallest table (sample counts 64, 128, …, ``maximumSampleCount``) whose
    /// ``maximumError`` is at most `tolerance` (the largest table when none is).
    public init(measure: PathMeasure, tolerance: Double) {
        var count = 64
        // A table's bound is its measured error plus h/8 (h the spacing): counts whose h/8 alone
        // passes the tolerance cannot meet it, so they are not built — the same table results.
        // Path animations ask for 2e-4 of the length, which no table below 1,024 samples meets:
        // the four skipped tables were half the samples of a typical search.
        let length = measure.length
        if length > 0 && length.isFinite {
            while count < Self.maximumSampleCount && length / Double(count - 1) / 8 > tolerance { count *= 2 }
        }
        var table = ArcLengthTable(measure: measure, sampleCount: count)
        while !(table.maximumError <= tolerance) && count < Self.maximumSampleCount {
            count *= 2
            table = ArcLengthTable(measure: measure, sampleCount: count)
        }
        self = table
    }

    /// Samples a measured path.
    public init(measure: PathMeasure, sampleCount: Int = 256) {
        let n = min(max(2, sampleCount), Self.maximumSampleCount)
        let length = measure.length
        var points: [Point] = []
        var angles: [Double] = []
        points.reserveCapacity(n)
        angles.reserveCapacity(n)
        for i in 0..<n {
            let s = length * Double(i) / Double(n - 1)
            points.append(measure.point(atLength: s))
            let d = measure.tangent(atLength: s)
            var angle = atan2(d.y, d.x)
            if let previous = angles.last {
                angle -= 2 * Double.pi * ((angle - previous) / (2 * Double.pi)).rounded()
            }
            angles.append(angle)
        }
        self.length = length
        self.points = points
        self.angles = angles
        var worst = 0.0
        let h = length / Double(n - 1)
        if length > 0 && length.isFinite {
            for i in 0..<(n - 1) {
                let a = h * Double(i), b = h * Double(i + 1)
                // Skip intervals that contain a jump between subpaths.
                if let (ia, _) = measure.location(atLength: a), let (ib, _) = measure.location(atLength: b),
                   measure.hasJump(after: ia, through: ib) {
                    continue
                }
                let p = points[i], q = points[i + 1]
                for j in 1...7 {
                    let w = Double(j) / 8
                    let exact = measure.point(atLength: a + (b - a) * w)
                    worst = max(worst, hypot(p.x + (q.x - p.x) * w - exact.x, p.y + (q.y - p.y) * w - exact.y))
                }
            }
        }
        self.measuredError = worst
        self.maximumError = length > 0 ? worst + h / 8 : 0
    }

    /// The point and tangent angle at fraction `f` of the length (clamped to [0, 1]; NaN counts as
    /// 0): index plus lerp.
    public func sample(atFraction f: Double) -> (point: Point, angle: Double) {
        let clamped = f.isNaN ? 0 : min(max(f, 0), 1)
        let x = clamped * Double(points.count - 1)
        let i = min(Int(x), points.count - 2)
        let w = x - Double(i)
        let p = points[i], q = points[i + 1]
        return (Point(x: p.x + (q.x - p.x) * w, y: p.y + (q.y - p.y) * w), angles[i] + (angles[i + 1] - angles[i]) * w)
    }
}
