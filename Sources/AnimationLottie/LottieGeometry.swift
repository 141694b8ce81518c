import AnimationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one fill or stroke draws at a frame (the geometry of docs/lottie.md §4.6): the paths
/// it paints in device pixels, its colour, width and total opacity.
public struct LottieNode: Sendable, Equatable {
    /// Every path the paint covers, transformed to device pixels (trimmed where a trim applies).
    public var path: Path
    /// The fill colour (0–1 components), or nil for a stroke.
    public var fill: Color?
    /// The stroke colour, or nil for a fill.
    public var stroke: Color?
    /// The stroke's width in device pixels (0 for a fill): the file's width times the scale of
    /// the paint's transform along the diagonal, `|M·(1, 1)| / √2` (rlottie's measure).
    public var strokeWidth: Double
    /// Every layer and group opacity above the paint times the paint's own (0…1).
    public var opacity: Double
    /// A stroke's ends and joins (nil for a fill; not part of the geometry document).
    public var strokeStyle: LottieStrokeStyle?
    /// What the node may draw into, in device pixels, when it is inside precompositions with a
    /// size (``LottieLayer/clipSize``): the precomposition's rectangle through its layer's
    /// matrix — M (w, 0) L (w, h) L (0, h) L (0, 0) L (w, 0) Z, as rlottie writes it — or, inside
    /// several, the convex polygon common to all of them (the same form, one line per corner).
    /// An empty path when they have nothing in common; nil when nothing clips the node.
    public var clip: Path? = nil
}

extension LottieAnimation {
    /// The ellipse and rounded-corner handle factor, 4(√2 − 1)/3 ≈ 0.5523 of the radius: what
    /// rlottie uses (its geometry agrees to the last printed digit, lottie §4.4).
    public static let handleFactor = Path.ellipseHandleFactor

    /// The transform that fits the composition into `size` × `size` device pixels, keeping its
    /// aspect ratio, centred.
    public func fitTransform(size: Double) -> AffineTransform {
        let scale = min(size / width, size / height)
        return AffineTransform.scale(x: scale, y: scale)
            .concatenating(.translation(x: (size - width * scale) / 2, y: (size - height * scale) / 2))
    }

    /// The draw nodes at `frame` (the file's own frame numbers, `ip ≤ frame < op`; fractional
    /// frames interpolate) fitted into `size` × `size`, in painter's order: back to front — the
    /// last layer of the file first; within a list of shape items, the last paint first. Nodes
    /// that draw nothing (no path left, or a total opacity of 0) are left out.
    public func nodes(atFrame frame: Double, size: Double) -> [LottieNode] {
        var nodes: [LottieNode] = []
        var evaluation = LottieFrame(animation: self)
        evaluation.layers(layers, frame: frame, matrix: fitTransform(size: size), opacity: 1, clip: nil, depth: 0, into: &nodes)
        return nodes
    }
}

/// One frame's evaluation (the scalar reference the batch evaluation is checked against).
struct LottieFrame {
    let animation: LottieAnimation

