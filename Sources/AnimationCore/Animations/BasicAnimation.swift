/// An animation between two values of one property: Core Animation's `CABasicAnimation`.
///
/// The start and end come from ``fromValue``, ``toValue`` and ``byValue`` against the value beneath
/// the animation (semantics §4.1):
///
/// | set | start | end |
/// |---|---|---|
/// | from, to | from | to |
/// | from, by | from | from ⊕ by |
/// | by, to | to ⊖ by | to |
/// | from | from | base |
/// | to | base | to |
/// | by | base | base ⊕ by |
/// | none | base | base |
///
/// `base` is the model value or the result of the animations added before this one on the same
/// key path (§8.4). With no values at all the animation shows `base`: Core Animation's
/// "previous value → current value" row needs the previous model value, which the layer tree
/// supplies as `fromValue` when it builds an implicit animation (§10).
///
/// ```swift
/// var fade = BasicAnimation(keyPath: "opacity")
/// fade.fromValue = 0
/// fade.toValue = 1
/// fade.duration = 2
/// ```
public struct BasicAnimation: PropertyAnimationStorage {
    public var keyPath: String
    /// The start value, or nil (see the table above).
    public var fromValue: AnimationValue?
    /// The end value, or nil.
    public var toValue: AnimationValue?
    /// The change relative to the start or end, or nil.
    public var byValue: AnimationValue?
    /// The timing, timing function, lifecycle and composition it shares with every property
    /// animation (``PropertyAnimationStorage``: `timing`, `timingFunction`, `isAdditive`, …).
    public var settings = PropertyAnimationSettings()

    /// An animation of `keyPath` with Core Animation's defaults: no values, duration 0 (0.25 s
    /// once added), linear, removed on completion, neither additive nor cumulative.
    public init(keyPath: String) {
        self.keyPath = keyPath
    }

    /// An animation of `keyPath` between typed values, for example
    /// `BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 100, y: 0), duration: 1)`.
    public init<V: AnimationValueConvertible>(keyPath: String, from: V? = nil, to: V? = nil, by: V? = nil,
                                              duration: Double = 0, timingFunction: TimingFunction? = nil) {
        self.init(keyPath: keyPath)
        self.fromValue = from?.animationValue
        self.toValue = to?.animationValue
        self.byValue = by?.animationValue
        self.timing.duration = duration
        self.timingFunction = timingFunction
    }

    public var valueKind: ValueKind? { (fromValue ?? toValue ?? byValue)?.kind }

    /// Checks the timing, the key path and the values: at most two of from/to/by (Core
    /// Animation's header: "no more than two should be non-nil"), all of one kind. Values may be
    /// NaN or infinite; they propagate to the output (semantics §16).
    ///
    /// - Throws: ``AnimationError`` naming the first invalid field.
    public func validate() throws {
        try timing.validate()
        try _FromToBy.validate(keyPath: keyPath, from: fromValue, to: toValue, by: byValue)
    }

    /// The start and end of semantics §4.1's table over `base` (nil when a value's kind differs
    /// from `base`'s). With a value function the values are numbers and `base` is ignored: the
    /// function's identity input stands in for it (§4.7).
    public func resolvedEndpoints(base: AnimationValue) -> (start: AnimationValue, end: AnimationValue)? {
        _FromToBy.endpoints(from: fromValue, to: toValue, by: byValue, valueFunction: valueFunction, base: base)
    }

    /// True when the start or end comes from the value beneath the animation (the rows of §4.1
    /// that mention `base`): such an animation changes with the model and with earlier animations.
    public var dependsOnBase: Bool { _FromToBy.dependsOnBase(from: fromValue, to: toValue, by: byValue, valueFunction: valueFunction) }

    /// `lerp(start, end, timingFunction(p))` (semantics §4.1, §4.2, §2.5), plus `k · (end ⊖ start)`
    /// for a cumulative animation in iteration `k` (§4.4), through the value function if any (§4.7).
    public func value(in state: TimingState, base: AnimationValue) -> AnimationValue? {
        let fraction = (timingFunction ?? .linear).value(at: state.progress)  // §2.5: the curve sees folded progress
        return _FromToBy.value(from: fromValue, to: toValue, by: byValue, base: base, fraction: fraction,
                               iteration: state.iteration, isCumulative: isCumulative, valueFunction: valueFunction)
    }
}

