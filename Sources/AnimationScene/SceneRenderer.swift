import AnimationBatch
import AnimationCore

/// Draws a scene's presentation values as SVG, one document per frame, and an `index.html` that
/// plays a sequence of frames.
///
/// Geometry follows `CALayer` on iOS (y grows downwards, like SVG): a layer's coordinate space is
/// its `bounds`; it is placed in its superlayer's space by `position`, with `anchorPoint` (in unit
/// coordinates of the bounds) as the point that lands on `position` and about which `transform`
/// applies; a superlayer's `sublayerTransform` applies to its sublayers about its anchor point.
/// Siblings are drawn in order of `zPosition`, then scene order. Each layer draws, bottom to top:
/// its shadow (when `shadowOpacity` > 0), its `backgroundColor` (rounded by `cornerRadius`), a
/// shape layer's path filled with `fillColor` and stroked with `strokeColor` at `lineWidth` —
/// the stroke trimmed to [`strokeStart`, `strokeEnd`] of the path's length (semantics §13) — its
/// sublayers, then its border (`borderWidth`, `borderColor`, inside the bounds). `opacity`
/// applies to the layer and its sublayers as a group.
///
/// Simplifications, documented rather than hidden: transforms are drawn orthographically (the
/// 2D part `m11 m12 m21 m22 m41 m42`; perspective and z are ignored); the shadow is an SVG drop
/// shadow with a standard deviation of half `shadowRadius`; colours are clamped to [0, 1]; a
/// layer whose geometry is not finite is not drawn, and a non-finite colour or width draws
/// nothing.
public struct SceneRenderer {
    /// The scene being drawn.
    public let evaluation: SceneEvaluation
    /// The SVG canvas: by default one that holds every top-level layer's frame over the scene's
    /// animations (see ``init(_:size:)``).
    public var size: Size

    /// A renderer of `evaluation` on a canvas of `size`, or by default one that holds every
    /// top-level layer's frame in the model state and at 60 times over the scene's animations
    /// (until the last ends, or two cycles of one that repeats forever), with the smallest left
    /// and top margins mirrored on the right and bottom (at most 16384 × 16384).
    public init(_ evaluation: SceneEvaluation, size: Size? = nil) {
        self.evaluation = evaluation
        self.size = size ?? Self.defaultSize(evaluation)
    }

    /// The layers as a tree of indices into ``SceneEvaluation/layers`` (which is depth first).
    private struct Node {
        var index: Int
        var children: [Node]
    }

    private var roots: [Node] { Self.roots(of: evaluation.scene) }

    private static func roots(of scene: Scene) -> [Node] {
        var next = 0
        func build(_ layer: SceneLayer) -> Node {
            let index = next
            next += 1
            return Node(index: index, children: layer.sublayers.map(build))
        }
        return scene.layers.map(build)
    }

    /// Values of one layer at one frame: the frame's where reported, the model's otherwise.
    private struct LayerValues {
        var reported: [String: AnimationValue]
        var layer: SceneLayer

        func value(_ name: String) -> AnimationValue? { reported[name] ?? layer.modelValue(name) }
        func scalar(_ name: String) -> Double {
            if case .scalar(let v)? = value(name) { return v }
            return 0
        }
        func point(_ name: String) -> Point {
            if case .point(let p)? = value(name) { return p }
            return Point(x: 0, y: 0)
        }
        func rect(_ name: String) -> Rect {
            if case .rect(let r)? = value(name) { return r }
            return Rect(x: 0, y: 0, width: 0, height: 0)
        }
        func color(_ name: String) -> Color? {
            if case .color(let c)? = value(name) { return c }
            return nil
        }
        func transform(_ name: String) -> Transform3D {
            if case .transform(let t)? = value(name) { return t }
            return .identity
        }
    }

    /// The SVG document of the scene at `time`, by `engine`.
    public func svg(at time: Double, engine: SceneEngine = .batch) -> String {
        let frame = evaluation.frame(at: time, engine: engine)
        var values: [LayerValues] = []
        values.reserveCapacity(evaluation.layers.count)
        for (layer, shown) in zip(evaluation.layers, frame.layers) {
            var reported: [String: AnimationValue] = [:]
            for (name, value) in shown.values { reported[name] = value }
            values.append(LayerValues(reported: reported, layer: layer))
        }
        return Self.document(roots: roots, values: values, size: size,
                             caption: evaluation.layers.isEmpty ? "empty scene" : "scene time \(JSON.format(time)) s")
    }

