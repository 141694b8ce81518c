import AnimationCore
import Synchronization

/// A Lottie file compiled for ``LottieBatch``: its layers flattened (precompositions expanded in
/// place, parents before children), its shape items turned into flat lists — groups, path
/// slots, trims in the order they apply, paints in painter's order with the slots they paint —
/// and the capacity every buffer of a tick needs, so that a tick allocates nothing.
///
/// Compiling is the set-up cost; every instance of the program shares it (no per-instance
/// object graph: an instance is its frame and its output buffers).
public final class LottieProgram: Sendable {
    /// The file.
    public let animation: LottieAnimation
    /// The square every instance is fitted into, in device pixels.
    public let size: Double
    let fit: AffineTransform

    // Every table below holds plain values (channel numbers, offsets, flags): reading a row
    // retains nothing.
    struct Layer: Sendable {
        enum Content: Sendable {
            case shapes(groups: Range<Int>, slots: Range<Int>, trims: Range<Int>, paints: Range<Int>)
            case solid(width: Double, height: Double, color: Color)
            /// `remap`: the time remap's channel, or −1.
            case precomposition(child: Int, remap: Int)
            case null
        }
        var transform: LottieChannels.Transform
        /// The composition whose clock the layer reads (0: the instance's frame).
        var composition: Int
        /// The parent layer (an index into `layers`), or −1.
        var parent: Int
        /// The precomposition layer that shows this layer's composition, or −1.
        var owner: Int
        var inPoint: Double
        var outPoint: Double
        var startTime: Double
        var stretch: Double
        var hidden: Bool
        var autoOrient: Bool
        var content: Content
        /// The matrix and opacity when nothing in the transform moves (computed once, by the
        /// same functions the reference calls every frame: the same bits).
        var constantMatrix: AffineTransform?
        var constantOpacity: Double?
        /// A precomposition layer with a size: its clip polygon's place in ``clipSlots``, else −1;
        /// the size (``LottieLayer/clipSize``).
        var clipSlot = -1
        var clipSize = Size(width: 0, height: 0)
        /// The clip polygon the layer is drawn within (the nearest owner's, ``clipSlots``), or −1.
        var clip = -1
    }

    /// Where a precomposition's clip polygon lives in an instance's buffers: `capacity` points
    /// from point `offset` (4 per precomposition with a size it is inside, its own included).
    struct ClipSlot: Sendable {
        var offset: Int
        var capacity: Int
    }

    struct Group: Sendable {
        var transform: LottieChannels.Transform
        var parent: Int
        /// As for layers: the matrix and opacity of a transform that does not move.
        var constantMatrix: AffineTransform?
        var constantOpacity: Double?
    }

    /// Where a path slot's geometry comes from each frame.
    enum Source: Sendable {
        /// Computed once (nothing in it moves): elements `kinds`, numbers `numbers` of the
        /// program's template tables.
        case constant(kinds: Range<Int>, numbers: Range<Int>)
        case rectangle(position: Int, size: Int, roundness: Int, reversed: Bool)
        case ellipse(position: Int, size: Int, reversed: Bool)
        /// An index into ``LottieProgram/morphTables``.
        case morph(Int)
    }

    struct Slot: Sendable {
        var source: Source
        var group: Int
        var kindOffset: Int
        var kindCapacity: Int
        var pointOffset: Int
        var pointCapacity: Int
        /// The most closes its elements may hold (what a trim's bound needs).
        var closeCapacity: Int
    }

    /// A path's segments and lengths, computed when compiled (offsets into ``measureNumbers`` and
    /// ``measureFlags``).
    struct Measure: Sendable {
        var count: Int
        var segments: Range<Int>
        var flags: Range<Int>
        var starts: Range<Int>
        /// Each segment's length as its breakpoints sum it (``measureNumbers``).
        var lengths: Range<Int>
        /// Each segment's breakpoint table in ``measureNumbers`` (its count, then `(t, s)` pairs),
        /// or −1 for a line: a range of ``measureTables``.
        var tables: Range<Int>
    }

    struct Trim: Sendable {
        var start: Int
        var end: Int
        var offset: Int
        var sequential: Bool
        /// The slots it changes: a range of ``LottieProgram/slotLists``.
        var slots: Range<Int>
    }

