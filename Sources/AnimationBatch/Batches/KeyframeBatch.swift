import AnimationCore

/// One keyframe track's data, flattened for the pools.
struct CompiledKeyframes {
    /// Keyframe values, `width` floats each (n keys).
    var values: [Float]
    /// Key times (n entries; n + 1 for discrete in the spec's form).
    var keyTimes: [Float]
    /// Per segment: the outgoing tangent at its first key then the incoming one at its second,
    /// `2 · width` floats (n − 1 segments; n for discrete so that every held key has one).
    var tangents: [Float]
    /// Per segment: 12 curve coefficients and the linear flag, or empty when every segment is linear.
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
    let keyOffset = Column<Int32>(fill: 0)
    let keyCount = Column<Int32>(fill: 1)
    let keyStride = Column<Int32>(fill: 1)
    let keyTimeOffset = Column<Int32>(fill: 0)
    let keyTimeCount = Column<Int32>(fill: 1)
    let segmentOffset = Column<Int32>(fill: 0)
    let curveOffset = Column<Int32>(fill: -1)
    let cursor = Column<Int32>(fill: 0)
    let discrete = Column<UInt8>(fill: 0)
    /// The tangent angle for path tracks with a rotation mode (semantics §5.7).
    let angle = Column<Float>(fill: 0)

    let keyTimes = Pool<Float>(fill: 0)
    let values = Pool<Float>(fill: 0)
    let tangents = Pool<Float>(fill: 0)
    let segmentCurves = Pool<Float>(fill: 0)
    /// Pool floats that belong to removed tracks (compacted when they outnumber the live ones).
    private var garbage = 0

    /// Path tracks with a rotation mode keep their animation: the angle is the reference's own
    /// (the tangent of the exact segment, with its fall-backs at cusps). Parallel to positions.
    private(set) var rotating: [KeyframeAnimation?] = []

    override init(width: Int) {
        cumulativeDelta = VectorColumns(width: width)
        super.init(width: width)
    }

    private var intColumns: [Column<Int32>] { [keyOffset, keyCount, keyStride, keyTimeOffset, keyTimeCount, segmentOffset, curveOffset, cursor] }

    override func reserveSpecific(_ needed: Int, count: Int) {
        cumulativeDelta.reserve(needed, count: count)
        for c in intColumns { c.reserve(needed, count: count) }
        discrete.reserve(needed, count: count)
        angle.reserve(needed, count: count)
    }

    override func moveSpecific(_ from: Int, to: Int) {
        cumulativeDelta.move(from, to: to)
        for c in intColumns { c[to] = c[from] }
        discrete[to] = discrete[from]
        angle[to] = angle[from]
        rotating[to] = rotating[from]
    }

    override func willRemoveSpecific(_ i: Int) {
        garbage += poolUse(i)
    }

    override func clearSpecific(_ i: Int) {
        cumulativeDelta.clear(i)
        for c in intColumns { c[i] = c.fill }
        discrete[i] = 0
        angle[i] = 0
        rotating.removeLast()
    }

    private func poolUse(_ i: Int) -> Int {
        let n = Int(keyCount[i])
        return (n + 1) * width * Int(keyStride[i]) + Int(keyTimeCount[i]) + n * 2 * width + (curveOffset[i] >= 0 ? 13 * n : 0)
    }

    /// Stores the keyframe data of track `i` (new, or replaced in place).
    func setKeyframes(_ i: Int, _ k: CompiledKeyframes, rotating animation: KeyframeAnimation?) {
        if i < rotating.count {
            garbage += poolUse(i)
            rotating[i] = animation
        } else {
            rotating.append(animation)
        }
        // Keyframes (for the lookup): with stride 2 the values are a (start, end) pair per segment.
        let n = k.keyStride == 2 ? k.values.count / (2 * width) + 1 : k.values.count / width
        // One padding key after the last, so that `key + 1` is always readable.
        keyOffset[i] = Int32(values.append(k.values + k.values.suffix(width)) / width)
        keyCount[i] = Int32(n)
        keyStride[i] = Int32(k.keyStride)
        keyTimeOffset[i] = Int32(keyTimes.append(k.keyTimes))
        keyTimeCount[i] = Int32(k.keyTimes.count)
        let segments = max(n, 1)
        var tangentData = k.tangents
        if tangentData.count < segments * 2 * width {
            tangentData += [Float](repeating: 0, count: segments * 2 * width - tangentData.count)
        }
        segmentOffset[i] = Int32(tangents.append(tangentData) / (2 * width))
        if k.segmentCurves.isEmpty {
            curveOffset[i] = -1
        } else {
            var curveData = k.segmentCurves
            if curveData.count < segments * 13 {
                curveData += (curveData.count / 13..<segments).flatMap { _ in Self.curveFloats(.linear) }
            }
            curveOffset[i] = Int32(segmentCurves.append(curveData) / 13)
        }
        cursor[i] = 0
        discrete[i] = k.isDiscrete ? 1 : 0
        cumulativeDelta.set(i, k.cumulativeDelta)
        compactIfNeeded()
    }

