import Foundation

/// How a keyframe animation computes values between keyframes: `CAAnimationCalculationMode`
/// (semantics §5.5).
public enum CalculationMode: String, Sendable, CaseIterable {
    /// Straight interpolation between neighbouring keyframes (the default).
    case linear
    /// Each keyframe's value held until the next keyframe time; no interpolation.
    case discrete
    /// Constant speed: key times regenerated from the distances between values; `keyTimes`,
    /// `timingFunction` and `timingFunctions` are ignored.
    case paced
    /// A Kochanek–Bartels (Catmull–Rom by default) spline through the values.
    case cubic
    /// The cubic spline traversed at constant speed along its arc length; `keyTimes`,
    /// `timingFunction` and `timingFunctions` are ignored.
    case cubicPaced
}

/// Whether a path animation also turns the layer to follow the path: `CAAnimationRotationMode`
/// (semantics §5.7).
public enum RotationMode: String, Sendable, CaseIterable {
    /// Adds the tangent angle `atan2(dy, dx)`.
    case auto
    /// Adds the tangent angle plus π.
    case autoReverse

    /// Core Animation's name for ``auto`` (`CAAnimationRotationMode.rotateAuto`).
    public static let rotateAuto = RotationMode.auto
    /// Core Animation's name for ``autoReverse`` (`CAAnimationRotationMode.rotateAutoReverse`).
    public static let rotateAutoReverse = RotationMode.autoReverse
}

/// An animation through a sequence of values or along a path: Core Animation's
/// `CAKeyframeAnimation` (semantics §5).
///
/// Timing (§5.4): the animation-level ``timingFunction`` shapes the progress first; the result
/// selects the segment between key times; the segment's own function in ``timingFunctions`` shapes
/// the position within it; the mode (``calculationMode``) interpolates. Paced modes ignore key
/// times and both kinds of timing function.
///
/// With a ``path`` (point key paths only; it overrides ``values``, §5.1, §5.6) every element but a
/// move is one keyframe at its end point; in linear mode the keyframes are spread evenly by count
/// and each curve is followed along its Bézier parameter (a close element is a segment too, so an
/// ellipse animated linearly rests for the last fifth); in paced mode the path is followed at
/// constant speed; a move in the middle jumps. Cubic modes on a path behave as their non-cubic
/// counterparts (the path already is the curve). ``rotationMode`` then adds the tangent angle as a
/// z-rotation of the layer's transform (§5.7).
///
/// Bad input: ``validate()`` rejects empty values, values of mixed kinds, key times of the wrong
/// count, out of [0, 1], NaN or decreasing, non-finite TCB parameters and paths with non-finite
/// points, each naming the field. Defined outcomes: a single value (or a path of one move) holds
/// it; key times whose first entry is above 0 or last below 1 hold the first/last value outside
/// them; fewer timing functions than segments leave the rest linear, extra ones are ignored;
/// zero distances in paced mode (and a zero-length path) fall back to even spacing; in cubic
/// modes transforms interpolate linearly (by decomposition), since a spline of matrices has no
/// meaning.
public struct KeyframeAnimation: PropertyAnimationStorage {
    public var keyPath: String
    /// The keyframe values (semantics §5.1); ignored when ``path`` is set.
    public var values: [AnimationValue]? { didSet { rebuild() } }
    /// A path for point properties; overrides ``values`` (semantics §5.6).
    public var path: Path? { didSet { rebuild() } }
    /// When each keyframe applies, as fractions of the duration (semantics §5.2): one per value
    /// (linear, cubic), one more than values (discrete; one per value is accepted too); ignored in
    /// paced modes. Nil spreads the keyframes evenly (§5.3).
    public var keyTimes: [Double]? { didSet { rebuild() } }
    /// One timing function per segment, applied after ``timingFunction`` (semantics §5.4).
    public var timingFunctions: [TimingFunction]?
    /// How values between keyframes are computed (semantics §5.5).
    public var calculationMode: CalculationMode = .linear { didSet { rebuild() } }
    /// Kochanek–Bartels tension per keyframe (cubic modes; default 0, clamped to [−1, 1]).
    public var tensionValues: [Double]? { didSet { rebuild() } }
    /// Kochanek–Bartels continuity per keyframe (cubic modes; default 0, clamped to [−1, 1]).
    public var continuityValues: [Double]? { didSet { rebuild() } }
    /// Kochanek–Bartels bias per keyframe (cubic modes; default 0, clamped to [−1, 1]).
    public var biasValues: [Double]? { didSet { rebuild() } }
    /// Whether the layer turns to follow ``path`` (semantics §5.7); ignored without a path.
    public var rotationMode: RotationMode?
    /// The timing, timing function, lifecycle and composition it shares with every property
    /// animation (``PropertyAnimationStorage``: `timing`, `timingFunction`, `isAdditive`, …).
    public var settings = PropertyAnimationSettings()

