import AnimationCore
import CKernelSupport

/// One keyframe track's data, flattened for the pools.
struct CompiledKeyframes {
    /// Keyframe values, `width` floats each (n keys).
    var values: [Float]
    /// Key times (n entries; n + 1 for discrete in the spec's form).
    var keyTimes: [Float]
    /// Per segment: the outgoing tangent at its first key then the incoming one at its second,
    /// `2 · width` floats (n − 1 segments; n for discrete so that every held key has one).
    var tangents: [Float]
    /// Per segment: the curve's control points (4 floats), or empty when every segment is linear.
    var segmentCurves: [Float]
    var isDiscrete: Bool
    var cumulativeDelta: [Float]
    /// 1 when segment j runs from value j to value j + 1; 2 when every segment has its own start and
    /// end (paths, whose moves jump between segments: value 2j to value 2j + 1).
    var keyStride: Int = 1
}

/// Keyframe animations of 1-, 2- or 4-component values: `CAKeyframeAnimation` in linear, discrete,
/// paced and cubic modes, cubic-paced ones resampled at compile time, and paths in linear,
/// discrete and cubic modes (semantics §5).
///
/// Every mode is one Hermite segment `H(v_i, v_{i+1}, d_i, s_{i+1}; q′)` with the mode as data: linear
/// keyframes have chord tangents (`H` is then exactly the lerp), cubic ones Kochanek–Bartels
/// tangents (§5.5), path elements are their own Bézier curves (a cubic Bézier is the Hermite
/// segment with tangents `3(p1 − p0)`, `3(p3 − p2)`, §5.6), and discrete ones hold `v_i` (`q′ = 0`).
///
/// **Kernel.** Timing and the animation's curve in SIMD. Then a per-track cache of the current
/// segment (the range of progress it covers, its times, both values, both tangents and its curve:
/// dense columns, like ozz-animation's per-track key cache) is checked in SIMD; lanes whose
/// progress left their cached segment refresh it from their record — a cursor per track, checked
/// first, then up to four steps, then a binary search, bounded by 8 + log₂ n probes — and
/// everything else (fraction, the segment's own curve, the Hermite sum, the cumulative term and
/// the exclusive fallback) is SIMD over contiguous columns, with no per-lane gathers. (Reading each
/// lane's segment from its record every frame left the kernel waiting on a cache miss per track:
/// 76 ns per track on W2's keyframes, measured, against about a fifth of that now.)
///
/// **Error bound.** ≤ 1e-5 · (|from| + |to| + 1) against the reference for values; points on paths
/// are the exact Bézier points (Float). At a discrete key time, and at a jump between equal key
/// times (§5.4: the later value wins), the switch may happen one Float ulp of progress (6e-8 of
/// the duration) away from the reference's Double decision.
///
/// **Speed.** W2's keyframe family (8 keys, linear / cubic / discrete) at 200,000 tracks, native
/// build: 17.3 ns per track on one thread, 11.3 ns on two (frame p50; 56 / 30.5 ns before the
/// dense columns were prefetched): the slowest family. Its
/// frames cost about twice as much once tracks are active as before any began (10 → 20 ns per
/// track at 200,000, measured): the refreshes read records at scattered positions, and their
/// searches branch on the data. Prefetching the records one block ahead saves a quarter of the
/// family's frame (alternating runs without it: 4.45 against 3.44 ms); four blocks ahead measured
/// the same as one. W2's keyframes have no segment curves and none is cumulative, so their frames
/// skip those columns (alternating runs at 200,000 tracks: −9 %). With the records and columns on
/// huge pages (``allocateStorage(count:fill:)``) the family's frames at 500,000 tracks took 7.40–7.69 ms
/// against 8.40–8.93 ms (alternating runs), and at 200,000 tracks 2.93–3.58 against 3.19–3.91 ms
/// once the large columns start at staggered offsets: a refresh's scattered record reads missed
/// the TLB.
///
/// **Velocity** (when a frame asks, docs/velocity.md): the Hermite segment's derivative through
/// the segment's curve and width, times the animation curve's slope and the progress rate.
final class KeyframeBatch: TrackBatch {
    let cumulativeDelta: VectorColumns
    /// Where the track's record starts in `records` (floats).
    let recordOffset = Column<Int32>(fill: 0)
    /// Interpolating tracks: segments (0 for a single value). Discrete tracks: held values.
    let count1 = Column<Int32>(fill: 0)
    /// Discrete tracks: key times (n or n + 1).
    let count2 = Column<Int32>(fill: 0)
    let cursor = Column<Int32>(fill: 0)
    /// ``Layout`` bits.
    let layout = Column<UInt8>(fill: 0)
    /// The tangent angle for path tracks with a rotation mode (semantics §5.7).
    let angle = Column<Float>(fill: 0)
    override var anglePointer: UnsafeMutablePointer<Float>? { angle.base }
    /// Per track: NaN without a rotation mode, else the turn added to the tangent's angle (0, or π
    /// for autoReverse).
    let turn = Column<Float>(fill: .nan)
    /// cos and sin of `angle` (absolute error ≤ 2e-7), for composition.
    let angleCosine = Column<Float>(fill: 1)
    let angleSine = Column<Float>(fill: 0)
    override var turnPointers: (cosine: UnsafeMutablePointer<Float>, sine: UnsafeMutablePointer<Float>)? {
        (angleCosine.base, angleSine.base)
    }

