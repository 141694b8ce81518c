/// The kinds of value a layer property (or a field of one) holds.
public enum ValueKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A number (`CGFloat`, `Float`, `Double`).
    case scalar
    /// A ``Point``.
    case point
    /// A ``Size``.
    case size
    /// A ``Rect``.
    case rect
    /// A ``Color``.
    case color
    /// A ``Transform3D``.
    case transform
    /// An ``AffineTransform``.
    case affineTransform

    /// How many numbers a value of this kind has (16 for a transform's matrix).
    public var componentCount: Int {
        switch self {
        case .scalar: 1
        case .point, .size: 2
        case .rect, .color: 4
        case .transform: 16
        case .affineTransform: 6
        }
    }

    public var description: String { rawValue }
}

/// A value of any kind Core Animation interpolates: what `fromValue`, `toValue`, `byValue`,
/// keyframe `values` and model properties hold (the engine's counterpart of `id`/`Any` in
/// Core Animation's API).
///
/// Number literals become scalars, so `animation.fromValue = 0` reads as in Core Animation.
/// Operations between values of different kinds return the receiver unchanged; validation rejects
/// such combinations before anything is evaluated (``PropertyAnimation/validate(forPropertyKind:)``).
public enum AnimationValue: Sendable, Hashable, CustomStringConvertible {
    case scalar(Double)
    case point(Point)
    case size(Size)
    case rect(Rect)
    case color(Color)
    case transform(Transform3D)
    case affineTransform(AffineTransform)

    /// The kind of this value.
    public var kind: ValueKind {
        switch self {
        case .scalar: .scalar
        case .point: .point
        case .size: .size
        case .rect: .rect
        case .color: .color
        case .transform: .transform
        case .affineTransform: .affineTransform
        }
    }

    /// The scalar, or nil for other kinds.
    public var scalarValue: Double? {
        if case .scalar(let v) = self { return v }
        return nil
    }

    /// The value's numbers in a fixed order: x, y; width, height; x, y, width, height; red, green,
    /// blue, alpha; m11…m44 row-major; a, b, c, d, tx, ty.
    public var components: [Double] {
        Array(unsafeUninitializedCapacity: kind.componentCount) { buffer, count in
            forEachComponent { c, v in buffer.initializeElement(at: c, to: v) }   // c < componentCount, each once
            count = kind.componentCount
        }
    }

    /// Calls `body` with each component's index and number, in ``components`` order, without
    /// building an array. With ``init(kind:component:)``, the one definition of a value's
    /// components that the engine's columns, its presentation table and the C interface share.
    @inlinable @inline(__always)
    public func forEachComponent(_ body: (Int, Double) throws -> Void) rethrows {
        switch self {
        case .scalar(let v): try body(0, v)
        case .point(let p): try body(0, p.x); try body(1, p.y)
        case .size(let s): try body(0, s.width); try body(1, s.height)
        case .rect(let r): try body(0, r.origin.x); try body(1, r.origin.y); try body(2, r.size.width); try body(3, r.size.height)
        case .color(let c): try body(0, c.red); try body(1, c.green); try body(2, c.blue); try body(3, c.alpha)
        case .transform(let t):
            // Element by element: the subscript's switch per element cost a tenth of a W3 frame.
            try body(0, t.m11); try body(1, t.m12); try body(2, t.m13); try body(3, t.m14)
            try body(4, t.m21); try body(5, t.m22); try body(6, t.m23); try body(7, t.m24)
            try body(8, t.m31); try body(9, t.m32); try body(10, t.m33); try body(11, t.m34)
            try body(12, t.m41); try body(13, t.m42); try body(14, t.m43); try body(15, t.m44)
        case .affineTransform(let t):
            try body(0, t.a); try body(1, t.b); try body(2, t.c); try body(3, t.d); try body(4, t.tx); try body(5, t.ty)
        }
    }

    /// The value of `kind` whose component `c` (in ``components`` order) is `component(c)`, for
    /// `c` in `0..<kind.componentCount`: a value read from memory with no array in between.
    @inlinable @inline(__always)
    public init(kind: ValueKind, component f: (Int) throws -> Double) rethrows {
        switch kind {
        case .scalar: self = .scalar(try f(0))
        case .point: self = .point(Point(x: try f(0), y: try f(1)))
        case .size: self = .size(Size(width: try f(0), height: try f(1)))
        case .rect: self = .rect(Rect(x: try f(0), y: try f(1), width: try f(2), height: try f(3)))
        case .color: self = .color(Color(red: try f(0), green: try f(1), blue: try f(2), alpha: try f(3)))
        case .transform:
            self = .transform(Transform3D(m11: try f(0), m12: try f(1), m13: try f(2), m14: try f(3),
                                          m21: try f(4), m22: try f(5), m23: try f(6), m24: try f(7),
                                          m31: try f(8), m32: try f(9), m33: try f(10), m34: try f(11),
                                          m41: try f(12), m42: try f(13), m43: try f(14), m44: try f(15)))
        case .affineTransform:
            self = .affineTransform(AffineTransform(a: try f(0), b: try f(1), c: try f(2), d: try f(3), tx: try f(4), ty: try f(5)))
        }
    }

