import AnimationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread's working memory for evaluating instances of compiled programs: sized for the
/// largest program by ``reserve(for:)`` (when instances are added), reused by every tick. Holds
/// raw memory (``LottieWork``'s buffers), freed in deinit.
final class LottieScratch {
    private(set) var work = LottieWork()

    deinit { work.deallocate() }

    func reserve(for p: LottieProgram) {
        work.reserve(for: p)
    }

    var bytes: Int { work.bytes }
}

/// The working memory itself, as raw buffers: a tick reads and writes them through these
/// pointers, with no exclusivity checks, copy-on-write checks or reference counting per access
/// (as arrays in the class, their access checks were 14 % of a tick).
struct LottieWork {
    var compositionFrames = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    var layerFrames = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    var visible = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
    var world = UnsafeMutableBufferPointer<AffineTransform>(start: nil, count: 0)
    var full = UnsafeMutableBufferPointer<AffineTransform>(start: nil, count: 0)
    var layerOpacity = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    var groupMatrix = UnsafeMutableBufferPointer<AffineTransform>(start: nil, count: 0)
    var groupCumulative = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    var slotKinds = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    var slotNumbers = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    var slotKindCount = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    var slotNumberCount = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    // A trim's working space: its output for one slot, the slot's segments, lengths per slot.
    var trimKinds = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    var trimNumbers = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    var segments = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)        // 8 numbers per segment: p0, p1, p2, p3
    var segmentFlags = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)     // bit 0 cubic, bit 1 close, bit 2 starts a subpath
    var segmentStarts = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)   // length at each segment's start, then the total
    var segmentLengths = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)  // a cubic's length as its breakpoints sum it
    var segmentTables = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)      // its breakpoints in the program's table, or −1
    var intervals = UnsafeMutableBufferPointer<Interval>(start: nil, count: 0)     // the breakpoint walk's stack
    var slotLengths = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    /// Elements a sink had no room for, counted (the program's capacities are proved enough; the
    /// tests check that this stays 0).
    var overflows = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    /// The memo's entries (``SolveMemo``; a power of two of them), and the key of the program
    /// being evaluated.
    var memoEntries = UnsafeMutableBufferPointer<SolveMemo.Entry>(start: nil, count: 0)
    var memoProgram = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    /// Precompositions' clip polygons (``LottieProgram/clipSlots``), their corner counts, and the
    /// intersection's second buffer.
    var clipPolygons = UnsafeMutableBufferPointer<Point>(start: nil, count: 0)
    var clipCounts = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    var clipTemp = UnsafeMutableBufferPointer<Point>(start: nil, count: 0)
    /// Per layer, where its nodes' clip lies in the output (``clip(_:layer:)``), set as the layer
    /// is evaluated: looked up once per layer, not once per node.
    var layerClips = UnsafeMutableBufferPointer<(start: Int32, count: Int32)>(start: nil, count: 0)

    /// The working memory's size in bytes.
    var bytes: Int {
        8 * (compositionFrames.count + layerFrames.count + layerOpacity.count + groupCumulative.count
             + slotNumbers.count + slotKindCount.count + slotNumberCount.count + trimNumbers.count + segments.count
             + segmentStarts.count + segmentLengths.count + segmentTables.count + slotLengths.count + overflows.count
             + memoProgram.count + clipCounts.count)
            + MemoryLayout<Interval>.stride * intervals.count + MemoryLayout<SolveMemo.Entry>.stride * memoEntries.count
            + MemoryLayout<AffineTransform>.stride * (world.count + full.count + groupMatrix.count)
            + MemoryLayout<Point>.stride * (clipPolygons.count + clipTemp.count) + 8 * layerClips.count
            + visible.count + slotKinds.count + trimKinds.count + segmentFlags.count
    }

    /// Empty: ``reserve(for:)`` sizes it.
    init() {}

    /// An interval of a breakpoint walk still to be halved.
    struct Interval {
        var a: Double
        var b: Double
        var whole: Double
        var depth: Int
    }

    /// Deep enough for the walk: up to three pieces between the speed's sharp minima, then at most
    /// 30 halvings, each leaving one interval per level.
    static let intervalCapacity = 64

    mutating func reserve(for p: LottieProgram) {
        func size<T>(_ a: inout UnsafeMutableBufferPointer<T>, _ n: Int, _ fill: T) {
            guard a.count < n else { return }
            a.deallocate()
            a = .allocate(capacity: max(n, 1))   // never empty: a base address always exists
            a.initialize(repeating: fill)
        }
        size(&compositionFrames, p.compositionCount, 0)
        size(&layerFrames, p.layers.count, 0)
        size(&visible, p.layers.count, false)
        size(&world, p.layers.count, .identity)
        size(&full, p.layers.count, .identity)
        size(&layerOpacity, p.layers.count, 0)
        size(&groupMatrix, p.groups.count, .identity)
        size(&groupCumulative, p.groups.count, 0)
        size(&slotKinds, p.scratchKinds, 0)
        size(&slotNumbers, p.scratchNumbers, 0)
        size(&slotKindCount, p.slots.count, 0)
        size(&slotNumberCount, p.slots.count, 0)
        size(&trimKinds, p.largestSlotKinds, 0)
        size(&trimNumbers, 2 * p.largestSlotNumbers, 0)
        size(&segments, 8 * (p.largestSlotKinds + 1), 0)
        size(&segmentFlags, p.largestSlotKinds + 1, 0)
        size(&segmentStarts, p.largestSlotKinds + 2, 0)
        size(&segmentLengths, p.largestSlotKinds + 1, 0)
        size(&segmentTables, p.largestSlotKinds + 1, -1)
        size(&intervals, Self.intervalCapacity, Interval(a: 0, b: 0, whole: 0, depth: 0))
        size(&slotLengths, p.slots.count, 0)
        size(&overflows, 1, 0)
        // Program key 0 marks an entry never written: keys start at 1.
        size(&memoEntries, p.memoCapacity, SolveMemo.Entry(program: 0, index: 0, input: 0, x: 0, y: 0))
        size(&memoProgram, 1, 0)
        size(&clipPolygons, p.clipPoints, Point(x: 0, y: 0))
        size(&clipCounts, p.clipSlots.count, 0)
        size(&clipTemp, p.largestClip, Point(x: 0, y: 0))
        size(&layerClips, p.layers.count, (0, -1))
    }

    /// The memo for the program being evaluated (buffers sized by `reserve`: a power of two of
    /// entries, at least 64).
    var memo: SolveMemo {
        SolveMemo(entries: memoEntries.baseAddress!, shift: UInt64(64 - memoEntries.count.trailingZeroBitCount),
                   program: memoProgram[0])
    }

    // Called once, by the owner (`LottieScratch.deinit`, or a `defer` for a local work): each buffer
    // was allocated by `reserve` or `init(path:_:)` and is freed exactly here.
    func deallocate() {
        compositionFrames.deallocate(); layerFrames.deallocate(); visible.deallocate(); world.deallocate(); full.deallocate()
        layerOpacity.deallocate(); groupMatrix.deallocate(); groupCumulative.deallocate()
        slotKinds.deallocate(); slotNumbers.deallocate(); slotKindCount.deallocate(); slotNumberCount.deallocate()
        trimKinds.deallocate(); trimNumbers.deallocate(); segments.deallocate(); segmentFlags.deallocate()
        segmentStarts.deallocate(); segmentLengths.deallocate(); segmentTables.deallocate(); intervals.deallocate()
        slotLengths.deallocate(); overflows.deallocate(); memoEntries.deallocate(); memoProgram.deallocate()
        clipPolygons.deallocate(); clipCounts.deallocate(); clipTemp.deallocate(); layerClips.deallocate()
    }

    // MARK: Layers (lottie §1.2, §3)

    func evaluate(_ p: LottieProgram, frame: Double, into out: inout OutputSink) {
        out.nodeCount = 0
        out.kindCount = 0
        out.numberCount = 0
        compositionFrames[0] = frame
        memoProgram[0] = p.memoKey   // the memo answers for this program's curves only
        // The program's tables read in place: binding an element would copy it and retain every
        // array inside.
        p.layers.withUnsafeBufferPointer { layers in
        for k in layers.indices {
            let layer = layers.baseAddress.unsafelyUnwrapped + k   // k < layers.count
            if layer.pointee.owner >= 0 && !visible[layer.pointee.owner] {
                visible[k] = false
                continue
            }
            // lottie §1.2: the layer's keys are on its composition's clock; `st` and `sr` map
            // only a precomposition's children (below).
            let f = compositionFrames[layer.pointee.composition]
            layerFrames[k] = f
            let local: AffineTransform
            if let constant = layer.pointee.constantMatrix {
                local = constant
            } else {
                var extra = 0.0
                let position = layer.pointee.transform.position
                if layer.pointee.autoOrient, position >= 0, let d = p.channels.direction(position, atFrame: f, memo: memo) {
                    extra = atan2(d.y, d.x)
                }
                local = p.channels.matrix(layer.pointee.transform, atFrame: f, memo: memo, extraRotation: extra)
            }
            world[k] = layer.pointee.parent >= 0 ? local.concatenating(world[layer.pointee.parent]) : local
            visible[k] = !layer.pointee.hidden && f >= layer.pointee.inPoint && f < layer.pointee.outPoint
            guard visible[k] else { continue }
            let matrix = world[k].concatenating(layer.pointee.owner >= 0 ? full[layer.pointee.owner] : p.fit)
            full[k] = matrix
            layerOpacity[k] = (layer.pointee.owner >= 0 ? layerOpacity[layer.pointee.owner] : 1)
                * (layer.pointee.constantOpacity ?? p.channels.opacity(layer.pointee.transform, atFrame: f, memo: memo))
            // Set for every drawn layer: the buffers serve every program of the batch in turn.
            layerClips[k] = layer.pointee.clip >= 0 ? clip(p, within: layer.pointee.clip) : (0, -1)
            // The matrix passed as computed: read back from `full` at once, its stores had not
            // reached the cache (a stalled load, 8 % of a tick of a file of 9 clips).
            if layer.pointee.clipSlot >= 0 { clip(p, layer: layer, matrix, into: &out) }
            if case .precomposition(let child, let remap) = layer.pointee.content, child >= 0 {
                compositionFrames[child] = remap >= 0 ? p.channels.scalar(remap, atFrame: f, memo: memo) * p.animation.frameRate
                    : (f - layer.pointee.startTime) / layer.pointee.stretch
            }
        }
        }
        for k in p.paintOrder where visible[k] {
            switch p.layers[k].content {
            case .solid(let w, let h, let color):
                let m = full[k]
                out.beginNode()
                out.move(Point(x: w, y: 0).applying(m))
                out.line(Point(x: w, y: h).applying(m))
                out.line(Point(x: 0, y: h).applying(m))
                out.line(Point(x: 0, y: 0).applying(m))
                out.line(Point(x: w, y: 0).applying(m))
                out.close()
                out.endNode(paint: -1, isFill: true, color: color, width: 0, opacity: layerOpacity[k], clip: layerClips[k])
            case .shapes(let groups, let slots, let trims, let paints):
                shapes(p, layer: k, groups: groups, slots: slots, trims: trims, paints: paints, into: &out)
            default:
                continue
            }
        }
    }

    /// The clip polygon of precomposition layer `layer` (it has a size): its rectangle through its
    /// full matrix, within the polygon it is drawn in — the reference's `LottieClip` calls.
    func clip(_ p: LottieProgram, layer: UnsafePointer<LottieProgram.Layer>, _ matrix: AffineTransform, into out: inout OutputSink) {
        let slot = layer.pointee.clipSlot, within = layer.pointee.clip
        let offset = p.clipSlots[slot].offset
        // Unchecked: reserve sized the polygons for every slot's capacity (4 + the capacity of the
        // one it is within) and the second buffer for the largest; a program with a clip slot has
        // clip points, so the base addresses exist.
        let target = clipPolygons.baseAddress! + offset
        let corners = LottieClip.corners(layer.pointee.clipSize, matrix)
        let count: Int
        if within >= 0 {
            count = LottieClip.intersect(corners, clip: clipPolygons.baseAddress! + p.clipSlots[within].offset, count: clipCounts[within],
                                         out: target, temp: clipTemp.baseAddress!)
        } else {
            (target[0], target[1], target[2], target[3]) = corners
            count = 4
        }
        clipCounts[slot] = count
        out.storeClip(at: offset, target, count: count)
    }

    /// Where the nodes of a layer drawn within clip slot `within` find their clip: the slot's
    /// numbers in the instance's region and its corner count (the owner's polygon, computed
    /// before the layer: owners come first).
    func clip(_ p: LottieProgram, within: Int) -> (start: Int32, count: Int32) {
        // Within 32 bits: the region holds at most 2²⁴ clip points (the program's bound).
        (Int32(truncatingIfNeeded: p.outputPathNumbers + 2 * p.clipSlots[within].offset), Int32(truncatingIfNeeded: clipCounts[within]))
    }

    // MARK: Shapes (lottie §4)

    func shapes(_ p: LottieProgram, layer k: Int, groups: Range<Int>, slots: Range<Int>, trims: Range<Int>, paints: Range<Int>,
                into out: inout OutputSink) {
        let f = layerFrames[k]
        // The program's tables read in place (see ``evaluate(_:frame:into:)``).
        p.groups.withUnsafeBufferPointer { groupTable in
        p.slots.withUnsafeBufferPointer { slotTable in
        p.paints.withUnsafeBufferPointer { paintTable in
        // Unchecked below: indices come from the program (ranges and lists it built).
        let groupList = groupTable.baseAddress.unsafelyUnwrapped, slotList = slotTable.baseAddress.unsafelyUnwrapped
        for g in groups {
            let group = groupList + g
            let parent = group.pointee.parent
            groupMatrix[g] = (group.pointee.constantMatrix ?? p.channels.matrix(group.pointee.transform, atFrame: f, memo: memo))
                .concatenating(parent >= 0 ? groupMatrix[parent] : .identity)
            let opacity = group.pointee.constantOpacity ?? p.channels.opacity(group.pointee.transform, atFrame: f, memo: memo)
            groupCumulative[g] = (parent >= 0 ? groupCumulative[parent] : 1) * opacity
        }
        for s in slots {
            let slot = slotList + s
            // Unchecked: offsets and capacities come from the program's bounds (reserve sized the buffers).
            var sink = SlotSink(kinds: slotKinds.baseAddress! + slot.pointee.kindOffset, kindCapacity: slot.pointee.kindCapacity,
                                numbers: slotNumbers.baseAddress! + slot.pointee.pointOffset, numberCapacity: 2 * slot.pointee.pointCapacity)
            switch slot.pointee.source {
            case .constant(let kinds, let numbers):
                // Computed when compiled: copied (a trim may cut it this frame), as blocks. A
                // non-empty range has a base address; the slot's capacity holds it.
                if !kinds.isEmpty {
                    p.templateKinds.withUnsafeBufferPointer { from in
                        (slotKinds.baseAddress! + slot.pointee.kindOffset).update(from: from.baseAddress! + kinds.lowerBound, count: kinds.count)
                    }
                }
                if !numbers.isEmpty {
                    p.templateNumbers.withUnsafeBufferPointer { from in
                        (slotNumbers.baseAddress! + slot.pointee.pointOffset).update(from: from.baseAddress! + numbers.lowerBound,
                                                                                    count: numbers.count)
                    }
                }
                sink.kindCount = kinds.count
                sink.numberCount = numbers.count
            case .rectangle(let position, let size, let roundness, let reversed):
                LottieShapes.rectangle(center: p.channels.pair(position, atFrame: f, memo: memo), size: p.channels.pair(size, atFrame: f, memo: memo),
                                       roundness: p.channels.scalar(roundness, atFrame: f, memo: memo), reversed: reversed, into: &sink)
            case .ellipse(let position, let size, let reversed):
                LottieShapes.ellipse(center: p.channels.pair(position, atFrame: f, memo: memo), size: p.channels.pair(size, atFrame: f, memo: memo),
                                     reversed: reversed, into: &sink)
            case .morph(let m):
                p.morphTables.emit(m, frame: f, into: &sink)
            }
            slotKindCount[s] = sink.kindCount
            slotNumberCount[s] = sink.numberCount
            if sink.dropped { overflows[0] += 1 }
        }
        for t in trims { trim(p, t, frame: f) }
        let layerMatrix = full[k]
        for q in paints {
            let paint = paintTable.baseAddress.unsafelyUnwrapped + q   // q is in the layer's paint range, within p.paints
            var colorValue = Color(red: 0, green: 0, blue: 0)
            let colorChannel = paint.pointee.color, n = p.channels.channels[colorChannel].dimension
            withUnsafeTemporaryAllocation(of: Double.self, capacity: max(n, 1)) { c in
                p.channels.evaluate(colorChannel, atFrame: f, memo: memo, into: c.baseAddress!)   // capacity ≥ 1
                func at(_ i: Int, _ fallback: Double) -> Double { i < n ? min(max(c[i], 0), 1) : fallback }
                colorValue = Color(red: at(0, 0), green: at(1, 0), blue: at(2, 0), alpha: at(3, 1))
            }
            let paintOpacity = min(max(p.channels.scalar(paint.pointee.opacity, atFrame: f, memo: memo) / 100, 0), 1)
            let paintGroup = paint.pointee.group, isFill = paint.pointee.isFill
            let m = (paintGroup >= 0 ? groupMatrix[paintGroup] : .identity).concatenating(layerMatrix)
            let scale = ((m.a + m.c) * (m.a + m.c) + (m.b + m.d) * (m.b + m.d)).squareRoot() / 2.0.squareRoot()
            let width = isFill || paint.pointee.width < 0 ? 0 : max(p.channels.scalar(paint.pointee.width, atFrame: f, memo: memo), 0) * scale
            let scopeOpacity = paintGroup >= 0 ? groupCumulative[paintGroup] : 1
            // lottie §4.6: one node per paint with every path it paints (as in the reference).
            out.beginNode()
            p.slotLists.withUnsafeBufferPointer { lists in
                for s in UnsafeBufferPointer(rebasing: lists[paint.pointee.slots]) {
                    let slotGroup = slotList[s].group
                    let t = (slotGroup >= 0 ? groupMatrix[slotGroup] : .identity).concatenating(layerMatrix)
                    append(slotList + s, count: s, transform: t, into: &out)
                }
            }
            out.endNode(paint: q, isFill: isFill, color: colorValue, width: width, opacity: layerOpacity[k] * scopeOpacity * paintOpacity,
                        clip: layerClips[k])
        }
        }
        }
        }
    }

    /// Slot `s`'s elements, transformed, into the open node.
    func append(_ slot: UnsafePointer<LottieProgram.Slot>, count s: Int, transform t: AffineTransform, into out: inout OutputSink) {
        var n = slot.pointee.pointOffset
        let kindOffset = slot.pointee.kindOffset
        for e in 0..<slotKindCount[s] {
            switch slotKinds[kindOffset + e] {
            case 0: out.move(Point(x: slotNumbers[n], y: slotNumbers[n + 1]).applying(t)); n += 2
            case 1: out.line(Point(x: slotNumbers[n], y: slotNumbers[n + 1]).applying(t)); n += 2
            case 2:
                out.curve(Point(x: slotNumbers[n], y: slotNumbers[n + 1]).applying(t), Point(x: slotNumbers[n + 2], y: slotNumbers[n + 3]).applying(t),
                          Point(x: slotNumbers[n + 4], y: slotNumbers[n + 5]).applying(t))
                n += 6
            default: out.close()
            }
        }
    }

    // MARK: Trims (lottie §4.5)

    func trim(_ p: LottieProgram, _ index: Int, frame f: Double) {
        p.trims.withUnsafeBufferPointer { trims in
            trim(p, trims.baseAddress.unsafelyUnwrapped + index, frame: f)   // index from the program's range
        }
    }

    func trim(_ p: LottieProgram, _ trim: UnsafePointer<LottieProgram.Trim>, frame f: Double) {
        guard let (r0, r1) = LottieFrame.trimPieces(start: p.channels.scalar(trim.pointee.start, atFrame: f, memo: memo),
                                                    end: p.channels.scalar(trim.pointee.end, atFrame: f, memo: memo),
                                                    offset: p.channels.scalar(trim.pointee.offset, atFrame: f, memo: memo)) else { return }
        // The breakpoint tables of measures computed when compiled, read in place by `cut`.
        p.measureNumbers.withUnsafeBufferPointer { tables in
            cutSlots(p, trim, r0, r1, tables: tables.baseAddress.unsafelyUnwrapped)   // never empty: see LottieProgram.Builder
        }
    }

    func cutSlots(_ p: LottieProgram, _ trim: UnsafePointer<LottieProgram.Trim>, _ r0: (Double, Double)?, _ r1: (Double, Double)?,
                  tables: UnsafePointer<Double>) {
        // The program's tables read in place (see ``evaluate(_:frame:into:)``): a slice of the slot
        // lists, or an element of a table read through the program, retained the table, and two
        // threads retaining the same tables contend for its count. Unchecked below: indices come
        // from the program (ranges and lists it built).
        p.slotLists.withUnsafeBufferPointer { slotLists in
        p.trimMeasures.withUnsafeBufferPointer { trimMeasures in
        p.measures.withUnsafeBufferPointer { measures in
        p.slots.withUnsafeBufferPointer { slots in
        let affected = UnsafeBufferPointer(rebasing: slotLists[trim.pointee.slots]), first = trim.pointee.slots.lowerBound
        // A slot's segments and lengths: computed when compiled for a path that never moves and
        // that no trim before this one cut (most trims), else measured now.
        func measured(_ j: Int, _ s: Int) -> Int {
            let m = trimMeasures[first + j]
            return m >= 0 ? load(measures[m], from: p) : measure(slots[s], s)
        }
        if !trim.pointee.sequential {
            for (j, s) in affected.enumerated() {
                let count = measured(j, s)
                var sink = TrimSink(scratch: self)
                if let r0 { cut(count, from: r0.0, to: r0.1, tables: tables, into: &sink) }
                if let r1 { cut(count, from: r1.0, to: r1.1, tables: tables, into: &sink) }
                store(sink, into: slots[s], s)
            }
            return
        }
        var total = 0.0
        for (j, s) in affected.enumerated() {
            let count = measured(j, s)
            slotLengths[j] = segmentStarts[count]
            total += slotLengths[j]
        }
        var offsetLength = 0.0
        for (j, s) in affected.enumerated() {
            let length = slotLengths[j]
            var sink = TrimSink(scratch: self)
            if length > 0 && total > 0 {
                let count = measured(j, s)
                for which in 0..<2 {
                    guard let (a, b) = which == 0 ? r0 : r1 else { continue }
                    let from = (a * total - offsetLength) / length, to = (b * total - offsetLength) / length
                    if to > 0 && from < 1 { cut(count, from: max(from, 0), to: min(to, 1), tables: tables, into: &sink) }
                }
            }
            store(sink, into: slots[s], s)
            offsetLength += length
        }
        }
        }
        }
        }
    }

    /// Loads a measure computed when the program was compiled into the segment tables; returns
    /// the segment count.
    func load(_ m: LottieProgram.Measure, from p: LottieProgram) -> Int {
        // Copied as blocks from the program's tables (ranges it built; the scratch was sized for
        // its largest slot). A non-empty range has a base address.
        func copy<T>(_ from: [T], _ range: Range<Int>, to: UnsafeMutableBufferPointer<T>) {
            guard !range.isEmpty else { return }
            from.withUnsafeBufferPointer { to.baseAddress!.update(from: $0.baseAddress! + range.lowerBound, count: range.count) }
        }
        copy(p.measureNumbers, m.segments, to: segments)
        copy(p.measureFlags, m.flags, to: segmentFlags)
        copy(p.measureNumbers, m.starts, to: segmentStarts)
        copy(p.measureNumbers, m.lengths, to: segmentLengths)
        copy(p.measureTables, m.tables, to: segmentTables)
        return m.count
    }

    /// Measures `kinds`/`numbers` (one path) with this code, at compile time: what ``load(_:from:)``
    /// gives back later, bit for bit.
    /// Each cubic's breakpoints come back too, in `breakpoints`: their count, then `(t, s)` pairs
    /// from (0, 0); `tables` gives where each segment's table starts (−1 for a line).
    static func precompute(kinds: ArraySlice<UInt8>, numbers: ArraySlice<Double>)
        -> (count: Int, segments: [Double], flags: [UInt8], starts: [Double], lengths: [Double], tables: [Int], breakpoints: [Double]) {
        let work = LottieWork(path: kinds, numbers)
        defer { work.deallocate() }
        let count = work.measure(work.pathSlot, 0)
        var tables = [Int](repeating: -1, count: count), breakpoints: [Double] = []
        for i in 0..<count where work.segmentFlags[i] & 1 != 0 {
            let at = breakpoints.count
            tables[i] = at
            breakpoints += [0, 0, 0]   // the count, then (0, 0)
            work.walkBreakpoints(of: i) { t, s in breakpoints += [t, s]; return true }
            breakpoints[at] = Double((breakpoints.count - at - 1) / 2)
        }
        return (count, Array(work.segments[0..<8 * count]), Array(work.segmentFlags[0..<count]), Array(work.segmentStarts[0...count]),
                Array(work.segmentLengths[0..<count]), tables, breakpoints)
    }

    /// Working memory holding one path in slot 0 (``pathSlot``), sized for measuring and cutting
    /// it: what ``precompute(kinds:numbers:)`` and ``trimmed(kinds:numbers:from:to:compiled:)`` use.
    init(path kinds: ArraySlice<UInt8>, _ numbers: ArraySlice<Double>) {
        func size<T>(_ a: inout UnsafeMutableBufferPointer<T>, _ n: Int, _ fill: T) {
            a = .allocate(capacity: max(n, 1))
            a.initialize(repeating: fill)
        }
        size(&slotKinds, kinds.count, 0)
        size(&slotNumbers, numbers.count, 0)
        size(&slotKindCount, 1, 0)
        size(&slotNumberCount, 1, 0)
        size(&segments, 8 * (kinds.count + 1), 0)
        size(&segmentFlags, kinds.count + 1, 0)
        size(&segmentStarts, kinds.count + 2, 0)
        size(&segmentLengths, kinds.count + 1, 0)
        size(&segmentTables, kinds.count + 1, -1)
        size(&intervals, Self.intervalCapacity, Interval(a: 0, b: 0, whole: 0, depth: 0))
        // A trim's output: the bound of LottieProgram's trim capacities (closes ≤ kinds).
        size(&trimKinds, 3 * (kinds.count + 1), 0)
        size(&trimNumbers, 2 * (numbers.count / 2 + 2 * kinds.count + 4), 0)
        size(&overflows, 1, 0)
        for (k, x) in kinds.enumerated() { slotKinds[k] = x }
        for (k, x) in numbers.enumerated() { slotNumbers[k] = x }
        slotKindCount[0] = kinds.count
        slotNumberCount[0] = numbers.count
    }

    /// The slot ``init(path:_:)`` fills.
    var pathSlot: LottieProgram.Slot {
        LottieProgram.Slot(source: .constant(kinds: 0..<slotKindCount[0], numbers: 0..<slotNumberCount[0]), group: -1, kindOffset: 0,
                           kindCapacity: slotKindCount[0], pointOffset: 0, pointCapacity: slotNumberCount[0] / 2,
                           closeCapacity: slotKindCount[0])
    }

    /// One path cut between the fractions `from` and `to` of its length by this code, measured now
    /// or (`compiled`) from breakpoint tables as a program stores them — for checks against
    /// `Path.trimmed(from:to:)`; allocates.
    static func trimmed(kinds: [UInt8], numbers: [Double], from: Double, to: Double, compiled: Bool) -> (kinds: [UInt8], numbers: [Double]) {
        let work = LottieWork(path: kinds[...], numbers[...])
        defer { work.deallocate() }
        var count = work.measure(work.pathSlot, 0)
        var breakpoints: [Double] = [0]
        if compiled {
            let m = precompute(kinds: kinds[...], numbers: numbers[...])
            count = m.count
            for i in 0..<count {
                work.segmentLengths[i] = m.lengths[i]
                work.segmentTables[i] = m.tables[i] < 0 ? -1 : m.tables[i] + 1
            }
            breakpoints += m.breakpoints
        }
        var sink = TrimSink(scratch: work)
        // `breakpoints` starts with one element, so it has a base address.
        breakpoints.withUnsafeBufferPointer { work.cut(count, from: from, to: to, tables: $0.baseAddress.unsafelyUnwrapped, into: &sink) }
        return (Array(work.trimKinds[0..<sink.kindCount]), Array(work.trimNumbers[0..<sink.numberCount]))
    }

    /// Lays slot `s`'s drawn segments out (as `PathMeasure` does: closes become lines back to
    /// the subpath's start) with their lengths; returns how many.
    func measure(_ slot: LottieProgram.Slot, _ s: Int) -> Int {
        var count = 0
        var cx = 0.0, cy = 0.0, hasCurrent = false
        var sx = 0.0, sy = 0.0
        var fresh = true
        var n = slot.pointOffset
        segmentStarts[0] = 0
        for e in 0..<slotKindCount[s] {
            switch slotKinds[slot.kindOffset + e] {
            case 0:
                (cx, cy, sx, sy) = (slotNumbers[n], slotNumbers[n + 1], slotNumbers[n], slotNumbers[n + 1])
                hasCurrent = true
                fresh = true
                n += 2
            case 1:
                let x = slotNumbers[n], y = slotNumbers[n + 1]
                n += 2
                if hasCurrent { addSegment(&count, cx, cy, cx, cy, x, y, x, y, cubic: false, close: false, fresh: fresh); fresh = false }
                (cx, cy, hasCurrent) = (x, y, true)
            case 2:
                let x = slotNumbers[n + 4], y = slotNumbers[n + 5]
                if hasCurrent {
                    addSegment(&count, cx, cy, slotNumbers[n], slotNumbers[n + 1], slotNumbers[n + 2], slotNumbers[n + 3], x, y,
                               cubic: true, close: false, fresh: fresh)
                    fresh = false
                }
                n += 6
                (cx, cy, hasCurrent) = (x, y, true)
            default:
                if hasCurrent { addSegment(&count, cx, cy, cx, cy, sx, sy, sx, sy, cubic: false, close: true, fresh: fresh) }
                (cx, cy) = (sx, sy)
                fresh = true
            }
        }
        return count
    }

    /// Records segment `count` (four points) with its length.
    func addSegment(_ count: inout Int, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double,
                    _ x3: Double, _ y3: Double, cubic: Bool, close: Bool, fresh: Bool) {
        let o = 8 * count
        segments[o] = x0; segments[o + 1] = y0; segments[o + 2] = x1; segments[o + 3] = y1
        segments[o + 4] = x2; segments[o + 5] = y2; segments[o + 6] = x3; segments[o + 7] = y3
        segmentFlags[count] = (cubic ? 1 : 0) | (close ? 2 : 0) | (fresh ? 4 : 0)
        var length = 0.0
        segmentTables[count] = -1
        if cubic {
            walkBreakpoints(of: count) { _, s in length = s; return true }   // the last breakpoint's length
        } else {
            length = hypot(x3 - x0, y3 - y0)   // as PathMeasure measures lines: exactly
        }
        segmentLengths[count] = length
        segmentStarts[count + 1] = segmentStarts[count] + length
        count += 1
    }

    /// Walks cubic segment `i`'s arc-length breakpoints `(t, s)` in increasing t (after (0, 0)),
    /// until `visit` returns false: those of `ArcLength.table` in AnimationCore (the reference),
    /// operation for operation — [0, 1] cut where the speed bends sharply (`SpeedMinima`), then
    /// 16-node Gauss–Legendre on each interval, halved until the halves agree with the whole within
    /// 10⁻¹³ of the control polygon, at most 30 halvings deep and 8,192 breakpoints — so that
    /// lengths and cut points equal the reference's bit for bit. The table itself is not stored: a
    /// path that moves is walked again where a trim cuts it.
    @inline(__always)
    func walkBreakpoints(of i: Int, _ visit: (Double, Double) -> Bool) {
        let curve = cubic(i)
        let tolerance = 1e-13 * max(curve.scale, .leastNormalMagnitude)
        // The reference's choice: a square root where the squares cannot overflow, else `hypot`.
        let plain = curve.scale < ArcLength.plainSpeedScale
        func speed(_ t: Double) -> Double { plain ? curve(t) : curve.tableSpeed(t) }
        var count = 1, base = 0.0
        // The reference's pieces between the speed's sharp minima, pushed right to left.
        var top = 0
        curve.speedMinima.forEachPiece(rightToLeft: true) { a, b in
            intervals[top] = Interval(a: a, b: b, whole: GaussLegendre.integrate(a, b, speed), depth: 0)
            top += 1
        }
        // Depth first, left before right; the stack holds the pieces not yet reached and at most one
        // interval per level (≤ 33).
        while top > 0 {
            top -= 1
            let (a, b, whole, depth) = (intervals[top].a, intervals[top].b, intervals[top].whole, intervals[top].depth)
            let m = (a + b) / 2
            let left = GaussLegendre.integrate(a, m, speed), right = GaussLegendre.integrate(m, b, speed)
            let converged = abs(left + right - whole) <= tolerance
            if converged || !whole.isFinite || depth >= 30 || count >= 8192 {
                let middle = base + left
                base = base + left + right   // summed as the reference sums: (base + left) + right
                count += 2
                if !visit(m, middle) || !visit(b, base) { return }
            } else {
                intervals[top] = Interval(a: m, b: b, whole: right, depth: depth + 1)
                intervals[top + 1] = Interval(a: a, b: m, whole: left, depth: depth + 1)
                top += 2
            }
        }
    }

    /// Segment `i`'s derivative coefficients, for its speed (kept in registers: a length is
    /// hundreds of speeds, and reading the segment table for each was most of a trim).
    func cubic(_ i: Int) -> CubicSpeed {
        let o = 8 * i
        return CubicSpeed(segments[o], segments[o + 1], segments[o + 2], segments[o + 3], segments[o + 4], segments[o + 5],
                     segments[o + 6], segments[o + 7])
    }

    /// The parameter of cubic segment `i` at arc length `local` from its start, as
    /// `ArcLength.parameter` finds it (the reference, operation for operation): the breakpoint
    /// interval that holds it (the compiled table searched, or the walk stopped there), then a
    /// bracketed Newton solve on the quadrature (≤ 60 steps, to 10⁻¹³ of the segment's length).
    func parameter(atLocal local: Double, in i: Int, tables: UnsafePointer<Double>) -> Double {
        guard segmentStarts[i + 1] - segmentStarts[i] > 0 else { return 0 }
        let length = segmentLengths[i]
        guard local < length else { return 1 }
        guard local > 0 else { return 0 }
        var interval = (a: 0.0, sa: 0.0, b: 1.0, sb: length)
        let table = segmentTables[i]
        if table >= 0 {
            // The compiled breakpoints (their count, then the pairs), searched as the reference
            // searches its table. Offsets come from the program's table.
            interval = ArcLength.bracket(local, pairs: tables + table + 1, count: Int(tables[table]))
            // A compiled table belongs to one segment of a path that never moves: the cut is a
            // pure function of the table and `local`, kept in the memo (a trim keyed by frame
            // cuts at the same lengths for every instance at that frame). A work made for one
            // path (`init(path:_:)`) has no memo.
            guard memoEntries.count > 0 else {
                return ArcLength.solve(ofLength: local, in: interval, total: length, cubic: cubic(i))
            }
            return memo.value(SolveMemo.cutKey(table: table), local) {
                (ArcLength.solve(ofLength: local, in: interval, total: length, cubic: cubic(i)), 0)
            }.x
        } else {
            // Walked again: the same breakpoints, stopped at the first past `local`.
            walkBreakpoints(of: i) { t, s in
                if s > local { (interval.b, interval.sb) = (t, s); return false }
                (interval.a, interval.sa) = (t, s)
                return true
            }
        }
        return ArcLength.solve(ofLength: local, in: interval, total: length, cubic: cubic(i))
    }

    /// The part of the measured segments between fractions `start` and `end` of their length,
    /// appended to `out` — `PathMeasure.trimmed(from:to:)`, element for element.
    func cut(_ count: Int, from start: Double, to end: Double, tables: UnsafePointer<Double>, into out: inout TrimSink) {
        let length = segmentStarts[count]
        guard !start.isNaN, !end.isNaN, length > 0 else { return }
        let a = min(max(start, 0), 1) * length, b = min(max(end, 0), 1) * length
        guard a < b else { return }
        var keptFromSubpathStart = false
        var subpath = -1, outSubpath = -2   // as in the reference: joins and closes within one subpath
        for i in 0..<count {
            let s0 = segmentStarts[i], s1 = segmentStarts[i + 1]
            let flags = segmentFlags[i]
            let isCubic = flags & 1 != 0, isClose = flags & 2 != 0, startsSubpath = flags & 4 != 0
            if startsSubpath { subpath += 1 }
            let o = 8 * i
            let p0 = Point(x: segments[o], y: segments[o + 1]), p3 = Point(x: segments[o + 6], y: segments[o + 7])
            if s1 == s0 {
                if isClose && keptFromSubpathStart && outSubpath == subpath && s0 >= a && s0 <= b && out.current == p0 { out.close() }
                continue
            }
            guard min(s1, b) > max(s0, a) else { continue }
            let t0 = s0 >= a ? 0 : (isCubic ? parameter(atLocal: a - s0, in: i, tables: tables) : min(1, max(0, (a - s0) / (s1 - s0))))
            let t1 = s1 <= b ? 1 : (isCubic ? parameter(atLocal: b - s0, in: i, tables: tables) : min(1, max(0, (b - s0) / (s1 - s0))))
            var q0 = p0, q1 = Point(x: segments[o + 2], y: segments[o + 3]), q2 = Point(x: segments[o + 4], y: segments[o + 5]), q3 = p3
            if isCubic {
                // `PathSegment.sub`: split at t1 keeping the left, then at t0 / t1 keeping the right.
                if t1 < 1 { (q0, q1, q2, q3) = Self.split(q0, q1, q2, q3, at: t1).left }
                if t0 > 0 { (q0, q1, q2, q3) = Self.split(q0, q1, q2, q3, at: t1 > 0 ? t0 / t1 : 0).right }
            } else {
                let a0 = Point(x: p0.x + (p3.x - p0.x) * t0, y: p0.y + (p3.y - p0.y) * t0)
                let a1 = Point(x: p0.x + (p3.x - p0.x) * t1, y: p0.y + (p3.y - p0.y) * t1)
                (q0, q3) = (a0, a1)
            }
            if out.current != q0 || startsSubpath || outSubpath != subpath {
                out.move(q0)
                keptFromSubpathStart = startsSubpath && t0 == 0
                outSubpath = subpath
            }
            if isClose && t1 == 1 && keptFromSubpathStart {
                out.close()
            } else if !isCubic {
                out.line(q3)
            } else {
                out.curve(q1, q2, q3)
            }
        }
    }

    typealias Quad = (Point, Point, Point, Point)
    static func split(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point, at t: Double) -> (left: Quad, right: Quad) {
        func mix(_ a: Point, _ b: Point) -> Point { Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t) }
        let a = mix(p0, p1), b = mix(p1, p2), c = mix(p2, p3)
        let d = mix(a, b), e = mix(b, c)
        let f = mix(d, e)
        return ((p0, a, d, f), (f, e, c, p3))
    }

    /// Copies a trim's output back into slot `s`'s buffer.
    func store(_ sink: TrimSink, into slot: LottieProgram.Slot, _ s: Int) {
        let kindCount = min(sink.kindCount, slot.kindCapacity), numberCount = min(sink.numberCount, 2 * slot.pointCapacity)
        if sink.dropped || kindCount < sink.kindCount || numberCount < sink.numberCount { overflows[0] += 1 }
        for e in 0..<kindCount { slotKinds[slot.kindOffset + e] = trimKinds[e] }
        for x in 0..<numberCount { slotNumbers[slot.pointOffset + x] = trimNumbers[x] }
        slotKindCount[s] = kindCount
        slotNumberCount[s] = numberCount
    }
}

