import AnimationCore
import CKernelSupport

/// What basic and spring batches share: each track moves from `start` by `Δ` (semantics §4.1,
/// resolved when the track is compiled), and a retarget writes new endpoints into these columns
/// alone (``TrackStore/retarget(_:from:to:beginTime:)->_``).
///
/// **Retargets in the lane.** The kernels read Float endpoints, from which the values a host gave
/// cannot be recovered exactly, so a retarget also keeps its exact `from` and `to` (Double) and
/// whether it had a `from`, in columns of the batch, until the store folds them into the stored
/// animation. These columns grow with the batch (17 bytes per track for a number, 65 for a
/// colour), so a retarget writes memory the batch's growth has touched already: kept in a
/// store-wide side table of its own, fresh pages faulted in during a mass retarget took a third of
/// its time (clearing a page costs about 5 µs on these machines).
class InterpolatingBatch: TrackBatch {
    let start: VectorColumns
    let delta: VectorColumns
    /// The pending retarget's exact values (``targetState``).
    let targetFrom: ColumnSet<Double>
    let targetTo: ColumnSet<Double>
    /// ``noTarget``, ``targetFromBeneath``, ``targetFromValue`` or ``targetToBeneath``.
    let targetState = Column<UInt8>(fill: 0)

    static let noTarget: UInt8 = 0
    /// To `targetTo` from the value beneath (§4.1).
    static let targetFromBeneath: UInt8 = 1
    /// From `targetFrom` to `targetTo`.
    static let targetFromValue: UInt8 = 2
    /// From `targetFrom` to the value beneath (§4.1; an implicit action's animation, §10).
    static let targetToBeneath: UInt8 = 3

    override init(width: Int) {
        start = VectorColumns(width: width)
        delta = VectorColumns(width: width)
        targetFrom = ColumnSet(width: width, fill: 0)
        targetTo = ColumnSet(width: width, fill: 0)
        super.init(width: width)
    }

    /// The lane's start, delta, exact-from and target-state lines (``retarget(_:from:toBeneath:)``).
    override func prefetchValueLane(_ i: Int) {
        // `i` is a lane below `count` (checked by ``prefetchLane(_:)``), each column `width` wide.
        for c in 0..<width {
            animation_prefetch_write(start.pointers[c] + i)
            animation_prefetch_write(delta.pointers[c] + i)
            animation_prefetch_write(targetFrom.pointers[c] + i)
        }
        animation_prefetch_write(targetState.base + i)
    }

    override func reserveSpecific(_ needed: Int, count: Int) {
        start.reserve(needed, count: count)
        delta.reserve(needed, count: count)
        targetFrom.reserve(needed, count: count)
        targetTo.reserve(needed, count: count)
        targetState.reserve(needed, count: count)
    }

    override func moveSpecific(_ from: Int, to: Int) {
        start.move(from, to: to)
        delta.move(from, to: to)
        targetFrom.move(from, to: to)
        targetTo.move(from, to: to)
        targetState[to] = targetState[from]
    }

    override func clearSpecific(_ i: Int) {
        start.clear(i)
        delta.clear(i)
        targetState[i] = Self.noTarget
    }

    /// Sets track `i`'s start and change (values of the batch's width; allocation-free, so that a
    /// frame that reaps can reconfigure the tracks left on a slot).
    func setValues(_ i: Int, start s: AnimationValue, delta d: AnimationValue, cumulative isCumulative: Bool) {
        setEndpoints(i, start: s, delta: d)
        setFlag(i, CompiledTiming.cumulative, isCumulative)
    }

    /// Sets track `i`'s start and change, leaving its flags as they are (a retarget).
    func setEndpoints(_ i: Int, start s: AnimationValue, delta d: AnimationValue) {
        ValueStorage.store(s, into: start, at: i)
        ValueStorage.store(d, into: delta, at: i)
    }

    /// Retargets track `i` from value `f` of `from` to value `t` of `to` (values of the batch's
    /// kind, read in place): its start and change — the bits ``setEndpoints(_:start:delta:)``
    /// stores for `to.difference(from: from)`, which is componentwise for every kind up to four
    /// components — and the exact values beside it (see the type's discussion); `keepsFrom` false
    /// records a retarget from the value beneath, whose `from` is not kept.
    @inline(__always)
    func retarget<From: RetargetValues, To: RetargetValues>(_ i: Int, from: From, _ f: Int, to: To, _ t: Int, keepsFrom: Bool) {
        let start = self.start.pointers, delta = self.delta.pointers
        let exactFrom = targetFrom.pointers, exactTo = targetTo.pointers
        var first = SIMD4<Double>()
        from.forEachComponent(f) { c, v in
            guard c < 4 else { return }   // the batch's width is 1, 2 or 4
            first[c] = v
            start[c][i] = Float(v)
            if keepsFrom { exactFrom[c][i] = v }
        }
        to.forEachComponent(t) { c, v in
            guard c < 4 else { return }
            delta[c][i] = Float(v - first[c])
            exactTo[c][i] = v
        }
        targetState[i] = keepsFrom ? Self.targetFromValue : Self.targetFromBeneath
    }

    /// Retargets track `i` from `from` to `base`, the value beneath it (the model of the
    /// exclusive slot it shows in): the start and change that ``setEndpoints(_:start:delta:)``
    /// stores for `(from, base)`, and the exact `from` beside them; the animation keeps no `to`.
    func retarget(_ i: Int, from: AnimationValue, toBeneath base: AnimationValue) {
        let start = self.start.pointers, delta = self.delta.pointers, exactFrom = targetFrom.pointers
        var first = SIMD4<Double>()
        from.forEachComponent { c, v in
            guard c < 4 else { return }   // the batch's width is 1, 2 or 4
            first[c] = v
            start[c][i] = Float(v)
            exactFrom[c][i] = v
        }
        base.forEachComponent { c, v in
            guard c < 4 else { return }
            delta[c][i] = Float(v - first[c])
        }
        targetState[i] = Self.targetToBeneath
    }

    /// Track `i`'s pending retarget as values of `kind` (a nil `from` or `to` is the value
    /// beneath), or nil when none is pending.
    func pendingTarget(_ i: Int, kind: ValueKind) -> (from: AnimationValue?, to: AnimationValue?)? {
        switch targetState[i] {
        case Self.targetFromBeneath: (nil, ValueStorage.load(kind, from: targetTo, at: i))
        case Self.targetFromValue: (ValueStorage.load(kind, from: targetFrom, at: i), ValueStorage.load(kind, from: targetTo, at: i))
        case Self.targetToBeneath: (ValueStorage.load(kind, from: targetFrom, at: i), nil)
        default: nil
        }
    }
}
