import AnimationCore
import Foundation
import Testing

/// The angle difference `a − b` moved into (−π, π].
private func turnDifference(_ a: Double, _ b: Double) -> Double {
    var d = (a - b).truncatingRemainder(dividingBy: 2 * Double.pi)
    if d > Double.pi { d -= 2 * Double.pi }
    if d <= -Double.pi { d += 2 * Double.pi }
    return abs(d)
}

private func referenceAngle(_ measure: PathMeasure, atFraction f: Double) -> Double {
    let d = measure.tangent(atLength: f * measure.length)
    return atan2(d.y, d.x)
}

@Suite("TangentAngleTable: the tangent angle by index and lerp (semantics §5.7)")
struct TangentAngleTableTests {
    @Test("§5.7 on a circle the table follows the reference within its tolerance, with no exact intervals")
    func circleWithinTolerance() {
        var circle = Path()
        circle.addEllipse(in: Rect(x: -100, y: -100, width: 200, height: 200))
        let measure = PathMeasure(circle)
        // The sample count of the position table to 2e-4 of the length, as the batch engine builds.
        let count = ArcLengthTable(measure: measure, tolerance: 2e-4 * measure.length).points.count
        let table = TangentAngleTable(measure: measure, sampleCount: count)
        #expect(table.intervals.count == count - 1)
        #expect(table.exactCount == 0)
        #expect(table.measuredError <= TangentAngleTable.defaultTolerance)
        for k in 0...2000 {
            let f = Double(k) / 2000
            #expect(turnDifference(table.angle(atFraction: f), referenceAngle(measure, atFraction: f)) <= TangentAngleTable.defaultTolerance,
                    "f = \(f)")
        }
    }

    @Test("§5.7 a corner inside an interval is exact on both sides: the jump lands at the corner's length")
    func cornersAreExact() {
        // A square of side 100 sampled 6 times: the corners at lengths 100, 200, 300 fall inside
        // intervals (the samples are 80 apart).
        var square = Path()
        square.addRect(Rect(x: 0, y: 0, width: 100, height: 100))
        let measure = PathMeasure(square)
        let table = TangentAngleTable(measure: measure, sampleCount: 6)
        #expect(table.exactCount == 0)
        #expect(table.intervals.filter { $0.corner < 1 }.count == 3)
        let directions = [0.0, Double.pi / 2, Double.pi, -Double.pi / 2]
        for (side, direction) in directions.enumerated() {
            for inside in [1e-9, 0.25, 0.5, 0.75, 1 - 1e-9] {
                let f = (Double(side) + inside) / 4
                #expect(turnDifference(table.angle(atFraction: f), direction) <= 1e-12, "side \(side), \(inside)")
                #expect(turnDifference(table.angle(atFraction: f), referenceAngle(measure, atFraction: f)) <= 1e-12)
            }
            // At the corner itself the direction leaving it, as the reference gives.
            if side > 0 {
                #expect(turnDifference(table.angle(atFraction: Double(side) / 4), direction) <= 1e-12)
            }
        }
    }

    @Test("§5.7 two corners in one interval, or a cusp inside a curve, mark the interval exact: the reference decides there")
    func crowdedIntervalsAreExact() {
        var zigzag = Path()
        zigzag.move(to: Point(x: 0, y: 0))
        zigzag.addLine(to: Point(x: 100, y: 0))
        zigzag.addLine(to: Point(x: 100, y: 1))
        zigzag.addLine(to: Point(x: 200, y: 1))
        let measure = PathMeasure(zigzag)
        let table = TangentAngleTable(measure: measure, sampleCount: 16)
        #expect(table.exactCount == 1)
        var cusp = Path()
        cusp.move(to: Point(x: 0, y: 0))
        cusp.addCurve(to: Point(x: 100, y: 0), control1: Point(x: 100, y: 100), control2: Point(x: 0, y: 100))
        let cuspMeasure = PathMeasure(cusp)
        let cuspTable = TangentAngleTable(measure: cuspMeasure, sampleCount: 64)
        #expect(cuspTable.exactCount >= 1)
        for (t, m) in [(table, measure), (cuspTable, cuspMeasure)] {
            for k in 0...4000 {
                let f = Double(k) / 4000
                #expect(turnDifference(t.angle(atFraction: f), referenceAngle(m, atFraction: f)) <= TangentAngleTable.defaultTolerance,
                        "f = \(f)")
            }
        }
    }

    @Test("§5.7 a piece whose line misses the tolerance is bent through the reference at its middle, and meets it")
    func missingLinesAreBent() {
        // A flat ellipse turns fast at its ends: there lines between 128 samples miss by far more
        // than the tolerance, and a quadratic term that vanishes at the ends fixes most of them.
        var ellipse = Path()
        ellipse.addEllipse(in: Rect(x: -200, y: -20, width: 400, height: 40))
        let measure = PathMeasure(ellipse)
        let table = TangentAngleTable(measure: measure, sampleCount: 128)
        let bent = table.intervals.indices.filter { !table.intervals[$0].isExact && table.intervals[$0].bend != 0 }
        #expect(bent.count >= 4)
        // Lines only (a reader at rounded positions): those intervals are the reference's.
        let lines = TangentAngleTable(measure: measure, sampleCount: 128, bends: false)
        #expect(lines.intervals.allSatisfy { $0.bend == 0 && $0.bendAfterCorner == 0 })
        #expect(lines.exactCount >= table.exactCount + bent.count)
        for i in bent { #expect(lines.intervals[i].isExact) }
        #expect(table.measuredError <= TangentAngleTable.defaultTolerance)
        let h = 1.0 / Double(table.intervals.count)
        for i in bent {
            let interval = table.intervals[i]
            // The line alone (no bend) misses at the middle by more than the tolerance ...
            var line = interval
            line.bend = 0
            let middle = (Double(i) + 0.5) * h
            #expect(turnDifference(line.angle(at: 0.5), referenceAngle(measure, atFraction: middle)) > TangentAngleTable.defaultTolerance)
            // ... and the bent piece is the reference's at its ends, its middle and in between.
            for k in 0...32 {
                let w = Double(k) / 32
                #expect(turnDifference(interval.angle(at: w), referenceAngle(measure, atFraction: (Double(i) + w) * h))
                        <= TangentAngleTable.defaultTolerance, "interval \(i) at \(w)")
            }
        }
        for k in 0...4000 {
            let f = Double(k) / 4000
            #expect(turnDifference(table.angle(atFraction: f), referenceAngle(measure, atFraction: f)) <= TangentAngleTable.defaultTolerance,
                    "f = \(f)")
        }
    }

    @Test("§5.7 paths without length keep the reference's one direction; NaN and out-of-range fractions clamp")
    func degeneratePaths() {
        var dot = Path()
        dot.move(to: Point(x: 3, y: 4))
        dot.addLine(to: Point(x: 3, y: 4))
        let table = TangentAngleTable(measure: PathMeasure(dot), sampleCount: 64)
        #expect(table.exactCount == 0)
        #expect(table.angle(atFraction: 0.5) == 0)
        let empty = TangentAngleTable(measure: PathMeasure(Path()), sampleCount: 0)
        #expect(empty.intervals.count == 1)
        #expect(empty.angle(atFraction: .nan) == 0)
        var line = Path()
        line.move(to: Point(x: 0, y: 0))
        line.addLine(to: Point(x: 0, y: 10))
        let up = TangentAngleTable(measure: PathMeasure(line), sampleCount: 4)
        #expect(abs(up.angle(atFraction: -3) - Double.pi / 2) <= 1e-15)
        #expect(abs(up.angle(atFraction: 7) - Double.pi / 2) <= 1e-15)
    }

    @Test("§5.7 random paths of lines, curves, arcs, moves and closes: the table agrees with the reference away from corners")
    func randomPathsAgree() {
        var rng = SeededGenerator(seed: 57)
        func number(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
        var worst = 0.0
        for _ in 0..<12 {
            var p = Path()
            p.move(to: Point(x: number(-100...100), y: number(-100...100)))
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let to = Point(x: number(-100...100), y: number(-100...100))
                switch number(0...1) {
                case ..<0.3: p.addLine(to: to)
                case ..<0.5: p.addQuadCurve(to: to, control: Point(x: number(-100...100), y: number(-100...100)))
                case ..<0.75:
                    p.addCurve(to: to, control1: Point(x: number(-100...100), y: number(-100...100)),
                               control2: Point(x: number(-100...100), y: number(-100...100)))
                case ..<0.9:
                    p.addArc(center: Point(x: number(-50...50), y: number(-50...50)), radius: number(5...80),
                             startAngle: number(-3...3), endAngle: number(-6...6), clockwise: number(0...1) < 0.5)
                case ..<0.95: p.move(to: to)
                default: p.closeSubpath()
                }
            }
            let measure = PathMeasure(p)
            let table = TangentAngleTable(measure: measure, sampleCount: ArcLengthTable(measure: measure, tolerance: 2e-4 * measure.length).points.count)
            #expect(table.measuredError <= TangentAngleTable.defaultTolerance)
            let joins = Set(measure.drawnSegments.reduce(into: [0.0]) { $0.append($0.last! + $1.length) })
            for k in 0..<300 {
                let f = (Double(k) + number(0...1)) / 500
                let s = f * measure.length
                // Next to a join the angle jumps: a fraction's rounding decides the side there.
                if joins.contains(where: { abs($0 - s) <= 1e-9 * max(1, measure.length) }) { continue }
                let miss = turnDifference(table.angle(atFraction: f), referenceAngle(measure, atFraction: f))
                worst = max(worst, miss)
                #expect(miss <= TangentAngleTable.defaultTolerance, "f = \(f) on \(p.elements)")
            }
        }
        #expect(worst > 0)   // the table's own angles, not the reference's everywhere
    }
}
