import AnimationCore
import CKernelSupport

/// `width` columns that hold one vector quantity per track (a value, a start, a delta, an exact
/// retarget), with a stable table of their base pointers for the kernels.
final class ColumnSet<Element: BitwiseCopyable> {
    let columns: [Column<Element>]
    /// `pointers[c]` is `columns[c].base`, refreshed after growth.
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Element>>

    init(width: Int, fill: Element) {
        columns = (0..<max(width, 1)).map { _ in Column<Element>(fill: fill) }
        pointers = .allocate(capacity: max(width, 1))
        refresh()
    }

    deinit { pointers.deallocate() }   // allocated once in init, never handed out beyond the set's lifetime

    func refresh() {
        for (c, column) in columns.enumerated() { pointers[c] = column.base }
    }

    func reserve(_ needed: Int, count: Int) {
        for c in columns { c.reserve(needed, count: count) }
        refresh()
    }

    func move(_ from: Int, to: Int) {
        for c in columns { c[to] = c[from] }
    }

    func clear(_ i: Int) {
        for c in columns { c[i] = c.fill }
    }
}

/// Float columns: the kernels' values.
typealias VectorColumns = ColumnSet<Float>

extension ColumnSet where Element == Float {
    convenience init(width: Int) { self.init(width: width, fill: 0) }

    func set(_ i: Int, _ values: [Float]) {
        for (c, column) in columns.enumerated() { column[i] = c < values.count ? values[c] : column.fill }
    }

    func get(_ i: Int) -> [Float] { columns.map { $0[i] } }

    /// Whether every component of row `i` is zero (NaN is not).
    func isZero(_ i: Int) -> Bool { columns.allSatisfy { $0[i] == 0 } }
}

/// The state byte every track writes each frame.
enum TrackState {
    /// Bits 0–1: the phase (0 before, 1 active, 2 after; 3 before the first frame).
    static let phaseMask: UInt8 = 3
    static let neverEvaluated: UInt8 = 3
    /// Bit 2: the track contributes this frame.
    static let contributes: UInt8 = 4
    /// Bits 3–4: events this frame (top-level tracks only).
    static let started: UInt8 = 8
    static let finished: UInt8 = 16
    /// Bits 5–6, sticky: the track has reported its start, its finish. Each event is reported at
    /// most once per animation (semantics §8.1), however a host seeks back and forth.
    static let hasStarted: UInt8 = 32
    static let hasFinished: UInt8 = 64
    static let reportedMask: UInt8 = 96
}

/// A dense struct-of-arrays batch of tracks that share one kernel (docs/architecture.md, "Struct of arrays,
/// grouped by kernel"). Subclasses add their kind's columns and the value stage.
///
/// Per track a frame streams six Doubles and a Float of timing (four Doubles in blocks of plain
/// timings, which skip speed and offset, and no Float while the batch has no cumulative track,
/// ``readsIterations``), a flag byte and a plain-timing byte, four Floats of curve, one state byte
/// (read and written), the kind's values, the model fallback and the output — 68 bytes for a basic
/// animation of a number with plain timing, not cumulative (AnimationBatch's perf-report gives the
/// frame times).
///
/// Removal swaps the last track into the hole, so columns stay dense; the store updates the moved
/// track's handle. Every column's capacity is a multiple of 16 and lanes past `count` hold benign
/// padding (a timing that never begins), so kernels run whole SIMD16 blocks with no scalar tail.
class TrackBatch {
    /// Components of the value output.
    let width: Int
    private(set) var count = 0

    /// The store's track-table index of the track at each position.
    let trackID = Column<Int32>(fill: -1)
    /// The raw ``AnimationHandle`` of the top-level animation each track belongs to.
    let animationID = Column<UInt64>(fill: 0)

    /// Each track's timing (``CompiledTiming``), and its value flags.
    let timingColumns = TimingColumns()
    /// The flag bytes (``TimingColumns/flags``), read by the batches' value kernels too.
    var flags: Column<UInt8> { timingColumns.flags }
    let curves = CurveStorage()
    let state = Column<UInt8>(fill: TrackState.neverEvaluated)

    /// The value each track shows this frame: for an exclusive track (the only animation of its
    /// slot) already composed with the model (`base`); for others the animation's own value.
    let outputs: VectorColumns
    /// For exclusive tracks the slot's model value; 0 for others.
    let base: VectorColumns

