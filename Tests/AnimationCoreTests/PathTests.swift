import AnimationCore
import Foundation
import PropertyBased
import Testing

func distance(_ a: Point, _ b: Point) -> Double { hypot(a.x - b.x, a.y - b.y) }

/// The length of a path by brute force: polylines through 20,000 and 40,000 points per curve, with
/// Richardson extrapolation (a polyline falls short by c·h²).
func polylineLength(_ path: Path) -> Double {
    (4 * polylineLength(path, steps: 40_000) - polylineLength(path, steps: 20_000)) / 3
}

func polylineLength(_ path: Path, steps n: Int) -> Double {
    var total = 0.0
    var current: Point?, start: Point?
    for element in path.elements {
        switch element {
        case .move(let p):
            current = p
            start = p
        case .line(let p):
            total += distance(current!, p)
            current = p
        case .quadCurve(let p, let c):
            let p0 = current!
            var previous = p0
            for k in 1...n {
                let t = Double(k) / Double(n), s = 1 - t
                let q = Point(x: s * s * p0.x + 2 * s * t * c.x + t * t * p.x, y: s * s * p0.y + 2 * s * t * c.y + t * t * p.y)
                total += distance(previous, q)
                previous = q
            }
            current = p
        case .curve(let p, let c1, let c2):
            let p0 = current!
            var previous = p0
            for k in 1...n {
                let t = Double(k) / Double(n), s = 1 - t
                let (a, b, c, d) = (s * s * s, 3 * s * s * t, 3 * s * t * t, t * t * t)
                let q = Point(x: a * p0.x + b * c1.x + c * c2.x + d * p.x, y: a * p0.y + b * c1.y + c * c2.y + d * p.y)
                total += distance(previous, q)
                previous = q
            }
            current = p
        case .closeSubpath:
            total += distance(current!, start!)
            current = start
        }
    }
    return total
}

@Suite("Path (semantics §14)")
struct PathTests {
    // MARK: §14.1