    /// The segment cache: the cached segment serves progress in `[validFrom, validUntil)` (empty —
    /// +∞, −∞ — until the first refresh and after the keyframes change); its fraction is
    /// `(p − t0)·inverseWidth`, 0 below `t0`, 1 from `t1` on (held values: `t0 = +∞`); the value
    /// `H(v0, v1, d, s; f′)` with `f′` the fraction through the segment's curve.
    let validFrom = Column<Float>(fill: .infinity), validUntil = Column<Float>(fill: -.infinity)
    let t0 = Column<Float>(fill: .infinity), t1 = Column<Float>(fill: .infinity), inverseWidth = Column<Float>(fill: 0)
    let v0: VectorColumns, v1: VectorColumns, d: VectorColumns, s: VectorColumns
    let segmentCurve = CurveStorage()

    enum Layout {
        static let discrete: UInt8 = 1
        static let curves: UInt8 = 4
    }

    /// Every track's keyframe data as one contiguous record, segment-major for interpolating tracks:
    /// segment j is `[t_j, t_{j+1}, v_j, v_{j+1}, d_j, s_{j+1}, curve?]`, so the common case — the
    /// cursor's segment still holds the time — reads one cache line per track. Discrete tracks hold
    /// `[key times, values]`; a single value is `[v]`. (Separate pools for times, values and tangents
    /// left the kernel waiting on three cache misses per track.)
    let records = Pool<Float>(fill: 0)
    /// Pool floats that belong to removed tracks (compacted when they outnumber the live ones).
    private var garbage = 0

    /// Path tracks with a rotation mode keep their animation, for the lanes whose angle the
    /// reference gives (held values, and where the curve's derivative nearly vanishes: see
    /// `storeAngles`). Parallel to positions.
    private(set) var rotating: [KeyframeAnimation?] = []
    /// How many entries of `rotating` are set (so a frame can skip the rotation pass in O(1)).
    private var rotatingCount = 0
    /// How many tracks have segment curves (``Layout/curves``) and how many a nonzero cumulative
    /// delta: while none do, a frame neither reads nor writes the segment-curve columns, nor reads
    /// `cumulativeDelta` (every row of them would give the identity curve and a zero term: 16 + 4w
    /// bytes per track a frame need not stream). Tracks without segment curves keep the identity
    /// curve in the segment-curve columns from `setKeyframes` on, so counting them in later costs
    /// nothing.
    private var curvedCount = 0, cumulativeCount = 0

    /// The cumulative term is the only reader of iterations, and it comes from `cumulativeDelta`.
    override var readsIterations: Bool { cumulativeCount > 0 }

    override init(width: Int) {
        cumulativeDelta = VectorColumns(width: width)
        (v0, v1, d, s) = (VectorColumns(width: width), VectorColumns(width: width), VectorColumns(width: width), VectorColumns(width: width))
        super.init(width: width)
        _ = records.append([Float](repeating: 0, count: 16))   // the padding lanes' record
    }

