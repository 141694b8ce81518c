// perf-report: turns a report folder written by Benchmarks/run-report.sh into a Markdown summary
// with SVG charts (drawn by AnimationScene's SVGChart and the bars below), and compares two folders.
//
//   perf-report summarize perf-reports/2026-11-22-abc1234
//   perf-report compare perf-reports/OLD perf-reports/NEW     (prints, and writes NEW/compare-OLD.md)
//   perf-report check DIR                                     (CI: ratio floors measured in one run)
import AnimationScene
import ArgumentParser
import Foundation

@main
struct PerfReport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "perf-report",
        abstract: "Summarise a benchmark report folder, or compare two of them.",
        subcommands: [Summarize.self, Compare.self, Check.self, LottieSummary.self, LayerTreeSummary.self]
    )
}

// MARK: Reading a folder

/// One measured figure, with the run-to-run noise measured beside it (relative, e.g. 0.05 = 5 %).
struct Figure {
    var name: String
    var value: Double
    var unit: String
    var noise: Double
    var smallerIsBetter = true
}

/// Everything a report folder holds, flattened into figures.
struct Report {
    var folder: URL
    var environment: [String: String] = [:]
    var figures: [Figure] = []

    func figure(_ name: String) -> Figure? { figures.first { $0.name == name } }
    func value(_ name: String) -> Double? { figure(name)?.value }

    init(folder: URL) throws {
        self.folder = folder
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard !files.isEmpty else { throw ValidationError("'\(folder.path)' is not a report folder (it is empty or missing)") }
        if let environment = try Self.json(folder, "environment.json")?.objectValue {
            for (key, value) in environment { self.environment[key] = value.stringValue ?? value.text }
        }
        if let shim = try Self.json(folder, "shim.json") { readShim(shim) }
        if let swift = try Self.json(folder, "swift.jmh.json") { readJMH(swift) }
        if let data = FileManager.default.contents(atPath: folder.appendingPathComponent("swift-standalone.txt").path) {
            readStandalone(String(decoding: data, as: UTF8.self))
        }
        for build in ["native", "portable"] {
            if let figures = try Self.json(folder, "figures-\(build).json") { readFigures(figures, build: build) }
        }
        if let instructions = try Self.json(folder, "instructions.json") { readInstructions(instructions) }
        guard !figures.isEmpty else { throw ValidationError("'\(folder.path)' holds no benchmark results") }
    }