    /// A value of `kind` from its ``components``.
    ///
    /// - Throws: ``AnimationError`` naming `components` when the count does not match the kind.
    public init(kind: ValueKind, components c: [Double]) throws {
        self = try c.withUnsafeBufferPointer { try AnimationValue(kind: kind, components: $0) }
    }

    /// A value of `kind` from its components in ``components`` order, read from memory (no
    /// array is made).
    ///
    /// - Throws: `AnimationError` naming `components` when their count is not the kind's.
    public init(kind: ValueKind, components c: UnsafeBufferPointer<Double>) throws {
        guard c.count == kind.componentCount else {
            throw AnimationError(field: "components",
                                 reason: "a \(kind) needs \(kind.componentCount) numbers (got \(c.count))")
        }
        self.init(kind: kind) { c[$0] }
    }

    /// The identity of ⊕ for `kind`: zero, or the identity transform.
    public static func additiveIdentity(of kind: ValueKind) -> AnimationValue {
        switch kind {
        case .scalar: .scalar(0)
        case .point: .point(.zero)
        case .size: .size(.zero)
        case .rect: .rect(.zero)
        case .color: .color(Color(red: 0, green: 0, blue: 0, alpha: 0))
        case .transform: .transform(.identity)
        case .affineTransform: .affineTransform(.identity)
        }
    }

    /// True when every component is finite.
    public var isFinite: Bool { components.allSatisfy(\.isFinite) }

    public var description: String {
        switch self {
        case .scalar(let v): "\(v)"
        case .point(let p): "point\(p)"
        case .size(let s): "size\(s)"
        case .rect(let r): "rect\(r)"
        case .color(let c): "\(c)"
        case .transform(let t): "\(t)"
        case .affineTransform(let t): "\(t)"
        }
    }
}

extension AnimationValue: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    public init(floatLiteral value: Double) { self = .scalar(value) }
    public init(integerLiteral value: Int) { self = .scalar(Double(value)) }
}

/// An operation on two values of the same concrete kind, applied by ``AnimationValue/map(_:_:)``.
private protocol _BinaryOperation {
    func apply<T: Interpolatable>(_ a: T, _ b: T) -> T
}

extension AnimationValue: Interpolatable {
    /// `operation(self, other)` on the wrapped values; the receiver when the kinds differ.
    private func map(_ other: AnimationValue, _ operation: some _BinaryOperation) -> AnimationValue {
        switch (self, other) {
        case let (.scalar(a), .scalar(b)): .scalar(operation.apply(a, b))
        case let (.point(a), .point(b)): .point(operation.apply(a, b))
        case let (.size(a), .size(b)): .size(operation.apply(a, b))
        case let (.rect(a), .rect(b)): .rect(operation.apply(a, b))
        case let (.color(a), .color(b)): .color(operation.apply(a, b))
        case let (.transform(a), .transform(b)): .transform(operation.apply(a, b))
        case let (.affineTransform(a), .affineTransform(b)): .affineTransform(operation.apply(a, b))
        default: self
        }
    }

    private struct Lerp: _BinaryOperation {
        let fraction: Double
        func apply<T: Interpolatable>(_ a: T, _ b: T) -> T { a.interpolated(to: b, fraction: fraction) }
    }
    private struct Add: _BinaryOperation {
        func apply<T: Interpolatable>(_ a: T, _ b: T) -> T { a.adding(b) }
    }
    private struct Subtract: _BinaryOperation {
        func apply<T: Interpolatable>(_ a: T, _ b: T) -> T { a.subtracting(b) }
    }
    private struct Difference: _BinaryOperation {
        func apply<T: Interpolatable>(_ a: T, _ b: T) -> T { a.difference(from: b) }
    }
    private struct Repeat: _BinaryOperation {
        let count: Double
        func apply<T: Interpolatable>(_ a: T, _ b: T) -> T { a.repeated(times: count) }
    }

    public func interpolated(to end: AnimationValue, fraction: Double) -> AnimationValue {
        map(end, Lerp(fraction: fraction))
    }
    public func adding(_ delta: AnimationValue) -> AnimationValue { map(delta, Add()) }
    public func subtracting(_ delta: AnimationValue) -> AnimationValue { map(delta, Subtract()) }
    public func difference(from start: AnimationValue) -> AnimationValue { map(start, Difference()) }
    public func repeated(times count: Double) -> AnimationValue { map(self, Repeat(count: count)) }

