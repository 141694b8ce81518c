import AnimationScene
import ArgumentParser
import Foundation

/// `perf-report layertree DIR`: a LayerTree report folder's `animation-engine bench --scene seeds
/// --json` runs as a table and two charts — the tick (with the bulk read) against the number of
/// layers, and each run's churn ticks against its quiet ones.
struct LayerTreeSummary: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layertree",
        abstract: "Write layertree-summary.md and SVG charts into a LayerTree report folder.",
        discussion: """
        Reads every LABEL-runN.json in the folder (`animation-engine bench --scene seeds --layers \
        N --threads T --json`, each with the LayerTree tick figures). Runs with the same label \
        and layer count are taken together: the table gives their range, the charts their \
        medians.
        """)

    @Argument(help: "The report folder (perf-reports/<date>-layertree-<n>).")
    var folder: String

    struct Run {
        var label: String
        var layers: Double
        var tick: Double
        var engine: Double
        var churn: Double
        var quiet: Double
        var changes: Double
        var changed: Double
    }

    func run() throws {
        let url = URL(fileURLWithPath: folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        var runs: [Run] = []
        for name in names {
            guard let json = try Report.json(url, name), let tick = json["tickEndToEndP50Seconds"]?.numberValue,
                  let layers = json["layers"]?.numberValue else { continue }
            let label = name.components(separatedBy: "-run").first ?? name
            runs.append(Run(label: label, layers: layers, tick: tick, engine: json["engineEndToEndP50Seconds"]?.numberValue ?? .nan,
                            churn: json["churnTickP50Seconds"]?.numberValue ?? .nan, quiet: json["quietTickP50Seconds"]?.numberValue ?? .nan,
                            changes: json["churnChangesP50Seconds"]?.numberValue ?? .nan,
                            changed: json["layersChangedPerChurnTick"]?.numberValue ?? .nan))
        }
        guard !runs.isEmpty else { throw ValidationError("'\(folder)' holds no bench run with LayerTree tick figures") }
        let groups = Dictionary(grouping: runs) { "\($0.label)|\(Int($0.layers))" }
            .map { (label: $0.value[0].label, layers: $0.value[0].layers, runs: $0.value) }
            .sorted { ($0.label, $0.layers) < ($1.label, $1.layers) }
        func median(_ v: [Double]) -> Double { let s = v.filter(\.isFinite).sorted(); return s.isEmpty ? .nan : s[s.count / 2] }
        func range(_ v: [Double], scale: Double = 1e3, _ digits: Int = 3) -> String {
            let s = v.filter(\.isFinite).sorted()
            guard let lo = s.first, let hi = s.last else { return "—" }
            let f = "%.\(digits)f"
            return lo == hi ? String(format: f, lo * scale) : String(format: "\(f)–\(f)", lo * scale, hi * scale)
        }
        var text = "# LayerTree ticks\n\n"
        text += "p50 of each run's ticks, 2 threads unless the run says otherwise; ranges over the runs of each row.\n\n"
        text += "| runs | layers | tick + bulk read (ms) | engine frame + bulk read (ms) | tick ÷ engine | churn tick (ms) | quiet tick (ms) | churn ÷ quiet | the changes alone (µs each) |\n"
        text += "|---|---|---|---|---|---|---|---|---|\n"
        for g in groups {
            let r = g.runs
            text += "| \(g.label) ×\(r.count) | \(Int(g.layers)) | \(range(r.map(\.tick))) | \(range(r.map(\.engine))) | "
            text += "\(range(r.map { $0.tick / $0.engine }, scale: 1, 2))× | \(range(r.map(\.churn))) | \(range(r.map(\.quiet))) | "
            text += "\(range(r.map { $0.churn / $0.quiet }, scale: 1, 2))× | \(range(r.map { $0.changes / max($0.changed, 1) }, scale: 1e6, 2)) |\n"
        }
        // Tick against layers, one line per label (medians).
        let labels = Array(Set(groups.map(\.label))).sorted()
        let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
        var series: [SVGChart.Series] = []
        for (k, label) in labels.enumerated() {
            let points = groups.filter { $0.label == label }.map { (x: $0.layers, y: median($0.runs.map(\.tick)) * 1e3) }
            series.append(SVGChart.Series(name: "\(label): tick + bulk read", points: points, style: .lineAndPoints, color: palette[k % palette.count]))
            let engine = groups.filter { $0.label == label }.map { (x: $0.layers, y: median($0.runs.map(\.engine)) * 1e3) }
            series.append(SVGChart.Series(name: "\(label): engine frame + bulk read", points: engine, style: .dashed, color: palette[k % palette.count]))
        }
        let ticks = SVGChart(title: "LayerContext.tick + bulk read against layers (p50, medians of the runs)", xLabel: "layers",
                             yLabel: "ms per tick", series: series, xScale: .log, yScale: .log, width: 620, height: 400)
        try ticks.svg.write(to: url.appendingPathComponent("layertree-ticks.svg"), atomically: true, encoding: .utf8)
        text += "\n![tick against layers](layertree-ticks.svg)\n"
        // Churn against quiet, per group (medians), in one bar chart: churn ÷ quiet.
        let bars = groups.map { (label: "\($0.label), \(Int($0.layers)) layers", value: median($0.runs.map { $0.churn / $0.quiet })) }
        let churn = barChart(title: "Ticks after 1 % of the layers changed ÷ quiet ticks (p50; 1.0 = no cost)", unit: "×", bars: bars,
                             log: false, lines: [(1, "1.0: quiet"), (1.3, "1.3: the goal")])
        try churn.write(to: url.appendingPathComponent("layertree-churn.svg"), atomically: true, encoding: .utf8)
        text += "\n![churn ÷ quiet](layertree-churn.svg)\n"
        try text.write(to: url.appendingPathComponent("layertree-summary.md"), atomically: true, encoding: .utf8)
        print("wrote layertree-summary.md and its charts to \(folder)")
    }
}