    static func json(_ folder: URL, _ name: String) throws -> JSON? {
        let url = folder.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try JSON.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw ValidationError("\(url.path): \(error)")
        }
    }

    /// google-benchmark JSON with repetitions: the median of real time, noise = the coefficient of variation.
    mutating func readShim(_ json: JSON) {
        guard let runs = json["benchmarks"]?.arrayValue else { return }
        var medians: [String: (Double, String)] = [:], cvs: [String: Double] = [:]
        for run in runs {
            guard let name = run["run_name"]?.stringValue, let aggregate = run["aggregate_name"]?.stringValue,
                  let time = run["real_time"]?.numberValue else { continue }
            let unit = run["time_unit"]?.stringValue ?? "ns"
            if aggregate == "median" { medians[name] = (time, unit) }
            if aggregate == "cv" { cvs[name] = time }   // google benchmark reports the CV in real_time
        }
        for (name, (time, unit)) in medians.sorted(by: { $0.key < $1.key }) {
            figures.append(Figure(name: "shim " + name.replacingOccurrences(of: "/real_time", with: ""), value: time * Self.seconds(unit),
                                  unit: "s", noise: cvs[name] ?? 0.1))
        }
    }

    static func seconds(_ unit: String) -> Double {
        switch unit { case "ns": 1e-9; case "us", "μs": 1e-6; case "ms": 1e-3; default: 1 }
    }

    /// package-benchmark's JMH export: wall-clock p50 (noise: (p90 − p50)/p50, the export has no
    /// quartiles), mallocs p50.
    mutating func readJMH(_ json: JSON) {
        for benchmark in json.arrayValue ?? [] {
            guard var name = benchmark["benchmark"]?.stringValue else { continue }
            name = Self.withoutTags(name.replacingOccurrences(of: "package.benchmark.EngineBenchmarks.", with: "").replacingOccurrences(of: "_", with: " "))
            for (metric, data) in benchmark["secondaryMetrics"]?.objectValue ?? [] {
                guard let p = data["scorePercentiles"], let p50 = p["50.0"]?.numberValue else { continue }
                let unit = data["scoreUnit"]?.stringValue ?? ""
                if metric.hasPrefix("Time (wall clock)") {
                    let p90 = p["90.0"]?.numberValue ?? p50
                    let noise = p50 > 0 ? max((p90 - p50) / p50, 0.01) : 0.1
                    figures.append(Figure(name: "swift " + name, value: p50 * Self.seconds(unit), unit: "s", noise: noise))
                } else if metric.hasPrefix("Malloc (total)") {
                    figures.append(Figure(name: "swift " + name + " mallocs", value: p50, unit: "count", noise: 0))
                }
            }
        }
    }

    /// A benchmark's name without the tags package-benchmark appends (build, evaluations,
    /// threads, properties).
    static func withoutTags(_ name: String) -> String {
        guard let tags = name.range(of: " (build:") ?? name.range(of: " (evaluations:") ?? name.range(of: " (threads:")
            ?? name.range(of: " (properties:") else { return name }
        return String(name[..<tags.lowerBound])
    }

    /// The suites run without the benchmark plugin (the CI smoke: `EngineBenchmarks --quiet true`,
    /// which prints each benchmark's histograms): the malloc count's median per benchmark, named
    /// as ``readJMH(_:)`` names them. Times are left out: the smoke measures each benchmark a
    /// quarter second, and its figures serve no comparison.
    mutating func readStandalone(_ text: String) {
        var name: String?, inMallocs = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("Debug results for "), line.hasSuffix(":") {
                (name, inMallocs) = (Self.withoutTags(String(line.dropFirst("Debug results for ".count).dropLast())), false)
            } else if line.hasPrefix("Malloc (total)") {
                inMallocs = true
            } else if inMallocs, let n = name {
                // Histogram rows: value, percentile, count, 1/(1 − percentile); the first row at
                // or past the 50th percentile holds the median.
                let fields = line.split(separator: " ").compactMap { Double($0) }
                guard fields.count >= 2, fields[1] >= 0.5 else { continue }
                figures.append(Figure(name: "swift " + n + " mallocs", value: fields[0], unit: "count", noise: 0))
                inMallocs = false
            }
        }
    }

    /// batch-figures --json: W1 and W2 beside the scalar reference, errors as fractions of the contract.
    mutating func readFigures(_ json: JSON, build: String) {
        let prefix = "figures \(build) "
        if let w1 = json["w1"] {
            for (key, name) in [("nanosecondsPerEvaluation1Thread", "W1 ns/eval 1 thread"), ("nanosecondsPerEvaluation2Threads", "W1 ns/eval 2 threads"),
                                ("referenceNanosecondsPerEvaluation", "W1 reference ns/eval")] {
                if let v = w1[key]?.numberValue { figures.append(Figure(name: prefix + name, value: v, unit: "ns", noise: 0.2)) }
            }
            if let v = w1["maximumError"]?.numberValue { figures.append(Figure(name: prefix + "W1 max error", value: v, unit: "", noise: 0)) }
        }
        for run in json["w2"]?.arrayValue ?? [] {
            guard let threads = run["threads"]?.numberValue, let p50 = run["frames"]?["p50Seconds"]?.numberValue,
                  let properties = run["properties"]?.numberValue else { continue }
            let label = "W2 frame \(Int(properties)) properties, \(Int(threads)) thread\(threads == 1 ? "" : "s")"
            figures.append(Figure(name: prefix + label, value: p50, unit: "s", noise: 0.2))
            if let a = run["allocationsPerFrame"]?.numberValue {
                figures.append(Figure(name: prefix + label + " allocations", value: a, unit: "count", noise: 0))
            }
        }
        for (key, name) in [("speedupOverReference2Threads", "W2 speed-up over reference"), ("scalingOneToTwoThreads", "W2 1→2 threads")] {
            if let v = json[key]?.numberValue { figures.append(Figure(name: prefix + name, value: v, unit: "×", noise: 0.2, smallerIsBetter: false)) }
        }
        if let v = json["reference"]?["maximumErrorOfTolerance"]?.numberValue {
            figures.append(Figure(name: prefix + "W2 max error (fraction of the table)", value: v, unit: "", noise: 0))
        }
    }

    /// Instruction counts from callgrind: deterministic, so any change is real.
    mutating func readInstructions(_ json: JSON) {
        for (workload, data) in json.objectValue ?? [] {
            guard let instructions = data["instructions"]?.numberValue, let evaluations = data["evaluations"]?.numberValue, evaluations > 0 else { continue }
            figures.append(Figure(name: "instructions/eval \(workload)", value: instructions / evaluations, unit: "", noise: 0.001))
        }
    }
}

