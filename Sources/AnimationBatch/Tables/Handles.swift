import AnimationCore

/// Names a layer: whatever the embedding application uses, as 64 bits.
public struct LayerID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The layer's number, chosen by the embedder.
    public var rawValue: UInt64
    /// The layer numbered `rawValue`.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// Layers order by number.
    public static func < (a: LayerID, b: LayerID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "layer \(rawValue)" }
}

/// A generational handle: an index into a table and the generation that was current when the
/// handle was issued. A handle to a removed entry stops resolving, even after its index is reused.
public struct AnimationHandle: Hashable, Sendable, Comparable, CustomStringConvertible {
    let index: Int32
    let generation: UInt32

    init(index: Int32, generation: UInt32) {
        self.index = index
        self.generation = generation
    }

    /// The handle as 64 bits (generation high, index low), for foreign interfaces.
    public var rawValue: UInt64 { UInt64(generation) << 32 | UInt64(UInt32(bitPattern: index)) }

    /// A handle from ``rawValue``.
    public init(rawValue: UInt64) {
        self.init(index: Int32(bitPattern: UInt32(truncatingIfNeeded: rawValue)), generation: UInt32(rawValue >> 32))
    }

    /// Handles order by their raw value.
    public static func < (a: AnimationHandle, b: AnimationHandle) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "animation \(index)#\(generation)" }
}

/// A generational handle to an output slot: one property of one layer.
public struct SlotHandle: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let index: Int32
    @usableFromInline let generation: UInt32

    /// The handle as 64 bits (generation high, index low), for foreign interfaces.
    public var rawValue: UInt64 { UInt64(generation) << 32 | UInt64(UInt32(bitPattern: index)) }

    /// A handle from ``rawValue``.
    public init(rawValue: UInt64) {
        index = Int32(bitPattern: UInt32(truncatingIfNeeded: rawValue))
        generation = UInt32(rawValue >> 32)
    }

    init(index: Int32, generation: UInt32) {
        self.index = index
        self.generation = generation
    }

    public var description: String { "slot \(index)#\(generation)" }
}

/// Something that happened to an animation: it started, or it stopped and why (semantics §8.1).
public struct AnimationEvent: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the animation.
    public enum Kind: UInt8, Sendable {
        /// The active duration began (`animationDidStart`).
        case started
        /// The animation stopped (`animationDidStop(_:finished:)`); see the outcome.
        case stopped
    }

    /// Why an animation stopped. Only `.finished` means `finished: true`.
    public enum Outcome: UInt8, Sendable {
        /// Its active duration ended.
        case finished
        /// It was removed before the end.
        case removed
        /// It was replaced.
        case replaced
        /// It was cancelled with its layer.
        case cancelled
    }

    /// The animation (a top-level one: groups report, their children do not).
    public var animation: AnimationHandle
    /// Started or stopped.
    public var kind: Kind
    /// Nil for `.started`.
    public var outcome: Outcome?

    /// An event (`outcome` only for ``Kind/stopped``).
    public init(animation: AnimationHandle, kind: Kind, outcome: Outcome? = nil) {
        self.animation = animation
        self.kind = kind
        self.outcome = outcome
    }

    public var description: String {
        kind == .started ? "\(animation) started" : "\(animation) stopped (\(outcome.map { "\($0)" } ?? "?"))"
    }
}
