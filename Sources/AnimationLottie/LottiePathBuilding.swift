import AnimationCore

/// Where generated geometry goes: a `Path` (the reference evaluation) or a tick's flat buffers
/// (``LottieBatch``). One builder for both keeps their element sequences and arithmetic
/// identical by construction.
protocol LottiePathSink {
    mutating func move(_ p: Point)
    mutating func line(_ p: Point)
    mutating func curve(_ c1: Point, _ c2: Point, _ p: Point)
    mutating func close()
    /// The end of the last element (nil before the first).
    var current: Point? { get }
}

/// The reference's sink: a `Path`.
struct PathSink: LottiePathSink {
    var path = Path()
    mutating func move(_ p: Point) { path.move(to: p) }
    mutating func line(_ p: Point) { path.addLine(to: p) }
    mutating func curve(_ c1: Point, _ c2: Point, _ p: Point) { path.addCurve(to: p, control1: c1, control2: c2) }
    mutating func close() { path.closeSubpath() }
    var current: Point? { path.currentPoint }
}

/// The generated shapes of lottie §4.3–§4.4, element for element as rlottie builds them.
enum LottieShapes {
    /// A path item at `frame`: a move to the first vertex, one cubic per segment, for a closed
    /// path a cubic back to the first vertex and a close; a morph interpolated vertex by vertex.
    static func bezier<S: LottiePathSink>(_ property: LottieShapeProperty, frame: Double, into sink: inout S) {
        if let constant = property.constant { return emit(constant, constant, 0, into: &sink) }
        guard let first = property.keys.first else { return }
        if frame < first.frame { return emit(first.start, first.start, 0, into: &sink) }
        var low = 0, high = property.keys.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if property.keys[mid].frame <= frame { low = mid } else { high = mid - 1 }
        }
        let k = property.keys[low]
        guard low + 1 < property.keys.count else {
            let last = k.end ?? k.start
            return emit(last, last, 0, into: &sink)
        }
        let next = property.keys[low + 1]
        if k.hold || next.frame <= k.frame { return emit(k.start, k.start, 0, into: &sink) }
        let progress = (frame - k.frame) / (next.frame - k.frame)
        emit(k.start, k.end ?? next.start, k.easing.value(at: progress), into: &sink)
    }

    /// `a` and `b` mixed at `f` (0 gives `a` exactly), emitted without building the mix.
    static func emit<S: LottiePathSink>(_ a: LottieBezier, _ b: LottieBezier, _ f: Double, into sink: inout S) {
        let n = a.vertices.count
        guard n > 0 else { return }
        @inline(__always) func mix(_ p: Point, _ q: Point) -> Point {
            f == 0 ? p : Point(x: p.x + (q.x - p.x) * f, y: p.y + (q.y - p.y) * f)
        }
        @inline(__always) func vertex(_ k: Int) -> Point { mix(a.vertices[k], b.vertices[k]) }
        @inline(__always) func outHandle(_ k: Int) -> Point { vertex(k) + mix(a.outTangents[k], b.outTangents[k]) }
        @inline(__always) func inHandle(_ k: Int) -> Point { vertex(k) + mix(a.inTangents[k], b.inTangents[k]) }
        sink.move(vertex(0))
        if n > 1 {
            for k in 1..<n { sink.curve(outHandle(k - 1), inHandle(k), vertex(k)) }
        }
        if a.closed {
            if n > 1 { sink.curve(outHandle(n - 1), inHandle(0), vertex(0)) }
            sink.close()
        }
    }

    static func rectangle<S: LottiePathSink>(center c: (Double, Double), size s: (Double, Double), roundness: Double,
                                             reversed: Bool, into sink: inout S) {
        let (cx, cy) = c, (w, h) = s
        let left = cx - w / 2, right = cx + w / 2, top = cy - h / 2, bottom = cy + h / 2
        let r = min(max(roundness, 0), min(abs(w), abs(h)) / 2)
        guard r > 0 else {
            sink.move(Point(x: right, y: top))
            if reversed {
                sink.line(Point(x: left, y: top))
                sink.line(Point(x: left, y: bottom))
                sink.line(Point(x: right, y: bottom))
            } else {
                sink.line(Point(x: right, y: bottom))
                sink.line(Point(x: left, y: bottom))
                sink.line(Point(x: left, y: top))
            }
            sink.line(Point(x: right, y: top))
            sink.close()
            return
        }
        let k = LottieAnimation.handleFactor * r
        func curve(_ c1: (Double, Double), _ c2: (Double, Double), _ end: (Double, Double)) {
            sink.curve(Point(x: c1.0, y: c1.1), Point(x: c2.0, y: c2.1), Point(x: end.0, y: end.1))
        }
        // Each corner is a line to where its arc starts (of length 0 where a side vanishes, as
        // rlottie draws it) and one cubic; the close adds the line back to the start if needed.
        sink.move(Point(x: right, y: top + r))
        if reversed {
            sink.line(Point(x: right, y: top + r))
            curve((right, top + r - k), (right - r + k, top), (right - r, top))
            sink.line(Point(x: left + r, y: top))
            curve((left + r - k, top), (left, top + r - k), (left, top + r))
            sink.line(Point(x: left, y: bottom - r))
            curve((left, bottom - r + k), (left + r - k, bottom), (left + r, bottom))
            sink.line(Point(x: right - r, y: bottom))
            curve((right - r + k, bottom), (right, bottom - r + k), (right, bottom - r))
        } else {
            sink.line(Point(x: right, y: bottom - r))
            curve((right, bottom - r + k), (right - r + k, bottom), (right - r, bottom))
            sink.line(Point(x: left + r, y: bottom))
            curve((left + r - k, bottom), (left, bottom - r + k), (left, bottom - r))
            sink.line(Point(x: left, y: top + r))
            curve((left, top + r - k), (left + r - k, top), (left + r, top))
            sink.line(Point(x: right - r, y: top))
            curve((right - r + k, top), (right, top + r - k), (right, top + r))
        }
        if sink.current != Point(x: right, y: top + r) { sink.line(Point(x: right, y: top + r)) }   // the close's line back
        sink.close()
    }

    static func ellipse<S: LottiePathSink>(center c: (Double, Double), size s: (Double, Double), reversed: Bool, into sink: inout S) {
        let (cx, cy) = c
        let rx = s.0 / 2, ry = s.1 / 2
        let kx = LottieAnimation.handleFactor * rx, ky = LottieAnimation.handleFactor * ry
        let left = cx - rx, right = cx + rx, top = cy - ry, bottom = cy + ry
        sink.move(Point(x: cx, y: top))
        if reversed {
            sink.curve(Point(x: cx - kx, y: top), Point(x: left, y: cy - ky), Point(x: left, y: cy))
            sink.curve(Point(x: left, y: cy + ky), Point(x: cx - kx, y: bottom), Point(x: cx, y: bottom))
            sink.curve(Point(x: cx + kx, y: bottom), Point(x: right, y: cy + ky), Point(x: right, y: cy))
            sink.curve(Point(x: right, y: cy - ky), Point(x: cx + kx, y: top), Point(x: cx, y: top))
        } else {
            sink.curve(Point(x: cx + kx, y: top), Point(x: right, y: cy - ky), Point(x: right, y: cy))
            sink.curve(Point(x: right, y: cy + ky), Point(x: cx + kx, y: bottom), Point(x: cx, y: bottom))
            sink.curve(Point(x: cx - kx, y: bottom), Point(x: left, y: cy + ky), Point(x: left, y: cy))
            sink.curve(Point(x: left, y: cy - ky), Point(x: cx - kx, y: top), Point(x: cx, y: top))
        }
        sink.close()
    }

    /// A path item (`sh`, `rc`, `el`) at `frame`.
    static func generate<S: LottiePathSink>(_ item: LottieShapeItem, frame f: Double, into sink: inout S) {
        switch item {
        case .path(let property, _):
            bezier(property, frame: f, into: &sink)
        case .rectangle(let position, let size, let roundness, let reversed, _):
            rectangle(center: pair(position, f), size: pair(size, f), roundness: roundness.scalar(atFrame: f), reversed: reversed, into: &sink)
        case .ellipse(let position, let size, let reversed, _):
            ellipse(center: pair(position, f), size: pair(size, f), reversed: reversed, into: &sink)
        default:
            return
        }
    }

    /// The first two numbers of a property's value at `frame`, without building an array.
    static func pair(_ p: LottieProperty, _ frame: Double) -> (Double, Double) {
        var x = 0.0, y = 0.0
        p.withValue(atFrame: frame) { v in
            x = v.count > 0 ? v[0] : 0
            y = v.count > 1 ? v[1] : 0
        }
        return (x, y)
    }
}

