import AnimationCore
import AnimationScene

extension LottieAnimation {
    /// Frame `frame` drawn as an SVG document of `size` × `size` pixels: each node of
    /// ``nodes(atFrame:size:)`` as a path, back to front, filled (non-zero winding) or stroked
    /// with its ends and joins) with its colour and total opacity, on a white background; a node
    /// inside precompositions with a size drawn through its ``LottieNode/clip`` (one `clipPath`
    /// per run of nodes sharing it; a node whose clip is empty is left out).
    public func svg(atFrame frame: Double, size: Double) -> String {
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(SVG.number(size))" height="\(SVG.number(size))" \
        viewBox="0 0 \(SVG.number(size)) \(SVG.number(size))">
        <rect width="100%" height="100%" fill="#ffffff"/>

        """
        var clips = 0, lastClip: Path?
        for node in nodes(atFrame: frame, size: size) {
            var clipAttribute = ""
            if let clip = node.clip {
                let region = SceneRenderer.pathData(clip)
                guard !region.isEmpty else { continue }   // clipped away entirely
                if clip != lastClip {
                    clips += 1
                    out += "<clipPath id=\"clip\(clips)\"><path d=\"\(region)\"/></clipPath>\n"
                    lastClip = clip
                }
                clipAttribute = " clip-path=\"url(#clip\(clips))\""
            }
            let d = SceneRenderer.pathData(node.path)
            // A paint that is not finite draws nothing, as in scenes (`hex` would trap on NaN).
            let paint = node.fill ?? node.stroke
            guard !d.isEmpty, let paint, node.opacity.isFinite, node.strokeWidth.isFinite || node.fill != nil,
                  [paint.red, paint.green, paint.blue, paint.alpha].allSatisfy(\.isFinite) else { continue }
            if let fill = node.fill {
                out += "<path d=\"\(d)\" fill=\"\(Self.hex(fill))\" fill-opacity=\"\(SVG.number(fill.alpha * node.opacity))\"\(clipAttribute)/>\n"
            } else if let stroke = node.stroke {
                let style = node.strokeStyle ?? LottieStrokeStyle()
                let cap = ["butt", "round", "square"][style.cap.rawValue - 1], join = ["miter", "round", "bevel"][style.join.rawValue - 1]
                out += "<path d=\"\(d)\" fill=\"none\" stroke=\"\(Self.hex(stroke))\" stroke-opacity=\"\(SVG.number(stroke.alpha * node.opacity))\" "
                    + "stroke-width=\"\(SVG.number(node.strokeWidth))\" stroke-linecap=\"\(cap)\" stroke-linejoin=\"\(join)\" "
                    + "stroke-miterlimit=\"\(SVG.number(style.miterLimit))\"\(clipAttribute)/>\n"
            }
        }
        return out + "</svg>\n"
    }

    static func hex(_ c: Color) -> String {
        func byte(_ v: Double) -> String {
            let b = v.isNaN ? 0 : Int((min(max(v, 0), 1) * 255).rounded())   // Int(_:) traps on NaN
            let digits = Array("0123456789abcdef")
            return String([digits[b / 16], digits[b % 16]])
        }
        return "#" + byte(c.red) + byte(c.green) + byte(c.blue)
    }
}
