import Foundation

/// A graphics path with Core Graphics semantics: the engine's `CGPath`/`CGMutablePath`
/// (semantics §14).
///
/// A value type: a sequence of ``Element``s forming subpaths. Every `add…` method takes an optional
/// `transform` that is applied to every point it emits, control points included, before they are
/// appended (§14.1).
///
/// Without a current point (an empty path, or right after nothing was moved to), `addLine`,
/// `addQuadCurve`, `addCurve` and `closeSubpath` do nothing, as Core Graphics does (it logs "no
/// current point"); `addArc` starts a new subpath instead (§14.2).
public struct Path: Sendable, Hashable {
    /// One path element, as `CGPathElement` describes it. Points are already transformed.
    public enum Element: Sendable, Hashable {
        /// Starts a new subpath at the point.
        case move(to: Point)
        /// A straight line from the current point.
        case line(to: Point)
        /// A quadratic Bézier curve from the current point.
        case quadCurve(to: Point, control: Point)
        /// A cubic Bézier curve from the current point.
        case curve(to: Point, control1: Point, control2: Point)
        /// A straight line back to the subpath's start; the current point becomes that start.
        case closeSubpath

        /// The element's end point, or nil for `closeSubpath` (whose end is the subpath start).
        public var endPoint: Point? {
            switch self {
            case .move(let p), .line(let p), .quadCurve(let p, _), .curve(let p, _, _): p
            case .closeSubpath: nil
            }
        }

        /// Every point the element carries, control points included.
        public var points: [Point] {
            switch self {
            case .move(let p), .line(let p): [p]
            case .quadCurve(let p, let c): [c, p]
            case .curve(let p, let c1, let c2): [c1, c2, p]
            case .closeSubpath: []
            }
        }

        func applying(_ t: AffineTransform) -> Element {
            switch self {
            case .move(let p): .move(to: p.applying(t))
            case .line(let p): .line(to: p.applying(t))
            case .quadCurve(let p, let c): .quadCurve(to: p.applying(t), control: c.applying(t))
            case .curve(let p, let c1, let c2): .curve(to: p.applying(t), control1: c1.applying(t), control2: c2.applying(t))
            case .closeSubpath: .closeSubpath
            }
        }
    }

    /// The elements in order.
    public private(set) var elements: [Element] = []
    /// The current point: the end of the last element, or nil for an empty path.
    public private(set) var currentPoint: Point?
    /// The start of the current subpath.
    private var subpathStart: Point?

    /// An empty path.
    public init() {}

    /// A path with these elements, appended one by one with the same rules as the builder methods
    /// (a drawing element without a current point is dropped).
    public init(elements: [Element]) {
        for element in elements { append(element) }
    }

    /// True when the path has no elements.
    public var isEmpty: Bool { elements.isEmpty }

    private mutating func append(_ element: Element) {
        switch element {
        case .move(let p):
            elements.append(element)
            currentPoint = p
            subpathStart = p
        case .line, .quadCurve, .curve:
            guard currentPoint != nil else { return }
            elements.append(element)
            currentPoint = element.endPoint
        case .closeSubpath:
            guard currentPoint != nil else { return }
            if case .closeSubpath? = elements.last { return }
            elements.append(.closeSubpath)
            currentPoint = subpathStart
        }
    }

    // MARK: Building (semantics §14.1)

    /// `move(to:transform:)`: starts a new subpath at `point`.
    public mutating func move(to point: Point, transform: AffineTransform = .identity) {
        append(.move(to: point.placed(by: transform)))
    }

    /// `addLine(to:transform:)`: a straight line from the current point.
    public mutating func addLine(to point: Point, transform: AffineTransform = .identity) {
        append(.line(to: point.placed(by: transform)))
    }