    /// Where an exclusive track's output is shown: a raw pointer to its slot's row in the
    /// presentation table (``sink`` for a track that is not exclusive: the composition stage
    /// shows its slot) and the slot's handle (so that listing a change reads nothing indexed by
    /// slot but the pending mark). The store sets them between frames, and again whenever the row
    /// moves or its column grows (``SlotPlanner/update()``); the frame copies the output there
    /// right after the kernels, while it is still in cache (``present(blocks:masks:pending:)``).
    let shownRow: Column<UnsafeMutablePointer<Double>>
    let shownSlot = Column<UInt64>(fill: 0)
    /// The row of tracks that are not exclusive: a marker, never written (``changed`` says which
    /// lanes show).
    let sink: UnsafeMutablePointer<Double>
    /// Bit 0 where a track's output bits changed since the frame last showed it (set by the
    /// kernels' final store, ``OutputPointers/store(_:component:weight:addsBase:block:)``), bit 1
    /// (``forced``) where the store changed what its row shows or where it lies — both cleared by
    /// ``present(blocks:masks:pending:)``, which visits only blocks with one set — and bit 2
    /// (``shows``) while the track shows into a row (``setShown(_:row:slot:)``).
    let changed = Column<UInt8>(fill: 0)
    /// The ``changed`` bit that makes the next frame write a row whatever the kernel's value did.
    static let forced: UInt8 = 2
    /// The ``changed`` bit of a track that shows into a row (its ``shownRow`` is not ``sink``).
    static let shows: UInt8 = 4
    /// The ``changed`` bit, in a block's first lane only, of a block whose sixteen lanes all show,
    /// into consecutive rows of one column in lane order (``RowLayout``): the frame shows it with
    /// a few vector stores instead of sixteen scattered ones.
    static let contiguous: UInt8 = 8
    /// Whether a block whose change bytes are `low` (lanes 0–7) and `high` (8–15) is shown in
    /// vector stores this frame: in order (``contiguous``) and no lane ``forced``. One rule for the
    /// value kernels' final store, which shows such a block (of one, two or four components)
    /// straight into its rows, and for ``present(blocks:masks:pending:)``, which then leaves it
    /// alone.
    @inline(__always)
    static func showsInOrder(low: UInt64, high: UInt64) -> Bool {
        low & UInt64(contiguous) != 0 && (low | high) & (UInt64(forced) &* 0x0101_0101_0101_0101) == 0
    }
    /// Blocks with the ``contiguous`` bit.
    private(set) var contiguousBlocks = 0
    /// The evaluator whose last frame has not yet written this batch's changed lanes into its
    /// change list (``FrameEvaluator/changedSlots`` writes them on the first read): told before a
    /// lane moves or changes its slot, so that the list names the slots the frame showed.
    /// Unowned and unchecked: the evaluator clears it whenever it lists, drops the list or goes
    /// (it holds this batch until then); a weak reference would allocate in a frame.
    unowned(unsafe) var unlistedChanges: FrameEvaluator?
    /// Changes of where lanes show since the batch was made (a running count ``RowLayout`` reads).
    private(set) var layoutChanges = 0
    /// Each track's own velocity this frame (docs/velocity.md), `width` Float columns, once a
    /// frame has asked for velocities (``enableVelocities()``); nil before, so that a store that
    /// never asks holds and computes nothing for them. NaN marks a lane whose velocity the
    /// batch does not compute (``ReferenceBatch``): readers take the scalar reference's.
    private(set) var velocities: VectorColumns?
    /// `velocities`' table of column pointers (stable for its life; its entries follow growth).
    private(set) var velocityPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    /// Where an exclusive track's velocity is shown once the batch has velocity columns: its
    /// slot's velocity row, a raw pointer parallel to ``shownRow`` (``sink`` where that is), set
    /// with it (``setShown(_:row:velocityRow:slot:)``, ``followRows(_:velocityRow:)``). Read in lane
    /// order by ``presentVelocities(blocks:)``: looking each slot's row up through the table's
    /// locations instead waited on memory for most of that pass (W2 100k: 0.6 ms of a frame's CPU).
    private(set) var velocityRow: Column<UnsafeMutablePointer<Double>>?
    /// Set by the frame before its kernels when it computes velocities, nil otherwise.
    var velocityFrame: VelocityFrame?

    init(width: Int) {
        self.width = width
        outputs = VectorColumns(width: width)
        base = VectorColumns(width: width)
        sink = .allocate(capacity: 16)
        sink.initialize(repeating: 0, count: 16)
        shownRow = Column(fill: sink)
    }

    deinit { sink.deallocate() }   // `shownRow`'s fill; lives as long as the batch that owns both

