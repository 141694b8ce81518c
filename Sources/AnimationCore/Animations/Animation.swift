/// An animation: Core Animation's `CAAnimation` as a value type.
///
/// Conforming types are values, so adding an animation copies it and later changes to the
/// caller's variable have no effect (semantics §1.2). The module's conformers are
/// ``BasicAnimation``, ``SpringAnimation`` and ``AnimationGroup`` (and the keyframe animation
/// when it lands); the reference evaluator and the batch compiler know exactly these.
///
/// The `CAMediaTiming` properties (`beginTime`, `duration`, `speed`, `timeOffset`, `repeatCount`,
/// `repeatDuration`, `autoreverses`, `fillMode`) are available directly on every animation and
/// are stored in ``timing``.
public protocol Animation: Sendable {
    /// The animation's timing (semantics §2).
    var timing: MediaTiming { get set }
    /// The pacing of each iteration; nil means linear (semantics §3.3).
    var timingFunction: TimingFunction? { get set }
    /// Whether the animation is removed once its active duration has passed (default true,
    /// semantics §1.4). Ignored for animations inside a group (§7).
    var isRemovedOnCompletion: Bool { get set }

    /// Checks every field.
    ///
    /// - Throws: ``AnimationError`` naming the first invalid field (`duration`,
    ///   `animations[1].mass`, …).
    func validate() throws

    /// A copy in which a `duration ≤ 0` becomes `duration` (semantics §1.3); groups apply it to
    /// their children too (a child with no duration would otherwise have no length at all).
    func resolvingDefaultDuration(_ duration: Double) -> Self
}

extension Animation {
    public func resolvingDefaultDuration(_ duration: Double) -> Self {
        var copy = self
        if !(copy.timing.duration > 0) { copy.timing.duration = duration }
        return copy
    }

    /// The copy a layer keeps when this animation is added to it (semantics §1.2, §1.3, §1.5):
    /// validated, with `duration ≤ 0` replaced by the transaction's `animationDuration` (or
    /// 0.25 s), and with `beginTime == 0` replaced by `layerTime`, the layer's current local time.
    ///
    /// - Throws: ``AnimationError`` naming the first invalid field, or `transactionDuration` when
    ///   it is given but not a finite positive number.
    public func preparedForAdding(layerTime: Double, transactionDuration: Double? = nil) throws -> Self {
        try validate()
        try AnimationError.requireFinite(layerTime, "layerTime")
        if let transactionDuration, !(transactionDuration > 0 && transactionDuration.isFinite) {
            throw AnimationError(field: "transactionDuration", reason: "must be a finite positive number (got \(transactionDuration))")
        }
        var copy = resolvingDefaultDuration(transactionDuration ?? MediaTiming.defaultDuration)
        if copy.timing.beginTime == 0 { copy.timing.beginTime = layerTime }
        return copy
    }

    // CAMediaTiming's properties, stored in `timing` (semantics §2.1).

    /// See ``MediaTiming/beginTime``.
    public var beginTime: Double {
        get { timing.beginTime }
        set { timing.beginTime = newValue }
    }
    /// See ``MediaTiming/duration``.
    public var duration: Double {
        get { timing.duration }
        set { timing.duration = newValue }
    }
    /// See ``MediaTiming/speed``.
    public var speed: Double {
        get { timing.speed }
        set { timing.speed = newValue }
    }
    /// See ``MediaTiming/timeOffset``.
    public var timeOffset: Double {
        get { timing.timeOffset }
        set { timing.timeOffset = newValue }
    }
    /// See ``MediaTiming/repeatCount``.
    public var repeatCount: Double {
        get { timing.repeatCount }
        set { timing.repeatCount = newValue }
    }
    /// See ``MediaTiming/repeatDuration``.
    public var repeatDuration: Double {
        get { timing.repeatDuration }
        set { timing.repeatDuration = newValue }
    }
    /// See ``MediaTiming/autoreverses``.
    public var autoreverses: Bool {
        get { timing.autoreverses }
        set { timing.autoreverses = newValue }
    }
    /// See ``MediaTiming/fillMode``.
    public var fillMode: FillMode {
        get { timing.fillMode }
        set { timing.fillMode = newValue }
    }
}

