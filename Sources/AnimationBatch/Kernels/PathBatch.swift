import AnimationCore
import CKernelSupport
import Foundation

/// Paced path animations (semantics §5.6, §5.7): a point moving along a path at constant speed,
/// with the tangent angle for a rotation mode.
///
/// **Kernel.** Timing in SIMD (paced modes ignore timing functions), then "the point at fraction f
/// of the length" as an index and a lerp into the track's ``ArcLengthTable`` (evenly spaced in
/// length, shared by every track on the same path): the indices in SIMD, the interval's two
/// points (four consecutive floats per lane) loaded and transposed into four vectors
/// (`animation_gather_quads`: sixteen 16-byte loads and shuffles), plus the cumulative term and
/// the exclusive fallback.
///
/// **Rotation modes** (§5.7). Tracks with a rotation mode read their angle from a
/// `TangentAngleTable` of the same sample count (per path and mode, the autoReverse half turn
/// included): two linear pieces per interval, split at a corner, so a corner's jump is exact;
/// eight floats per interval, loaded as two quads per lane like the points. Intervals the table
/// does not meet to 1e-5 rad at its check points (two corners, a cusp inside a curve) are marked
/// exact and those lanes take the reference's angle. The table replaced the reference for every
/// lane: W3 (10,000 seed layers, 2,000 of them flying with rotation mode auto), frame p50 2.5 →
/// 0.6 ms on one thread.
///
/// **Jumps** (§5.6: a move-to inside the path takes no time). An interval that holds a jump
/// cannot be one lerp: its lanes (tracks on such paths are flagged, so other blocks pay one test)
/// lerp within the piece before the jump toward the point it leaves, or after it from the point it
/// lands on, from a short per-path list of the intervals' jumps. Lerping across the jump instead
/// put the point hundreds of pixels off the path for one interval (found by the fuzzer).
///
/// **Error bound.** The table is built to a rigorous bound of 2e-4 of the path's length (its
/// ``ArcLengthTable/maximumError``), inside the precision table's 1e-3 · length; angles within
/// 1e-5 rad of the reference at the table's check points (measured, see `TangentAngleTable`),
/// plus Float rounding.
///
/// **Velocity** (when a frame asks, docs/velocity.md): the unit tangent from the path's direction
/// table (an angle table whose pieces bend where a line misses, built for every path then) × the
/// length × the progress rate; in intervals that table still marks exact, the reference's
/// tangent, computed here; a jump's interval gives the piece of the lerp shown.
///
/// **Speed.** W2's paced path family (arcs and curves) at 200,000 tracks, native build: 7.0 ns per
/// track on one thread, 5.3 ns on two (frame p50, the cumulative column skipped while no track is
/// cumulative); lane-by-lane table lookups took 23.3 / 12.2 ns.
final class PathBatch: TrackBatch {
    let cumulativeDelta: VectorColumns
    let tableOffset = Column<Int32>(fill: 0)
    let sampleCount = Column<Int32>(fill: 2)
    /// The tangent angle (semantics §5.7).
    let angle = Column<Float>(fill: 0)
    override var anglePointer: UnsafeMutablePointer<Float>? { angle.base }
    /// cos and sin of `angle` (absolute error ≤ 2e-7, `SIMDMath.sinCos`), for composition.
    let angleCosine = Column<Float>(fill: 1)
    let angleSine = Column<Float>(fill: 0)
    override var turnPointers: (cosine: UnsafeMutablePointer<Float>, sine: UnsafeMutablePointer<Float>)? {
        (angleCosine.base, angleSine.base)
    }
    /// (x, y) per sample.
    let tables = Pool<Float>(fill: 0)
    /// Per track, the float offset of its path's jump list in `jumpTables`; −1 for a path without jumps.
    let jumpBase = Column<Int32>(fill: -1)
    /// Per path with jumps: their count, then six floats each — the interval, the weight within it
    /// where the jump falls, the point left and the point landed on — by interval and weight.
    let jumpTables = Pool<Float>(fill: 0)
    /// Tracks on paths with jumps: while there are none, frames skip the check.
    private var jumpingCount = 0
    /// Per track, the float offset of its angle table in `angleTables`; −1 without a rotation mode.
    let angleBase = Column<Int32>(fill: -1)
    /// Eight floats per interval: start, slope, corner, after the corner, slope after it, exact
    /// (1 or 0), the two pieces' bends (`TangentAngleTable.Interval`). The first interval is the
    /// zeros tracks without a rotation mode read.
    let angleTables = Pool<Float>(fill: 0)
    /// Angle tables by path and whether they include autoReverse's half turn.
    private var angleIndex: [AngleKey: Int32] = [:]
    private struct AngleKey: Hashable {
        let path: Path
        let reverse: Bool
        let bends: Bool
    }
    /// Per track, once a frame has asked for velocities: the float offset of its path's angle table
    /// without a half turn (the direction of travel), and the path's length (Float).
    let travelBase = Column<Int32>(fill: 0)
    let pathLength = Column<Float>(fill: 0)
    /// Each track's path (parallel to positions), for the direction tables velocities need.
    private var paths: [Path] = []
    /// The measure of each path whose direction table (keyed by its float offset in
    /// `angleTables`) marks an interval exact: velocities of lanes there take the reference's
    /// direction from it, in the frame, so that no path's velocity row is left to a reader.
    private var exactMeasures: [Int32: PathMeasure] = [:]
    /// Tracks with a rotation mode keep their animation (parallel to positions), for the lanes
    /// the angle table marks exact.
    private(set) var rotating: [KeyframeAnimation?] = []
    private var rotatingCount = 0
    /// Tracks with a nonzero cumulative delta: while there are none, frames skip the column (8
    /// bytes per track).
    private var cumulativeCount = 0

