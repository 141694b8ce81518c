import AnimationCore
import Foundation

/// A line chart drawn as SVG by our own code: axes with round-numbered ticks on linear or
/// logarithmic scales, several series with a legend. `animation-engine plot` draws timing curves
/// and scene properties with it; benchmark reports draw their charts with it.
///
/// Points that are not finite (or not positive on a logarithmic axis) are left out, breaking the
/// line there; a chart with nothing to draw still has its axes, over [0, 1].
public struct SVGChart: Sendable {
    /// How values map to an axis.
    public enum Scale: String, Sendable, CaseIterable {
        /// Evenly spaced values.
        case linear
        /// Evenly spaced powers of ten; only positive values are drawn.
        case log
    }

    /// How a series is drawn.
    public enum Style: String, Sendable {
        /// A solid line.
        case line
        /// A dashed line.
        case dashed
        /// Dots, with no line.
        case points
        /// A solid line with a dot at every point.
        case lineAndPoints
    }

    /// One named set of points.
    public struct Series: Sendable {
        /// The legend text.
        public var name: String
        /// The points, in drawing order.
        public var points: [(x: Double, y: Double)]
        /// How to draw them.
        public var style: Style
        /// The colour (`#rrggbb`), or nil for the next of ``SVGChart/palette``.
        public var color: String?

        /// A series of `points` drawn as `style`, in `color` or the palette's next.
        public init(name: String, points: [(x: Double, y: Double)], style: Style = .line, color: String? = nil) {
            self.name = name
            self.points = points
            self.style = style
            self.color = color
        }
    }

    /// The heading above the plot.
    public var title: String
    /// The horizontal axis' label.
    public var xLabel: String
    /// The vertical axis' label.
    public var yLabel: String
    /// The horizontal scale.
    public var xScale: Scale
    /// The vertical scale.
    public var yScale: Scale
    /// What to draw.
    public var series: [Series]
    /// The size of the whole chart, in SVG user units.
    public var width: Double
    /// See ``width``.
    public var height: Double
    /// A horizontal range to show instead of the data's (for example `0...1` for a timing curve).
    public var xRange: ClosedRange<Double>?
    /// A vertical range to include besides the data's.
    public var yRange: ClosedRange<Double>?

