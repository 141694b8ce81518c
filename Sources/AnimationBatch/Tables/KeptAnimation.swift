import AnimationCore

/// An added animation as the engine keeps it, to hand back to a reader (``TrackStore/animation(_:)``,
/// semantics §1.2) and to compile or configure again: basic, spring and keyframe animations
/// packed into words, anything else (groups, custom animations) boxed as given.
///
/// Packing is what makes a million animations affordable: a `BasicAnimation` is 624 bytes inline
/// (three optional values sized for a 4×4 transform, and the shared settings) and as an
/// `any Animation` a 640-byte heap box, while a basic animation of a number packs into six or
/// seven words (48–56 bytes); a keyframe animation carries its values at 136 bytes each and a
/// plan of tangents and arc lengths (kilobytes for a path), which packing drops and reading back
/// rebuilds. What is packed comes back exactly, bit for bit (``PackedAnimation/unpacked``); what
/// cannot be packed is boxed.
enum KeptAnimation {
    case packed(PackedAnimation)
    case boxed(AnimationBox)

    init(_ animation: any Animation) {
        if let packed = PackedAnimation(animation) {
            self = .packed(packed)
        } else {
            self = .boxed(AnimationBox(animation))
        }
    }

    /// A basic or spring animation's values, read in place: no box (configuring a track, which
    /// frames that reap do, must not allocate). Nil for other animations.
    var interpolation: Interpolation? {
        switch self {
        case .packed(let packed): packed.interpolation
        case .boxed(let box): Interpolation(box.animation)
        }
    }

    /// The animation as it was added (a packed one decoded: a box, and for a keyframe animation
    /// its plan rebuilt; read it once per change, not in a loop).
    var animation: any Animation {
        switch self {
        case .packed(let packed): packed.unpacked
        case .boxed(let box): box.animation
        }
    }
}

/// What configuring a basic or spring track reads of its animation (semantics §4.1, §4.4).
struct Interpolation {
    var from, to, by: AnimationValue?
    var isCumulative: Bool

    init(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?, isCumulative: Bool) {
        (self.from, self.to, self.by, self.isCumulative) = (from, to, by, isCumulative)
    }

    /// A basic or spring animation's; nil for others. Generic, so that an existential of any
    /// animation protocol is opened, not converted: converting `any PropertyAnimation` to
    /// `any Animation` copies a large animation into a new box (an allocation in a frame that reaps).
    init?<A: Animation>(_ animation: A) {
        switch animation {
        case let basic as BasicAnimation: self.init(from: basic.fromValue, to: basic.toValue, by: basic.byValue, isCumulative: basic.isCumulative)
        case let spring as SpringAnimation:
            self.init(from: spring.fromValue, to: spring.toValue, by: spring.byValue, isCumulative: spring.isCumulative)
        default: return nil
        }
    }

    /// Semantics §4.1's start and end over `base` (the value function's identity input stands
    /// in for it where the animation has one, §4.7), or nil when a value's kind differs from it.
    func endpoints(base: AnimationValue, valueFunction: ValueFunction?) -> (start: AnimationValue, end: AnimationValue)? {
        _FromToBy.endpoints(from: from, to: to, by: by, valueFunction: valueFunction, base: base)
    }

    /// Whether the start or end comes from the value beneath (no value function, §4.1).
    func dependsOnBase(valueFunction: ValueFunction?) -> Bool {
        _FromToBy.dependsOnBase(from: from, to: to, by: by, valueFunction: valueFunction)
    }
}

/// An animation held by reference, so that a record holding it stays one word wide.
final class AnimationBox {
    let animation: any Animation
    init(_ animation: any Animation) { self.animation = animation }
}

/// A basic, spring or keyframe animation in words: a header of flags, the key path's UTF-8
/// bytes, the timing fields that differ from ``MediaTiming``'s defaults, the timing function's
/// control points, then what the kind holds (from/to/by and a spring's parameters; a keyframe
/// animation's values, path, key times, segment functions and spline parameters), each present
/// only when set. Doubles are kept as their bit patterns, so NaN payloads and signed zeros come
/// back as they were.
struct PackedAnimation {
    private let words: ContiguousArray<UInt64>

    // Word 0, every kind.
    private static let kindShift: UInt64 = 56           // 2 bits: 0 basic, 1 spring, 2 keyframe
    private static let hasFrom: UInt64 = 1 << 1         // from, to, by: bits 1–3
    private static let fromKindShift: UInt64 = 4        // 3 bits each: from, to, by
    private static let removedOnCompletion: UInt64 = 1 << 13
    private static let additive: UInt64 = 1 << 14
    private static let cumulative: UInt64 = 1 << 15
    private static let autoreverses: UInt64 = 1 << 16
    private static let overdamping: UInt64 = 1 << 17
    private static let hasTimingFunction: UInt64 = 1 << 18
    private static let fillShift: UInt64 = 19           // 2 bits
    private static let timingShift: UInt64 = 21         // 6 bits: which timing fields are stored
    private static let valueFunctionShift: UInt64 = 27  // 4 bits: 0 none, 1 + case index
    private static let instant: UInt64 = 1 << 31        // MediaTiming.isInstant (reduced motion)
    private static let keyPathShift: UInt64 = 32        // 16 bits: the key path's UTF-8 length
    private static let maxKeyPathBytes = 0xFFFF