    /// `addLines(between:transform:)`: a move to the first point, then lines through the rest.
    public mutating func addLines(between points: [Point], transform: AffineTransform = .identity) {
        guard let first = points.first else { return }
        move(to: first, transform: transform)
        for p in points.dropFirst() { addLine(to: p, transform: transform) }
    }

    /// `addQuadCurve(to:control:transform:)`: a quadratic Bézier curve from the current point.
    public mutating func addQuadCurve(to point: Point, control: Point, transform: AffineTransform = .identity) {
        append(.quadCurve(to: point.placed(by: transform), control: control.placed(by: transform)))
    }

    /// `addCurve(to:control1:control2:transform:)`: a cubic Bézier curve from the current point.
    public mutating func addCurve(to point: Point, control1: Point, control2: Point, transform: AffineTransform = .identity) {
        append(.curve(to: point.placed(by: transform), control1: control1.placed(by: transform),
                      control2: control2.placed(by: transform)))
    }

    /// `closeSubpath()`: a line back to the subpath's start, which becomes the current point.
    public mutating func closeSubpath() {
        append(.closeSubpath)
    }

    /// `addArc(center:radius:startAngle:endAngle:clockwise:transform:)` (semantics §14.2).
    ///
    /// Angles are radians from +x toward +y. `clockwise == false` runs toward increasing angles
    /// (counter-clockwise in y-up space, clockwise on a y-down screen). The sweep is normalised:
    /// counter-clockwise `Δ = end − start` is taken modulo 2π into [0, 2π) when negative and capped
    /// at 2π; clockwise is the mirror image. With a current point a line joins it to the arc's start;
    /// otherwise the arc starts a new subpath. The arc is drawn as cubic Béziers of at most 90°,
    /// handles `(4/3)·tan(φ/4)·r`: radial error at most 2.73e-4·r for a 90° piece, and a quarter
    /// circle 1.4e-4 longer than the true one (the standard approximation).
    ///
    /// A radius of 0 adds only the line or move to the centre. A negative or non-finite radius,
    /// non-finite angles, or angles whose difference is not finite, add nothing (Core Graphics
    /// treats them as errors).
    public mutating func addArc(center: Point, radius: Double, startAngle: Double, endAngle: Double,
                                clockwise: Bool, transform: AffineTransform = .identity) {
        guard radius >= 0, radius.isFinite, startAngle.isFinite, endAngle.isFinite else { return }
        let twoPi = 2 * Double.pi
        var sweep = endAngle - startAngle
        // Finite angles whose difference overflows (±1e308) have no meaningful sweep: nothing, as
        // for non-finite angles (found by the path fuzzer: the sweep became NaN).
        guard sweep.isFinite else { return }
        if clockwise {
            if sweep > 0 { sweep = fmod(sweep, twoPi) - twoPi; if sweep == -twoPi { sweep = 0 } }
            if sweep < -twoPi { sweep = -twoPi }
        } else {
            if sweep < 0 { sweep = fmod(sweep, twoPi) + twoPi; if sweep == twoPi { sweep = 0 } }
            if sweep > twoPi { sweep = twoPi }
        }
        appendArc(center: center, radius: radius, startAngle: startAngle, sweep: sweep, transform: transform)
    }

    /// Appends a circular arc of signed `sweep` radians (positive = increasing angle), joined to the
    /// current point by a line or starting a subpath.
    private mutating func appendArc(center: Point, radius: Double, startAngle: Double, sweep: Double,
                                    transform: AffineTransform) {
        func point(_ angle: Double) -> Point {
            Point(x: center.x + radius * cos(angle), y: center.y + radius * sin(angle))
        }
        let start = point(startAngle)
        if currentPoint == nil { move(to: start, transform: transform) } else { addLine(to: start, transform: transform) }
        guard radius > 0, sweep != 0, sweep.isFinite else { return }   // Int(_:) below traps on NaN
        let pieces = max(1, Int((abs(sweep) / (Double.pi / 2) - 1e-9).rounded(.up)))  // exact quarter turns: one piece
        let step = sweep / Double(pieces)
        let handle = 4.0 / 3.0 * tan(step / 4) * radius
        for k in 0..<pieces {
            let a0 = startAngle + step * Double(k)
            let a1 = k == pieces - 1 ? startAngle + sweep : a0 + step
            let p0 = point(a0), p3 = point(a1)
            let c1 = Point(x: p0.x - handle * sin(a0), y: p0.y + handle * cos(a0))
            let c2 = Point(x: p3.x + handle * sin(a1), y: p3.y - handle * cos(a1))
            addCurve(to: p3, control1: c1, control2: c2, transform: transform)
        }
    }