/// What every property animation holds besides its values and its own parameters: Core
/// Animation's `CAAnimation` and `CAPropertyAnimation` properties, with their defaults. Basic,
/// spring and keyframe animations store one and expose its fields as their own
/// (``PropertyAnimationStorage``), so that these properties are declared once.
public struct PropertyAnimationSettings: Sendable, Hashable {
    /// The animation's timing (semantics §2).
    public var timing = MediaTiming()
    /// The pacing of each iteration; nil means linear (semantics §3.3).
    public var timingFunction: TimingFunction?
    /// Whether the animation is removed once its active duration has passed (semantics §1.4).
    public var isRemovedOnCompletion = true
    /// Whether the value is added to the value beneath instead of replacing it (semantics §4.3).
    public var isAdditive = false
    /// Whether each iteration starts where the previous one ended (semantics §4.4).
    public var isCumulative = false
    /// A function that turns the interpolated number into a transform (semantics §4.7).
    public var valueFunction: ValueFunction?

    /// Core Animation's defaults: duration 0 (0.25 s once added), linear, removed on completion,
    /// neither additive nor cumulative, no value function.
    public init() {}
}

/// A property animation that keeps its shared properties in one ``PropertyAnimationSettings``:
/// ``PropertyAnimation``'s and ``Animation``'s properties read and write its fields.
public protocol PropertyAnimationStorage: PropertyAnimation {
    /// The shared properties, stored.
    var settings: PropertyAnimationSettings { get set }
}

extension PropertyAnimationStorage {
    /// The animation's timing (semantics §2).
    public var timing: MediaTiming {
        get { settings.timing }
        _modify { yield &settings.timing }   // in place: no copy of the timing per change
    }
    /// The pacing of each iteration; nil means linear (semantics §3.3).
    public var timingFunction: TimingFunction? {
        get { settings.timingFunction }
        set { settings.timingFunction = newValue }
    }
    /// Whether the animation is removed once its active duration has passed (default true,
    /// semantics §1.4). Ignored inside a group (§7).
    public var isRemovedOnCompletion: Bool {
        get { settings.isRemovedOnCompletion }
        set { settings.isRemovedOnCompletion = newValue }
    }
    /// Whether the value is added to the value beneath instead of replacing it (semantics §4.3).
    public var isAdditive: Bool {
        get { settings.isAdditive }
        set { settings.isAdditive = newValue }
    }
    /// Whether each iteration starts where the previous one ended (semantics §4.4).
    public var isCumulative: Bool {
        get { settings.isCumulative }
        set { settings.isCumulative = newValue }
    }
    /// A function that turns the interpolated number into a transform (semantics §4.7).
    public var valueFunction: ValueFunction? {
        get { settings.valueFunction }
        set { settings.valueFunction = newValue }
    }
}

/// An animation of one layer property: Core Animation's `CAPropertyAnimation`.
public protocol PropertyAnimation: Animation {
    /// The animated key path: a property (`"opacity"`) or a field of one (`"position.x"`,
    /// `"transform.rotation.z"`, semantics §4.6).
    var keyPath: String { get set }
    /// Whether the value is added to the value beneath instead of replacing it (semantics §4.3).
    var isAdditive: Bool { get set }
    /// Whether each iteration starts where the previous one ended (semantics §4.4).
    var isCumulative: Bool { get set }
    /// A function that turns the interpolated number into a transform (semantics §4.7).
    var valueFunction: ValueFunction? { get set }

    /// The kind of the animation's own values (`fromValue`, keyframe `values`), or nil when it has
    /// none set.
    var valueKind: ValueKind? { get }