    struct Paint: Sendable {
        var isFill: Bool
        var color: Int
        var opacity: Int
        /// −1 for a fill.
        var width: Int
        var style: LottieStrokeStyle?
        var group: Int
        /// The slots it paints: a range of ``LottieProgram/slotLists``.
        var slots: Range<Int>
    }

    /// Every property, as flat tables.
    let channels: LottieChannels
    /// Paths that morph, as flat tables.
    let morphTables: LottieMorphs
    /// The geometry of slots that never move: element kinds and numbers.
    let templateKinds: [UInt8]
    let templateNumbers: [Double]
    /// Slot lists of trims and paints.
    let slotLists: [Int]
    /// Beside each trim's slot list: a measure of the slot computed when compiled, or −1.
    let trimMeasures: [Int]
    let measures: [Measure]
    let measureNumbers: [Double]
    let measureFlags: [UInt8]
    /// Per measured segment: where its breakpoint table starts in ``measureNumbers``, or −1.
    let measureTables: [Int]
    /// Evaluation order: owners before what they show, parents before children.
    let layers: [Layer]
    /// Drawing layers (shape, solid), back to front.
    let paintOrder: [Int]
    let compositionCount: Int
    let groups: [Group]
    let slots: [Slot]
    let trims: [Trim]
    let paints: [Paint]
    /// The slot buffers' total sizes (element kinds, and numbers: two per point).
    let scratchKinds: Int
    let scratchNumbers: Int
    /// The largest slot, for a trim's working space.
    let largestSlotKinds: Int
    let largestSlotNumbers: Int
    /// Precompositions' clip polygons (``Layer/clipSlot``), their points in total, the largest.
    let clipSlots: [ClipSlot]
    let clipPoints: Int
    let largestClip: Int
    /// An instance's output capacity: nodes, element kinds, numbers — its paths' numbers
    /// (`outputPathNumbers`), then two per clip point.
    let outputNodes: Int
    let outputKinds: Int
    let outputNumbers: Int
    let outputPathNumbers: Int

    /// The most element slots one instance's buffers may need: a file past this (trims of trims
    /// of long paths) is refused rather than given unbounded memory.
    public static let maximumElements = 1 << 24

    /// This program among every program of the process (from 1): what a thread's memo of
    /// solved curves keys its entries by (``SolveMemo``), so that a table shared by programs
    /// never answers for another one.
    let memoKey: Int
    /// Entries of a thread's memo this program wants (``SolveMemo/capacity(keys:frames:)``).
    let memoCapacity: Int
    private static let memoKeys = Atomic<Int>(0)

