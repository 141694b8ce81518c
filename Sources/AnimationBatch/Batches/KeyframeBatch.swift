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
/// **Kernel.** Timing and the animation's curve in SIMD; the segment lookup per lane with a cursor
/// per track (time usually moves forward a little: the cursor is checked first, then up to four
/// steps, then a binary search — bounded by log₂ n); the segments' own curves in SIMD (coefficients
/// gathered per lane); the Hermite sum per lane; cumulative term and exclusive fallback in SIMD.
///
/// **Error bound.** ≤ 1e-5 · (|from| + |to| + 1) against the reference for values; points on paths
/// are the exact Bézier points (Float). At a discrete key time the switch may happen one Float ulp
/// of progress (6e-8 of the duration) away from the reference's Double decision.
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

    /// Path tracks with a rotation mode keep their animation: the angle is the reference's own
    /// (the tangent of the exact segment, with its fall-backs at cusps). Parallel to positions.
    private(set) var rotating: [KeyframeAnimation?] = []
    /// How many entries of `rotating` are set (so a frame can skip the rotation pass in O(1)).
    private var rotatingCount = 0

    override init(width: Int) {
        cumulativeDelta = VectorColumns(width: width)
        super.init(width: width)
        _ = records.append([Float](repeating: 0, count: 16))   // the padding lanes' record
    }

    private var intColumns: [Column<Int32>] { [recordOffset, count1, count2, cursor] }

    override func reserveSpecific(_ needed: Int, count: Int) {
        cumulativeDelta.reserve(needed, count: count)
        for c in intColumns { c.reserve(needed, count: count) }
        layout.reserve(needed, count: count)
        angle.reserve(needed, count: count)
    }

    override func moveSpecific(_ from: Int, to: Int) {
        cumulativeDelta.move(from, to: to)
        for c in intColumns { c[to] = c[from] }
        layout[to] = layout[from]
        angle[to] = angle[from]
        rotating[to] = rotating[from]
    }

    override func willRemoveSpecific(_ i: Int) {
        garbage += recordSize(i)
        if rotating[i] != nil { rotatingCount -= 1 }
    }

    override func clearSpecific(_ i: Int) {
        cumulativeDelta.clear(i)
        for c in intColumns { c[i] = c.fill }
        layout[i] = 0
        angle[i] = 0
        rotating.removeLast()
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
            rotating[i] = animation
        } else {
            rotating.append(animation)
        }
        if animation != nil { rotatingCount += 1 }
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
                    record += k.values[(a * w)..<(a * w + w)] + k.values[(b * w)..<(b * w + w)]
                    record += k.tangents[(j * 2 * w)..<(j * 2 * w + 2 * w)]
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
        cumulativeDelta.set(i, k.cumulativeDelta)
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
    private static func lastKey(atOrBefore p: Float, times: UnsafeMutablePointer<Float>, stride: Int, count n: Int, cursor start: Int) -> Int {
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

    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let timingKernel = self.timingKernel
        let curves = self.curves.columns
        let state = statePointers, out = outputPointers
        let w = width
        let recordOffset = self.recordOffset.base, count1 = self.count1.base, count2 = self.count2.base
        let cursor = self.cursor.base, layout = self.layout.base
        let angle = self.angle.base, cumulativeDelta = self.cumulativeDelta.pointers
        let records = self.records.base
        let anyRotating = rotatingCount > 0
        let plainSegment = segmentSize(curves: false), curvedSegment = segmentSize(curves: true)
        for block in blocks {
            let i = block * 16
            let timing = timingKernel.evaluate(block: i, time: time, nodeTimes: nodeTimes)
            state.store(timing, block: i)
            let p1 = CurveKernel.evaluate(timing, curves: curves, block: i)   // §5.4: the animation's curve first

            // Prefetch the records two blocks ahead (their cursor's segment): each track reads one
            // cache line of its record, at an offset the hardware prefetcher cannot predict.
            if block + 2 < blocks.upperBound {
                let ahead = i + 32
                for lane in 0..<16 {
                    let t = ahead + lane
                    let size = layout[t] & Layout.curves != 0 ? curvedSegment : plainSegment
                    animation_prefetch(records + Int(recordOffset[t]) + Int(cursor[t]) * size)
                }
            }

            // Segment lookup, per lane: `segment` is where the lane's segment record (or held value)
            // starts in `records`.
            var q = SIMD16<Float>(repeating: 0)
            var curved = false
            var starts = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &starts) { raw in
                let segmentStart = raw.baseAddress!.assumingMemoryBound(to: Int.self)
                for lane in 0..<16 {
                    let t = i + lane
                    let record = Int(recordOffset[t])
                    segmentStart[lane] = record
                    guard timing.weight[lane] != 0 else { continue }
                    let p = p1[lane]
                    let flags = layout[t]
                    if flags & Layout.discrete != 0 {
                        // §5.2: value j holds on [kt_j, kt_{j+1}); the last value from its key time on.
                        let n = Int(count1[t]), times = Int(count2[t])
                        let j = p >= 1 ? n - 1 : Self.lastKey(atOrBefore: p, times: records + record, stride: 1,
                                                             count: min(times, n), cursor: Int(cursor[t]))
                        cursor[t] = Int32(j)
                        segmentStart[lane] = record + times + j * w   // the held value; q stays 0
                        continue
                    }
                    let m = Int(count1[t])
                    guard m > 0 else { continue }   // a single value: q = 0 on [v]
                    let size = flags & Layout.curves != 0 ? curvedSegment : plainSegment
                    let segments = records + record
                    var j = Int(cursor[t])
                    // The cursor's segment usually still holds p: one record read.
                    if !(j < m && segments[j * size] <= p && (p < segments[j * size + 1] || j == m - 1)) {
                        if p < segments[0] {
                            j = 0
                        } else {
                            // §5.4: the last segment starting at or before p (equal key times: the later wins).
                            j = Self.lastKey(atOrBefore: p, times: segments, stride: size, count: m, cursor: j)
                        }
                    }
                    cursor[t] = Int32(j)
                    let s = segments + j * size
                    let (t0, t1) = (s[0], s[1])
                    var fraction: Float
                    if p < t0 {
                        fraction = 0
                    } else if p >= t1 {
                        fraction = 1
                    } else {
                        fraction = t1 > t0 ? (p - t0) / (t1 - t0) : 1
                    }
                    q[lane] = fraction
                    segmentStart[lane] = record + j * size + 2
                    if flags & Layout.curves != 0 { curved = true }
                }
            }

            // The segments' own timing functions (§5.4), gathered per lane and solved in SIMD.
            if curved {
                var x1 = SIMD16<Float>(repeating: 0), y1 = x1, x2 = SIMD16<Float>(repeating: 1), y2 = x2
                withUnsafeBytes(of: starts) { raw in
                    let segmentStart = raw.baseAddress!.assumingMemoryBound(to: Int.self)
                    for lane in 0..<16 where timing.weight[lane] != 0 && layout[i + lane] & (Layout.curves | Layout.discrete) == Layout.curves
                        && count1[i + lane] > 0 {
                        let c = records + segmentStart[lane] + 4 * w
                        (x1[lane], y1[lane], x2[lane], y2[lane]) = (c[0], c[1], c[2], c[3])
                    }
                }
                let mirror = q .> 0.5
                q = CurveKernel.evaluate(mirroredInput: q.replacing(with: 1 - q, where: mirror), mirror: mirror, raw: q,
                                         x1: x1, y1: y1, x2: x2, y2: y2)
            }

            // The Hermite sum, per lane: H(v_j, v_{j+1}, d_j, s_{j+1}; q); discrete and single values
            // have q = 0, where H is v_j.
            let q2 = q * q, q3 = q2 * q
            let h00 = 2 * q3 - 3 * q2 + 1, h10 = q3 - 2 * q2 + q, h01 = -2 * q3 + 3 * q2, h11 = q3 - q2
            withUnsafeBytes(of: starts) { raw in
                let segmentStart = raw.baseAddress!.assumingMemoryBound(to: Int.self)
                for lane in 0..<16 {
                    let t = i + lane
                    guard timing.weight[lane] != 0 else {
                        for c in 0..<w { out.outputs[c][t] = 0 }
                        continue
                    }
                    let v = records + segmentStart[lane]
                    if q[lane] == 0 {
                        for c in 0..<w { out.outputs[c][t] = v[c] }
                        continue
                    }
                    let (e00, e10, e01, e11) = (h00[lane], h10[lane], h01[lane], h11[lane])
                    for c in 0..<w {
                        out.outputs[c][t] = e00 * v[c] + e01 * v[w + c] + e10 * v[2 * w + c] + e11 * v[3 * w + c]
                    }
                }
            }
            if anyRotating {
                for lane in 0..<16 where i + lane < count && timing.weight[lane] != 0 {
                    guard let animation = rotating[i + lane] else { continue }
                    let progress = lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8]
                    let laneState = TimingState(phase: .active, contributes: true, activeTime: 0, iteration: 0, basicTime: 0, progress: progress)
                    angle[i + lane] = Float(animation.rotationAngle(in: laneState) ?? 0)
                }
            }

            // Cumulative term (§4.4) and the exclusive fallback, in SIMD.
            let add = timing.bit(CompiledTiming.addsBase)
            for c in 0..<w {
                let v = load16(out.outputs[c], i) + timing.iteration * load16(cumulativeDelta[c], i)
                out.store(v, component: c, weight: timing.weight, addsBase: add, block: i)
            }
        }
    }
}