    var timingKernel: TimingKernel { TimingKernel(timingColumns) }

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
        for c in timingColumns.all { c.reserve(needed, count: n) }
        curves.reserve(needed, count: n)
        state.reserve(needed, count: n)
        outputs.reserve(needed, count: n)
        base.reserve(needed, count: n)
        shownRow.reserve(needed, count: n)
        shownSlot.reserve(needed, count: n)
        changed.reserve(needed, count: n)
        velocities?.reserve(needed, count: n)
        velocityRow?.reserve(needed, count: n)
        reserveSpecific(needed, count: n)
    }

    /// Gives the batch its velocity columns (zero), as large as its other columns, and each
    /// showing lane its slot's velocity row from `velocityRow` (the table's, which keeps
    /// velocities by now). Once: later rows come with ``setShown(_:row:velocityRow:slot:)``.
    func enableVelocities(velocityRow row: (SlotHandle) -> UnsafeMutablePointer<Double>?) {
        guard velocities == nil else { return }
        let columns = VectorColumns(width: width)
        columns.reserve(max(trackID.capacity, 16), count: 0)
        velocities = columns
        velocityPointers = columns.pointers
        let rows = Column<UnsafeMutablePointer<Double>>(capacity: max(trackID.capacity, 16), fill: sink)
        for t in 0..<count where changed[t] & TrackBatch.shows != 0 { rows[t] = row(SlotHandle(rawValue: shownSlot[t])) ?? sink }
        velocityRow = rows
    }

    /// Appends the common part of a track and returns its index; the subclass fills its columns.
    func appendCommon(track: Int32, animation: UInt64, timing: CompiledTiming, curve: TimingFunction?) -> Int {
        reserve(count + 1)
        let i = count
        count += 1
        trackID[i] = track
        animationID[i] = animation
        setTiming(i, timing, curve: curve)
        state[i] = TrackState.neverEvaluated
        shownRow[i] = sink
        velocityRow?[i] = sink
        return i
    }

    /// Replaces the timing of track `i` and its timing function (nil: linear), keeping its value flags.
    func setTiming(_ i: Int, _ t: CompiledTiming, curve: TimingFunction?) {
        setTiming(i, t)
        curves.set(i, curve)
    }

    /// Stores track `i`'s timing, leaving its curve as it is.
    func setTiming(_ i: Int, _ t: CompiledTiming) { timingColumns.store(t, at: i) }

    /// Starts loading lane `i`'s lines in the columns taking its track over writes (timing,
    /// identity, state, the value beneath; ``Parking/retargetImplicit(_:layer:forKey:from:beginTime:)``). A hint: lane `i`
    /// need not exist (a prefetch never faults), and results do not change.
    func prefetchLane(_ i: Int) {
        guard i >= 0, i < count else { return }
        // Lane `i` is below `count`: inside every column's storage. The timing columns through
        // their stored list (no allocation per change).
        for c in timingColumns.all { c.prefetchForWriting(i) }
        animation_prefetch_write(state.base + i)
        animation_prefetch_write(animationID.base + i)
        for c in 0..<width { animation_prefetch_write(base.pointers[c] + i) }   // `width` pointers, each to a column of `count`+
        prefetchValueLane(i)
    }

    /// The value columns of lane `i` a takeover writes, beyond ``prefetchLane(_:)``'s (none here).
    func prefetchValueLane(_ i: Int) {}

    /// Track `i`'s timing as ``setTiming(_:_:)`` stored it (its timing flags only): what parking
    /// keeps, so that taking the lane over restores it without the animation's existential.
    func timing(_ i: Int) -> CompiledTiming { timingColumns.load(i) }

    /// Sets or clears a value flag of track `i` (``CompiledTiming/cumulative``, ``CompiledTiming/addsBase``).
    func setFlag(_ i: Int, _ flag: UInt8, _ on: Bool) {
        if flag & CompiledTiming.cumulative != 0 && (flags[i] & CompiledTiming.cumulative != 0) != on {
            cumulativeFlagCount += on ? 1 : -1
        }
        flags[i] = on ? flags[i] | flag : flags[i] & ~flag
    }

    /// How many tracks have the ``CompiledTiming/cumulative`` flag (basic and spring tracks).
    private(set) var cumulativeFlagCount = 0

    /// Whether this batch's value stage reads the completed iterations of its tracks
    /// (``TimingBlock/iteration``): only the cumulative term does (semantics §4.4). While none
    /// does, the timing stage's four-block path neither reads the `endIteration` column nor
    /// computes iterations, and leaves them 0 (``TimingKernel/evaluate(blocks:count:time:nodeTimes:state:iterations:into:)``).
    /// Subclasses whose cumulative term comes from their own columns override it.
    var readsIterations: Bool { cumulativeFlagCount > 0 }

    /// The rotation-mode angle column (semantics §5.7) of batches that evaluate paths; nil here.
    var anglePointer: UnsafeMutablePointer<Float>? { nil }

    /// The cosine and sine of each rotation-mode angle, for batches that compute them with the
    /// angle (in SIMD, where composition would call libm per slot); nil here.
    var turnPointers: (cosine: UnsafeMutablePointer<Float>, sine: UnsafeMutablePointer<Float>)? { nil }

    /// Removes track `i` by moving the last track into its place. Returns the store index of the
    /// track that moved (now at `i`), or nil when `i` was the last.
    func remove(at i: Int) -> Int32? {
        unlistedChanges?.listUnlistedChanges()
        willRemoveSpecific(i)
        let last = count - 1
        breakContiguity(i)
        breakContiguity(last)
        layoutChanges &+= 1
        if flags[i] & CompiledTiming.cumulative != 0 { cumulativeFlagCount -= 1 }
        var moved: Int32?
        if i != last {
            trackID[i] = trackID[last]
            animationID[i] = animationID[last]
            for c in timingColumns.all { c.move(last, to: i) }
            curves.move(last, to: i)
            state[i] = state[last]
            outputs.move(last, to: i)
            base.move(last, to: i)
            shownRow[i] = shownRow[last]
            velocityRow?[i] = velocityRow![last]
            shownSlot[i] = shownSlot[last]
            changed[i] = changed[last]
            moveSpecific(last, to: i)
            moved = trackID[i]
        }
        // The vacated lane becomes padding again.
        trackID[last] = -1
        animationID[last] = 0
        flags[last] = 0
        setTiming(last, .padding, curve: nil)
        state[last] = TrackState.neverEvaluated
        outputs.clear(last)
        base.clear(last)
        shownRow[last] = sink
        velocityRow?[last] = sink
        changed[last] = 0
        clearSpecific(last)
        count -= 1
        return moved
    }

    /// Shows track `i`'s output in `row` (slot `slot`'s row in the presentation table), or
    /// nowhere (nil: its slot is composed); its velocity in `velocityRow` (the slot's velocity
    /// row, nil where the table keeps none).
    func setShown(_ i: Int, row: UnsafeMutablePointer<Double>?, velocityRow vrow: UnsafeMutablePointer<Double>?, slot: SlotHandle) {
        unlistedChanges?.listUnlistedChanges()
        if row ?? sink != shownRow[i] {
            breakContiguity(i)
            layoutChanges &+= 1
        }
        shownRow[i] = row ?? sink
        velocityRow?[i] = row == nil ? sink : vrow ?? sink
        shownSlot[i] = slot.rawValue
        // The row may show something else (a model value): the next frame writes it.
        changed[i] = changed[i] & ~TrackBatch.shows | TrackBatch.forced | (row == nil ? 0 : TrackBatch.shows)
    }

    /// Lane `i`'s block no longer keeps its rows in lane order (its ``contiguous`` bit is cleared).
    /// Its lanes are forced: a block in order (of one, two or four components) shows straight into
    /// its rows, leaving the output column behind
    /// (``OutputPointers/store(_:component:weight:addsBase:block:)``), so the next frame compares
    /// with the rows, not with old outputs.
    @inline(__always)
    private func breakContiguity(_ i: Int) {
        let first = i & ~15
        guard changed[first] & TrackBatch.contiguous != 0 else { return }
        changed[first] &= ~TrackBatch.contiguous
        contiguousBlocks -= 1
        for t in first..<first + 16 { changed[t] |= TrackBatch.forced }
    }

    /// After the rows moved (``RowLayout``): every showing lane's row pointer from `row(slot)`
    /// (and its velocity row from `velocityRow(slot)`, once the batch has velocity columns), then
    /// the ``contiguous`` bit on each block whose sixteen lanes show into consecutive rows.
    func followRows(_ row: (SlotHandle) -> UnsafeMutablePointer<Double>, velocityRow: (SlotHandle) -> UnsafeMutablePointer<Double>?) {
        let velocityRows = self.velocityRow
        contiguousBlocks = 0
        for block in 0..<blockCount {
            let first = block * 16
            if changed[first] & TrackBatch.contiguous != 0 {
                // Shown straight into rows so far (see `breakContiguity`): compared with the rows next frame.
                for t in first..<first + 16 { changed[t] |= TrackBatch.forced }
            }
            changed[first] &= ~TrackBatch.contiguous
            var consecutive = first + 16 <= count
            for t in first..<min(first + 16, count) {
                guard changed[t] & TrackBatch.shows != 0 else {
                    consecutive = false
                    continue
                }
                shownRow[t] = row(SlotHandle(rawValue: shownSlot[t]))
                velocityRows?[t] = velocityRow(SlotHandle(rawValue: shownSlot[t])) ?? sink
                consecutive = consecutive && shownRow[t] == shownRow[first] + (t - first) * width
            }
            if consecutive {
                changed[first] |= TrackBatch.contiguous
                contiguousBlocks += 1
            }
        }
    }

    // MARK: Frame

    /// Copies the outputs of the exclusive tracks in `blocks` whose value changed (``changed``)
    /// into their presentation rows, in Double, and writes for each block a mask of the lanes
    /// whose slot is to be listed as changed — row bits changed, and not among `pending` (the
    /// slots listed already; nil when there are none) — to `masks[block − blocks.lowerBound]`.
    /// Returns how many lanes the masks hold: ``list(blocks:masks:into:)`` writes their handles
    /// once the frame knows where each chunk's list goes.
    ///
    /// Run by the frame right after the kernels of the same blocks, while the outputs are in
    /// cache; a block whose sixteen tracks kept their values costs two loads, and only the lanes
    /// to show are visited. Old rows are not read: the kernel's own comparison (``changed``) says
    /// which values changed. A block with a forced lane (its row may show a model value, or
    /// moved) compares with the rows, so that the masks hold exactly the rows whose bits changed.
    /// Listing here, into each chunk's own region of the change list, and gathering the regions
    /// afterwards cost W2 at 1,000,000 properties a quarter of its frame on one thread: three
    /// more passes over eight bytes a change.
    final func present(blocks: Range<Int>, masks: UnsafeMutablePointer<UInt16>, pending: UnsafePointer<UInt8>?) -> Int {
        switch width {
        case 1: present(blocks: blocks, masks: masks, pending: pending, width: 1)
        case 2: present(blocks: blocks, masks: masks, pending: pending, width: 2)
        case 4: present(blocks: blocks, masks: masks, pending: pending, width: 4)
        default: present(blocks: blocks, masks: masks, pending: pending, width: width)
        }
    }

    /// The sixteen-bit mask of the bytes of `low` (lanes 0–7) and `high` (8–15) that are 1 (each
    /// byte is 0 or 1): one multiply gathers eight bytes' low bits into the top byte.
    @inline(__always)
    private static func laneMask(_ low: UInt64, _ high: UInt64) -> UInt32 {
        let gather: UInt64 = 0x0102_0408_1020_4080
        return UInt32(truncatingIfNeeded: (low &* gather) >> 56) | UInt32(truncatingIfNeeded: (high &* gather) >> 56) << 8
    }

    /// ``present(blocks:masks:pending:)`` for a constant `width` (inlined per width: the
    /// component loop unrolls).
    @inline(__always)
    private func present(blocks: Range<Int>, masks: UnsafeMutablePointer<UInt16>, pending: UnsafePointer<UInt8>?, width: Int) -> Int {
        let rows = shownRow.base, slots = shownSlot.base, outputs = self.outputs.pointers, flags = changed.base
        let ones: UInt64 = 0x0101_0101_0101_0101
        let forcedBits = UInt64(TrackBatch.forced) &* ones
        let keptBits = UInt64(TrackBatch.shows | TrackBatch.contiguous) &* ones
        var listed = 0
        for block in blocks {
            let i = block &* 16
            let raw = UnsafeMutableRawPointer(flags + i)
            // Two scalar words: a byte-vector comparison would compile lane by lane.
            let low = raw.loadUnaligned(as: UInt64.self), high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            var mask: UInt32 = 0
            if (low | high) & ~keptBits != 0 {
                if Self.showsInOrder(low: low, high: high) {
                    // Sixteen consecutive rows (all lanes show): the whole block in vector stores;
                    // an unchanged lane's row gets the bits it holds.
                    mask = Self.laneMask(low & ones, high & ones)
                    let row = rows[i]
                    if !OutputPointers.showsStraight(width: width) {
                        for lane in 0..<16 { for k in 0..<width { row[lane &* width &+ k] = Double(outputs[k][i &+ lane]) } }
                    }   // else the kernel showed it (``OutputPointers/store(_:component:weight:addsBase:block:)``)
                } else if (low | high) & forcedBits == 0 {
                    // Changed (bit 0) and shown (bit 2): those lanes' rows, and nothing else.
                    mask = Self.laneMask(low & (low >> 2) & ones, high & (high >> 2) & ones)
                    var m = mask
                    while m != 0 {
                        let t = i &+ m.trailingZeroBitCount
                        let row = rows[t]
                        for k in 0..<width { row[k] = Double(outputs[k][t]) }
                        m &= m &- 1
                    }
                } else {
                    for lane in 0..<16 where flags[i &+ lane] & TrackBatch.shows != 0 {
                        let t = i &+ lane, row = rows[t]
                        var differs: UInt64 = 0
                        for k in 0..<width {
                            let v = Double(outputs[k][t])
                            // Compared as bits: a NaN the kernel repeats is no change.
                            differs |= v.bitPattern ^ row[k].bitPattern
                            row[k] = v
                        }
                        mask |= differs != 0 ? 1 << lane : 0
                    }
                }
                if let pending {
                    var m = mask
                    while m != 0 {
                        let lane = m.trailingZeroBitCount
                        if pending[Int(SlotHandle(rawValue: slots[i &+ lane]).index)] != 0 { mask &= ~(1 << lane) }
                        m &= m &- 1
                    }
                }
                // Clears the block's change bits, keeping which lanes show (the column holds whole blocks).
                raw.storeBytes(of: low & keptBits, as: UInt64.self)
                raw.storeBytes(of: high & keptBits, toByteOffset: 8, as: UInt64.self)
            }
            masks[block &- blocks.lowerBound] = UInt16(truncatingIfNeeded: mask)
            listed &+= mask.nonzeroBitCount
        }
        return listed
    }

    /// Copies the velocities of the exclusive tracks in `blocks` into their slots' velocity rows
    /// (``velocityRow``), in Double: every lane that shows, each frame (a velocity has no
    /// "unchanged" test worth its cost). Run by the frame right after
    /// ``present(blocks:masks:pending:)`` for the same blocks. Returns whether a row it wrote holds
    /// a NaN (a lane left to the scalar reference): the frame then lists those slots
    /// (``markVelocitySlots(blocks:into:)``), so that a bulk read fills only them.
    final func presentVelocities(blocks: Range<Int>) -> Bool {
        guard let v = velocityPointers, let velocityRow else { return false }
        let rows = velocityRow.base, flags = changed.base, width = self.width, sink = self.sink
        var marked = SIMDMask<SIMD16<Int32>>()
        for block in blocks {
            let i = block &* 16
            if flags[i] & TrackBatch.contiguous != 0 {
                // Sixteen consecutive rows of one column in lane order (``contiguous``): so are
                // their velocity rows.
                let row = rows[i]
                guard row != sink else { continue }
                switch width {
                case 1: for lane in 0..<16 { row[lane] = Double(v[0][i &+ lane]) }
                case 2: animation_show_rows2(row, v[0] + i, v[1] + i)
                case 4: animation_show_rows4(row, v[0] + i, v[1] + i, v[2] + i, v[3] + i)
                default: for lane in 0..<16 { for k in 0..<width { row[lane &* width &+ k] = Double(v[k][i &+ lane]) } }
                }
                for k in 0..<width { let x = load16(v[k], i); marked .|= x .!= x }
                continue
            }
            var any = false
            for lane in 0..<16 where flags[i &+ lane] & TrackBatch.shows != 0 {
                let t = i &+ lane, row = rows[t]
                // A showing lane's row is its slot's velocity row, or the sink before its column keeps one.
                guard row != sink else { continue }
                for k in 0..<width { let x = v[k][t]; row[k] = Double(x); any = any || x != x }
            }
            if any { marked = .init(repeating: true) }
        }
        return anyLane(marked)
    }

    /// Adds the slots of the showing lanes in `blocks` whose velocity holds a NaN to `marks`
    /// (after ``presentVelocities(blocks:locations:rows:)`` said there is one).
    final func markVelocitySlots(blocks: Range<Int>, into marks: inout VelocityMarks) {
        guard let v = velocityPointers else { return }
        let slots = shownSlot.base, flags = changed.base, width = self.width
        for block in blocks {
            for t in block &* 16 ..< block &* 16 &+ 16 where flags[t] & TrackBatch.shows != 0 {
                if (0..<width).contains(where: { v[$0][t].isNaN }) { marks.append(SlotHandle(rawValue: slots[t])) }
            }
        }
    }

    /// Writes the slot handles of the lanes ``present(blocks:masks:pending:)`` put in `masks` for
    /// `blocks`, in lane order, from `changes` on.
    final func list(blocks: Range<Int>, masks: UnsafePointer<UInt16>, into changes: UnsafeMutablePointer<SlotHandle>) {
        let slots = shownSlot.base
        var listed = 0
        for block in blocks {
            var m = UInt32(masks[block &- blocks.lowerBound])
            guard m != 0 else { continue }
            let i = block &* 16
            if m == 0xFFFF {
                // A whole block (the common case while everything moves): one 128-byte copy.
                UnsafeMutableRawPointer(changes + listed).copyMemory(from: slots + i, byteCount: 16 * MemoryLayout<UInt64>.size)
                listed &+= 16
                continue
            }
            while m != 0 {
                changes[listed] = SlotHandle(rawValue: slots[i &+ m.trailingZeroBitCount])
                listed &+= 1
                m &= m &- 1
            }
        }
    }

    /// Evaluates the tracks in `blocks` (units of 16 tracks) at `time`. Writes every output of
    /// those tracks and nothing else, so disjoint block ranges may run concurrently.
    func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {}

    /// The timing stage (state bytes stored) and the timing-curve stage of the tracks in `blocks`,
    /// then `values(i, timing, f)` for each block (`i` its first track, `f` its curve output).
    /// `timing` points at the block's ``TimingBlock``: the stages read the fields they use where
    /// they use them, since a copy of all 384 bytes into the closure (which the compiler does not
    /// inline) cost 5 % of a W2 frame.
    ///
    /// Blocks go four at a time: four timing blocks first, then the curve stage through the
    /// interleaved kernel (``CurveKernel/evaluate4(_:curves:block:outputs:)``; one block alone is
    /// latency-bound, measured 18 % of a W2 frame), then the value stages. The scratch lives on
    /// the stack, so chunks on several threads share nothing and a frame allocates nothing.
    @inline(__always)
    final func evaluateCurved(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>,
                              values: (_ i: Int, _ timing: UnsafePointer<TimingBlock>, _ f: SIMD16<Float>, _ curve: CurveSolution?) -> Void) {
        let timingKernel = self.timingKernel
        let curves = self.curves.columns
        let state = statePointers
        let iterations = readsIterations
        // A local tuple (on the stack): `withUnsafeTemporaryAllocation` of four timing blocks
        // (1,536 bytes) takes the heap on Linux, where only up to 1,024 bytes are known safe.
        var storage = (TimingBlock.zero, TimingBlock.zero, TimingBlock.zero, TimingBlock.zero)
        withUnsafeMutablePointer(to: &storage) { storage in
            storage.withMemoryRebound(to: TimingBlock.self, capacity: 4) { timings in
                // 1,024 bytes: the stack.
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 256) { scratch in
                    let scratch = scratch.baseAddress!
                    // The blocks, with room for the curve's solved parameters when a frame's
                    // velocities read them; without, exactly the loop frames always ran.
                    @inline(__always) func run(_ parameters: UnsafeMutablePointer<Float>?) {
                        var block = blocks.lowerBound
                        while block < blocks.upperBound {
                            let n = min(4, blocks.upperBound - block), i = block * 16
                            for k in 0..<n {
                                // The curve columns ahead, like the timing kernel's own columns.
                                let ahead = i + 16 * k + TimingKernel.prefetchDistance
                                animation_prefetch(curves.x1 + ahead)
                                animation_prefetch(curves.y1 + ahead)
                                animation_prefetch(curves.x2 + ahead)
                                animation_prefetch(curves.y2 + ahead)
                            }
                            timingKernel.evaluate(blocks: i, count: n, time: time, nodeTimes: nodeTimes, state: state,
                                                  iterations: iterations, into: timings)
                            CurveKernel.evaluate(timings, count: n, curves: curves, block: i, scratch: scratch, outputs: scratch + 192,
                                                 parameters: parameters)
                            for k in 0..<n {
                                let curve = parameters.map { CurveSolution(parameter: load16($0, 16 * k), mirrored: load16(scratch + 128, 16 * k)) }
                                values(i + 16 * k, timings + k, load16(scratch + 192, 16 * k), curve)
                            }
                            block += n
                        }
                    }
                    if velocityFrame != nil {
                        // 256 bytes more, apart: one allocation of 1,280 would take the heap.
                        withUnsafeTemporaryAllocation(of: Float.self, capacity: 64) { run($0.baseAddress!) }
                    } else {
                        run(nil)
                    }
                }
            }
        }
    }

    /// The timing stage (state bytes stored) of the tracks in `blocks`, four blocks at a time
    /// (``TimingKernel/evaluate(blocks:count:time:nodeTimes:state:iterations:into:)``), then `values(i, timing)`
    /// for each block (`i` its first track): the form of batches without a timing curve.
    @inline(__always)
    final func evaluateTimed(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>,
                             values: (_ i: Int, _ timing: UnsafePointer<TimingBlock>) -> Void) {
        let timingKernel = self.timingKernel
        let state = statePointers
        let iterations = readsIterations
        var storage = (TimingBlock.zero, TimingBlock.zero, TimingBlock.zero, TimingBlock.zero)
        withUnsafeMutablePointer(to: &storage) { storage in
            // A homogeneous tuple of four TimingBlocks has the layout of four contiguous ones.
            storage.withMemoryRebound(to: TimingBlock.self, capacity: 4) { timings in
                var block = blocks.lowerBound
                while block < blocks.upperBound {
                    let n = min(4, blocks.upperBound - block), i = block * 16
                    timingKernel.evaluate(blocks: i, count: n, time: time, nodeTimes: nodeTimes, state: state,
                                          iterations: iterations, into: timings)
                    for k in 0..<n { values(i + 16 * k, timings + k) }
                    block += n
                }
            }
        }
    }

    /// Stores block `i`'s rotation-mode angles (semantics §5.7) — `angle`, with `referenceLanes`
    /// replaced by the reference's (``storeRotationAngles(_:into:block:timing:lanes:)``) — and
    /// their cosines and sines, which composition turns transforms by: sixteen in SIMD here cost
    /// less than one libm cos and sin in Double per slot there (W3 on one thread: 0.26 → 0.22 ms a
    /// frame).
    @inline(__always)
    final func storeAngles(_ angle: SIMD16<Float>, block i: Int, timing: TimingBlock, referenceLanes: SIMDMask<SIMD16<Int32>>,
                           rotating: @autoclosure () -> [KeyframeAnimation?],
                           into columns: (angle: UnsafeMutablePointer<Float>, cosine: UnsafeMutablePointer<Float>,
                                          sine: UnsafeMutablePointer<Float>)) {
        var angle = angle
        store16(angle, columns.angle, i)
        if anyLane(referenceLanes) {
            // Read only here: passing the array itself retained and released it for every block.
            storeRotationAngles(rotating(), into: columns.angle, block: i, timing: timing, lanes: referenceLanes)
            angle = load16(columns.angle, i)
        }
        let (sine, cosine) = SIMDMath.sinCos(angle)
        store16(cosine, columns.cosine, i)
        store16(sine, columns.sine, i)
    }

    /// The rotation-mode angles (semantics §5.7) of block `i`'s contributing tracks that have one
    /// (among `lanes`, when given), from the reference in Double at each lane's progress:
    /// `rotating[t]` is the track's keyframe animation when it rotates, nil otherwise. Out of line:
    /// few lanes need it.
    @inline(never)
    final func storeRotationAngles(_ rotating: [KeyframeAnimation?], into angle: UnsafeMutablePointer<Float>, block i: Int,
                                   timing: TimingBlock, lanes: SIMDMask<SIMD16<Int32>>? = nil) {
        // Borrowed in place: binding `rotating[t]` to a local would copy the whole animation (a
        // memmove and retains per lane).
        rotating.withUnsafeBufferPointer { rotating in
            for lane in 0..<16 where i + lane < count && timing.weight[lane] != 0 && rotating[i + lane] != nil && lanes?[lane] != false {
                let progress = lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8]
                let state = TimingState(phase: .active, contributes: true, activeTime: 0, iteration: 0, basicTime: 0, progress: progress)
                angle[i + lane] = Float(rotating[i + lane]?.rotationAngle(in: state) ?? 0)
            }
        }
    }

    /// Pointers to the state column, taken once per chunk: reading a class's column inside a block
    /// loop costs a retain/release pair per access (measured: 5 % of a frame).
    var statePointers: StatePointers { StatePointers(state: state.base) }

    /// Pointers to the output, base and change columns, taken once per chunk.
    var outputPointers: OutputPointers {
        OutputPointers(outputs: outputs.pointers, base: base.pointers, changed: changed.base,
                       rows: OutputPointers.showsStraight(width: width) ? shownRow.base : nil, width: width)
    }
}

