import Foundation

/// The tangent angle along a path (semantics §5.7, rotation modes), tabulated on the lengths of an
/// ``ArcLengthTable`` with the same sample count, so that "the angle at fraction f of the length"
/// is an index and a lerp, as the point is.
///
/// **Model.** Interval `i` runs from sample `i` to sample `i + 1`. Its angle is linear in length,
/// except at a corner — a join between segments where the direction jumps (a polygon's vertex, a
/// move to another subpath): there the interval is two linear pieces, each exact at its side of
/// the corner, so the jump lands at the corner's length instead of being smoothed over the
/// interval (``PathMeasure/tangent(atLength:)`` at the corner itself gives the later piece, as
/// the table does). A piece whose line misses the tolerance gets a bend: a quadratic term that
/// vanishes at the piece's ends and meets the reference at its middle (the line's error falls with
/// the square of the spacing, the bent piece's with its cube: on W2's paths it kept 94 % of the
/// intervals a line missed out of the reference's hands). Angles are radians; each interval's are
/// unwrapped from its start, which is in (−π, π].
///
/// **Error bound.** Each piece is compared with the reference angle at 7 interior check points;
/// an interval that misses by more than ``tolerance`` at any of them, bent or not, or that holds
/// two corners or more, is marked ``Interval/isExact``: a user of the table evaluates the
/// reference there (the batch engine does). ``measuredError`` is the largest miss among the intervals that are not
/// exact. Like ``ArcLengthTable/measuredError`` it is measured, not a rigorous bound: a turn
/// sharper than the check points' spacing (a cusp inside a curve between two of them) could hide.
/// The miss falls with the square of the spacing: a circle drawn as 4 cubics (whose curvature
/// wobbles) misses by 2.2e-4 rad with 64 samples, 1.0e-6 rad with 1,024 — the count an
/// ``ArcLengthTable`` to 2e-4 of the length picks for it.
public struct TangentAngleTable: Sendable {
    /// One interval between neighbouring samples: the angle at `w ∈ [0, 1]` along it is
    /// `start + slope · w + bend · w · (w − min(corner, 1))` before ``corner``,
    /// `afterCorner + slopeAfterCorner · (w − corner) + bendAfterCorner · (w − corner) · (w − 1)`
    /// from it on.
    public struct Interval: Sendable, Equatable {
        /// The angle leaving the interval's start (radians, in (−π, π]).
        public var start: Double
        /// The first piece's change per unit of `w`.
        public var slope: Double
        /// Where the corner is, as a fraction of the interval in (0, 1); 2 when there is none.
        public var corner: Double
        /// The angle leaving the corner (unwrapped next to the angle arriving at it).
        public var afterCorner: Double
        /// The second piece's change per unit of `w`.
        public var slopeAfterCorner: Double
        /// True where the model is not good enough: the reference decides.
        public var isExact: Bool
        /// The first piece's quadratic term (0 where its line is good enough).
        public var bend: Double = 0
        /// The second piece's quadratic term (0 where its line is good enough, or no corner).
        public var bendAfterCorner: Double = 0

        /// The model's angle at `w` (not wrapped).
        public func angle(at w: Double) -> Double {
            w < corner ? start + slope * w + bend * w * (w - min(corner, 1))
                       : afterCorner + slopeAfterCorner * (w - corner) + bendAfterCorner * (w - corner) * (w - 1)
        }
    }

    /// The largest angle error ``init(measure:sampleCount:tolerance:bends:)`` accepts by default:
    /// 1e-5 rad turns a layer of 1,000 points by 0.01 point at its edge.
    public static let defaultTolerance = 1e-5

    /// The intervals, one fewer than the samples.
    public let intervals: [Interval]
    /// The path's length.
    public let length: Double
    /// The largest error allowed in intervals that are not exact.
    public let tolerance: Double
    /// The largest error found at the check points of the intervals that are not exact.
    public let measuredError: Double
    private let measure: PathMeasure