    static func curveFloats(_ c: CompiledCurve) -> [Float] {
        [c.ax, c.bx, c.cx, c.ay, c.by, c.cy, c.mirroredAx, c.mirroredBx, c.mirroredCx, c.mirroredAy, c.mirroredBy, c.mirroredCy,
         c.isLinear ? 1 : 0]
    }

    /// Rebuilds the pools without the garbage when it outnumbers the live data (amortised O(1) per
    /// removal; never during a frame).
    private func compactIfNeeded() {
        guard garbage > 65_536 && garbage > values.count + keyTimes.count + tangents.count + segmentCurves.count - garbage else { return }
        let old = (values: (0..<count).map { readRange(values, Int(keyOffset[$0]) * width, (Int(keyCount[$0]) + 1) * width) },
                   times: (0..<count).map { readRange(keyTimes, Int(keyTimeOffset[$0]), Int(keyTimeCount[$0])) },
                   tangents: (0..<count).map { readRange(tangents, Int(segmentOffset[$0]) * 2 * width, max(Int(keyCount[$0]), 1) * 2 * width) },
                   curves: (0..<count).map { curveOffset[$0] < 0 ? [] : readRange(segmentCurves, Int(curveOffset[$0]) * 13, max(Int(keyCount[$0]), 1) * 13) })
        for pool in [values, keyTimes, tangents, segmentCurves] { pool.removeAll() }
        for i in 0..<count {
            keyOffset[i] = Int32(values.append(old.values[i]) / width)
            keyTimeOffset[i] = Int32(keyTimes.append(old.times[i]))
            segmentOffset[i] = Int32(tangents.append(old.tangents[i]) / (2 * width))
            curveOffset[i] = old.curves[i].isEmpty ? -1 : Int32(segmentCurves.append(old.curves[i]) / 13)
        }
        garbage = 0
    }

    private func readRange(_ pool: Pool<Float>, _ start: Int, _ length: Int) -> [Float] {
        (0..<length).map { pool[start + $0] }
    }