    /// Precomputed key times, tangents and arc lengths, rebuilt whenever an input changes.
    private(set) var plan: KeyframePlan

    /// The most keyframes (values, key times, timing functions, path elements, TCB parameters)
    /// one animation may hold: ``validate()`` refuses more, naming the field. Each compiled
    /// keyframe costs a few hundred bytes (`animation-engine memory`); the bound is Lottie files'.
    public static let maximumKeyframeCount = 1_000_000

    /// A keyframe animation of `keyPath` with Core Animation's defaults (no values, linear mode).
    public init(keyPath: String) {
        self.keyPath = keyPath
        self.plan = KeyframePlan.empty
    }

    /// A keyframe animation of `keyPath` through typed values.
    public init<V: AnimationValueConvertible>(keyPath: String, values: [V], keyTimes: [Double]? = nil,
                                              calculationMode: CalculationMode = .linear, duration: Double = 0) {
        self.init(keyPath: keyPath)
        self.values = values.map(\.animationValue)
        self.keyTimes = keyTimes
        self.calculationMode = calculationMode
        self.timing.duration = duration
        rebuild()
    }

    /// A keyframe animation of a point property along `path`.
    public init(keyPath: String, path: Path, calculationMode: CalculationMode = .linear,
                rotationMode: RotationMode? = nil, duration: Double = 0) {
        self.init(keyPath: keyPath)
        self.path = path
        self.calculationMode = calculationMode
        self.rotationMode = rotationMode
        self.timing.duration = duration
        rebuild()
    }

    /// Every field at once, the plan built once (the engine rebuilds its packed copies this way).
    package init(keyPath: String, values: [AnimationValue]?, path: Path?, keyTimes: [Double]?,
                 timingFunctions: [TimingFunction]?, calculationMode: CalculationMode, tensionValues: [Double]?,
                 continuityValues: [Double]?, biasValues: [Double]?, rotationMode: RotationMode?,
                 settings: PropertyAnimationSettings) {
        self.keyPath = keyPath
        self.values = values
        self.path = path
        self.keyTimes = keyTimes
        self.timingFunctions = timingFunctions
        self.calculationMode = calculationMode
        self.tensionValues = tensionValues
        self.continuityValues = continuityValues
        self.biasValues = biasValues
        self.rotationMode = rotationMode
        self.settings = settings
        self.plan = KeyframePlan.empty
        rebuild()
    }

    private mutating func rebuild() {
        plan = KeyframePlan(values: values, path: path, keyTimes: keyTimes, mode: calculationMode,
                            tension: tensionValues, continuity: continuityValues, bias: biasValues)
    }

    public var valueKind: ValueKind? { path != nil ? .point : values?.first?.kind }

    /// The key times in use (semantics §5.2, §5.3, §5.5): given, regenerated for paced modes, or
    /// even; for paths, one per keyframe point. Empty when the animation has nothing to animate.
    public var effectiveKeyTimes: [Double] { plan.keyTimes }