    /// The SVG document of a scene as it stands: every layer drawn from its property values, no
    /// animation evaluated. For front ends that hold presentation values themselves (LayerTree's
    /// seed demos put each layer's presentation values in its properties).
    ///
    /// With `labeled`, the caption is also drawn (top left) and each top-level layer's id under its
    /// frame, so that a picture of several alike layers says which is which (the transactions
    /// demo's five squares).
    public static func svg(snapshot scene: Scene, size: Size, caption: String, labeled: Bool = false) -> String {
        let values = scene.allLayers.map { LayerValues(reported: [:], layer: $0) }
        var svg = document(roots: roots(of: scene), values: values, size: size, caption: caption)
        guard labeled else { return svg }
        var text = "<text x=\"6\" y=\"14\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\" fill=\"#555555\">\(SVG.escape(caption))</text>\n"
        for root in roots(of: scene) {
            let v = values[root.index]
            let corners = Self.corners(of: v.rect("bounds"), placed: placement(v))
            guard corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { continue }
            let x = corners.map(\.x).reduce(0, +) / 4, y = corners.map(\.y).max()! + 13
            text += "<text x=\"\(SVG.number(x))\" y=\"\(SVG.number(y))\" text-anchor=\"middle\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\" fill=\"#333333\">\(SVG.escape(v.layer.id))</text>\n"
        }
        svg.replace("</svg>", with: text + "</svg>")
        return svg
    }