    /// The value the animation shows in `state` over `base`, the value beneath it on its key path
    /// (semantics §4.1, §8.4), before additive composition; nil when its values do not match
    /// `base`'s kind. The reference definition each faster path is tested against.
    func value(in state: TimingState, base: AnimationValue) -> AnimationValue?

    /// d(``value(in:base:)``)/dt per second of the time `state.progressRate` is measured in, when
    /// `base` moves at `baseRate` (docs/velocity.md): a value of the same kind whose components are
    /// the rates. Nil where the value is nil, and for animation types that do not define it (the
    /// default): the reference then shows such an animation's value at rest.
    func velocity(in state: TimingState, base: AnimationValue, baseRate: AnimationValue) -> AnimationValue?
}

extension PropertyAnimation {
    public func velocity(in state: TimingState, base: AnimationValue, baseRate: AnimationValue) -> AnimationValue? { nil }
}

extension PropertyAnimation {
    /// The key path's property and field for a property whose values are of `propertyKind`.
    ///
    /// - Throws: ``AnimationError`` naming `keyPath`.
    public func parsedKeyPath(propertyKind: ValueKind) throws -> AnimationKeyPath {
        try AnimationKeyPath(keyPath, propertyKind: propertyKind)
    }

    /// Checks that the animation can animate a property whose values are of `propertyKind`: the
    /// key path's field exists, and the animation's values have the field's kind (or are numbers,
    /// with a value function on a transform property).
    ///
    /// - Throws: ``AnimationError`` naming `keyPath` or the mismatched value.
    public func validate(forPropertyKind propertyKind: ValueKind) throws {
        try validate()
        let path = try parsedKeyPath(propertyKind: propertyKind)
        let expected: ValueKind
        if valueFunction != nil {
            guard path.valueKind(propertyKind: propertyKind) == .transform else {
                throw AnimationError(field: "valueFunction", reason: "needs a transform key path ('\(keyPath)' holds a \(path.valueKind(propertyKind: propertyKind)))")
            }
            expected = .scalar
        } else {
            expected = path.valueKind(propertyKind: propertyKind)
        }
        if let kind = valueKind, kind != expected {
            throw AnimationError(field: "keyPath", reason: "'\(keyPath)' holds a \(expected) but the animation's values are a \(kind)")
        }
    }
}

/// Core Animation's `CAValueFunction` for one axis (semantics §4.7): the animation interpolates a
/// number, and the function turns it into a transform before it is applied to a `transform` key
/// path. `transform` with `rotateZ` from 0 to 2π turns a full circle.
///
/// A missing `fromValue` or `toValue` starts or ends at the function's ``identityInput`` (0 for
/// rotations and translations, 1 for scales) — the number whose transform is the identity.
/// [inferred]
public enum ValueFunction: String, Sendable, CaseIterable {
    case rotateX, rotateY, rotateZ
    case scaleX, scaleY, scaleZ
    case translateX, translateY, translateZ

    /// The transform for the interpolated number `v`.
    public func transform(for v: Double) -> Transform3D {
        switch self {
        case .rotateX: .rotation(angle: v, x: 1, y: 0, z: 0)
        case .rotateY: .rotation(angle: v, x: 0, y: 1, z: 0)
        case .rotateZ: .rotation(angle: v, x: 0, y: 0, z: 1)
        case .scaleX: .scale(x: v, y: 1, z: 1)
        case .scaleY: .scale(x: 1, y: v, z: 1)
        case .scaleZ: .scale(x: 1, y: 1, z: v)
        case .translateX: .translation(x: v, y: 0, z: 0)
        case .translateY: .translation(x: 0, y: v, z: 0)
        case .translateZ: .translation(x: 0, y: 0, z: v)
        }
    }

    /// The input whose transform is the identity: 1 for scales, 0 otherwise.
    public var identityInput: Double {
        switch self {
        case .scaleX, .scaleY, .scaleZ: 1
        default: 0
        }
    }
}