/// A trim's output, in the scratch's trim buffers (which it must not outgrow: bounded by the
/// program's capacities).
struct TrimSink: LottiePathSink {
    let scratch: LottieWork
    var kindCount = 0
    var numberCount = 0
    var current: Point?
    var subpathStart: Point?
    var dropped = false

    init(scratch: LottieWork) { self.scratch = scratch }

    mutating func put(_ kind: UInt8, _ a: Point, _ b: Point, _ c: Point, _ n: Int) {
        guard kindCount < scratch.trimKinds.count, numberCount + 2 * n <= scratch.trimNumbers.count else {   // bounded by the program
            dropped = true
            return
        }
        scratch.trimKinds[kindCount] = kind
        kindCount += 1
        if n > 0 { scratch.trimNumbers[numberCount] = a.x; scratch.trimNumbers[numberCount + 1] = a.y; numberCount += 2 }
        if n > 1 { scratch.trimNumbers[numberCount] = b.x; scratch.trimNumbers[numberCount + 1] = b.y; numberCount += 2 }
        if n > 2 { scratch.trimNumbers[numberCount] = c.x; scratch.trimNumbers[numberCount + 1] = c.y; numberCount += 2 }
    }
    mutating func move(_ p: Point) { put(0, p, p, p, 1); current = p; subpathStart = p }
    mutating func line(_ p: Point) { put(1, p, p, p, 1); current = p }
    mutating func curve(_ c1: Point, _ c2: Point, _ p: Point) { put(2, c1, c2, p, 3); current = p }
    mutating func close() { put(3, Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 0), 0); current = subpathStart }
}

