import AnimationCore
import Foundation
import PropertyBased
import Testing

/// The seed's border: a 240×128 rectangle with corner radius 5, from lines and quarter arcs,
/// starting at the top edge after the top-left corner and running toward increasing angle.
func borderPath() -> Path {
    var p = Path()
    p.move(to: Point(x: 5, y: 0))
    p.addLine(to: Point(x: 235, y: 0))
    p.addArc(center: Point(x: 235, y: 5), radius: 5, startAngle: -.pi / 2, endAngle: 0, clockwise: false)
    p.addLine(to: Point(x: 240, y: 123))
    p.addArc(center: Point(x: 235, y: 123), radius: 5, startAngle: 0, endAngle: .pi / 2, clockwise: false)
    p.addLine(to: Point(x: 5, y: 128))
    p.addArc(center: Point(x: 5, y: 123), radius: 5, startAngle: .pi / 2, endAngle: .pi, clockwise: false)
    p.addLine(to: Point(x: 0, y: 5))
    p.addArc(center: Point(x: 5, y: 5), radius: 5, startAngle: .pi, endAngle: 1.5 * .pi, clockwise: false)
    p.closeSubpath()
    return p
}

/// The same border as exact geometry (true circles), by arc length.
func exactBorderPoint(atLength s: Double) -> Point {
    let quarter = Double.pi / 2 * 5
    let pieces: [(length: Double, at: (Double) -> Point)] = [
        (230, { Point(x: 5 + $0, y: 0) }),
        (quarter, { Point(x: 235 + 5 * cos(-.pi / 2 + $0 / 5), y: 5 + 5 * sin(-.pi / 2 + $0 / 5)) }),
        (118, { Point(x: 240, y: 5 + $0) }),
        (quarter, { Point(x: 235 + 5 * cos($0 / 5), y: 123 + 5 * sin($0 / 5)) }),
        (230, { Point(x: 235 - $0, y: 128) }),
        (quarter, { Point(x: 5 + 5 * cos(.pi / 2 + $0 / 5), y: 123 + 5 * sin(.pi / 2 + $0 / 5)) }),
        (118, { Point(x: 0, y: 123 - $0) }),
        (quarter, { Point(x: 5 + 5 * cos(.pi + $0 / 5), y: 5 + 5 * sin(.pi + $0 / 5)) }),
    ]
    var rest = s
    for piece in pieces {
        if rest <= piece.length { return piece.at(rest) }
        rest -= piece.length
    }
    return Point(x: 5, y: 0)
}

func ringPath(progress p: Double) -> Path {
    var ring = Path()
    ring.addArc(center: Point(x: 100, y: 100), radius: 50, startAngle: -.pi / 2, endAngle: -.pi / 2 + 2 * .pi * p, clockwise: false)
    return ring
}

@Suite("Stroke trimming (semantics §13)")
struct PathTrimmingTests {
    @Test("§13 length counts close segments and excludes move gaps")
    func lengthCountsClosesNotMoves() {
        var path = Path()
        path.addRect(Rect(x: 0, y: 0, width: 10, height: 10))
        path.move(to: Point(x: 100, y: 100))
        path.addLine(to: Point(x: 110, y: 100))
        #expect(path.length == 50)
    }

    @Test("§13 the whole range keeps the path, closed subpaths stay closed")
    func fullRangeKeepsPath() {
        var path = Path()
        path.addEllipse(in: Rect(x: 0, y: 0, width: 40, height: 20))
        let trimmed = path.trimmed(from: 0, to: 1)
        #expect(trimmed.elements.last == .closeSubpath)
        #expect(abs(trimmed.length - path.length) < 1e-9)
        #expect(path.trimmed(from: -1, to: 2).elements == trimmed.elements)
    }

    @Test("§13 a range may span several subpaths; each part starts with a move")
    func rangeSpansSubpaths() {
        var path = Path()
        path.addRect(Rect(x: 0, y: 0, width: 10, height: 10))
        path.addRect(Rect(x: 100, y: 0, width: 10, height: 10))
        let trimmed = path.trimmed(from: 0.25, to: 0.75)
        let moves = trimmed.elements.filter { if case .move = $0 { return true } else { return false } }
        #expect(moves == [.move(to: Point(x: 10, y: 10)), .move(to: Point(x: 100, y: 0))])
        #expect(abs(trimmed.length - 40) < 1e-12)
    }

    @Test("§13 a subpath of zero length adds nothing: its close does not close the subpath drawn before it (found by the path fuzzer)")
    func zeroLengthSubpathDoesNotCloseTheOneBefore() {
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addLine(to: Point(x: 30, y: 0))
        path.addLine(to: Point(x: 5, y: 5))
        path.move(to: Point(x: 5, y: 5))           // a subpath of zero length where the last one ended
        path.addLine(to: Point(x: 5, y: 5))
        path.closeSubpath()
        let trimmed = path.trimmed(from: 0, to: 1)
        #expect(trimmed.elements == [.move(to: .zero), .line(to: Point(x: 30, y: 0)), .line(to: Point(x: 5, y: 5))])
        #expect(abs(trimmed.length - path.length) < 1e-12)
        // A piece that starts where the output stands, but in another subpath, starts with a move.
        var joined = Path()
        joined.move(to: Point(x: 0, y: 0))
        joined.addLine(to: Point(x: 10, y: 0))
        joined.move(to: Point(x: 10, y: 0))
        joined.addLine(to: Point(x: 10, y: 0))     // zero length: the subpath's first segment, skipped
        joined.addLine(to: Point(x: 10, y: 10))
        joined.closeSubpath()                      // back to (10, 0): its own start, not (0, 0)
        let whole = joined.trimmed(from: 0, to: 1)
        #expect(whole.elements.filter { if case .move = $0 { true } else { false } }.count == 2)
        #expect(abs(whole.length - joined.length) < 1e-12)
    }