    /// A chart of `series`.
    public init(title: String, xLabel: String, yLabel: String, series: [Series], xScale: Scale = .linear,
                yScale: Scale = .linear, width: Double = 640, height: Double = 400,
                xRange: ClosedRange<Double>? = nil, yRange: ClosedRange<Double>? = nil) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.xScale = xScale
        self.yScale = yScale
        self.width = width
        self.height = height
        self.xRange = xRange
        self.yRange = yRange
    }

    /// Colours for series, in order (then repeated): distinguishable, and readable in print.
    public static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    /// A complete SVG document of this chart.
    public var svg: String { Self.document(width: width, height: height, body: body) }

    /// Charts side by side in one SVG document, in `columns` columns.
    public static func grid(_ charts: [SVGChart], columns: Int? = nil) -> String {
        let columnCount = max(1, min(columns ?? charts.count, max(charts.count, 1)))
        let cellWidth = charts.map(\.width).max() ?? 0, cellHeight = charts.map(\.height).max() ?? 0
        let rows = (charts.count + columnCount - 1) / columnCount
        var body = ""
        for (i, chart) in charts.enumerated() {
            let x = Double(i % columnCount) * cellWidth, y = Double(i / columnCount) * cellHeight
            body += "<g transform=\"translate(\(SVG.number(x)) \(SVG.number(y)))\">\n" + chart.body + "</g>\n"
        }
        return document(width: cellWidth * Double(columnCount), height: cellHeight * Double(rows), body: body)
    }

    static func document(width: Double, height: Double, body: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(SVG.number(width))" height="\(SVG.number(height))" \
        viewBox="0 0 \(SVG.number(width)) \(SVG.number(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="#ffffff"/>
        \(body)</svg>

        """
    }

    /// The chart's elements, in a frame of ``width`` × ``height`` at the origin.
    var body: String {
        let left = 64.0, right = 16.0, top = 32.0
        let legendHeight = 18.0 * Double(legendRows(width: max(width - left - right, 10)))
        let bottom = 44.0 + legendHeight
        let plotWidth = max(width - left - right, 10), plotHeight = max(height - top - bottom, 10)
        let xAxis = Axis(scale: xScale, values: series.flatMap { $0.points.map(\.x) }, fixed: xRange, include: nil)
        let yAxis = Axis(scale: yScale, values: series.flatMap { $0.points.map(\.y) }, fixed: nil, include: yRange)
        func px(_ x: Double) -> Double { left + xAxis.fraction(x) * plotWidth }
        func py(_ y: Double) -> Double { top + (1 - yAxis.fraction(y)) * plotHeight }

        var out = "<text x=\"\(SVG.number(width / 2))\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">\(SVG.escape(title))</text>\n"
        // Grid and ticks.
        for tick in xAxis.ticks {
            let x = px(tick)
            out += "<line x1=\"\(SVG.number(x))\" y1=\"\(SVG.number(top))\" x2=\"\(SVG.number(x))\" y2=\"\(SVG.number(top + plotHeight))\" stroke=\"#e6e6e6\"/>\n"
            out += "<text x=\"\(SVG.number(x))\" y=\"\(SVG.number(top + plotHeight + 16))\" text-anchor=\"middle\">\(xAxis.label(tick))</text>\n"
        }
        for tick in yAxis.ticks {
            let y = py(tick)
            out += "<line x1=\"\(SVG.number(left))\" y1=\"\(SVG.number(y))\" x2=\"\(SVG.number(left + plotWidth))\" y2=\"\(SVG.number(y))\" stroke=\"#e6e6e6\"/>\n"
            out += "<text x=\"\(SVG.number(left - 6))\" y=\"\(SVG.number(y + 4))\" text-anchor=\"end\">\(yAxis.label(tick))</text>\n"
        }
        out += "<rect x=\"\(SVG.number(left))\" y=\"\(SVG.number(top))\" width=\"\(SVG.number(plotWidth))\" height=\"\(SVG.number(plotHeight))\" fill=\"none\" stroke=\"#444444\"/>\n"
        out += "<text x=\"\(SVG.number(left + plotWidth / 2))\" y=\"\(SVG.number(top + plotHeight + 34))\" text-anchor=\"middle\">\(SVG.escape(xLabel))</text>\n"
        out += "<text transform=\"translate(14 \(SVG.number(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(SVG.escape(yLabel))</text>\n"

        // Series, clipped to the plot area.
        let clip = "clip-\(SVG.identifier(title))-\(Int(width))x\(Int(height))"
        out += "<clipPath id=\"\(clip)\"><rect x=\"\(SVG.number(left))\" y=\"\(SVG.number(top))\" width=\"\(SVG.number(plotWidth))\" height=\"\(SVG.number(plotHeight))\"/></clipPath>\n"
        out += "<g clip-path=\"url(#\(clip))\">\n"
        for (k, s) in series.enumerated() {
            let color = s.color ?? Self.palette[k % Self.palette.count]
            let drawable = s.points.map { p -> (Double, Double)? in
                xAxis.accepts(p.x) && yAxis.accepts(p.y) ? (px(p.x), py(p.y)) : nil
            }
            if s.style != .points {
                var d = "", pen = false
                for p in drawable {
                    guard let (x, y) = p else { pen = false; continue }
                    d += (pen ? "L" : "M") + SVG.number(x) + " " + SVG.number(y)
                    pen = true
                }
                if !d.isEmpty {
                    let dash = s.style == .dashed ? " stroke-dasharray=\"5 4\"" : ""
                    out += "<path d=\"\(d)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
                }
            }
            if s.style == .points || s.style == .lineAndPoints {
                for case let (x, y)? in drawable {
                    out += "<circle cx=\"\(SVG.number(x))\" cy=\"\(SVG.number(y))\" r=\"3\" fill=\"\(color)\"/>\n"
                }
            }
        }
        out += "</g>\n"
        // Legend: entries flow left to right, wrapping at the plot's width (text width estimated
        // at 7 units a character); series without a name have no entry.
        var x = left, y = top + plotHeight + 52
        for (k, s) in series.enumerated() where !s.name.isEmpty {
            let entryWidth = 24 + 7 * Double(s.name.count) + 16
            if x > left && x + entryWidth > left + plotWidth {
                x = left
                y += 18
            }
            let color = s.color ?? Self.palette[k % Self.palette.count]
            let dash = s.style == .dashed ? " stroke-dasharray=\"5 4\"" : ""
            if s.style == .points {
                out += "<circle cx=\"\(SVG.number(x + 9))\" cy=\"\(SVG.number(y - 4))\" r=\"3\" fill=\"\(color)\"/>\n"
            } else {
                out += "<line x1=\"\(SVG.number(x))\" y1=\"\(SVG.number(y - 4))\" x2=\"\(SVG.number(x + 18))\" y2=\"\(SVG.number(y - 4))\" stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
            }
            out += "<text x=\"\(SVG.number(x + 24))\" y=\"\(SVG.number(y))\">\(SVG.escape(s.name))</text>\n"
            x += entryWidth
        }
        return out
    }

    /// How many rows the legend takes in a plot `width` wide (see the legend in ``body``).
    func legendRows(width: Double) -> Int {
        var rows = 0, x = 0.0
        for s in series where !s.name.isEmpty {
            let entryWidth = 24 + 7 * Double(s.name.count) + 16
            if rows == 0 || (x > 0 && x + entryWidth > width) {
                rows += 1
                x = 0
            }
            x += entryWidth
        }
        return rows
    }

    /// One axis: its range, ticks and the mapping of values to [0, 1].
    struct Axis {
        var scale: Scale
        var low: Double
        var high: Double
        var ticks: [Double]

        init(scale: Scale, values: [Double], fixed: ClosedRange<Double>?, include: ClosedRange<Double>?) {
            self.scale = scale
            var usable = values.filter { $0.isFinite && (scale == .linear || $0 > 0) }
            if let include { usable += [include.lowerBound, include.upperBound].filter { $0.isFinite && (scale == .linear || $0 > 0) } }
            var lo: Double, hi: Double
            if let fixed, fixed.lowerBound.isFinite, fixed.upperBound.isFinite, fixed.lowerBound < fixed.upperBound,
               scale == .linear || fixed.lowerBound > 0 {
                lo = fixed.lowerBound
                hi = fixed.upperBound
            } else if let first = usable.min(), let last = usable.max() {
                lo = first
                hi = last
            } else {
                lo = scale == .linear ? 0 : 1
                hi = scale == .linear ? 1 : 10
            }
            switch scale {
            case .linear:
                if hi - lo < 1e-12 * max(1, abs(hi)) {
                    let pad = max(abs(lo) * 0.1, 0.5)
                    lo -= pad
                    hi += pad
                }
                let step = Axis.niceStep((hi - lo) / 5)
                // Tick indices counted as whole numbers: recomputing them from the rounded ends
                // (0.6000000000000001 / 0.1) skipped the lowest tick, leaving the axis' bottom
                // unlabelled.
                var k = (lo / step - 1e-9).rounded(.up)
                if fixed == nil {
                    k = (lo / step + 1e-9).rounded(.down)
                    lo = k * step
                    hi = (hi / step - 1e-9).rounded(.up) * step
                }
                var t: [Double] = []
                while k * step <= hi + step * 1e-9 && t.count < 50 {
                    t.append(abs(k * step) < step * 1e-9 ? 0 : k * step)
                    k += 1
                }
                ticks = t
            case .log:
                var e0 = floor(log10(lo)), e1 = ceil(log10(hi))
                if e1 <= e0 { e1 = e0 + 1 }
                if e1 - e0 > 40 { e0 = e1 - 40 }
                lo = pow10(e0)
                hi = pow10(e1)
                var t: [Double] = []
                var e = e0
                while e <= e1 {
                    t.append(pow10(e))
                    if e1 - e0 <= 2 && e < e1 { t += [2, 5].map { $0 * pow10(e) } }
                    e += 1
                }
                ticks = t.sorted()
            }
            low = lo
            high = hi
        }

        func accepts(_ v: Double) -> Bool { v.isFinite && (scale == .linear || v > 0) }

        func fraction(_ v: Double) -> Double {
            switch scale {
            case .linear: (v - low) / (high - low)
            case .log: (log10(v) - log10(low)) / (log10(high) - log10(low))
            }
        }

        func label(_ v: Double) -> String {
            if scale == .log, v >= 1e4 || v < 1e-3 {
                let e = Int(floor(log10(v) + 1e-9))
                let mantissa = v / pow10(Double(e))
                return abs(mantissa - 1) < 1e-9 ? "1e\(e)" : SVG.number(mantissa, decimals: 1) + "e\(e)"
            }
            return SVG.number(v, decimals: 4)
        }

        /// 1, 2 or 5 times a power of ten, at least `rough`.
        static func niceStep(_ rough: Double) -> Double {
            guard rough > 0 && rough.isFinite else { return 1 }
            let power = pow10(floor(log10(rough)))
            for m in [1.0, 2, 5, 10] where m * power >= rough * (1 - 1e-9) { return m * power }
            return 10 * power
        }
    }
}

func pow10(_ e: Double) -> Double { pow(10, e) }

/// Text helpers for SVG documents.
public enum SVG {
    /// `v` with at most `decimals` decimals, trailing zeros dropped, never `-0`; non-finite
    /// values print as 0 (callers leave such points out before they get here).
    public static func number(_ v: Double, decimals: Int = 3) -> String {
        guard v.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<max(0, min(decimals, 9)) { scale *= 10 }
        let r = (v * scale).rounded() / scale
        if r == 0 { return "0" }
        if abs(r) >= 1e15 { return JSON.format(r) }
        let negative = r < 0
        let whole = abs(r).rounded(.down)
        var fraction = Int(((abs(r) - whole) * scale).rounded())
        var wholeInt = Int(whole)
        if Double(fraction) >= scale { wholeInt += 1; fraction = 0 }
        var text = String(wholeInt)
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: max(0, decimals - digits.count)) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return negative ? "-" + text : text
    }

    /// `s` with XML's special characters escaped.
    public static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }

    /// `s` reduced to characters safe in an XML id.
    public static func identifier(_ s: String) -> String {
        String(s.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }
}
