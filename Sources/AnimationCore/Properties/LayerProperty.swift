/// An animatable property of `CALayer` or `CAShapeLayer`: its name, the kind of its values, its
/// default (semantics §11) and whether changing it runs an implicit animation (§12).
///
/// The catalog is what scene files, the layer tree and the batch compiler agree on. Properties
/// outside it (a custom `progress`, say) are allowed wherever a model value gives their kind.
public struct LayerProperty: Sendable, Hashable {
    /// The key, as Core Animation spells it (`"position"`, `"strokeEnd"`).
    public let name: String
    /// The kind of its values.
    public let kind: ValueKind
    /// Its value when never set (semantics §11, `defaultValue(forKey:)`).
    public let defaultValue: AnimationValue
    /// Whether setting it outside a transaction that disables actions animates it (§12).
    public let isImplicitlyAnimated: Bool
    /// Whether only `CAShapeLayer` has it.
    public let isShapeLayerProperty: Bool

    private init(_ name: String, _ kind: ValueKind, _ defaultValue: AnimationValue,
                 implicit: Bool = true, shape: Bool = false) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.isImplicitlyAnimated = implicit
        self.isShapeLayerProperty = shape
    }

    /// Every cataloged property: `CALayer`'s animatable geometry and appearance, then
    /// `CAShapeLayer`'s (semantics §11, §12).
    public static let all: [LayerProperty] = [
        LayerProperty("anchorPoint", .point, .point(Point(x: 0.5, y: 0.5))),
        LayerProperty("anchorPointZ", .scalar, 0),
        LayerProperty("backgroundColor", .color, .color(.clear)),
        LayerProperty("borderColor", .color, .color(.black)),
        LayerProperty("borderWidth", .scalar, 0),
        LayerProperty("bounds", .rect, .rect(.zero)),
        LayerProperty("contentsRect", .rect, .rect(Rect(x: 0, y: 0, width: 1, height: 1))),
        LayerProperty("cornerRadius", .scalar, 0),
        LayerProperty("opacity", .scalar, 1),
        LayerProperty("position", .point, .point(.zero)),
        LayerProperty("shadowColor", .color, .color(.black)),
        LayerProperty("shadowOffset", .size, .size(Size(width: 0, height: -3))),
        LayerProperty("shadowOpacity", .scalar, 0),
        LayerProperty("shadowRadius", .scalar, 3),
        LayerProperty("sublayerTransform", .transform, .transform(.identity)),
        LayerProperty("transform", .transform, .transform(.identity)),
        LayerProperty("zPosition", .scalar, 0),
        LayerProperty("fillColor", .color, .color(.black), shape: true),
        LayerProperty("lineDashPhase", .scalar, 0, shape: true),
        LayerProperty("lineWidth", .scalar, 1, shape: true),
        LayerProperty("miterLimit", .scalar, 10, shape: true),
        LayerProperty("strokeColor", .color, .color(.clear), shape: true),
        LayerProperty("strokeEnd", .scalar, 1, shape: true),
        LayerProperty("strokeStart", .scalar, 0, shape: true),
    ]

    /// What a property change asks of a cataloged property, by index in ``all``, without
    /// copying the property (its name and default hold references, retained and released at
    /// each copy).
    package struct Traits: Sendable {
        package let kind: ValueKind
        package let isImplicitlyAnimated: Bool
        package let isShapeLayerProperty: Bool
    }

    /// ``Traits`` of each property of ``all``, in its order.
    package static let traits: [Traits] = all.map {
        Traits(kind: $0.kind, isImplicitlyAnimated: $0.isImplicitlyAnimated, isShapeLayerProperty: $0.isShapeLayerProperty)
    }

    /// The catalog by name length and first byte: `heads[length * 32 + byte & 31]` is the first
    /// index of a bucket (−1: empty) and `chain[i]` the next one in index `i`'s bucket. A layer
    /// asks the catalog two or three times per property change; a bucket holds one or two names,
    /// compared as they are, where a dictionary would hash every name first.
    private static let buckets: (heads: [Int8], chain: [Int8]) = {
        var heads = [Int8](repeating: -1, count: 32 * 32)
        var chain = [Int8](repeating: -1, count: all.count)
        for i in all.indices.reversed() {
            guard let b = bucket(of: all[i].name) else { continue }   // every catalog name has one
            chain[i] = heads[b]
            heads[b] = Int8(i)
        }
        return (heads, chain)
    }()

    private static func bucket(of name: String) -> Int? {
        let utf8 = name.utf8
        guard let first = utf8.first, utf8.count < 32 else { return nil }
        return utf8.count * 32 + Int(first & 31)
    }

    /// The index in ``all`` of the property named `name`, or nil.
    package static func index(named name: String) -> Int? {
        guard let b = bucket(of: name) else { return nil }
        var i = Int(buckets.heads[b])
        while i >= 0 {   // bounded: each index is in one bucket's chain once
            if all[i].name == name { return i }
            i = Int(buckets.chain[i])
        }
        return nil
    }

    /// The cataloged property named `name`, or nil.
    public static func named(_ name: String) -> LayerProperty? { index(named: name).map { all[$0] } }
}