    private lazy var intColumns: [Column<Int32>] = [recordOffset, count1, count2, cursor]
    // Listed once: arrays built per removal allocated in frames that reap.
    private lazy var cacheColumns: [Column<Float>] = [validFrom, validUntil, t0, t1, inverseWidth]
    private lazy var cacheVectors: [VectorColumns] = [v0, v1, d, s]

    override func reserveSpecific(_ needed: Int, count: Int) {
        cumulativeDelta.reserve(needed, count: count)
        for c in intColumns { c.reserve(needed, count: count) }
        layout.reserve(needed, count: count)
        angle.reserve(needed, count: count)
        turn.reserve(needed, count: count)
        angleCosine.reserve(needed, count: count)
        angleSine.reserve(needed, count: count)
        for c in cacheColumns { c.reserve(needed, count: count) }
        for v in cacheVectors { v.reserve(needed, count: count) }
        segmentCurve.reserve(needed, count: count)
    }

    override func moveSpecific(_ from: Int, to: Int) {
        cumulativeDelta.move(from, to: to)
        for c in intColumns { c[to] = c[from] }
        layout[to] = layout[from]
        angle[to] = angle[from]
        turn[to] = turn[from]
        angleCosine[to] = angleCosine[from]
        angleSine[to] = angleSine[from]
        rotating[to] = rotating[from]
        for c in cacheColumns { c[to] = c[from] }
        for v in cacheVectors { v.move(from, to: to) }
        segmentCurve.move(from, to: to)
    }

    override func willRemoveSpecific(_ i: Int) {
        garbage += recordSize(i)
        if rotating[i] != nil { rotatingCount -= 1 }
        if layout[i] & Layout.curves != 0 { curvedCount -= 1 }
        if !cumulativeDelta.isZero(i) { cumulativeCount -= 1 }
    }

    override func clearSpecific(_ i: Int) {
        cumulativeDelta.clear(i)
        for c in intColumns { c[i] = c.fill }
        layout[i] = 0
        angle[i] = 0
        turn[i] = .nan
        angleCosine[i] = 1
        angleSine[i] = 0
        rotating.removeLast()
        for c in cacheColumns { c[i] = c.fill }
        for v in cacheVectors { v.clear(i) }
        segmentCurve.set(i, nil)
    }

    /// Floats per segment record.
    @inline(__always)
    func segmentSize(curves: Bool) -> Int { 2 + 4 * width + (curves ? Self.curveStride : 0) }

    private func recordSize(_ i: Int) -> Int {
        if layout[i] & Layout.discrete != 0 { return Int(count2[i]) + (Int(count1[i]) + 1) * width }
        let segments = Int(count1[i])
        return segments == 0 ? width : segments * segmentSize(curves: layout[i] & Layout.curves != 0)
    }

    /// Stores the keyframe data of track `i` (new, or replaced in place).
    func setKeyframes(_ i: Int, _ k: CompiledKeyframes, rotating animation: KeyframeAnimation?) {
        if i < rotating.count {
            garbage += recordSize(i)
            if rotating[i] != nil { rotatingCount -= 1 }
            if layout[i] & Layout.curves != 0 { curvedCount -= 1 }
            if !cumulativeDelta.isZero(i) { cumulativeCount -= 1 }
            rotating[i] = animation
        } else {
            rotating.append(animation)
        }
        if animation != nil { rotatingCount += 1 }
        turn[i] = animation.map { $0.rotationMode == .autoReverse ? Float.pi : 0 } ?? .nan
        let w = width
        var record: [Float] = []
        var flags: UInt8 = 0
        if k.isDiscrete {
            let n = k.values.count / w
            record = k.keyTimes + k.values + k.values.suffix(w)
            count1[i] = Int32(n)
            count2[i] = Int32(k.keyTimes.count)
            flags |= Layout.discrete
        } else {
            // Keyframes: with pairs (paths) the values are a (start, end) pair per segment.
            let pairs = k.keyStride == 2
            let segments = pairs ? k.values.count / (2 * w) : max(k.values.count / w - 1, 0)
            let curves = !k.segmentCurves.isEmpty
            if segments == 0 {
                record = Array(k.values.prefix(w))
            } else {
                for j in 0..<segments {
                    let a = pairs ? 2 * j : j, b = pairs ? 2 * j + 1 : j + 1
                    record += [k.keyTimes[j], k.keyTimes[j + 1]]
                    // Appended one slice at a time: `slice + slice` took seconds to type-check.
                    record.append(contentsOf: k.values[(a * w)..<(a * w + w)])
                    record.append(contentsOf: k.values[(b * w)..<(b * w + w)])
                    record.append(contentsOf: k.tangents[(j * 2 * w)..<(j * 2 * w + 2 * w)])
                    if curves {
                        let c = j * Self.curveStride
                        record += c + Self.curveStride <= k.segmentCurves.count
                            ? Array(k.segmentCurves[c..<(c + Self.curveStride)]) : Self.curveFloats(.linear)
                    }
                }
            }
            count1[i] = Int32(segments)
            count2[i] = 0
            if curves { flags |= Layout.curves }
        }
        recordOffset[i] = Int32(records.append(record))
        cursor[i] = 0
        layout[i] = flags
        (validFrom[i], validUntil[i]) = (.infinity, -.infinity)   // refreshed on the next frame
        if flags & Layout.curves != 0 {
            curvedCount += 1
        } else {
            segmentCurve.setControlPoints(i, x1: 0, y1: 0, x2: 1, y2: 1)   // kept: refreshes leave it
        }
        cumulativeDelta.set(i, k.cumulativeDelta)
        if !cumulativeDelta.isZero(i) { cumulativeCount += 1 }
        compactIfNeeded()
    }