extension JSON {
    subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.last { $0.0 == key }?.1 }
        return nil
    }
    var arrayValue: [JSON]? { if case .array(let a) = self { return a } else { return nil } }
    var objectValue: [(String, JSON)]? { if case .object(let o) = self { return o } else { return nil } }
    var numberValue: Double? { if case .number(let n) = self { return n } else { return nil } }
    var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
}

// MARK: Formatting

func format(_ f: Figure) -> String { format(f.value, unit: f.unit) }

func format(_ v: Double, unit: String) -> String {
    switch unit {
    case "s":
        if v >= 1 { return String(format: "%.2f s", v) }
        if v >= 1e-3 { return String(format: "%.3f ms", v * 1e3) }
        if v >= 1e-6 { return String(format: "%.2f µs", v * 1e6) }
        return String(format: "%.1f ns", v * 1e9)
    case "ns": return String(format: "%.2f ns", v)
    case "×": return String(format: "%.2f×", v)
    case "count": return String(format: "%.0f", v)
    default: return abs(v) < 1e-3 && v != 0 ? String(format: "%.2e", v) : String(format: "%.3f", v)
    }
}

/// Horizontal bars on a logarithmic or linear scale, one per labelled value; `lines` are
/// reference values drawn as labelled vertical lines across the bars.
func barChart(title: String, unit: String, bars: [(label: String, value: Double)], log: Bool,
              lines: [(value: Double, label: String)] = []) -> String {
    let rowHeight = 26.0, left = 300.0, width = 820.0, plotWidth = width - left - 90
    let height = 50 + rowHeight * Double(bars.count) + 20
    let values = (bars.map(\.value) + lines.map(\.value)).filter { $0 > 0 && $0.isFinite }
    let high = values.max() ?? 1, low = log ? (values.min() ?? 1) / 2 : 0
    func x(_ v: Double) -> Double {
        guard v > 0 else { return 0 }
        if log { return plotWidth * (Foundation.log10(v) - Foundation.log10(low)) / max(Foundation.log10(high * 1.05) - Foundation.log10(low), 1e-9) }
        return plotWidth * v / (high * 1.05)
    }
    var body = "<text x=\"\(SVG.number(width / 2))\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">\(SVG.escape(title))</text>\n"
    if log {
        // An axis of decades: on a log scale bar lengths are not proportional (1.02 against
        // 95.43 ns had looked like 1:4), so each decade is drawn and labelled across the bars.
        let bottom = 40 + Double(bars.count) * rowHeight
        var e = Foundation.floor(Foundation.log10(low)) + 1
        while e <= Foundation.log10(high * 1.05) && e < 400 {
            let v = Foundation.pow(10, e), gx = left + x(v)
            let label = unit == "s" ? format(v, unit: unit) : "\(SVG.number(v)) \(unit)"
            body += "<line x1=\"\(SVG.number(gx))\" y1=\"38\" x2=\"\(SVG.number(gx))\" y2=\"\(SVG.number(bottom))\" stroke=\"#dddddd\"/>\n"
            body += "<text x=\"\(SVG.number(gx))\" y=\"35\" text-anchor=\"middle\" font-size=\"10\" fill=\"#888888\">\(SVG.escape(label))</text>\n"
            e += 1
        }
    }
    for (k, bar) in bars.enumerated() {
        let y = 40 + Double(k) * rowHeight
        let color = SVGChart.palette[k % SVGChart.palette.count]
        body += "<text x=\"\(SVG.number(left - 8))\" y=\"\(SVG.number(y + 16))\" text-anchor=\"end\">\(SVG.escape(bar.label))</text>\n"
        body += "<rect x=\"\(SVG.number(left))\" y=\"\(SVG.number(y + 3))\" width=\"\(SVG.number(max(x(bar.value), 1)))\" height=\"\(SVG.number(rowHeight - 8))\" fill=\"\(color)\"/>\n"
        body += "<text x=\"\(SVG.number(left + max(x(bar.value), 1) + 6))\" y=\"\(SVG.number(y + 16))\">\(SVG.escape(format(bar.value, unit: unit)))</text>\n"
    }
    for line in lines where line.value > 0 {
        let lx = left + x(line.value), bottom = 40 + Double(bars.count) * rowHeight
        body += "<line x1=\"\(SVG.number(lx))\" y1=\"34\" x2=\"\(SVG.number(lx))\" y2=\"\(SVG.number(bottom))\" stroke=\"#333333\" stroke-dasharray=\"4 3\"/>\n"
        body += "<text x=\"\(SVG.number(lx + 3))\" y=\"\(SVG.number(bottom + 12))\" fill=\"#333333\">\(SVG.escape(line.label))</text>\n"
    }
    body += "<text x=\"\(SVG.number(left))\" y=\"\(SVG.number(height - 6))\" fill=\"#666666\">\(log ? "logarithmic scale" : "linear scale")</text>\n"
    return """
    <svg xmlns="http://www.w3.org/2000/svg" width="\(SVG.number(width))" height="\(SVG.number(height))" viewBox="0 0 \(SVG.number(width)) \(SVG.number(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
    <rect width="100%" height="100%" fill="#ffffff"/>
    \(body)</svg>

    """
}