/// The from/to/by rules shared by basic and spring animations (semantics §4.1).
package enum _FromToBy {
    static func validate(keyPath: String, from: AnimationValue?, to: AnimationValue?, by: AnimationValue?) throws {
        if keyPath.isEmpty { throw AnimationError(field: "keyPath", reason: "must not be empty") }
        if from != nil && to != nil && by != nil {
            throw AnimationError(field: "byValue", reason: "at most two of fromValue, toValue and byValue may be set")
        }
        // The first value set fixes the kind; the others must match it. (No arrays: every add and
        // replace validates, and building them allocated twice per call.)
        var first: (name: String, kind: ValueKind)?
        func check(_ name: String, _ value: AnimationValue?) throws {
            guard let kind = value?.kind else { return }
            guard let known = first else {
                first = (name, kind)
                return
            }
            if kind != known.kind {
                throw AnimationError(field: name, reason: "is a \(kind) but \(known.name) is a \(known.kind)")
            }
        }
        try check("fromValue", from)
        try check("toValue", to)
        try check("byValue", by)
        try AnimationError.requireWithinRange(from, "fromValue")
        try AnimationError.requireWithinRange(to, "toValue")
        try AnimationError.requireWithinRange(by, "byValue")
    }

    /// True for the rows of §4.1 whose start or end is `base`: from only, to only, by only, none.
    package static func dependsOnBase(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?) -> Bool {
        !(from != nil && (to != nil || by != nil)) && !(to != nil && by != nil)
    }

    /// The start and end of semantics §4.1's table, or nil when a value's kind differs from `base`.
    package static func endpoints(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?,
                          base: AnimationValue) -> (start: AnimationValue, end: AnimationValue)? {
        // (No array literal here: this runs every frame in the batch engine's composition.)
        if let from, from.kind != base.kind { return nil }
        if let to, to.kind != base.kind { return nil }
        if let by, by.kind != base.kind { return nil }
        switch (from, to, by) {
        case let (f?, t?, _): return (f, t)
        case let (f?, nil, b?): return (f, f.adding(b))
        case let (nil, t?, b?): return (t.subtracting(b), t)
        case let (f?, nil, nil): return (f, base)
        case let (nil, t?, nil): return (base, t)
        case let (nil, nil, b?): return (base, base.adding(b))
        case (nil, nil, nil): return (base, base)
        }
    }

    /// ``endpoints(from:to:by:base:)`` for an animation with `valueFunction`: its values are
    /// numbers, over the function's identity input rather than `base` (§4.7). Basic and spring
    /// animations and the batch engine's packed copies of them resolve through this one rule.
    package static func endpoints(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?, valueFunction: ValueFunction?,
                                  base: AnimationValue) -> (start: AnimationValue, end: AnimationValue)? {
        endpoints(from: from, to: to, by: by, base: valueFunction.map { .scalar($0.identityInput) } ?? base)
    }

    /// Whether the endpoints come from the value beneath (the rows of §4.1 that mention `base`);
    /// never with a value function, whose values are over its identity input (§4.7).
    package static func dependsOnBase(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?,
                                      valueFunction: ValueFunction?) -> Bool {
        dependsOnBase(from: from, to: to, by: by) && valueFunction == nil
    }

    /// The base in the values' domain (§4.7): with a value function the values are numbers and
    /// the base is the function's identity input (nil unless the property is a transform).
    static func domainBase(_ base: AnimationValue, valueFunction: ValueFunction?) -> AnimationValue? {
        guard let valueFunction else { return base }
        return base.kind == .transform ? .scalar(valueFunction.identityInput) : nil
    }

    static func value(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?, base: AnimationValue,
                      fraction: Double, iteration: Double, isCumulative: Bool,
                      valueFunction: ValueFunction?) -> AnimationValue? {
        guard let domainBase = domainBase(base, valueFunction: valueFunction),
              let (start, end) = endpoints(from: from, to: to, by: by, base: domainBase) else { return nil }
        var v = start.interpolated(to: end, fraction: fraction)  // §4.2
        if isCumulative && iteration > 0 {
            v = v.adding(end.difference(from: start).repeated(times: iteration))  // §4.4
        }
        if let valueFunction {
            guard case .scalar(let x) = v else { return nil }
            return .transform(valueFunction.transform(for: x))
        }
        return v
    }
}
