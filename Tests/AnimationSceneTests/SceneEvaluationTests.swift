import AnimationCore
import AnimationScene
import AnimationWorkloads
import Foundation
import Testing

/// The repository's `Examples/` folder.
let examplesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples")

func exampleScenes() throws -> [(name: String, scene: Scene)] {
    let names = try FileManager.default.contentsOfDirectory(atPath: examplesFolder.path).filter { $0.hasSuffix(".json") }.sorted()
    return try names.map { name in
        let text = try String(contentsOf: examplesFolder.appendingPathComponent(name), encoding: .utf8)
        return (name, try SceneDecoder.decode(text))
    }
}

@Suite("Scene evaluation")
struct SceneEvaluationTests {
    @Test("Examples/ has the five seed scenes, and each decodes")
    func examplesDecode() throws {
        let scenes = try exampleScenes()
        #expect(scenes.map(\.name) == ["arc.json", "color.json", "progress-ring.json", "spring.json", "stroke.json"])
        #expect(scenes.allSatisfy { !$0.scene.allLayers.isEmpty })
    }

    @Test("--engine batch and --engine reference agree on every example within the precision table")
    func enginesAgree() throws {
        for (name, scene) in try exampleScenes() {
            let evaluation = try SceneEvaluation(scene)
            for k in 0...240 {
                let t = Double(k) / 40 - 0.5   // −0.5 … 5.5 s, crossing every begin and end
                let batch = evaluation.frame(at: t, engine: .batch), reference = evaluation.frame(at: t, engine: .reference)
                #expect(batch.layers.map(\.id) == reference.layers.map(\.id))
                for (layer, (b, r)) in zip(evaluation.layers, zip(batch.layers, reference.layers)) {
                    #expect(b.values.map(\.keyPath) == r.values.map(\.keyPath), "\(name) \(layer.id)")
                    for (x, y) in zip(b.values, r.values) {
                        let tolerance = PrecisionTable.tolerance(property: x.keyPath, model: layer.modelValue(x.keyPath),
                                                                 animations: layer.animations, reference: y.value)
                        #expect(PrecisionTable.maxDifference(x.value, y.value) <= tolerance,
                                "\(name) \(layer.id).\(x.keyPath) at \(t): \(x.value) vs \(y.value)")
                    }
                }
            }
        }
    }

    @Test("frames as JSON and CSV")
    func output() throws {
        let scene = try SceneDecoder.decode(#"""
        {"layers": [{"id": "a, b", "properties": {"opacity": 0.5, "position": [1, 2]},
                     "animations": [{"type": "basic", "keyPath": "backgroundColor", "from": [0, 0, 0, 1], "to": [1, 1, 1, 1], "duration": 2}]}]}
        """#)
        let evaluation = try SceneEvaluation(scene)
        let frame = evaluation.frame(at: 1, engine: .reference)
        #expect(frame.json.text == #"{"time":1,"layers":{"a, b":{"opacity":0.5,"position":[1,2],"backgroundColor":[0.5,0.5,0.5,1]}}}"#)
        #expect(frame.csvRows == [
            #"1,"a, b",opacity,0.5"#, #"1,"a, b",position.x,1"#, #"1,"a, b",position.y,2"#,
            #"1,"a, b",backgroundColor.red,0.5"#, #"1,"a, b",backgroundColor.green,0.5"#,
            #"1,"a, b",backgroundColor.blue,0.5"#, #"1,"a, b",backgroundColor.alpha,1"#,
        ])
        #expect(CSV.header == "time,layer,property,value")
    }

    @Test("evaluate streams: each frame is written before the next time is read, memory flat in the number of times; the text is the whole document's")
    func framesStream() throws {
        let evaluation = try SceneEvaluation(try SceneDecoder.decode(#"""
        {"layers": [{"id": "a", "properties": {"position": [1, 2]},
                     "animations": [{"type": "basic", "keyPath": "opacity", "from": 0, "to": 1, "duration": 1}]},
                    {"id": "b", "sublayers": [{"id": "c", "properties": {"bounds": [0, 0, 4, 3]}}]}]}
        """#))
        /// Times that count how many have been read.
        final class CountingTimes: Sequence {
            let times: [Double]
            var read = 0
            init(_ times: [Double]) { self.times = times }
            func makeIterator() -> AnyIterator<Double> {
                var i = 0
                return AnyIterator { [self] in
                    guard i < times.count else { return nil }
                    defer { i += 1 }
                    read += 1
                    return times[i]
                }
            }
        }
        for times in [[0.25, 0.5, 1.5], [0.5], []] {
            for format in SceneTextFormat.allCases {
                let counting = CountingTimes(times)
                var pieces: [(text: String, timesRead: Int)] = []
                evaluation.writeFrames(at: counting, engine: .batch, format: format) { pieces.append(($0, counting.read)) }
                let frames = times.map { evaluation.frame(at: $0, engine: .batch).singlePrecisionText }
                let whole = format == .json ? JSON.object([("frames", .array(frames.map(\.json)))]).prettyText
                    : ([CSV.header] + frames.flatMap(\.csvRows)).joined(separator: "\n")
                #expect(pieces.map(\.text).joined() == whole + "\n", "\(format) at \(times)")
                // A frame's text goes out with at most one time read ahead of it.
                let frameTexts = pieces.filter { $0.text.contains(format == .json ? "\"time\"" : ",a,") }
                #expect(frameTexts.count == times.count)
                for (k, piece) in frameTexts.enumerated() { #expect(piece.timesRead <= k + 2, "\(format) frame \(k) written after \(piece.timesRead) times") }
            }
        }
    }

    @Test("evaluate writes the batch engine's single-precision numbers without noise digits (0.6, not 0.6000000238418579)")
    func batchNumbersAsSinglePrecision() throws {
        let evaluation = try SceneEvaluation(try SceneDecoder.decode(#"""
        {"layers": [{"id": "a", "properties": {"position": [160.3, 1e-50]},
                     "animations": [{"type": "basic", "keyPath": "opacity", "from": 0, "to": 1, "duration": 1}]}]}
        """#))
        var batch = "", reference = ""
        evaluation.writeFrames(at: [0.6], engine: .batch, format: .csv) { batch += $0 }
        evaluation.writeFrames(at: [0.6], engine: .reference, format: .csv) { reference += $0 }
        #expect(batch.contains("0.6,a,opacity,0.6\n"), "\(batch)")
        #expect(reference.contains("0.6,a,opacity,0.6\n"), "\(reference)")
        // A model value a Float does not hold exactly is written as it is.
        #expect(batch.contains("a,position.x,160.3\n") && batch.contains("a,position.y,1e-50\n"), "\(batch)")
        // Each number reads back as the Float the engine computed.
        let opacity = try #require(evaluation.frame(at: 0.6, engine: .batch).layers[0].values.first { $0.keyPath == "opacity" }?.value.scalarValue)
        #expect(Float(0.6) == Float(opacity))
    }
}