/// A path item's geometry, into its slot's buffers (raw memory of the scratch; capacities from
/// the program).
struct SlotSink: LottiePathSink {
    let kinds: UnsafeMutablePointer<UInt8>
    let kindCapacity: Int
    let numbers: UnsafeMutablePointer<Double>
    let numberCapacity: Int
    var kindCount = 0
    var numberCount = 0
    var current: Point?
    var subpathStart: Point?
    var dropped = false

    init(kinds: UnsafeMutablePointer<UInt8>, kindCapacity: Int, numbers: UnsafeMutablePointer<Double>, numberCapacity: Int) {
        self.kinds = kinds
        self.kindCapacity = kindCapacity
        self.numbers = numbers
        self.numberCapacity = numberCapacity
    }

    @inline(__always) mutating func put(_ kind: UInt8, _ a: Point, _ b: Point, _ c: Point, _ n: Int) {
        guard kindCount < kindCapacity, numberCount + 2 * n <= numberCapacity else {   // bounded by the program
            dropped = true
            return
        }
        kinds[kindCount] = kind
        kindCount += 1
        if n > 0 { numbers[numberCount] = a.x; numbers[numberCount + 1] = a.y; numberCount += 2 }
        if n > 1 { numbers[numberCount] = b.x; numbers[numberCount + 1] = b.y; numberCount += 2 }
        if n > 2 { numbers[numberCount] = c.x; numbers[numberCount + 1] = c.y; numberCount += 2 }
    }
    mutating func move(_ p: Point) { put(0, p, p, p, 1); current = p; subpathStart = p }
    mutating func line(_ p: Point) { put(1, p, p, p, 1); current = p }
    mutating func curve(_ c1: Point, _ c2: Point, _ p: Point) { put(2, c1, c2, p, 3); current = p }
    mutating func close() { put(3, Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 0), 0); current = subpathStart }
}