/// The state column of a batch, as a raw pointer (see ``TrackBatch/statePointers``).
struct StatePointers {
    let state: UnsafeMutablePointer<UInt8>

    /// Writes the state byte of a block: phase, contributes and, for top-level tracks, the event bits
    /// (semantics §8.1: started when the active duration has begun, finished when it has ended),
    /// each at most once: the sticky bits the byte carries from earlier frames say what was
    /// reported already, so seeking back and forth never reports an end twice.
    @inline(__always)
    func store(_ timing: TimingBlock, block i: Int) {
        // Logic on Float lanes, bytes only for storage: on this toolchain comparisons and selects of
        // integer vectors compile lane by lane, of Float vectors to single instructions.
        let phase = SIMDMath.floor(timing.phase)   // 1.5 marks an autoreversed half (``TimingBlock/phase``)
        let reported = SIMDMath.float(load16(state, i) & SIMD16<UInt8>(repeating: TrackState.reportedMask))
        let topLevel = timing.bit(CompiledTiming.topLevel) .> 0
        let zero = SIMD16<Float>(repeating: 0)
        // 0, 32, 64 or 96: started was reported when the value is 32 or 96, finished from 64 on.
        let hadStarted = (reported .== Float(TrackState.hasStarted)) .| (reported .> Float(TrackState.hasFinished))
        let hadFinished = reported .> Float(TrackState.hasStarted)
        // started: now active or after, not reported before.
        let started = zero.replacing(with: Float(TrackState.started | TrackState.hasStarted),
                                     where: topLevel .& .!hadStarted .& (phase .> 0.5))
        // finished: now after, not reported before.
        let finished = zero.replacing(with: Float(TrackState.finished | TrackState.hasFinished),
                                      where: topLevel .& .!hadFinished .& (phase .> 1.5))
        let byte = phase + timing.weight * Float(TrackState.contributes) + reported + started + finished
        animation_store_bytes(state + i, SIMDMath.roundToInt(byte))
    }
}

