import AnimationCore
import AnimationScene
import Foundation
import Testing

@Suite("Scene files")
struct SceneDecoderTests {
    /// A one-layer scene with `animations` (JSON text) on a layer with a few properties set.
    static func scene(_ animations: String, properties: String = #""opacity": 1, "position": [0, 0]"#, type: String = "layer") throws -> Scene {
        try SceneDecoder.decode(#"{"layers": [{"id": "a", "type": "\#(type)", "properties": {\#(properties)}, "animations": [\#(animations)]}]}"#)
    }

    @Test("every field of every animation type reaches the animation")
    func everyField() throws {
        let scene = try Self.scene(#"""
        {"type": "basic", "key": "k1", "keyPath": "position", "from": [1, 2], "by": [5, 6], "beginTime": 0.5,
         "duration": 2, "speed": 2, "timeOffset": 0.25, "repeatCount": 1.5, "autoreverses": true, "fillMode": "both",
         "removedOnCompletion": false, "additive": true, "cumulative": true, "timingFunction": [0.1, 0.2, 0.3, 1.4]},
        {"type": "keyframe", "keyPath": "opacity", "values": [0, 1, 0.5], "keyTimes": [0, 0.3, 1],
         "timingFunctions": ["easeIn", [0.5, 0, 0.5, 1]], "calculationMode": "cubic", "tensionValues": [0, 1, 0],
         "continuityValues": [0, 0.5, 0], "biasValues": [0, -0.5, 0], "repeatDuration": 3},
        {"type": "keyframe", "keyPath": "position", "path": [{"move": [0, 0]}, {"line": [10, 0]}], "calculationMode": "paced",
         "rotationMode": "autoReverse", "repeatCount": "infinity"},
        {"type": "spring", "keyPath": "position.x", "to": 10, "mass": 2, "stiffness": 50, "damping": 3, "initialVelocity": -1,
         "allowsOverdamping": true, "duration": 1},
        {"type": "group", "duration": 4, "timingFunction": "easeOut", "animations": [
            {"type": "basic", "keyPath": "transform.rotation.z", "to": 3.14}
        ]}
        """#)
        let animations = scene.layers[0].animations
        #expect(animations.count == 5)
        let b = try #require(animations[0] as? BasicAnimation)
        #expect(b.fromValue == .point(Point(x: 1, y: 2)) && b.toValue == nil && b.byValue == .point(Point(x: 5, y: 6)))
        #expect(b.beginTime == 0.5 && b.duration == 2 && b.speed == 2 && b.timing.timeOffset == 0.25 && b.repeatCount == 1.5)
        #expect(b.timing.autoreverses && b.timing.fillMode == .both && !b.isRemovedOnCompletion && b.isAdditive && b.isCumulative)
        #expect(b.timingFunction == (try TimingFunction(controlPoints: 0.1, 0.2, 0.3, 1.4)))
        let k = try #require(animations[1] as? KeyframeAnimation)
        #expect(k.values == [0, 1, 0.5] && k.keyTimes == [0, 0.3, 1] && k.calculationMode == .cubic)
        #expect(k.timingFunctions == [TimingFunction(name: .easeIn), try TimingFunction(controlPoints: 0.5, 0, 0.5, 1)])
        #expect(k.tensionValues == [0, 1, 0] && k.continuityValues == [0, 0.5, 0] && k.biasValues == [0, -0.5, 0])
        #expect(k.timing.repeatDuration == 3)
        let p = try #require(animations[2] as? KeyframeAnimation)
        #expect(p.path?.elements.count == 2 && p.calculationMode == .paced && p.rotationMode == .autoReverse && p.repeatCount == .infinity)
        let s = try #require(animations[3] as? SpringAnimation)
        #expect(s.toValue == 10 && s.mass == 2 && s.stiffness == 50 && s.damping == 3 && s.initialVelocity == -1 && s.allowsOverdamping)
        #expect(s.duration == 1)
        let g = try #require(animations[4] as? AnimationGroup)
        #expect(g.duration == 4 && g.timingFunction == TimingFunction(name: .easeOut) && g.animations.count == 1)
    }

    @Test("omitted fields take Core Animation's defaults; durations resolve as when added at time 0")
    func defaults() throws {
        let scene = try Self.scene(#"{"type": "basic", "keyPath": "opacity"}, {"type": "spring", "keyPath": "opacity", "to": 0}"#)
        let b = try #require(scene.layers[0].animations[0] as? BasicAnimation)
        #expect(b.duration == 0.25)   // §1.3: duration 0 runs the transaction default
        #expect(b.beginTime == 0 && b.speed == 1 && b.timing.timeOffset == 0 && b.repeatCount == 0 && !b.timing.autoreverses)
        #expect(b.timing.fillMode == .removed && b.isRemovedOnCompletion && !b.isAdditive && !b.isCumulative && b.timingFunction == nil)
        let s = try #require(scene.layers[0].animations[1] as? SpringAnimation)
        #expect(s.mass == 1 && s.stiffness == 100 && s.damping == 10 && s.initialVelocity == 0)
        #expect(s.duration == s.settlingDuration)   // a spring without a duration runs until it settles
        #expect(scene.layers[0].type == .layer && scene.layers[0].modelValue("bounds") == .rect(.zero))
    }

    @Test("an animation added under an existing key replaces it (§1.2)")
    func keysReplace() throws {
        let scene = try Self.scene(#"""
        {"type": "basic", "key": "fade", "keyPath": "opacity", "to": 0},
        {"type": "basic", "keyPath": "opacity", "to": 0.5},
        {"type": "basic", "key": "fade", "keyPath": "opacity", "to": 0.25}
        """#)
        let values = scene.layers[0].animations.compactMap { ($0 as? BasicAnimation)?.toValue }
        #expect(values == [0.5, 0.25])
    }

    @Test("paths: every element kind, element and whole-path transforms")
    func paths() throws {
        let scene = try SceneDecoder.decode(#"""
        {"layers": [{"id": "s", "type": "shape", "properties": {"path": {"elements": [
            {"move": [0, 0]}, {"line": [10, 0]}, {"quad": [[15, 5], [10, 10]]}, {"curve": [[5, 15], [0, 15], [0, 10]]},
            {"arc": {"center": [0, 0], "radius": 5, "startAngle": 0, "endAngle": 1}},
            {"arcTo": {"tangent1End": [20, 0], "tangent2End": [20, 20], "radius": 3}},
            {"close": true}, {"rect": [0, 0, 4, 4], "transform": [1, 0, 0, 1, 100, 0]}, {"ellipse": [0, 0, 4, 2]},
            {"roundedRect": {"rect": [0, 0, 10, 10], "cornerWidth": 2, "cornerHeight": 2}}
        ], "transform": [2, 0, 0, 2, 0, 0]}}}]}
        """#)
        let path = try #require(scene.layers[0].path)
        var expected = Path()
        expected.move(to: Point(x: 0, y: 0))
        expected.addLine(to: Point(x: 10, y: 0))
        expected.addQuadCurve(to: Point(x: 10, y: 10), control: Point(x: 15, y: 5))
        expected.addCurve(to: Point(x: 0, y: 10), control1: Point(x: 5, y: 15), control2: Point(x: 0, y: 15))
        expected.addArc(center: Point(x: 0, y: 0), radius: 5, startAngle: 0, endAngle: 1, clockwise: false)
        expected.addArc(tangent1End: Point(x: 20, y: 0), tangent2End: Point(x: 20, y: 20), radius: 3)
        expected.closeSubpath()
        expected.addRect(Rect(x: 0, y: 0, width: 4, height: 4), transform: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 100, ty: 0))
        expected.addEllipse(in: Rect(x: 0, y: 0, width: 4, height: 2))
        expected.addRoundedRect(in: Rect(x: 0, y: 0, width: 10, height: 10), cornerWidth: 2, cornerHeight: 2)
        #expect(path == expected.applying(AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 0, ty: 0)))
    }

    @Test("custom properties take their kind from their value; reported properties are set, then animated")
    func customProperties() throws {
        let scene = try Self.scene(#"{"type": "basic", "keyPath": "progress", "to": 1}, {"type": "basic", "keyPath": "bounds.size.width", "to": 5}"#,
                                   properties: #""progress": 0, "anchor": [1, 2], "frameRect": [0, 0, 1, 1], "opacity": 0.5"#)
        let layer = scene.layers[0]
        #expect(layer.modelValue("progress") == 0 && layer.modelValue("anchor") == .point(Point(x: 1, y: 2)))
        #expect(layer.modelValue("frameRect") == .rect(Rect(x: 0, y: 0, width: 1, height: 1)))
        #expect(layer.reportedProperties == ["progress", "anchor", "frameRect", "opacity", "bounds"])
    }

    /// Every error the decoder reports, with its message.
    @Test("bad input: one clear message naming the JSON path", arguments: [
        (#"{"layer": []}"#, "layer: unknown field (expected one of layers)"),
        (#"{}"#, "layers: is required"),
        (#"{"layers": {}}"#, "layers: must be an array (got an object)"),
        (#"{"layers": [{"type": "layer"}]}"#, "layers[0].id: is required"),
        (#"{"layers": [{"id": ""}]}"#, "layers[0].id: must not be empty"),
        (#"{"layers": [{"id": "a"}, {"id": "b", "sublayers": [{"id": "a"}]}]}"#, "layers[1].sublayers[0].id: 'a' is already the id of another layer"),
        (#"{"layers": [{"id": "a", "type": "view"}]}"#, #"layers[0].type: must be "layer" or "shape" (got "view")"#),
        (#"{"layers": [{"id": "a", "properties": {"opacity": "1"}}]}"#, "layers[0].properties.opacity: must be a number (got a string)"),
        (#"{"layers": [{"id": "a", "properties": {"position": [1]}}]}"#, "layers[0].properties.position: must be a point [x, y] (2 numbers, got 1)"),
        (#"{"layers": [{"id": "a", "properties": {"transform": [1, 0]}}]}"#, "layers[0].properties.transform: must be a transform, row-major m11…m44 (16 numbers, got 2)"),
        (#"{"layers": [{"id": "a", "properties": {"strokeEnd": 1}}]}"#, #"layers[0].properties.strokeEnd: 'strokeEnd' is a shape layer property (set "type": "shape")"#),
        (#"{"layers": [{"id": "a", "properties": {"path": []}}]}"#, #"layers[0].properties.path: only a shape layer has a path (set "type": "shape")"#),
        (#"{"layers": [{"id": "a", "properties": {"custom": true}}]}"#, "layers[0].properties.custom: a property outside the catalogue must be a number, [x, y], [x, y, w, h] or 16 numbers (got a boolean)"),
        (#"{"layers": [{"id": "a", "type": "shape", "properties": {"path": [{"line": [1, 1], "move": [0, 0]}]}}]}"#, "layers[0].properties.path[0]: an element has exactly one of move, line, quad, curve, arc, arcTo, rect, ellipse, roundedRect, close (and an optional transform)"),
        (#"{"layers": [{"id": "a", "type": "shape", "properties": {"path": [{"spline": [1, 1]}]}}]}"#, "layers[0].properties.path[0]: unknown path element 'spline' (move, line, quad, curve, arc, arcTo, rect, ellipse, roundedRect, close)"),
        (#"{"layers": [{"id": "a", "type": "shape", "properties": {"path": [{"quad": [[1, 1]]}]}}]}"#, "layers[0].properties.path[0].quad: must be [[cx, cy], [x, y]]"),
        (#"{"layers": [{"id": "a", "type": "shape", "properties": {"path": [{"arc": {"center": [0, 0], "radius": 1, "startAngle": 0}}]}}]}"#, "layers[0].properties.path[0].arc.endAngle: is required"),
        (#"{"layers": [{"id": "a", "type": "shape", "properties": {"path": [{"close": false}]}}]}"#, "layers[0].properties.path[0].close: must be true"),
        (#"{"layers": [{"id": "a", "animations": [{"keyPath": "opacity"}]}]}"#, "layers[0].animations[0].type: is required"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "fade", "keyPath": "opacity"}]}]}"#, #"layers[0].animations[0].type: must be "basic", "keyframe", "spring" or "group" (got "fade")"#),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "fromValue": 0}]}]}"#, "layers[0].animations[0].fromValue: unknown field (expected one of additive, autoreverses, beginTime, by, cumulative, duration, fillMode, from, key, keyPath, removedOnCompletion, repeatCount, repeatDuration, speed, timeOffset, timingFunction, to, type)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic"}]}]}"#, "layers[0].animations[0].keyPath: is required"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "glow", "to": 1}]}]}"#, #"layers[0].animations[0].keyPath: layer 'a' has no property 'glow' (set it in "properties" first)"#),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "position.z", "to": 1}]}]}"#, "layers[0].animations[0].keyPath: a point has no field 'z' (valid fields: x, y)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "position", "to": 1}]}]}"#, "layers[0].animations[0].to: must be an array (got a number)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "from": 0, "to": 1, "by": 1}]}]}"#, "layers[0].animations[0].by: at most two of from, to and by may be set"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "repeatCount": -1}]}]}"#, "layers[0].animations[0].repeatCount: must be ≥ 0 (got -1.0)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "repeatCount": "forever"}]}]}"#, #"layers[0].animations[0].repeatCount: must be a number or "infinity" (got a string)"#),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "fillMode": "all"}]}]}"#, #"layers[0].animations[0].fillMode: must be "removed", "forwards", "backwards" or "both" (got "all")"#),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "timingFunction": "bounce"}]}]}"#, #"layers[0].animations[0].timingFunction: must be "linear", "easeIn", "easeOut", "easeInEaseOut", "default" or [x1, y1, x2, y2] (got "bounce")"#),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "timingFunction": [1.5, 0, 0.5, 1]}]}]}"#, "layers[0].animations[0].timingFunction[0]: must be in [0, 1] so that the curve is a function of time (got 1.5)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "timingFunction": [0, 0, 1]}]}]}"#, "layers[0].animations[0].timingFunction: must be a name or [x1, y1, x2, y2] (got 3 numbers)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "keyframe", "keyPath": "opacity", "values": [0, 1], "keyTimes": [0.5, 0]}]}]}"#, "layers[0].animations[0].keyTimes: must be non-decreasing (keyTimes[1] = 0.0 after 0.5)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "keyframe", "keyPath": "opacity", "values": [0, 1], "calculationMode": "smooth"}]}]}"#, #"layers[0].animations[0].calculationMode: must be one of "linear", "discrete", "paced", "cubic", "cubicPaced" (got "smooth")"#),
        (#"{"layers": [{"id": "a", "animations": [{"type": "keyframe", "keyPath": "position", "path": [{"line": [1, 1]}], "rotationMode": "spin"}]}]}"#, #"layers[0].animations[0].rotationMode: must be "auto" or "autoReverse" (got "spin")"#),
        (#"{"layers": [{"id": "a", "animations": [{"type": "spring", "keyPath": "opacity", "to": 0, "mass": 0}]}]}"#, "layers[0].animations[0].mass: must be > 0 (got 0.0)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "group", "animations": [{"type": "basic", "keyPath": "opacity", "to": 0}, {"type": "basic", "keyPath": "opacity", "speed": "fast"}]}]}]}"#, "layers[0].animations[0].animations[1].speed: must be a number (got a string)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "group", "animations": [{"type": "spring", "keyPath": "opacity", "to": 0, "damping": -1}]}]}]}"#, "layers[0].animations[0].animations[0].damping: must be ≥ 0 (got -1.0)"),
        (#"{"layers": [{"id": "a", "animations": [{"type": "basic", "keyPath": "opacity", "additive": 1}]}]}"#, "layers[0].animations[0].additive: must be true or false (got a number)"),
        ("{\"layers\": [}", "malformed JSON at line 1, column 13: unexpected character"),
    ])
    func badInput(_ text: String, _ message: String) {
        do {
            _ = try SceneDecoder.decode(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect("\(error)" == message)
        }
    }
}

/// The JSON Schema beside docs/scene-format.md names exactly the fields the decoder accepts.
@Suite("Scene schema")
struct SceneSchemaTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    static func schema() throws -> JSON {
        try JSON.parse(String(contentsOf: docs.appendingPathComponent("scene.schema.json"), encoding: .utf8))
    }

    static func fields(_ definition: String, in schema: JSON) -> Set<String> {
        guard case .object(let members) = schema["$defs"]?[definition]?["properties"] ?? .null else { return [] }
        return Set(members.map(\.key))
    }

    @Test("animation fields: the schema and the decoder agree")
    func animationFields() throws {
        let schema = try Self.schema()
        let timing = Self.fields("timing", in: schema).union(["type"])
        #expect(timing == SceneDecoder.timingFields)
        let property = SceneDecoder.timingFields.union(SceneDecoder.propertyFields)
        #expect(Self.fields("basic", in: schema).union(timing) == property.union(SceneDecoder.valueFields))
        #expect(Self.fields("spring", in: schema).union(timing) == property.union(SceneDecoder.valueFields).union(SceneDecoder.springFields))
        #expect(Self.fields("keyframe", in: schema).union(timing) == property.union(SceneDecoder.keyframeFields))
        #expect(Self.fields("group", in: schema).union(timing) == SceneDecoder.timingFields.union(["animations"]))
        #expect(Self.fields("layer", in: schema) == ["id", "type", "properties", "animations", "sublayers"])
    }

    @Test("the format document covers every field")
    func documentCoversFields() throws {
        let text = try String(contentsOf: Self.docs.appendingPathComponent("scene-format.md"), encoding: .utf8)
        let all = SceneDecoder.timingFields.union(SceneDecoder.propertyFields).union(SceneDecoder.valueFields)
            .union(SceneDecoder.keyframeFields).union(SceneDecoder.springFields)
        for field in all { #expect(text.contains("`\(field)`"), "\(field)") }
    }
}