// MARK: summarize

struct Summarize: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write README.md and SVG charts into a report folder.")

    @Argument(help: "The report folder (perf-reports/<date>-<commit>).")
    var folder: String

    func run() throws {
        let url = URL(fileURLWithPath: folder)
        let report = try Report(folder: url)
        var charts: [(String, String)] = []

        // ns per evaluation per variant (W1, same run).
        var w1: [(label: String, value: Double)] = []
        if let v = report.value("shim W1/engine/1") { w1.append(("engine (C interface), 1 thread", v * 1e9 / shimW1Count(report))) }
        if let v = report.value("shim W1/engine/2") { w1.append(("engine (C interface), 2 threads", v * 1e9 / shimW1Count(report))) }
        if let v = report.value("shim W1/soaPlainCxx") { w1.append(("plain C++ SoA loop (c), 1 thread", v * 1e9 / shimW1Count(report))) }
        if let v = report.value("shim W1/scalarBrowserSolver") { w1.append(("C++ browser-class solver (a)", v * 1e9 / shimW1Count(report))) }
        if let v = report.value("figures native W1 reference ns/eval") { w1.append(("Swift scalar reference (Double)", v)) }
        if !w1.isEmpty {
            charts.append(("w1-ns-per-evaluation.svg", barChart(title: "W1 timing curves: ns per evaluation (lower is better)", unit: "ns", bars: w1, log: true)))
        }

        // Frame time against N, log–log: the engine on 1 and 2 threads and the C++ baselines.
        var series: [SVGChart.Series] = []
        // Shim names: mix/<variant>/<size>/<index>[/<threads>].
        for (label, variant, suffix) in [("engine, 1 thread", "engine", "/1"), ("engine, 2 threads", "engine", "/2"),
                                         ("object per animation (b)", "objectPerAnimation", ""), ("plain C++ SoA (c)", "soaPlainCxx", "")] {
            let points = mixSizes(report).compactMap { n -> (x: Double, y: Double)? in
                report.figures.first { $0.name.hasPrefix("shim mix/\(variant)/\(n)/") && $0.name.hasSuffix(suffix) }
                    .map { (Double(n), $0.value * 1e3) }
            }
            if !points.isEmpty { series.append(.init(name: label, points: points, style: .lineAndPoints)) }
        }
        let swiftW2 = [10_000, 100_000, 1_000_000].compactMap { n -> (x: Double, y: Double)? in
            report.value("swift W2 frame (\(n) properties), 1 thread").map { (Double(n), $0 * 1e3) }
        }
        if !swiftW2.isEmpty { series.append(.init(name: "W2 (package-benchmark), 1 thread", points: swiftW2, style: .dashed)) }
        if !series.isEmpty {
            charts.append(("frame-time-vs-n.svg", SVGChart(title: "Frame time against animated properties", xLabel: "properties",
                                                           yLabel: "frame time (ms)", series: series, xScale: .log, yScale: .log,
                                                           width: 760, height: 460).svg))
        }

        // 1 vs 2 cores.
        var scaling: [(label: String, value: Double)] = []
        for f in report.figures where f.name.hasPrefix("swift ") && f.name.hasSuffix("1 thread") && f.unit == "s" {
            let two = f.name.replacingOccurrences(of: "1 thread", with: "2 threads")
            if let v = report.value(two), v > 0 {
                scaling.append((String(f.name.dropFirst(6).dropLast(10)), f.value / v))
            }
        }
        if !scaling.isEmpty {
            charts.append(("one-vs-two-cores.svg", barChart(title: "Speed-up from 1 to 2 threads (2.0 is perfect)", unit: "×", bars: scaling, log: false,
                                                            lines: [(1, "1.0: no gain"), (2, "2.0: perfect")])))
        }
        for (name, svg) in charts { try svg.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        try markdown(report, charts: charts.map(\.0)).write(to: url.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        print("wrote README.md and \(charts.count) charts to \(url.path)")
    }

    func shimW1Count(_ report: Report) -> Double { Double(report.environment["shimW1Size"] ?? "") ?? 1_048_576 }

    func mixSizes(_ report: Report) -> [Int] {
        (report.environment["shimMixSizes"] ?? "10000,100000,1000000").split(separator: ",").compactMap { Int($0) }
    }

    /// The AnimationBatch issue's goals against this run's figures (native build where measured).
    func goals(_ report: Report) -> String {
        var rows: [String] = []
        func row(_ goal: String, _ measured: String, _ met: Bool?) {
            rows.append("| \(goal) | \(measured) | \(met.map { $0 ? "met" : "**not met**" } ?? "–") |")
        }
        if let w1 = report.value("figures native W1 ns/eval 1 thread") {
            let shim = report.value("shim W1/engine/1").map { String(format: "; %.2f ns through the C interface", $0 * 1e9 / shimW1Count(report)) } ?? ""
            row("W1: ≤ 1.5 ns per evaluation per core, max error ≤ 2e-5",
                String(format: "%.2f ns (native, 1 thread%@), max error %.1e: %.1f× the goal", w1, shim, report.value("figures native W1 max error") ?? .nan, w1 / 1.5),
                w1 <= 1.5)
        }
        let w2Native = report.figures.first { $0.name.hasPrefix("figures native W2 frame 1000000") && $0.name.hasSuffix("2 threads") }?.value
        let w2Portable = report.value("swift W2 frame (1000000 properties), 2 threads")
        if let v = w2Native ?? w2Portable {
            row("W2: a frame of 1,000,000 properties ≤ 4 ms on 2 cores",
                String(format: "%@ (%@): %.1f× the goal%@", format(v, unit: "s"), w2Native != nil ? "native" : "portable", v / 0.004,
                       w2Portable.map { ", portable package-benchmark " + format($0, unit: "s") } ?? ""),
                v <= 0.004)
        }
        if let speedup = report.value("figures native W2 speed-up over reference") {
            row("W2: ≥ 20× the scalar reference", String(format: "%.0f× (native, 2 threads)", speedup), speedup >= 20)
        }
        var scaling: [String] = []
        var best = 0.0
        if let s = report.value("figures native W2 1→2 threads") { scaling.append(String(format: "%.2f× native", s)); best = max(best, s) }
        if let s = report.value("figures portable W2 1→2 threads") { scaling.append(String(format: "%.2f× portable", s)); best = max(best, s) }
        if let one = report.value("swift W2 frame (1000000 properties), 1 thread"), let two = report.value("swift W2 frame (1000000 properties), 2 threads") {
            scaling.append(String(format: "%.2f× package-benchmark (portable)", one / two))
        }
        if !scaling.isEmpty {
            let native = report.value("figures native W2 1→2 threads") ?? best
            row("W2: ≥ 1.7× from 1 to 2 cores", scaling.joined(separator: ", "), native >= 1.7)
        }
        let allocations = steadyStateFrameAllocations(report)
        if !allocations.isEmpty {
            let worst = allocations.map(\.value).max() ?? 0
            row("0 allocations per steady-state frame", "\(allocations.count) frame benchmarks, the most: \(Int(worst))", worst == 0)
        }
        guard !rows.isEmpty else { return "" }
        return "## Against the goals of the AnimationBatch issue\n\n| goal | measured in this run | |\n|---|---|---|\n" + rows.joined(separator: "\n") + "\n\n"
    }

    func markdown(_ report: Report, charts: [String]) -> String {
        let e = report.environment
        var out = "# Benchmark report — \(e["date"] ?? "?"), commit \(e["commit"] ?? "?")\n\n"
        out += "Machine: \(e["cpu"] ?? "?"), \(e["processors"] ?? "?") processors; \(e["os"] ?? "")\(e["swift"].map { ", " + $0 } ?? "").\n"
        out += "Builds: engine `\(e["engineBuild"] ?? "?")`; C++ shim baselines `-O3 -march=native`.\n"
        out += "Every ratio below compares figures measured in the same run. Raw data: `shim.json` (google benchmark, "
        out += "\(e["repetitions"] ?? "?") repetitions), `swift.jmh.json` (package-benchmark), `figures-*.json` (batch-figures), "
        out += "`instructions.json` (callgrind).\n\n"
        out += goals(report)
        for chart in charts { out += "![\(chart)](\(chart))\n\n" }

        out += "## W1: timing curves (\(Int(shimW1Count(report))) evaluations, through the C interface)\n\n| variant | time per pass | ns/eval | vs engine (1 thread) |\n|---|---|---|---|\n"
        let engine1 = report.value("shim W1/engine/1")
        for (name, label) in [("shim W1/engine/1", "engine, 1 thread"), ("shim W1/engine/2", "engine, 2 threads"),
                              ("shim W1/soaPlainCxx", "(c) plain C++ SoA loop, -O3 -march=native"),
                              ("shim W1/scalarBrowserSolver", "(a) C++ browser-class scalar solver")] {
            guard let v = report.value(name) else { continue }
            out += "| \(label) | \(format(v, unit: "s")) | \(String(format: "%.2f", v * 1e9 / shimW1Count(report))) | "
            out += engine1.map { String(format: "%.2f×", v / $0) } ?? "–"
            out += " |\n"
        }
        if let engine1, let scalar = report.value("shim W1/scalarBrowserSolver") {
            out += "\nThe engine is **\(String(format: "%.1f", scalar / engine1))×** the C++ scalar solver on one thread. "
        }
        if let native = report.value("figures native W1 ns/eval 1 thread") {
            out += "batch-figures (native build, same machine): \(String(format: "%.2f", native)) ns/eval on one thread; "
            out += "goal (AnimationBatch issue) ≤ 1.5 ns per evaluation per core: "
            out += native <= 1.5 ? "met.\n" : "**not met** (\(String(format: "%.1f", native / 1.5))× the goal).\n"
        }

        out += "\n## Mixed frames (basic widths 1/2/4 and springs, one per layer, through the C interface)\n\n"
        out += "| properties | engine, 1 thread | engine, 2 threads | (b) object per animation | (c) plain C++ SoA | engine (2 threads) vs (b) | vs (c) |\n|---|---|---|---|---|---|---|\n"
        for n in mixSizes(report) {
            let e1 = report.figures.first { $0.name.hasPrefix("shim mix/engine/\(n)/") && $0.name.hasSuffix("/1") }?.value
            let e2 = report.figures.first { $0.name.hasPrefix("shim mix/engine/\(n)/") && $0.name.hasSuffix("/2") }?.value
            let b = report.figures.first { $0.name.hasPrefix("shim mix/objectPerAnimation/\(n)") }?.value
            let c = report.figures.first { $0.name.hasPrefix("shim mix/soaPlainCxx/\(n)") }?.value
            func cell(_ v: Double?) -> String { v.map { format($0, unit: "s") } ?? "–" }
            func ratio(_ a: Double?, _ b: Double?) -> String { (a != nil && b != nil) ? String(format: "%.1f×", b! / a!) : "–" }
            out += "| \(n) | \(cell(e1)) | \(cell(e2)) | \(cell(b)) | \(cell(c)) | \(ratio(e2, b)) | \(ratio(e2, c)) |\n"
        }

        out += "\n## Swift suites (package-benchmark: wall-clock p50, spread as (p90 − p50)/p50)\n\n| benchmark | p50 | spread | mallocs |\n|---|---|---|---|\n"
        for f in report.figures.sorted(by: { $0.name < $1.name }) where f.name.hasPrefix("swift ") && f.unit == "s" {
            let mallocs = report.value(f.name + " mallocs").map { String(format: "%.0f", $0) } ?? "–"
            out += "| \(f.name.dropFirst(6)) | \(format(f)) | \(String(format: "%.0f %%", f.noise * 100)) | \(mallocs) |\n"
        }
        let batchFigures = report.figures.filter { $0.name.hasPrefix("figures ") }
        if !batchFigures.isEmpty {
            out += "\n## batch-figures (W1 1M, W2 1M, native and portable builds)\n\n| figure | value |\n|---|---|\n"
            for f in batchFigures { out += "| \(f.name.dropFirst(8)) | \(format(f)) |\n" }
        }
        let instructions = report.figures.filter { $0.name.hasPrefix("instructions/eval") }
        if !instructions.isEmpty {
            out += "\n## Instructions per evaluation (callgrind, portable build: deterministic)\n\n| workload | instructions |\n|---|---|\n"
            for f in instructions { out += "| \(f.name.dropFirst(18)) | \(String(format: "%.1f", f.value)) |\n" }
        }
        return out
    }
}

// MARK: compare

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print and write the changes between two report folders, flagging those beyond the measured noise.",
        discussion: """
        A change is flagged when it exceeds three times the larger of the two runs' measured noise
        (google benchmark's coefficient of variation over repetitions, package-benchmark's
        interquartile spread), and at least 5 % for timings; instruction counts are deterministic,
        so any change above 0.5 % is flagged. Allocation counts are flagged on any change.
        """
    )

    @Argument(help: "The older report folder.")
    var old: String

    @Argument(help: "The newer report folder (the comparison is written into it).")
    var new: String

    func run() throws {
        let a = try Report(folder: URL(fileURLWithPath: old)), b = try Report(folder: URL(fileURLWithPath: new))
        var lines = ["# \(b.folder.lastPathComponent) against \(a.folder.lastPathComponent)", "",
                     "| figure | \(a.folder.lastPathComponent) | \(b.folder.lastPathComponent) | change | noise bound | |", "|---|---|---|---|---|---|"]
        for key in ["scale", "shimW1Size", "shimMixSizes", "cpu", "processors"] where a.environment[key] != b.environment[key] {
            lines.insert("warning: the runs differ in \(key) (\(a.environment[key] ?? "?") against \(b.environment[key] ?? "?")): figures of the same name may not measure the same work or machine.\n", at: 2)
        }
        var flagged = 0
        for f in b.figures {
            guard let before = a.figure(f.name) else { continue }
            let change = before.value != 0 ? (f.value - before.value) / abs(before.value) : (f.value == 0 ? 0 : .infinity)
            let bound: Double
            switch f.unit {
            case "count": bound = 0
            case "": bound = f.name.hasPrefix("instructions") ? 0.005 : 0.10
            default: bound = max(3 * max(f.noise, before.noise), 0.05)
            }
            let beyond = abs(change) > bound
            let worse = f.smallerIsBetter ? change > 0 : change < 0
            let mark = beyond ? (worse ? "**slower/worse**" : "faster/better") : ""
            if beyond { flagged += 1 }
            lines.append("| \(f.name) | \(format(before)) | \(format(f)) | \(String(format: "%+.1f %%", change * 100)) | ±\(String(format: "%.0f", bound * 100)) % | \(mark) |")
        }
        lines.append("")
        lines.append("\(flagged) change\(flagged == 1 ? "" : "s") beyond the measured noise.")
        let text = lines.joined(separator: "\n") + "\n"
        print(text, terminator: "")
        try text.write(to: b.folder.appendingPathComponent("compare-\(a.folder.lastPathComponent).md"), atomically: true, encoding: .utf8)
    }
}

