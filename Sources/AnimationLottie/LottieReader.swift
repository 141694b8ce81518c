import AnimationCore
import AnimationScene

extension LottieAnimation {
    /// The largest number of keyframes one property may have, and of vertices one path may have:
    /// more is refused as an error rather than read without bound.
    public static let maximumKeyframes = 1_000_000
    /// The deepest nesting of groups and precompositions read.
    public static let maximumNesting = 64
    /// The most layers one instance may hold once every precomposition layer is expanded into the
    /// layers of its precomposition (a precomposition named by four layers at each of twenty
    /// levels is 4²⁰ layers in a file of a few kilobytes): more is refused, naming this limit, before anything
    /// is expanded.
    public static let maximumExpandedLayers = 100_000

    /// Reads a Lottie file in the subset L1 (lottie §1–§4).
    ///
    /// - Parameters:
    ///   - json: The file's text.
    ///   - lenient: Skip the cosmetic features outside L1 (blend modes, layer effects, stroke
    ///     dashes), listing them in ``skipped``, instead of refusing the file.
    /// - Throws: ``LottieError``: `.syntax` for text that is not JSON (line and column),
    ///   `.invalid` naming the JSON path of a missing or malformed value, `.unsupported` listing
    ///   every feature outside L1 with its path.
    public init(json: String, lenient: Bool = false) throws {
        let document: JSON
        do {
            document = try JSON.parse(json)
        } catch let error as JSONSyntaxError {
            throw LottieError.syntax(error.description)
        }
        var reader = LottieReader(lenient: lenient)
        self = try reader.animation(document)
    }
}

/// Reads the JSON tree, collecting the features outside L1 as it goes.
struct LottieReader {
    let lenient: Bool
    var issues: [LottieIssue] = []

    init(lenient: Bool) { self.lenient = lenient }

    mutating func animation(_ root: JSON) throws -> LottieAnimation {
        guard case .object = root else { throw LottieError.invalid(path: "", reason: "must be an object (a Lottie file), not \(root.typeDescription)") }
        let frameRate = try number(root, "fr", "")
        guard frameRate > 0 else { throw LottieError.invalid(path: "fr", reason: "must be positive (got \(frameRate))") }
        let inPoint = try number(root, "ip", ""), outPoint = try number(root, "op", "")
        guard outPoint > inPoint else { throw LottieError.invalid(path: "op", reason: "must be greater than ip (\(inPoint))") }
        let width = try number(root, "w", ""), height = try number(root, "h", "")
        guard width > 0, height > 0 else { throw LottieError.invalid(path: width > 0 ? "h" : "w", reason: "must be positive") }
        if let ddd = root["ddd"], case .number(let v) = ddd, v != 0 { note("3D", "ddd") }

        var precompositions: [String: [LottieLayer]] = [:]
        if let assets = root["assets"] {
            guard case .array(let list) = assets else { throw LottieError.invalid(path: "assets", reason: "must be an array") }
            for (k, asset) in list.enumerated() {
                let path = "assets[\(k)]"
                guard let layers = asset["layers"] else { continue }   // an image asset: used only by image layers
                guard case .string(let id)? = asset["id"] else { throw LottieError.invalid(path: path + ".id", reason: "must be a string") }
                precompositions[id] = try self.layers(layers, path + ".layers", depth: 1)
            }
        }
        let layers = try self.layers(root["layers"] ?? .null, "layers", depth: 0)
        // Every referenced precomposition exists, none contains itself, the nesting and the
        // expanded size are bounded.
        var references = ReferenceCheck(precompositions: precompositions)
        _ = try references.size(of: layers, "layers", chain: [])
        let blocking = issues.filter { !(lenient && $0.isCosmetic) }
        if !blocking.isEmpty { throw LottieError.unsupported(blocking) }
        return LottieAnimation(frameRate: frameRate, inPoint: inPoint, outPoint: outPoint, width: width, height: height,
                               layers: layers, precompositions: precompositions, skipped: issues)
    }

    mutating func note(_ feature: String, _ path: String, cosmetic: Bool = false) {
        issues.append(LottieIssue(feature: feature, path: path, isCosmetic: cosmetic))
    }

    // MARK: Layers