    @Test("§14.1 elements carry transformed points, control points included")
    func transformAppliesToEveryPoint() {
        var path = Path()
        let t = AnimationCore.AffineTransform.translation(x: 10, y: 20)
        path.move(to: Point(x: 0, y: 0), transform: t)
        path.addQuadCurve(to: Point(x: 2, y: 0), control: Point(x: 1, y: 1), transform: t)
        path.addCurve(to: Point(x: 5, y: 0), control1: Point(x: 3, y: 1), control2: Point(x: 4, y: -1), transform: t)
        #expect(path.elements == [
            .move(to: Point(x: 10, y: 20)),
            .quadCurve(to: Point(x: 12, y: 20), control: Point(x: 11, y: 21)),
            .curve(to: Point(x: 15, y: 20), control1: Point(x: 13, y: 21), control2: Point(x: 14, y: 19)),
        ])
        let scaled = path.applying(.scale(x: 2, y: 2))
        #expect(scaled.elements.last == .curve(to: Point(x: 30, y: 40), control1: Point(x: 26, y: 42), control2: Point(x: 28, y: 38)))
    }

    @Test("§14.1 close draws back to the subpath start, which becomes the current point")
    func closeReturnsToSubpathStart() {
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addLine(to: Point(x: 3, y: 0))
        path.addLine(to: Point(x: 3, y: 4))
        path.closeSubpath()
        #expect(path.currentPoint == Point(x: 0, y: 0))
        #expect(path.length == 12)
    }

    @Test("drawing without a current point does nothing, as in Core Graphics")
    func noCurrentPointIsIgnored() {
        var path = Path()
        path.addLine(to: Point(x: 1, y: 1))
        path.addCurve(to: Point(x: 1, y: 1), control1: .zero, control2: .zero)
        path.closeSubpath()
        #expect(path.isEmpty)
        #expect(path.length == 0)
        #expect(path.point(atLength: 5) == .zero)
    }

    // MARK: §14.2

    @Test("§14.2 clockwise = false runs toward increasing angle")
    func arcDirection() {
        var ccw = Path()
        ccw.addArc(center: .zero, radius: 10, startAngle: 0, endAngle: .pi / 2, clockwise: false)
        let mid = ccw.point(atLength: ccw.length / 2)
        #expect(abs(mid.x - 10 * cos(.pi / 4)) < 2e-3 && abs(mid.y - 10 * sin(.pi / 4)) < 2e-3)
        var cw = Path()
        cw.addArc(center: .zero, radius: 10, startAngle: 0, endAngle: .pi / 2, clockwise: true)
        let other = cw.point(atLength: cw.length / 2)
        #expect(other.y < 0)                                     // the long way round, through −y
        #expect(abs(cw.length - 10 * 1.5 * .pi) < 1e-2)
    }

    @Test("§14.2 with a current point a line joins the arc start; without one a subpath starts there")
    func arcJoinsCurrentPoint() {
        var path = Path()
        path.addArc(center: Point(x: 0, y: 0), radius: 5, startAngle: 0, endAngle: .pi, clockwise: false)
        #expect(path.elements.first == .move(to: Point(x: 5, y: 0)))
        var joined = Path()
        joined.move(to: Point(x: 20, y: 0))
        joined.addArc(center: Point(x: 0, y: 0), radius: 5, startAngle: 0, endAngle: .pi, clockwise: false)
        #expect(joined.elements[1] == .line(to: Point(x: 5, y: 0)))
        let end = joined.currentPoint!
        #expect(abs(end.x + 5) < 1e-12 && abs(end.y) < 1e-12)
    }

    @Test("§14.2 sweep normalisation: negative ccw sweeps wrap, > 2π caps, the wrong-way full turn draws nothing")
    func sweepNormalisation() {
        func sweepLength(_ a0: Double, _ a1: Double, _ cw: Bool) -> Double {
            var p = Path()
            p.addArc(center: .zero, radius: 1, startAngle: a0, endAngle: a1, clockwise: cw)
            return p.length
        }
        #expect(abs(sweepLength(0, -.pi / 2, false) - 1.5 * .pi) < 1e-3)   // wraps to 3π/2
        #expect(abs(sweepLength(0, 7 * .pi, false) - 2 * .pi) < 1e-3)      // capped at 2π
        #expect(abs(sweepLength(0, .pi / 2, true) - 1.5 * .pi) < 1e-3)     // cw mirror
        #expect(sweepLength(-.pi / 2, 3 * .pi / 2, true) == 0)             // −π/2 → 3π/2 clockwise: nothing
        #expect(abs(sweepLength(-.pi / 2, 3 * .pi / 2, false) - 2 * .pi) < 1e-3)
    }

    @Test("§14.2 arcs are cubic pieces of at most 90° within 2.73e-4·r of the circle")
    func arcPiecesStayOnTheCircle() {
        var path = Path()
        path.addArc(center: Point(x: 50, y: 50), radius: 40, startAngle: 0.3, endAngle: 0.3 + 4, clockwise: false)
        let curves = path.elements.filter { if case .curve = $0 { return true } else { return false } }
        #expect(curves.count == 3)
        let measure = PathMeasure(path)
        for k in 0...200 {
            let p = measure.point(atLength: measure.length * Double(k) / 200)
            #expect(abs(distance(p, Point(x: 50, y: 50)) - 40) <= 2.73e-4 * 40)
        }
    }

    @Test("points past Float's range keep their other coordinate: the identity places points without multiplying")
    func pointsPastFloatRangeKeepTheirOtherCoordinate() {
        // A Lottie batch's geometry read back from single precision: (13.4, +∞).
        var path = Path()
        path.move(to: Point(x: 13.4, y: .infinity))
        path.addLine(to: Point(x: -.infinity, y: 2))
        path.addCurve(to: Point(x: 1, y: .infinity), control1: Point(x: .infinity, y: 0), control2: Point(x: 0, y: -.infinity))
        #expect(path.elements == [.move(to: Point(x: 13.4, y: .infinity)), .line(to: Point(x: -.infinity, y: 2)),
                                  .curve(to: Point(x: 1, y: .infinity), control1: Point(x: .infinity, y: 0),
                                         control2: Point(x: 0, y: -.infinity))])
        // Finite points are what applying the identity gives, bit for bit (−0 included).
        var finite = Path()
        finite.move(to: Point(x: -0.0, y: -3))
        finite.addLine(to: Point(x: 5, y: -0.0))
        #expect(finite.elements.flatMap(\.points).map(\.x.bitPattern) == [Point(x: -0.0, y: -3), Point(x: 5, y: -0.0)]
            .map { $0.applying(.identity).x.bitPattern })
        // Other transforms multiply as before.
        var scaled = Path()
        scaled.move(to: Point(x: 1, y: 2), transform: .scale(x: 2, y: 3))
        #expect(scaled.elements == [.move(to: Point(x: 2, y: 6))])
    }

    @Test("§14.2 radius 0 adds only the move; bad radii add nothing")
    func degenerateArcs() {
        var zero = Path()
        zero.addArc(center: Point(x: 3, y: 4), radius: 0, startAngle: 0, endAngle: 1, clockwise: false)
        #expect(zero.elements == [.move(to: Point(x: 3, y: 4))])
        var sweepless = Path()
        sweepless.addArc(center: .zero, radius: 2, startAngle: 1, endAngle: 1, clockwise: false)
        #expect(sweepless.elements.count == 1 && sweepless.length == 0)
        var bad = Path()
        bad.addArc(center: .zero, radius: -1, startAngle: 0, endAngle: 1, clockwise: false)
        bad.addArc(center: .zero, radius: .nan, startAngle: 0, endAngle: 1, clockwise: false)
        bad.addArc(center: .zero, radius: 1, startAngle: .infinity, endAngle: 1, clockwise: false)
        #expect(bad.isEmpty)
        // Finite angles whose difference overflows: nothing either (the path fuzzer found a trap here).
        for clockwise in [false, true] {
            bad.addArc(center: .zero, radius: 1, startAngle: -1e308, endAngle: 1e308, clockwise: clockwise)
            bad.addArc(center: .zero, radius: 1, startAngle: .greatestFiniteMagnitude, endAngle: -.greatestFiniteMagnitude,
                       clockwise: clockwise)
        }
        #expect(bad.isEmpty)
    }

    // MARK: §14.3

    @Test("§14.3 a tangent arc ends at the second tangent point, tangent to both lines")
    func tangentArc() throws {
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addArc(tangent1End: Point(x: 10, y: 0), tangent2End: Point(x: 10, y: 10), radius: 2)
        let end = try #require(path.currentPoint)
        #expect(abs(end.x - 10) < 1e-12 && abs(end.y - 2) < 1e-12)
        #expect(path.elements[1] == .line(to: Point(x: 8, y: 0)))
        let measure = PathMeasure(path)
        let startDirection = measure.tangent(atLength: 8.0001), endDirection = measure.tangent(atLength: measure.length)
        #expect(abs(startDirection.y) < 1e-3 && abs(endDirection.x) < 1e-9 && endDirection.y > 0)
        // the corner arc is a quarter circle of radius 2 around (8, 2)
        let mid = measure.point(atLength: 8 + .pi / 2)
        #expect(abs(distance(mid, Point(x: 8, y: 2)) - 2) < 1e-3)
    }

    @Test("§14.3 collinear points or radius 0 give a line to tangent1End")
    func tangentArcDegenerates() {
        var path = Path()
        path.move(to: .zero)
        path.addArc(tangent1End: Point(x: 5, y: 0), tangent2End: Point(x: 9, y: 0), radius: 1)
        path.addArc(tangent1End: Point(x: 5, y: 5), tangent2End: Point(x: 0, y: 5), radius: 0)
        #expect(path.elements == [.move(to: .zero), .line(to: Point(x: 5, y: 0)), .line(to: Point(x: 5, y: 5))])
        var empty = Path()
        empty.addArc(tangent1End: Point(x: 1, y: 1), tangent2End: Point(x: 2, y: 0), radius: 1)
        #expect(empty.isEmpty)
    }

    // MARK: §14.4, §14.5

    @Test("§14.4 an ellipse starts at (maxX, midY), runs toward increasing angle, 4 curves and a close")
    func ellipseStartAndDirection() {
        var path = Path()
        path.addEllipse(in: Rect(x: 0, y: 0, width: 100, height: 50))
        #expect(path.elements.count == 6)
        #expect(path.elements.first == .move(to: Point(x: 100, y: 25)))
        guard case .curve(let p, let c1, _) = path.elements[1] else { Issue.record("no curve"); return }
        #expect(p == Point(x: 50, y: 50))
        #expect(c1 == Point(x: 100, y: 25 + 25 * Path.ellipseHandleFactor))
        #expect(path.elements.last == .closeSubpath)
    }

    @Test("§14.5 addRect: move at the origin, three lines, close")
    func rectangleElements() {
        var path = Path()
        path.addRect(Rect(x: 1, y: 2, width: 3, height: 4))
        #expect(path.elements == [.move(to: Point(x: 1, y: 2)), .line(to: Point(x: 4, y: 2)), .line(to: Point(x: 4, y: 6)),
                                  .line(to: Point(x: 1, y: 6)), .closeSubpath])
        #expect(path.length == 14)
    }

    @Test("§14.5 rounded rectangles: quarter-ellipse corners, clamped sizes, perimeter")
    func roundedRectangle() {
        var path = Path()
        path.addRoundedRect(in: Rect(x: 0, y: 0, width: 240, height: 128), cornerWidth: 5, cornerHeight: 5)
        #expect(path.elements.first == .move(to: Point(x: 240, y: 64)))
        // four quarter circles of radius 5 (Bézier: 1.5e-4 longer than the circle) and the straight edges
        #expect(abs(path.length - (2 * (230 + 118) + 2 * .pi * 5)) < 5e-3)
        var clamped = Path()
        clamped.addRoundedRect(in: Rect(x: 0, y: 0, width: 20, height: 20), cornerWidth: 50, cornerHeight: 50)
        #expect(abs(clamped.length - 20 * .pi) < 1e-2)   // a circle
        var square = Path()
        square.addRoundedRect(in: Rect(x: 0, y: 0, width: 4, height: 2), cornerWidth: .nan, cornerHeight: 1)
        #expect(square.length == 12)
    }

    // MARK: §14.6

    @Test("§14.6 lengths: lines exact, curves within 1e-9 of an extrapolated 40,000-point polyline")
    func lengthsMatchBruteForce() {
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addLine(to: Point(x: 30, y: 40))
        path.addCurve(to: Point(x: 100, y: 0), control1: Point(x: 60, y: 120), control2: Point(x: 90, y: -80))
        path.addQuadCurve(to: Point(x: 0, y: 0), control: Point(x: 50, y: 200))
        path.addCurve(to: Point(x: 10, y: 0), control1: Point(x: 20, y: 10), control2: Point(x: -10, y: 10))  // a loop with a cusp-like turn
        let exact = polylineLength(path)
        print("Path length vs extrapolated polyline: relative error \(abs(path.length - exact) / exact)")
        #expect(abs(path.length - exact) / exact < 1e-9)
        var line = Path()
        line.addLines(between: [.zero, Point(x: 3, y: 4), Point(x: 3, y: 10)])
        #expect(line.length == 11)
    }

    @Test("§14.6 point(atLength:) on lines is exact and clamps outside [0, length]")
    func pointAtLengthOnLines() {
        var path = Path()
        path.addLines(between: [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 10)])
        #expect(path.point(atLength: 5) == Point(x: 5, y: 0))
        #expect(path.point(atLength: 15) == Point(x: 10, y: 5))
        #expect(path.point(atLength: -3) == Point(x: 0, y: 0))
        #expect(path.point(atLength: 99) == Point(x: 10, y: 10))
        #expect(path.point(atLength: .nan) == Point(x: 0, y: 0))
        #expect(path.tangent(atLength: 15) == Point(x: 0, y: 1))
    }

    @Test("§5.6 a move-to after the last segment with length, then only zero-length segments, is a jump at the end: the end is the point landed on")
    func endAfterATrailingMoveIsThePointLandedOn() {
        // The fuzzer's shape: a closed subpath, then a move and zero-length curves and a close.
        var path = Path()
        path.move(to: Point(x: 6, y: 3))
        path.addLine(to: Point(x: 9, y: 3))
        path.closeSubpath()
        path.move(to: Point(x: 5, y: 5))
        path.addCurve(to: Point(x: 5, y: 5), control1: Point(x: 5, y: 5), control2: Point(x: 5, y: 5))
        path.closeSubpath()
        let measure = PathMeasure(path)
        #expect(measure.length == 6)
        #expect(measure.point(atLength: 6) == Point(x: 5, y: 5))
        #expect(measure.point(atLength: 99) == Point(x: 5, y: 5))
        #expect(measure.point(atLength: 5) == Point(x: 7, y: 3))
        // The direction at the end is the one before the zero-length segments (§5.7): the close's.
        #expect(measure.tangent(atLength: 6) == Point(x: -1, y: 0))
        // Without the move the trailing zero-length segments sit where the drawn path ends.
        var closed = Path()
        closed.move(to: Point(x: 6, y: 3))
        closed.addLine(to: Point(x: 9, y: 3))
        closed.addLine(to: Point(x: 9, y: 3))
        #expect(PathMeasure(closed).point(atLength: 3) == Point(x: 9, y: 3))
        #expect(PathMeasure(closed).tangent(atLength: 3) == Point(x: 1, y: 0))
    }

    @Test("§14.6 the prefix up to point(atLength: s) is s long")
    func pointAtLengthIsConsistentWithLength() {
        var path = Path()
        path.move(to: .zero)
        path.addCurve(to: Point(x: 100, y: 0), control1: Point(x: 0, y: 100), control2: Point(x: 100, y: 100))
        let measure = PathMeasure(path)
        for f in [0.1, 0.33, 0.5, 0.9] {
            let s = measure.length * f
            let prefix = measure.trimmed(from: 0, to: f)
            #expect(abs(prefix.length - s) < 1e-9 * measure.length)
            #expect(distance(prefix.currentPoint!, measure.point(atLength: s)) < 1e-9 * measure.length)
        }
    }

    @Test("§5.7 the tangent keeps the previous direction across zero-length segments and cusps")
    func tangentKeepsPreviousDirection() {
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 10, y: 0))
        path.addLine(to: Point(x: 10, y: 0))   // zero length
        path.addLine(to: Point(x: 10, y: 10))
        let measure = PathMeasure(path)
        #expect(measure.tangent(atLength: 10) == Point(x: 0, y: 1))  // the boundary belongs to the next drawn segment
        #expect(measure.tangent(atLength: 9.999) == Point(x: 1, y: 0))
        var cusp = Path()
        cusp.move(to: .zero)
        cusp.addCurve(to: Point(x: 10, y: 0), control1: .zero, control2: Point(x: 10, y: 0))   // degenerate handles
        #expect(cusp.tangent(atLength: 0) == Point(x: 1, y: 0))
        var point = Path()
        point.move(to: Point(x: 1, y: 1))
        point.addLine(to: Point(x: 1, y: 1))
        #expect(point.tangent(atLength: 0) == Point(x: 1, y: 0))
    }

    @Test("bounding boxes: control points, and the tight box of the drawn curve")
    func boundingBoxes() {
        var path = Path()
        path.move(to: .zero)
        path.addCurve(to: Point(x: 10, y: 0), control1: Point(x: 0, y: 10), control2: Point(x: 10, y: 10))
        #expect(path.boundingBox == Rect(x: 0, y: 0, width: 10, height: 10))
        let tight = path.boundingBoxOfPath
        #expect(abs(tight.height - 7.5) < 1e-12 && tight.width == 10)
        #expect(Path().boundingBox == .zero)
    }

    @Test("non-finite points are reported by validate(), naming the element")
    func nonFinitePointsAreReported() {
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: .nan, y: 0))
        #expect(throws: AnimationError(field: "elements[1]", reason: "has a non-finite point")) { try path.validate() }
        #expect(path.length.isNaN)   // measuring a NaN path answers NaN, and returns
    }

    @Test("hostile coordinates (NaN, ∞, 1e300, collapsed curves) never hang or crash measuring and trimming")
    func hostilePathsTerminate() {
        let values: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 0, 1e-300]
        for v in values {
            var path = Path()
            path.move(to: Point(x: 0, y: 0))
            path.addCurve(to: Point(x: v, y: 1), control1: Point(x: 1, y: v), control2: Point(x: v, y: v))
            path.addQuadCurve(to: Point(x: 2, y: 2), control: Point(x: v, y: 0))
            path.closeSubpath()
            let measure = PathMeasure(path)
            _ = measure.point(atLength: measure.length / 2)
            _ = measure.tangent(atLength: 1)
            _ = measure.trimmed(from: 0.2, to: 0.7)
            _ = ArcLengthTable(measure: measure, sampleCount: 16)
            _ = path.boundingBoxOfPath
            var k = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, rotationMode: .auto, duration: 1)
            _ = ReferenceEvaluator.sample(k, at: 0.5, base: .point(.zero))
            k.calculationMode = .linear
            _ = k.rotationAngle(in: k.timing.state(atParentTime: 0.3))
        }
        var collapsed = Path()
        collapsed.move(to: Point(x: 1, y: 1))
        collapsed.addCurve(to: Point(x: 1, y: 1), control1: Point(x: 1, y: 1), control2: Point(x: 1, y: 1))
        #expect(collapsed.length == 0)
        #expect(collapsed.point(atLength: 3) == Point(x: 1, y: 1))
    }

    // MARK: properties

    @Test("property: point(atLength:) is continuous and monotone in length")
    func pointAtLengthIsContinuousAndMonotone() async {
        let coordinate = Gen.double(in: -100...100)
        await propertyCheck(count: 40, input: coordinate, coordinate, coordinate, coordinate, coordinate, coordinate) { a, b, c, d, e, f in
            var path = Path()
            path.move(to: Point(x: a, y: b))
            path.addCurve(to: Point(x: e, y: f), control1: Point(x: c, y: d), control2: Point(x: d, y: a))
            path.addQuadCurve(to: Point(x: b, y: c), control: Point(x: f, y: e))
            let measure = PathMeasure(path)
            // Continuous: a chord is never longer than its arc.
            let n = 300
            var previous = measure.point(atLength: 0)
            for k in 1...n {
                let p = measure.point(atLength: measure.length * Double(k) / Double(n))
                #expect(distance(previous, p) <= measure.length / Double(n) * (1 + 1e-9) + 1e-12)
                previous = p
            }
            // Monotone: the path up to point(atLength: s) is s long, for increasing s.
            for k in 1...8 {
                let fraction = Double(k) / 9
                let prefix = measure.trimmed(from: 0, to: fraction)
                #expect(abs(prefix.length - fraction * measure.length) <= 1e-9 * max(1, measure.length))
                if let end = prefix.currentPoint {
                    #expect(distance(end, measure.point(atLength: fraction * measure.length)) <= 1e-9 * max(1, measure.length))
                }
            }
        }
    }
}

