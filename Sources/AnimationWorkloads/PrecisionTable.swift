import AnimationCore

/// docs/architecture.md's precision table (SIMD engine against the scalar reference), as numbers: what the
/// agreement tests, `batch-figures` and the command's `bench` measure deviations against.
public enum PrecisionTable {
    /// The largest magnitude among a value's components.
    public static func magnitude(_ v: AnimationValue) -> Double { v.components.map(abs).max() ?? 0 }

    /// The tolerance for one property of one layer, summed over the animations on it:
    /// basic / keyframe values `1e-5 · (|from| + |to| + 1)` (with the values' scale, including
    /// cumulative growth over up to four repeats); springs `1e-4 · |to − from|`; points on paths
    /// `1e-3 · length` (semantics §5.6; a path animation with a rotation mode also turns the
    /// transform, §5.7).
    public static func tolerance(property: String, model: AnimationValue?, animations: [any Animation], reference: AnimationValue) -> Double {
        var scale = max(magnitude(reference), model.map(magnitude) ?? 0)
        var extra = 0.0
        for animation in animations {
            for leaf in animation.leaves where AnimationKeyPath.split(leaf.animation.keyPath).property == property
                || (property == "transform" && (leaf.animation as? KeyframeAnimation)?.rotationMode != nil) {
                let repeats = min(leaf.animation.repeatCount, 4) + 1
                switch leaf.animation {
                case let b as BasicAnimation:
                    for v in [b.fromValue, b.toValue, b.byValue].compactMap({ $0 }) { scale = max(scale, magnitude(v) * (repeats + 1)) }
                case let s as SpringAnimation:
                    for v in [s.fromValue, s.toValue, s.byValue].compactMap({ $0 }) { scale = max(scale, magnitude(v) * (repeats + 1)) }
                    extra += 1e-4 * 2 * scale * repeats
                case let k as KeyframeAnimation:
                    if let path = k.path {
                        extra += 1e-3 * path.length * repeats + 1e-5 * magnitude(.rect(path.boundingBox)) * repeats
                    } else {
                        for v in k.values ?? [] { scale = max(scale, magnitude(v) * (repeats + 1)) }
                    }
                default: break
                }
            }
        }
        return 1e-5 * (1 + 2 * scale) + extra
    }

    /// The largest absolute difference between two values' components (NaN against NaN counts as
    /// equal; different kinds as infinitely far apart). An infinity against a finite value beyond
    /// Float's range (±3.4e38) of the same sign counts as equal: the SIMD engine holds values in
    /// Float, where such a value saturates to the infinity of its sign.
    public static func maxDifference(_ a: AnimationValue, _ b: AnimationValue) -> Double {
        guard a.kind == b.kind else { return .infinity }
        var worst = 0.0
        for (p, q) in zip(a.components, b.components) {
            if p.isNaN && q.isNaN { continue }
            if p == q { continue }
            if saturates(p, q) || saturates(q, p) { continue }
            worst = max(worst, p.isNaN || q.isNaN ? .infinity : abs(p - q))
        }
        return worst
    }

    /// Whether `infinite` is the Float saturation of `finite`: an infinity of the same sign as a
    /// finite value beyond Float's largest.
    static func saturates(_ infinite: Double, _ finite: Double) -> Bool {
        infinite.isInfinite && finite.isFinite && abs(finite) > Double(Float.greatestFiniteMagnitude)
            && (infinite > 0) == (finite > 0)
    }
}
