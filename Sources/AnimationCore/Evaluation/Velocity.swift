import Foundation

// Velocity in the scalar reference (docs/velocity.md): d(value)/dt computed by the chain rule
// through every step a value is made by — the timing's progress rate (TimingState.progressRate,
// through groups), the timing function's slope, the spring's closed-form rate, the keyframe
// segment's derivative, the interpolation of each kind, additive and cumulative composition,
// value functions and key-path fields. A rate is an AnimationValue of the value's own kind whose
// components are the components' derivatives (a transform's 16 elements entrywise).

extension AnimationValue {
    /// The rate of a value of `kind` that does not change: every component 0 (for transforms the
    /// zero matrix, not the identity).
    public static func zeroRate(of kind: ValueKind) -> AnimationValue {
        AnimationValue(kind: kind) { _ in 0 }
    }

    /// `kind`'s value from its components (a rate's components are any numbers of that kind).
    static func rate(_ kind: ValueKind, _ components: [Double]) -> AnimationValue {
        AnimationValue(kind: kind) { components[$0] }
    }

    /// Component by component `self + other` (the rates of values that add); `self` when the
    /// kinds differ.
    public func rateAdding(_ other: AnimationValue) -> AnimationValue {
        guard other.kind == kind else { return self }
        let (a, b) = (components, other.components)
        return AnimationValue(kind: kind) { a[$0] + b[$0] }
    }

    /// Every component times `k`; 0 where that product is 0 · ∞ (a component that does not move
    /// under clocks whose speeds multiply past Double's range), never NaN from numbers.
    public func rateScaled(by k: Double) -> AnimationValue {
        let a = components
        return AnimationValue(kind: kind) { c in
            let v = a[c] * k
            return v.isNaN && !a[c].isNaN && !k.isNaN ? 0 : v
        }
    }

    /// A transform or affine transform as a 4×4 matrix (an affine one embedded as
    /// `CATransform3DMakeAffineTransform` does), or nil for other kinds.
    var matrix: Transform3D? {
        switch self {
        case .transform(let t): t
        case .affineTransform(let t): Transform3D(t)
        default: nil
        }
    }

    /// A transform's or affine transform's rate as a 4×4 matrix of element rates (an affine rate
    /// has no constant 1s: the embedding's fixed elements do not move).
    var matrixRate: Transform3D? {
        switch self {
        case .transform(let t): return t
        case .affineTransform(let t):
            var m = Transform3D.zero
            (m.m11, m.m12, m.m21, m.m22, m.m41, m.m42) = (t.a, t.b, t.c, t.d, t.tx, t.ty)
            return m
        default: return nil
        }
    }

    /// A matrix rate back in `kind` (the x–y part for an affine transform).
    static func fromMatrixRate(_ m: Transform3D, kind: ValueKind) -> AnimationValue {
        kind == .affineTransform ? .affineTransform(m.affineTransform) : .transform(m)
    }
}

/// The rules by which rates follow values through the operations of ``Interpolatable``.
enum ValueRates {
    /// d/dt of `a.interpolated(to: b, fraction: f)` when the fraction moves at `df` and the ends
    /// at `da` and `db`: `(1 − f)·a′ + f·b′ + (b − a)·f′` component by component, and through
    /// the decomposition for matrices (semantics §15.3).
    static func interpolation(_ a: AnimationValue, _ b: AnimationValue, fraction f: Double, fractionRate df: Double,
                              startRate da: AnimationValue, endRate db: AnimationValue) -> AnimationValue {
        guard a.kind == b.kind, da.kind == a.kind, db.kind == a.kind else { return .zeroRate(of: a.kind) }
        if let ma = a.matrix, let mb = b.matrix {
            let rate = ma.interpolatedRate(to: mb, fraction: f, fractionRate: df,
                                           rate: da.matrixRate ?? .zero, endRate: db.matrixRate ?? .zero)
            return AnimationValue.fromMatrixRate(rate, kind: a.kind)
        }
        let (x, y, dx, dy) = (a.components, b.components, da.components, db.components)
        return AnimationValue(kind: a.kind) { k in dx[k] * (1 - f) + dy[k] * f + (y[k] - x[k]) * df }
    }

