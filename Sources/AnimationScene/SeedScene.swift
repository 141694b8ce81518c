import AnimationCore

/// Workload W3 of docs/architecture.md as a scene: layers of the five seed kinds, cycled — a progress ring
/// (eased `strokeEnd` and a custom `progress`), a stroke drawing itself around a rounded rectangle
/// (`strokeEnd` and `strokeStart` in a repeating group), a layer flying along a circular arc in
/// paced mode with `rotationMode` auto, a background-colour change that autoreverses, and a spring.
///
/// Every layer's timing is shifted by its own `timeOffset` so that the layers are spread over their
/// cycles instead of moving in lockstep; layers sit on a grid 120 points apart. The result is
/// deterministic: the same count gives the same scene.
///
/// `animation-engine bench --scene seeds` builds the same layers as a LayerTree (LayerTreeSeeds'
/// `SeedTree`) and measures its ticks; the scene is what the reference comparison and the
/// package-benchmark `W3 seed layers` frames use.
public enum SeedScene {
    /// The five kinds, in the order the layers cycle through them.
    public static let kinds = ["progressRing", "stroke", "arc", "color", "spring"]

    /// A scene of `layers` top-level layers (ids `<kind>-<index>`).
    ///
    /// - Throws: ``SceneError`` at `layers` when the count is not in 1…10,000,000.
    public static func make(layers count: Int) throws -> Scene {
        guard count >= 1 && count <= 10_000_000 else {
            throw SceneError(path: "layers", reason: "must be between 1 and 10,000,000 (got \(count))")
        }
        let templates = try kinds.map(template)
        var layers: [SceneLayer] = []
        layers.reserveCapacity(count)
        for i in 0..<count {
            let kind = i % templates.count
            var layer = templates[kind]
            layer.id = "\(kinds[kind])-\(i)"
            // Phase spread: the golden ratio keeps consecutive layers' offsets far apart.
            let phase = (Double(i) * 0.618_033_988_749_895).truncatingRemainder(dividingBy: 1)
            layer.animations = layer.animations.map { animation in
                var shifted = animation
                shifted.timing.timeOffset = phase * 2
                return shifted
            }
            let column = i % 100, row = i / 100
            layer.properties = layer.properties.map { name, value in
                guard name == "position", case .point(let p) = value else { return (name, value) }
                return (name, .point(Point(x: p.x + Double(column) * 120, y: p.y + Double(row) * 120)))
            }
            layers.append(layer)
        }
        return Scene(layers: layers)
    }

    /// One layer of `kind`, positioned in the first grid cell.
    static func template(_ kind: String) throws -> SceneLayer {
        func added<A: Animation>(_ a: A) throws -> any Animation { try a.preparedForAdding(layerTime: 0) }
        let frame: [(name: String, value: AnimationValue)] = [
            ("position", .point(Point(x: 60, y: 60))), ("bounds", .rect(Rect(x: 0, y: 0, width: 100, height: 100))),
        ]
        switch kind {
        case "progressRing":
            var ring = Path()
            ring.addArc(center: Point(x: 50, y: 50), radius: 40, startAngle: -.pi / 2, endAngle: 1.5 * .pi, clockwise: false)
            var strokeEnd = BasicAnimation(keyPath: "strokeEnd", from: 0.0, to: 0.72, duration: 2, timingFunction: .easeInEaseOut)
            strokeEnd.fillMode = .forwards
            strokeEnd.isRemovedOnCompletion = false
            var progress = BasicAnimation(keyPath: "progress", from: 0.0, to: 0.72, duration: 2, timingFunction: .easeInEaseOut)
            progress.fillMode = .forwards
            progress.isRemovedOnCompletion = false
            return SceneLayer(id: kind, type: .shape,
                              properties: frame + [("fillColor", .color(.clear)), ("strokeColor", .color(Color(red: 0.2, green: 0.55, blue: 0.95))),
                                                   ("lineWidth", .scalar(10)), ("strokeEnd", .scalar(0)), ("progress", .scalar(0))],
                              path: ring, animations: [try added(strokeEnd), try added(progress)])
        case "stroke":
            var border = Path()
            border.addRoundedRect(in: Rect(x: 10, y: 26, width: 80, height: 48), cornerWidth: 5, cornerHeight: 5)
            // The border seed: strokeEnd linear over d, strokeStart easeIn to 0.25 over 1.2·d.
            let end = BasicAnimation(keyPath: "strokeEnd", from: 0.0, to: 1.0, duration: 1.5)
            let start = BasicAnimation(keyPath: "strokeStart", from: 0.0, to: 0.25, duration: 1.8, timingFunction: .easeIn)
            var group = AnimationGroup(animations: [end, start], duration: 2.2)
            group.repeatCount = .infinity
            return SceneLayer(id: kind, type: .shape,
                              properties: frame + [("fillColor", .color(.clear)), ("strokeColor", .color(Color(red: 0.95, green: 0.4, blue: 0.2))),
                                                   ("lineWidth", .scalar(3))],
                              path: border, animations: [try added(group)])
        case "arc":
            var circle = Path()
            // Seed (b): a circle of two arcs, followed at constant speed; additive, so the path is
            // relative to the layer's model position (the centre of its grid cell).
            circle.addArc(center: Point(x: 0, y: 0), radius: 40, startAngle: .pi, endAngle: 0, clockwise: false)
            circle.addArc(center: Point(x: 0, y: 0), radius: 40, startAngle: 0, endAngle: .pi, clockwise: false)
            var fly = KeyframeAnimation(keyPath: "position", path: circle, calculationMode: .paced, rotationMode: .auto, duration: 3)
            fly.isAdditive = true
            fly.repeatCount = .infinity
            return SceneLayer(id: kind, properties: [("position", .point(Point(x: 60, y: 60))),
                                                     ("bounds", .rect(Rect(x: 0, y: 0, width: 24, height: 12))),
                                                     ("backgroundColor", .color(Color(red: 0.3, green: 0.3, blue: 0.35))),
                                                     ("cornerRadius", .scalar(3))],
                              animations: [try added(fly)])
        case "color":
            var tint = BasicAnimation(keyPath: "backgroundColor", to: Color(red: 0.2, green: 0.45, blue: 0.95), duration: 1.5,
                                      timingFunction: .easeOut)
            tint.autoreverses = true
            tint.repeatCount = .infinity
            return SceneLayer(id: kind, properties: frame + [("backgroundColor", .color(Color(red: 0.95, green: 0.3, blue: 0.3))),
                                                             ("cornerRadius", .scalar(12))],
                              animations: [try added(tint)])
        default:
            // Additive: the spring settles on the model position from 40 points to its left.
            var bounce = SpringAnimation(keyPath: "position.x", from: -40.0, to: 0.0, mass: 1, stiffness: 120, damping: 8)
            bounce.isAdditive = true
            bounce.timing.duration = bounce.settlingDuration
            bounce.repeatCount = .infinity
            return SceneLayer(id: kind, properties: frame + [("backgroundColor", .color(Color(red: 0.25, green: 0.7, blue: 0.4))),
                                                             ("cornerRadius", .scalar(20))],
                              animations: [try added(bounce)])
        }
    }
}
