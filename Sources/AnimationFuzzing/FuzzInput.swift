import AnimationCore

/// The fuzzer's bytes read as a program: choices, counts and numbers taken one after another.
///
/// Reading past the end gives zeros, so every input, however short, decodes to some program and
/// every loop over it ends (counts are bounded by the caller's ranges). Numbers come in two sorts:
/// ordinary ones, spread over `±scale` (and small integers, which hit the exact edges: key times 0
/// and 1, zero lengths, equal points), and, one time in ten when the caller allows it, an edge
/// value of the bad-input catalogue (docs/bad-input.md): NaN, ±∞, ±0, 1e300, the smallest
/// subnormal, 10^7. ``sawUnusual`` records whether any number was not ordinary: the checks that
/// hold only for ordinary input (finite results, agreement within the precision table) look at it.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0
    /// True once a number outside the ordinary range was handed out.
    public private(set) var sawUnusual = false
    /// Whether any number was NaN or ±∞: where none was, no value read may be NaN.
    public private(set) var sawNonFinite = false

    /// The bytes to read.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// True when every byte has been read (later reads give zeros).
    public var isExhausted: Bool { index >= bytes.count }

    /// The next byte (0 past the end).
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A choice among `count` options (`count` ≥ 1).
    public mutating func choice(_ count: Int) -> Int { Int(byte()) % max(count, 1) }

    /// A flag.
    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// An integer in `range`, from two bytes.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let raw = Int(byte()) << 8 | Int(byte())
        return range.lowerBound + raw % (range.upperBound - range.lowerBound + 1)
    }

    /// The edge values, in the order a selector byte picks them.
    public static let edgeValues: [Double] = [
        .nan, .infinity, -.infinity, 0, -0.0, 1e300, -1e300, .leastNonzeroMagnitude,
        .greatestFiniteMagnitude, 1e7, -1e7, 1e-300,
    ]

    /// A number: ordinary (within `±scale`, a quarter of them small integers) or, when
    /// `edges` is true, one time in ten an edge value (``edgeValues``).
    public mutating func number(scale: Double = 100, edges: Bool = true) -> Double {
        let selector = byte()
        if edges && selector < 26 {
            let value = Self.edgeValues[Int(selector) % Self.edgeValues.count]
            if !(value.isFinite && abs(value) <= 1e6 && (value == 0 || abs(value) >= 1e-6)) { sawUnusual = true }
            if !value.isFinite { sawNonFinite = true }
            return value
        }
        if selector % 4 == 0 { return Double(Int(byte() % 5) - 1) }   // -1, 0, 1, 2, 3
        let raw = Double(Int(byte()) << 8 | Int(byte())) / 65_535
        return (raw * 2 - 1) * scale
    }

    /// A number in [0, 1] (ordinary), or an edge value when `edges` allows.
    public mutating func fraction(edges: Bool = true) -> Double {
        let selector = byte()
        if edges && selector < 20 { return number(scale: 1, edges: true) }
        if selector % 3 == 0 { return selector % 2 == 0 ? 0 : 1 }
        return Double(byte()) / 255
    }

    /// A point of two numbers.
    public mutating func point(scale: Double = 100, edges: Bool = true) -> Point {
        Point(x: number(scale: scale, edges: edges), y: number(scale: scale, edges: edges))
    }

    /// A value of `kind`, every component a number.
    public mutating func value(of kind: ValueKind, scale: Double = 100, edges: Bool = true) -> AnimationValue {
        let components = (0..<kind.componentCount).map { _ in number(scale: scale, edges: edges) }
        // The count is the kind's by construction: the initialiser cannot throw here.
        return try! AnimationValue(kind: kind, components: components)
    }
}

/// A check of a fuzz target that did not hold: what, and on which step of the decoded program.
public struct FuzzFailure: Error, CustomStringConvertible {
    /// The rule broken and the values that broke it.
    public var description: String

    /// A failure described by `description`.
    public init(_ description: String) { self.description = description }
}

/// Throws a ``FuzzFailure`` with `message` unless `condition` holds.
@inline(__always)
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw FuzzFailure(message()) }
}