    mutating func layers(_ json: JSON, _ path: String, depth: Int) throws -> [LottieLayer] {
        guard case .array(let list) = json else { throw LottieError.invalid(path: path, reason: "must be an array of layers, not \(json.typeDescription)") }
        var result: [LottieLayer] = []
        for (k, item) in list.enumerated() {
            if let layer = try self.layer(item, "\(path)[\(k)]") { result.append(layer) }
        }
        return result
    }

    mutating func layer(_ json: JSON, _ path: String) throws -> LottieLayer? {
        guard case .object = json else { throw LottieError.invalid(path: path, reason: "must be an object (a layer)") }
        let type = try integer(json, "ty", path)
        if let masks = json["masksProperties"], case .array(let m) = masks, !m.isEmpty { note("masks", path + ".masksProperties") }
        if json["tt"] != nil { note("mattes", path + ".tt") }
        if case .number(let td)? = json["td"], td != 0 { note("mattes", path + ".td") }
        if case .array(let effects)? = json["ef"], !effects.isEmpty { note("layer effects", path + ".ef", cosmetic: true) }
        if case .number(let bm)? = json["bm"], bm != 0 { note("blend modes", path + ".bm", cosmetic: true) }
        if case .number(let ddd)? = json["ddd"], ddd != 0 { note("3D", path + ".ddd") }

        let content: LottieLayer.Content
        switch type {
        case 4:
            guard case .array(let list) = json["shapes"] ?? .array([]) else {
                throw LottieError.invalid(path: path + ".shapes", reason: "must be an array of shape items")
            }
            content = .shapes(try shapes(list.enumerated().map { ($1, "\(path).shapes[\($0)]") }, depth: 0))
        case 3:
            content = .null
        case 1:
            let w = try number(json, "sw", path), h = try number(json, "sh", path)
            let color: Color
            switch json["sc"] {
            case nil, .string("")?:
                color = Self.defaultColor   // what rlottie draws (docs/bad-input.md)
            case .string(let hex)?:
                color = Self.color(hex: hex) ?? Color(red: 0, green: 0, blue: 0)
            default:
                throw LottieError.invalid(path: path + ".sc", reason: "must be a colour like \"#ff8800\"")
            }
            content = .solid(width: w, height: h, color: color)
        case 0:
            guard case .string(let id)? = json["refId"] else { throw LottieError.invalid(path: path + ".refId", reason: "must be a string") }
            content = .precomposition(id: id, timeRemap: try json["tm"].map { try property($0, path + ".tm") })
        default:
            let names = [2: "image layers", 5: "text layers", 6: "audio layers", 13: "camera layers"]
            note(names[type] ?? "layers of type \(type)", path + ".ty")
            return nil
        }
        let stretch = try optionalNumber(json, "sr", path) ?? 1
        guard stretch != 0 else { throw LottieError.invalid(path: path + ".sr", reason: "must not be 0") }
        var clipSize: Size?
        if case .precomposition = content, let w = try optionalNumber(json, "w", path), let h = try optionalNumber(json, "h", path), w > 0, h > 0 {
            clipSize = Size(width: w, height: h)
        }
        return LottieLayer(
            name: json["nm"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "",
            index: try optionalInteger(json, "ind", path),
            parent: try optionalInteger(json, "parent", path),
            inPoint: try number(json, "ip", path), outPoint: try number(json, "op", path),
            startTime: try optionalNumber(json, "st", path) ?? 0, stretch: stretch,
            hidden: flag(json, "hd"), autoOrient: flag(json, "ao"),
            transform: try transform(json["ks"] ?? .object([]), path + ".ks", hasOpacity: true),
            content: content, clipSize: clipSize)
    }

    // MARK: Shapes

    /// Shape items, each with its JSON path (a group's `it` less its transform keeps its indices).
    mutating func shapes(_ entries: [(JSON, String)], depth: Int) throws -> [LottieShapeItem] {
        guard depth < LottieAnimation.maximumNesting else {
            throw LottieError.invalid(path: entries.first?.1 ?? "", reason: "groups nest deeper than \(LottieAnimation.maximumNesting)")
        }
        var items: [LottieShapeItem] = []
        for (item, p) in entries {
            guard case .string(let type)? = item["ty"] else { throw LottieError.invalid(path: p + ".ty", reason: "must be a string") }
            let hidden = flag(item, "hd")
            switch type {
            case "gr":
                guard case .array(let inner)? = item["it"] else { throw LottieError.invalid(path: p + ".it", reason: "must be an array") }
                // The transform is the group's `tr` item (its last, by convention; found anywhere).
                var transform = LottieTransform.identity
                var children: [(JSON, String)] = []
                for (j, child) in inner.enumerated() {
                    if case .string("tr")? = child["ty"] {
                        transform = try self.transform(child, "\(p).it[\(j)]", hasOpacity: true)
                    } else {
                        children.append((child, "\(p).it[\(j)]"))
                    }
                }
                let contents = try shapes(children, depth: depth + 1)
                items.append(.group(items: contents, transform: transform, hidden: hidden))
            case "sh":
                items.append(.path(try shapeProperty(item["ks"] ?? .null, p + ".ks"), hidden: hidden))
            case "rc":
                items.append(.rectangle(position: try property(item["p"] ?? origin, p + ".p"), size: try property(item["s"], p + ".s"),
                                        roundness: try property(item["r"] ?? zero, p + ".r"),
                                        reversed: (try optionalNumber(item, "d", p) ?? 1) == 3, hidden: hidden))
            case "el":
                items.append(.ellipse(position: try property(item["p"] ?? origin, p + ".p"), size: try property(item["s"], p + ".s"),
                                      reversed: (try optionalNumber(item, "d", p) ?? 1) == 3, hidden: hidden))
            case "fl":
                items.append(.fill(color: try colorProperty(item["c"], p + ".c"), opacity: try property(item["o"] ?? hundred, p + ".o"), hidden: hidden))
            case "st":
                if case .array(let dashes)? = item["d"], !dashes.isEmpty { note("stroke dashes", p + ".d", cosmetic: true) }
                let cap = LottieStrokeStyle.Cap(rawValue: try optionalInteger(item, "lc", p) ?? 2) ?? .round
                let join = LottieStrokeStyle.Join(rawValue: try optionalInteger(item, "lj", p) ?? 2) ?? .round
                let style = LottieStrokeStyle(cap: cap, join: join, miterLimit: max(try optionalNumber(item, "ml", p) ?? 4, 1))
                items.append(.stroke(color: try colorProperty(item["c"], p + ".c"), opacity: try property(item["o"] ?? hundred, p + ".o"),
                                     width: try property(item["w"] ?? zero, p + ".w"), style: style, hidden: hidden))
            case "tm":
                let mode = try optionalNumber(item, "m", p) ?? 1
                items.append(.trim(start: try property(item["s"] ?? zero, p + ".s"), end: try property(item["e"] ?? zero, p + ".e"),
                                   offset: try property(item["o"] ?? zero, p + ".o"),
                                   sequential: mode == 2, hidden: hidden))
            case "tr":
                continue   // only inside groups (read there)
            default:
                let names = ["gf": "gradients", "gs": "gradients", "rp": "repeaters", "mm": "merge paths", "sr": "polystars",
                             "rd": "rounded corners", "pb": "pucker and bloat", "tw": "twist", "op": "offset paths", "zz": "zig-zag"]
                note(names[type] ?? "shape items of type '\(type)'", p + ".ty")
            }
        }
        return items
    }

    // What a missing optional field reads as: the value rlottie gives it (docs/bad-input.md,
    // "What players accept").
    private var hundred: JSON { .object([("a", .number(0)), ("k", .number(100))]) }
    private var zero: JSON { .object([("a", .number(0)), ("k", .number(0))]) }
    private var origin: JSON { .object([("a", .number(0)), ("k", .array([.number(0), .number(0)]))]) }

    // MARK: Transforms

    mutating func transform(_ json: JSON, _ path: String, hasOpacity: Bool) throws -> LottieTransform {
        guard case .object = json else { throw LottieError.invalid(path: path, reason: "must be an object (a transform)") }
        var t = LottieTransform.identity
        if let a = json["a"] { t.anchor = try property(a, path + ".a") }
        if let p = json["p"] {
            if case .bool(true)? = p["s"] {
                t.position = nil
                t.positionX = try property(p["x"], path + ".p.x")
                t.positionY = try property(p["y"], path + ".p.y")
            } else {
                t.position = try property(p, path + ".p")
            }
        }
        if let s = json["s"] { t.scale = try property(s, path + ".s") }
        if let r = json["r"] { t.rotation = try property(r, path + ".r") } else if let rz = json["rz"] { t.rotation = try property(rz, path + ".rz") }
        if hasOpacity, let o = json["o"] { t.opacity = try property(o, path + ".o") }
        if let sk = json["sk"] {
            let skew = try property(sk, path + ".sk")
            if skew.isAnimated || skew.first.contains(where: { $0 != 0 }) { note("skew", path + ".sk") }
        }
        return t
    }

    // MARK: Properties

    /// An animated or static property of numbers (lottie §2.1–§2.6).
    mutating func property(_ json: JSON?, _ path: String) throws -> LottieProperty {
        guard let json, case .object = json else { throw LottieError.invalid(path: path, reason: "must be an object with \"k\" (a property)") }
        if json["x"] != nil, case .string = json["x"]! { note("expressions", path + ".x") }
        guard let k = json["k"] else { throw LottieError.invalid(path: path + ".k", reason: "is missing") }
        let animated: Bool
        if case .number(let a)? = json["a"] { animated = a != 0 } else if case .array(let list) = k, case .object? = list.first { animated = true } else { animated = false }
        if !animated { return LottieProperty(constant: try numbers(k, path + ".k")) }
        guard case .array(let keys) = k, !keys.isEmpty else { throw LottieError.invalid(path: path + ".k", reason: "must be an array of keyframes") }
        guard keys.count <= LottieAnimation.maximumKeyframes else {
            throw LottieError.invalid(path: path + ".k", reason: "has \(keys.count) keyframes (at most \(LottieAnimation.maximumKeyframes))")
        }
        struct Key { var t: Double; var s: [Double]?; var e: [Double]?; var hold: Bool; var o: JSON?; var i: JSON?; var to: [Double]?; var ti: [Double]? }
        var list: [Key] = []
        for (j, key) in keys.enumerated() {
            let p = "\(path).k[\(j)]"
            guard case .object = key else { throw LottieError.invalid(path: p, reason: "must be an object (a keyframe)") }
            let t = try number(key, "t", p)
            if let last = list.last, t < last.t { throw LottieError.invalid(path: p + ".t", reason: "goes back in time (\(t) after \(last.t))") }
            list.append(Key(t: t, s: try key["s"].map { try numbers($0, p + ".s") }, e: try key["e"].map { try numbers($0, p + ".e") },
                            hold: flag(key, "h"), o: key["o"], i: key["i"],
                            to: try key["to"].map { try numbers($0, p + ".to") }, ti: try key["ti"].map { try numbers($0, p + ".ti") }))
        }
        guard let first = list.first?.s else { throw LottieError.invalid(path: path + ".k[0].s", reason: "is missing") }
        let dimension = first.count
        var segments: [LottieProperty.Segment] = []
        for j in 0..<list.count - 1 {
            let key = list[j], next = list[j + 1], p = "\(path).k[\(j)]"
            guard let start = key.s ?? segments.last?.end else { throw LottieError.invalid(path: p + ".s", reason: "is missing") }
            guard let end = key.e ?? next.s ?? (key.hold ? start : nil) else {
                throw LottieError.invalid(path: "\(path).k[\(j + 1)].s", reason: "is missing (and key \(j) has no \"e\")")
            }
            guard start.count == dimension, end.count == dimension else {
                throw LottieError.invalid(path: p + (start.count == dimension ? ".e" : ".s"), reason: "has \(start.count == dimension ? end.count : start.count) numbers, not \(dimension)")
            }
            let easing = key.hold ? [TimingFunction.linear] : try curves(key.o, key.i, p, dimension: dimension)
            var spatial: LottieProperty.SpatialCurve?
            if let to = key.to, let ti = key.ti, dimension >= 2, to.count >= 2, ti.count >= 2, !key.hold {
                spatial = Self.spatialCurve(from: Point(x: start[0], y: start[1]), to: Point(x: end[0], y: end[1]),
                                            out: Point(x: to[0], y: to[1]), in: Point(x: ti[0], y: ti[1]))
            }
            segments.append(.init(startFrame: key.t, endFrame: next.t, start: start, end: end, hold: key.hold, easing: easing, spatial: spatial))
        }
        let lastValue = list.last?.s ?? segments.last?.end ?? first
        guard lastValue.count == dimension else { throw LottieError.invalid(path: "\(path).k[\(list.count - 1)].s", reason: "has \(lastValue.count) numbers, not \(dimension)") }
        return LottieProperty(dimension: dimension, segments: segments, first: first, last: lastValue)
    }

    /// A paint's colour: a property of up to four numbers; a missing one, or one with none
    /// (`"k": []`), is ``defaultColor``, as rlottie draws it. Missing components read 0 (red, green, blue) and 1
    /// (alpha), as in rlottie.
    mutating func colorProperty(_ json: JSON?, _ path: String) throws -> LottieProperty {
        guard let json else {   // missing: white, as rlottie draws it
            let white = Self.defaultColor
            return LottieProperty(constant: [white.red, white.green, white.blue])
        }
        let value = try property(json, path)
        guard value.dimension > 0 else {
            let white = Self.defaultColor
            return LottieProperty(constant: [white.red, white.green, white.blue])
        }
        return value
    }

    /// The segment's path when its tangents bend it; nil for a straight line (all-zero or
    /// collinear tangents, lottie §2.6), which the plain interpolation walks exactly.
    static func spatialCurve(from a: Point, to b: Point, out: Point, in tangentIn: Point) -> LottieProperty.SpatialCurve? {
        let d = Point(x: b.x - a.x, y: b.y - a.y)
        func cross(_ u: Point, _ v: Point) -> Double { u.x * v.y - u.y * v.x }
        let scale = max(abs(d.x) + abs(d.y), 1e-12)
        if (out.x == 0 && out.y == 0 && tangentIn.x == 0 && tangentIn.y == 0)
            || (abs(cross(out, d)) <= 1e-9 * scale * max(abs(out.x) + abs(out.y), 1)
                && abs(cross(tangentIn, d)) <= 1e-9 * scale * max(abs(tangentIn.x) + abs(tangentIn.y), 1)
                && (d.x != 0 || d.y != 0)) {
            return nil
        }
        var path = Path()
        path.move(to: a)
        path.addCurve(to: b, control1: a + out, control2: b + tangentIn)
        return LottieProperty.SpatialCurve(measure: PathMeasure(path))
    }

    /// Key k's easing to key k + 1: `o` and `i` hold x and y, each a number or one per dimension
    /// (lottie §2.4). A missing curve is linear; x is clamped to [0, 1].
    func curves(_ o: JSON?, _ i: JSON?, _ path: String, dimension: Int) throws -> [TimingFunction] {
        guard let o, let i else { return [.linear] }
        let ox = try numbers(o["x"] ?? .null, path + ".o.x"), oy = try numbers(o["y"] ?? .null, path + ".o.y")
        let ix = try numbers(i["x"] ?? .null, path + ".i.x"), iy = try numbers(i["y"] ?? .null, path + ".i.y")
        let count = max(1, min(max(ox.count, oy.count, ix.count, iy.count), dimension))
        return try (0..<count).map { d in
            func pick(_ list: [Double]) -> Double { list.isEmpty ? 0 : list[min(d, list.count - 1)] }
            let x1 = min(max(pick(ox), 0), 1), x2 = min(max(pick(ix), 0), 1)
            do {
                return try TimingFunction(controlPoints: x1, pick(oy), x2, pick(iy))
            } catch {
                throw LottieError.invalid(path: path + ".o", reason: "is not a usable easing curve (\(error))")
            }
        }
    }

    /// A path property (`sh`'s `ks`): a Bézier or keyframes of them (lottie §4.3).
    mutating func shapeProperty(_ json: JSON, _ path: String) throws -> LottieShapeProperty {
        guard case .object = json else { throw LottieError.invalid(path: path, reason: "must be an object with \"k\" (a path property)") }
        if json["x"] != nil, case .string = json["x"]! { note("expressions", path + ".x") }
        guard let k = json["k"] else { throw LottieError.invalid(path: path + ".k", reason: "is missing") }
        if case .object = k { return LottieShapeProperty(constant: try bezier(k, path + ".k")) }
        guard case .array(let keys) = k, !keys.isEmpty else { throw LottieError.invalid(path: path + ".k", reason: "must be a path or keyframes of paths") }
        guard keys.count <= LottieAnimation.maximumKeyframes else { throw LottieError.invalid(path: path + ".k", reason: "has too many keyframes") }
        var result: [LottieShapeProperty.Key] = []
        for (j, key) in keys.enumerated() {
            let p = "\(path).k[\(j)]"
            let t = try number(key, "t", p)
            if let last = result.last, t < last.frame { throw LottieError.invalid(path: p + ".t", reason: "goes back in time") }
            func one(_ json: JSON?, _ field: String) throws -> LottieBezier? {
                guard let json else { return nil }
                if case .array(let list) = json {
                    guard let first = list.first else { return nil }
                    return try bezier(first, "\(p).\(field)[0]")
                }
                return try bezier(json, "\(p).\(field)")
            }
            let start = try one(key["s"], "s") ?? result.last?.end
            guard let start else { throw LottieError.invalid(path: p + ".s", reason: "is missing") }
            let end = try one(key["e"], "e")
            let hold = flag(key, "h")
            let easing = hold ? TimingFunction.linear : try curves(key["o"], key["i"], p, dimension: 1)[0]
            if let previous = result.last, previous.start.vertices.count != start.vertices.count {
                throw LottieError.invalid(path: p + ".s", reason: "has \(start.vertices.count) vertices where key \(j - 1) has \(previous.start.vertices.count)")
            }
            if let end, end.vertices.count != start.vertices.count {
                throw LottieError.invalid(path: p + ".e", reason: "has \(end.vertices.count) vertices where \"s\" has \(start.vertices.count)")
            }
            result.append(.init(frame: t, start: start, end: end, hold: hold, easing: easing))
        }
        return LottieShapeProperty(keys: result)
    }

    func bezier(_ json: JSON, _ path: String) throws -> LottieBezier {
        guard case .object = json else { throw LottieError.invalid(path: path, reason: "must be an object with \"v\", \"i\", \"o\" (a path)") }
        func points(_ field: String) throws -> [Point] {
            guard case .array(let list)? = json[field] else { throw LottieError.invalid(path: "\(path).\(field)", reason: "must be an array of points") }
            guard list.count <= LottieAnimation.maximumKeyframes else { throw LottieError.invalid(path: "\(path).\(field)", reason: "has too many points") }
            return try list.enumerated().map { j, p in
                let n = try numbers(p, "\(path).\(field)[\(j)]")
                guard n.count >= 2 else { throw LottieError.invalid(path: "\(path).\(field)[\(j)]", reason: "must have two numbers") }
                return Point(x: n[0], y: n[1])
            }
        }
        let v = try points("v"), i = try points("i"), o = try points("o")
        guard i.count == v.count, o.count == v.count else {
            throw LottieError.invalid(path: path + (i.count == v.count ? ".o" : ".i"), reason: "must have one point per vertex (\(v.count))")
        }
        return LottieBezier(closed: flag(json, "c"), vertices: v, inTangents: i, outTangents: o)
    }

    // MARK: Scalars

    func number(_ json: JSON, _ key: String, _ path: String) throws -> Double {
        let p = path.isEmpty ? key : "\(path).\(key)"
        guard let value = json[key] else { throw LottieError.invalid(path: p, reason: "is missing") }
        // A one-element array, as some exporters write single numbers, reads as its number.
        if case .array(let list) = value, list.count == 1, let n = Self.finite(list[0]) { return n }
        guard let n = Self.finite(value) else { throw LottieError.invalid(path: p, reason: "must be a finite number, not \(value.typeDescription)") }
        return n
    }

    /// A finite number, or a string that spells one (`"50"`: lottie-web reads them as numbers;
    /// docs/bad-input.md); nil for anything else.
    static func finite(_ json: JSON) -> Double? {
        switch json {
        case .number(let n): return n.isFinite ? n : nil
        case .string(let text):
            guard text.utf8.count <= 64, let n = Double(text), n.isFinite else { return nil }
            return n
        default: return nil
        }
    }

    func optionalNumber(_ json: JSON, _ key: String, _ path: String) throws -> Double? {
        guard json[key] != nil else { return nil }
        return try number(json, key, path)
    }

    /// A whole number (a layer's `ty`, `ind`, `parent`; a stroke's `lc`, `lj`): one that is not
    /// whole, or lies outside ±2^31, is an error naming it — converting it to `Int` would trap.
    func integer(_ json: JSON, _ key: String, _ path: String) throws -> Int {
        let n = try number(json, key, path)
        guard n == n.rounded(), abs(n) <= 2_147_483_647 else {
            throw LottieError.invalid(path: path.isEmpty ? key : "\(path).\(key)", reason: "must be a whole number within ±2147483647, not \(n)")
        }
        return Int(n)
    }

    func optionalInteger(_ json: JSON, _ key: String, _ path: String) throws -> Int? {
        guard json[key] != nil else { return nil }
        return try integer(json, key, path)
    }

    func flag(_ json: JSON, _ key: String) -> Bool {
        switch json[key] {
        case .bool(let b)?: b
        case .number(let n)?: n != 0
        default: false
        }
    }

    /// A number or an array of numbers, as numbers (all finite).
    func numbers(_ json: JSON, _ path: String) throws -> [Double] {
        switch json {
        case .number, .string:
            guard let n = Self.finite(json) else {
                throw LottieError.invalid(path: path, reason: "must be a number or an array of numbers, not \(json.typeDescription)")
            }
            return [n]
        case .array(let list):
            guard list.count <= 64 else { throw LottieError.invalid(path: path, reason: "has \(list.count) numbers (at most 64)") }
            return try list.enumerated().map { j, v in
                guard let n = Self.finite(v) else { throw LottieError.invalid(path: "\(path)[\(j)]", reason: "must be a finite number, not \(v.typeDescription)") }
                return n
            }
        default:
            throw LottieError.invalid(path: path, reason: "must be a number or an array of numbers, not \(json.typeDescription)")
        }
    }

    /// The colour of a solid layer without one, or of a paint whose colour has no components:
    /// white, as rlottie draws them (players differ; docs/bad-input.md).
    static let defaultColor = Color(red: 1, green: 1, blue: 1)

    /// `#rrggbb`, `#rgb` (CSS's shorthand) or `#rrggbbaa` (the alpha ignored, lottie §4.6) as a
    /// colour, the `#` optional; nil for any other text (a solid layer draws it black, as rlottie
    /// and lottie-web do).
    static func color(hex: String) -> Color? {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        if digits.count == 3 { digits = Substring(digits.map { "\($0)\($0)" }.joined()) }
        if digits.count == 8 { digits = digits.prefix(6) }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        return Color(red: Double((value >> 16) & 0xFF) / 255, green: Double((value >> 8) & 0xFF) / 255, blue: Double(value & 0xFF) / 255)
    }
}

/// The reader's check of precomposition references, in time linear in the file: each
/// precomposition's expanded size and depth are computed once and remembered (walking every path
/// through the references took time exponential in the nesting: 20 levels of 4 references hung).
/// Recursion is bounded by ``LottieAnimation/maximumNesting`` levels.
struct ReferenceCheck {
    let precompositions: [String: [LottieLayer]]
    /// Each checked precomposition's expanded layer count and nesting depth.
    private var known: [String: (layers: Int, depth: Int)] = [:]
    /// Layers visited: once per layer of the file at most (for the tests that count operations).
    private(set) var visited = 0

