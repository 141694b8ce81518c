import AnimationCore

/// Core Animation's `CAShapeLayer`: a path filled and stroked, with a stroke trimmed to
/// `strokeStart`…`strokeEnd` of its length (semantics §12, §13).
///
/// `fillColor`, `strokeColor`, `lineWidth`, `miterLimit`, `lineDashPhase`, `strokeStart` and
/// `strokeEnd` animate implicitly; `path` is model-only here (Core Animation animates it
/// explicitly; the engine has no path values yet).
open class ShapeLayer: Layer {
    /// The path drawn (default nil). Not animated.
    public var path: Path?

    public required init() { super.init() }

    /// A copy of `layer`, with its path when it is a shape layer.
    public required init(layer: Layer) {
        path = (layer as? ShapeLayer)?.path
        super.init(layer: layer)
    }

    /// Shape-layer defaults (§11): `fillColor` opaque black, `strokeColor` nil, `lineWidth` 1,
    /// `miterLimit` 10, `strokeEnd` 1, the rest 0; then the layer's.
    open override class func defaultValue(forKey key: String) -> AnimationValue? {
        if let property = LayerProperty.named(key), property.isShapeLayerProperty {
            return key == "strokeColor" ? nil : property.defaultValue
        }
        return super.defaultValue(forKey: key)
    }

    /// Shape-layer properties animate implicitly (§12), then the layer's.
    open override class func defaultAction(forKey event: String) -> LayerAction? {
        if let i = LayerProperty.index(named: event), LayerProperty.traits[i].isShapeLayerProperty {
            return TransactionStack.current.implicitAction(index: i, key: event)
        }
        return super.defaultAction(forKey: event)
    }

    /// `fillColor` (default opaque black).
    public var fillColor: Color? {
        get { value(forKey: "fillColor")?.value(as: Color.self) }
        set { setValue(newValue.map(AnimationValue.color), forKey: "fillColor") }
    }
    /// `strokeColor` (default nil: no stroke).
    public var strokeColor: Color? {
        get { value(forKey: "strokeColor")?.value(as: Color.self) }
        set { setValue(newValue.map(AnimationValue.color), forKey: "strokeColor") }
    }
    /// `lineWidth` (default 1).
    public var lineWidth: Double {
        get { value(forKey: "lineWidth")?.scalarValue ?? 1 }
        set { setValue(.scalar(newValue), forKey: "lineWidth") }
    }
    /// `miterLimit` (default 10).
    public var miterLimit: Double {
        get { value(forKey: "miterLimit")?.scalarValue ?? 10 }
        set { setValue(.scalar(newValue), forKey: "miterLimit") }
    }
    /// `lineDashPhase` (default 0).
    public var lineDashPhase: Double {
        get { value(forKey: "lineDashPhase")?.scalarValue ?? 0 }
        set { setValue(.scalar(newValue), forKey: "lineDashPhase") }
    }
    /// `strokeStart` (default 0): where the drawn part of the stroke begins, as a fraction of the
    /// path's length (§13).
    public var strokeStart: Double {
        get { value(forKey: "strokeStart")?.scalarValue ?? 0 }
        set { setValue(.scalar(newValue), forKey: "strokeStart") }
    }
    /// `strokeEnd` (default 1): where it ends (§13).
    public var strokeEnd: Double {
        get { value(forKey: "strokeEnd")?.scalarValue ?? 1 }
        set { setValue(.scalar(newValue), forKey: "strokeEnd") }
    }
}