// MARK: check

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fail (exit 1) when a ratio measured in one run falls below its floor.",
        discussion: """
        Ratios, not absolute times (the machines are shared and noisy): the engine against the C++
        scalar timing solver on W1, one thread (floor --w1-floor); the engine's mixed frame on
        2 threads against the object-per-animation baseline (floor --mix-floor); and 0 allocations
        in every steady-state frame benchmark of the Swift suites and batch-figures.
        """
    )

    @Argument(help: "The report folder.")
    var folder: String

    @Option(help: "Minimum engine speed-up over the C++ browser-class solver on W1 (1 thread).")
    var w1Floor: Double = 5

    @Option(help: "Minimum engine (2 threads) speed-up over the object-per-animation baseline on the largest mix.")
    var mixFloor: Double = 1

    func run() throws {
        let report = try Report(folder: URL(fileURLWithPath: folder))
        var failures: [String] = []
        if let engine = report.value("shim W1/engine/1"), let scalar = report.value("shim W1/scalarBrowserSolver") {
            let ratio = scalar / engine
            print(String(format: "W1: engine %.1f× the C++ scalar solver (floor %.1f×)", ratio, w1Floor))
            if ratio < w1Floor { failures.append(String(format: "W1 ratio %.2f× is below the floor %.1f×", ratio, w1Floor)) }
        } else {
            failures.append("no W1 figures from the shim")
        }
        let sizes = report.figures.compactMap { f -> Int? in
            guard f.name.hasPrefix("shim mix/objectPerAnimation/") else { return nil }
            return Int(f.name.split(separator: "/")[2])
        }
        if let n = sizes.max(), let engine = report.figures.first(where: { $0.name.hasPrefix("shim mix/engine/\(n)/") && $0.name.hasSuffix("/2") })?.value,
           let objects = report.figures.first(where: { $0.name.hasPrefix("shim mix/objectPerAnimation/\(n)") })?.value {
            let ratio = objects / engine
            print(String(format: "mix of %d: engine (2 threads) %.1f× the object-per-animation baseline (floor %.1f×)", n, ratio, mixFloor))
            if ratio < mixFloor { failures.append(String(format: "mix ratio %.2f× is below the floor %.1f×", ratio, mixFloor)) }
        }
        let frameMallocs = steadyStateFrameAllocations(report)
        for f in frameMallocs where f.value != 0 { failures.append("\(f.name): \(Int(f.value)) per frame, expected 0") }
        print("allocations: \(frameMallocs.count) frame benchmarks checked, \(frameMallocs.filter { $0.value != 0 }.count) allocate")
        if !failures.isEmpty {
            for f in failures { print("FAILED: \(f)") }
            throw ExitCode(1)
        }
        print("all floors met")
    }
}

/// The allocation counts of the engine's steady-state frames: what must be 0. Left out: the
/// scalar reference (allocates by design), the Dispatch scheduler's frames (Dispatch's
/// concurrentPerform allocates on Linux), and benchmarks that change animations (adding and
/// replacing compile and allocate by design).
func steadyStateFrameAllocations(_ report: Report) -> [Figure] {
    report.figures.filter { f in
        f.unit == "count" && !f.name.contains("reference") && !f.name.contains("Dispatch scheduler")
            && (f.name.hasSuffix("mallocs") && (f.name.contains("frame") || f.name.contains("family") || f.name.contains("W3"))
                || f.name.hasSuffix("allocations"))
    }
}
