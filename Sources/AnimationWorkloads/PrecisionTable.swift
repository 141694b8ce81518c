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
    /// transform, §5.7). The same as `bound(property:model:animations:).tolerance(reference:)`.
    public static func tolerance(property: String, model: AnimationValue?, animations: [any Animation], reference: AnimationValue) -> Double {
        bound(property: property, model: model, animations: animations).tolerance(reference: reference)
    }

    /// What ``tolerance(property:model:animations:reference:)`` takes from the animations, which
    /// does not change from frame to frame: a check that judges one layer's property at many times
    /// works it out once (it walks the animations' leaves and measures their paths).
    public static func bound(property: String, model: AnimationValue?, animations: [any Animation]) -> Bound {
        var scale = model.map(magnitude) ?? 0
        var terms: [Bound.Term] = []
        for animation in animations {
            for leaf in animation.leaves where AnimationKeyPath.split(leaf.animation.keyPath).property == property
                || (property == "transform" && (leaf.animation as? KeyframeAnimation)?.rotationMode != nil) {
                let repeats = min(leaf.animation.repeatCount, 4) + 1
                switch leaf.animation {
                case let b as BasicAnimation:
                    for v in [b.fromValue, b.toValue, b.byValue].compactMap({ $0 }) { scale = max(scale, magnitude(v) * (repeats + 1)) }
                case let s as SpringAnimation:
                    for v in [s.fromValue, s.toValue, s.byValue].compactMap({ $0 }) { scale = max(scale, magnitude(v) * (repeats + 1)) }
                    terms.append(.spring(scale: scale, repeats: repeats))
                case let k as KeyframeAnimation:
                    if let path = k.path {
                        terms.append(.fixed(1e-3 * path.length * repeats + 1e-5 * magnitude(.rect(path.boundingBox)) * repeats))
                    } else {
                        for v in k.values ?? [] { scale = max(scale, magnitude(v) * (repeats + 1)) }
                    }
                default: break
                }
            }
        }
        return Bound(scale: scale, terms: terms)
    }

    /// Tolerances for one layer judged at many times: each property's ``Bound`` worked out on
    /// first use and kept (the layer's animations must not change while it is used).
    public struct Bounds: Sendable {
        private var bounds: [String: Bound] = [:]

        public init() {}

        /// ``PrecisionTable/tolerance(property:model:animations:reference:)``, with the bound of
        /// `property` worked out once.
        public mutating func tolerance(property: String, model: AnimationValue?, animations: [any Animation],
                                       reference: AnimationValue) -> Double {
            let bound = bounds[property] ?? PrecisionTable.bound(property: property, model: model, animations: animations)
            bounds[property] = bound
            return bound.tolerance(reference: reference)
        }
    }

    /// The part of a tolerance that depends only on the animations (``bound(property:model:animations:)``);
    /// ``tolerance(reference:)`` adds the value judged.
    public struct Bound: Sendable {
        enum Term: Sendable {
            /// A path's share, the same at every value.
            case fixed(Double)
            /// A spring's share, `1e-4 · 2 · scale · repeats` with the scale so far (the value's
            /// magnitude included).
            case spring(scale: Double, repeats: Double)
        }
        /// The largest magnitude among the model and the animations' values (with their repeats).
        let scale: Double
        let terms: [Term]

        /// The tolerance for a value whose reference is `reference`.
        public func tolerance(reference: AnimationValue) -> Double {
            let r = PrecisionTable.magnitude(reference)
            var extra = 0.0
            for term in terms {
                switch term {
                case .fixed(let e): extra += e
                case .spring(let s, let repeats): extra += 1e-4 * 2 * max(r, s) * repeats
                }
            }
            return 1e-5 * (1 + 2 * max(r, scale)) + extra
        }
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
