import AnimationCore

/// `width` Float columns that hold one vector quantity per track (a value, a start, a delta), with
/// a stable table of their base pointers for the kernels.
final class VectorColumns {
    let columns: [Column<Float>]
    /// `pointers[c]` is `columns[c].base`, refreshed after growth.
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    init(width: Int, fill: Float = 0) {
        columns = (0..<max(width, 1)).map { _ in Column<Float>(fill: fill) }
        pointers = .allocate(capacity: max(width, 1))
        refresh()
    }

    deinit { pointers.deallocate() }

    func refresh() {
        for (c, column) in columns.enumerated() { pointers[c] = column.base }
    }

    func reserve(_ needed: Int, count: Int) {
        for c in columns { c.reserve(needed, count: count) }
        refresh()
    }

    func set(_ i: Int, _ values: [Float]) {
        for (c, column) in columns.enumerated() { column[i] = c < values.count ? values[c] : column.fill }
    }

    func get(_ i: Int) -> [Float] { columns.map { $0[i] } }

    func move(_ from: Int, to: Int) {
        for c in columns { c[to] = c[from] }
    }

    func clear(_ i: Int) {
        for c in columns { c[i] = c.fill }
    }
}

/// Per-track outputs of a frame's state, shared by every batch.
enum TrackState {
    /// Low two bits: phase (0 before, 1 active, 2 after). Bit 2: contributes.
    static let contributes: UInt8 = 4
    /// `previousPhase` before the first frame.
    static let neverEvaluated: UInt8 = 3
    /// Event bits.
    static let started: UInt8 = 1
    static let finished: UInt8 = 2
}

/// A dense struct-of-arrays batch of tracks that share one kernel (design.md, "Struct of arrays,
/// grouped by kernel"). Subclasses add their kind's columns and the value stage.
///
/// Removal swaps the last track into the hole, so columns stay dense; the store updates the moved
/// track's handle. Every column's capacity is a multiple of 16 and lanes past `count` hold benign
/// padding, so kernels run whole SIMD16 blocks.
class TrackBatch {
    /// Components of the value output.
    let width: Int
    private(set) var count = 0

    /// The store's track-table index of the track at each position.
    let trackID = Column<Int32>(fill: -1)
    /// The raw ``AnimationHandle`` of the top-level animation each track belongs to.
    let animationID = Column<UInt64>(fill: 0)

    let beginTime = Column<Double>(fill: .infinity)   // padding lanes never begin
    let speed = Column<Double>(fill: 1)
    let timeOffset = Column<Double>(fill: 0)
    let duration = Column<Double>(fill: 1)
    let period = Column<Double>(fill: 1)
    let activeDuration = Column<Double>(fill: 1)
    let endIteration = Column<Double>(fill: 0)
    let endBasicTime = Column<Double>(fill: 1)
    let flags = Column<UInt8>(fill: 0)
    let group = Column<Int32>(fill: -1)
    let curves = CurveStorage()

    let progress = Column<Float>(fill: 0)
    let iteration = Column<Float>(fill: 0)
    let state = Column<UInt8>(fill: 0)
    let previousPhase = Column<UInt8>(fill: TrackState.neverEvaluated)
    let events = Column<UInt8>(fill: 0)

    /// The value each track shows this frame: for an exclusive track (the only animation of its
    /// slot) already composed with the model (`base`); for others the animation's own value.
    let outputs: VectorColumns
    /// For exclusive tracks the slot's model value; 0 for others.
    let base: VectorColumns
    /// 1 when an exclusive track is additive (the output is `base + value`), else 0.
    let addsBase = Column<Float>(fill: 0)

    init(width: Int) {
        self.width = width
        outputs = VectorColumns(width: width)
        base = VectorColumns(width: width)
    }

    var timingKernel: TimingKernel {
        TimingKernel(beginTime: beginTime.base, speed: speed.base, timeOffset: timeOffset.base, duration: duration.base,
                     period: period.base, activeDuration: activeDuration.base, endIteration: endIteration.base,
                     endBasicTime: endBasicTime.base, flags: flags.base, group: group.base)
    }

    /// Blocks of 16 covering the tracks.
    var blockCount: Int { (count + 15) / 16 }

    // MARK: Storage (subclasses extend)

    func reserveSpecific(_ needed: Int, count: Int) {}
    /// Called before track `i` is removed (its own data still in place).
    func willRemoveSpecific(_ i: Int) {}
    func moveSpecific(_ from: Int, to: Int) {}
    func clearSpecific(_ i: Int) {}

