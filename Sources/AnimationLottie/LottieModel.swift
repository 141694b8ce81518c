import AnimationCore

/// A Lottie (Bodymovin) animation in the subset L1, read by ``LottieAnimation/init(json:lenient:)``
/// (lottie §1–§4): the composition's timing and size, its layers, and the precompositions they
/// reference.
public struct LottieAnimation: Sendable {
    /// Frames per second (`fr`).
    public var frameRate: Double
    /// The first frame (`ip`).
    public var inPoint: Double
    /// One past the last frame (`op`).
    public var outPoint: Double
    /// The composition's width (`w`).
    public var width: Double
    /// The composition's height (`h`).
    public var height: Double
    /// The layers, top first (the file's order; the last is drawn first, lottie §3.5).
    public var layers: [LottieLayer]
    /// Precompositions by asset id (`assets[].id` with `layers`).
    public var precompositions: [String: [LottieLayer]]
    /// What `lenient` reading skipped: cosmetic features, each with its JSON path.
    public var skipped: [LottieIssue]
}

/// A layer of types shape (4), null (3), solid (1) or precomposition (0) (lottie §3.1).
public struct LottieLayer: Sendable {
    /// What the layer draws.
    public enum Content: Sendable {
        /// A shape layer's items (type 4).
        case shapes([LottieShapeItem])
        /// A null layer (type 3): a transform for its children, nothing drawn.
        case null
        /// A `width` × `height` rectangle at the origin filled with `color` (`sw`, `sh`, `sc`).
        case solid(width: Double, height: Double, color: Color)
        /// The asset `id`'s layers, with the precomposition's time remap `tm` (seconds).
        case precomposition(id: String, timeRemap: LottieProperty?)
    }

    /// `nm`.
    public var name: String
    /// `ind`, the name `parent` refers to.
    public var index: Int?
    /// `parent`: another layer's `ind` in the same composition (lottie §3.3).
    public var parent: Int?
    /// Shown from this frame (`ip`, lottie §1.2)…
    public var inPoint: Double
    /// …until just before this one (`op`).
    public var outPoint: Double
    /// `st`: a precomposition layer shows its children at (f − st) / sr. The layer's own keys,
    /// of any type, are on its composition's clock and are not shifted (lottie §1.2).
    public var startTime: Double
    /// `sr` (never 0): as ``startTime``, it maps only a precomposition's children.
    public var stretch: Double
    /// `hd`: not drawn (it still parents).
    public var hidden: Bool
    /// `ao`: turned along its position's path (lottie §3.4).
    public var autoOrient: Bool
    /// `ks`.
    public var transform: LottieTransform
    /// What it draws.
    public var content: Content
    /// A precomposition layer's `w` × `h`: what it shows of its precomposition is clipped to the
    /// rectangle (0, 0)–(w, h) in its own coordinates, as After Effects and rlottie clip it
    /// (``LottieNode/clip``). Nil for other layers, and for a precomposition layer without a
    /// positive `w` and `h` (nothing clipped).
    public var clipSize: Size? = nil
}

/// A transform (`ks` of a layer, `tr` of a group; lottie §3.2): anchor, position (possibly split
/// into x and y), scale in percent, rotation in degrees (clockwise on the y-down canvas),
/// opacity in percent.
public struct LottieTransform: Sendable {
    /// `a`: the point of the layer that `position` places.
    public var anchor: LottieProperty
    /// `p`, unless split into ``positionX`` and ``positionY``.
    public var position: LottieProperty?
    /// Split position (`p.s: true`): x and y animated on their own (lottie §2.7).
    public var positionX: LottieProperty?
    /// The y of a split position.
    public var positionY: LottieProperty?
    /// `s`, in percent per axis.
    public var scale: LottieProperty
    /// `r` (or `rz`), in degrees.
    public var rotation: LottieProperty
    /// `o`, in percent.
    public var opacity: LottieProperty

    /// The identity: nothing moved, fully opaque.
    public static let identity = LottieTransform(
        anchor: LottieProperty(constant: [0, 0]), position: LottieProperty(constant: [0, 0]), positionX: nil, positionY: nil,
        scale: LottieProperty(constant: [100, 100]), rotation: LottieProperty(constant: [0]), opacity: LottieProperty(constant: [100]))

    /// The position at `frame`.
    public func position(atFrame frame: Double) -> Point {
        // Optional chaining, not `if let`: binding would copy the property (and retain its arrays).
        if positionX != nil && positionY != nil {
            return Point(x: positionX?.scalar(atFrame: frame) ?? 0, y: positionY?.scalar(atFrame: frame) ?? 0)
        }
        guard position != nil else { return Point(x: 0, y: 0) }
        var x = 0.0, y = 0.0
        position?.withValue(atFrame: frame) { v in
            x = v.count > 0 ? v[0] : 0
            y = v.count > 1 ? v[1] : 0
        }
        return Point(x: x, y: y)
    }

    /// Whether nothing in the transform is animated: its matrix and opacity are the same at every
    /// frame (a compiled program computes them once).
    var isStatic: Bool {
        !anchor.isAnimated && !(position?.isAnimated ?? false) && !(positionX?.isAnimated ?? false)
            && !(positionY?.isAnimated ?? false) && !scale.isAnimated && !rotation.isAnimated && !opacity.isAnimated
    }