@Suite("ArcLengthTable (semantics §5.6, §14.6)")
struct ArcLengthTableTests {
    @Test("sampling by index and lerp stays within the measured bound and 1e-3 of the length")
    func tableErrorIsWithinBound() {
        var path = Path()
        path.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: .pi, endAngle: 0, clockwise: false)
        path.addArc(center: Point(x: 200, y: 200), radius: 100, startAngle: 0, endAngle: .pi, clockwise: false)
        path.addCurve(to: Point(x: 0, y: 0), control1: Point(x: 50, y: 300), control2: Point(x: -100, y: 50))
        let measure = PathMeasure(path)
        let table = ArcLengthTable(measure: measure, sampleCount: 256)
        #expect(table.maximumError <= 1e-3 * table.length)
        print("ArcLengthTable(256) on two arcs and a curve, length \(table.length): bound \(table.maximumError) (\(table.maximumError / table.length) of the length), measured \(table.measuredError)")
        var worst = 0.0
        for k in 0...4999 {
            let f = Double(k) / 4999
            let exact = measure.point(atLength: f * measure.length)
            worst = max(worst, distance(table.sample(atFraction: f).point, exact))
        }
        #expect(worst <= table.maximumError)
        let tight = ArcLengthTable(measure: measure, tolerance: 1e-4 * measure.length)
        #expect(tight.maximumError <= 1e-4 * measure.length && tight.points.count <= ArcLengthTable.maximumSampleCount)
        var circle = Path()
        circle.addEllipse(in: Rect(x: 100, y: 100, width: 200, height: 200))
        let circleTable = ArcLengthTable(path: circle)
        let sagitta = pow(circleTable.length / 255, 2) / 800   // h²/(8r), r = 100
        #expect(abs(circleTable.measuredError - sagitta) < 0.05 * sagitta)
    }

    @Test("the tolerance search builds no table whose spacing alone breaks the tolerance, and finds the table the doubling search finds")
    func toleranceSearchSkipsHopelessTables() {
        var curved = Path()
        curved.move(to: Point(x: 0, y: 0))
        curved.addCurve(to: Point(x: 300, y: 0), control1: Point(x: 0, y: 400), control2: Point(x: 300, y: -400))
        var corner = Path()
        corner.addLines(between: [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 0, y: 0.5)])   // a reversal: error linear in h
        var line = Path()
        line.addLines(between: [Point(x: 0, y: 0), Point(x: 1e6, y: 0)])
        for path in [curved, corner, line] {
            let measure = PathMeasure(path)
            for relative in [1e-1, 1e-2, 2e-3, 2e-4, 1e-5, 1e-9] {
                let tolerance = relative * measure.length
                // The plain search: every count from 64 up, doubling, until one meets the tolerance.
                var count = 64
                var expected = ArcLengthTable(measure: measure, sampleCount: count)
                while !(expected.maximumError <= tolerance) && count < ArcLengthTable.maximumSampleCount {
                    count *= 2
                    expected = ArcLengthTable(measure: measure, sampleCount: count)
                }
                let found = ArcLengthTable(measure: measure, tolerance: tolerance)
                #expect(found.points == expected.points && found.maximumError == expected.maximumError, "\(relative) of \(measure.length)")
            }
        }
    }

    @Test("tangent angles are unwrapped and lerp across ±π")
    func anglesUnwrap() {
        var circle = Path()
        circle.addEllipse(in: Rect(x: -1, y: -1, width: 2, height: 2))
        let table = ArcLengthTable(path: circle, sampleCount: 64)
        #expect(zip(table.angles, table.angles.dropFirst()).allSatisfy { abs($1 - $0) < .pi })
        #expect(abs(table.angles.last! - table.angles.first! - 2 * .pi) < 1e-3)
        #expect(table.sample(atFraction: .nan).point == table.points[0])
    }
}