    /// The keyframe values in use: ``values``, or the keyframe points of ``path``.
    public var keyframeValues: [AnimationValue] { plan.keyframes }

    /// Whether the animation follows its path at constant speed (semantics §5.6): a paced mode on a
    /// path of positive, finite length. A paced path of zero length follows its elements at evenly
    /// spaced key times instead, as ``evaluate(progress:timingFunction:segmentFunctions:needsAngle:)``
    /// does (the batch compiles it as a linear path).
    package var followsPathAtConstantSpeed: Bool {
        guard calculationMode == .paced || calculationMode == .cubicPaced, case .path(let measure) = plan.source else { return false }
        return measure.length > 0 && measure.length.isFinite
    }

    /// In cubic modes on values, the Kochanek–Bartels tangents of every key as components: the
    /// outgoing `d_i` and the incoming `s_i` of semantics §5.5 (segment i is
    /// `Hermite(v_i, v_{i+1}, d_i, s_{i+1})`); empty otherwise. For batch compilers.
    public var splineTangents: (outgoing: [[Double]], incoming: [[Double]]) { (plan.outgoing, plan.incoming) }

    /// Checks the timing and keyframe data (see the type's documentation for each rule).
    ///
    /// - Throws: ``AnimationError`` naming the first invalid field, for example
    ///   `keyTimes: must be non-decreasing (keyTimes[2] = 0.3 after 0.5)`.
    public func validate() throws {
        try timing.validate()
        if keyPath.isEmpty { throw AnimationError(field: "keyPath", reason: "must not be empty") }
        // A bound on what one animation may hold (docs/bad-input.md): beyond it an add is refused,
        // not compiled into columns that grow with every keyframe.
        for (name, count) in [("values", values?.count ?? 0), ("keyTimes", keyTimes?.count ?? 0),
                              ("timingFunctions", timingFunctions?.count ?? 0), ("path", path?.elements.count ?? 0),
                              ("tensionValues", tensionValues?.count ?? 0), ("continuityValues", continuityValues?.count ?? 0),
                              ("biasValues", biasValues?.count ?? 0)] where count > Self.maximumKeyframeCount {
            throw AnimationError(field: name, reason: "has \(count) entries (at most \(Self.maximumKeyframeCount))")
        }
        let count: Int
        if let path {
            do { try path.validate() } catch let error as AnimationError { throw error.prefixed(by: "path") }
            if path.isEmpty { throw AnimationError(field: "path", reason: "is empty") }
            count = plan.keyframes.count
        } else {
            guard let values, let first = values.first else {
                throw AnimationError(field: "values", reason: "must not be empty (or set path)")
            }
            for (i, v) in values.enumerated() {
                if v.kind != first.kind {
                    throw AnimationError(field: "values[\(i)]", reason: "is a \(v.kind) but values[0] is a \(first.kind)")
                }
                try AnimationError.requireWithinRange(v, "values[\(i)]")
            }
            count = values.count
        }
        if let keyTimes, calculationMode != .paced && calculationMode != .cubicPaced {
            let expected = calculationMode == .discrete ? [count + 1, count] : [count]
            if !expected.contains(keyTimes.count) {
                let what = path == nil ? "values (\(count))" : "keyframe points of the path (\(count))"
                let need = calculationMode == .discrete ? "one entry more than the \(what)" : "one entry per \(what)"
                throw AnimationError(field: "keyTimes", reason: "needs \(need) in \(calculationMode.rawValue) mode (got \(keyTimes.count))")
            }
            for (i, t) in keyTimes.enumerated() {
                if !(t >= 0 && t <= 1) {
                    throw AnimationError(field: "keyTimes[\(i)]", reason: "must be in [0, 1] (got \(t))")
                }
                if i > 0 && t < keyTimes[i - 1] {
                    throw AnimationError(field: "keyTimes", reason: "must be non-decreasing (keyTimes[\(i)] = \(t) after \(keyTimes[i - 1]))")
                }
            }
        }
        for (name, array) in [("tensionValues", tensionValues), ("continuityValues", continuityValues), ("biasValues", biasValues)] {
            for (i, v) in (array ?? []).enumerated() where !v.isFinite {
                throw AnimationError(field: "\(name)[\(i)]", reason: "must be finite (got \(v))")
            }
        }
    }

