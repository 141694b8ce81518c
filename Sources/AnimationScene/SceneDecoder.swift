import AnimationCore

/// Reads scene files (`docs/scene-format.md`).
///
/// Every problem is reported as a ``SceneError`` naming the JSON path of the offending value —
/// `layers[3].animations[0].keyTimes: must be non-decreasing` — including misspelled field names,
/// which are rejected rather than ignored. Numbers must be finite. Animations are validated exactly
/// as `TrackStore.add` and `AnimationList.add` validate them, with their field names translated to
/// the file's (`fromValue` is `from`, `isAdditive` is `additive`).
public enum SceneDecoder {
    /// Decodes a scene from JSON text.
    ///
    /// - Throws: ``SceneError`` (malformed JSON included: its path is empty and its reason names
    ///   the line and column).
    public static func decode(_ text: String) throws -> Scene {
        let json: JSON
        do {
            json = try JSON.parse(text)
        } catch let error as JSONSyntaxError {
            throw SceneError(path: "", reason: error.description)
        }
        return try decode(json)
    }

    /// Decodes a scene from a parsed JSON document.
    public static func decode(_ json: JSON) throws -> Scene {
        let root = Node(json, "")
        try root.allowOnly(["layers"])
        var ids = Set<String>()
        let layers = try root.require("layers").array().map { try layer($0, ids: &ids) }
        return Scene(layers: layers)
    }

    // MARK: Layers