    /// The cumulative term is the only reader of iterations, and it comes from `cumulativeDelta`.
    override var readsIterations: Bool { cumulativeCount > 0 }
    private var tableIndex: [Path: (offset: Int32, count: Int32, jumps: Int32, length: Float)] = [:]

    init() {
        cumulativeDelta = VectorColumns(width: 2)
        super.init(width: 2)
        _ = tables.append([0, 0, 0, 0])   // the padding lanes' table
        _ = angleTables.append([Float](repeating: 0, count: 8))
    }

    /// The relative tolerance tables are built to.
    static let tolerance = 2e-4

    override func reserveSpecific(_ needed: Int, count: Int) {
        cumulativeDelta.reserve(needed, count: count)
        tableOffset.reserve(needed, count: count)
        sampleCount.reserve(needed, count: count)
        angle.reserve(needed, count: count)
        angleCosine.reserve(needed, count: count)
        angleSine.reserve(needed, count: count)
        angleBase.reserve(needed, count: count)
        jumpBase.reserve(needed, count: count)
        travelBase.reserve(needed, count: count)
        pathLength.reserve(needed, count: count)
    }

    /// The direction tables of every track's path (velocity is the unit tangent × the length ×
    /// the progress rate), built once when a frame first asks for velocities and with each path
    /// set after.
    override func enableVelocities(velocityRow row: (SlotHandle) -> UnsafeMutablePointer<Double>?) {
        guard velocities == nil else { return }
        super.enableVelocities(velocityRow: row)
        for i in 0..<count { setTravel(i) }
    }

    private func setTravel(_ i: Int) {
        guard velocities != nil, let entry = tableIndex[paths[i]] else { return }
        travelBase[i] = angleTable(paths[i], count: Int(entry.count), reverse: false, bends: true)
        pathLength[i] = entry.length
    }

    override func moveSpecific(_ from: Int, to: Int) {
        cumulativeDelta.move(from, to: to)
        tableOffset[to] = tableOffset[from]
        sampleCount[to] = sampleCount[from]
        angle[to] = angle[from]
        angleCosine[to] = angleCosine[from]
        angleSine[to] = angleSine[from]
        angleBase[to] = angleBase[from]
        jumpBase[to] = jumpBase[from]
        travelBase[to] = travelBase[from]
        pathLength[to] = pathLength[from]
        rotating[to] = rotating[from]
        paths[to] = paths[from]
    }

