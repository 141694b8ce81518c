extension PathMeasure {
    /// The part of the path between the fractions `start` and `end` of its length: what a shape
    /// layer draws for `strokeStart` and `strokeEnd` (semantics §13).
    ///
    /// The fractions are "interpreted linearly along the path length": length counts every drawn
    /// segment of every subpath, close segments included, move gaps excluded. Both are clamped to
    /// [0, 1]; the result is empty when `start ≥ end`, when either is NaN, or when the path has no
    /// length. The result may span several subpaths: each part starts with a move. A subpath kept
    /// whole from its start through its close element stays closed; cut curves are split exactly
    /// (de Casteljau), so the kept pieces lie on the original curves.
    public func trimmed(from start: Double, to end: Double) -> Path {
        guard !start.isNaN, !end.isNaN, length > 0 else { return Path() }
        let a = min(max(start, 0), 1) * length
        let b = min(max(end, 0), 1) * length
        guard a < b else { return Path() }
        var out = Path()
        var keptFromSubpathStart = false
        // The subpath a segment belongs to, and the one the output's open subpath continues: a
        // piece joins the output, and a close closes it, only within the same subpath. (A subpath
        // of zero length emits nothing; its close must not close the subpath drawn before it.)
        var subpath = -1, outSubpath = -2
        for (i, segment) in segments.enumerated() {
            let s0 = starts[i], s1 = starts[i + 1]
            if segment.startsSubpath { subpath += 1 }
            if s1 == s0 {
                // Zero length: only a close element matters, to keep a whole subpath closed.
                if segment.isClose && keptFromSubpathStart && outSubpath == subpath && s0 >= a && s0 <= b
                    && out.currentPoint == segment.start {
                    out.closeSubpath()
                }
                continue
            }
            guard min(s1, b) > max(s0, a) else { continue }
            let t0 = s0 >= a ? 0 : parameter(atLocal: a - s0, in: i)
            let t1 = s1 <= b ? 1 : parameter(atLocal: b - s0, in: i)
            let piece = segment.sub(from: t0, to: t1)
            if out.currentPoint != piece.start || segment.startsSubpath || outSubpath != subpath {
                out.move(to: piece.start)
                keptFromSubpathStart = segment.startsSubpath && t0 == 0
                outSubpath = subpath
            }
            if segment.isClose && t1 == 1 && keptFromSubpathStart {
                out.closeSubpath()
            } else if piece.kind == .line {
                out.addLine(to: piece.end)
            } else {
                out.addCurve(to: piece.end, control1: piece.p1, control2: piece.p2)
            }
        }
        return out
    }

    /// The parameter of segment `i` at arc length `local` from its start.
    func parameter(atLocal local: Double, in i: Int) -> Double {
        let segmentLength = starts[i + 1] - starts[i]
        guard segmentLength > 0 else { return 0 }
        if segments[i].kind == .line { return min(1, max(0, local / segmentLength)) }
        let segment = segments[i]
        // |segment.derivative(at: t)| by a square root, on the vector quadrature.
        return ArcLength.parameter(ofLength: local, table: tables[i],
                                   cubic: CubicSpeed(segment.p0.x, segment.p0.y, segment.p1.x, segment.p1.y,
                                                     segment.p2.x, segment.p2.y, segment.p3.x, segment.p3.y))
    }
}

extension Path {
    /// The part between the fractions `start` and `end` of the length (semantics §13); see
    /// ``PathMeasure/trimmed(from:to:)``.
    public func trimmed(from start: Double, to end: Double) -> Path {
        PathMeasure(self).trimmed(from: start, to: end)
    }
}