    /// The angle table of `measure` over `sampleCount` samples (raised to 2, lowered to
    /// ``ArcLengthTable/maximumSampleCount``), intervals missing `tolerance` marked exact. With
    /// `bends` false every piece is a line: a reader that evaluates the table at a rounded
    /// position (the batch engine's Float progress) asks for that, since a piece turning too
    /// fast for a line turns too fast for the rounding too (see `PathBatch`).
    public init(measure: PathMeasure, sampleCount: Int, tolerance: Double = Self.defaultTolerance, bends: Bool = true) {
        let n = min(max(2, sampleCount), ArcLengthTable.maximumSampleCount)
        let length = measure.length
        self.measure = measure
        self.length = length
        self.tolerance = tolerance
        let h = length / Double(n - 1)
        guard length > 0, length.isFinite, h > 0 else {
            // Nothing to follow: one direction everywhere (the reference's at 0), exact when the
            // length is not a number to divide.
            let start = Self.angle(measure.tangent(atLength: 0))
            intervals = Array(repeating: Interval(start: start, slope: 0, corner: 2, afterCorner: start, slopeAfterCorner: 0,
                                                  isExact: !(length == 0)), count: n - 1)
            measuredError = 0
            return
        }
        var intervals: [Interval] = []
        intervals.reserveCapacity(n - 1)
        var worst = 0.0
        var join = 1   // the next segment start to consider as a corner
        for i in 0..<(n - 1) {
            let a = h * Double(i), b = i == n - 2 ? length : h * Double(i + 1)
            // Corners strictly inside (a, b): joins whose arriving and leaving directions differ.
            var corners: [Double] = []
            while join < measure.segments.count && measure.starts[join] <= a { join += 1 }
            var k = join
            while k < measure.segments.count && measure.starts[k] < b {
                let s = measure.starts[k]
                if corners.last != s,
                   abs(Self.wrap(Self.angle(measure.tangent(atLength: s)) - Self.angle(measure.tangent(arrivingAt: s)))) > tolerance {
                    corners.append(s)
                }
                k += 1
            }
            let start = Self.wrap(Self.angle(measure.tangent(atLength: a)))
            var interval: Interval
            if corners.isEmpty {
                let end = Self.unwrap(Self.angle(measure.tangent(arrivingAt: b)), near: start)
                interval = Interval(start: start, slope: end - start, corner: 2, afterCorner: end, slopeAfterCorner: 0, isExact: false)
            } else {
                let s = corners[0], c = (s - a) / (b - a)
                let arriving = Self.unwrap(Self.angle(measure.tangent(arrivingAt: s)), near: start)
                let leaving = Self.unwrap(Self.angle(measure.tangent(atLength: s)), near: arriving)
                let end = Self.unwrap(Self.angle(measure.tangent(arrivingAt: b)), near: leaving)
                interval = Interval(start: start, slope: c > 0 ? (arriving - start) / c : 0, corner: c, afterCorner: leaving,
                                    slopeAfterCorner: c < 1 ? (end - leaving) / (1 - c) : 0, isExact: corners.count > 1)
            }
            if !interval.isExact {
                // 7 check points inside each piece; a piece whose line misses is bent through the
                // reference at its middle and checked again.
                var miss = 0.0
                let pieces = interval.corner < 1 ? [(0.0, interval.corner), (interval.corner, 1.0)] : [(0.0, 1.0)]
                for (k, (from, to)) in pieces.enumerated() {
                    var pieceMiss = Self.miss(interval, from: from, to: to, measure: measure, a: a, b: b)
                    if bends, !(pieceMiss <= tolerance), to > from {
                        let middle = (from + to) / 2
                        let line = interval.angle(at: middle)
                        let reference = Self.unwrap(Self.angle(measure.tangent(atLength: a + (b - a) * middle)), near: line)
                        // The term is 0 at both ends and −bend · (to − from)² / 4 at the middle.
                        let bend = -4 * (reference - line) / ((to - from) * (to - from))
                        if bend.isFinite {
                            var bent = interval
                            if k == 0 { bent.bend = bend } else { bent.bendAfterCorner = bend }
                            let bentMiss = Self.miss(bent, from: from, to: to, measure: measure, a: a, b: b)
                            if bentMiss < pieceMiss || pieceMiss.isNaN { (interval, pieceMiss) = (bent, bentMiss) }
                        }
                    }
                    miss = max(miss, pieceMiss)
                }
                if miss.isFinite && miss <= tolerance && interval.slope.isFinite && interval.slopeAfterCorner.isFinite {
                    worst = max(worst, miss)
                } else {
                    interval.isExact = true
                }
            }
            intervals.append(interval)
        }
        self.intervals = intervals
        measuredError = worst
    }

    /// The tangent angle at fraction `f` of the length (clamped to [0, 1]; NaN counts as 0), in
    /// (−π, π]: by the table where it is good enough, by the reference in exact intervals.
    public func angle(atFraction f: Double) -> Double {
        let clamped = f.isNaN ? 0 : min(max(f, 0), 1)
        let x = clamped * Double(intervals.count)
        let i = min(Int(x), intervals.count - 1)
        let interval = intervals[i]
        if interval.isExact { return Self.wrap(Self.angle(measure.tangent(atLength: clamped * length))) }
        return Self.wrap(interval.angle(at: x - Double(i)))
    }

    /// The largest miss of `interval`'s model against the reference at 7 check points inside
    /// `from ..< to` (fractions of the interval from length `a` to `b`); NaN where either is not a number.
    private static func miss(_ interval: Interval, from: Double, to: Double, measure: PathMeasure, a: Double, b: Double) -> Double {
        var miss = 0.0
        for j in 1...7 {
            let w = from + (to - from) * Double(j) / 8
            let exact = angle(measure.tangent(atLength: a + (b - a) * w))
            let m = abs(wrap(interval.angle(at: w) - exact))
            if m.isNaN { return .nan }
            miss = max(miss, m)
        }
        return miss
    }

    /// The number of intervals marked exact.
    public var exactCount: Int { intervals.reduce(0) { $0 + ($1.isExact ? 1 : 0) } }

    static func angle(_ d: Point) -> Double { atan2(d.y, d.x) }

    /// `x` moved by a whole number of turns into (−π, π].
    static func wrap(_ x: Double) -> Double {
        guard x.isFinite else { return x }
        var y = x - 2 * Double.pi * (x / (2 * Double.pi)).rounded()
        if y <= -Double.pi { y += 2 * Double.pi }
        if y > Double.pi { y -= 2 * Double.pi }
        return y
    }

    /// `x` moved by a whole number of turns to within π of `reference`.
    static func unwrap(_ x: Double, near reference: Double) -> Double {
        reference + wrap(x - reference)
    }
}
