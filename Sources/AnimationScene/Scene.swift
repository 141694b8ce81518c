import AnimationCore

/// A scene file's content: a tree of layers with model values and animations (the format is
/// documented in `docs/scene-format.md`, with a JSON Schema beside it).
public struct Scene: Sendable {
    /// The top-level layers, back to front.
    public var layers: [SceneLayer]

    /// A scene of `layers`.
    public init(layers: [SceneLayer]) { self.layers = layers }

    /// Every layer, depth first, parents before their sublayers.
    public var allLayers: [SceneLayer] {
        var out: [SceneLayer] = []
        func visit(_ l: SceneLayer) {
            out.append(l)
            l.sublayers.forEach(visit)
        }
        layers.forEach(visit)
        return out
    }
}

/// One layer of a scene.
public struct SceneLayer: Sendable {
    /// Whether the layer draws a path (`CAShapeLayer`) or only its own rectangle (`CALayer`).
    public enum LayerType: String, Sendable, CaseIterable {
        case layer, shape
    }

    /// The layer's name, unique in the scene.
    public var id: String
    /// `CALayer` or `CAShapeLayer`.
    public var type: LayerType
    /// Model values set in the file, in file order. Properties not set have their defaults
    /// (semantics §11) and are reported only when animated.
    public var properties: [(name: String, value: AnimationValue)]
    /// A shape layer's path (`CAShapeLayer.path`), if set.
    public var path: Path?
    /// Animations in add order; every one is added at scene time 0.
    public var animations: [any Animation]
    /// Layers drawn above this one, in its coordinate space.
    public var sublayers: [SceneLayer]

    /// A layer (animations as decoded: resolved for adding at time 0).
    public init(id: String, type: LayerType = .layer, properties: [(name: String, value: AnimationValue)] = [],
                path: Path? = nil, animations: [any Animation] = [], sublayers: [SceneLayer] = []) {
        self.id = id
        self.type = type
        self.properties = properties
        self.path = path
        self.animations = animations
        self.sublayers = sublayers
    }

    /// The model value of `name`: the file's value, else the catalogue default (semantics §11).
    public func modelValue(_ name: String) -> AnimationValue? {
        properties.last { $0.name == name }?.value ?? LayerProperty.named(name)?.defaultValue
    }

    /// The properties to report: those set in the file, then those animated (in first-animated
    /// order), each once.
    public var reportedProperties: [String] {
        var names: [String] = []
        var seen = Set<String>()
        for (name, _) in properties where seen.insert(name).inserted { names.append(name) }
        for animation in animations {
            for leaf in animation.leaves {
                let property = AnimationKeyPath.split(leaf.animation.keyPath).property
                if seen.insert(property).inserted { names.append(property) }
                if let k = leaf.animation as? KeyframeAnimation, k.rotationMode != nil, k.path != nil,
                   seen.insert("transform").inserted {
                    names.append("transform")   // §5.7: the rotation turns the transform
                }
            }
        }
        return names
    }

    /// The model values of ``reportedProperties``.
    public var model: [String: AnimationValue] {
        var out: [String: AnimationValue] = [:]
        for name in reportedProperties { out[name] = modelValue(name) }
        return out
    }
}

/// A scene file that cannot be used: where (the JSON path, `layers[3].animations[0].keyTimes`) and why.
public struct SceneError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON path of the offending value (empty for the document itself).
    public var path: String
    /// What is wrong with it.
    public var reason: String

    /// An error at `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `"<path>: <reason>"`.
    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
