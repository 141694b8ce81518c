import AnimationBatch
import AnimationCore

/// Which engine evaluates a scene: the SIMD batch engine, or the scalar reference it is tested
/// against. Both give the same values within docs/architecture.md's precision table.
public enum SceneEngine: String, Sendable, CaseIterable {
    case batch, reference
}

/// The presentation values of a scene at one time: per layer (in scene order), per reported
/// property (``SceneLayer/reportedProperties``).
public struct SceneFrame: Sendable {
    /// The scene time, in seconds.
    public var time: Double
    /// Every layer in scene order (depth first), with its reported properties' values.
    public var layers: [(id: String, values: [(keyPath: String, value: AnimationValue)])]
    /// When asked for (`evaluate --velocity`): the same layers and properties with each value's
    /// velocity, d value/dt per second of scene time, of the value's kind (docs/velocity.md).
    public var velocities: [(id: String, values: [(keyPath: String, value: AnimationValue)])]? = nil
}

/// A scene loaded for evaluation by either engine.
public final class SceneEvaluation {
    /// The scene as decoded.
    public let scene: Scene
    /// Every layer, depth first.
    public let layers: [SceneLayer]
    /// The batch engine's store (layer `i` of ``layers`` is `LayerID(i + 1)`).
    public let store: TrackStore
    /// The batch engine's frame evaluator over ``store``.
    public let evaluator: FrameEvaluator

    /// Loads `scene` into a track store: every reported property's model value, then every
    /// animation in add order. A scene is a timeline to be sought back and forth, so its
    /// evaluator keeps finished animations (`FrameEvaluator.Configuration.reapsFinishedAnimations`
    /// is set to false): the values at a time do not depend on the times evaluated before.
    ///
    /// - Throws: `AnimationError` if the store rejects something the decoder accepted (a bug).
    public init(_ scene: Scene, configuration: FrameEvaluator.Configuration = .init()) throws {
        self.scene = scene
        layers = scene.allLayers
        store = TrackStore()
        for (i, layer) in layers.enumerated() {
            for (name, value) in layer.model.sorted(by: { $0.key < $1.key }) {
                try store.setModelValue(value, layer: LayerID(UInt64(i + 1)), property: name)
            }
        }
        for (i, layer) in layers.enumerated() {
            for animation in layer.animations { try store.add(animation, layer: LayerID(UInt64(i + 1))) }
        }
        var configuration = configuration
        configuration.reapsFinishedAnimations = false
        evaluator = FrameEvaluator(store: store, configuration: configuration)
    }

    /// The presentation values at `time` by `engine`, of every layer or of the layers at
    /// `indices` of ``layers`` (the batch engine evaluates every track either way).
    ///
    /// With `velocity`, each value's velocity too (``SceneFrame/velocities``): for the batch
    /// engine `FrameEvaluator.velocity(layer:property:)`, for the reference
    /// `ReferenceEvaluator.presentationValuesWithRates(model:animations:at:)`; both are the
    /// reference's analytic rate.
    public func frame(at time: Double, engine: SceneEngine, layers indices: Range<Int>? = nil,
                      velocity: Bool = false) -> SceneFrame {
        if engine == .batch { evaluator.evaluate(at: time) }
        var out: [(id: String, values: [(keyPath: String, value: AnimationValue)])] = []
        var rates: [(id: String, values: [(keyPath: String, value: AnimationValue)])] = []
        for i in indices?.clamped(to: layers.indices) ?? layers.indices {
            let layer = layers[i]
            let names = layer.reportedProperties
            var values: [(keyPath: String, value: AnimationValue)] = []
            var layerRates: [(keyPath: String, value: AnimationValue)] = []
            switch engine {
            case .batch:
                let id = LayerID(UInt64(i + 1))
                for name in names {
                    guard let v = evaluator.value(layer: id, property: name) else { continue }
                    values.append((name, v))
                    if velocity { layerRates.append((name, evaluator.velocity(layer: id, property: name) ?? .zeroRate(of: v.kind))) }
                }
            case .reference:
                if velocity {
                    let shown = ReferenceEvaluator.presentationValuesWithRates(model: layer.model, animations: layer.animations, at: time)
                    for name in names {
                        if let v = shown[name] {
                            values.append((name, v.value))
                            layerRates.append((name, v.rate))
                        }
                    }
                } else {
                    let shown = ReferenceEvaluator.presentationValues(model: layer.model, animations: layer.animations, at: time)
                    for name in names { if let v = shown[name] { values.append((name, v)) } }
                }
            }
            out.append((layer.id, values))
            rates.append((layer.id, layerRates))
        }
        return SceneFrame(time: time, layers: out, velocities: velocity ? rates : nil)
    }
}

extension AnimationValue {
    /// The value as the scene format writes it: a number, or an array of numbers.
    public var json: JSON {
        if case .scalar(let v) = self { return .number(v) }
        return .array(components.map { .number($0) })
    }