    /// The matrix at `frame`: translate by −anchor, scale, rotate, translate by position
    /// (lottie §3.2), plus `extraRotation` radians after the rotation (auto-orient, §3.4).
    public func matrix(atFrame frame: Double, extraRotation: Double = 0) -> AffineTransform {
        let (ax, ay) = LottieShapes.pair(anchor, frame)
        var sx = 100.0, sy = 100.0
        scale.withValue(atFrame: frame) { s in
            sx = s.first ?? 100
            sy = s.count > 1 ? s[1] : sx
        }
        let p = position(atFrame: frame)
        let r = rotation.scalar(atFrame: frame) * .pi / 180 + extraRotation
        var m = AffineTransform.translation(x: -ax, y: -ay)
        m = m.concatenating(.scale(x: sx / 100, y: sy / 100))
        if r != 0 { m = m.concatenating(.rotation(angle: r)) }
        return m.concatenating(.translation(x: p.x, y: p.y))
    }

    /// The opacity at `frame`, 0…1.
    public func opacity(atFrame frame: Double) -> Double {
        min(max(opacity.scalar(atFrame: frame) / 100, 0), 1)
    }
}

/// A shape item (lottie §4): geometry, a group, paint or a trim.
public indirect enum LottieShapeItem: Sendable {
    /// `gr`: items with the group's transform (`tr`, its last item).
    case group(items: [LottieShapeItem], transform: LottieTransform, hidden: Bool)
    /// `sh`: a Bézier path, possibly morphing.
    case path(LottieShapeProperty, hidden: Bool)
    /// `rc`: centre `p`, size `s`, roundness `r`; direction `d` (3: the other way round).
    case rectangle(position: LottieProperty, size: LottieProperty, roundness: LottieProperty, reversed: Bool, hidden: Bool)
    /// `el`: centre `p`, size `s`.
    case ellipse(position: LottieProperty, size: LottieProperty, reversed: Bool, hidden: Bool)
    /// `fl`: colour `c` (0–1), opacity `o` (percent).
    case fill(color: LottieProperty, opacity: LottieProperty, hidden: Bool)
    /// `st`: colour, opacity, width `w`, and how its lines end and join (`lc`, `lj`, `ml`).
    case stroke(color: LottieProperty, opacity: LottieProperty, width: LottieProperty, style: LottieStrokeStyle, hidden: Bool)
    /// `tm`: start `s` and end `e` (percent), offset `o` (degrees), `sequential` for `m` = 2.
    case trim(start: LottieProperty, end: LottieProperty, offset: LottieProperty, sequential: Bool, hidden: Bool)
}

/// How a stroke's lines end and join (`lc`: 1 butt, 2 round, 3 square; `lj`: 1 miter, 2 round,
/// 3 bevel; `ml`: the miter limit). Drawing only: the geometry is the same.
public struct LottieStrokeStyle: Sendable, Equatable {
    /// A line's ends.
    public enum Cap: Int, Sendable { case butt = 1, round = 2, square = 3 }
    /// Where segments meet.
    public enum Join: Int, Sendable { case miter = 1, round = 2, bevel = 3 }
    /// `lc`.
    public var cap: Cap
    /// `lj`.
    public var join: Join
    /// `ml`: how far a miter join may reach, in stroke widths.
    public var miterLimit: Double

    /// A style; the defaults are After Effects' (round ends and joins, miter limit 4).
    public init(cap: Cap = .round, join: Join = .round, miterLimit: Double = 4) {
        self.cap = cap
        self.join = join
        self.miterLimit = miterLimit
    }
}

/// A feature of a file outside L1, or skipped by lenient reading: which, and where.
public struct LottieIssue: Sendable, Equatable, CustomStringConvertible {
    /// The feature ("masks", "expressions", "gradients", …).
    public var feature: String
    /// The JSON path of the value that uses it (`layers[2].masksProperties`).
    public var path: String
    /// Whether lenient reading may skip it (it changes how the picture looks, not what is drawn
    /// where): blend modes, layer effects, stroke dashes.
    public var isCosmetic: Bool
    /// `"<feature> at <path>"`.
    public var description: String { "\(feature) at \(path)" }

    /// An issue of `feature` at `path`.
    public init(feature: String, path: String, isCosmetic: Bool) {
        self.feature = feature
        self.path = path
        self.isCosmetic = isCosmetic
    }
}

/// Why a file could not be read.
public enum LottieError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON: the parser's line, column and reason.
    case syntax(String)
    /// A value is missing or of the wrong kind at `path`.
    case invalid(path: String, reason: String)
    /// The file uses features outside L1 (every one found, with its path).
    case unsupported([LottieIssue])

    /// The message: the path (if any) and what is wrong, or every feature outside L1.
    public var description: String {
        switch self {
        case .syntax(let message): message
        case .invalid(let path, let reason): path.isEmpty ? reason : "\(path): \(reason)"
        case .unsupported(let issues):
            "outside the Lottie subset L1: " + issues.map(\.description).joined(separator: "; ")
        }
    }
}