    private func reserve(_ needed: Int) {
        guard needed > trackID.capacity else { return }
        let n = count
        trackID.reserve(needed, count: n)
        animationID.reserve(needed, count: n)
        for c in [beginTime, speed, timeOffset, duration, period, activeDuration, endIteration, endBasicTime] { c.reserve(needed, count: n) }
        flags.reserve(needed, count: n)
        group.reserve(needed, count: n)
        curves.reserve(needed, count: n)
        for c in [progress, iteration, addsBase] { c.reserve(needed, count: n) }
        for c in [state, previousPhase, events] { c.reserve(needed, count: n) }
        outputs.reserve(needed, count: n)
        base.reserve(needed, count: n)
        reserveSpecific(needed, count: n)
    }

    /// Appends the common part of a track and returns its index; the subclass fills its columns.
    func appendCommon(track: Int32, animation: UInt64, timing: CompiledTiming, curve: CompiledCurve) -> Int {
        reserve(count + 1)
        let i = count
        count += 1
        trackID[i] = track
        animationID[i] = animation
        setTiming(i, timing, curve: curve)
        previousPhase[i] = TrackState.neverEvaluated
        state[i] = 0
        events[i] = 0
        return i
    }

    /// Replaces the timing of track `i` (used when an animation is replaced in place).
    func setTiming(_ i: Int, _ t: CompiledTiming, curve: CompiledCurve) {
        beginTime[i] = t.beginTime
        speed[i] = t.speed
        timeOffset[i] = t.timeOffset
        duration[i] = t.duration
        period[i] = t.period
        activeDuration[i] = t.activeDuration
        endIteration[i] = t.endIteration
        endBasicTime[i] = t.endBasicTime
        flags[i] = t.flags
        group[i] = t.group
        curves.set(i, curve)
    }

    /// Removes track `i` by moving the last track into its place. Returns the store index of the
    /// track that moved (now at `i`), or nil when `i` was the last.
    func remove(at i: Int) -> Int32? {
        willRemoveSpecific(i)
        let last = count - 1
        var moved: Int32?
        if i != last {
            trackID[i] = trackID[last]
            animationID[i] = animationID[last]
            for c in [beginTime, speed, timeOffset, duration, period, activeDuration, endIteration, endBasicTime] { c[i] = c[last] }
            flags[i] = flags[last]
            group[i] = group[last]
            curves.move(last, to: i)
            for c in [progress, iteration, addsBase] { c[i] = c[last] }
            for c in [state, previousPhase, events] { c[i] = c[last] }
            outputs.move(last, to: i)
            base.move(last, to: i)
            moveSpecific(last, to: i)
            moved = trackID[i]
        }
        // The vacated lane becomes padding again.
        trackID[last] = -1
        animationID[last] = 0
        setTiming(last, .padding, curve: .linear)
        for c in [progress, iteration, addsBase] { c[last] = c.fill }
        state[last] = 0
        previousPhase[last] = TrackState.neverEvaluated
        events[last] = 0
        outputs.clear(last)
        base.clear(last)
        clearSpecific(last)
        count -= 1
        return moved
    }

    // MARK: Frame

    /// Evaluates the tracks in `blocks` (units of 16 tracks) at `time`. Writes every output of
    /// those tracks and nothing else, so disjoint block ranges may run concurrently.
    func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {}

    /// Writes the per-track state of a block: progress, iteration, phase/contributes and, for
    /// top-level tracks, the event bits (semantics §8.1: started when the active duration begins,
    /// finished when it ends).
    @inline(__always)
    final func storeState(_ timing: TimingBlock, block i: Int) {
        store16(narrow(timing.progressLow, timing.progressHigh), progress.base, i)
        store16(timing.iteration, iteration.base, i)
        let phase = SIMD16<UInt8>(truncatingIfNeeded: SIMD16<Int32>(timing.phase))
        let contributes = SIMD16<UInt8>(truncatingIfNeeded: SIMD16<Int32>(timing.weight)) &* TrackState.contributes
        store16(phase | contributes, state.base, i)
        let previous = load16(previousPhase.base, i)
        let topLevel = (load16(flags.base, i) & CompiledTiming.topLevel) .!= 0
        let zero = SIMD16<UInt8>(repeating: 0)
        let started = zero.replacing(with: TrackState.started,
                                     where: topLevel .& ((previous .== 0) .| (previous .== TrackState.neverEvaluated)) .& (phase .!= 0))
        let finished = zero.replacing(with: TrackState.finished, where: topLevel .& (previous .!= 2) .& (phase .== 2))
        store16(started | finished, events.base, i)
        store16(phase, previousPhase.base, i)
    }

    /// The final output step for one component: exclusive tracks fall back to (or add) their base.
    @inline(__always)
    final func storeOutput(_ value: SIMD16<Float>, component c: Int, weight: SIMD16<Float>, addsBase add: SIMD16<Float>, block i: Int) {
        let b = load16(base.pointers[c], i)
        let shown = (value + b * add).replacing(with: b, where: weight .== 0)
        store16(shown, outputs.pointers[c], i)
    }
}