/// The output columns of a batch, as raw pointers (see ``TrackBatch/outputPointers``).
extension TrackBatch {
    /// The cumulative term `k · Δ` of keyframe and path tracks (semantics §4.4), 0 where Δ is 0
    /// (the same signed zero, so the bits are the product's): a count of iterations past Float's
    /// range is ∞ (a time offset of 1e300 s), and ∞ × 0 — a component that does not move, or a
    /// track that is not cumulative — was NaN.
    @inline(__always)
    static func cumulativeTerm(_ k: SIMD16<Float>, _ delta: SIMD16<Float>) -> SIMD16<Float> {
        (k * delta).replacing(with: delta, where: delta .== 0)
    }
}

struct OutputPointers {
    let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let base: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let changed: UnsafeMutablePointer<UInt8>
    /// The lanes' rows, for a batch of one, two or four components (``showsStraight(width:)``;
    /// nil for others): a block in consecutive rows is shown there by
    /// ``store(_:component:weight:addsBase:block:)`` itself.
    let rows: UnsafeMutablePointer<UnsafeMutablePointer<Double>>?
    /// Components per track.
    let width: Int

    /// Whether the value kernels show a block of `width`-component tracks in consecutive rows
    /// straight into them (`animation_show_component_marking`), leaving the Float output column
    /// alone. Other widths (three, sixteen) write the output column, and the frame shows it.
    static func showsStraight(width: Int) -> Bool { width == 1 || width == 2 || width == 4 }

