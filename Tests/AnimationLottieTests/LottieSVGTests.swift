import AnimationCore
import AnimationLottie
import Testing

/// Pictures of a frame (`animation-engine lottie render`): the geometry's nodes as SVG paths.
@Suite("Lottie SVG")
struct LottieSVGTests {
    @Test("a frame as SVG: each node back to front, fills with their total opacity, strokes with width, ends and joins")
    func frameAsSVG() throws {
        let svg = try lottieFile("shapes-ellipse-stroke").svg(atFrame: 0, size: 100)
        let paths = svg.split(separator: "\n").filter { $0.hasPrefix("<path") }
        #expect(paths.count == 2)
        #expect(paths[0].contains(##"fill="#336699" fill-opacity="0.8""##) && paths[0].contains(#"d="M30 20C38.284 20 45 24.477 45 30"#))
        #expect(paths[1].contains(##"fill="none" stroke="#000000" stroke-opacity="0.4" stroke-width="2" stroke-linecap="round" stroke-linejoin="round""##))
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100""#) && svg.hasSuffix("</svg>\n"))
        // Butt ends and miter joins where the file says so (lc 1, lj 1, ml 10).
        let json = """
        {"fr":30,"ip":0,"op":1,"w":10,"h":10,"layers":[{"ddd":0,"ty":4,"ip":0,"op":1,"ks":{},"shapes":[
          {"ty":"rc","p":{"a":0,"k":[5,5]},"s":{"a":0,"k":[4,4]}},
          {"ty":"st","c":{"a":0,"k":[1,0,0]},"o":{"a":0,"k":100},"w":{"a":0,"k":1},"lc":1,"lj":1,"ml":10}]}]}
        """
        #expect(try LottieAnimation(json: json).svg(atFrame: 0, size: 10)
            .contains(#"stroke-linecap="butt" stroke-linejoin="miter" stroke-miterlimit="10""#))
    }

    @Test("a node inside a clipping precomposition is drawn through a clipPath of its clip; one without, as before")
    func clipsAsClipPaths() throws {
        let svg = try lottieFile("precomposition-clips").svg(atFrame: 0, size: 200)
        let lines = svg.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("<clipPath") }.count == 3)
        #expect(lines.contains(#"<clipPath id="clip2"><path d="M150 40L150 100L50 100L50 40L150 40Z"/></clipPath>"#))
        let paths = lines.filter { $0.hasPrefix("<path") }
        #expect(paths.count == 4 && paths.filter { $0.contains("clip-path=") }.count == 3)
        #expect(paths[2].hasSuffix(#"clip-path="url(#clip2)"/>"#), "A's solid, through A's rectangle")
        #expect(!paths[0].contains("clip-path"), "the same solid through a layer without w and h")
    }
}