extension OutputSink {
    /// Starts a node at the current end of the buffers.
    mutating func beginNode() {
        guard nodeCount < nodeCapacity else { dropped = true; return }
        // Offsets fit 32 bits: an instance holds at most `maximumElements` (2²⁴) kinds, six numbers each.
        nodes[nodeCount].kindStart = Int32(truncatingIfNeeded: kindCount)
        nodes[nodeCount].numberStart = Int32(truncatingIfNeeded: numberCount)
    }
    /// Stores an element, its numbers rounded to single precision (the output's precision).
    mutating func put(_ kind: UInt8, _ points: (Point, Point, Point), _ n: Int) {
        guard kindCount < kindCapacity, numberCount + 2 * n <= numberCapacity else {   // bounded by the program
            dropped = true
            return
        }
        kinds[kindCount] = kind
        kindCount += 1
        if n > 0 { numbers[numberCount] = Float(points.0.x); numbers[numberCount + 1] = Float(points.0.y); numberCount += 2 }
        if n > 1 { numbers[numberCount] = Float(points.1.x); numbers[numberCount + 1] = Float(points.1.y); numberCount += 2 }
        if n > 2 { numbers[numberCount] = Float(points.2.x); numbers[numberCount + 1] = Float(points.2.y); numberCount += 2 }
    }
    mutating func move(_ p: Point) { put(0, (p, p, p), 1) }
    mutating func line(_ p: Point) { put(1, (p, p, p), 1) }
    mutating func curve(_ c1: Point, _ c2: Point, _ p: Point) { put(2, (c1, c2, p), 3) }
    mutating func close() { put(3, (Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 0)), 0) }
    /// Ends the node begun last; a node that draws nothing (no elements, or opacity 0) is
    /// dropped and its elements given back (as in the reference).
    mutating func endNode(paint: Int, isFill: Bool, color: Color, width: Double, opacity: Double, clip: (start: Int32, count: Int32)) {
        guard nodeCount < nodeCapacity else { dropped = true; return }
        let count = kindCount - Int(nodes[nodeCount].kindStart)
        guard count > 0, opacity > 0 else {
            kindCount = Int(nodes[nodeCount].kindStart)
            numberCount = Int(nodes[nodeCount].numberStart)
            return
        }
        nodes[nodeCount].kindCount = Int32(truncatingIfNeeded: count)
        nodes[nodeCount].paintAndFill = Int32(truncatingIfNeeded: paint << 1 | (isFill ? 1 : 0))
        nodes[nodeCount].red = Float(color.red)
        nodes[nodeCount].green = Float(color.green)
        nodes[nodeCount].blue = Float(color.blue)
        nodes[nodeCount].alpha = Float(color.alpha)
        nodes[nodeCount].width = Float(width)
        nodes[nodeCount].opacity = Float(opacity)
        nodes[nodeCount].clipStart = clip.start
        nodes[nodeCount].clipCount = clip.count
        nodeCount += 1
    }
    /// Stores a clip polygon of `count` corners at point `offset` of the clip numbers (its slot:
    /// the program sized the region for every slot's capacity), in single precision.
    mutating func storeClip(at offset: Int, _ corners: UnsafePointer<Point>, count: Int) {
        let at = numbers + clipBase + 2 * offset
        for k in 0..<count {
            at[2 * k] = Float(corners[k].x)
            at[2 * k + 1] = Float(corners[k].y)
        }
    }
}

extension CubicSpeed {
    /// |B′(t)| as the reference's breakpoint tables compute it for control polygons of
    /// `ArcLength.plainSpeedScale` and more (`hypot`: no overflow).
    @inline(__always) func tableSpeed(_ t: Double) -> Double {
        let s = 1 - t
        let a = 3 * s * s, b = 6 * s * t, c = 3 * t * t
        return hypot(a * ax + b * bx + c * cx, a * ay + b * by + c * cy)
    }
    /// The control polygon's length, the reference's scale for its tolerance.
    var scale: Double { hypot(ax, ay) + hypot(bx, by) + hypot(cx, cy) }
}