    /// `addArc(tangent1End:tangent2End:radius:transform:)` (semantics §14.3): a line from the
    /// current point toward `tangent1End`, then an arc of `radius` tangent to both the line
    /// current point → `tangent1End` and the line `tangent1End` → `tangent2End`. The current point
    /// becomes the second tangent point (not `tangent2End`). Collinear points or a radius of 0 give a
    /// line to `tangent1End`. Without a current point nothing is added, as in Core Graphics.
    ///
    /// The geometry is computed in the untransformed space (the current point is mapped back through
    /// `transform`'s inverse; a singular transform adds a line to `tangent1End`).
    public mutating func addArc(tangent1End t1: Point, tangent2End t2: Point, radius: Double,
                                transform: AffineTransform = .identity) {
        guard let current = currentPoint, radius.isFinite, radius >= 0 else { return }
        guard let inverse = transform.inverted() else {
            addLine(to: t1, transform: transform)
            return
        }
        let p0 = current.applying(inverse)
        let u = Point(x: p0.x - t1.x, y: p0.y - t1.y), v = Point(x: t2.x - t1.x, y: t2.y - t1.y)
        let lu = hypot(u.x, u.y), lv = hypot(v.x, v.y)
        let cross = u.x * v.y - u.y * v.x
        guard radius > 0, lu > 0, lv > 0, abs(cross) > 1e-12 * lu * lv else {
            addLine(to: t1, transform: transform)
            return
        }
        let uu = Point(x: u.x / lu, y: u.y / lu), vv = Point(x: v.x / lv, y: v.y / lv)
        let angle = acos(max(-1, min(1, uu.x * vv.x + uu.y * vv.y)))   // interior angle at t1, in (0, π)
        let half = angle / 2
        let tangentDistance = radius / tan(half)
        let bisector = Point(x: uu.x + vv.x, y: uu.y + vv.y)
        let lb = hypot(bisector.x, bisector.y)
        let centerDistance = radius / sin(half)
        let center = Point(x: t1.x + bisector.x / lb * centerDistance, y: t1.y + bisector.y / lb * centerDistance)
        let start = Point(x: t1.x + uu.x * tangentDistance, y: t1.y + uu.y * tangentDistance)
        let a0 = atan2(start.y - center.y, start.x - center.x)
        // The arc turns the way the path turns at t1: increasing angle when the turn is to the left
        // (the direction p0 → t1 rotated toward t1 → t2 counter-clockwise, i.e. u × v < 0).
        let sweep = (Double.pi - angle) * (cross < 0 ? 1 : -1)
        appendArc(center: center, radius: radius, startAngle: a0, sweep: sweep, transform: transform)
    }

    /// `addRect(_:transform:)` (semantics §14.5): a closed subpath: move to (minX, minY), lines to
    /// (maxX, minY), (maxX, maxY), (minX, maxY), close.
    public mutating func addRect(_ rect: Rect, transform: AffineTransform = .identity) {
        move(to: Point(x: rect.minX, y: rect.minY), transform: transform)
        addLine(to: Point(x: rect.maxX, y: rect.minY), transform: transform)
        addLine(to: Point(x: rect.maxX, y: rect.maxY), transform: transform)
        addLine(to: Point(x: rect.minX, y: rect.maxY), transform: transform)
        closeSubpath()
    }