    /// The value at `state` (semantics §5.4, §5.5, §5.6), plus `k · (last ⊖ first)` for a cumulative
    /// animation (§4.4), through the value function if any (§4.7). Keyframe values are absolute:
    /// `base` only decides the kind (a mismatch gives nil) and is used by additive composition.
    public func value(in state: TimingState, base: AnimationValue) -> AnimationValue? {
        guard let (value, _) = plan.evaluate(progress: state.progress, timingFunction: timingFunction,
                                             segmentFunctions: timingFunctions ?? [], needsAngle: false),
              let first = plan.keyframes.first, let last = plan.keyframes.last else { return nil }
        var v = value
        if isCumulative && state.iteration > 0 {
            v = v.adding(last.difference(from: first).repeated(times: state.iteration))
        }
        if let valueFunction {
            guard base.kind == .transform, case .scalar(let x) = v else { return nil }
            return .transform(valueFunction.transform(for: x))
        }
        return v.kind == base.kind ? v : nil
    }

    /// The rotation a path animation adds to the layer's transform at `state` (semantics §5.7): the
    /// tangent angle `atan2(dy, dx)` for ``RotationMode/auto``, plus π for
    /// ``RotationMode/autoReverse``; nil without a path or rotation mode. Where the path has no
    /// direction the previous one is kept.
    public func rotationAngle(in state: TimingState) -> Double? {
        guard let rotationMode, path != nil,
              let (_, angle) = plan.evaluate(progress: state.progress, timingFunction: timingFunction,
                                             segmentFunctions: timingFunctions ?? [], needsAngle: true),
              let angle else { return nil }
        return rotationMode == .autoReverse ? angle + Double.pi : angle
    }
}

/// Everything about a keyframe animation that does not depend on time, computed once.
final class KeyframePlan: Sendable {
    enum Source: Sendable {
        case values
        case path(PathMeasure)
        case nothing
    }

    let source: Source
    let mode: CalculationMode
    /// Keyframe values (or the path's keyframe points).
    let keyframes: [AnimationValue]
    /// Effective key times (n entries; n + 1 for discrete with the spec's count).
    let keyTimes: [Double]
    /// Cubic modes on values: outgoing and incoming tangents per key, as components.
    let outgoing: [[Double]]
    let incoming: [[Double]]
    /// cubicPaced: per segment, the arc-length table of the spline in component space, and the
    /// length before each segment (n entries; the last is the total).
    let splineTables: [[(t: Double, s: Double)]]
    let splineStarts: [Double]

    static let empty = KeyframePlan(values: nil, path: nil, keyTimes: nil, mode: .linear, tension: nil, continuity: nil, bias: nil)

