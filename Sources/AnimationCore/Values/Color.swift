/// A colour as red, green, blue and alpha components, not premultiplied: the engine's `CGColor`
/// in one shared RGB colour space (semantics §4.5).
///
/// Animated component-wise on the non-premultiplied components, as Core Animation and GNUstep do.
/// Components are not clamped: an overshooting timing function may carry them outside [0, 1]; a
/// renderer clamps when it draws.
public struct Color: Sendable, Hashable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Transparent black (0, 0, 0, 0): what a `nil` colour property shows.
    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
    /// Opaque black.
    public static let black = Color(red: 0, green: 0, blue: 0, alpha: 1)
    /// Opaque white.
    public static let white = Color(red: 1, green: 1, blue: 1, alpha: 1)

    public var description: String { "rgba(\(red), \(green), \(blue), \(alpha))" }
}

extension Color: Interpolatable {
    public func interpolated(to e: Color, fraction f: Double) -> Color {
        Color(red: red.interpolated(to: e.red, fraction: f), green: green.interpolated(to: e.green, fraction: f),
              blue: blue.interpolated(to: e.blue, fraction: f), alpha: alpha.interpolated(to: e.alpha, fraction: f))
    }
    public func adding(_ d: Color) -> Color {
        Color(red: red.adding(d.red), green: green.adding(d.green), blue: blue.adding(d.blue), alpha: alpha.adding(d.alpha))
    }
    public func subtracting(_ d: Color) -> Color {
        Color(red: red - d.red, green: green - d.green, blue: blue - d.blue, alpha: alpha - d.alpha)
    }
    public func difference(from s: Color) -> Color {
        Color(red: red.difference(from: s.red), green: green.difference(from: s.green),
              blue: blue.difference(from: s.blue), alpha: alpha.difference(from: s.alpha))
    }
    public func repeated(times n: Double) -> Color {
        Color(red: red.repeated(times: n), green: green.repeated(times: n),
              blue: blue.repeated(times: n), alpha: alpha.repeated(times: n))
    }
    public func interpolationDistance(to o: Color) -> Double {
        let r = o.red - red, g = o.green - green, b = o.blue - blue, a = o.alpha - alpha
        return (r * r + g * g + b * b + a * a).squareRoot()
    }
}
