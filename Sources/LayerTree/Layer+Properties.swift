import AnimationCore

// The typed properties of semantics §11–§12: each is the same storage as its key.
extension Layer {
    /// `position` (default (0, 0)): where the anchor point sits in the superlayer.
    public var position: Point {
        get { value(forKey: "position")?.value(as: Point.self) ?? .zero }
        set { setValue(.point(newValue), forKey: "position") }
    }
    /// `bounds` (default zero).
    public var bounds: Rect {
        get { value(forKey: "bounds")?.value(as: Rect.self) ?? .zero }
        set { setValue(.rect(newValue), forKey: "bounds") }
    }
    /// `anchorPoint` (default (0.5, 0.5)), in unit coordinates of the bounds.
    public var anchorPoint: Point {
        get { value(forKey: "anchorPoint")?.value(as: Point.self) ?? Point(x: 0.5, y: 0.5) }
        set { setValue(.point(newValue), forKey: "anchorPoint") }
    }
    /// `opacity` (default 1).
    public var opacity: Double {
        get { value(forKey: "opacity")?.scalarValue ?? 1 }
        set { setValue(.scalar(newValue), forKey: "opacity") }
    }
    /// `cornerRadius` (default 0).
    public var cornerRadius: Double {
        get { value(forKey: "cornerRadius")?.scalarValue ?? 0 }
        set { setValue(.scalar(newValue), forKey: "cornerRadius") }
    }
    /// `borderWidth` (default 0).
    public var borderWidth: Double {
        get { value(forKey: "borderWidth")?.scalarValue ?? 0 }
        set { setValue(.scalar(newValue), forKey: "borderWidth") }
    }
    /// `backgroundColor` (default nil; animations compose over clear).
    public var backgroundColor: Color? {
        get { value(forKey: "backgroundColor")?.value(as: Color.self) }
        set { setValue(newValue.map(AnimationValue.color), forKey: "backgroundColor") }
    }
    /// `borderColor` (default opaque black).
    public var borderColor: Color? {
        get { value(forKey: "borderColor")?.value(as: Color.self) }
        set { setValue(newValue.map(AnimationValue.color), forKey: "borderColor") }
    }
    /// `transform` (default identity).
    public var transform: Transform3D {
        get { value(forKey: "transform")?.value(as: Transform3D.self) ?? .identity }
        set { setValue(.transform(newValue), forKey: "transform") }
    }
    /// `sublayerTransform` (default identity).
    public var sublayerTransform: Transform3D {
        get { value(forKey: "sublayerTransform")?.value(as: Transform3D.self) ?? .identity }
        set { setValue(.transform(newValue), forKey: "sublayerTransform") }
    }
    /// `zPosition` (default 0).
    public var zPosition: Double {
        get { value(forKey: "zPosition")?.scalarValue ?? 0 }
        set { setValue(.scalar(newValue), forKey: "zPosition") }
    }
    /// `shadowOpacity` (default 0).
    public var shadowOpacity: Double {
        get { value(forKey: "shadowOpacity")?.scalarValue ?? 0 }
        set { setValue(.scalar(newValue), forKey: "shadowOpacity") }
    }
    /// `shadowRadius` (default 3).
    public var shadowRadius: Double {
        get { value(forKey: "shadowRadius")?.scalarValue ?? 3 }
        set { setValue(.scalar(newValue), forKey: "shadowRadius") }
    }
    /// `shadowOffset` (default (0, −3)).
    public var shadowOffset: Size {
        get { value(forKey: "shadowOffset")?.value(as: Size.self) ?? Size(width: 0, height: -3) }
        set { setValue(.size(newValue), forKey: "shadowOffset") }
    }
    /// `shadowColor` (default opaque black).
    public var shadowColor: Color? {
        get { value(forKey: "shadowColor")?.value(as: Color.self) }
        set { setValue(newValue.map(AnimationValue.color), forKey: "shadowColor") }
    }
    /// `frame`: derived from `position`, `bounds` and `anchorPoint` (not animatable itself, §12;
    /// the transform is not applied). Setting it sets `position` and `bounds.size`.
    public var frame: Rect {
        get {
            let b = bounds, a = anchorPoint, p = position
            return Rect(x: p.x - a.x * b.size.width, y: p.y - a.y * b.size.height, width: b.size.width, height: b.size.height)
        }
        set {
            let a = anchorPoint
            var b = bounds
            b.size = newValue.size
            bounds = b
            position = Point(x: newValue.origin.x + a.x * newValue.size.width, y: newValue.origin.y + a.y * newValue.size.height)
        }
    }
}
