import AnimationCore
import AnimationScene
import AnimationWorkloads
import Foundation
import Testing

/// Golden SVG files, one frame of each seed scene (`UPDATE_GOLDEN=1 swift test` rewrites them
/// after a deliberate change; review the diff and open them in a browser before committing).
let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

/// The frame of each example drawn for its golden file: a time where every animation shows.
let goldenTimes: [String: Double] = ["arc.json": 1, "color.json": 0.9, "progress-ring.json": 1.2, "spring.json": 0.35, "stroke.json": 1.3]

func render(_ json: String, at time: Double = 0, size: Size? = Size(width: 100, height: 100)) throws -> String {
    SceneRenderer(try SceneEvaluation(try SceneDecoder.decode(json)), size: size).svg(at: time, engine: .reference)
}

@Suite("Scene rendering (SVG)")
struct SceneRendererTests {
    @Test("golden SVG: one frame of each seed scene")
    func golden() throws {
        let update = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1"
        for (name, scene) in try exampleScenes() {
            let time = try #require(goldenTimes[name], "no golden time for \(name)")
            let svg = SceneRenderer(try SceneEvaluation(scene)).svg(at: time, engine: .reference)
            let file = goldenFolder.appendingPathComponent(name.replacingOccurrences(of: ".json", with: ".svg"))
            if update {
                try FileManager.default.createDirectory(at: goldenFolder, withIntermediateDirectories: true)
                try svg.write(to: file, atomically: true, encoding: .utf8)
            }
            let expected = try String(contentsOf: file, encoding: .utf8)
            #expect(svg == expected, "\(name) differs from \(file.lastPathComponent); UPDATE_GOLDEN=1 rewrites it")
        }
    }

    @Test("the batch engine draws the same pictures as the reference (numbers to 3 decimals, within the precision table)")
    func batchDrawsTheSame() throws {
        for (name, scene) in try exampleScenes() {
            let renderer = SceneRenderer(try SceneEvaluation(scene))
            let batch = renderer.svg(at: goldenTimes[name]!, engine: .batch)
            let reference = renderer.svg(at: goldenTimes[name]!, engine: .reference)
            // Same elements and attributes; numbers may differ in the last printed digit.
            let strip = { (s: String) in s.replacingOccurrences(of: "-?[0-9]+(\\.[0-9]+)?", with: "#", options: .regularExpression) }
            #expect(strip(batch) == strip(reference), "\(name)")
            let numbers = { (s: String) -> [Double] in
                s.matches(of: /-?[0-9]+(\.[0-9]+)?/).map { Double($0.output.0)! }
            }
            for (b, r) in zip(numbers(batch), numbers(reference)) {
                #expect(abs(b - r) <= 0.01 * max(1, abs(r)), "\(name): \(b) vs \(r)")
            }
        }
    }