    override func willRemoveSpecific(_ i: Int) {
        if rotating[i] != nil { rotatingCount -= 1 }
        if !cumulativeDelta.isZero(i) { cumulativeCount -= 1 }
        if jumpBase[i] >= 0 { jumpingCount -= 1 }
    }

    override func clearSpecific(_ i: Int) {
        cumulativeDelta.clear(i)
        tableOffset[i] = 0
        sampleCount[i] = 2
        angle[i] = 0
        angleCosine[i] = 1
        angleSine[i] = 0
        angleBase[i] = -1
        jumpBase[i] = -1
        travelBase[i] = 0
        pathLength[i] = 0
        rotating.removeLast()
        paths.removeLast()
    }

    /// Stores the path of track `i`, building (or reusing) its arc-length table.
    func setPath(_ i: Int, _ path: Path, cumulativeDelta delta: [Float], rotating animation: KeyframeAnimation?) {
        if i < rotating.count {
            if rotating[i] != nil { rotatingCount -= 1 }
            if !cumulativeDelta.isZero(i) { cumulativeCount -= 1 }
            rotating[i] = animation
            paths[i] = path
        } else {
            rotating.append(animation)
            paths.append(path)
        }
        defer { setTravel(i) }
        if animation != nil { rotatingCount += 1 }
        if i < count, jumpBase[i] >= 0 { jumpingCount -= 1 }   // a path set again
        defer { if jumpBase[i] >= 0 { jumpingCount += 1 } }
        if let entry = tableIndex[path] {
            tableOffset[i] = entry.offset
            sampleCount[i] = entry.count
            jumpBase[i] = entry.jumps
            angleBase[i] = animation.map { angleTable(path, count: Int(entry.count), reverse: $0.rotationMode == .autoReverse, bends: false) } ?? -1
        } else {
            let measure = PathMeasure(path)
            let table = ArcLengthTable(measure: measure, tolerance: Self.tolerance * max(measure.length, .leastNormalMagnitude))
            var data: [Float] = []
            data.reserveCapacity(table.points.count * 2)
            for p in table.points { data += [Float(p.x), Float(p.y)] }
            let offset = Int32(tables.append(data) / 2)
            let jumps = jumpTable(measure, sampleCount: table.points.count)
            tableIndex[path] = (offset, Int32(table.points.count), jumps, Float(measure.length))
            tableOffset[i] = offset
            sampleCount[i] = Int32(table.points.count)
            jumpBase[i] = jumps
            angleBase[i] = animation.map { angleTable(path, count: table.points.count, reverse: $0.rotationMode == .autoReverse, bends: false) } ?? -1
        }
        cumulativeDelta.set(i, delta)
        if !cumulativeDelta.isZero(i) { cumulativeCount += 1 }
    }

    /// The float offset of the jump list of a path measured by `measure` and sampled `sampleCount`
    /// times, or −1 when it has no jump. A jump at fraction u of the length falls in interval
    /// ⌊u·(m − 1)⌋ at the weight left over; one on a sample is also listed at the end (weight 1)
    /// of the interval before it, whose end point is already the landing point.
    private func jumpTable(_ measure: PathMeasure, sampleCount m: Int) -> Int32 {
        let jumps = measure.jumps
        guard !jumps.isEmpty, measure.length > 0, measure.length.isFinite else { return -1 }
        var entries: [(k: Int, w: Double, order: Int, from: Point, to: Point)] = []
        for (order, jump) in jumps.enumerated() {
            let u = jump.length / measure.length * Double(m - 1)
            var k = Int(u.rounded(.down)), w = u - Double(k)   // u ∈ [0, m − 1]: the length is within the path's
            if k > m - 2 { (k, w) = (m - 2, 1) }
            entries.append((k, w, order, jump.from, jump.to))
            if w == 0 && k > 0 { entries.append((k - 1, 1, order, jump.from, jump.to)) }
        }
        entries.sort { ($0.k, $0.w, $0.order) < ($1.k, $1.w, $1.order) }   // jumps at one length keep the path's order
        var data: [Float] = [Float(entries.count)]
        for e in entries {
            data += [Float(e.k), Float(e.w), Float(e.from.x), Float(e.from.y), Float(e.to.x), Float(e.to.y)]
        }
        return Int32(jumpTables.append(data))
    }

