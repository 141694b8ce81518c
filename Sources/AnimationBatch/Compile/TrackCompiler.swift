import AnimationCore

/// Compiling, apart from the runtime (docs/architecture.md, "The flow of data"): which batch
/// a property animation's track joins, and the tables of keyframe animations — Hermite segments,
/// per-segment timing curves, cubic-paced resampling (semantics §5). Pure functions of the
/// animation: the store calls them when it adds an animation, never during a frame.
enum TrackCompiler {
    /// The batch a property animation's track joins and the timing function its kernel applies
    /// (paced modes ignore the animation's, §5.5). `floatCurvesSuffice` is false for matrix values
    /// and for keyframe curves too steep for the Float curve kernel: the reference evaluates them.
    static func batch(for animation: any PropertyAnimation, valueKind: ValueKind,
                      floatCurvesSuffice: Bool) -> (key: BatchKey, curve: TimingFunction?) {
        let width = valueKind.componentCount
        switch animation {
        case _ where !floatCurvesSuffice:
            return (.reference(valueKind), animation.timingFunction)
        case let k as KeyframeAnimation where k.followsPathAtConstantSpeed:
            return (.path, .linear)
        case let k as KeyframeAnimation:
            return (.keyframe(width), k.calculationMode == .paced || k.calculationMode == .cubicPaced ? .linear : k.timingFunction)
        case let spring as SpringAnimation:
            return (.spring(width, SpringRegime(dampingRatio: spring.dampingRatio, omega0: spring.undampedAngularFrequency)),
                    spring.timingFunction)
        case is BasicAnimation:
            return (.basic(width), animation.timingFunction)
        default:
            return (.reference(valueKind), animation.timingFunction)
        }
    }

    static func cumulativeDelta(_ k: KeyframeAnimation) -> [Float] {
        let keys = k.keyframeValues
        guard k.isCumulative, let first = keys.first, let last = keys.last else {
            return [Float](repeating: 0, count: keys.first?.kind.componentCount ?? 1)
        }
        return ValueStorage.floats(last.difference(from: first))
    }

    /// Flattens a keyframe animation (values in any mode, or a path in linear/discrete/cubic mode)
    /// into Hermite segments (semantics §5).
    static func compile(_ k: KeyframeAnimation, width: Int) -> CompiledKeyframes {
        var keys = k.keyframeValues
        var keyTimes = k.effectiveKeyTimes
        var tangents: [Float] = []
        var segmentCurves: [Float] = []
        let discrete = k.calculationMode == .discrete
        let m = max(keys.count - 1, 0)
        var keyStride = 1
        if let path = k.path, !discrete, m > 0 {
            // §5.6: each drawn element is its own segment, from its own start (a move between
            // segments jumps); a cubic Bézier is the Hermite segment with tangents 3(p1 − p0), 3(p3 − p2).
            let segments = PathMeasure(path).drawnSegments
            keys = segments.flatMap { [AnimationValue.point($0.start), .point($0.end)] }
            keyStride = 2
            for s in segments {
                if s.isLine {
                    let d = [Float(s.end.x - s.start.x), Float(s.end.y - s.start.y)]
                    tangents += d + d
                } else {
                    tangents += [Float(3 * (s.control1.x - s.start.x)), Float(3 * (s.control1.y - s.start.y)),
                                 Float(3 * (s.end.x - s.control2.x)), Float(3 * (s.end.y - s.control2.y))]
                }
            }
        } else if k.calculationMode == .cubicPaced {
            (keys, keyTimes) = resampledCubicPaced(k)
        } else if k.calculationMode == .cubic {
            let (outgoing, incoming) = k.splineTangents
            for j in 0..<m {
                tangents += outgoing[j].map(Float.init) + incoming[j + 1].map(Float.init)
            }
        }
        if tangents.isEmpty && !discrete && keyStride == 1 {
            // Chords: the Hermite segment is then exactly the lerp.
            for j in 0..<max(keys.count - 1, 0) {
                let chord = ValueStorage.floats(keys[j + 1].difference(from: keys[j]))
                tangents += chord + chord
            }
        }
        let usesSegmentCurves = !discrete && k.calculationMode != .paced && k.calculationMode != .cubicPaced
        if usesSegmentCurves, let functions = k.timingFunctions, functions.prefix(m).contains(where: { !$0.isLinear }) {
            for j in 0..<m {
                segmentCurves += KeyframeBatch.curveFloats(CompiledCurve(j < functions.count ? functions[j] : nil))
            }
        }
        return CompiledKeyframes(values: keys.flatMap(ValueStorage.floats), keyTimes: keyTimes.map(Float.init),
                                 tangents: tangents, segmentCurves: segmentCurves, isDiscrete: discrete,
                                 cumulativeDelta: cumulativeDelta(k), keyStride: keyStride)
    }

    /// A cubic-paced spline as linear keyframes (semantics §5.5): breakpoints placed adaptively in
    /// progress — an interval is halved while the lerp between its ends misses the reference by more
    /// than 1e-6 of the values' scale at its quarter points (at most 24 halvings, 16,384 keys) — so
    /// samples gather where the arc-length parameterisation has kinks (a component turning round).
    static func resampledCubicPaced(_ k: KeyframeAnimation) -> ([AnimationValue], [Double]) {
        let base = k.keyframeValues.first ?? 0
        let scale = (k.keyframeValues.flatMap(\.components).map(abs).max() ?? 0) + 1
        let tolerance = 1e-6 * scale
        func value(_ p: Double) -> AnimationValue {
            k.value(in: TimingState(phase: .active, contributes: true, activeTime: 0, iteration: 0, basicTime: 0, progress: p),
                    base: base) ?? base
        }
        typealias Key = (Double, AnimationValue)
        func at(_ p: Double) -> Key { (p, value(p)) }
        /// The largest miss of the lerp from `a` to `b` at the interval's three quarter points.
        func deviation(_ a: Key, _ b: Key, _ quarters: [Key]) -> Double {
            var worst = 0.0
            for (p, exact) in quarters {
                let lerped = a.1.interpolated(to: b.1, fraction: (p - a.0) / (b.0 - a.0)).components
                for (x, y) in zip(exact.components, lerped) { worst = max(worst, abs(x - y)) }
            }
            return worst
        }
        var keys: [Key] = []
        // An interval comes with its midpoint's value, and its halves are judged at their own
        // midpoints, its quarter points: two evaluations of the spline per interval instead of four
        // (each is an arc-length solve; this resampling was most of adding such an animation).
        func refine(_ a: Key, _ m: Key, _ b: Key, depth: Int) {
            if depth < 24 && keys.count < 16_384 {
                let q1 = at((a.0 + m.0) / 2), q3 = at((m.0 + b.0) / 2)
                if deviation(a, b, [q1, m, q3]) > tolerance {
                    refine(a, q1, m, depth: depth + 1)
                    refine(m, q3, b, depth: depth + 1)
                    return
                }
            }
            keys.append(b)
        }
        let start = 32
        var previous = at(0)
        keys.append(previous)
        for j in 1...start {
            let next = at(Double(j) / Double(start))
            refine(previous, at((previous.0 + next.0) / 2), next, depth: 0)
            previous = next
        }
        return (keys.map(\.1), keys.map(\.0))
    }
}