    init(precompositions: [String: [LottieLayer]]) { self.precompositions = precompositions }

    /// The expanded layer count and the precomposition depth of `layers`, reached through the
    /// precompositions in `chain`.
    mutating func size(of layers: [LottieLayer], _ path: String, chain: [String]) throws -> (layers: Int, depth: Int) {
        var total = 0, depth = 0
        for (k, layer) in layers.enumerated() {
            visited += 1
            total += 1
            guard case .precomposition(let id, _) = layer.content else { continue }
            let location = "\(path)[\(k)].refId"
            func tooDeep() -> LottieError {
                .invalid(path: location, reason: "precompositions nested more than \(LottieAnimation.maximumNesting) levels")
            }
            guard let inner = precompositions[id] else {
                throw LottieError.invalid(path: location, reason: "names no precomposition ('\(id)')")
            }
            guard !chain.contains(id) else { throw LottieError.invalid(path: location, reason: "'\(id)' contains itself") }
            let nested: (layers: Int, depth: Int)
            if let remembered = known[id] {
                nested = remembered
            } else {
                guard chain.count < LottieAnimation.maximumNesting else { throw tooDeep() }
                nested = try size(of: inner, "assets(\(id)).layers", chain: chain + [id])
                known[id] = nested
            }
            // Reached at a greater depth than when it was first checked: its nesting counts from here.
            guard chain.count + 1 + nested.depth <= LottieAnimation.maximumNesting else { throw tooDeep() }
            depth = max(depth, nested.depth + 1)
            total += nested.layers   // both at most the limit: no overflow
            guard total <= LottieAnimation.maximumExpandedLayers else {
                throw LottieError.invalid(path: location, reason: "expands to more than \(LottieAnimation.maximumExpandedLayers) layers (each precomposition layer holds a copy of its precomposition's layers; LottieAnimation.maximumExpandedLayers)")
            }
        }
        return (total, depth)
    }
}