    static func layer(_ node: Node, ids: inout Set<String>) throws -> SceneLayer {
        try node.allowOnly(["id", "type", "properties", "animations", "sublayers"])
        let idNode = try node.require("id")
        let id = try idNode.string()
        guard !id.isEmpty else { throw idNode.error("must not be empty") }
        guard ids.insert(id).inserted else { throw idNode.error("'\(id)' is already the id of another layer") }
        var type = SceneLayer.LayerType.layer
        if let t = node["type"] {
            let name = try t.string()
            guard let known = SceneLayer.LayerType(rawValue: name) else {
                throw t.error("must be \(SceneLayer.LayerType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")) (got \"\(name)\")")
            }
            type = known
        }
        var result = SceneLayer(id: id, type: type)
        if let properties = node["properties"] {
            for (name, value) in try properties.members() {
                if name == "path" {
                    guard type == .shape else { throw value.error("only a shape layer has a path (set \"type\": \"shape\")") }
                    result.path = try path(value)
                    continue
                }
                if let known = LayerProperty.named(name) {
                    if known.isShapeLayerProperty && type != .shape {
                        throw value.error("'\(name)' is a shape layer property (set \"type\": \"shape\")")
                    }
                    result.properties.append((name, try self.value(value, kind: known.kind)))
                } else {
                    result.properties.append((name, try customValue(value)))
                }
            }
        }
        if let animations = node["animations"] {
            var added: [(key: String?, animation: any Animation)] = []
            for a in try animations.array() {
                let (key, animation) = try topLevelAnimation(a, layer: result)
                // §1.2: adding under an existing key removes the earlier animation first.
                if let key { added.removeAll { $0.key == key } }
                added.append((key, animation))
            }
            result.animations = added.map(\.animation)
        }
        if let sublayers = node["sublayers"] {
            result.sublayers = try sublayers.array().map { try layer($0, ids: &ids) }
        }
        return result
    }

    /// A property outside the catalogue: its kind comes from the value's shape.
    static func customValue(_ node: Node) throws -> AnimationValue {
        switch node.json {
        case .number: return .scalar(try node.number())
        case .array(let a) where a.count == 2: return try value(node, kind: .point)
        case .array(let a) where a.count == 4: return try value(node, kind: .rect)
        case .array(let a) where a.count == 16: return try value(node, kind: .transform)
        default:
            throw node.error("a property outside the catalogue must be a number, [x, y], [x, y, w, h] or 16 numbers (got \(node.json.typeDescription))")
        }
    }

    // MARK: Values

    /// A value of `kind`: a number; [x, y]; [width, height]; [x, y, w, h]; [r, g, b, a];
    /// 16 numbers row-major (m11…m44); 6 numbers (a, b, c, d, tx, ty).
    static func value(_ node: Node, kind: ValueKind) throws -> AnimationValue {
        func numbers(_ n: Int, _ what: String) throws -> [Double] {
            let elements = try node.array()
            guard elements.count == n else { throw node.error("must be \(what) (\(n) numbers, got \(elements.count))") }
            return try elements.map { try $0.number() }
        }
        switch kind {
        case .scalar: return .scalar(try node.number())
        case .point:
            let v = try numbers(2, "a point [x, y]")
            return .point(Point(x: v[0], y: v[1]))
        case .size:
            let v = try numbers(2, "a size [width, height]")
            return .size(Size(width: v[0], height: v[1]))
        case .rect:
            let v = try numbers(4, "a rectangle [x, y, width, height]")
            return .rect(Rect(x: v[0], y: v[1], width: v[2], height: v[3]))
        case .color:
            let v = try numbers(4, "a colour [red, green, blue, alpha]")
            return .color(Color(red: v[0], green: v[1], blue: v[2], alpha: v[3]))
        case .transform:
            let v = try numbers(16, "a transform, row-major m11…m44")
            return .transform(try Transform3D(elements: v))
        case .affineTransform:
            let v = try numbers(6, "an affine transform [a, b, c, d, tx, ty]")
            return .affineTransform(AffineTransform(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5]))
        }
    }

    static func point(_ node: Node) throws -> Point {
        guard case .point(let p) = try value(node, kind: .point) else { fatalError("unreachable") }
        return p
    }

    static func rect(_ node: Node) throws -> Rect {
        guard case .rect(let r) = try value(node, kind: .rect) else { fatalError("unreachable") }
        return r
    }

    // MARK: Paths

    /// A path: a list of elements, or `{"elements": [...], "transform": [a, b, c, d, tx, ty]}`;
    /// each element may carry its own `"transform"` (Core Graphics' `transform:` argument).
    static func path(_ node: Node) throws -> Path {
        var path = Path()
        var elements = node
        var whole: AffineTransform?
        if case .object = node.json {
            try node.allowOnly(["elements", "transform"])
            elements = try node.require("elements")
            whole = try node["transform"].map(affine)
        }
        for element in try elements.array() {
            let members = try element.members()
            let transform = try element["transform"].map(affine) ?? .identity
            let kinds = members.map(\.key).filter { $0 != "transform" }
            guard kinds.count == 1, let kind = kinds.first else {
                throw element.error("an element has exactly one of move, line, quad, curve, arc, arcTo, rect, ellipse, roundedRect, close (and an optional transform)")
            }
            let v = try element.require(kind)
            switch kind {
            case "move": path.move(to: try point(v), transform: transform)
            case "line": path.addLine(to: try point(v), transform: transform)
            case "quad":
                let p = try v.array()
                guard p.count == 2 else { throw v.error("must be [[cx, cy], [x, y]]") }
                path.addQuadCurve(to: try point(p[1]), control: try point(p[0]), transform: transform)
            case "curve":
                let p = try v.array()
                guard p.count == 3 else { throw v.error("must be [[c1x, c1y], [c2x, c2y], [x, y]]") }
                path.addCurve(to: try point(p[2]), control1: try point(p[0]), control2: try point(p[1]), transform: transform)
            case "arc":
                try v.allowOnly(["center", "radius", "startAngle", "endAngle", "clockwise"])
                path.addArc(center: try point(v.require("center")), radius: try v.require("radius").number(),
                            startAngle: try v.require("startAngle").number(), endAngle: try v.require("endAngle").number(),
                            clockwise: try v["clockwise"]?.bool() ?? false, transform: transform)
            case "arcTo":
                try v.allowOnly(["tangent1End", "tangent2End", "radius"])
                path.addArc(tangent1End: try point(v.require("tangent1End")), tangent2End: try point(v.require("tangent2End")),
                            radius: try v.require("radius").number(), transform: transform)
            case "rect": path.addRect(try rect(v), transform: transform)
            case "ellipse": path.addEllipse(in: try rect(v), transform: transform)
            case "roundedRect":
                try v.allowOnly(["rect", "cornerWidth", "cornerHeight"])
                path.addRoundedRect(in: try rect(v.require("rect")), cornerWidth: try v.require("cornerWidth").number(),
                                    cornerHeight: try v.require("cornerHeight").number(), transform: transform)
            case "close":
                guard try v.bool() else { throw v.error("must be true") }
                path.closeSubpath()
            default:
                throw element.error("unknown path element '\(kind)' (move, line, quad, curve, arc, arcTo, rect, ellipse, roundedRect, close)")
            }
        }
        if let whole { path = path.applying(whole) }
        do {
            try path.validate()
        } catch let error as AnimationError {
            throw node.error(error.description)
        }
        return path
    }

    static func affine(_ node: Node) throws -> AffineTransform {
        guard case .affineTransform(let t) = try value(node, kind: .affineTransform) else { fatalError("unreachable") }
        return t
    }

    // MARK: Animations

    /// The fields every animation accepts (timing and `type`, `key`; docs/scene-format.md).
    public static let timingFields: Set<String> = ["type", "key", "beginTime", "duration", "speed", "timeOffset", "repeatCount",
                                            "repeatDuration", "autoreverses", "fillMode", "removedOnCompletion", "timingFunction"]
    /// The fields of property animations (basic, keyframe, spring) beyond ``timingFields``.
    public static let propertyFields: Set<String> = ["keyPath", "additive", "cumulative"]
    /// The value fields of basic and spring animations.
    public static let valueFields: Set<String> = ["from", "to", "by"]
    /// The fields of keyframe animations beyond ``timingFields`` and ``propertyFields``.
    public static let keyframeFields: Set<String> = ["values", "keyTimes", "timingFunctions", "calculationMode", "tensionValues",
                                              "continuityValues", "biasValues", "path", "rotationMode"]
    /// The fields of spring animations beyond ``timingFields``, ``propertyFields`` and ``valueFields``.
    public static let springFields: Set<String> = ["mass", "stiffness", "damping", "initialVelocity", "allowsOverdamping"]

    /// The Swift names `AnimationError` uses, as the file spells them.
    static let fileNames: [String: String] = [
        "fromValue": "from", "toValue": "to", "byValue": "by", "isAdditive": "additive", "isCumulative": "cumulative",
        "isRemovedOnCompletion": "removedOnCompletion",
    ]

    /// An animation as added to a layer: parsed, resolved for adding at time 0 (§1.3, §1.5) and
    /// validated against the layer's properties.
    static func topLevelAnimation(_ node: Node, layer: SceneLayer) throws -> (key: String?, animation: any Animation) {
        let key = try node["key"]?.string()
        var animation = try self.animation(node, layer: layer)
        do {
            animation = try animation.preparedForAdding(layerTime: 0)
            try validate(animation, layer: layer)
        } catch let error as AnimationError {
            throw translate(error, at: node)
        }
        return (key, animation)
    }

    static func validate(_ animation: any Animation, layer: SceneLayer) throws {
        try animation.validate()
        for leaf in animation.leaves {
            let prefix = leaf.indexPath.map { "animations[\($0)]" }.joined(separator: ".")
            let property = AnimationKeyPath.split(leaf.animation.keyPath).property
            guard let kind = layer.modelValue(property)?.kind else {
                throw AnimationError(field: "keyPath", reason: "layer '\(layer.id)' has no property '\(property)' (set it in \"properties\" first)")
                    .prefixed(by: prefix)
            }
            do {
                try leaf.animation.validate(forPropertyKind: kind)
            } catch let error as AnimationError {
                throw error.prefixed(by: prefix)
            }
        }
    }

    /// `error` (its field path in Swift's names) as a scene error under `node`.
    static func translate(_ error: AnimationError, at node: Node) -> SceneError {
        let parts = error.field.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
            let name = part.prefix { $0 != "[" }
            return (fileNames[String(name)] ?? String(name)) + part.dropFirst(name.count)
        }
        var field = parts.joined(separator: ".")
        // A timing function's control point is an element of the file's [x1, y1, x2, y2].
        for (i, name) in ["x1", "y1", "x2", "y2"].enumerated() where field.hasPrefix("controlPoints.\(name)") {
            field = "[\(i)]" + field.dropFirst("controlPoints.\(name)".count)
        }
        let path = field.isEmpty ? node.path : field.hasPrefix("[") ? node.path + field : node.path + "." + field
        // The reason may name other fields too ("at most two of fromValue, toValue and byValue").
        var reason = error.reason
        for (swift, file) in fileNames { reason = reason.replacing(swift, with: file) }
        return SceneError(path: path, reason: reason)
    }

    static func animation(_ node: Node, layer: SceneLayer) throws -> any Animation {
        let typeNode = try node.require("type")
        let type = try typeNode.string()
        switch type {
        case "basic":
            try node.allowOnly(timingFields.union(propertyFields).union(valueFields))
            var a = BasicAnimation(keyPath: try node.require("keyPath").string())
            try common(node, &a, layer: layer)
            let kind = try valueKind(node, keyPath: a.keyPath, layer: layer)
            a.fromValue = try node["from"].map { try value($0, kind: kind) }
            a.toValue = try node["to"].map { try value($0, kind: kind) }
            a.byValue = try node["by"].map { try value($0, kind: kind) }
            return a
        case "spring":
            try node.allowOnly(timingFields.union(propertyFields).union(valueFields).union(springFields))
            var s = SpringAnimation(keyPath: try node.require("keyPath").string())
            try common(node, &s, layer: layer)
            let kind = try valueKind(node, keyPath: s.keyPath, layer: layer)
            s.fromValue = try node["from"].map { try value($0, kind: kind) }
            s.toValue = try node["to"].map { try value($0, kind: kind) }
            s.byValue = try node["by"].map { try value($0, kind: kind) }
            if let v = node["mass"] { s.mass = try v.number() }
            if let v = node["stiffness"] { s.stiffness = try v.number() }
            if let v = node["damping"] { s.damping = try v.number() }
            if let v = node["initialVelocity"] { s.initialVelocity = try v.number() }
            if let v = node["allowsOverdamping"] { s.allowsOverdamping = try v.bool() }
            // A spring without a duration runs until it settles (when its parameters are valid:
            // otherwise validation names the bad parameter, not the duration derived from it).
            if node["duration"] == nil, (try? s.validate()) != nil { s.duration = s.settlingDuration }
            return s
        case "keyframe":
            try node.allowOnly(timingFields.union(propertyFields).union(keyframeFields))
            var k = KeyframeAnimation(keyPath: try node.require("keyPath").string())
            try common(node, &k, layer: layer)
            if let v = node["keyTimes"] { k.keyTimes = try v.array().map { try $0.number() } }
            if let v = node["timingFunctions"] { k.timingFunctions = try v.array().map(timingFunction) }
            if let v = node["calculationMode"] {
                let name = try v.string()
                guard let mode = CalculationMode(rawValue: name) else {
                    throw v.error("must be one of \(CalculationMode.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")) (got \"\(name)\")")
                }
                k.calculationMode = mode
            }
            if let v = node["tensionValues"] { k.tensionValues = try v.array().map { try $0.number() } }
            if let v = node["continuityValues"] { k.continuityValues = try v.array().map { try $0.number() } }
            if let v = node["biasValues"] { k.biasValues = try v.array().map { try $0.number() } }
            if let v = node["rotationMode"] {
                let name = try v.string()
                guard let mode = RotationMode(rawValue: name) else {
                    throw v.error("must be \"auto\" or \"autoReverse\" (got \"\(name)\")")
                }
                k.rotationMode = mode
            }
            // The values or the path last: each field set rebuilds the keyframe plan, which
            // measures a path (a 10^6-element path was measured twice).
            if let values = node["values"] {
                let kind = try valueKind(node, keyPath: k.keyPath, layer: layer)
                k.values = try values.array().map { try value($0, kind: kind) }
            }
            if let v = node["path"] { k.path = try path(v) }
            return k
        case "group":
            try node.allowOnly(timingFields.union(["animations"]))
            var g = AnimationGroup()
            var timing = g.timing, function = g.timingFunction, removed = g.isRemovedOnCompletion
            try self.timing(node, &timing, function: &function, removed: &removed)
            (g.timing, g.timingFunction, g.isRemovedOnCompletion) = (timing, function, removed)
            g.animations = try node.require("animations").array().map { try animation($0, layer: layer) }
            return g
        default:
            throw typeNode.error("must be \"basic\", \"keyframe\", \"spring\" or \"group\" (got \"\(type)\")")
        }
    }

    /// The kind of the values an animation of `keyPath` on `layer` takes.
    static func valueKind(_ node: Node, keyPath: String, layer: SceneLayer) throws -> ValueKind {
        let property = AnimationKeyPath.split(keyPath).property
        guard let propertyKind = layer.modelValue(property)?.kind else {
            throw try node.require("keyPath").error("layer '\(layer.id)' has no property '\(property)' (set it in \"properties\" first)")
        }
        do {
            return try AnimationKeyPath(keyPath, propertyKind: propertyKind).valueKind(propertyKind: propertyKind)
        } catch let error as AnimationError {
            throw try node.require("keyPath").error(error.reason)
        }
    }

    static func common<A: PropertyAnimation>(_ node: Node, _ a: inout A, layer: SceneLayer) throws {
        var timing = a.timing, function = a.timingFunction, removed = a.isRemovedOnCompletion
        try self.timing(node, &timing, function: &function, removed: &removed)
        (a.timing, a.timingFunction, a.isRemovedOnCompletion) = (timing, function, removed)
        if let v = node["additive"] { a.isAdditive = try v.bool() }
        if let v = node["cumulative"] { a.isCumulative = try v.bool() }
    }

    static func timing(_ node: Node, _ t: inout MediaTiming, function: inout TimingFunction?, removed: inout Bool) throws {
        if let v = node["beginTime"] { t.beginTime = try v.number() }
        if let v = node["duration"] { t.duration = try v.number() }
        if let v = node["speed"] { t.speed = try v.number() }
        if let v = node["timeOffset"] { t.timeOffset = try v.number() }
        if let v = node["repeatCount"] { t.repeatCount = try v.number(allowingInfinity: true) }
        if let v = node["repeatDuration"] { t.repeatDuration = try v.number(allowingInfinity: true) }
        if let v = node["autoreverses"] { t.autoreverses = try v.bool() }
        if let v = node["fillMode"] {
            let name = try v.string()
            guard let mode = FillMode(rawValue: name) else {
                throw v.error("must be \"removed\", \"forwards\", \"backwards\" or \"both\" (got \"\(name)\")")
            }
            t.fillMode = mode
        }
        if let v = node["removedOnCompletion"] { removed = try v.bool() }
        if let v = node["timingFunction"] { function = try timingFunction(v) }
    }

    /// A named function or `[x1, y1, x2, y2]`.
    static func timingFunction(_ node: Node) throws -> TimingFunction {
        if case .string(let name) = node.json {
            guard let named = TimingFunction.Name(rawValue: name) else {
                throw node.error("must be \(TimingFunction.Name.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")) or [x1, y1, x2, y2] (got \"\(name)\")")
            }
            return TimingFunction(name: named)
        }
        let p = try node.array()
        guard p.count == 4 else { throw node.error("must be a name or [x1, y1, x2, y2] (got \(p.count) numbers)") }
        let v = try p.map { try $0.number() }
        do {
            return try TimingFunction(controlPoints: v[0], v[1], v[2], v[3])
        } catch let error as AnimationError {
            throw translate(error, at: node)
        }
    }
}