    /// The value step of basic and spring animations for one block: per component
    /// `v = start + Δ · (fraction + k · cumulative)` (semantics §4.2, §4.4), then ``store(_:component:weight:addsBase:block:)``;
    /// the three columns it streams are prefetched ``TimingKernel/prefetchDistance`` tracks ahead.
    @inline(__always)
    func storeInterpolated(start: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, delta: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
                           fraction: SIMD16<Float>, timing timingBlock: UnsafePointer<TimingBlock>, width: Int, block i: Int) {
        var timing: TimingBlock { timingBlock.pointee }   // read where used (as the value stages do)
        // The cumulative term chosen, not multiplied by a 0 or 1 flag: a count of iterations past
        // Float's range is ∞ (a 1e-300 s duration repeating for 0.25 s), and ∞ × 0 was NaN.
        let cumulative = timing.bit(CompiledTiming.cumulative) .== 1
        let amount = fraction + timing.iteration.replacing(with: 0, where: .!cumulative)
        let endless = (amount .== .infinity) .| (amount .== -.infinity)
        let add = timing.bit(CompiledTiming.addsBase)
        let ahead = i + TimingKernel.prefetchDistance
        for c in 0..<width {
            animation_prefetch(start[c] + ahead)
            animation_prefetch(delta[c] + ahead)
            animation_prefetch(base[c] + ahead)
            let s = load16(start[c], i), d = load16(delta[c], i)
            var v = s + d * amount
            // A component that does not move stays where it starts after endlessly many
            // iterations, as in the reference's double precision (0 × ∞ would be NaN).
            v.replace(with: s, where: endless .& (d .== 0))
            store(v, component: c, weight: timing.weight, addsBase: add, block: i)
        }
    }

    /// The final output step for one component: exclusive tracks fall back to their base, and
    /// exclusive additive ones add it (`add` is 1 for those lanes); lanes whose bits change are
    /// marked in the change column (``TrackBatch/changed``).
    @inline(__always)
    func store(_ value: SIMD16<Float>, component c: Int, weight: SIMD16<Float>, addsBase add: SIMD16<Float>, block i: Int) {
        let b = load16(base[c], i)
        let shown = (value + b * add).replacing(with: b, where: weight .== 0)
        if let rows {
            // Sixteen lanes in consecutive rows, none forced: straight into the rows, compared
            // with them (the output column and a second pass over it saved). A forced block
            // takes the output column; ``TrackBatch/present(blocks:masks:pending:)`` compares it
            // with the rows.
            let raw = UnsafeRawPointer(changed + i)   // a block's 16 change bytes (the column holds whole blocks)
            if TrackBatch.showsInOrder(low: raw.loadUnaligned(as: UInt64.self), high: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) {
                animation_show_component_marking(rows[i], width, c, shown, changed + i)
                return
            }
        }
        animation_store_marking_changes(outputs[c] + i, shown, changed + i)
    }
}
