import Foundation

/// A point in a two-dimensional coordinate space: the engine's `CGPoint` (semantics §4.5).
///
/// Animated component-wise. Field key paths `x` and `y` (semantics §4.6).
public struct Point: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin, (0, 0).
    public static let zero = Point(x: 0, y: 0)

    /// The point transformed by `t`: `(x, y, 1) · t` (Core Graphics' row-vector convention).
    @inlinable
    public func applying(_ t: AffineTransform) -> Point {
        Point(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }

    public var description: String { "(\(x), \(y))" }
}

extension Point: Interpolatable {
    public func interpolated(to end: Point, fraction: Double) -> Point {
        Point(x: x.interpolated(to: end.x, fraction: fraction), y: y.interpolated(to: end.y, fraction: fraction))
    }
    public func adding(_ d: Point) -> Point { Point(x: x.adding(d.x), y: y.adding(d.y)) }
    public func subtracting(_ d: Point) -> Point { Point(x: x - d.x, y: y - d.y) }
    public func difference(from s: Point) -> Point { Point(x: x.difference(from: s.x), y: y.difference(from: s.y)) }
    public func repeated(times n: Double) -> Point { Point(x: x.repeated(times: n), y: y.repeated(times: n)) }
    public func interpolationDistance(to o: Point) -> Double { hypot(o.x - x, o.y - y) }
}

/// A width and a height: the engine's `CGSize` (semantics §4.5).
///
/// Animated component-wise; sizes may be negative, as in Core Graphics. Field key paths `width`
/// and `height` (semantics §4.6).
public struct Size: Sendable, Hashable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// (0, 0).
    public static let zero = Size(width: 0, height: 0)

    public var description: String { "(\(width) × \(height))" }
}

extension Size: Interpolatable {
    public func interpolated(to end: Size, fraction: Double) -> Size {
        Size(width: width.interpolated(to: end.width, fraction: fraction),
             height: height.interpolated(to: end.height, fraction: fraction))
    }
    public func adding(_ d: Size) -> Size { Size(width: width.adding(d.width), height: height.adding(d.height)) }
    public func subtracting(_ d: Size) -> Size { Size(width: width - d.width, height: height - d.height) }
    public func difference(from s: Size) -> Size {
        Size(width: width.difference(from: s.width), height: height.difference(from: s.height))
    }
    public func repeated(times n: Double) -> Size { Size(width: width.repeated(times: n), height: height.repeated(times: n)) }
    public func interpolationDistance(to o: Size) -> Double { hypot(o.width - width, o.height - height) }
}

/// An origin and a size: the engine's `CGRect` (semantics §4.5).
///
/// Animated component-wise on origin and size (not on corners), like Core Animation. Field key paths
/// `origin`, `origin.x`, `origin.y`, `size`, `size.width`, `size.height` (semantics §4.6).
public struct Rect: Sendable, Hashable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    public var minX: Double { min(origin.x, origin.x + size.width) }
    public var maxX: Double { max(origin.x, origin.x + size.width) }
    public var midX: Double { origin.x + size.width / 2 }
    public var minY: Double { min(origin.y, origin.y + size.height) }
    public var maxY: Double { max(origin.y, origin.y + size.height) }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { abs(size.width) }
    public var height: Double { abs(size.height) }

    public var description: String { "(\(origin.x), \(origin.y), \(size.width), \(size.height))" }
}

extension Rect: Interpolatable {
    public func interpolated(to end: Rect, fraction: Double) -> Rect {
        Rect(origin: origin.interpolated(to: end.origin, fraction: fraction),
             size: size.interpolated(to: end.size, fraction: fraction))
    }
    public func adding(_ d: Rect) -> Rect { Rect(origin: origin.adding(d.origin), size: size.adding(d.size)) }
    public func subtracting(_ d: Rect) -> Rect { Rect(origin: origin.subtracting(d.origin), size: size.subtracting(d.size)) }
    public func difference(from s: Rect) -> Rect { Rect(origin: origin.difference(from: s.origin), size: size.difference(from: s.size)) }
    public func repeated(times n: Double) -> Rect { Rect(origin: origin.repeated(times: n), size: size.repeated(times: n)) }
    public func interpolationDistance(to o: Rect) -> Double {
        let dx = o.origin.x - origin.x, dy = o.origin.y - origin.y
        let dw = o.size.width - size.width, dh = o.size.height - size.height
        return (dx * dx + dy * dy + dw * dw + dh * dh).squareRoot()
    }
}