    /// The distance within the values' kind (semantics §5.5); `.infinity` between different kinds.
    public func interpolationDistance(to other: AnimationValue) -> Double {
        switch (self, other) {
        case let (.scalar(a), .scalar(b)): a.interpolationDistance(to: b)
        case let (.point(a), .point(b)): a.interpolationDistance(to: b)
        case let (.size(a), .size(b)): a.interpolationDistance(to: b)
        case let (.rect(a), .rect(b)): a.interpolationDistance(to: b)
        case let (.color(a), .color(b)): a.interpolationDistance(to: b)
        case let (.transform(a), .transform(b)): a.interpolationDistance(to: b)
        case let (.affineTransform(a), .affineTransform(b)): a.interpolationDistance(to: b)
        default: .infinity
        }
    }
}

/// A type that converts to and from ``AnimationValue``: every value type this module animates.
public protocol AnimationValueConvertible: Interpolatable {
    /// The value's ``ValueKind``.
    static var valueKind: ValueKind { get }
    /// This value wrapped as an ``AnimationValue``.
    var animationValue: AnimationValue { get }
    /// The wrapped value, or nil when `value` is of another kind.
    init?(animationValue value: AnimationValue)
}

extension Double: AnimationValueConvertible {
    public static var valueKind: ValueKind { .scalar }
    public var animationValue: AnimationValue { .scalar(self) }
    public init?(animationValue v: AnimationValue) {
        guard case .scalar(let x) = v else { return nil }
        self = x
    }
}

extension Float: AnimationValueConvertible {
    public static var valueKind: ValueKind { .scalar }
    public var animationValue: AnimationValue { .scalar(Double(self)) }
    public init?(animationValue v: AnimationValue) {
        guard case .scalar(let x) = v else { return nil }
        self = Float(x)
    }
}

extension Point: AnimationValueConvertible {
    public static var valueKind: ValueKind { .point }
    public var animationValue: AnimationValue { .point(self) }
    public init?(animationValue v: AnimationValue) {
        guard case .point(let x) = v else { return nil }
        self = x
    }
}

extension Size: AnimationValueConvertible {
    public static var valueKind: ValueKind { .size }
    public var animationValue: AnimationValue { .size(self) }
    public init?(animationValue v: AnimationValue) {
        guard case .size(let x) = v else { return nil }
        self = x
    }
}

extension Rect: AnimationValueConvertible {
    public static var valueKind: ValueKind { .rect }
    public var animationValue: AnimationValue { .rect(self) }
    public init?(animationValue v: AnimationValue) {
        guard case .rect(let x) = v else { return nil }
        self = x
    }
}

extension Color: AnimationValueConvertible {
    public static var valueKind: ValueKind { .color }
    public var animationValue: AnimationValue { .color(self) }
    public init?(animationValue v: AnimationValue) {
        guard case .color(let x) = v else { return nil }
        self = x
    }
}

extension Transform3D: AnimationValueConvertible {
    public static var valueKind: ValueKind { .transform }
    public var animationValue: AnimationValue { .transform(self) }
    public init?(animationValue v: AnimationValue) {
        guard case .transform(let x) = v else { return nil }
        self = x
    }
}

extension AffineTransform: AnimationValueConvertible {
    public static var valueKind: ValueKind { .affineTransform }
    public var animationValue: AnimationValue { .affineTransform(self) }
    public init?(animationValue v: AnimationValue) {
        guard case .affineTransform(let x) = v else { return nil }
        self = x
    }
}

extension AnimationValue {
    /// Wraps any convertible value: `AnimationValue(Point(x: 1, y: 2))`.
    public init<V: AnimationValueConvertible>(_ value: V) { self = value.animationValue }

    /// The wrapped value as `V`, or nil when it is of another kind.
    public func value<V: AnimationValueConvertible>(as type: V.Type = V.self) -> V? { V(animationValue: self) }
}

extension AnimationValue {
    /// The largest magnitude a number in an animation's own values may have (`fromValue`,
    /// `toValue`, `byValue`, keyframe `values`, path coordinates): 1e38. The batch engine holds
    /// values in single precision (±3.4e38), and it interpolates by differences of two values,
    /// which stay inside that range only when each value is within half of it; beyond, a value
    /// became ∞ there and ∞ − ∞ read NaN where the double-precision reference was finite. Values
    /// beyond are refused when an animation is validated, in both engines alike; results that
    /// grow past single precision from values within it saturate (docs/bad-input.md).
    public static let largestMagnitude: Double = 1e38

    /// The first component whose magnitude is beyond ``largestMagnitude`` (±∞ included), or nil.
    /// NaN is not beyond: it propagates through interpolation (semantics §16).
    public var componentBeyondRange: Double? {
        var beyond: Double?
        forEachComponent { _, v in if beyond == nil, abs(v) > Self.largestMagnitude { beyond = v } }
        return beyond
    }
}