    /// d/dt of `base.adding(delta)` (semantics §4.3): the sum of the rates, and for matrices
    /// (`delta · base`) the product rule `delta′ · base + delta · base′`.
    static func adding(base: AnimationValue, baseRate: AnimationValue, delta: AnimationValue,
                       deltaRate: AnimationValue) -> AnimationValue {
        if let b = base.matrix, let d = delta.matrix {
            let db = baseRate.matrixRate ?? .zero, dd = deltaRate.matrixRate ?? .zero
            return AnimationValue.fromMatrixRate(dd.concatenating(b).elementwiseAdding(d.concatenating(db)), kind: base.kind)
        }
        return baseRate.rateAdding(deltaRate)
    }

    /// d/dt of `v.adding(end.difference(from: start).repeated(times: n))` (semantics §4.4) for
    /// `v` moving at `vRate` and the ends at `startRate` and `endRate`: `v′ + n·(end′ − start′)`,
    /// and for matrices `(Δⁿ)′·v + Δⁿ·v′` with `Δ = end · start⁻¹`, its power's rate carried
    /// through the same repeated squaring as the value.
    static func cumulative(_ v: AnimationValue, rate vRate: AnimationValue, start: AnimationValue, end: AnimationValue,
                           startRate: AnimationValue, endRate: AnimationValue, iterations n: Double) -> AnimationValue {
        guard n > 0 else { return vRate }
        if let mv = v.matrix, let ms = start.matrix, let me = end.matrix {
            let dv = vRate.matrixRate ?? .zero, ds = startRate.matrixRate ?? .zero, de = endRate.matrixRate ?? .zero
            let delta: Transform3D, dDelta: Transform3D
            if let inverse = ms.inverted() {
                // (start⁻¹)′ = −start⁻¹ · start′ · start⁻¹.
                let dInverse = inverse.concatenating(ds).concatenating(inverse).elementwiseScaled(by: -1)
                delta = me.concatenating(inverse)
                dDelta = de.concatenating(inverse).elementwiseAdding(me.concatenating(dInverse))
            } else {
                (delta, dDelta) = (me, de)   // a singular start counts as the identity
            }
            let (power, dPower) = powerRate(delta, dDelta, n)
            return AnimationValue.fromMatrixRate(dPower.concatenating(mv).elementwiseAdding(power.concatenating(dv)), kind: v.kind)
        }
        let (dv, ds, de) = (vRate.components, startRate.components, endRate.components)
        return AnimationValue(kind: v.kind) { k in dv[k] + n * (de[k] - ds[k]) }
    }

    /// `mⁿ` and its rate by repeated squaring, as ``Transform3D/repeated(times:)`` forms it:
    /// each product `(A, A′)·(B, B′) = (AB, A′B + AB′)`.
    static func powerRate(_ m: Transform3D, _ dm: Transform3D, _ count: Double) -> (Transform3D, Transform3D) {
        guard count >= 1 else { return (.identity, .zero) }
        var n = UInt64(min(count, 0x1p62))
        var (base, dBase) = (m, dm)
        var (result, dResult) = (Transform3D.identity, Transform3D.zero)
        while n > 0 {
            if n & 1 == 1 {
                dResult = dResult.concatenating(base).elementwiseAdding(result.concatenating(dBase))
                result = result.concatenating(base)
            }
            n >>= 1
            if n > 0 {
                dBase = dBase.concatenating(base).elementwiseAdding(base.concatenating(dBase))
                base = base.concatenating(base)
            }
        }
        return (result, dResult)
    }

    /// d/dt of a key-path field read from `value` moving at `rate` (semantics §4.6): the field's
    /// components for points, sizes and rects; for transforms through the decomposition's rates
    /// (rotation angles by ``Quaternion/eulerAnglesRate(_:)``). Zero where the transform does not
    /// decompose.
    static func fieldGet(_ field: ValueField, from value: AnimationValue, rate: AnimationValue) -> AnimationValue {
        guard case .transform(let t) = value else { return field.get(from: rate) }
        guard let (parts, d) = t.decomposedRate(rate.matrixRate ?? .zero) else { return .zeroRate(of: field.kind) }
        switch field {
        case .rotation, .rotationZ: return .scalar(parts.rotation.eulerAnglesRate(d.rotation).z)
        case .rotationX: return .scalar(parts.rotation.eulerAnglesRate(d.rotation).x)
        case .rotationY: return .scalar(parts.rotation.eulerAnglesRate(d.rotation).y)
        case .scale: return .scalar((d.scale.x + d.scale.y + d.scale.z) / 3)
        case .scaleX: return .scalar(d.scale.x)
        case .scaleY: return .scalar(d.scale.y)
        case .scaleZ: return .scalar(d.scale.z)
        case .translation: return .size(Size(width: d.translation.x, height: d.translation.y))
        case .translationX: return .scalar(d.translation.x)
        case .translationY: return .scalar(d.translation.y)
        case .translationZ: return .scalar(d.translation.z)
        default: return .zeroRate(of: field.kind)
        }
    }