    /// `clip`: the polygon the precompositions around these layers clip them to (device pixels),
    /// or nil.
    mutating func layers(_ layers: [LottieLayer], frame: Double, matrix base: AffineTransform, opacity: Double,
                         clip: [Point]?, depth: Int, into nodes: inout [LottieNode]) {
        let clipPath = clip.map { polygon in LottieClip.path(polygon.count) { polygon[$0] } }
        guard depth <= LottieAnimation.maximumNesting else { return }
        // Each layer's matrix, parents first (lottie §3.3); a missing or cyclic parent is ignored.
        var local: [AffineTransform] = []
        // lottie §1.2: every key of a layer is on its composition's clock (`frame`); the layer's
        // `st` and `sr` map only a precomposition's children.
        let f = frame
        for layer in layers {
            var extra = 0.0
            if layer.autoOrient, let position = layer.transform.position, let d = position.direction(atFrame: f) {
                extra = atan2(d.y, d.x)
            }
            local.append(layer.transform.matrix(atFrame: f, extraRotation: extra))
        }
        // Parents first (lottie §3.3); a missing parent, or a loop of parents, is ignored.
        let parents = LottieAnimation.parentIndices(layers)
        var world = local
        for k in LottieAnimation.evaluationOrder(parents: parents) where parents[k] >= 0 {
            world[k] = local[k].concatenating(world[parents[k]])
        }
        for k in layers.indices.reversed() {
            let layer = layers[k]
            guard !layer.hidden, frame >= layer.inPoint, frame < layer.outPoint else { continue }
            let m = world[k].concatenating(base)
            let o = opacity * layer.transform.opacity(atFrame: f)
            let first = nodes.count
            defer { if clipPath != nil { for j in first..<nodes.count where nodes[j].clip == nil { nodes[j].clip = clipPath } } }
            switch layer.content {
            case .shapes(let items):
                shapes(items, frame: f, layerMatrix: m, opacity: o, into: &nodes)
            case .solid(let w, let h, let color):
                var path = Path()
                path.move(to: Point(x: w, y: 0), transform: m)
                path.addLine(to: Point(x: w, y: h), transform: m)
                path.addLine(to: Point(x: 0, y: h), transform: m)
                path.addLine(to: Point(x: 0, y: 0), transform: m)
                path.addLine(to: Point(x: w, y: 0), transform: m)
                path.closeSubpath()
                if o > 0 { nodes.append(LottieNode(path: path, fill: color, stroke: nil, strokeWidth: 0, opacity: o, strokeStyle: nil)) }
            case .precomposition(let id, let timeRemap):
                guard let inner = animation.precompositions[id] else { continue }
                // lottie §1.2: the child's clock is (f − st) / sr, or the remap (seconds, its keys
                // on this composition's clock like every key of the layer).
                let childFrame = timeRemap.map { $0.scalar(atFrame: f) * animation.frameRate } ?? Self.childFrame(layer, f)
                // A precomposition with a size clips its layers to its rectangle, within the
                // clips around it.
                var innerClip = clip
                if let size = layer.clipSize {
                    let corners = LottieClip.corners(size, m)
                    innerClip = clip.map { LottieClip.intersect(corners, clip: $0) } ?? [corners.0, corners.1, corners.2, corners.3]
                }
                self.layers(inner, frame: childFrame, matrix: m, opacity: o, clip: innerClip, depth: depth + 1, into: &nodes)
            case .null:
                continue
            }
        }
    }

    /// The frame a precomposition layer shows its children at when it has no time remap:
    /// (f − st) / sr (lottie §1.2). The layer's own keys are not shifted.
    static func childFrame(_ layer: LottieLayer, _ frame: Double) -> Double {
        (frame - layer.startTime) / layer.stretch
    }

    // MARK: Shapes (lottie §4)

    /// A path item's geometry in its group's coordinates, with the transform to the layer.
    struct Instance {
        var path: Path
        var transform: AffineTransform
    }

    /// A paint and what it covers, or a group's own paints (in list order).
    indirect enum Emission {
        case paint(Paint)
        case group([Emission])
    }

    struct Paint {
        var fill: Color?
        var stroke: Color?
        var style: LottieStrokeStyle?
        var width: Double
        var opacity: Double
        var transform: AffineTransform
        /// The product of the opacities of the groups around the paint, outermost first.
        var scopeOpacity: Double
        var paths: [Int]
    }

    func shapes(_ items: [LottieShapeItem], frame: Double, layerMatrix: AffineTransform, opacity: Double,
                into nodes: inout [LottieNode]) {
        var instances: [Instance] = []
        let (emissions, _) = scope(items, frame: frame, transform: .identity, scopeOpacity: 1, instances: &instances)
        emit(emissions, instances: instances, layerMatrix: layerMatrix, layerOpacity: opacity, into: &nodes)
    }