/// A JSON value with its path in the document, for error messages.
struct Node {
    let json: JSON
    let path: String

    init(_ json: JSON, _ path: String) {
        self.json = json
        self.path = path
    }

    func error(_ reason: String) -> SceneError { SceneError(path: path, reason: reason) }

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    subscript(key: String) -> Node? { json[key].map { Node($0, child(key)) } }

    func require(_ key: String) throws -> Node {
        guard case .object = json else { throw error("must be an object (got \(json.typeDescription))") }
        guard let node = self[key] else { throw SceneError(path: child(key), reason: "is required") }
        return node
    }

    func members() throws -> [(key: String, value: Node)] {
        guard case .object(let m) = json else { throw error("must be an object (got \(json.typeDescription))") }
        return m.map { ($0.key, Node($0.value, child($0.key))) }
    }

    /// Rejects members outside `allowed` (a misspelt field would otherwise be silently ignored).
    func allowOnly(_ allowed: Set<String>) throws {
        for (key, value) in try members() where !allowed.contains(key) {
            throw value.error("unknown field (expected one of \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    func array() throws -> [Node] {
        guard case .array(let a) = json else { throw error("must be an array (got \(json.typeDescription))") }
        return a.enumerated().map { Node($0.element, "\(path)[\($0.offset)]") }
    }

    func string() throws -> String {
        guard case .string(let s) = json else { throw error("must be a string (got \(json.typeDescription))") }
        return s
    }

    func bool() throws -> Bool {
        guard case .bool(let b) = json else { throw error("must be true or false (got \(json.typeDescription))") }
        return b
    }

    /// A number; with `allowingInfinity`, also the string `"infinity"` (JSON has no infinity).
    func number(allowingInfinity: Bool = false) throws -> Double {
        if allowingInfinity, case .string(let s) = json, s == "infinity" { return .infinity }
        guard case .number(let v) = json else {
            throw error("must be a number\(allowingInfinity ? " or \"infinity\"" : "") (got \(json.typeDescription))")
        }
        return v
    }
}
