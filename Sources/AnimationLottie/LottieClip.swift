import AnimationCore

/// Precomposition clips (``LottieLayer/clipSize``, ``LottieNode/clip``): a precomposition
/// layer's rectangle (0, 0)–(w, h) through its full matrix, intersected with the clips of the
/// precompositions around it. Every clip is a convex polygon: a rectangle through an affine
/// matrix is a parallelogram, and the intersection of convex polygons is convex with at most
/// as many corners as both together — so a clip `d` precompositions deep has at most 4·d
/// corners, the bound the batch sizes its buffers by. The reference and the batch call the same
/// functions: the same bits.
enum LottieClip {
    /// The rectangle's corners through `m`, in the order rlottie writes a clip rectangle (and a
    /// solid layer's path): (w, 0), (w, h), (0, h), (0, 0).
    static func corners(_ size: Size, _ m: AffineTransform) -> (Point, Point, Point, Point) {
        (Point(x: size.width, y: 0).applying(m), Point(x: size.width, y: size.height).applying(m),
         Point(x: 0, y: size.height).applying(m), Point(x: 0, y: 0).applying(m))
    }

    /// Writes the part of the parallelogram `corners` inside the convex polygon `clip[0..<m]` to
    /// `out` and returns its corner count; 0 when nothing is left (or either polygon has no
    /// area). Sutherland–Hodgman: the parallelogram cut by each edge of `clip` in turn. Corners
    /// inside `clip` (on its edges included) keep their order, so a rectangle lying inside the
    /// clips around it comes back as it went in. `out` and `temp` each hold at least 4 + m points.
    static func intersect(_ corners: (Point, Point, Point, Point), clip: UnsafePointer<Point>, count m: Int,
                          out: UnsafeMutablePointer<Point>, temp: UnsafeMutablePointer<Point>) -> Int {
        // The clip's orientation decides which side of an edge is inside.
        guard m >= 3 else { return 0 }
        var area = 0.0
        for i in 0..<m {
            let a = clip[i], b = clip[i + 1 < m ? i + 1 : 0]   // no `%`: an integer division per corner
            area += a.x * b.y - b.x * a.y
        }
        guard area != 0, area.isFinite else { return 0 }
        let sign = area > 0 ? 1.0 : -1.0
        // Ping-pong between the buffers, ending in `out`: start where m cuts land in `out`.
        var source = m % 2 == 0 ? out : temp, target = m % 2 == 0 ? temp : out
        source[0] = corners.0; source[1] = corners.1; source[2] = corners.2; source[3] = corners.3
        var count = 4
        for i in 0..<m {
            let a = clip[i], b = clip[i + 1 < m ? i + 1 : 0]
            func side(_ p: Point) -> Double { sign * ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)) }
            var kept = 0
            for j in 0..<count {
                let p = source[j], q = source[j + 1 < count ? j + 1 : 0]
                let sp = side(p), sq = side(q)
                if sp >= 0 { target[kept] = p; kept += 1 }
                if (sp >= 0) != (sq >= 0) {
                    // The edge p → q crosses the line: sp and sq have opposite signs, so sp − sq ≠ 0.
                    let t = sp / (sp - sq)
                    target[kept] = Point(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t)
                    kept += 1
                }
            }
            // Each cut adds at most one corner (a convex polygon meets a line at most twice): at
            // most 4 + i + 1 corners after cut i, within the buffers.
            count = kept
            swap(&source, &target)
            if count == 0 { break }
        }
        if count > 0 && source != out { out.update(from: source, count: count) }
        return count >= 3 ? count : 0
    }

    /// `intersect` on arrays (the reference's form).
    static func intersect(_ corners: (Point, Point, Point, Point), clip: [Point]) -> [Point] {
        let capacity = 4 + clip.count
        var out = [Point](repeating: Point(x: 0, y: 0), count: capacity)
        var temp = out
        let count = clip.withUnsafeBufferPointer { c in
            out.withUnsafeMutableBufferPointer { o in
                temp.withUnsafeMutableBufferPointer { t in
                    // Capacities 4 + clip.count each, as `intersect` needs; an empty clip has no area.
                    intersect(corners, clip: c.baseAddress ?? UnsafePointer(o.baseAddress!), count: c.count,
                              out: o.baseAddress!, temp: t.baseAddress!)
                }
            }
        }
        return Array(out.prefix(count))
    }

    /// A clip polygon as a path: M p0, L p1 … L p(n−1), L p0, Z — for a rectangle, the five
    /// elements and the Z rlottie writes. No corners: the empty path (everything clipped).
    static func path(_ count: Int, _ point: (Int) -> Point) -> Path {
        var path = Path()
        guard count > 0 else { return path }
        path.move(to: point(0))
        for k in 1..<count { path.addLine(to: point(k)) }
        path.addLine(to: point(0))
        path.closeSubpath()
        return path
    }
}