    init(values: [AnimationValue]?, path: Path?, keyTimes given: [Double]?, mode: CalculationMode,
         tension: [Double]?, continuity: [Double]?, bias: [Double]?) {
        self.mode = mode
        var outgoing: [[Double]] = [], incoming: [[Double]] = []
        var splineTables: [[(t: Double, s: Double)]] = [], splineStarts: [Double] = []
        if let path {
            // §5.6: keyframes are the start of the first drawn segment and every segment's end.
            let measure = PathMeasure(path)
            source = .path(measure)
            if let first = measure.segments.first {
                keyframes = [.point(first.start)] + measure.segments.map { .point($0.end) }
            } else {
                keyframes = path.elements.first?.endPoint.map { [.point($0)] } ?? []
            }
            let n = keyframes.count
            switch mode {
            case .paced, .cubicPaced:
                // Constant speed along the whole path (§5.6): key times at each keyframe's length.
                if measure.length > 0 && measure.length.isFinite {
                    keyTimes = measure.starts.map { $0 / measure.length }
                } else {
                    keyTimes = Self.evenKeyTimes(n, discrete: false)
                }
            default:
                keyTimes = Self.validKeyTimes(given, count: n, discrete: mode == .discrete) ?? Self.evenKeyTimes(n, discrete: mode == .discrete)
            }
        } else if let values, !values.isEmpty, values.allSatisfy({ $0.kind == values[0].kind }) {
            source = .values
            keyframes = values
            let n = values.count
            switch mode {
            case .paced:
                keyTimes = Self.pacedKeyTimes(values)
            case .cubicPaced where values[0].kind == .transform || values[0].kind == .affineTransform:
                keyTimes = Self.pacedKeyTimes(values)   // a spline of matrices has no meaning: paced, by decomposition
            case .cubicPaced:
                let uniform = Self.evenKeyTimes(n, discrete: false)
                (outgoing, incoming) = Self.tangents(values, keyTimes: uniform, tension: tension, continuity: continuity, bias: bias)
                var total = 0.0
                splineStarts = [0]
                for i in 0..<max(0, n - 1) {
                    let (a, b, d, s) = (values[i].components, values[i + 1].components, outgoing[i], incoming[i + 1])
                    let scale = zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } + d.reduce(0) { $0 + abs($1) } + s.reduce(0) { $0 + abs($1) }
                    let table = ArcLength.table(scale: scale, minima: Self.hermiteSpeedMinima(a, b, d, s)) { q in Self.hermiteSpeed(a, b, d, s, q) }
                    splineTables.append(table)
                    total += table.last?.s ?? 0
                    splineStarts.append(total)
                }
                if total > 0 && total.isFinite {
                    keyTimes = splineStarts.map { $0 / total }
                } else {
                    keyTimes = uniform
                }
            case .cubic:
                keyTimes = Self.validKeyTimes(given, count: n, discrete: false) ?? Self.evenKeyTimes(n, discrete: false)
                (outgoing, incoming) = Self.tangents(values, keyTimes: keyTimes, tension: tension, continuity: continuity, bias: bias)
            case .linear, .discrete:
                keyTimes = Self.validKeyTimes(given, count: n, discrete: mode == .discrete) ?? Self.evenKeyTimes(n, discrete: mode == .discrete)
            }
        } else {
            source = .nothing
            keyframes = []
            keyTimes = []
        }
        self.outgoing = outgoing
        self.incoming = incoming
        self.splineTables = splineTables
        self.splineStarts = splineStarts
    }

    /// Even key times (semantics §5.3): `i/(n−1)` (n entries), or `i/n` (n + 1 entries) for discrete.
    static func evenKeyTimes(_ n: Int, discrete: Bool) -> [Double] {
        if discrete { return (0...max(n, 1)).map { Double($0) / Double(max(n, 1)) } }
        if n <= 1 { return [0] }
        return (0..<n).map { Double($0) / Double(n - 1) }
    }

    /// The given key times when they pass validation's rules, else nil (the even ones are used).
    static func validKeyTimes(_ given: [Double]?, count n: Int, discrete: Bool) -> [Double]? {
        guard let given else { return nil }
        let counts = discrete ? [n + 1, n] : [n]
        guard counts.contains(given.count), given.allSatisfy({ $0 >= 0 && $0 <= 1 }),
              zip(given, given.dropFirst()).allSatisfy({ $0 <= $1 }) else { return nil }
        return given
    }

    /// Paced key times (semantics §5.5): `kt_i = L_i / L_n` from the distances between neighbours;
    /// even when every distance is 0 (or not finite).
    static func pacedKeyTimes(_ values: [AnimationValue]) -> [Double] {
        var starts = [0.0]
        for (a, b) in zip(values, values.dropFirst()) { starts.append(starts[starts.count - 1] + a.interpolationDistance(to: b)) }
        let total = starts[starts.count - 1]
        guard total > 0, total.isFinite else { return evenKeyTimes(values.count, discrete: false) }
        return starts.map { $0 / total }
    }

    /// Kochanek–Bartels tangents (semantics §5.5) as component arrays: outgoing `d_i` and incoming
    /// `s_i`, with the end rule `v₋₁ = v₀`, `vₙ = vₙ₋₁` and the non-uniform key-time scaling.
    static func tangents(_ values: [AnimationValue], keyTimes: [Double], tension: [Double]?, continuity: [Double]?,
                         bias: [Double]?) -> ([[Double]], [[Double]]) {
        let n = values.count
        let v = values.map(\.components)
        func parameter(_ array: [Double]?, _ i: Int) -> Double {
            guard let array, i < array.count, array[i].isFinite else { return 0 }
            return min(1, max(-1, array[i]))
        }
        var outgoing: [[Double]] = [], incoming: [[Double]] = []
        for i in 0..<n {
            let previous = v[max(0, i - 1)], current = v[i], next = v[min(n - 1, i + 1)]
            let (t, c, b) = (parameter(tension, i), parameter(continuity, i), parameter(bias, i))
            let gapBefore = i > 0 ? keyTimes[i] - keyTimes[i - 1] : nil
            let gapAfter = i < n - 1 ? keyTimes[i + 1] - keyTimes[i] : nil
            let before = gapBefore ?? gapAfter ?? 1, after = gapAfter ?? gapBefore ?? 1
            let sum = before + after
            let outScale = sum > 0 ? 2 * after / sum : 1
            let inScale = sum > 0 ? 2 * before / sum : 1
            var d = [Double](), s = [Double]()
            for k in current.indices {
                let back = current[k] - previous[k], forward = next[k] - current[k]
                d.append(outScale * ((1 - t) * (1 + b) * (1 - c) / 2 * back + (1 - t) * (1 - b) * (1 + c) / 2 * forward))
                s.append(inScale * ((1 - t) * (1 + b) * (1 + c) / 2 * back + (1 - t) * (1 - b) * (1 - c) / 2 * forward))
            }
            outgoing.append(d)
            incoming.append(s)
        }
        return (outgoing, incoming)
    }

    /// The Hermite segment `(v_i, v_{i+1}, d_i, s_{i+1})` at `q` (semantics §5.5).
    static func hermite(_ a: [Double], _ b: [Double], _ d: [Double], _ s: [Double], _ q: Double) -> [Double] {
        let q2 = q * q, q3 = q2 * q
        let h00 = 2 * q3 - 3 * q2 + 1, h10 = q3 - 2 * q2 + q, h01 = -2 * q3 + 3 * q2, h11 = q3 - q2
        return a.indices.map { h00 * a[$0] + h10 * d[$0] + h01 * b[$0] + h11 * s[$0] }
    }

    /// The Hermite segment on values, without intermediate arrays (a frame
    /// evaluated through the reference allocates nothing; docs/architecture.md). The same arithmetic, so the
    /// same bits.
    static func hermite(_ a: AnimationValue, _ b: AnimationValue, _ d: [Double], _ s: [Double], _ q: Double) -> AnimationValue {
        let q2 = q * q, q3 = q2 * q
        let h00 = 2 * q3 - 3 * q2 + 1, h10 = q3 - 2 * q2 + q, h01 = -2 * q3 + 3 * q2, h11 = q3 - q2
        func c(_ k: Int, _ x: Double, _ y: Double) -> Double { h00 * x + h10 * d[k] + h01 * y + h11 * s[k] }
        switch (a, b) {
        case let (.scalar(x), .scalar(y)):
            return .scalar(c(0, x, y))
        case let (.point(x), .point(y)):
            return .point(Point(x: c(0, x.x, y.x), y: c(1, x.y, y.y)))
        case let (.size(x), .size(y)):
            return .size(Size(width: c(0, x.width, y.width), height: c(1, x.height, y.height)))
        case let (.rect(x), .rect(y)):
            return .rect(Rect(x: c(0, x.origin.x, y.origin.x), y: c(1, x.origin.y, y.origin.y),
                              width: c(2, x.size.width, y.size.width), height: c(3, x.size.height, y.size.height)))
        case let (.color(x), .color(y)):
            return .color(Color(red: c(0, x.red, y.red), green: c(1, x.green, y.green),
                                blue: c(2, x.blue, y.blue), alpha: c(3, x.alpha, y.alpha)))
        default:
            return Self.components(Self.hermite(a.components, b.components, d, s, q), like: a)
        }
    }

    /// Where ``hermiteSpeed(_:_:_:_:_:)`` bends sharply (``SpeedMinima``): each component's
    /// derivative is A·q² + B·q + C with A = 6(a − b) + 3(d + s), B = 6(b − a) − 4d − 2s, C = d.
    static func hermiteSpeedMinima(_ a: [Double], _ b: [Double], _ d: [Double], _ s: [Double]) -> SpeedMinima {
        var aa = 0.0, ab = 0.0, ac = 0.0, bb = 0.0, bc = 0.0, cc = 0.0
        for k in a.indices {
            let qa = 6 * (a[k] - b[k]) + 3 * (d[k] + s[k]), qb = 6 * (b[k] - a[k]) - 4 * d[k] - 2 * s[k], qc = d[k]
            aa += qa * qa
            ab += qa * qb
            ac += qa * qc
            bb += qb * qb
            bc += qb * qc
            cc += qc * qc
        }
        return SpeedMinima(aa: aa, ab: ab, ac: ac, bb: bb, bc: bc, cc: cc)
    }

    /// |dH/dq| in component space.
    static func hermiteSpeed(_ a: [Double], _ b: [Double], _ d: [Double], _ s: [Double], _ q: Double) -> Double {
        let q2 = q * q
        let h00 = 6 * q2 - 6 * q, h10 = 3 * q2 - 4 * q + 1, h01 = -6 * q2 + 6 * q, h11 = 3 * q2 - 2 * q
        var sum = 0.0
        for k in a.indices {
            let x = h00 * a[k] + h10 * d[k] + h01 * b[k] + h11 * s[k]
            sum += x * x
        }
        return sum.squareRoot()
    }

    /// The segment `i` with `kt_i ≤ p < kt_{i+1}` among the first `segments` and the fraction
    /// within it (semantics §5.4); with equal key times the later value wins; before the first key
    /// time (0, 0), at or after the last (segments − 1, 1).
    static func locate(_ p: Double, keyTimes kt: [Double], segments: Int) -> (index: Int, fraction: Double) {
        guard segments > 0 else { return (0, 0) }
        if p < kt[0] { return (0, 0) }
        if p >= kt[segments] { return (segments - 1, 1) }
        var lo = 0, hi = segments - 1
        while lo < hi {   // the last i with kt_i ≤ p
            let mid = (lo + hi + 1) / 2
            if kt[mid] <= p { lo = mid } else { hi = mid - 1 }
        }
        let width = kt[lo + 1] - kt[lo]
        return (lo, width > 0 ? (p - kt[lo]) / width : 1)
    }

    /// The value a discrete animation holds at `p` (semantics §5.2): value i on [kt_i, kt_{i+1}),
    /// the first before kt_0, the last from its key time on (and at p = 1, reached only by fill).
    static func heldIndex(_ p: Double, keyTimes kt: [Double], count n: Int) -> Int {
        var held = 0
        for i in 0..<min(kt.count, n) where kt[i] <= p { held = i }
        return p >= 1 ? n - 1 : held
    }

    /// The value (and, if asked, the path's tangent angle) at progress `p` (semantics §5.4–§5.7).
    func evaluate(progress p: Double, timingFunction: TimingFunction?, segmentFunctions: [TimingFunction],
                  needsAngle: Bool) -> (AnimationValue, Double?)? {
        let n = keyframes.count
        guard n > 0 else { return nil }
        let paced = mode == .paced || mode == .cubicPaced
        // §5.4: the animation-level function first (ignored by paced modes, §5.5).
        let p1 = paced ? p : (timingFunction ?? .linear).value(at: p)
        func segmentFunction(_ i: Int) -> TimingFunction { i < segmentFunctions.count ? segmentFunctions[i] : .linear }

        if case .path(let measure) = source {
            guard n > 1 else { return (keyframes[0], needsAngle ? Self.angle(measure.tangent(atLength: 0)) : nil) }
            if mode == .discrete {
                let k = Self.heldIndex(p1, keyTimes: keyTimes, count: n)
                return (keyframes[k], needsAngle ? Self.angle(measure.tangent(atLength: measure.starts[min(k, measure.segments.count)])) : nil)
            }
            if paced && measure.length > 0 && measure.length.isFinite {
                let s = p1 * measure.length   // §5.6: constant speed along the path
                return (.point(measure.point(atLength: s)), needsAngle ? Self.angle(measure.tangent(atLength: s)) : nil)
            }
            // Linear (and cubic): one segment per element, followed along its Bézier parameter.
            let (i, q) = Self.locate(p1, keyTimes: keyTimes, segments: n - 1)
            let q1 = paced ? q : segmentFunction(i).value(at: q)
            let segment = measure.segments[i]
            var angle: Double?
            if needsAngle {
                let local = (measure.starts[i + 1] - measure.starts[i]) * q1
                angle = Self.angle(segment.direction(at: q1) ?? measure.tangent(atLength: measure.starts[i] + local))
            }
            return (.point(segment.point(at: q1)), angle)
        }

        guard n > 1 else { return (keyframes[0], nil) }
        switch mode {
        case .discrete:
            return (keyframes[Self.heldIndex(p1, keyTimes: keyTimes, count: n)], nil)
        case .cubicPaced where !splineTables.isEmpty && splineStarts[n - 1] > 0:
            let total = splineStarts[n - 1]
            let (i, q) = Self.locate(p1, keyTimes: keyTimes, segments: n - 1)
            let (a, b, d, s) = (keyframes[i].components, keyframes[i + 1].components, outgoing[i], incoming[i + 1])
            let local = (keyTimes[i] + (keyTimes[i + 1] - keyTimes[i]) * q) * total - splineStarts[i]
            let t = ArcLength.parameter(ofLength: local, table: splineTables[i]) { Self.hermiteSpeed(a, b, d, s, $0) }
            return (Self.components(Self.hermite(a, b, d, s, t), like: keyframes[i]), nil)
        default:
            let (i, q) = Self.locate(p1, keyTimes: keyTimes, segments: n - 1)
            let q1 = paced ? q : segmentFunction(i).value(at: q)
            let a = keyframes[i], b = keyframes[i + 1]
            let isMatrix = a.kind == .transform || a.kind == .affineTransform
            if (mode == .cubic || mode == .cubicPaced) && !isMatrix && !outgoing.isEmpty {
                return (Self.hermite(a, b, outgoing[i], incoming[i + 1], q1), nil)
            }
            return (a.interpolated(to: b, fraction: q1), nil)
        }
    }

    static func components(_ c: [Double], like value: AnimationValue) -> AnimationValue {
        (try? AnimationValue(kind: value.kind, components: c)) ?? value
    }

    static func angle(_ d: Point) -> Double { atan2(d.y, d.x) }
}