    private static func document(roots: [Node], values: [LayerValues], size: Size, caption: String) -> String {
        var body = ""
        for node in ordered(roots, values) { draw(node, values, into: &body, depth: 1) }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(SVG.number(size.width))" height="\(SVG.number(size.height))" \
        viewBox="0 0 \(SVG.number(size.width)) \(SVG.number(size.height))">
        <!-- \(SVG.escape(caption)) -->
        <rect width="100%" height="100%" fill="#ffffff"/>
        \(body)</svg>

        """
    }

    /// Siblings in drawing order: by `zPosition`, then scene order.
    private static func ordered(_ nodes: [Node], _ values: [LayerValues]) -> [Node] {
        nodes.enumerated().sorted { a, b in
            let za = values[a.element.index].scalar("zPosition"), zb = values[b.element.index].scalar("zPosition")
            return za != zb && za.isFinite && zb.isFinite ? za < zb : a.offset < b.offset
        }.map(\.element)
    }

    /// The matrix placing a layer's bounds space in its superlayer's space, row-vector order.
    private static func placement(_ v: LayerValues) -> AffineTransform {
        placement(bounds: v.rect("bounds"), anchor: v.point("anchorPoint"), position: v.point("position"),
                  transform: v.transform("transform"))
    }

    /// The four corners of `bounds` through `place`.
    private static func corners(of bounds: Rect, placed place: AffineTransform) -> [Point] {
        [(0.0, 0.0), (1, 0), (0, 1), (1, 1)].map {
            Point(x: bounds.origin.x + $0.0 * bounds.size.width, y: bounds.origin.y + $0.1 * bounds.size.height).applying(place)
        }
    }

    private static func placement(bounds: Rect, anchor: Point, position: Point, transform: Transform3D) -> AffineTransform {
        let pivot = Point(x: bounds.origin.x + anchor.x * bounds.size.width, y: bounds.origin.y + anchor.y * bounds.size.height)
        return AffineTransform.translation(x: -pivot.x, y: -pivot.y)
            .concatenating(flat(transform))
            .concatenating(.translation(x: position.x, y: position.y))
    }

    /// The orthographic 2D part of a 3D transform.
    private static func flat(_ t: Transform3D) -> AffineTransform {
        AffineTransform(a: t.m11, b: t.m12, c: t.m21, d: t.m22, tx: t.m41, ty: t.m42)
    }

    private static func matrix(_ t: AffineTransform) -> String {
        "matrix(\(SVG.number(t.a, decimals: 6)) \(SVG.number(t.b, decimals: 6)) \(SVG.number(t.c, decimals: 6)) \(SVG.number(t.d, decimals: 6)) \(SVG.number(t.tx)) \(SVG.number(t.ty)))"
    }

    /// `fill="#rrggbb" fill-opacity="a"` (or the stroke attributes), or nil when nothing shows.
    private static func paint(_ attribute: String, _ color: Color?, alpha extra: Double = 1) -> String? {
        guard let color else { return nil }
        let components = [color.red, color.green, color.blue, color.alpha * extra]
        guard components.allSatisfy(\.isFinite) else { return nil }
        let alpha = min(max(components[3], 0), 1)
        guard alpha > 0 else { return nil }
        let hex = components[0..<3].map { c -> String in
            let byte = Int((min(max(c, 0), 1) * 255).rounded())
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        return alpha < 1 ? "\(attribute)=\"#\(hex)\" \(attribute)-opacity=\"\(SVG.number(alpha))\"" : "\(attribute)=\"#\(hex)\""
    }

    /// A path as SVG path data.
    public static func pathData(_ path: Path) -> String {
        var d = ""
        for element in path.elements {
            switch element {
            case .move(let p): d += "M\(SVG.number(p.x)) \(SVG.number(p.y))"
            case .line(let p): d += "L\(SVG.number(p.x)) \(SVG.number(p.y))"
            case .quadCurve(let p, let c): d += "Q\(SVG.number(c.x)) \(SVG.number(c.y)) \(SVG.number(p.x)) \(SVG.number(p.y))"
            case .curve(let p, let c1, let c2):
                d += "C\(SVG.number(c1.x)) \(SVG.number(c1.y)) \(SVG.number(c2.x)) \(SVG.number(c2.y)) \(SVG.number(p.x)) \(SVG.number(p.y))"
            case .closeSubpath: d += "Z"
            }
        }
        return d
    }

    private static func draw(_ node: Node, _ values: [LayerValues], into out: inout String, depth: Int) {
        let v = values[node.index]
        let place = Self.placement(v)
        let bounds = v.rect("bounds")
        let opacity = v.scalar("opacity")
        guard place.isFinite, [bounds.origin.x, bounds.origin.y, bounds.size.width, bounds.size.height].allSatisfy(\.isFinite),
              opacity.isFinite, opacity > 0 else { return }
        let indent = String(repeating: " ", count: depth * 2)
        let opacityAttribute = opacity < 1 ? " opacity=\"\(SVG.number(min(opacity, 1)))\"" : ""
        out += "\(indent)<g id=\"\(SVG.escape(v.layer.id))\" transform=\"\(Self.matrix(place))\"\(opacityAttribute)>\n"

        var content = ""
        let inner = indent + "  "
        let radius = max(0, min(v.scalar("cornerRadius").isFinite ? v.scalar("cornerRadius") : 0,
                                abs(bounds.size.width) / 2, abs(bounds.size.height) / 2))
        let rect = "x=\"\(SVG.number(bounds.origin.x))\" y=\"\(SVG.number(bounds.origin.y))\" width=\"\(SVG.number(abs(bounds.size.width)))\" height=\"\(SVG.number(abs(bounds.size.height)))\""
            + (radius > 0 ? " rx=\"\(SVG.number(radius))\"" : "")
        if let fill = Self.paint("fill", v.color("backgroundColor")) {
            content += "\(inner)<rect \(rect) \(fill)/>\n"
        }
        if v.layer.type == .shape, let path = v.layer.path, !path.isEmpty {
            if let fill = Self.paint("fill", v.color("fillColor")) {
                content += "\(inner)<path d=\"\(Self.pathData(path))\" \(fill)/>\n"
            }
            let width = v.scalar("lineWidth"), start = v.scalar("strokeStart"), end = v.scalar("strokeEnd")
            if let stroke = Self.paint("stroke", v.color("strokeColor")), width.isFinite, width > 0, start.isFinite, end.isFinite {
                let trimmed = path.trimmed(from: start, to: end)   // §13
                if !trimmed.isEmpty {
                    let miter = v.scalar("miterLimit")
                    content += "\(inner)<path d=\"\(Self.pathData(trimmed))\" fill=\"none\" \(stroke) stroke-width=\"\(SVG.number(width))\""
                        + (miter.isFinite && miter >= 1 && miter != 4 ? " stroke-miterlimit=\"\(SVG.number(miter))\"" : "") + "/>\n"
                }
            }
        }
        var sublayers = ""
        for child in Self.ordered(node.children, values) { draw(child, values, into: &sublayers, depth: depth + 2) }
        if !sublayers.isEmpty {
            let s = Self.flat(v.transform("sublayerTransform"))
            if s.isIdentity || !s.isFinite {
                content += "\(inner)<g>\n" + sublayers + "\(inner)</g>\n"
            } else {
                let anchor = v.point("anchorPoint")
                let pivot = Point(x: bounds.origin.x + anchor.x * bounds.size.width, y: bounds.origin.y + anchor.y * bounds.size.height)
                let about = AffineTransform.translation(x: -pivot.x, y: -pivot.y).concatenating(s)
                    .concatenating(.translation(x: pivot.x, y: pivot.y))
                content += "\(inner)<g transform=\"\(Self.matrix(about))\">\n" + sublayers + "\(inner)</g>\n"
            }
        }
        let border = v.scalar("borderWidth")
        if border.isFinite, border > 0, let stroke = Self.paint("stroke", v.color("borderColor")) {
            let w = min(border, abs(bounds.size.width) / 2, abs(bounds.size.height) / 2)
            let r = max(0, radius - w / 2)
            content += "\(inner)<rect x=\"\(SVG.number(bounds.origin.x + w / 2))\" y=\"\(SVG.number(bounds.origin.y + w / 2))\" width=\"\(SVG.number(abs(bounds.size.width) - w))\" height=\"\(SVG.number(abs(bounds.size.height) - w))\""
                + (r > 0 ? " rx=\"\(SVG.number(r))\"" : "") + " fill=\"none\" \(stroke) stroke-width=\"\(SVG.number(w))\"/>\n"
        }

        let shadowOpacity = min(v.scalar("shadowOpacity"), 1), shadowRadius = v.scalar("shadowRadius")
        let offset: Size = { if case .size(let s)? = v.value("shadowOffset") { return s } else { return Size(width: 0, height: -3) } }()
        if shadowOpacity > 0, shadowRadius.isFinite, offset.width.isFinite, offset.height.isFinite,
           let color = v.color("shadowColor"), Self.paint("fill", color) != nil {
            let id = "shadow-\(node.index)"
            let c = Self.paint("flood-color", Color(red: color.red, green: color.green, blue: color.blue, alpha: 1))!
            out += "\(inner)<filter id=\"\(id)\" x=\"-50%\" y=\"-50%\" width=\"200%\" height=\"200%\"><feDropShadow dx=\"\(SVG.number(offset.width))\" dy=\"\(SVG.number(offset.height))\" stdDeviation=\"\(SVG.number(max(shadowRadius, 0) / 2))\" \(c) flood-opacity=\"\(SVG.number(shadowOpacity * min(max(color.alpha, 0), 1)))\"/></filter>\n"
            out += "\(inner)<g filter=\"url(#\(id))\">\n" + content + "\(inner)</g>\n"
        } else {
            out += content
        }
        out += "\(indent)</g>\n"
    }

    /// The default canvas: it holds every top-level layer's frame (its bounds through its
    /// placement) in the model state and at 60 times over the scene's animations (until the
    /// last one ends, or two cycles of one that repeats forever), with the smallest left and
    /// top margins mirrored on the right and bottom; at least 1 × 1, at most 16384 × 16384.
    static func defaultSize(_ evaluation: SceneEvaluation) -> Size {
        var minX = Double.infinity, minY = Double.infinity, maxX = 1.0, maxY = 1.0
        var tops: [Int] = []
        var index = 0
        for layer in evaluation.scene.layers {
            tops.append(index)
            index += layer.flattenedCount
        }
        func include(bounds b: Rect, anchor: Point, position: Point, transform: Transform3D) {
            for p in corners(of: b, placed: placement(bounds: b, anchor: anchor, position: position, transform: transform)) {
                guard p.x.isFinite, p.y.isFinite else { continue }
                minX = min(minX, p.x)
                minY = min(minY, p.y)
                maxX = max(maxX, p.x)
                maxY = max(maxY, p.y)
            }
        }
        func include(_ v: LayerValues) {
            include(bounds: v.rect("bounds"), anchor: v.point("anchorPoint"), position: v.point("position"), transform: v.transform("transform"))
        }
        for i in tops { include(LayerValues(reported: [:], layer: evaluation.layers[i])) }
        // Only the values that place a layer move its frame: the layers that animate one are
        // sampled, reading those four slots (resolved once, the model's value where there is no
        // slot) and nothing else. Building whole frames of every layer made sizing the canvas 85 %
        // of rendering 100,000 layers.
        let span = tops.map { SceneEvaluation.plotDuration(of: evaluation.layers[$0]) }.max() ?? 0
        struct Sampled {
            var bounds: SlotHandle?, anchor: SlotHandle?, position: SlotHandle?, transform: SlotHandle?
            var model: (bounds: Rect, anchor: Point, position: Point, transform: Transform3D)
        }
        var sampled: [Sampled] = []
        for i in tops {
            let layer = evaluation.layers[i]
            let moves = layer.animations.contains { animation in
                animation.leaves.contains { leaf in
                    ["bounds", "anchorPoint", "position", "transform"].contains(AnimationKeyPath.split(leaf.animation.keyPath).property)
                        || (leaf.animation as? KeyframeAnimation).map { $0.rotationMode != nil && $0.path != nil } == true
                }
            }
            guard moves else { continue }
            let id = LayerID(UInt64(i + 1)), store = evaluation.store, model = LayerValues(reported: [:], layer: layer)
            sampled.append(Sampled(bounds: store.slot(layer: id, property: "bounds"), anchor: store.slot(layer: id, property: "anchorPoint"),
                                   position: store.slot(layer: id, property: "position"), transform: store.slot(layer: id, property: "transform"),
                                   model: (model.rect("bounds"), model.point("anchorPoint"), model.point("position"), model.transform("transform"))))
        }
        if !sampled.isEmpty {
            let evaluator = evaluation.evaluator
            for k in 0...60 {
                evaluator.evaluate(at: span * Double(k) / 60)
                for s in sampled {
                    var (bounds, anchor, position, transform) = s.model
                    if let slot = s.bounds, case .rect(let r)? = evaluator.value(of: slot) { bounds = r }
                    if let slot = s.anchor, case .point(let p)? = evaluator.value(of: slot) { anchor = p }
                    if let slot = s.position, case .point(let p)? = evaluator.value(of: slot) { position = p }
                    if let slot = s.transform, case .transform(let t)? = evaluator.value(of: slot) { transform = t }
                    include(bounds: bounds, anchor: anchor, position: position, transform: transform)
                }
            }
        }
        let width = maxX + max(0, minX.isFinite ? minX : 0), height = maxY + max(0, minY.isFinite ? minY : 0)
        return Size(width: min(max(width.rounded(.up), 1), 16384), height: min(max(height.rounded(.up), 1), 16384))
    }

    /// A page that plays `frames` (file names beside it) at `fps`, with play/pause, a slider and
    /// the scene time; it needs no network and no other file.
    public static func indexHTML(frames: [String], fps: Double, size: Size, title: String = "animation-engine render") -> String {
        let list = frames.map { JSON.string($0).text }.joined(separator: ",")
        return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(SVG.escape(title))</title>
        <style>
        body { font-family: Helvetica, Arial, sans-serif; margin: 16px; }
        #frame { border: 1px solid #ccc; display: block; margin-bottom: 8px; }
        #controls { display: flex; gap: 12px; align-items: center; }
        #slider { width: \(Int(max(size.width, 200)) - 160)px; }
        </style>
        </head>
        <body>
        <img id="frame" width="\(SVG.number(size.width))" height="\(SVG.number(size.height))" alt="frame">
        <div id="controls"><button id="play">Pause</button><input id="slider" type="range" min="0" value="0"><span id="time"></span></div>
        <script>
        const frames = [\(list)];
        const fps = \(JSON.format(fps));
        const img = document.getElementById("frame"), slider = document.getElementById("slider");
        const label = document.getElementById("time"), button = document.getElementById("play");
        const cache = frames.map(name => { const i = new Image(); i.src = name; return i; });
        let current = 0, playing = true, timer = null;
        slider.max = Math.max(frames.length - 1, 0);
        function show(k) {
          current = k;
          img.src = cache[k].src;
          slider.value = k;
          label.textContent = "t = " + (k / fps).toFixed(3) + " s (frame " + (k + 1) + " of " + frames.length + ")";
        }
        function tick() { show((current + 1) % frames.length); }
        function setPlaying(p) {
          playing = p;
          button.textContent = p ? "Pause" : "Play";
          if (timer) { clearInterval(timer); timer = null; }
          if (p && frames.length > 1) { timer = setInterval(tick, 1000 / fps); }
        }
        button.onclick = () => setPlaying(!playing);
        slider.oninput = () => { setPlaying(false); show(Number(slider.value)); };
        if (frames.length > 0) { show(0); setPlaying(true); }
        </script>
        </body>
        </html>

        """
    }
}

extension SceneLayer {
    /// This layer and all its sublayers, counted.
    var flattenedCount: Int { 1 + sublayers.reduce(0) { $0 + $1.flattenedCount } }
}
