import AnimationLottie
import AnimationScene
import ArgumentParser
import Foundation

/// `perf-report lottie DIR`: the Lottie report (Benchmarks/run-lottie-report.sh) as tables and
/// charts — every real file with its size and both ticks, and the generated files' tick against
/// the instance count beside rlottie's.
struct LottieSummary: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lottie",
        abstract: "Write lottie-summary.md and SVG charts into a Lottie report folder.",
        discussion: """
        Reads lottie-real.json (real files: ours on 1 and 2 threads beside rlottie on one) and
        lottie-shim.json (the generated files at every instance count), whichever the folder holds.
        Each file's layers, paths, paints, trims and keyframes are counted from the file itself
        (--real names the folder the real files were read from; they are not in the repository).
        """
    )

    @Argument(help: "The report folder (perf-reports/<date>-lottie-<commit>).")
    var folder: String

    @Option(help: "The folder of the real files the report measured, to count what each holds.")
    var real: String?

    /// A tick's median over the repetitions (or its only run), in milliseconds, by row name.
    static func ticks(_ json: JSON?) -> [String: Double] {
        var medians: [String: Double] = [:], singles: [String: [Double]] = [:]
        for run in json?["benchmarks"]?.arrayValue ?? [] {
            guard var name = run["run_name"]?.stringValue, let time = run["real_time"]?.numberValue else { continue }
            name = name.replacingOccurrences(of: "/real_time", with: "")
            let milliseconds = time * Report.seconds(run["time_unit"]?.stringValue ?? "ns") * 1e3
            if run["run_type"]?.stringValue == "aggregate" {
                if run["aggregate_name"]?.stringValue == "median" { medians[name] = milliseconds }
            } else if run["error_occurred"] == nil {
                singles[name, default: []].append(milliseconds)
            }
        }
        for (name, values) in singles where medians[name] == nil {
            let sorted = values.sorted()
            medians[name] = sorted[sorted.count / 2]
        }
        return medians
    }

    func run() throws {
        let url = URL(fileURLWithPath: folder)
        let real = Self.ticks(try Report.json(url, "lottie-real.json"))
        let generated = Self.ticks(try Report.json(url, "lottie-shim.json"))
        guard !real.isEmpty || !generated.isEmpty else {
            throw ValidationError("'\(folder)' holds neither lottie-real.json nor lottie-shim.json with ticks")
        }
        var text = "# Lottie ticks beside rlottie\n\n"
        if !real.isEmpty { text += try realSection(real, into: url) }
        if !generated.isEmpty { text += try generatedSection(generated, into: url) }
        try text.write(to: url.appendingPathComponent("lottie-summary.md"), atomically: true, encoding: .utf8)
        print("wrote lottie-summary.md and its charts to \(folder)")
    }

    /// Per real file: what it holds, our tick on one and two threads, rlottie's, the ratio.
    func realSection(_ ticks: [String: Double], into url: URL) throws -> String {
        // Rows: tick/ours-real/NAME/N/threads:T and tick/rlottie-real/NAME/N/threads:1.
        var rows: [(name: String, n: Int, ours: Double, ours2: Double?, theirs: Double)] = []
        for (row, ours) in ticks where row.hasPrefix("tick/ours-real/") && row.hasSuffix("/threads:1") {
            let parts = row.split(separator: "/")
            guard parts.count == 5, let n = Int(parts[3]) else { continue }
            let name = String(parts[2])
            guard let theirs = ticks["tick/rlottie-real/\(name)/\(n)/threads:1"] else { continue }
            rows.append((name, n, ours, ticks["tick/ours-real/\(name)/\(n)/threads:2"], theirs))
        }
        rows.sort { ($0.n, $1.theirs / $1.ours, $0.name) < ($1.n, $0.theirs / $0.ours, $1.name) }
        var text = """
        ## Real files

        Each instance at its own whole frame, one tick = every instance's frame set and evaluated;
        ours through the C interface (the file read leniently), rlottie's `renderTree` per instance
        with its own parsed model; medians of the repetitions. Layers count a precomposition's
        layers once per layer showing it.

        | file | layers | paths | paints | trims | keyframes | N | ours, 1 thread (ms) | rlottie, 1 thread (ms) | rlottie ÷ ours | ours, 2 threads (ms) | 1 → 2 threads |
        |---|---|---|---|---|---|---|---|---|---|---|---|

        """
        for r in rows {
            var counts = "–|–|–|–|–"
            if let folder = real {
                let file = URL(fileURLWithPath: folder).appendingPathComponent(r.name + ".json")
                if let json = try? String(contentsOf: file, encoding: .utf8), let animation = try? LottieAnimation(json: json, lenient: true) {
                    let s = animation.statistics
                    counts = "\(s.layers)|\(s.paths)|\(s.paints)|\(s.trims)|\(s.keyframes)"
                }
            }
            let two = r.ours2.map { String(format: "%.3f|%.2f×", $0, r.ours / $0) } ?? "–|–"
            text += "| \(r.name)|\(counts)|\(r.n)|\(String(format: "%.3f", r.ours))|\(String(format: "%.3f", r.theirs))|"
                + "**\(String(format: "%.2f", r.theirs / r.ours))×**|\(two) |\n"
        }
        for n in Set(rows.map(\.n)).sorted() {
            let ratios = rows.filter { $0.n == n }.map { $0.theirs / $0.ours }.sorted()
            guard !ratios.isEmpty else { continue }
            let product = ratios.reduce(0) { $0 + Foundation.log($1) }
            text += "\nAt \(n) instances: \(ratios.count) files, rlottie ÷ ours from \(String(format: "%.2f", ratios.first!))× to "
                + "\(String(format: "%.2f", ratios.last!))×, geometric mean \(String(format: "%.2f", Foundation.exp(product / Double(ratios.count))))×; "
                + "\(ratios.filter { $0 >= 5 }.count) of them at least 5×, \(ratios.filter { $0 >= 10 }.count) at least 10×.\n"
            let bars = rows.filter { $0.n == n }.map { (label: $0.name, value: $0.theirs / $0.ours) }
            let chart = barChart(title: "Real files, \(n) instances, one thread: rlottie's tick ÷ ours (higher is better)", unit: "×",
                                 bars: bars, log: true, lines: [(1, "1× (as fast)"), (5, "5×"), (10, "10×")])
            try chart.write(to: url.appendingPathComponent("lottie-real-\(n).svg"), atomically: true, encoding: .utf8)
            text += "\n![rlottie ÷ ours per real file](lottie-real-\(n).svg)\n"
        }
        return text + "\n"
    }

    /// The generated files: tick against instance count, ours and rlottie, one and two threads.
    func generatedSection(_ ticks: [String: Double], into url: URL) throws -> String {
        var files: [String: [String: [(x: Double, y: Double)]]] = [:]
        let engines = [("ours", "ours"), ("rlottie", "rlottie")]
        for (row, ms) in ticks {
            let parts = row.split(separator: "/")
            guard parts.count == 5, parts[0] == "tick", let n = Double(parts[3]),
                  let engine = engines.first(where: { $0.0 == parts[1] })?.1 else { continue }
            files[String(parts[2]), default: [:]]["\(engine), \(parts[4] == "threads:1" ? "1 thread" : "2 threads")", default: []].append((n, ms))
        }
        var charts: [SVGChart] = []
        var text = "## Generated files: tick against instances\n\n"
        for (name, series) in files.sorted(by: { $0.key < $1.key }) {
            let lines = series.sorted { $0.key < $1.key }.map { SVGChart.Series(name: $0.key, points: $0.value.sorted { $0.x < $1.x },
                                                                                  style: $0.key.hasPrefix("ours") ? .lineAndPoints : .dashed) }
            charts.append(SVGChart(title: "\(name): ms per tick", xLabel: "instances (each at its own frame)", yLabel: "ms per tick",
                                   series: lines, xScale: .log, yScale: .log, width: 520, height: 360))
        }
        if !charts.isEmpty {
            try SVGChart.grid(charts, columns: 2).write(to: url.appendingPathComponent("lottie-ticks.svg"), atomically: true, encoding: .utf8)
            text += "![ms per tick against instances, ours beside rlottie](lottie-ticks.svg)\n\n"
        }
        return text
    }
}