extension LottieShapeItem {
    /// `hd`: the item takes no part.
    var isHidden: Bool {
        switch self {
        case .group(_, _, let h), .path(_, let h), .rectangle(_, _, _, _, let h), .ellipse(_, _, _, let h), .fill(_, _, let h),
             .stroke(_, _, _, _, let h), .trim(_, _, _, _, let h): h
        }
    }
}

extension LottieAnimation {
    /// Each layer's parent as an index into `layers` (by `ind`, lottie §3.3), or −1: none named,
    /// none found, itself, or a loop of parents (every layer on the loop gets none).
    static func parentIndices(_ layers: [LottieLayer]) -> [Int] {
        var byIndex: [Int: Int] = [:]
        for (k, layer) in layers.enumerated() where layer.index != nil && byIndex[layer.index!] == nil { byIndex[layer.index!] = k }
        var parents = layers.enumerated().map { k, layer in layer.parent.flatMap { byIndex[$0] }.map { $0 == k ? -1 : $0 } ?? -1 }
        // A layer is on a loop when following parents from it comes back to it (bounded walks).
        let onLoop = parents.indices.map { k -> Bool in
            var p = parents[k], steps = 0
            while p >= 0 && steps <= parents.count {
                if p == k { return true }
                p = parents[p]
                steps += 1
            }
            return false
        }
        for k in parents.indices where onLoop[k] { parents[k] = -1 }
        return parents
    }

    /// Layer indices with every parent before its children (`parents` without loops).
    static func evaluationOrder(parents: [Int]) -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(parents.count)
        var placed = [Bool](repeating: false, count: parents.count)
        var chain: [Int] = []
        for k in parents.indices where !placed[k] {
            var p = k
            while p >= 0 && !placed[p] && chain.count <= parents.count {
                chain.append(p)
                p = parents[p]
            }
            while let q = chain.popLast() {
                placed[q] = true
                order.append(q)
            }
        }
        return order
    }
}