    /// Compiles `animation` for instances fitted into `size` × `size`.
    ///
    /// - Throws: ``LottieError/invalid(path:reason:)`` naming `size` when it is not positive and
    ///   finite, or the file when one instance would need more than ``maximumElements`` elements.
    public init(_ animation: LottieAnimation, size: Double) throws {
        guard size.isFinite, size > 0 else { throw LottieError.invalid(path: "size", reason: "must be a positive number (got \(size))") }
        self.animation = animation
        self.size = size
        fit = animation.fitTransform(size: size)
        var builder = Builder(animation: animation)
        try builder.composition(animation.layers, owner: -1, index: 0, depth: 0)
        channels = LottieChannels(builder.channels)
        morphTables = LottieMorphs(builder.morphs)
        templateKinds = builder.templateKinds
        templateNumbers = builder.templateNumbers
        slotLists = builder.slotLists
        trimMeasures = builder.trimMeasures
        measures = builder.measures
        measureNumbers = builder.measureNumbers
        measureFlags = builder.measureFlags
        measureTables = builder.measureTables
        layers = builder.layers
        paintOrder = builder.paintOrder
        compositionCount = builder.compositionCount
        groups = builder.groups
        slots = builder.slots
        trims = builder.trims
        paints = builder.paints
        scratchKinds = builder.kindTotal
        scratchNumbers = builder.numberTotal
        largestSlotKinds = builder.slots.map(\.kindCapacity).max() ?? 0
        largestSlotNumbers = builder.slots.map(\.pointCapacity).max() ?? 0
        clipSlots = builder.clipSlots
        clipPoints = builder.clipSlots.reduce(0) { $0 + $1.capacity }
        largestClip = builder.clipSlots.map(\.capacity).max() ?? 0
        var nodes = 0, kinds = 0, numbers = 0
        for k in paintOrder {
            switch layers[k].content {
            case .solid:
                nodes += 1; kinds += 6; numbers += 10
            case .shapes(_, _, _, let paintRange):
                for p in paintRange {
                    nodes += 1   // one node per paint (lottie §4.6)
                    for s in slotLists[paints[p].slots] { kinds += slots[s].kindCapacity; numbers += 2 * slots[s].pointCapacity }
                }
            default:
                break
            }
        }
        guard kinds <= Self.maximumElements, scratchKinds <= Self.maximumElements, clipPoints <= Self.maximumElements else {
            throw LottieError.invalid(path: "", reason: "needs more than \(Self.maximumElements) path elements per instance")
        }
        outputNodes = nodes
        outputKinds = kinds
        outputPathNumbers = numbers
        outputNumbers = numbers + 2 * clipPoints
        memoKey = Self.memoKeys.add(1, ordering: .relaxed).newValue
        // Two cuts a frame (a trim's start and end) on each compiled table.
        let cuts = 2 * measureTables.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) }
        memoCapacity = SolveMemo.capacity(keys: channels.curves.count + channels.spatialCubics.count + cuts,
                                           frames: animation.outPoint - animation.inPoint)
    }

    /// Flattens compositions and shape items.
    struct Builder {
        let animation: LottieAnimation
        var layers: [Layer] = []
        var paintOrder: [Int] = []
        var compositionCount = 0
        var groups: [Group] = []
        var slots: [Slot] = []
        var trims: [Trim] = []
        var paints: [Paint] = []
        var clipSlots: [ClipSlot] = []
        var clipPointTotal = 0
        var kindTotal = 0
        var numberTotal = 0
        var channels = LottieChannels.Builder()
        var morphs: [LottieShapeProperty] = []
        var templateKinds: [UInt8] = []
        var templateNumbers: [Double] = []
        var slotLists: [Int] = []
        var trimMeasures: [Int] = []
        var measures: [Measure] = []
        var measureNumbers: [Double] = [0]   // never empty: a tick reads it through its base address
        var measureFlags: [UInt8] = []
        var measureTables: [Int] = []
        /// Slots a trim has cut already (their geometry at a later trim depends on the frame).
        var trimmed: Set<Int> = []

        init(animation: LottieAnimation) { self.animation = animation }

        /// A list of slots in ``slotLists`` (with no measures beside it).
        mutating func list(_ slots: [Int]) -> Range<Int> {
            let start = slotLists.count
            slotLists.append(contentsOf: slots)
            trimMeasures.append(contentsOf: [Int](repeating: -1, count: slots.count))
            return start..<slotLists.count
        }

        /// A trim's slot list, measuring now the slots that never move and that no trim cut before.
        mutating func trimList(_ slots: [Int]) -> Range<Int> {
            let range = list(slots)
            for (j, s) in slots.enumerated() {
                defer { trimmed.insert(s) }
                guard !trimmed.contains(s), case .constant(let kinds, let numbers) = self.slots[s].source else { continue }
                let m = LottieWork.precompute(kinds: templateKinds[kinds], numbers: templateNumbers[numbers])
                let n0 = measureNumbers.count
                measureNumbers += m.segments
                let n1 = measureNumbers.count
                measureNumbers += m.starts
                let n2 = measureNumbers.count
                measureNumbers += m.lengths
                let n3 = measureNumbers.count
                measureNumbers += m.breakpoints
                let f0 = measureFlags.count
                measureFlags += m.flags
                let t0 = measureTables.count
                measureTables += m.tables.map { $0 < 0 ? -1 : n3 + $0 }
                measures.append(Measure(count: m.count, segments: n0..<n1, flags: f0..<measureFlags.count, starts: n1..<n2,
                                        lengths: n2..<n3, tables: t0..<measureTables.count))
                trimMeasures[range.lowerBound + j] = measures.count - 1
            }
            return range
        }

        /// Adds a composition's layers (parents first) and, after them, the compositions its
        /// precomposition layers show; records its drawing layers in painter's order.
        mutating func composition(_ list: [LottieLayer], owner: Int, index: Int, depth: Int) throws {
            compositionCount = max(compositionCount, index + 1)
            let parents = LottieAnimation.parentIndices(list)
            var flat = [Int](repeating: -1, count: list.count)
            for k in LottieAnimation.evaluationOrder(parents: parents) {
                let layer = list[k]
                flat[k] = layers.count
                var content: Layer.Content
                switch layer.content {
                case .shapes(let items): content = shapes(items)
                case .solid(let w, let h, let color): content = .solid(width: w, height: h, color: color)
                case .precomposition(_, let remap): content = .precomposition(child: -1, remap: channels.add(remap))   // child set below
                case .null: content = .null
                }
                // Auto-orient turns a layer only when its position moves, which makes it not static.
                let constant = layer.transform.isStatic
                layers.append(Layer(transform: channels.add(layer.transform), composition: index, parent: parents[k] >= 0 ? flat[parents[k]] : -1,
                                    owner: owner, inPoint: layer.inPoint, outPoint: layer.outPoint, startTime: layer.startTime,
                                    stretch: layer.stretch, hidden: layer.hidden, autoOrient: layer.autoOrient, content: content,
                                    constantMatrix: constant ? layer.transform.matrix(atFrame: 0) : nil,
                                    constantOpacity: constant ? layer.transform.opacity(atFrame: 0) : nil))
                // Drawn within the owner's clip: its own polygon, or the one it is drawn within.
                let clip = owner >= 0 ? (layers[owner].clipSlot >= 0 ? layers[owner].clipSlot : layers[owner].clip) : -1
                layers[layers.count - 1].clip = clip
                if case .precomposition = layer.content, let size = layer.clipSize {
                    // Nesting is bounded (maximumNesting), so capacities are at most 4 · 65.
                    let capacity = 4 + (clip >= 0 ? clipSlots[clip].capacity : 0)
                    layers[layers.count - 1].clipSlot = clipSlots.count
                    layers[layers.count - 1].clipSize = size
                    clipSlots.append(ClipSlot(offset: clipPointTotal, capacity: capacity))
                    clipPointTotal += capacity
                }
            }
            // Painter's order: the last layer first; a precomposition's layers where it stands.
            for k in list.indices.reversed() {
                let f = flat[k]
                switch list[k].content {
                case .shapes, .solid:
                    paintOrder.append(f)
                case .precomposition(let id, _):
                    guard let inner = animation.precompositions[id], depth < LottieAnimation.maximumNesting,
                          case .precomposition(_, let remap) = layers[f].content else { continue }
                    let child = compositionCount
                    compositionCount += 1
                    layers[f].content = .precomposition(child: child, remap: remap)
                    try composition(inner, owner: f, index: child, depth: depth + 1)
                case .null:
                    continue
                }
            }
        }

        mutating func shapes(_ items: [LottieShapeItem]) -> Layer.Content {
            let g0 = groups.count, s0 = slots.count, t0 = trims.count
            var emissions: [Emission] = []
            _ = scope(items, group: -1, emissions: &emissions)
            let p0 = paints.count
            emit(emissions)
            // Buffer offsets, once every trim has grown its slots.
            for s in s0..<slots.count {
                slots[s].kindOffset = kindTotal
                slots[s].pointOffset = numberTotal
                kindTotal += slots[s].kindCapacity
                numberTotal += 2 * slots[s].pointCapacity
            }
            return .shapes(groups: g0..<groups.count, slots: s0..<slots.count, trims: t0..<trims.count, paints: p0..<paints.count)
        }

        indirect enum Emission {
            case paint(Paint, [Int])
            case group([Emission])
        }

        /// One list of items, as the reference's `scope` reads it; returns the slots above.
        mutating func scope(_ items: [LottieShapeItem], group: Int, emissions: inout [Emission]) -> [Int] {
            var above: [Int] = []
            for item in items where !item.isHidden {
                switch item {
                case .path(let property, _):
                    // Keys share a vertex count (the reader checks); any of them may close the path.
                    let n = property.constant?.vertices.count ?? property.keys.first?.start.vertices.count ?? 0
                    let closed = property.constant?.closed ?? property.keys.contains { $0.start.closed || $0.end?.closed == true }
                    addSlot(item, group: group, kinds: n == 0 ? 0 : n + (closed ? 2 : 0), points: n == 0 ? 0 : 1 + 3 * (n - 1) + (closed ? 3 : 0),
                            closes: closed ? 1 : 0)
                    above.append(slots.count - 1)
                case .rectangle:
                    addSlot(item, group: group, kinds: 11, points: 18, closes: 1)
                    above.append(slots.count - 1)
                case .ellipse:
                    addSlot(item, group: group, kinds: 6, points: 13, closes: 1)
                    above.append(slots.count - 1)
                case .group(let inner, let transform, _):
                    let constant = transform.isStatic
                    groups.append(Group(transform: channels.add(transform), parent: group,
                                        constantMatrix: constant ? transform.matrix(atFrame: 0) : nil,
                                        constantOpacity: constant ? transform.opacity(atFrame: 0) : nil))
                    var innerEmissions: [Emission] = []
                    let paths = scope(inner, group: groups.count - 1, emissions: &innerEmissions)
                    emissions.append(.group(innerEmissions))
                    above.append(contentsOf: paths)
                case .trim(let start, let end, let offset, let sequential, _):
                    trims.append(Trim(start: channels.add(start), end: channels.add(end), offset: channels.add(offset),
                                      sequential: sequential, slots: trimList(above)))
                    // What a trim may make of a slot of K kinds, P points and C closes (`cut`, run on
                    // the two disjoint ranges of `trimPieces`): a segment of positive length gives
                    // one piece per range it meets, and only a segment spanning the gap meets both,
                    // so pieces ≤ K + 1; each piece has at most one move before it; a zero-length
                    // close is kept at most once, and every kept close comes from one of the C.
                    // Points: each segment's own (a close's line one), the doubled segment's three,
                    // one per move. `overflowCount` in the tests proves no frame needs more.
                    for s in above {
                        let k = slots[s].kindCapacity, c = slots[s].closeCapacity
                        slots[s].kindCapacity = 2 * (k + 1) + c
                        slots[s].pointCapacity = slots[s].pointCapacity + c + 3 + (k + 1)
                    }
                case .fill(let color, let opacity, _):
                    emissions.append(.paint(Paint(isFill: true, color: channels.add(color), opacity: channels.add(opacity), width: -1,
                                                  style: nil, group: group, slots: 0..<0), above))
                case .stroke(let color, let opacity, let width, let style, _):
                    emissions.append(.paint(Paint(isFill: false, color: channels.add(color), opacity: channels.add(opacity),
                                                  width: channels.add(width), style: style, group: group, slots: 0..<0), above))
                }
            }
            return above
        }

        /// A path slot: its geometry computed once when nothing in it moves, else its channels.
        mutating func addSlot(_ item: LottieShapeItem, group: Int, kinds: Int, points: Int, closes: Int) {
            // What moves is read from channels each frame; the rest is built once, below.
            var moving: Source?
            switch item {
            case .path(let property, _) where property.constant == nil:
                moving = .morph(morphs.count)
                morphs.append(property)
            case .rectangle(let p, let s, let r, let reversed, _) where p.isAnimated || s.isAnimated || r.isAnimated:
                moving = .rectangle(position: channels.add(p), size: channels.add(s), roundness: channels.add(r), reversed: reversed)
            case .ellipse(let p, let s, let reversed, _) where p.isAnimated || s.isAnimated:
                moving = .ellipse(position: channels.add(p), size: channels.add(s), reversed: reversed)
            default:
                moving = nil
            }
            let final: Source
            if let moving {
                final = moving
            } else {
                // The reference's own builder, once: the same elements every frame.
                var sink = PathSink()
                LottieShapes.generate(item, frame: 0, into: &sink)
                let k0 = templateKinds.count, n0 = templateNumbers.count
                for element in sink.path.elements {
                    switch element {
                    case .move(let p): templateKinds.append(0); templateNumbers += [p.x, p.y]
                    case .line(let p): templateKinds.append(1); templateNumbers += [p.x, p.y]
                    case .curve(let p, let c1, let c2): templateKinds.append(2); templateNumbers += [c1.x, c1.y, c2.x, c2.y, p.x, p.y]
                    case .quadCurve(let p, let c): templateKinds.append(2); templateNumbers += [c.x, c.y, c.x, c.y, p.x, p.y]   // never built by LottieShapes
                    case .closeSubpath: templateKinds.append(3)
                    }
                }
                final = .constant(kinds: k0..<templateKinds.count, numbers: n0..<templateNumbers.count)
            }
            slots.append(Slot(source: final, group: group, kindOffset: 0, kindCapacity: kinds, pointOffset: 0, pointCapacity: points,
                              closeCapacity: closes))
        }

        /// Paints in painter's order (a list from its last item), and the slots' buffer offsets.
        mutating func emit(_ emissions: [Emission]) {
            for emission in emissions.reversed() {
                switch emission {
                case .group(let inner): emit(inner)
                case .paint(var paint, let slots):
                    paint.slots = list(slots)
                    paints.append(paint)
                }
            }
        }
    }
}