    // Word 1 of a keyframe animation: which lists it has, its modes and its values' kind.
    private static let hasValues: UInt64 = 1 << 0       // values, path, key times, functions, tension, continuity, bias: bits 0–6
    private static let calculationShift: UInt64 = 8     // 3 bits
    private static let rotationShift: UInt64 = 11       // 2 bits: 0 none, 1 + case index
    private static let valuesKindShift: UInt64 = 16     // 3 bits

    private static let kinds = ValueKind.allCases
    private static let fills = FillMode.allCases
    private static let functions = ValueFunction.allCases
    private static let calculations = CalculationMode.allCases
    private static let rotations = RotationMode.allCases
    private static let defaultTiming = MediaTiming()

    /// `animation` packed, or nil for an animation of another type, or one that would not come
    /// back exactly (a key path over 65,535 UTF-8 bytes, keyframe values of mixed kinds).
    init?(_ animation: any Animation) {
        var w = Writer()
        switch animation {
        case let basic as BasicAnimation:
            guard w.common(kind: 0, keyPath: basic.keyPath, basic.settings) else { return nil }
            w.fromToBy(basic.fromValue, basic.toValue, basic.byValue)
        case let spring as SpringAnimation:
            guard w.common(kind: 1, keyPath: spring.keyPath, spring.settings) else { return nil }
            w.fromToBy(spring.fromValue, spring.toValue, spring.byValue)
            if spring.allowsOverdamping { w.words[0] |= Self.overdamping }
            for v in [spring.mass, spring.stiffness, spring.damping, spring.initialVelocity] { w.double(v) }
        case let k as KeyframeAnimation:
            guard w.common(kind: 2, keyPath: k.keyPath, k.settings), w.keyframes(k) else { return nil }
        default:
            return nil
        }
        // Copied to its exact size: the appends left up to half the buffer spare.
        var exact = ContiguousArray<UInt64>()
        exact.reserveCapacity(w.words.count)
        exact.append(contentsOf: w.words)
        words = exact
    }

    /// Bytes of heap the packed form takes (the array's storage), for the memory report.
    var payloadBytes: Int { words.count * 8 }

    /// Builds the words.
    private struct Writer {
        var words = ContiguousArray<UInt64>()

        mutating func double(_ v: Double) { words.append(v.bitPattern) }

        mutating func doubles(_ list: [Double]) {
            words.append(UInt64(list.count))
            for v in list { double(v) }
        }

        /// A function that its control points would not rebuild (none: every one passed this
        /// check when it was made) is not packed.
        mutating func function(_ f: TimingFunction) -> Bool {
            guard (try? TimingFunction(controlPoints: f.x1, f.y1, f.x2, f.y2)) == f else { return false }
            for v in [f.x1, f.y1, f.x2, f.y2] { double(v) }
            return true
        }

        /// Word 0, the key path and the settings; false when they cannot be packed.
        mutating func common(kind: UInt64, keyPath: String, _ settings: PropertyAnimationSettings) -> Bool {
            let utf8 = keyPath.utf8
            guard utf8.count <= maxKeyPathBytes else { return false }
            let timing = settings.timing, defaults = defaultTiming
            var timingMask: UInt64 = 0
            let fields = [timing.beginTime, timing.duration, timing.speed, timing.timeOffset, timing.repeatCount, timing.repeatDuration]
            let defaultFields = [defaults.beginTime, defaults.duration, defaults.speed, defaults.timeOffset, defaults.repeatCount,
                                 defaults.repeatDuration]
            for k in 0..<6 where fields[k].bitPattern != defaultFields[k].bitPattern { timingMask |= 1 << UInt64(k) }
            var header = kind << kindShift
            if settings.isRemovedOnCompletion { header |= removedOnCompletion }
            if settings.isAdditive { header |= additive }
            if settings.isCumulative { header |= cumulative }
            if timing.autoreverses { header |= autoreverses }
            if timing.isInstant { header |= instant }
            if settings.timingFunction != nil { header |= hasTimingFunction }
            header |= UInt64(fills.firstIndex(of: timing.fillMode)!) << fillShift
            header |= timingMask << timingShift
            if let function = settings.valueFunction { header |= UInt64(functions.firstIndex(of: function)! + 1) << valueFunctionShift }
            header |= UInt64(utf8.count) << keyPathShift
            words.append(header)
            var word: UInt64 = 0, used = 0
            for byte in utf8 {
                word |= UInt64(byte) << UInt64(8 * used)
                used += 1
                if used == 8 { words.append(word); word = 0; used = 0 }
            }
            if used > 0 { words.append(word) }
            for k in 0..<6 where timingMask & (1 << UInt64(k)) != 0 { double(fields[k]) }
            if let f = settings.timingFunction, !function(f) { return false }
            return true
        }