    /// d/dt of `field.set(fieldValue, in: value)` with the field moving at `fieldRate` and the
    /// value at `rate`: the rate's field replaced for points, sizes and rects; for transforms the
    /// parts' rates with the field's replaced, recomposed (``DecomposedTransform3D/recomposedRate(_:)``).
    static func fieldSet(_ field: ValueField, _ fieldValue: AnimationValue, rate fieldRate: AnimationValue,
                         in value: AnimationValue, valueRate rate: AnimationValue) -> AnimationValue {
        guard case .transform(let t) = value else { return field.set(fieldRate, in: rate) }
        // Parts and rates as ValueField.set reads them: a matrix that does not decompose gives
        // its rough fields (ValueField's fallback) and no rates of its own.
        var parts = t.fields
        var d = t.decomposedRate(rate.matrixRate ?? .zero)?.rate ?? .zero
        switch (field, fieldValue, fieldRate) {
        case (.translation, .size(let v), .size(let dv)):
            // Values and rates held as ValueField.set holds the values: ∞ · 0 is NaN.
            let h = Transform3D.heldElement
            (parts.translation.x, parts.translation.y) = (h(v.width), h(v.height))
            (d.translation.x, d.translation.y) = (h(dv.width), h(dv.height))
        case (_, .scalar(let v), .scalar(let dv)):
            let (v, dv) = (Transform3D.heldElement(v), Transform3D.heldElement(dv))
            switch field {
            case .rotation, .rotationZ, .rotationX, .rotationY:
                var angles = parts.rotation.eulerAngles
                var rates = parts.rotation.eulerAnglesRate(d.rotation)
                switch field {
                case .rotationX: (angles.x, rates.x) = (v, dv)
                case .rotationY: (angles.y, rates.y) = (v, dv)
                default: (angles.z, rates.z) = (v, dv)
                }
                parts.rotation = Quaternion(eulerAngles: angles)
                d.rotation = Quaternion.eulerAnglesRate(angles, rate: rates)
            case .scale: (parts.scale, d.scale) = (Vector3(x: v, y: v, z: v), Vector3(x: dv, y: dv, z: dv))
            case .scaleX: (parts.scale.x, d.scale.x) = (v, dv)
            case .scaleY: (parts.scale.y, d.scale.y) = (v, dv)
            case .scaleZ: (parts.scale.z, d.scale.z) = (v, dv)
            case .translationX: (parts.translation.x, d.translation.x) = (v, dv)
            case .translationY: (parts.translation.y, d.translation.y) = (v, dv)
            case .translationZ: (parts.translation.z, d.translation.z) = (v, dv)
            default: return rate
            }
        default:
            return rate
        }
        return .transform(parts.recomposedRate(d))
    }
}

extension ValueField {
    /// The rate of this field of `value` when `value` moves at `rate` (docs/velocity.md): the
    /// field's components of the rate for points, sizes and rects; for transforms through the
    /// decomposition's rates (zero where the transform does not decompose).
    public func rate(of value: AnimationValue, movingAt rate: AnimationValue) -> AnimationValue {
        ValueRates.fieldGet(self, from: value, rate: rate)
    }
}

extension Transform3D {
    /// Every element times `k`.
    func elementwiseScaled(by k: Double) -> Transform3D {
        Transform3D(rowMajor: rowMajorElements.map { $0 * k })
    }
}