    /// Floats per segment curve: its control points.
    static let curveStride = 4

    static func curveFloats(_ c: CompiledCurve) -> [Float] { [c.x1, c.y1, c.x2, c.y2] }

    /// Rebuilds the records without the garbage when it outnumbers the live data (amortised O(1)
    /// per removal; never during a frame).
    private func compactIfNeeded() {
        guard garbage > 65_536 && garbage > records.count - garbage else { return }
        let live = (0..<count).map { i in (0..<recordSize(i)).map { records[Int(recordOffset[i]) + $0] } }
        records.removeAll()
        _ = records.append([Float](repeating: 0, count: 16))
        for i in 0..<count { recordOffset[i] = Int32(records.append(live[i])) }
        garbage = 0
    }

    /// The last index `j` in `0..<n` with `time(j) ≤ p` (0 when none), starting from the track's
    /// cursor: the cursor itself, up to four steps either way, then a binary search — at most
    /// 8 + log₂ n probes. `time(j)` is at `times + j·stride`.
    @inline(__always)
    static func lastKey(atOrBefore p: Float, times: UnsafeMutablePointer<Float>, stride: Int, count n: Int, cursor start: Int) -> Int {
        @inline(__always) func time(_ j: Int) -> Float { times[j * stride] }
        var j = min(max(start, 0), n - 1)
        if time(j) <= p {
            var steps = 0
            while j + 1 < n && time(j + 1) <= p && steps < 4 { j += 1; steps += 1 }
            if j + 1 < n && time(j + 1) <= p {
                var lo = j + 1, hi = n - 1   // the answer is in [lo, hi]
                while lo < hi {
                    let mid = (lo + hi + 1) / 2
                    if time(mid) <= p { lo = mid } else { hi = mid - 1 }
                }
                j = lo
            }
        } else {
            var steps = 0
            while j > 0 && time(j) > p && steps < 4 { j -= 1; steps += 1 }
            if time(j) > p {
                var lo = 0, hi = j   // the last index ≤ p is below j (or 0)
                while lo < hi {
                    let mid = (lo + hi + 1) / 2
                    if time(mid) <= p { lo = mid } else { hi = mid - 1 }
                }
                j = lo
            }
        }
        return j
    }

    /// Raw pointers to everything a refresh reads and writes, taken once per chunk: the per-lane
    /// paths then touch no class instance (a retain and release of a shared object per lane made
    /// two threads slower than one here, measured).
    struct RefreshColumns {
        let width: Int, plainSegment: Int, curvedSegment: Int
        let records: UnsafeMutablePointer<Float>
        let recordOffset: UnsafeMutablePointer<Int32>, count1: UnsafeMutablePointer<Int32>
        let count2: UnsafeMutablePointer<Int32>, cursor: UnsafeMutablePointer<Int32>
        let layout: UnsafeMutablePointer<UInt8>
        let validFrom: UnsafeMutablePointer<Float>, validUntil: UnsafeMutablePointer<Float>
        let t0: UnsafeMutablePointer<Float>, t1: UnsafeMutablePointer<Float>, inverseWidth: UnsafeMutablePointer<Float>
        let v0: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, v1: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let d: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, s: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let curve: CurveColumns