        mutating func fromToBy(_ from: AnimationValue?, _ to: AnimationValue?, _ by: AnimationValue?) {
            for (k, value) in [from, to, by].enumerated() {
                guard let value else { continue }
                words[0] |= (hasFrom << UInt64(k)) | (UInt64(kinds.firstIndex(of: value.kind)!) << (fromKindShift + 3 * UInt64(k)))
                value.forEachComponent { _, v in double(v) }
            }
        }

        /// A keyframe animation's own fields; false when they cannot be packed.
        mutating func keyframes(_ k: KeyframeAnimation) -> Bool {
            var header: UInt64 = 0
            let lists: [Bool] = [k.values != nil, k.path != nil, k.keyTimes != nil, k.timingFunctions != nil,
                                 k.tensionValues != nil, k.continuityValues != nil, k.biasValues != nil]
            for (bit, present) in lists.enumerated() where present { header |= hasValues << UInt64(bit) }
            header |= UInt64(calculations.firstIndex(of: k.calculationMode)!) << calculationShift
            if let mode = k.rotationMode { header |= UInt64(rotations.firstIndex(of: mode)! + 1) << rotationShift }
            let kind = k.values?.first?.kind ?? .scalar
            guard k.values?.allSatisfy({ $0.kind == kind }) ?? true else { return false }
            header |= UInt64(kinds.firstIndex(of: kind)!) << valuesKindShift
            words.append(header)
            if let values = k.values {
                words.append(UInt64(values.count))
                for value in values { value.forEachComponent { _, v in double(v) } }
            }
            if let path = k.path {
                words.append(UInt64(path.elements.count))
                for element in path.elements {
                    let (tag, points): (UInt64, [Point]) = switch element {
                    case .move(let p): (0, [p])
                    case .line(let p): (1, [p])
                    case .quadCurve(let p, let c): (2, [p, c])
                    case .curve(let p, let c1, let c2): (3, [p, c1, c2])
                    case .closeSubpath: (4, [])
                    }
                    words.append(tag)
                    for p in points { double(p.x); double(p.y) }
                }
            }
            if let keyTimes = k.keyTimes { doubles(keyTimes) }
            if let functions = k.timingFunctions {
                words.append(UInt64(functions.count))
                for f in functions {
                    guard function(f) else { return false }
                }
            }
            for list in [k.tensionValues, k.continuityValues, k.biasValues] { if let list { doubles(list) } }
            return true
        }
    }

    /// Reads the words in the order ``Writer`` wrote them.
    private struct Reader {
        let words: ContiguousArray<UInt64>
        var next = 0

        mutating func word() -> UInt64 {
            defer { next += 1 }
            return words[next]
        }

        mutating func double() -> Double { Double(bitPattern: word()) }

        mutating func doubles() -> [Double] { (0..<Int(word())).map { _ in double() } }

        mutating func value(_ kind: ValueKind) -> AnimationValue {
            let start = next
            next += kind.componentCount
            return AnimationValue(kind: kind) { [words] c in Double(bitPattern: words[start + c]) }
        }

        mutating func point() -> Point {
            let x = double()
            return Point(x: x, y: double())
        }

        /// Packed only when these control points rebuild the function (``Writer/function(_:)``).
        mutating func function() -> TimingFunction? {
            let (x1, y1, x2, y2) = (double(), double(), double(), double())
            return try? TimingFunction(controlPoints: x1, y1, x2, y2)
        }
    }

    /// A packed basic or spring animation's values (``Interpolation``), read from the words in
    /// place; nil for a keyframe animation.
    var interpolation: Interpolation? {
        let header = words[0]
        guard (header >> Self.kindShift) & 3 != 2 else { return nil }
        var r = Reader(words: words)
        r.next = 1 + (Int((header >> Self.keyPathShift) & 0xFFFF) + 7) / 8 + Int(((header >> Self.timingShift) & 63).nonzeroBitCount)
            + (header & Self.hasTimingFunction != 0 ? 4 : 0)
        func value(_ k: UInt64) -> AnimationValue? {
            guard header & (Self.hasFrom << k) != 0 else { return nil }
            return r.value(Self.kinds[Int((header >> (Self.fromKindShift + 3 * k)) & 7)])
        }
        let (from, to, by) = (value(0), value(1), value(2))
        return Interpolation(from: from, to: to, by: by, isCumulative: header & Self.cumulative != 0)
    }