    /// The names of the components, for CSV columns: `x`, `y`; `width`, `height`; `red`…`alpha`;
    /// `m11`…`m44`; `a`…`ty`; none for a number.
    public var componentNames: [String] {
        switch kind {
        case .scalar: []
        case .point: ["x", "y"]
        case .size: ["width", "height"]
        case .rect: ["x", "y", "width", "height"]
        case .color: ["red", "green", "blue", "alpha"]
        case .transform: (1...4).flatMap { r in (1...4).map { c in "m\(r)\(c)" } }
        case .affineTransform: ["a", "b", "c", "d", "tx", "ty"]
        }
    }
}

extension SceneFrame {
    /// The frame with each number that a Float holds exactly replaced by the shortest decimal that
    /// reads back as the same Float (a batch engine's frame written without single precision's
    /// noise digits); other numbers unchanged.
    public var singlePrecisionText: SceneFrame {
        var out = self
        out.layers = layers.map { layer in
            (layer.id, layer.values.map { entry in
                let components = entry.value.components
                return (entry.keyPath, AnimationValue(kind: entry.value.kind) { c in
                    // Only numbers a Float holds exactly (a model value in double precision stays).
                    let v = components[c], f = Float(v)
                    return Double(f) == v ? Double(f.description) ?? v : v
                })
            })
        }
        return out
    }

    /// `{"time": t, "layers": {"id": {"keyPath": value, …}, …}}`, and with velocities
    /// `"velocities": {"id": {"keyPath": rate, …}, …}` after `"layers"`.
    public var json: JSON {
        func object(_ layers: [(id: String, values: [(keyPath: String, value: AnimationValue)])]) -> JSON {
            .object(layers.map { layer in (layer.id, .object(layer.values.map { ($0.keyPath, $0.value.json) })) })
        }
        var fields: [(String, JSON)] = [("time", .number(time)), ("layers", object(layers))]
        if let velocities { fields.append(("velocities", object(velocities))) }
        return .object(fields)
    }

    /// CSV rows `time,layer,property,value`, one per number (`position.x`, `backgroundColor.red`);
    /// with velocities `time,layer,property,value,velocity` (``CSV/velocityHeader``).
    public var csvRows: [String] {
        var rows: [String] = []
        for (l, layer) in layers.enumerated() {
            for (p, (keyPath, value)) in layer.values.enumerated() {
                let names = value.componentNames
                let rate = velocities?[l].values[p].value.components
                for (i, c) in value.components.enumerated() {
                    let property = names.isEmpty ? keyPath : "\(keyPath).\(names[i])"
                    var row = "\(JSON.format(time)),\(CSV.field(layer.id)),\(property),\(JSON.format(c))"
                    if let rate { row += "," + JSON.format(rate[i]) }
                    rows.append(row)
                }
            }
        }
        return rows
    }
}

/// The text formats of a scene's frames: `evaluate --format`.
public enum SceneTextFormat: String, Sendable, CaseIterable {
    /// `{"frames": [{"time": t, "layers": {…}}, …]}`, indented by two spaces a level.
    case json
    /// ``CSV/header`` then one row per number (``SceneFrame/csvRows``).
    case csv
}

extension SceneEvaluation {
    /// Writes the frames at `times` by `engine` as one `format` document, ending in a line break,
    /// handing `write` each frame's text as soon as that frame is evaluated: memory stays flat in
    /// the number of times (`evaluate --fps 10000 --duration 10` on 1,000 layers had held
    /// gigabytes before its first byte). The text is exactly what the whole document of the
    /// frames would be.
    ///
    /// Nothing here can fail after the first write, so a failure never leaves partial output
    /// unless `write` itself throws (which ends the document there).
    ///
    /// The batch engine's numbers are single precision: they are written as the shortest text that
    /// reads back as the same Float (`0.6`, not `0.6000000238418579`).
    public func writeFrames<Times: Sequence<Double>>(at times: Times, engine: SceneEngine, format: SceneTextFormat,
                                                     velocity: Bool = false, to write: (String) throws -> Void) rethrows {
        var iterator = times.makeIterator()
        func frame(at time: Double, engine: SceneEngine) -> SceneFrame {
            let shown = self.frame(at: time, engine: engine, velocity: velocity)
            return engine == .batch ? shown.singlePrecisionText : shown
        }
        switch format {
        case .json:
            guard var time = iterator.next() else { return try write("{\n  \"frames\": []\n}\n") }
            try write("{\n  \"frames\": [\n")
            while true {
                let text = frame(at: time, engine: engine).json.prettyText(level: 2)
                guard let next = iterator.next() else {
                    try write("    " + text + "\n  ]\n}\n")
                    return
                }
                try write("    " + text + ",\n")
                time = next
            }
        case .csv:
            try write(velocity ? CSV.velocityHeader : CSV.header)
            while let time = iterator.next() {
                var text = ""
                for row in frame(at: time, engine: engine).csvRows { text += "\n" + row }
                try write(text)
            }
            try write("\n")
        }
    }
}

/// CSV quoting (RFC 4180).
public enum CSV {
    /// `s`, quoted when it holds a comma, a quote or a line break.
    public static func field(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// The CSV header row.
    public static let header = "time,layer,property,value"

    /// The CSV header row with velocities (`evaluate --velocity`).
    public static let velocityHeader = "time,layer,property,value,velocity"
}
