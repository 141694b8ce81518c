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
}