extension _FromToBy {
    /// The rates of ``endpoints(from:to:by:valueFunction:base:)``'s start and end when the base
    /// moves at `baseRate`: an end taken from the base moves with it (`base + by` as
    /// ``ValueRates/adding(base:baseRate:delta:deltaRate:)``); given values do not move. With a
    /// value function the base is the identity input, which does not move.
    static func endpointRates(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?, valueFunction: ValueFunction?,
                              base: AnimationValue, baseRate: AnimationValue, kind: ValueKind)
        -> (start: AnimationValue, end: AnimationValue) {
        let zero = AnimationValue.zeroRate(of: kind)
        guard valueFunction == nil else { return (zero, zero) }
        switch (from, to, by) {
        case (.some, .some, _), (.some, nil, .some), (nil, .some, .some): return (zero, zero)
        case (.some, nil, nil): return (zero, baseRate)
        case (nil, .some, nil): return (baseRate, zero)
        case (nil, nil, .some(let b)):
            return (baseRate, ValueRates.adding(base: base, baseRate: baseRate, delta: b, deltaRate: zero))
        case (nil, nil, nil): return (baseRate, baseRate)
        }
    }

    /// d/dt of ``value(from:to:by:base:fraction:iteration:isCumulative:valueFunction:)`` when the
    /// fraction moves at `fractionRate` and the base at `baseRate`; nil where the value is nil.
    static func velocity(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?, base: AnimationValue,
                         baseRate: AnimationValue, fraction: Double, fractionRate: Double, iteration: Double,
                         isCumulative: Bool, valueFunction: ValueFunction?) -> AnimationValue? {
        guard let domainBase = domainBase(base, valueFunction: valueFunction),
              let (start, end) = endpoints(from: from, to: to, by: by, base: domainBase) else { return nil }
        let (ds, de) = endpointRates(from: from, to: to, by: by, valueFunction: valueFunction, base: domainBase,
                                     baseRate: baseRate, kind: domainBase.kind)
        var v = start.interpolated(to: end, fraction: fraction)
        var dv = ValueRates.interpolation(start, end, fraction: fraction, fractionRate: fractionRate, startRate: ds, endRate: de)
        if isCumulative && iteration > 0 {
            dv = ValueRates.cumulative(v, rate: dv, start: start, end: end, startRate: ds, endRate: de, iterations: iteration)
            v = v.adding(end.difference(from: start).repeated(times: iteration))
        }
        if let valueFunction {
            guard case .scalar(let x) = v, case .scalar(let dx) = dv else { return nil }
            return .transform(valueFunction.transformRate(for: x).elementwiseScaled(by: dx))
        }
        return dv
    }
}

extension BasicAnimation {
    /// d(``value(in:base:)``)/dt per second of the parent time `state.progressRate` is measured
    /// in, when the value beneath moves at `baseRate` (docs/velocity.md): the timing function's
    /// slope times the progress rate, through the interpolation of the value's kind.
    public func velocity(in state: TimingState, base: AnimationValue, baseRate: AnimationValue) -> AnimationValue? {
        let function = timingFunction ?? .linear
        let fraction = function.value(at: state.progress)
        let fractionRate = state.progressRate == 0 ? 0 : function.slope(at: state.progress) * state.progressRate
        return _FromToBy.velocity(from: fromValue, to: toValue, by: byValue, base: base, baseRate: baseRate,
                                  fraction: fraction, fractionRate: fractionRate, iteration: state.iteration,
                                  isCumulative: isCumulative, valueFunction: valueFunction)
    }
}

extension SpringAnimation {
    /// d(``value(in:base:)``)/dt (docs/velocity.md): the response's closed-form rate
    /// (``responseRate(at:)``) at the spring's time, times that time's rate (the timing
    /// function's slope × duration × the progress rate).
    public func velocity(in state: TimingState, base: AnimationValue, baseRate: AnimationValue) -> AnimationValue? {
        let function = timingFunction ?? .linear
        let seconds = function.value(at: state.progress) * timing.effectiveDuration
        let secondsRate = state.progressRate == 0 ? 0 : function.slope(at: state.progress) * timing.effectiveDuration * state.progressRate
        let fractionRate = secondsRate == 0 ? 0 : responseRate(at: seconds) * secondsRate
        return _FromToBy.velocity(from: fromValue, to: toValue, by: byValue, base: base, baseRate: baseRate,
                                  fraction: response(at: seconds), fractionRate: fractionRate, iteration: state.iteration,
                                  isCumulative: isCumulative, valueFunction: valueFunction)
    }
}