    /// Reads one list of items: path items join the scope, groups add theirs, trims change every
    /// path above them at once (later paints and earlier ones alike, lottie §4.5 and the spec's
    /// rendering model), paints remember the paths above them.
    func scope(_ items: [LottieShapeItem], frame f: Double, transform: AffineTransform, scopeOpacity: Double,
               instances: inout [Instance]) -> ([Emission], [Int]) {
        var above: [Int] = []
        var emissions: [Emission] = []
        for item in items {
            switch item {
            case .path, .rectangle, .ellipse:
                guard !item.isHidden else { continue }
                var sink = PathSink()
                LottieShapes.generate(item, frame: f, into: &sink)
                instances.append(Instance(path: sink.path, transform: transform))
                above.append(instances.count - 1)
            case .group(let inner, let groupTransform, let hidden):
                guard !hidden else { continue }
                let m = groupTransform.matrix(atFrame: f).concatenating(transform)
                let (e, paths) = scope(inner, frame: f, transform: m, scopeOpacity: scopeOpacity * groupTransform.opacity(atFrame: f),
                                       instances: &instances)
                emissions.append(.group(e))
                above.append(contentsOf: paths)
            case .trim(let start, let end, let offset, let sequential, let hidden):
                guard !hidden else { continue }
                Self.trim(above, in: &instances, start: start.scalar(atFrame: f), end: end.scalar(atFrame: f),
                          offset: offset.scalar(atFrame: f), sequential: sequential)
            case .fill(let color, let paintOpacity, let hidden):
                guard !hidden else { continue }
                emissions.append(.paint(Paint(fill: Self.color(color.value(atFrame: f)), stroke: nil, style: nil, width: 0,
                                              opacity: min(max(paintOpacity.scalar(atFrame: f) / 100, 0), 1),
                                              transform: transform, scopeOpacity: scopeOpacity, paths: above)))
            case .stroke(let color, let paintOpacity, let width, let style, let hidden):
                guard !hidden else { continue }
                emissions.append(.paint(Paint(fill: nil, stroke: Self.color(color.value(atFrame: f)), style: style,
                                              width: max(width.scalar(atFrame: f), 0),
                                              opacity: min(max(paintOpacity.scalar(atFrame: f) / 100, 0), 1),
                                              transform: transform, scopeOpacity: scopeOpacity, paths: above)))
            }
        }
        return (emissions, above)
    }

    /// Nodes in painter's order: a list's items from last to first (lottie §3.5, §4.2).
    func emit(_ emissions: [Emission], instances: [Instance], layerMatrix: AffineTransform, layerOpacity: Double,
              into nodes: inout [LottieNode]) {
        for emission in emissions.reversed() {
            switch emission {
            case .group(let inner):
                emit(inner, instances: instances, layerMatrix: layerMatrix, layerOpacity: layerOpacity, into: &nodes)
            case .paint(let paint):
                let m = paint.transform.concatenating(layerMatrix)
                let scale = ((m.a + m.c) * (m.a + m.c) + (m.b + m.d) * (m.b + m.d)).squareRoot() / 2.0.squareRoot()
                // lottie §4.6: one node per paint holding every path it paints; its opacity is
                // the layer's, the groups' around the paint and the paint's own — a deeper
                // group's opacity, around a path only, is not applied (as rlottie draws it).
                var path = Path()
                for index in paint.paths {
                    let instance = instances[index]
                    path.addPath(instance.path, transform: instance.transform.concatenating(layerMatrix))
                }
                let opacity = layerOpacity * paint.scopeOpacity * paint.opacity
                // A node that draws nothing — no elements, or no opacity — is left out (as rlottie does).
                guard !path.isEmpty, opacity > 0 else { continue }
                nodes.append(LottieNode(path: path, fill: paint.fill, stroke: paint.stroke, strokeWidth: paint.width * scale,
                                        opacity: opacity, strokeStyle: paint.style))
            }
        }
    }

    static func color(_ c: [Double]) -> Color {
        func at(_ k: Int, _ fallback: Double) -> Double { k < c.count ? min(max(c[k], 0), 1) : fallback }
        return Color(red: at(0, 0), green: at(1, 0), blue: at(2, 0), alpha: at(3, 1))
    }

    // MARK: Trim paths (lottie §4.5)

    /// The visible ranges of a trim as fractions of the length, in path order: nil keeps the
    /// paths as they are (0 to 100 %), (nil, nil) hides them, else the first range and, when the
    /// range wraps, the second.
    static func trimPieces(start s: Double, end e: Double, offset o: Double) -> ((Double, Double)?, (Double, Double)?)? {
        let a = min(max(s / 100, 0), 1), b = min(max(e / 100, 0), 1)
        let low = min(a, b), high = max(a, b)
        if low == high { return (nil, nil) }
        if low == 0 && high == 1 { return nil }
        let turns = o / 360
        let shift = turns - turns.rounded(.down)
        var start = low + shift, end = high + shift
        if start >= 1 { start -= 1; end -= 1 }
        // A range past 1 wraps: rlottie draws its part from 0 first, then the part up to 1.
        return end <= 1 ? ((start, end), nil) : ((0, end - 1), (start, 1))
    }