        /// Refills track `t`'s segment cache for progress `p` from its record (semantics §5.2,
        /// §5.4): the held value of a discrete track, the single value, or the segment of an
        /// interpolating track, with the range of progress it serves.
        func refresh(_ t: Int, progress p: Float) {
            let w = width
            let record = Int(recordOffset[t])
            let flags = layout[t]
            if flags & Layout.discrete != 0 {
                // §5.2: value j holds on [kt_j, kt_{j+1}); the last value from its key time on, and at p ≥ 1.
                let n = Int(count1[t]), times = Int(count2[t]), keys = min(times, n)
                let kt = records + record
                let j = p >= 1 ? n - 1 : KeyframeBatch.lastKey(atOrBefore: p, times: kt, stride: 1, count: keys, cursor: Int(cursor[t]))
                cursor[t] = Int32(j)
                let from: Float = j == 0 ? -.infinity : kt[j]
                let until: Float = j == n - 1 ? .infinity : (j + 1 < keys ? min(kt[j + 1], 1) : 1)
                hold(t, records + record + times + j * w, from: from, until: until, curves: false)
                return
            }
            let m = Int(count1[t])
            guard m > 0 else {
                hold(t, records + record, from: -.infinity, until: .infinity, curves: flags & Layout.curves != 0)   // a single value
                return
            }
            let size = flags & Layout.curves != 0 ? curvedSegment : plainSegment
            let segments = records + record
            var j = Int(cursor[t])
            if !(j < m && segments[j * size] <= p && (p < segments[j * size + 1] || j == m - 1)) {
                // §5.4: the last segment starting at or before p (equal key times: the later wins);
                // before the first key time, the first segment at fraction 0.
                j = p < segments[0] ? 0 : KeyframeBatch.lastKey(atOrBefore: p, times: segments, stride: size, count: m, cursor: j)
            }
            cursor[t] = Int32(j)
            let g = segments + j * size
            validFrom[t] = j == 0 ? -.infinity : g[0]
            validUntil[t] = j == m - 1 ? .infinity : g[1]
            (t0[t], t1[t]) = (g[0], g[1])
            inverseWidth[t] = g[1] > g[0] ? 1 / (g[1] - g[0]) : 0
            for c in 0..<w {
                v0[c][t] = g[2 + c]
                v1[c][t] = g[2 + w + c]
                d[c][t] = g[2 + 2 * w + c]
                s[c][t] = g[2 + 3 * w + c]
            }
            if flags & Layout.curves != 0 {
                let k = g + 2 + 4 * w
                (curve.x1[t], curve.y1[t], curve.x2[t], curve.y2[t]) = (k[0], k[1], k[2], k[3])
            }
        }

        /// A held value: fraction 0 (t0 = +∞), so H(v0, …; 0) = v0. `curves`: the track has
        /// segment curves, whose columns then get the identity curve (other tracks keep it).
        private func hold(_ t: Int, _ value: UnsafeMutablePointer<Float>, from: Float, until: Float, curves: Bool) {
            (validFrom[t], validUntil[t]) = (from, until)
            (t0[t], t1[t], inverseWidth[t]) = (.infinity, .infinity, 0)
            for c in 0..<width {
                v0[c][t] = value[c]
                (v1[c][t], d[c][t], s[c][t]) = (0, 0, 0)
            }
            if curves { (curve.x1[t], curve.y1[t], curve.x2[t], curve.y2[t]) = (0, 0, 1, 1) }
        }

        /// Starts loading the record data a refresh of track `t` will most likely read: the
        /// record's start (its first key time, which every refresh compares, and the first
        /// segment, where a repeat wraps to), the cursor's own segment (where the search starts),
        /// the segment after it (progress moves forward) and the one before it (autoreversing
        /// tracks move backward half the time), or the neighbouring held values.
        @inline(__always)
        func prefetch(_ t: Int) {
            let record = records + Int(recordOffset[t])
            let j = Int(cursor[t]), next = j + 1, previous = max(j - 1, 0)
            animation_prefetch(record)
            if layout[t] & Layout.discrete != 0 {
                let values = record + Int(count2[t])
                animation_prefetch(record + next)
                animation_prefetch(values + next * width)
                animation_prefetch(values + previous * width)
            } else {
                let size = layout[t] & Layout.curves != 0 ? curvedSegment : plainSegment
                animation_prefetch(record + previous * size)
                animation_prefetch(record + j * size)
                animation_prefetch(record + next * size)
                animation_prefetch(record + next * size + size - 1)
            }
        }
    }