extension KeyframeAnimation {
    /// d(``value(in:base:)``)/dt (docs/velocity.md): the segment's derivative in its calculation
    /// mode — zero for discrete; `(b − a)·q′` for linear and paced values; the Hermite
    /// derivative for cubic; along a path the tangent times the parameter's rate, or for paced
    /// paths the unit tangent times the path's length times the progress rate — with the
    /// cumulative and value-function rules of basic animations. Keyframe values do not depend on
    /// the base.
    public func velocity(in state: TimingState, base: AnimationValue, baseRate: AnimationValue) -> AnimationValue? {
        guard let value = value(in: state, base: base),
              let (raw, rawRate, _) = plan.rates(progress: state.progress, progressRate: state.progressRate,
                                                 timingFunction: timingFunction, segmentFunctions: timingFunctions ?? [],
                                                 needsAngle: false),
              let first = plan.keyframes.first, let last = plan.keyframes.last else { return nil }
        var v = raw, dv = rawRate
        if isCumulative && state.iteration > 0 {
            let zero = AnimationValue.zeroRate(of: raw.kind)
            dv = ValueRates.cumulative(v, rate: dv, start: first, end: last, startRate: zero, endRate: zero, iterations: state.iteration)
            v = v.adding(last.difference(from: first).repeated(times: state.iteration))
        }
        if let valueFunction {
            guard case .scalar(let x) = v, case .scalar(let dx) = dv else { return nil }
            return .transform(valueFunction.transformRate(for: x).elementwiseScaled(by: dx))
        }
        return dv.kind == value.kind ? dv : nil
    }

    /// d(``rotationAngle(in:)``)/dt: the path's turning rate — the curvature `(B′ × B″)/|B′|²`
    /// per unit of the segment parameter times the parameter's rate — or nil without a rotation
    /// mode.
    public func rotationRate(in state: TimingState) -> Double? {
        guard rotationMode != nil, path != nil,
              let (_, _, angleRate) = plan.rates(progress: state.progress, progressRate: state.progressRate,
                                                 timingFunction: timingFunction, segmentFunctions: timingFunctions ?? [],
                                                 needsAngle: true) else { return nil }
        return angleRate
    }
}

extension PathSegment {
    /// B″(t): zero for a line.
    func secondDerivative(at t: Double) -> Point {
        switch kind {
        case .line: return Point(x: 0, y: 0)
        case .cubic:
            let (a, b) = (6 * (1 - t), 6 * t)
            return Point(x: a * (p2.x - 2 * p1.x + p0.x) + b * (p3.x - 2 * p2.x + p1.x),
                         y: a * (p2.y - 2 * p1.y + p0.y) + b * (p3.y - 2 * p2.y + p1.y))
        }
    }

    /// The value's and the tangent angle's rates at parameter `t` moving at `dt`:
    /// `B′(t)·dt` and `(B′ × B″)/|B′|² · dt` (0 where B′ vanishes).
    func rates(at t: Double, parameterRate dt: Double) -> (Point, Double) {
        let d1 = derivative(at: t), d2 = secondDerivative(at: t)
        let n = d1.x * d1.x + d1.y * d1.y
        let turn = n > 0 && dt != 0 ? (d1.x * d2.y - d1.y * d2.x) / n * dt : 0
        return (Point(x: d1.x * dt, y: d1.y * dt), turn.isFinite ? turn : 0)
    }
}

extension KeyframePlan {
    static func hermiteRate(_ a: [Double], _ b: [Double], _ d: [Double], _ s: [Double], _ q: Double) -> [Double] {
        let q2 = q * q
        let h00 = 6 * q2 - 6 * q, h10 = 3 * q2 - 4 * q + 1, h01 = -6 * q2 + 6 * q, h11 = 3 * q2 - 2 * q
        return a.indices.map { h00 * a[$0] + h10 * d[$0] + h01 * b[$0] + h11 * s[$0] }
    }