    /// The handle length of a quarter ellipse, as a fraction of its radius: `4/3·(√2 − 1)`.
    public static let ellipseHandleFactor = 0.5522847498

    /// `addEllipse(in:transform:)` (semantics §14.4): one closed subpath of four cubic Béziers
    /// starting at (maxX, midY) and running toward increasing angle — (midX, maxY), (minX, midY),
    /// (midX, minY) — which is clockwise on a y-down screen (Apple: "oriented clockwise").
    public mutating func addEllipse(in rect: Rect, transform: AffineTransform = .identity) {
        let rx = rect.width / 2, ry = rect.height / 2
        let cx = rect.midX, cy = rect.midY
        let kx = rx * Self.ellipseHandleFactor, ky = ry * Self.ellipseHandleFactor
        move(to: Point(x: cx + rx, y: cy), transform: transform)
        addCurve(to: Point(x: cx, y: cy + ry), control1: Point(x: cx + rx, y: cy + ky), control2: Point(x: cx + kx, y: cy + ry), transform: transform)
        addCurve(to: Point(x: cx - rx, y: cy), control1: Point(x: cx - kx, y: cy + ry), control2: Point(x: cx - rx, y: cy + ky), transform: transform)
        addCurve(to: Point(x: cx, y: cy - ry), control1: Point(x: cx - rx, y: cy - ky), control2: Point(x: cx - kx, y: cy - ry), transform: transform)
        addCurve(to: Point(x: cx + rx, y: cy), control1: Point(x: cx + kx, y: cy - ry), control2: Point(x: cx + rx, y: cy - ky), transform: transform)
        closeSubpath()
    }

    /// `addRoundedRect(in:cornerWidth:cornerHeight:transform:)` (semantics §14.5): a closed subpath
    /// whose corners are quarter ellipses `cornerWidth × cornerHeight`, oriented like
    /// ``addEllipse(in:transform:)``: it starts at (maxX, midY) and runs toward increasing angle —
    /// down the right edge in y-up terms toward (maxX, maxY), then along the bottom (device-verify:
    /// Apple documents only "oriented in the clockwise direction").
    ///
    /// Core Graphics requires `0 ≤ 2·cornerWidth ≤ width` and `0 ≤ 2·cornerHeight ≤ height`; here
    /// the corner sizes are clamped into those ranges (NaN counts as 0), so a square with
    /// `cornerWidth = width / 2` is a circle.
    public mutating func addRoundedRect(in rect: Rect, cornerWidth: Double, cornerHeight: Double,
                                        transform: AffineTransform = .identity) {
        let cw = cornerWidth.isNaN ? 0 : max(0, min(cornerWidth, rect.width / 2))
        let ch = cornerHeight.isNaN ? 0 : max(0, min(cornerHeight, rect.height / 2))
        guard cw > 0, ch > 0 else {
            // No rounding: the rectangle, but with this method's start point and direction.
            move(to: Point(x: rect.maxX, y: rect.midY), transform: transform)
            addLine(to: Point(x: rect.maxX, y: rect.maxY), transform: transform)
            addLine(to: Point(x: rect.minX, y: rect.maxY), transform: transform)
            addLine(to: Point(x: rect.minX, y: rect.minY), transform: transform)
            addLine(to: Point(x: rect.maxX, y: rect.minY), transform: transform)
            closeSubpath()
            return
        }
        let (x0, x1, y0, y1) = (rect.minX, rect.maxX, rect.minY, rect.maxY)
        let kx = cw * Self.ellipseHandleFactor, ky = ch * Self.ellipseHandleFactor
        move(to: Point(x: x1, y: rect.midY), transform: transform)
        addLine(to: Point(x: x1, y: y1 - ch), transform: transform)
        addCurve(to: Point(x: x1 - cw, y: y1), control1: Point(x: x1, y: y1 - ch + ky), control2: Point(x: x1 - cw + kx, y: y1), transform: transform)
        addLine(to: Point(x: x0 + cw, y: y1), transform: transform)
        addCurve(to: Point(x: x0, y: y1 - ch), control1: Point(x: x0 + cw - kx, y: y1), control2: Point(x: x0, y: y1 - ch + ky), transform: transform)
        addLine(to: Point(x: x0, y: y0 + ch), transform: transform)
        addCurve(to: Point(x: x0 + cw, y: y0), control1: Point(x: x0, y: y0 + ch - ky), control2: Point(x: x0 + cw - kx, y: y0), transform: transform)
        addLine(to: Point(x: x1 - cw, y: y0), transform: transform)
        addCurve(to: Point(x: x1, y: y0 + ch), control1: Point(x: x1 - cw + kx, y: y0), control2: Point(x: x1, y: y0 + ch - ky), transform: transform)
        closeSubpath()
    }