    static func trim(_ paths: [Int], in instances: inout [Instance], start: Double, end: Double, offset: Double, sequential: Bool) {
        guard let (first, second) = trimPieces(start: start, end: end, offset: offset) else { return }
        let ranges = [first, second].compactMap { $0 }
        if !sequential {
            for index in paths {
                let measure = PathMeasure(instances[index].path)
                var out = Path()
                for (a, b) in ranges { out.addPath(measure.trimmed(from: a, to: b)) }
                instances[index].path = out
            }
            return
        }
        // Sequential: the paths above as one, in order; each keeps the part of the ranges it covers.
        let measures = paths.map { PathMeasure(instances[$0].path) }
        let total = measures.reduce(0) { $0 + $1.length }
        var offsetLength = 0.0
        for (k, index) in paths.enumerated() {
            let length = measures[k].length
            var out = Path()
            if length > 0 && total > 0 {
                for (a, b) in ranges {
                    let from = (a * total - offsetLength) / length, to = (b * total - offsetLength) / length
                    if to > 0 && from < 1 { out.addPath(measures[k].trimmed(from: max(from, 0), to: min(to, 1))) }
                }
            }
            instances[index].path = out
            offsetLength += length
        }
    }
}

extension LottieAnimation {
    /// The geometry document for `frames` fitted into `size` × `size` (a published format, read
    /// by independent checks; AnimationLottie's DocC article describes it):
    /// `{"frames":[{"frame":7,"nodes":[{"path":[["M",x,y],["L",x,y],["C",x1,y1,x2,y2,x,y],["Z"]],
    /// "fill":[r,g,b,a]|null,"stroke":[r,g,b,a]|null,"strokeWidth":w,"opacity":o}]}]}`, and after
    /// `opacity`, for a node inside precompositions with a size, `"clip":[["M",x,y],…,["Z"]]`
    /// (``LottieNode/clip``; absent when nothing clips).
    ///
    /// - Throws: ``LottieError/invalid(path:reason:)`` naming `frames` when a frame is not in
    ///   `ip ≤ f < op` or not finite, or `size` when it is not positive and finite.
    public func geometryJSON(frames: [Double], size: Double) throws -> String {
        guard size.isFinite, size > 0 else { throw LottieError.invalid(path: "size", reason: "must be a positive number (got \(size))") }
        for (k, f) in frames.enumerated() where !(f.isFinite && f >= inPoint && f < outPoint) {
            throw LottieError.invalid(path: "frames[\(k)]", reason: "\(LottieGeometryJSON.number(f)) is not a frame of the file (\(LottieGeometryJSON.number(inPoint)) ≤ f < \(LottieGeometryJSON.number(outPoint)))")
        }
        var out = "{\"frames\":["
        for (k, f) in frames.enumerated() {
            if k > 0 { out += "," }
            out += "{\"frame\":\(LottieGeometryJSON.number(f)),\"nodes\":["
            for (j, node) in nodes(atFrame: f, size: size).enumerated() {
                if j > 0 { out += "," }
                LottieGeometryJSON.append(node, to: &out)
            }
            out += "]}"
        }
        return out + "]}"
    }
}

/// Writing the geometry format.
enum LottieGeometryJSON {
    /// A number as JSON: integers without a fraction, others in Swift's shortest exact form;
    /// `null` for a value that is not finite (the format has no other way to say it).
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return "\(x)"
    }

    static func append(_ node: LottieNode, to out: inout String) {
        out += "{\"path\":"
        append(node.path, to: &out)
        func color(_ c: Color?) -> String {
            guard let c else { return "null" }
            return "[\(number(c.red)),\(number(c.green)),\(number(c.blue)),\(number(c.alpha))]"
        }
        out += ",\"fill\":\(color(node.fill)),\"stroke\":\(color(node.stroke)),\"strokeWidth\":\(number(node.strokeWidth)),\"opacity\":\(number(node.opacity))"
        if let clip = node.clip {   // only where a precomposition clips (the fields before it never change)
            out += ",\"clip\":"
            append(clip, to: &out)
        }
        out += "}"
    }

    static func append(_ path: Path, to out: inout String) {
        out += "["
        for (k, element) in path.elements.enumerated() {
            if k > 0 { out += "," }
            switch element {
            case .move(let p): out += "[\"M\",\(number(p.x)),\(number(p.y))]"
            case .line(let p): out += "[\"L\",\(number(p.x)),\(number(p.y))]"
            case .quadCurve(let p, let c):
                out += "[\"Q\",\(number(c.x)),\(number(c.y)),\(number(p.x)),\(number(p.y))]"   // never built from L1
            case .curve(let p, let c1, let c2):
                out += "[\"C\",\(number(c1.x)),\(number(c1.y)),\(number(c2.x)),\(number(c2.y)),\(number(p.x)),\(number(p.y))]"
            case .closeSubpath: out += "[\"Z\"]"
            }
        }
        out += "]"
    }
}