    @Test("§13 start ≥ end, NaN, or a path without length give an empty path")
    func emptyRanges() {
        let path = borderPath()
        #expect(path.trimmed(from: 0.5, to: 0.5).isEmpty)
        #expect(path.trimmed(from: 0.7, to: 0.2).isEmpty)
        #expect(path.trimmed(from: .nan, to: 1).isEmpty)
        var dot = Path()
        dot.move(to: .zero)
        #expect(dot.trimmed(from: 0, to: 1).isEmpty)
    }

    @Test("§13 cut pieces lie on the original curves")
    func cutPiecesLieOnTheCurve() {
        var path = Path()
        path.addEllipse(in: Rect(x: -50, y: -50, width: 100, height: 100))
        let part = PathMeasure(path.trimmed(from: 0.1, to: 0.35))
        for k in 0...50 {
            let p = part.point(atLength: part.length * Double(k) / 50)
            #expect(abs(hypot(p.x, p.y) - 50) < 50 * 2.73e-4)   // the Bézier circle's own radial error
        }
        #expect(abs(part.length - 0.25 * path.length) < 1e-9 * path.length)
    }

    @Test("property: trimming composes — a trim of a trim is one trim")
    func trimmingComposes() async {
        let path = borderPath()
        let total = path.length
        await propertyCheck(count: 100, input: Gen.double(in: 0...1), Gen.double(in: 0...1), Gen.double(in: 0...1), Gen.double(in: 0...1)) { a, b, c, d in
            let (outerStart, outerEnd) = (min(a, b), max(a, b))
            let (innerStart, innerEnd) = (min(c, d), max(c, d))
            guard outerEnd - outerStart > 1e-6, innerEnd - innerStart > 1e-6 else { return }
            let twice = PathMeasure(path.trimmed(from: outerStart, to: outerEnd).trimmed(from: innerStart, to: innerEnd))
            let span = outerEnd - outerStart
            let once = PathMeasure(path.trimmed(from: outerStart + innerStart * span, to: outerStart + innerEnd * span))
            #expect(abs(twice.length - once.length) <= 1e-9 * total)
            for k in 0...10 {
                let s = once.length * Double(k) / 10
                #expect(distance(twice.point(atLength: s), once.point(atLength: s)) <= 1e-7 * total)
            }
        }
    }

    // MARK: seed scenes

    @Test("seed (a): a border drawn by strokeEnd 0→1 (linear, d) and strokeStart 0→0.25 (easeIn, 1.2·d)")
    func seedBorderStrokeAnimation() throws {
        let path = borderPath()
        // Four quarter circles of radius 5; the Bézier quarters are 1.4e-4 longer than true circles.
        let length = 2 * (230 + 118) + 2 * Double.pi * 5
        #expect(abs(path.length - length) < 1.5e-4 * 2 * .pi * 5)
        let d = 1.0
        var end = BasicAnimation(keyPath: "strokeEnd")
        end.fromValue = 0
        end.toValue = 1
        end.duration = d
        var start = BasicAnimation(keyPath: "strokeStart")
        start.fromValue = 0
        start.toValue = 0.25
        start.duration = 1.2 * d
        start.timingFunction = .easeIn
        var list = AnimationList()
        try list.add(end, forKey: "end", layerTime: 0)
        try list.add(start, forKey: "start", layerTime: 0)
        let measure = PathMeasure(path)
        for t in [0.05, 0.2, 0.4, 0.5, 0.75, 0.95, 1.1] {
            let shown = list.presentationValues(model: ["strokeStart": 0, "strokeEnd": 1], at: t)
            let (s0, s1) = (try #require(shown["strokeStart"]?.scalarValue), try #require(shown["strokeEnd"]?.scalarValue))
            #expect(s1 == (t < d ? t / d : 1))
            #expect(abs(s0 - 0.25 * TimingFunction.easeIn.value(at: t / (1.2 * d))) < 1e-12)
            let visible = measure.trimmed(from: s0, to: s1)
            let first = try #require(visible.elements.first?.endPoint)
            let last = try #require(visible.currentPoint)
            // Against true circles: the Bézier corners differ by ≤ 1.4e-3 radially and 4.4e-3 in length.
            #expect(distance(first, exactBorderPoint(atLength: s0 * length)) < 1e-2, "start at t = \(t)")
            #expect(distance(last, exactBorderPoint(atLength: s1 * length)) < 1e-2, "end at t = \(t)")
        }
    }

    @Test("seed (d): a progress ring arc from −π/2 to −π/2 + 2π·p: trimmed lengths match p")
    func seedProgressRing() throws {
        let full = ringPath(progress: 1)
        let fullLength = full.length
        #expect(abs(fullLength - 2 * .pi * 50) < 1.5e-4 * 2 * .pi * 50)   // the Bézier circle is 1.4e-4 longer
        for p in [0.05, 0.1, 0.37, 0.5, 0.8, 0.99] {
            let arc = ringPath(progress: p)
            let trimmed = full.trimmed(from: 0, to: p)
            #expect(abs(trimmed.length - p * fullLength) < 1e-9 * fullLength)
            #expect(abs(arc.length - p * 2 * .pi * 50) < 1.5e-4 * fullLength)
            // The same place on the circle, up to the Bézier approximation (2.73e-4·r radially).
            #expect(distance(try #require(trimmed.currentPoint), try #require(arc.currentPoint)) < 4e-4 * 50)
            #expect(arc.elements.first == .move(to: Point(x: 100, y: 50)))  // 12 o'clock on a y-down screen
        }
    }
}