    /// `addPath(_:transform:)`: appends another path's elements, transformed.
    public mutating func addPath(_ other: Path, transform: AffineTransform = .identity) {
        for element in other.elements { append(element.applying(transform)) }
    }

    // MARK: Whole-path operations

    /// The path with every point (control points included) transformed by `t` (semantics §14.1).
    public func applying(_ t: AffineTransform) -> Path {
        Path(elements: elements.map { $0.applying(t) })
    }

    /// The smallest rectangle containing every point of the path, control points included (Core
    /// Graphics' `boundingBox`); `Rect.zero` for an empty path.
    public var boundingBox: Rect {
        Self.bounds(of: elements.flatMap(\.points))
    }

    /// The smallest rectangle containing the drawn path itself: curves contribute their extrema,
    /// not their control points (`boundingBoxOfPath`); `Rect.zero` for an empty path.
    public var boundingBoxOfPath: Rect {
        var points: [Point] = []
        for segment in PathMeasure.segments(of: self) {
            points.append(segment.start)
            points.append(segment.end)
            points.append(contentsOf: segment.extrema)
        }
        for case .move(let p) in elements { points.append(p) }
        return Self.bounds(of: points)
    }

    private static func bounds(of points: [Point]) -> Rect {
        guard let first = points.first else { return .zero }
        var (x0, y0, x1, y1) = (first.x, first.y, first.x, first.y)
        for p in points.dropFirst() {
            x0 = min(x0, p.x); y0 = min(y0, p.y); x1 = max(x1, p.x); y1 = max(y1, p.y)
        }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Checks that every point is finite and within ±``AnimationValue/largestMagnitude`` (1e38):
    /// the batch engine holds a path's samples in single precision, and the arc length of
    /// coordinates near 1e300 overflowed (NaN read back, after a second of a measure that could
    /// not converge).
    ///
    /// - Throws: ``AnimationError`` naming `elements[i]`.
    public func validate() throws {
        for (i, element) in elements.enumerated() {
            for p in element.points {
                guard p.x.isFinite && p.y.isFinite else { throw AnimationError(field: "elements[\(i)]", reason: "has a non-finite point") }
                if abs(p.x) > AnimationValue.largestMagnitude || abs(p.y) > AnimationValue.largestMagnitude {
                    throw AnimationError(field: "elements[\(i)]", reason: "has a point beyond ±1e38 (the engine holds values in single precision)")
                }
            }
        }
    }
}

private extension Point {
    /// The point under `t`. Under the identity, `x + 0` and `y + 0`: what `applying` gives for
    /// finite coordinates, bit for bit (−0 becomes +0 there too), without its `0 · y`, which is
    /// NaN for an infinite y — a coordinate past Float's range read back from single precision, as
    /// a Lottie batch's geometry can hold, turned the other coordinate into NaN.
    func placed(by t: AffineTransform) -> Point { t == .identity ? Point(x: x + 0, y: y + 0) : applying(t) }
}