    /// The float offset of `path`'s angle table over `count` samples (built on first use; autoReverse
    /// adds π to every angle, §5.7). Rotation tables are lines only (`bends` false): the kernel
    /// reads a table at a Float position, f·(m − 1) rounded to 2.4e-4 of an interval at 4,096
    /// samples, and on a piece that turns too fast for a line that rounding alone turns the angle
    /// by more than the 1e-5 rad the angles keep (measured: 1.6e-5 on W2's random paths); the
    /// reference decides there. Direction tables for velocities bend (1e-3 of the speed: the
    /// rounding costs 1e-5 of it).
    private func angleTable(_ path: Path, count: Int, reverse: Bool, bends: Bool) -> Int32 {
        let key = AngleKey(path: path, reverse: reverse, bends: bends)
        if let offset = angleIndex[key] { return offset }
        let measure = PathMeasure(path)
        let table = TangentAngleTable(measure: measure, sampleCount: count, bends: bends)
        let turn = reverse ? Double.pi : 0
        var data: [Float] = []
        data.reserveCapacity(table.intervals.count * 8)
        for v in table.intervals {
            data += [Float(v.start + turn), Float(v.slope), Float(v.corner), Float(v.afterCorner + turn), Float(v.slopeAfterCorner),
                     v.isExact ? 1 : 0, Float(v.bend), Float(v.bendAfterCorner)]
        }
        let offset = Int32(angleTables.append(data))
        angleIndex[key] = offset
        if bends && table.exactCount > 0 { exactMeasures[offset] = measure }
        return offset
    }

    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let sampleCount = self.sampleCount.base, tableOffset = self.tableOffset.base, tables = self.tables.base
        let travelBase = self.travelBase.base, angleTables = self.angleTables.base
        let cumulativeDelta = self.cumulativeDelta.pointers, base = outputPointers.base
        let cumulative = cumulativeCount > 0
        let velocity = velocityStep(time: time, nodeTimes: nodeTimes)
        // Software-pipelined by one block, like the keyframe batch: a block's table entries are
        // prefetched one block before they are gathered. Tables are read at positions that follow
        // each track's progress, which no hardware prefetcher predicts: once tracks are active,
        // the gathers waited on memory for most of a path frame (200,000 tracks: 7 ns per track
        // before any began, 17 ns while active, measured).
        var pendingTiming = TimingBlock.zero, pendingIndex = SIMD16<Int32>(), pendingWeight = SIMD16<Float>(), pendingBlock = -1
        var pendingSample = SIMD16<Int32>()
        evaluateTimed(blocks: blocks, time: time, nodeTimes: nodeTimes) { i, timingBlock in
            var timing: TimingBlock { timingBlock.pointee }   // read where used (see evaluateCurved)
            let ahead = i + TimingKernel.prefetchDistance
            animation_prefetch(sampleCount + ahead)
            animation_prefetch(tableOffset + ahead)
            for c in 0..<2 {
                if cumulative { animation_prefetch(cumulativeDelta[c] + ahead) }
                animation_prefetch(base[c] + ahead)
            }
            let f = narrow(timing.progressLow, timing.progressHigh)   // §5.5: paced ignores timing functions
            // Sample k = ⌊f·(m − 1)⌋, clamped into [0, m − 2], and the weight within its interval,
            // in SIMD. f is in [0, 1] for every ordinary timing, but the sample becomes an address:
            // a NaN progress (a timing whose arithmetic overflows) must not, so NaN and anything
            // below 0 read sample 0 (the fuzzer found a NaN progress read 7 GB past the table).
            let m = SIMDMath.float(load16(sampleCount, i))
            let position = f * (m - 1)
            var sample = SIMDMath.floor(position)
            sample.replace(with: m - 2, where: sample .> m - 2)
            sample.replace(with: 0, where: .!(sample .>= 0))
            let sampleIndex = SIMDMath.roundToInt(sample)
            let index = (load16(tableOffset, i) &+ sampleIndex) &* SIMD16<Int32>(repeating: 2)
            for lane in 0..<16 { animation_prefetch(tables + Int(index[lane])) }
            if velocity != nil {
                // The direction table's interval (32 bytes) too, which the velocity gathers.
                let travel = load16(travelBase, i) &+ sampleIndex &* SIMD16<Int32>(repeating: 8)
                for lane in 0..<16 { animation_prefetch(angleTables + Int(travel[lane])) }
            }
            if pendingBlock >= 0 {
                finish(block: pendingBlock, timing: pendingTiming, index: pendingIndex, sample: pendingSample, weight: pendingWeight,
                       velocity: velocity)
            }
            (pendingTiming, pendingIndex, pendingSample, pendingWeight, pendingBlock) = (timing, index, sampleIndex, position - sample, i)
        }
        if pendingBlock >= 0 {
            finish(block: pendingBlock, timing: pendingTiming, index: pendingIndex, sample: pendingSample, weight: pendingWeight,
                   velocity: velocity)
        }
    }

    /// Block `i`'s values: the interval's two points (one 16-byte load per lane, transposed)
    /// interpolated by the weight within it, the rotation angles, the cumulative term (§4.4) and
    /// the exclusive fallback. The loads and the transpose replaced four 16-lane AVX-512 gathers
    /// (`vgatherdps`, slow on Zen 4): W2's path family at 200,000 tracks, ten alternating runs on
    /// one core, frame p50 20 % lower (median of the pairs' ratios), 10 % at 8,192 tracks in cache.
    @inline(__always)
    private func finish(block i: Int, timing: TimingBlock, index: SIMD16<Int32>, sample: SIMD16<Int32>, weight w: SIMD16<Float>,
                        velocity: VelocityStep?) {
        let out = outputPointers, tables = self.tables.base, cumulativeDelta = self.cumulativeDelta.pointers
        var q = (SIMD16<Float>(), SIMD16<Float>(), SIMD16<Float>(), SIMD16<Float>())
        // Four SIMD16<Float> in a tuple are 64 contiguous Floats (homogeneous tuples are laid out as
        // arrays), which the gather fills; `index` points at quads inside the table (built with the batch).
        withUnsafeMutableBytes(of: &q) { animation_gather_quads(tables, index, $0.baseAddress!.assumingMemoryBound(to: Float.self)) }
        var x = q.0 + (q.2 - q.0) * w
        var y = q.1 + (q.3 - q.1) * w
        // Around a jump, the piece's change per unit of weight, and 1 in the lanes that hold one.
        var chordX = SIMD16<Float>(), chordY = SIMD16<Float>(), jumped = SIMD16<Float>()
        if jumpingCount > 0 {
            placeAroundJumps(block: i, sample: sample, weight: w, quads: q, x: &x, y: &y, chordX: &chordX, chordY: &chordY, jumped: &jumped)
        }
        if let velocity {
            storeVelocities(block: i, timing: timing, sample: sample, weight: w, velocity: velocity, chord: (chordX, chordY), jumped: jumped)
        }
        if rotatingCount > 0 { storeAngles(block: i, timing: timing, sample: sample, weight: w) }
        let add = timing.bit(CompiledTiming.addsBase)
        if cumulativeCount > 0 {
            let k = timing.iteration
            out.store(x + TrackBatch.cumulativeTerm(k, load16(cumulativeDelta[0], i)), component: 0, weight: timing.weight, addsBase: add, block: i)
            out.store(y + TrackBatch.cumulativeTerm(k, load16(cumulativeDelta[1], i)), component: 1, weight: timing.weight, addsBase: add, block: i)
        } else {
            out.store(x, component: 0, weight: timing.weight, addsBase: add, block: i)
            out.store(y, component: 1, weight: timing.weight, addsBase: add, block: i)
        }
    }

    /// Lanes of block `i` whose interval holds a jump (§5.6): the lerp within the piece of the
    /// interval the weight falls in — from the interval's start toward the first point left, from
    /// each landing point toward the next point left, from the last landing point toward the
    /// interval's end.
    @inline(never)
    private func placeAroundJumps(block i: Int, sample: SIMD16<Int32>, weight w: SIMD16<Float>,
                                  quads q: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>),
                                  x: inout SIMD16<Float>, y: inout SIMD16<Float>, chordX: inout SIMD16<Float>, chordY: inout SIMD16<Float>,
                                  jumped: inout SIMD16<Float>) {
        let bases = load16(jumpBase.base, i)
        guard any(bases .>= 0) else { return }
        let tables = jumpTables.base
        for lane in 0..<16 where bases[lane] >= 0 {
            // The list was appended whole by `jumpTable`: its count, then six floats per jump.
            let list = tables + Int(bases[lane])
            let k = Float(sample[lane]), weight = w[lane]
            var start = (q.0[lane], q.1[lane]), startWeight: Float = 0
            var end = (q.2[lane], q.3[lane]), endWeight: Float = 1
            var inside = false
            for j in 0..<Int(list[0]) {
                let e = list + 1 + 6 * j
                guard e[0] == k else { continue }
                inside = true
                if weight < e[1] {
                    (end, endWeight) = ((e[2], e[3]), e[1])
                    break
                }
                (start, startWeight) = ((e[4], e[5]), e[1])
            }
            guard inside else { continue }
            let span = endWeight - startWeight
            let f = span > 0 ? (weight - startWeight) / span : 0
            x[lane] = start.0 + (end.0 - start.0) * f
            y[lane] = start.1 + (end.1 - start.1) * f
            chordX[lane] = span > 0 ? (end.0 - start.0) / span : 0
            chordY[lane] = span > 0 ? (end.1 - start.1) / span : 0
            jumped[lane] = 1
        }
    }

    /// The angle at weight `w` in the intervals of `angleTables` that start at `index` (eight
    /// Floats each: start, slope, corner, angle after the corner, slope after it, exact flag, the
    /// pieces' bends): the piece before or after the corner, so a corner turns the angle where it is; and the
    /// lanes whose interval the table marks exact (a cusp: the scalar reference decides there).
    @inline(__always)
    private func tableAngles(at index: SIMD16<Int32>, weight w: SIMD16<Float>) -> (SIMD16<Float>, SIMDMask<SIMD16<Int32>>) {
        var first = (SIMD16<Float>(), SIMD16<Float>(), SIMD16<Float>(), SIMD16<Float>())
        var second = first
        let tables = angleTables.base
        // Each tuple is 64 contiguous Floats; the callers pass indices (and so index + 4) of
        // quads inside an interval of a table in `angleTables`, or 0, its leading zeros.
        withUnsafeMutableBytes(of: &first) { animation_gather_quads(tables, index, $0.baseAddress!.assumingMemoryBound(to: Float.self)) }
        withUnsafeMutableBytes(of: &second) {
            animation_gather_quads(tables, index &+ SIMD16<Int32>(repeating: 4), $0.baseAddress!.assumingMemoryBound(to: Float.self))
        }
        let (start, slope, corner, after) = first
        let (slopeAfter, exact, bend, bendAfter) = second
        let one = SIMD16<Float>(repeating: 1)
        var angle = start + slope * w + bend * w * (w - corner.replacing(with: one, where: corner .> one))
        let fromCorner = w - corner
        angle.replace(with: after + slopeAfter * fromCorner + bendAfter * fromCorner * (w - one), where: w .>= corner)
        return (angle, exact .!= 0)
    }

    /// Block `i`'s velocities (semantics §5.6: constant speed along the path): the direction of
    /// travel from the path's angle table without a half turn — the same two pieces per interval
    /// as the rotation angles, so a corner turns the velocity where it is — times the length
    /// times the progress rate. In an interval the table marks exact (a cusp) the reference's
    /// direction (``referenceDirections(block:timing:lanes:speed:vx:vy:)``); in one that holds a
    /// jump, the piece of the lerp shown: its change per unit of weight × (samples − 1) × the
    /// progress rate.
    @inline(never)
    private func storeVelocities(block i: Int, timing: TimingBlock, sample: SIMD16<Int32>, weight w: SIMD16<Float>, velocity: VelocityStep,
                                 chord: (SIMD16<Float>, SIMD16<Float>), jumped: SIMD16<Float>) {
        let rate = velocity.progressRates(timing, block: i)
        guard anyLane(rate .!= 0) else {
            velocity.store(.zero, component: 0, block: i)
            velocity.store(.zero, component: 1, block: i)
            return
        }
        // Every index is an interval of a direction table built for the track's path by
        // `setTravel` (its sample count's intervals).
        let (angle, exactInterval) = tableAngles(at: load16(travelBase.base, i) &+ sample &* SIMD16<Int32>(repeating: 8), weight: w)
        let (sine, cosine) = SIMDMath.sinCos(angle)
        let speed = load16(pathLength.base, i) * rate
        var vx = cosine * speed, vy = sine * speed
        let pieces = jumped .> 0
        if anyLane(pieces) {
            let perWeight = rate * (SIMDMath.float(load16(sampleCount.base, i)) - 1)
            vx.replace(with: chord.0 * perWeight, where: pieces)
            vy.replace(with: chord.1 * perWeight, where: pieces)
        }
        let exact = exactInterval .& (rate .!= 0) .& .!pieces
        if anyLane(exact) { referenceDirections(block: i, timing: timing, lanes: exact, speed: speed, vx: &vx, vy: &vy) }
        velocity.store(VelocityKernel.masked(vx, rate: rate), component: 0, block: i)
        velocity.store(VelocityKernel.masked(vy, rate: rate), component: 1, block: i)
    }

    /// The velocities of block `i`'s `lanes`, whose interval the direction table marks exact (a
    /// cusp, a turn too sharp for its pieces): the reference's direction in Double at each lane's
    /// progress × `speed`. Out of line: on W2's paths about one lane in 500 (each costs the
    /// reference's arc-length solve, a microsecond or two); where no measure is kept the lane is
    /// left to the scalar reference (NaN), which a read then fills.
    @inline(never)
    private func referenceDirections(block i: Int, timing: TimingBlock, lanes: SIMDMask<SIMD16<Int32>>, speed: SIMD16<Float>,
                                     vx: inout SIMD16<Float>, vy: inout SIMD16<Float>) {
        let tables = load16(travelBase.base, i)
        for lane in 0..<16 where lanes[lane] {
            guard let measure = exactMeasures[tables[lane]] else {
                (vx[lane], vy[lane]) = (.nan, .nan)
                continue
            }
            let progress = lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8]
            let d = measure.tangent(atLength: progress * measure.length)
            let angle = atan2(d.y, d.x)
            vx[lane] = Float(cos(angle)) * speed[lane]
            vy[lane] = Float(sin(angle)) * speed[lane]
        }
    }

    /// Block `i`'s rotation angles (semantics §5.7) from the angle tables: the interval's two
    /// quads per lane, the piece before or after its corner, wrapped into (−π, π] (plus autoReverse's
    /// half turn, in the table); lanes in an exact interval from the reference.
    @inline(never)
    private func storeAngles(block i: Int, timing: TimingBlock, sample: SIMD16<Int32>, weight w: SIMD16<Float>) {
        let base = load16(angleBase.base, i)
        var index = base &+ sample &* SIMD16<Int32>(repeating: 8)
        index.replace(with: 0, where: base .< 0)   // no rotation mode: the zeros
        let (unwrapped, exact) = tableAngles(at: index, weight: w)
        let turns = SIMDMath.roundedToNearestEven(unwrapped * (1 / (2 * Float.pi)))
        let angle = unwrapped - turns * (2 * Float.pi)
        storeAngles(angle, block: i, timing: timing, referenceLanes: exact .& (timing.weight .!= 0) .& (base .>= 0),
                    rotating: rotating, into: (self.angle.base, angleCosine.base, angleSine.base))
    }
}
