#if canImport(Foundation)
import Foundation

// Conversions from and to Foundation's Core Graphics geometry, so that code ported from Apple
// platforms reads naturally (`Point(cgPoint)`, `rect.cgRect`).

extension Point {
    /// The point with the coordinates of `p`.
    public init(_ p: CGPoint) { self.init(x: Double(p.x), y: Double(p.y)) }
    /// This point as a `CGPoint`.
    public var cgPoint: CGPoint { CGPoint(x: x, y: y) }
}

extension Size {
    /// The size with the dimensions of `s`.
    public init(_ s: CGSize) { self.init(width: Double(s.width), height: Double(s.height)) }
    /// This size as a `CGSize`.
    public var cgSize: CGSize { CGSize(width: width, height: height) }
}

extension Rect {
    /// The rectangle with the origin and size of `r` (not standardised).
    public init(_ r: CGRect) { self.init(origin: Point(r.origin), size: Size(r.size)) }
    /// This rectangle as a `CGRect`.
    public var cgRect: CGRect { CGRect(origin: origin.cgPoint, size: size.cgSize) }
}
#endif