    /// The animation, exactly as packed.
    var unpacked: any Animation {
        var r = Reader(words: words)
        let header = r.word()
        let keyBytes = Int((header >> Self.keyPathShift) & 0xFFFF)
        let keyPath = String(unsafeUninitializedCapacity: keyBytes) { buffer in
            for k in 0..<keyBytes { buffer[k] = UInt8(truncatingIfNeeded: words[1 + k / 8] >> UInt64(8 * (k % 8))) }
            return keyBytes
        }
        r.next += (keyBytes + 7) / 8
        var settings = PropertyAnimationSettings()
        let timingMask = (header >> Self.timingShift) & 63
        func field(_ k: Int, _ v: inout Double) { if timingMask & (1 << UInt64(k)) != 0 { v = r.double() } }
        field(0, &settings.timing.beginTime)
        field(1, &settings.timing.duration)
        field(2, &settings.timing.speed)
        field(3, &settings.timing.timeOffset)
        field(4, &settings.timing.repeatCount)
        field(5, &settings.timing.repeatDuration)
        settings.timing.autoreverses = header & Self.autoreverses != 0
        settings.timing.isInstant = header & Self.instant != 0
        settings.timing.fillMode = Self.fills[Int((header >> Self.fillShift) & 3)]
        if header & Self.hasTimingFunction != 0 { settings.timingFunction = r.function() }
        settings.isRemovedOnCompletion = header & Self.removedOnCompletion != 0
        settings.isAdditive = header & Self.additive != 0
        settings.isCumulative = header & Self.cumulative != 0
        let function = Int((header >> Self.valueFunctionShift) & 15)
        settings.valueFunction = function == 0 ? nil : Self.functions[function - 1]

        switch (header >> Self.kindShift) & 3 {
        case 2:
            return Self.keyframes(keyPath: keyPath, settings: settings, &r)
        case let kind:
            func value(_ k: UInt64) -> AnimationValue? {
                guard header & (Self.hasFrom << k) != 0 else { return nil }
                return r.value(Self.kinds[Int((header >> (Self.fromKindShift + 3 * k)) & 7)])
            }
            let (from, to, by) = (value(0), value(1), value(2))
            if kind == 1 {
                var spring = SpringAnimation(keyPath: keyPath)
                (spring.fromValue, spring.toValue, spring.byValue) = (from, to, by)
                spring.settings = settings
                (spring.mass, spring.stiffness, spring.damping, spring.initialVelocity) = (r.double(), r.double(), r.double(), r.double())
                spring.allowsOverdamping = header & Self.overdamping != 0
                return spring
            }
            var basic = BasicAnimation(keyPath: keyPath)
            (basic.fromValue, basic.toValue, basic.byValue) = (from, to, by)
            basic.settings = settings
            return basic
        }
    }

    private static func keyframes(keyPath: String, settings: PropertyAnimationSettings, _ r: inout Reader) -> KeyframeAnimation {
        let header = r.word()
        func has(_ bit: UInt64) -> Bool { header & (hasValues << bit) != 0 }
        let kind = kinds[Int((header >> valuesKindShift) & 7)]
        let values: [AnimationValue]? = has(0) ? (0..<Int(r.word())).map { _ in r.value(kind) } : nil
        var path: Path?
        if has(1) {
            let elements: [Path.Element] = (0..<Int(r.word())).map { _ in
                switch r.word() {
                case 0: return .move(to: r.point())
                case 1: return .line(to: r.point())
                case 2:
                    let p = r.point()
                    return .quadCurve(to: p, control: r.point())
                case 3:
                    let (p, c1) = (r.point(), r.point())
                    return .curve(to: p, control1: c1, control2: r.point())
                default: return .closeSubpath
                }
            }
            path = Path(elements: elements)
        }
        let keyTimes = has(2) ? r.doubles() : nil
        let functions: [TimingFunction]? = has(3) ? (0..<Int(r.word())).compactMap { _ in r.function() } : nil
        let tension = has(4) ? r.doubles() : nil
        let continuity = has(5) ? r.doubles() : nil
        let bias = has(6) ? r.doubles() : nil
        let rotation = Int((header >> rotationShift) & 3)
        return KeyframeAnimation(keyPath: keyPath, values: values, path: path, keyTimes: keyTimes, timingFunctions: functions,
                                 calculationMode: calculations[Int((header >> calculationShift) & 7)], tensionValues: tension,
                                 continuityValues: continuity, biasValues: bias,
                                 rotationMode: rotation == 0 ? nil : rotations[rotation - 1], settings: settings)
    }
}