    @Test("placement: position, bounds origin, anchorPoint and transform about the anchor")
    func placement() throws {
        let svg = try render(#"""
        {"layers": [{"id": "a", "properties": {"position": [50, 40], "bounds": [10, 0, 20, 10], "anchorPoint": [0, 0],
                     "transform": [0, 1, 0, 0,  -1, 0, 0, 0,  0, 0, 1, 0,  0, 0, 0, 1], "backgroundColor": [1, 0, 0, 1]}}]}
        """#)
        // Bounds-space point p maps to (p − (10, 0)) · R90 + (50, 40): matrix(0 1 −1 0 50 30).
        #expect(svg.contains(#"<g id="a" transform="matrix(0 1 -1 0 50 30)">"#))
        #expect(svg.contains(##"<rect x="10" y="0" width="20" height="10" fill="#ff0000"/>"##))
    }

    @Test("sublayers: in the superlayer's bounds space, sublayerTransform about its anchor, zPosition orders siblings")
    func sublayers() throws {
        let svg = try render(#"""
        {"layers": [{"id": "parent", "properties": {"position": [50, 50], "bounds": [0, 0, 100, 100],
                       "sublayerTransform": [2, 0, 0, 0,  0, 2, 0, 0,  0, 0, 1, 0,  0, 0, 0, 1]},
                     "sublayers": [
                       {"id": "top", "properties": {"position": [10, 10], "bounds": [0, 0, 4, 4], "zPosition": 1, "backgroundColor": [0, 0, 1, 1]}},
                       {"id": "bottom", "properties": {"position": [20, 20], "bounds": [0, 0, 4, 4], "backgroundColor": [0, 1, 0, 1]}}]}]}
        """#)
        // Scaling by 2 about the parent's anchor (50, 50): matrix(2 0 0 2 −50 −50).
        #expect(svg.contains(#"<g transform="matrix(2 0 0 2 -50 -50)">"#))
        let bottom = try #require(svg.range(of: #"id="bottom""#)), top = try #require(svg.range(of: #"id="top""#))
        #expect(bottom.lowerBound < top.lowerBound, "zPosition 1 draws above zPosition 0 despite scene order")
        #expect(svg.contains(#"<g id="top" transform="matrix(1 0 0 1 8 8)">"#))
    }

    @Test("shape layers: fill untrimmed, stroke trimmed to strokeStart…strokeEnd (§13), nothing when start ≥ end")
    func shapes() throws {
        let line = #"{"move": [0, 0]}, {"line": [100, 0]}"#
        let half = try render(#"""
        {"layers": [{"id": "s", "type": "shape", "properties": {"bounds": [0, 0, 100, 100], "path": [\#(line)],
                     "strokeColor": [0, 0, 0, 1], "lineWidth": 2, "strokeStart": 0.25, "strokeEnd": 0.75}}]}
        """#)
        #expect(half.contains(##"<path d="M0 0L100 0" fill="#000000"/>"##), "the default fillColor is black (semantics §11)")
        #expect(half.contains(##"<path d="M25 0L75 0" fill="none" stroke="#000000" stroke-width="2" stroke-miterlimit="10"/>"##))
        let none = try render(#"""
        {"layers": [{"id": "s", "type": "shape", "properties": {"bounds": [0, 0, 100, 100], "path": [\#(line)],
                     "fillColor": [0, 0, 0, 0], "strokeColor": [0, 0, 0, 1], "strokeStart": 0.8, "strokeEnd": 0.2}}]}
        """#)
        #expect(!none.contains("<path"))
    }

    @Test("opacity groups the layer; colours are clamped; border inside the bounds; shadow as a drop shadow")
    func appearance() throws {
        let svg = try render(#"""
        {"layers": [{"id": "a", "properties": {"position": [50, 50], "bounds": [0, 0, 40, 20], "opacity": 0.5,
                     "backgroundColor": [2, -1, 0.5, 0.25], "cornerRadius": 30, "borderWidth": 4, "borderColor": [0, 0, 0, 1],
                     "shadowOpacity": 0.5, "shadowRadius": 6, "shadowOffset": [0, 3]}}]}
        """#)
        #expect(svg.contains(#"opacity="0.5""#))
        #expect(svg.contains(##"<rect x="0" y="0" width="40" height="20" rx="10" fill="#ff0080" fill-opacity="0.25"/>"##),
                "corner radius clamped to half the shorter side, components to [0, 1]")
        #expect(svg.contains(##"<rect x="2" y="2" width="36" height="16" rx="8" fill="none" stroke="#000000" stroke-width="4"/>"##))
        #expect(svg.contains(##"<feDropShadow dx="0" dy="3" stdDeviation="3" flood-color="#000000" flood-opacity="0.5"/>"##))
    }

    @Test("not drawn: opacity 0, non-finite geometry; a NaN colour draws nothing")
    func invisible() throws {
        #expect(!(try render(#"{"layers": [{"id": "a", "properties": {"bounds": [0, 0, 10, 10], "opacity": 0, "backgroundColor": [1, 0, 0, 1]}}]}"#)).contains("<g id"))
        let evaluation = try SceneEvaluation(Scene(layers: [
            SceneLayer(id: "nan", properties: [("position", .point(Point(x: .nan, y: 0))), ("bounds", .rect(Rect(x: 0, y: 0, width: 10, height: 10))),
                                               ("backgroundColor", .color(Color(red: 1, green: 0, blue: 0)))]),
            SceneLayer(id: "nanColor", properties: [("bounds", .rect(Rect(x: 0, y: 0, width: 10, height: 10))),
                                                    ("backgroundColor", .color(Color(red: .nan, green: 0, blue: 0)))]),
        ]))
        let svg = SceneRenderer(evaluation, size: Size(width: 10, height: 10)).svg(at: 0, engine: .reference)
        #expect(!svg.contains(#"id="nan""#))
        #expect(svg.contains(#"<g id="nanColor""#) && !svg.contains("#ff0000"))
    }

    @Test("the default canvas holds the layers over their animations, margins mirrored")
    func canvas() throws {
        let evaluation = try SceneEvaluation(try SceneDecoder.decode(#"""
        {"layers": [{"id": "a", "properties": {"position": [30, 20], "bounds": [0, 0, 20, 20]},
                     "animations": [{"type": "basic", "keyPath": "position.x", "to": 200, "duration": 1,
                                     "fillMode": "forwards", "removedOnCompletion": false}]}]}
        """#))
        let size = SceneRenderer(evaluation).size
        #expect(size.width == 210 + 20 && size.height == 30 + 10)
    }

    @Test("the default canvas samples only the top-level layers that move, reading the four values that place them")
    func canvasFromMovingLayers() throws {
        // "a" turns 45° about its centre and stays there; "b" only fades, over 3 s (the span
        // sampled); "c", a sublayer, moves far but is not a top-level layer.
        let evaluation = try SceneEvaluation(try SceneDecoder.decode(#"""
        {"layers": [{"id": "a", "properties": {"position": [50, 40], "bounds": [0, 0, 20, 20]},
                     "animations": [{"type": "basic", "keyPath": "transform.rotation.z", "from": 0, "to": 0.7853981633974483,
                                     "duration": 1, "fillMode": "forwards", "removedOnCompletion": false}]},
                    {"id": "b", "properties": {"position": [300, 10], "bounds": [0, 0, 10, 10]},
                     "animations": [{"type": "basic", "keyPath": "opacity", "from": 0, "to": 1, "duration": 3}],
                     "sublayers": [{"id": "c", "animations": [{"type": "basic", "keyPath": "position.x", "to": 10000, "duration": 3}]}]}]}
        """#))
        // x: 50 − 10√2 … 305, mirrored left margin; y: 5 … 40 + 10√2, mirrored top margin.
        let size = SceneRenderer(evaluation).size
        #expect(size.width == (305 + 50 - 200.0.squareRoot()).rounded(.up), "\(size)")
        #expect(size.height == (40 + 200.0.squareRoot() + 5).rounded(.up), "\(size)")
    }

    @Test("index.html lists the frames and plays them at the given rate")
    func indexPage() {
        let html = SceneRenderer.indexHTML(frames: ["frame-00000.svg", "frame-00001.svg"], fps: 24, size: Size(width: 320, height: 240))
        #expect(html.contains(#"const frames = ["frame-00000.svg","frame-00001.svg"];"#))
        #expect(html.contains("const fps = 24;"))
        #expect(html.contains(#"<img id="frame" width="320" height="240""#))
    }

    @Test("path data for every element kind")
    func pathData() {
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addLine(to: Point(x: 1.23456, y: -2))
        path.addQuadCurve(to: Point(x: 3, y: 3), control: Point(x: 2, y: 2))
        path.addCurve(to: Point(x: 6, y: 6), control1: Point(x: 4, y: 4), control2: Point(x: 5, y: 5))
        path.closeSubpath()
        #expect(SceneRenderer.pathData(path) == "M0 0L1.235 -2Q2 2 3 3C4 4 5 5 6 6Z")
    }
}

@Suite("Charts and plots (SVG)")
struct ChartTests {
    @Test("numbers: rounded, trailing zeros dropped, never -0, non-finite as 0")
    func numbers() {
        #expect(SVG.number(1.23456) == "1.235")
        #expect(SVG.number(-0.0001) == "0")
        #expect(SVG.number(2.5, decimals: 0) == "3")
        #expect(SVG.number(0.999_9999) == "1")
        #expect(SVG.number(-12.1) == "-12.1")
        #expect(SVG.number(.nan) == "0" && SVG.number(.infinity) == "0")
        #expect(SVG.escape(#"<a & "b">"#) == "&lt;a &amp; &quot;b&quot;&gt;")
    }

    @Test("axes: 1-2-5 steps on linear axes, decades on logarithmic ones")
    func axes() {
        let linear = SVGChart(title: "t", xLabel: "x", yLabel: "y", series: [.init(name: "s", points: [(0, 0.13), (10, 0.87)])])
        #expect(linear.svg.contains(">0.2</text>") && linear.svg.contains(">0.8</text>"))
        let log = SVGChart(title: "t", xLabel: "N", yLabel: "ms", series: [.init(name: "s", points: [(1e4, 0.2), (1e6, 20)])],
                           xScale: .log, yScale: .log)
        for label in [">1e4<", ">1e5<", ">1e6<", ">0.1<", ">1<", ">10<", ">100<"] { #expect(log.svg.contains(label), "\(label)") }
        // Both ends of a linear axis are labelled, also where the rounded end is a hair above a
        // multiple of the step (0.6 / 0.1 = 5.999…): the lowest tick had been skipped.
        for low in [0.61, 0.65, 0.3, 0.7, 1.3] {
            let svg = SVGChart(title: "t", xLabel: "x", yLabel: "y", series: [.init(name: "s", points: [(0, low), (1, low + 0.35)])]).svg
            // The plot spans y = 32 … 338 (400 high, one legend row); labels sit 4 below a tick.
            #expect(svg.contains(#"y="36" text-anchor="end">"#) && svg.contains(#"y="342" text-anchor="end">"#), "\(low): \(svg)")
        }
    }

    @Test("a non-finite point breaks the line; log axes leave out values ≤ 0")
    func gaps() {
        let chart = SVGChart(title: "t", xLabel: "x", yLabel: "y", series: [.init(name: "s", points: [(1, 1), (2, .nan), (3, 2), (4, 3)])])
        let path = chart.svg.split(separator: "\n").first { $0.contains("stroke-width=\"2\"") && $0.hasPrefix("<path") }!
        #expect(path.filter { $0 == "M" }.count == 2)
        let log = SVGChart(title: "t", xLabel: "x", yLabel: "y", series: [.init(name: "s", points: [(1, -1), (2, 0), (3, 2), (4, 3)])], yScale: .log)
        let logPath = log.svg.split(separator: "\n").first { $0.contains("stroke-width=\"2\"") && $0.hasPrefix("<path") }!
        #expect(logPath.filter { $0 == "M" }.count == 1 && logPath.filter { $0 == "L" }.count == 1)
    }

    @Test("timing-function charts side by side, with control points")
    func timingCharts() throws {
        let svg = SVGChart.grid([.timingFunction(.easeIn), .timingFunction(try TimingFunction(controlPoints: 0.68, -0.55, 0.27, 1.55))])
        #expect(svg.contains(">easeIn</text>") && svg.contains(">(0.68, -0.55, 0.27, 1.55)</text>"))
        #expect(svg.contains(#"<svg xmlns="http://www.w3.org/2000/svg" width="640" height="340""#))
        #expect(svg.components(separatedBy: "<circle").count - 1 == 2 * (4 + 1), "four control points per curve, and a legend dot")
    }

    @Test("a scene property over time: one series per varying component; errors name the layer or property")
    func sceneSeries() throws {
        let evaluation = try SceneEvaluation(try SceneDecoder.decode(#"""
        {"layers": [{"id": "a", "properties": {"position": [0, 5]},
                     "animations": [{"type": "basic", "keyPath": "position.x", "from": 0, "to": 10, "duration": 1, "fillMode": "forwards", "removedOnCompletion": false}]}]}
        """#))
        let times = (0...4).map { Double($0) / 4 }
        let series = try evaluation.series(layer: "a", property: "position", times: times, engine: .reference)
        #expect(series.map(\.name) == ["position.x"])
        #expect(series[0].points.map(\.y) == [0, 2.5, 5, 7.5, 10])
        let y = try evaluation.series(layer: "a", property: "position.y", times: times, engine: .reference)
        #expect(y.map(\.name) == ["position.y"] && y[0].points.allSatisfy { $0.y == 5 })
        #expect(throws: SceneError.self) { try evaluation.series(layer: "b", property: "position", times: times) }
        #expect(throws: SceneError(path: "property", reason: "layer 'a' neither sets nor animates 'opacity' (it has: position)")) {
            try evaluation.series(layer: "a", property: "opacity", times: times)
        }
        #expect(throws: SceneError.self) { try evaluation.series(layer: "a", property: "position.z", times: times) }
        #expect(try evaluation.plotDuration(layer: "a") == 1)
    }

    @Test("a colour's channels are drawn in their own colours: red in red, green in green, blue in blue, alpha in grey")
    func colorChannelsInTheirColors() throws {
        let evaluation = try SceneEvaluation(try SceneDecoder.decode(#"""
        {"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "backgroundColor",
                     "from": [0, 0.2, 0.4, 0], "to": [1, 0.9, 0.1, 1], "duration": 1}]}]}
        """#))
        let series = try evaluation.series(layer: "a", property: "backgroundColor", times: [0, 0.5, 0.9], engine: .reference)
        #expect(series.map(\.name) == ["backgroundColor.red", "backgroundColor.green", "backgroundColor.blue", "backgroundColor.alpha"])
        #expect(series.map(\.color) == ["#d62728", "#2ca02c", "#1f77b4", "#7f7f7f"])
        let svg = SVGChart(title: "a", xLabel: "t", yLabel: "v", series: series).svg
        #expect(svg.contains(##"stroke="#d62728" stroke-width="2"/>"##) && svg.contains(">backgroundColor.red</text>"))
    }
}

@Suite("W3 seed scene")
struct SeedSceneTests {
    @Test("layers cycle through the five kinds, on a grid, deterministic")
    func shape() throws {
        let scene = try SeedScene.make(layers: 12)
        #expect(scene.layers.map(\.id).prefix(6) == ["progressRing-0", "stroke-1", "arc-2", "color-3", "spring-4", "progressRing-5"])
        #expect(scene.layers[5].modelValue("position") == .point(Point(x: 660, y: 60)))
        #expect(try SeedScene.make(layers: 12).layers.map(\.reportedProperties) == scene.layers.map(\.reportedProperties))
        #expect(throws: SceneError(path: "layers", reason: "must be between 1 and 10,000,000 (got 0)")) { try SeedScene.make(layers: 0) }
    }

    @Test("batch and reference agree on the seed layers within the precision table")
    func agreement() throws {
        let evaluation = try SceneEvaluation(try SeedScene.make(layers: 25))
        for k in 0...60 {
            let t = Double(k) / 10
            let batch = evaluation.frame(at: t, engine: .batch), reference = evaluation.frame(at: t, engine: .reference)
            for (layer, (b, r)) in zip(evaluation.layers, zip(batch.layers, reference.layers)) {
                #expect(b.values.map(\.keyPath) == r.values.map(\.keyPath))
                for (x, y) in zip(b.values, r.values) {
                    let tolerance = PrecisionTable.tolerance(property: x.keyPath, model: layer.modelValue(x.keyPath),
                                                             animations: layer.animations, reference: y.value)
                    #expect(PrecisionTable.maxDifference(x.value, y.value) <= tolerance, "\(layer.id).\(x.keyPath) at \(t)")
                }
            }
        }
    }
}