    /// The last index `j` in `0..<n` with `times[j] ≤ p` (0 when none), starting from the track's
    /// cursor: the cursor itself, up to four steps either way, then a binary search.
    @inline(__always)
    private func lastKey(atOrBefore p: Float, times: UnsafeMutablePointer<Float>, count n: Int, cursor start: Int) -> Int {
        var j = min(max(start, 0), n - 1)
        if times[j] <= p {
            var steps = 0
            while j + 1 < n && times[j + 1] <= p && steps < 4 { j += 1; steps += 1 }
            if j + 1 < n && times[j + 1] <= p {
                var lo = j + 1, hi = n - 1   // the answer is in [lo, hi]
                while lo < hi {
                    let mid = (lo + hi + 1) / 2
                    if times[mid] <= p { lo = mid } else { hi = mid - 1 }
                }
                j = lo
            }
        } else {
            var steps = 0
            while j > 0 && times[j] > p && steps < 4 { j -= 1; steps += 1 }
            if times[j] > p {
                var lo = 0, hi = j   // the last index ≤ p is below j (or 0)
                while lo < hi {
                    let mid = (lo + hi + 1) / 2
                    if times[mid] <= p { lo = mid } else { hi = mid - 1 }
                }
                j = lo
            }
        }
        return j
    }

    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let timingKernel = self.timingKernel
        let curves = self.curves.columns
        let w = width
        for block in blocks {
            let i = block * 16
            let timing = timingKernel.evaluate(block: i, time: time, nodeTimes: nodeTimes)
            storeState(timing, block: i)
            let p1 = CurveKernel.evaluate(timing, curves: curves, block: i)   // §5.4: the animation's curve first

            // Segment lookup, per lane.
            var q = SIMD16<Float>(repeating: 0)
            var segment = SIMD16<Int32>(repeating: 0)
            var curved = false
            for lane in 0..<16 where timing.weight[lane] != 0 {
                let t = i + lane
                let n = Int(keyCount[t])
                let times = keyTimes.base + Int(keyTimeOffset[t])
                let p = p1[lane]
                var j = 0
                var fraction: Float = 0
                if discrete[t] != 0 {
                    // §5.2: value j holds on [kt_j, kt_{j+1}); the last value from its key time on.
                    j = p >= 1 ? n - 1 : lastKey(atOrBefore: p, times: times, count: min(Int(keyTimeCount[t]), n), cursor: Int(cursor[t]))
                } else if n > 1 {
                    let m = n - 1
                    if p < times[0] {
                        j = 0
                    } else if p >= times[m] {
                        j = m - 1
                        fraction = 1
                    } else {
                        // §5.4: the last segment starting at or before p (equal key times: the later wins).
                        j = lastKey(atOrBefore: p, times: times, count: m, cursor: Int(cursor[t]))
                        let span = times[j + 1] - times[j]
                        fraction = span > 0 ? (p - times[j]) / span : 1
                    }
                    if curveOffset[t] >= 0 { curved = true }
                }
                cursor[t] = Int32(j)
                segment[lane] = Int32(j)
                q[lane] = fraction
            }

            // The segments' own timing functions (§5.4), gathered per lane and solved in SIMD.
            if curved {
                var ax = SIMD16<Float>(repeating: 0), bx = ax, cx = SIMD16<Float>(repeating: 1)
                var ay = ax, by = ax, cy = cx
                var max1 = ax, mbx = ax, mcx = cx, may = ax, mby = ax, mcy = cx
                var linear = SIMD16<Float>(repeating: 1)
                for lane in 0..<16 where timing.weight[lane] != 0 && curveOffset[i + lane] >= 0 && discrete[i + lane] == 0 {
                    let c = segmentCurves.base + (Int(curveOffset[i + lane]) + Int(segment[lane])) * 13
                    ax[lane] = c[0]; bx[lane] = c[1]; cx[lane] = c[2]; ay[lane] = c[3]; by[lane] = c[4]; cy[lane] = c[5]
                    max1[lane] = c[6]; mbx[lane] = c[7]; mcx[lane] = c[8]; may[lane] = c[9]; mby[lane] = c[10]; mcy[lane] = c[11]
                    linear[lane] = c[12]
                }
                let mirrored = q .> 0.5
                let x = q.replacing(with: 1 - q, where: mirrored)
                let y = CurveKernel.solve(x: x, ax: ax.replacing(with: max1, where: mirrored), bx: bx.replacing(with: mbx, where: mirrored),
                                          cx: cx.replacing(with: mcx, where: mirrored), ay: ay.replacing(with: may, where: mirrored),
                                          by: by.replacing(with: mby, where: mirrored), cy: cy.replacing(with: mcy, where: mirrored))
                q = y.replacing(with: 1 - y, where: mirrored).replacing(with: q, where: linear .!= 0)
            }

            // The Hermite sum, per lane.
            let q2 = q * q, q3 = q2 * q
            let h00 = 2 * q3 - 3 * q2 + 1, h10 = q3 - 2 * q2 + q, h01 = -2 * q3 + 3 * q2, h11 = q3 - q2
            for lane in 0..<16 {
                let t = i + lane
                guard timing.weight[lane] != 0 else {
                    for c in 0..<w { outputs.pointers[c][t] = 0 }
                    continue
                }
                let j = Int(segment[lane])
                let a = values.base + (Int(keyOffset[t]) + j * Int(keyStride[t])) * w
                let d = tangents.base + (Int(segmentOffset[t]) + j) * 2 * w
                for c in 0..<w {
                    outputs.pointers[c][t] = h00[lane] * a[c] + h10[lane] * d[c] + h01[lane] * a[w + c] + h11[lane] * d[w + c]
                }
                if let animation = rotating[t] {
                    let state = TimingState(phase: .active, contributes: true, activeTime: 0, iteration: 0, basicTime: 0,
                                            progress: lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8])
                    angle[t] = Float(animation.rotationAngle(in: state) ?? 0)
                }
            }

            // Cumulative term (§4.4) and the exclusive fallback, in SIMD.
            let add = load16(addsBase.base, i)
            for c in 0..<w {
                let v = load16(outputs.pointers[c], i) + timing.iteration * load16(cumulativeDelta.pointers[c], i)
                storeOutput(v, component: c, weight: timing.weight, addsBase: add, block: i)
            }
        }
    }
}