    private var refreshColumns: RefreshColumns {
        RefreshColumns(width: width, plainSegment: segmentSize(curves: false), curvedSegment: segmentSize(curves: true),
                       records: records.base, recordOffset: recordOffset.base, count1: count1.base, count2: count2.base,
                       cursor: cursor.base, layout: layout.base, validFrom: validFrom.base, validUntil: validUntil.base,
                       t0: t0.base, t1: t1.base, inverseWidth: inverseWidth.base,
                       v0: v0.pointers, v1: v1.pointers, d: d.pointers, s: s.pointers, curve: segmentCurve.columns)
    }

    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let validFrom = self.validFrom.base, validUntil = self.validUntil.base
        // Software-pipelined by one block: a block's stale lanes are found (and their records
        // prefetched) one iteration before they are refreshed, so the refresh reads from cache
        // rather than waiting on memory (a record read is a cache miss: records are large and
        // read at positions no hardware prefetcher predicts).
        // Three plain variables, not an optional tuple: the optional was copied through an
        // outlined helper that reloaded its vectors at a misaligned offset (a store-forwarding
        // stall per block: a quarter of this function's time, measured).
        var pendingTiming = TimingBlock.zero, pendingProgress = SIMD16<Float>(), pendingBlock = -1
        // The curve's solution for the velocity step, plain too (every block has one while
        // velocities are computed).
        var pendingParameter = SIMD16<Float>(), pendingMirrored = SIMD16<Float>()
        let columns = refreshColumns
        let recordOffset = columns.recordOffset, cursor = columns.cursor, count2 = columns.count2
        let count1 = columns.count1, layout = columns.layout
        let curved = curvedCount > 0
        let velocity = velocityStep(time: time, nodeTimes: nodeTimes)
        // §5.4: the animation's curve first (`p`), then the segment's.
        evaluateCurved(blocks: blocks, time: time, nodeTimes: nodeTimes) { i, timingBlock, p, curve in
            var timing: TimingBlock { timingBlock.pointee }   // read where used (see evaluateCurved)
            // The refresh metadata of the block four ahead: few lanes of a block refresh, so these
            // columns are read sparsely, and each read would otherwise wait on memory.
            let ahead = i + 64
            animation_prefetch(recordOffset + ahead)
            animation_prefetch(cursor + ahead)
            animation_prefetch(count1 + ahead)
            animation_prefetch(count2 + ahead)
            animation_prefetch(layout + ahead)
            // The dense columns the value stage streams, `prefetchDistance` tracks ahead.
            let dense = i + TimingKernel.prefetchDistance
            for column in 0..<columns.width {
                animation_prefetch(columns.v0[column] + dense)
                animation_prefetch(columns.v1[column] + dense)
                animation_prefetch(columns.d[column] + dense)
                animation_prefetch(columns.s[column] + dense)
            }
            animation_prefetch(validFrom + dense)
            animation_prefetch(validUntil + dense)
            animation_prefetch(columns.t0 + dense)
            animation_prefetch(columns.t1 + dense)
            animation_prefetch(columns.inverseWidth + dense)
            if curved {
                animation_prefetch(columns.curve.x1 + dense)
                animation_prefetch(columns.curve.y1 + dense)
                animation_prefetch(columns.curve.x2 + dense)
                animation_prefetch(columns.curve.y2 + dense)
            }
            let stale = (timing.weight .> 0) .& ((p .< load16(validFrom, i)) .| .!(p .< load16(validUntil, i)))
            if anyLane(stale) {
                forEachLane(of: stale) { lane in columns.prefetch(i + lane) }
            }
            if pendingBlock >= 0 {
                finish(block: pendingBlock, timing: pendingTiming, progress: pendingProgress, columns, velocity: velocity,
                       curve: CurveSolution(parameter: pendingParameter, mirrored: pendingMirrored))
            }
            (pendingTiming, pendingProgress, pendingBlock) = (timing, p, i)
            if let curve { (pendingParameter, pendingMirrored) = (curve.parameter, curve.mirrored) }
        }
        if pendingBlock >= 0 {
            finish(block: pendingBlock, timing: pendingTiming, progress: pendingProgress, columns, velocity: velocity,
                   curve: CurveSolution(parameter: pendingParameter, mirrored: pendingMirrored))
        }
    }

    /// The rest of block `i`'s frame: refresh the stale segment caches, then the values in SIMD.
    @inline(__always)
    private func finish(block i: Int, timing: TimingBlock, progress p: SIMD16<Float>, _ columns: RefreshColumns,
                        velocity: VelocityStep?, curve: CurveSolution) {
        let segmentCurves = columns.curve
        let out = outputPointers
        let w = columns.width
        let cumulativeDelta = self.cumulativeDelta.pointers
        let validFrom = columns.validFrom, validUntil = columns.validUntil
        let t0 = columns.t0, t1 = columns.t1, inverseWidth = columns.inverseWidth
        let v0 = columns.v0, v1 = columns.v1, d = columns.d, s = columns.s

        // The cached segments, checked in SIMD; lanes that left theirs (and contribute) refresh.
        let live = timing.weight .> 0
        let stale = live .& ((p .< load16(validFrom, i)) .| .!(p .< load16(validUntil, i)))
        if anyLane(stale) {
            forEachLane(of: stale) { lane in columns.refresh(i + lane, progress: p[lane]) }
        }

        // The fraction through the segment, then through the segment's own curve (§5.4).
        let start = load16(t0, i)
        var q = (p - start) * load16(inverseWidth, i)
        q.replace(with: 0, where: p .< start)
        q.replace(with: 1, where: p .>= load16(t1, i))
        q.replace(with: 0, where: .!live)
        let r = CurveKernel.clamp(q), mirror = r .> 0.5
        // Inside the segment, where the fraction moves with p (held values and the ends do not).
        let inside = live .& (p .>= start) .& (p .< load16(t1, i))
        // With no segment curves in the batch every lane's curve is the identity, which returns r.
        // The solved parameter is kept for the velocity's slope (unused, and dropped, without).
        var segment: CurveSolution?
        if curvedCount == 0 {
            q = r
        } else {
            let (y, s) = CurveKernel.solved(r, mirrored: r.replacing(with: 1 - r, where: mirror), mirror: mirror,
                                            x1: load16(segmentCurves.x1, i), y1: load16(segmentCurves.y1, i),
                                            x2: load16(segmentCurves.x2, i), y2: load16(segmentCurves.y2, i))
            q = y
            segment = CurveSolution(parameter: s, mirrored: SIMD16<Float>(repeating: 0).replacing(with: 1, where: mirror))
        }

        // H(v0, v1, d, s; q) (discrete and single values: q = 0, H = v0), the cumulative term
        // (§4.4) and the exclusive fallback.
        let q2 = q * q, q3 = q2 * q
        let h00 = 2 * q3 - 3 * q2 + 1, h10 = q3 - 2 * q2 + q, h01 = -2 * q3 + 3 * q2, h11 = q3 - q2
        let add = timing.bit(CompiledTiming.addsBase)
        for c in 0..<w {
            var v = h00 * load16(v0[c], i) + h01 * load16(v1[c], i) + h10 * load16(d[c], i) + h11 * load16(s[c], i)
            if cumulativeCount > 0 { v += TrackBatch.cumulativeTerm(timing.iteration, load16(cumulativeDelta[c], i)) }
            out.store(v, component: c, weight: timing.weight, addsBase: add, block: i)
        }
        if rotatingCount > 0 && w == 2 { storeAngles(block: i, timing: timing, fraction: q, columns) }
        if let velocity {
            // v′ = H′(q) · q′(r) · (1 / segment width) · f′(p) · p′ (semantics §5.4: the segment's
            // curve inside the animation's), 0 outside the segment and for held values.
            var rate = velocity.curvedRates(timing, block: i, curve: curve) * load16(inverseWidth, i)
            if let segment {
                // The segment curve's slope at the parameter its value was solved for, as the
                // animation's curve is (no second solve).
                rate *= VelocityKernel.curveSlopes(segment, progress: r, curves: segmentCurves, block: i, moving: (rate .!= 0) .& inside,
                                                   exact: nil)
            }
            rate.replace(with: 0, where: .!inside)
            let g00 = 6 * q2 - 6 * q, g10 = 3 * q2 - 4 * q + 1, g01 = -6 * q2 + 6 * q, g11 = 3 * q2 - 2 * q
            for c in 0..<w {
                let slope = g00 * load16(v0[c], i) + g01 * load16(v1[c], i) + g10 * load16(d[c], i) + g11 * load16(s[c], i)
                velocity.store(VelocityKernel.masked(slope * rate, rate: rate), component: c, block: i)
            }
        }
    }

    /// Block `i`'s rotation angles (semantics §5.7): the direction of travel along the segment's
    /// own curve at fraction `q` — the Hermite segment's derivative, which is the Bézier's — as
    /// `atan2` in SIMD, plus autoReverse's half turn. The reference decides where the derivative
    /// is under a hundredth of the segment's scale (a cusp, a line's or a curve's end where
    /// `H′ = 0`, a held value: its fall-backs pick the neighbouring direction), where it is under
    /// 2⁻⁸ of the sum of the endpoints' coordinates' magnitudes plus 1e-11, and for discrete
    /// tracks (the tangent at the held key). The second floor is Float's resolution: the
    /// derivative's chord term comes from endpoints rounded to Float and products of them, off by
    /// up to ~10 half-ulps of the largest coordinate per component, so a segment a few ulps long
    /// (a 7e-15 line at (66, −38), which the reference, in Double, finds to have no direction:
    /// under its 1e-12) read a direction made of rounding; past the floor that error is under
    /// 3e-4 rad, and 1e-11 keeps 10× clear of the reference's own floor. Out of the reference's
    /// way the angle is within about 1e-5 rad of it on segments as long as their coordinates.
    /// (Every lane used to take the reference: a call into the animation's plan per rotating track
    /// and frame.)
    @inline(never)
    private func storeAngles(block i: Int, timing: TimingBlock, fraction q: SIMD16<Float>, _ columns: RefreshColumns) {
        let turn = load16(self.turn.base, i)
        let rotates = turn .== turn
        let q2 = q * q
        let g00 = 6 * q2 - 6 * q, g10 = 3 * q2 - 4 * q + 1, g01 = -6 * q2 + 6 * q, g11 = 3 * q2 - 2 * q
        let (x0, y0) = (load16(columns.v0[0], i), load16(columns.v0[1], i))
        let (x1, y1) = (load16(columns.v1[0], i), load16(columns.v1[1], i))
        let (dx0, dy0) = (load16(columns.d[0], i), load16(columns.d[1], i))
        let (sx, sy) = (load16(columns.s[0], i), load16(columns.s[1], i))
        let dx = g00 * x0 + g10 * dx0 + g01 * x1 + g11 * sx
        let dy = g00 * y0 + g10 * dy0 + g01 * y1 + g11 * sy
        let chord = SIMDMath.magnitude(x1 - x0) + SIMDMath.magnitude(y1 - y0)
        let tangents = SIMDMath.magnitude(dx0) + SIMDMath.magnitude(dy0) + SIMDMath.magnitude(sx) + SIMDMath.magnitude(sy)
        let coordinates = SIMDMath.magnitude(x0) + SIMDMath.magnitude(y0) + SIMDMath.magnitude(x1) + SIMDMath.magnitude(y1)
        let small = pointwiseMax(1e-2 * (chord + tangents), 0x1p-8 * coordinates + 1e-11)
        let length2: SIMD16<Float> = dx * dx + dy * dy
        // NaN fails the comparison: such lanes go to the reference too.
        let clear = length2 .> small * small
        let discrete = SIMDMath.float(load16(layout.base, i) & SIMD16<UInt8>(repeating: Layout.discrete)) .> 0
        let angle = SIMDMath.atan2(dy, dx) + turn.replacing(with: 0, where: .!rotates)
        storeAngles(angle, block: i, timing: timing, referenceLanes: rotates .& (timing.weight .!= 0) .& (.!clear .| discrete),
                    rotating: rotating, into: (self.angle.base, angleCosine.base, angleSine.base))
    }
}