    /// ``evaluate(progress:timingFunction:segmentFunctions:needsAngle:)``'s value with its rate and
    /// (for paths, when asked) the tangent angle's rate, for progress moving at `progressRate`.
    /// At a key time the segment that begins there moves (the one ``locate(_:keyTimes:segments:)``
    /// picks); before the first key time and in discrete mode nothing moves.
    func rates(progress p: Double, progressRate dp: Double, timingFunction: TimingFunction?,
               segmentFunctions: [TimingFunction], needsAngle: Bool) -> (AnimationValue, AnimationValue, Double?)? {
        guard let (value, _) = evaluate(progress: p, timingFunction: timingFunction, segmentFunctions: segmentFunctions,
                                        needsAngle: false) else { return nil }
        let zero = AnimationValue.zeroRate(of: value.kind)
        let n = keyframes.count
        let paced = mode == .paced || mode == .cubicPaced
        let function = timingFunction ?? .linear
        let p1 = paced ? p : function.value(at: p)
        let dp1 = dp == 0 ? 0 : (paced ? dp : function.slope(at: p) * dp)
        guard n > 1, mode != .discrete, dp1 != 0 else { return (value, zero, needsAngle ? 0 : nil) }
        func segmentFunction(_ i: Int) -> TimingFunction { i < segmentFunctions.count ? segmentFunctions[i] : .linear }
        /// The segment that moves at p1 in the direction of play and its parameter's rate; nil
        /// where the value is held (before the first key time, after the last, or leaving the
        /// key times at either end). At a key time moving forwards, the segment that begins
        /// there (past any of zero width: a jump); moving backwards, the one that ends there.
        func segment() -> (index: Int, q1: Double, dq1: Double)? {
            let last = n - 1
            if dp1 > 0 ? !(p1 >= keyTimes[0] && p1 < keyTimes[last]) : !(p1 > keyTimes[0] && p1 <= keyTimes[last]) { return nil }
            // The last k < last with keyTimes[k] ≤ p1 (< p1 moving backwards): a binary search.
            var (i, hi) = (0, last - 1)
            while i < hi {
                let mid = (i + hi + 1) / 2
                if dp1 > 0 ? keyTimes[mid] <= p1 : keyTimes[mid] < p1 { i = mid } else { hi = mid - 1 }
            }
            let width = keyTimes[i + 1] - keyTimes[i]
            guard width > 0 else { return nil }
            let q = min(max((p1 - keyTimes[i]) / width, 0), 1)
            let dq = dp1 / width
            if paced { return (i, q, dq) }
            let f = segmentFunction(i)
            return (i, f.value(at: q), f.slope(at: q) * dq)
        }

        if case .path(let measure) = source {
            if paced && measure.length > 0 && measure.length.isFinite {
                let s = p1 * measure.length, ds = dp1 * measure.length
                let tangent = measure.tangent(atLength: s)
                var turn: Double? = nil
                if needsAngle, let (i, t) = measure.location(atLength: s) {
                    let speed = hypot(measure.segments[i].derivative(at: t).x, measure.segments[i].derivative(at: t).y)
                    turn = speed > 0 ? measure.segments[i].rates(at: t, parameterRate: ds / speed).1 : 0
                }
                return (value, .point(Point(x: tangent.x * ds, y: tangent.y * ds)), turn)
            }
            guard let (i, q1, dq1) = segment() else { return (value, zero, needsAngle ? 0 : nil) }
            let (dPoint, turn) = measure.segments[i].rates(at: q1, parameterRate: dq1)
            return (value, .point(dPoint), needsAngle ? turn : nil)
        }

        if mode == .cubicPaced && !splineTables.isEmpty && splineStarts[n - 1] > 0 {
            let total = splineStarts[n - 1]
            let (i, q) = Self.locate(p1, keyTimes: keyTimes, segments: n - 1)
            let (a, b, d, s) = (keyframes[i].components, keyframes[i + 1].components, outgoing[i], incoming[i + 1])
            let local = (keyTimes[i] + (keyTimes[i + 1] - keyTimes[i]) * q) * total - splineStarts[i]
            let t = ArcLength.parameter(ofLength: local, table: splineTables[i]) { Self.hermiteSpeed(a, b, d, s, $0) }
            // Arc length moves at total·p1′; the parameter at that over the curve's speed.
            let speed = Self.hermiteSpeed(a, b, d, s, t)
            guard speed > 0 else { return (value, zero, nil) }
            let rate = Self.hermiteRate(a, b, d, s, t).map { $0 / speed * total * dp1 }
            return (value, .rate(value.kind, rate), nil)
        }
        guard let (i, q1, dq1) = segment() else { return (value, zero, nil) }
        let a = keyframes[i], b = keyframes[i + 1]
        let isMatrix = a.kind == .transform || a.kind == .affineTransform
        if (mode == .cubic || mode == .cubicPaced) && !isMatrix && !outgoing.isEmpty {
            let rate = Self.hermiteRate(a.components, b.components, outgoing[i], incoming[i + 1], q1).map { $0 * dq1 }
            return (value, .rate(value.kind, rate), nil)
        }
        return (value, ValueRates.interpolation(a, b, fraction: q1, fractionRate: dq1, startRate: zero, endRate: zero), nil)
    }
}
