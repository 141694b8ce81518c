import AnimationCore
import AnimationLottie
import Foundation
import Testing

/// What a file draws (the geometry of issue "Lottie at scale"), feature by feature of L1, on
/// files written for these tests; each expectation is worked out by hand from lottie §1–§4.
@Suite("Lottie geometry (lottie §1–§4)")
struct LottieGeometryTests {
    @Test("§4.4 rectangles as rlottie builds them: d = 1 and d = 3, rounded corners with handles 0.5523·r, roundness clamped")
    func rectangles() throws {
        // 200 × 100 fitted into 200 × 200: scale 1, moved down by 50. Painter's order: the last group first.
        let nodes = try lottieFile("shapes-rectangles").nodes(atFrame: 0, size: 200)
        #expect(nodes.map { $0.fill } == [Color(red: 1, green: 1, blue: 0), Color(red: 0, green: 0, blue: 1),
                                           Color(red: 0, green: 1, blue: 0), Color(red: 1, green: 0, blue: 0)])
        #expect(spelled(nodes[3].path) == ["M 50 70", "L 50 90", "L 10 90", "L 10 70", "L 50 70", "Z"])
        #expect(spelled(nodes[2].path) == ["M 110 70", "L 70 70", "L 70 90", "L 110 90", "L 110 70", "Z"])
        let k = LottieAnimation.handleFactor * 5
        #expect(spelled(nodes[1].path) == spelled({
            var p = Path()
            p.move(to: Point(x: 50, y: 115)); p.addLine(to: Point(x: 50, y: 125))
            p.addCurve(to: Point(x: 45, y: 130), control1: Point(x: 50, y: 125 + k), control2: Point(x: 45 + k, y: 130))
            p.addLine(to: Point(x: 15, y: 130))
            p.addCurve(to: Point(x: 10, y: 125), control1: Point(x: 15 - k, y: 130), control2: Point(x: 10, y: 125 + k))
            p.addLine(to: Point(x: 10, y: 115))
            p.addCurve(to: Point(x: 15, y: 110), control1: Point(x: 10, y: 115 - k), control2: Point(x: 15 - k, y: 110))
            p.addLine(to: Point(x: 45, y: 110))
            p.addCurve(to: Point(x: 50, y: 115), control1: Point(x: 45 + k, y: 110), control2: Point(x: 50, y: 115 - k))
            p.closeSubpath()
            return p
        }()))
        // r = 50 on a 40 × 20 rectangle is clamped to 10: the short sides shrink to lines of length
        // 0, kept as rlottie draws them (each corner: a line to its start, a cubic).
        let q = LottieAnimation.handleFactor * 10
        #expect(spelled(nodes[0].path) == spelled({
            var p = Path()
            p.move(to: Point(x: 110, y: 120))
            p.addLine(to: Point(x: 110, y: 120))
            p.addCurve(to: Point(x: 100, y: 110), control1: Point(x: 110, y: 120 - q), control2: Point(x: 100 + q, y: 110))
            p.addLine(to: Point(x: 80, y: 110))
            p.addCurve(to: Point(x: 70, y: 120), control1: Point(x: 80 - q, y: 110), control2: Point(x: 70, y: 120 - q))
            p.addLine(to: Point(x: 70, y: 120))
            p.addCurve(to: Point(x: 80, y: 130), control1: Point(x: 70, y: 120 + q), control2: Point(x: 80 - q, y: 130))
            p.addLine(to: Point(x: 100, y: 130))
            p.addCurve(to: Point(x: 110, y: 120), control1: Point(x: 100 + q, y: 130), control2: Point(x: 110, y: 120 + q))
            p.closeSubpath()
            return p
        }()))
    }

    @Test("§4.4 §4.2 ellipses both ways; a paint covers every path above it; a stroke's width scales with its layer")
    func ellipsesAndStroke() throws {
        let nodes = try lottieFile("shapes-ellipse-stroke").nodes(atFrame: 0, size: 100)
        #expect(nodes.count == 2)
        // The fill (last item) first, covering both ellipses; then the stroke, covering the first.
        let fill = nodes[0], stroke = nodes[1]
        #expect(fill.fill == Color(red: 0.2, green: 0.4, blue: 0.6) && fill.stroke == nil && fill.opacity == 0.8)
        #expect(stroke.stroke == Color(red: 0, green: 0, blue: 0) && stroke.fill == nil)
        #expect(near(stroke.opacity, 0.4) && near(stroke.strokeWidth, 2), "80 % layer × 50 % stroke; width 4 at scale 50 %")
        // Layer: scale 50 %, at (10, 10). Ellipse 1: centre (40, 40), 60 × 40 → centre (30, 30), radii 15 × 10.
        let kx = LottieAnimation.handleFactor * 15, ky = LottieAnimation.handleFactor * 10
        #expect(spelled(stroke.path) == spelled({
            var p = Path()
            p.move(to: Point(x: 30, y: 20))
            p.addCurve(to: Point(x: 45, y: 30), control1: Point(x: 30 + kx, y: 20), control2: Point(x: 45, y: 30 - ky))
            p.addCurve(to: Point(x: 30, y: 40), control1: Point(x: 45, y: 30 + ky), control2: Point(x: 30 + kx, y: 40))
            p.addCurve(to: Point(x: 15, y: 30), control1: Point(x: 30 - kx, y: 40), control2: Point(x: 15, y: 30 + ky))
            p.addCurve(to: Point(x: 30, y: 20), control1: Point(x: 15, y: 30 - ky), control2: Point(x: 30 - kx, y: 20))
            p.closeSubpath()
            return p
        }()))
        // Ellipse 2 (d = 3): centre (60, 60), radius 5, the other way round from the top.
        let k = LottieAnimation.handleFactor * 5
        #expect(Array(spelled(fill.path).suffix(6)) == spelled({
            var p = Path()
            p.move(to: Point(x: 60, y: 55))
            p.addCurve(to: Point(x: 55, y: 60), control1: Point(x: 60 - k, y: 55), control2: Point(x: 55, y: 60 - k))
            p.addCurve(to: Point(x: 60, y: 65), control1: Point(x: 55, y: 60 + k), control2: Point(x: 60 - k, y: 65))
            p.addCurve(to: Point(x: 65, y: 60), control1: Point(x: 60 + k, y: 65), control2: Point(x: 65, y: 60 + k))
            p.addCurve(to: Point(x: 60, y: 55), control1: Point(x: 65, y: 60 - k), control2: Point(x: 60 + k, y: 55))
            p.closeSubpath()
            return p
        }()))
    }

    @Test("§4.3 paths: one cubic per segment, closed with a last cubic and Z; a morph vertex by vertex; group opacity")
    func pathsAndMorphs() throws {
        let file = try lottieFile("shapes-path-morph")
        let start = file.nodes(atFrame: 0, size: 100), middle = file.nodes(atFrame: 5, size: 100)
        #expect(spelled(start[1].path) == ["M 10 10", "C 10 10 50 10 50 10", "C 50 10 30 40 30 40", "C 30 40 10 10 10 10", "Z"])
        // Halfway (linear easing): every vertex and tangent halfway to the "e" path.
        #expect(spelled(middle[1].path) == ["M 15 15", "C 17.5 15 52.5 15 55 15", "C 55 15 35 50 35 50", "C 35 50 15 15 15 15", "Z"])
        // After the last key (which has only "t"), the end of the last segment holds.
        #expect(spelled(file.nodes(atFrame: 15, size: 100)[1].path).first == "M 20 20")
        // The open path in a 50 % group: stroked by the group's stroke, drawn first (the group is last).
        #expect(spelled(start[0].path) == ["M 0 90", "C 10 90 40 90 50 90", "C 50 90 100 80 100 80"])
        #expect(start[0].opacity == 0.5 && start[0].strokeWidth == 2)
        // The same builder for a Bézier on its own, and moved by a transform.
        let triangle = LottieBezier(closed: true, vertices: [Point(x: 10, y: 10), Point(x: 50, y: 10), Point(x: 30, y: 40)],
                                    inTangents: [Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 0)],
                                    outTangents: [Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 0)])
        #expect(spelled(triangle.path()) == spelled(start[1].path))
        #expect(spelled(triangle.path(transform: .translation(x: 1, y: 2))).first == "M 11 12")
    }

    @Test("§4.6 one node per paint with every path it paints; a group's opacity around a path only is not applied (as rlottie draws it)")
    func groupOpacityUnderAnOuterPaint() throws {
        let nodes = try lottieFile("group-opacity").nodes(atFrame: 0, size: 100)
        // The fill is outside every group: layer 90 % × fill 80 %, whatever the groups' 50 %, 25 %.
        #expect(nodes.count == 1)
        #expect(near(nodes[0].opacity, 0.72, 1e-12) && nodes[0].fill == Color(red: 1, green: 0, blue: 0))
        // Its four subpaths in document order: the half group's square, the ellipse (its group
        // moved down 10), the nested square, the last square.
        let moves = nodes[0].path.elements.compactMap { if case .move(let p) = $0 { p } else { nil } }
        #expect(moves == [Point(x: 25, y: 15), Point(x: 50, y: 50), Point(x: 85, y: 25), Point(x: 25, y: 75)])
    }

    @Test("§3.2 §3.3 anchor, scale, rotation and position; a parent's matrix (not its opacity); split position")
    func transformsAndParenting() throws {
        let file = try lottieFile("transforms-parenting")
        let nodes = file.nodes(atFrame: 0, size: 100)
        // Child: its 10 × 10 square less the anchor (5, 5), scaled 2 × 1, at (20, 0); then the
        // parent's quarter turn (x, y) → (−y, x) and its position (50, 50).
        #expect(spelled(nodes[1].path) == ["M 55 80", "L 45 80", "L 45 60", "L 55 60", "L 55 80", "Z"])
        #expect(nodes[1].opacity == 0.5, "the child's own 50 %: parenting passes no opacity")
        // The split position moves x alone: 0 → 100 over frames 0…10, y stays 80.
        #expect(start(nodes[0]) == Point(x: 1, y: 79))
        #expect(start(file.nodes(atFrame: 5, size: 100)[0]) == Point(x: 51, y: 79))
        #expect(start(file.nodes(atFrame: 20, size: 100)[0]) == Point(x: 101, y: 79))
    }

    @Test("§2.2–§2.5 keyframes: s-only keys, per-dimension easing, holds, two keys at one frame, before and after")
    func keyframes() throws {
        let file = try lottieFile("keyframes")
        func at(_ f: Double) -> Point {
            let p = start(file.nodes(atFrame: f, size: 100)[0])!
            return Point(x: p.x - 1, y: p.y + 1)   // the marker's centre
        }
        #expect(at(0) == Point(x: 0, y: 0))
        // x eases linearly, y by its own curve (the spec's per-dimension easing; rlottie uses the first).
        let y = try TimingFunction(controlPoints: 0.8, 0, 0.9, 0.3).value(at: 0.5) * 40
        #expect(at(5).x == 20 && near(at(5).y, y) && !near(y, 20, 1))
        #expect(at(10) == Point(x: 40, y: 40) && at(15) == Point(x: 40, y: 40), "held until the next key")
        #expect(at(20) == Point(x: 60, y: 60))
        #expect(near(at(25).x, 70) && near(at(25).y, 40), "ease in-out, halfway")
        #expect(at(30) == Point(x: 10, y: 90), "two keys at frame 30: the later one")
        #expect(at(35) == Point(x: 15, y: 90))
        #expect(at(40) == Point(x: 20, y: 90) && at(59) == Point(x: 20, y: 90), "the last key holds")
    }

    @Test("§2.6 §3.4 a position along curved tangents by arc length, the layer turned along its direction of travel")
    func spatialTangentsAndAutoOrient() throws {
        let file = try lottieFile("spatial-auto-orient")
        // Frame 0: heading straight up (tangent (0, −40)): the 10 × 2 marker stands upright.
        #expect(spelled(file.nodes(atFrame: 0, size: 100)[0].path) == ["M 9 45", "L 11 45", "L 11 55", "L 9 55", "L 9 45", "Z"])
        // Frame 10: half the time, linear easing → half the arc length: the symmetric curve's apex
        // (50, 20), heading right.
        #expect(spelled(file.nodes(atFrame: 10, size: 100)[0].path) == ["M 55 19", "L 55 21", "L 45 21", "L 45 19", "L 55 19", "Z"])
        // By arc length, not by the curve's parameter: at frame 5 a quarter of the length is behind.
        let curve = { () -> PathMeasure in
            var p = Path()
            p.move(to: Point(x: 10, y: 50))
            p.addCurve(to: Point(x: 90, y: 50), control1: Point(x: 10, y: 10), control2: Point(x: 90, y: 10))
            return PathMeasure(p)
        }()
        let quarter = curve.point(atLength: curve.length / 4)
        let corners = file.nodes(atFrame: 5, size: 100)[0].path.elements.compactMap(\.endPoint)
        let centre = Point(x: (corners[0].x + corners[2].x) / 2, y: (corners[0].y + corners[2].y) / 2)
        #expect(near(centre.x, quarter.x, 1e-6) && near(centre.y, quarter.y, 1e-6))
    }

    @Test("§1.2 §3.1 precompositions: start time, stretch, visibility, opacity; a solid")
    func precompositionsAndSolids() throws {
        let file = try lottieFile("precomposition-solid")
        let early = file.nodes(atFrame: 0, size: 100)
        #expect(early.count == 2, "the stretched layer is shown from frame 5")
        #expect(spelled(early[0].path) == ["M 100 0", "L 100 100", "L 0 100", "L 0 0", "L 100 0", "Z"])
        #expect(early[0].fill == Color(red: 0x33 / 255.0, green: 0x66 / 255.0, blue: 0x99 / 255.0))
        // Plain: the child's frame is the file's; the mover's x is its frame (0…10, then 10).
        #expect(start(early[1]) == Point(x: 1, y: 49))
        #expect(start(file.nodes(atFrame: 7, size: 100)[1]) == Point(x: 8, y: 49))
        // Stretched: child frame = (f − 4) / 2, at the origin, through the layer's 50 %.
        let later = file.nodes(atFrame: 10, size: 100)
        #expect(later.count == 3 && start(later[2]) == Point(x: 4, y: -1) && later[2].opacity == 0.5)
        #expect(start(file.nodes(atFrame: 5, size: 100)[2]) == Point(x: 1.5, y: -1), "fractional child frames interpolate")
        #expect(file.nodes(atFrame: 30, size: 100).count == 2, "hidden again from its op")
    }

    @Test("§1.2 a layer's keys are on its composition's clock: its own st shifts nothing; st and sr map only a precomposition's children")
    func startTimesShiftOnlyChildren() throws {
        let file = try lottieFile("start-times")   // 200 × 200 at size 200: device pixels are the file's
        func node(_ f: Double, _ color: Color) -> LottieNode? { file.nodes(atFrame: f, size: 200).first { $0.fill == color } }
        let dot1 = Color(red: 0.9, green: 0.2, blue: 0.2), dot3 = Color(red: 0.2, green: 0.3, blue: 0.9)
        let child = Color(red: 0.8, green: 0.6, blue: 0.1), solid = Color(red: 0x33 / 255.0, green: 0x66 / 255.0, blue: 0xcc / 255.0)
        let inner = Color(red: 0.6, green: 0.1, blue: 0.6), innerSolid = Color(red: 1, green: 0xaa / 255.0, blue: 0)
        let innermost = Color(red: 0.1, green: 0.6, blue: 0.6)
        // st −62: the keys 0 → 30 (y 100 → 60) are read at frame 15 itself, halfway (shifting by st
        // would read frame 77, past the last key: y 100). The marker starts at its corner (+6, −6).
        #expect(node(15, dot1).flatMap(start) == Point(x: 46, y: 74))
        // st 20, shown 20 ≤ f < 50; opacity keys 20 → 40 (40 → 100 %) read at f, not f − 20.
        #expect(node(19, dot3) == nil && node(20, dot3)?.opacity == 0.4 && node(49, dot3)?.opacity == 1 && node(50, dot3) == nil)
        #expect(near(node(30, dot3)!.opacity, 0.7, 1e-12))
        // A null parent with st −10 moving 0 → 40 over frames 0 … 40, its child (st 5, shown
        // 5 … 55) turning 0 → 90° over frames 5 … 45: at 25, the null at x 25, the child at 45°.
        let c = 0.5.squareRoot()
        let corner = start(try #require(node(25, child)))!
        #expect(near(corner.x, 20 + 25 + 15 * c, 1e-9) && near(corner.y, 160 + 5 * c, 1e-9))
        #expect(node(4, child) == nil && node(5, child) != nil && node(54, child) != nil && node(55, child) == nil)
        // A solid with st 15, shown 10 … 45, opacity 100 → 20 % over frames 10 … 40.
        #expect(node(9, solid) == nil && node(44, solid) != nil && node(45, solid) == nil)
        #expect(near(node(25, solid)!.opacity, 0.6, 1e-12) && node(25, solid).flatMap(start) == Point(x: 180, y: 20))
        // The precomposition (st 10, sr 2; its own position keys on the root clock, 100 → 140 over
        // 0 … 60, anchor 50): its children read (f − 10) / 2. At 30: child frame 10, the inner
        // shape (st −5, its own keys 0 → 20 turning 0 → 90°) at 45° — not at 67.5° (frame 15).
        let turned = start(try #require(node(30, inner)))!
        #expect(near(turned.x, 30 + 20 * c - 50 + 120, 1e-9) && near(turned.y, 30 - 50 + 100, 1e-9))
        // The inner solid (shown 5 … 15 on the child clock): root frames 20 … 40.
        #expect(node(18, innerSolid) == nil && node(20, innerSolid) != nil && node(38, innerSolid) != nil && node(40, innerSolid) == nil)
        // The nested precomposition (st 4, sr 0.5, shown 2 … 18 on the child clock) reads
        // 2 · (child − 4): at 30, 12 → x 10 + 60 · 12/30 = 34; at 19 (child 4.5), 1 → x 12. Its
        // shape is shown from its own frame 0: child 4, root 18; until the nested op, root 46.
        #expect(node(30, innermost).flatMap(start) == Point(x: 34 + 4 - 50 + 120, y: 66 - 50 + 100))
        let odd = start(try #require(node(19, innermost)))!
        #expect(near(odd.x, 12 + 4 - 50 + 100 + 40 * 19 / 60.0, 1e-9) && odd.y == 116)
        #expect(node(17, innermost) == nil && node(18, innermost) != nil && node(44, innermost) != nil && node(46, innermost) == nil)
    }

    @Test("§1.2 time remap: the child's clock is tm (seconds) times the frame rate")
    func timeRemap() throws {
        let file = try lottieFile("precomposition-remap")
        // tm runs 0.5 s → 0.7 s over frames 0…20 at 10 fps: child frames 5 → 7, then 7.
        #expect(start(file.nodes(atFrame: 0, size: 100)[0]) == Point(x: 6, y: 49))
        #expect(start(file.nodes(atFrame: 10, size: 100)[0]) == Point(x: 7, y: 49))
        #expect(near(start(file.nodes(atFrame: 15, size: 100)[0])!.x, 7.5, 1e-12))
        #expect(start(file.nodes(atFrame: 30, size: 100)[0]) == Point(x: 8, y: 49))
    }

    @Test("§4.5 trim paths: parallel, sequential, an offset range wrapping past the end")
    func trimPaths() throws {
        let nodes = try lottieFile("trims").nodes(atFrame: 0, size: 100)
        func ends(_ node: LottieNode) -> [String] {
            node.path.elements.compactMap { e -> String? in
                switch e {
                case .move(let p): "M \(p.x.rounded()) \(p.y.rounded())"
                case .curve(let p, _, _): "to \(p.x.rounded()) \(p.y.rounded())"
                default: nil
                }
            }
        }
        // Painter's order: the last layer (wrapping) first.
        let parallel = nodes[2].path.elements.compactMap(\.endPoint)
        #expect(parallel.count == 4 && near(parallel[0].x, 25) && near(parallel[1].x, 75) && parallel[1].y == 10
                && near(parallel[2].x, 12.5) && near(parallel[3].x, 37.5) && parallel[3].y == 20, "25–75 % of each path")
        #expect(ends(nodes[1]) == ["M 75.0 30.0", "to 100.0 30.0", "M 0.0 40.0", "to 50.0 40.0"],
                "50–100 % of both as one: the last quarter of the first, all of the second")
        // 20–70 % moved by −216° (0.4 of a turn): 60–110 %, drawn as 0–10 % then 60–100 %.
        #expect(ends(nodes[0]) == ["M 0.0 50.0", "to 10.0 50.0", "M 60.0 50.0", "to 100.0 50.0"])
    }

    @Test("§4.5 §4.6 trims after their paint, a range wrapping as [0, e] then [s, 1], trims composing in document order, sequential runs, width through a non-uniform scale")
    func trimsAndPaints() throws {
        let file = try lottieFile("paints-and-trims")   // 256 × 256 at size 256: the file's own pixels
        func node(_ f: Double, _ stroke: Color) throws -> LottieNode {
            try #require(file.nodes(atFrame: f, size: 256).first { $0.stroke == stroke })
        }
        // A trim listed after its paint still trims it: 10 % to 35 % at frame 15 (its end moving
        // 10 → 60 % over frames 5 … 25) of the 200-pixel rectangle from its right top corner (90, 180).
        #expect(spelled(try node(15, Color(red: 1, green: 0, blue: 1)).path) == ["M 90 200", "L 90 220", "L 60 220"])
        // 72 % … 100 % moved by 90° (a quarter) at frame 25: 97 % … 125 %, drawn as [0, 25 %], then
        // [97 %, 100 %], each run starting with M and without Z.
        #expect(spelled(try node(25, Color(red: 0.5, green: 0.5, blue: 0)).path)
                == ["M 180 180", "L 180 220", "L 170 220", "M 174 180", "L 180 180"])
        // 0 … 80 %, then 25 … 75 % of what is left (128 of 160 pixels): 32 … 96 of the original.
        #expect(spelled(try node(15, Color(red: 0, green: 0.5, blue: 0.5)).path) == ["M 240 212", "L 240 220", "L 200 220", "L 200 204"])
        // Sequential: both rectangles as one path of 200 pixels, 25 % … 68.75 % at frame 10: from
        // 50 along the first (120) to 17.5 along the second.
        #expect(spelled(try node(10, Color(red: 0.2, green: 0.2, blue: 0.2)).path)
                == ["M 35 135", "L 25 135", "L 25 105", "L 55 105", "M 100 110", "L 100 127.5"])
        // Stroke width 2 in a group scaled 200 × 50 % and turned 30°: 2 · |M·(1, 1)| / √2.
        let (cosine, sine) = (cos(Double.pi / 6), sin(Double.pi / 6))
        let m = (a: 2 * cosine, b: 2 * sine, c: -0.5 * sine, d: 0.5 * cosine)
        let width = 2 * ((m.a + m.c) * (m.a + m.c) + (m.b + m.d) * (m.b + m.d)).squareRoot() / 2.0.squareRoot()
        #expect(near(try node(0, Color(red: 1, green: 0.5, blue: 0)).strokeWidth, width, 1e-12))
        // One fill over paths in groups of 50 % and 25 %: one node of two subpaths at the fill's 80 %.
        let fill = try #require(file.nodes(atFrame: 0, size: 256).first { $0.fill == Color(red: 0, green: 1, blue: 1) })
        #expect(fill.opacity == 0.8 && fill.path.elements.filter { if case .move = $0 { true } else { false } }.count == 2)
    }

    @Test("precomposition clips: w × h through the layer's matrix, nested clips intersecting, none without w and h; in the geometry document")
    func precompositionClips() throws {
        let file = try lottieFile("precomposition-clips")   // 200 × 200 at size 200
        let nodes = file.nodes(atFrame: 0, size: 200)
        let solid = Color(red: 0x44 / 255.0, green: 0x88 / 255.0, blue: 0xcc / 255.0), disc = Color(red: 0.9, green: 0.5, blue: 0.1)
        // A: 100 × 60 at (50, 40). Its solid reaches outside; its clip is A's rectangle, (w, 0) first.
        let clipped = try #require(nodes.first { $0.fill == solid && $0.clip != nil })
        #expect(spelled(clipped.clip!) == ["M 150 40", "L 150 100", "L 50 100", "L 50 40", "L 150 40", "Z"])
        // The same composition through a layer without w and h: its solid is not clipped.
        #expect(nodes.filter { $0.fill == solid }.count == 2 && nodes.contains { $0.fill == solid && $0.clip == nil })
        // B: 80 × 80 about its centre (40, 40), turned 30°, placed at (80, 30) in A's composition.
        let c = cos(Double.pi / 6), s = sin(Double.pi / 6)
        func square(_ m: (Point) -> Point) -> [Point] {
            [Point(x: 80, y: 0), Point(x: 80, y: 80), Point(x: 0, y: 80), Point(x: 0, y: 0)].map { p in
                let q = Point(x: p.x - 40, y: p.y - 40)
                return m(Point(x: q.x * c - q.y * s + 80, y: q.x * s + q.y * c + 30))
            }
        }
        // Through the unclipping layer (50 %, at (20, 130)): B's rectangle alone.
        let alone = square { Point(x: $0.x * 0.5 + 20, y: $0.y * 0.5 + 130) }
        let small = try #require(nodes.first { $0.fill == disc && start($0)!.y > 110 })
        #expect(corners(small.clip!).count == 4 && zip(corners(small.clip!), alone).allSatisfy { near($0.x, $1.x, 1e-9) && near($0.y, $1.y, 1e-9) })
        // Through A: B's rectangle within A's — the corners of each inside the other and the
        // crossings of their edges, found here independently of the clipping code.
        let b = square { Point(x: $0.x + 50, y: $0.y + 40) }
        let a = [Point(x: 150, y: 40), Point(x: 150, y: 100), Point(x: 50, y: 100), Point(x: 50, y: 40)]
        var expected = b.filter { inside($0, a) } + a.filter { inside($0, b) }
        for i in 0..<4 {
            for j in 0..<4 { if let p = crossing(a[i], a[(i + 1) % 4], b[j], b[(j + 1) % 4]) { expected.append(p) } }
        }
        let nested = try #require(nodes.first { $0.fill == disc && start($0)!.y < 110 })
        let found = corners(nested.clip!)
        #expect(found.count == 5 && expected.count == 5, "\(found) against \(expected)")
        #expect(found.allSatisfy { p in expected.contains { near($0.x, p.x, 1e-9) && near($0.y, p.y, 1e-9) } })
        // The geometry document carries it after the opacity; a node outside every clip has none.
        let document = try file.geometryJSON(frames: [0], size: 200)
        #expect(document.contains("\"opacity\":1,\"clip\":[[\"M\",150,40],[\"L\",150,100],[\"L\",50,100],[\"L\",50,40],[\"L\",150,40],[\"Z\"]]}"))
        #expect(document.components(separatedBy: "\"clip\"").count - 1 == 3)
    }

    /// A clip's corners: its moves and lines, less the line back to the first.
    func corners(_ clip: Path) -> [Point] {
        Array(clip.elements.compactMap { e -> Point? in
            switch e {
            case .move(let p), .line(let p): p
            default: nil
            }
        }.dropLast())
    }

    /// Inside (or on) the convex polygon `polygon`.
    func inside(_ p: Point, _ polygon: [Point]) -> Bool {
        let sides = polygon.indices.map { k -> Double in
            let a = polygon[k], b = polygon[(k + 1) % polygon.count]
            return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
        }
        return sides.allSatisfy { $0 >= -1e-9 } || sides.allSatisfy { $0 <= 1e-9 }
    }

    /// Where segments p–q and r–s cross (not at their ends), if they do.
    func crossing(_ p: Point, _ q: Point, _ r: Point, _ s: Point) -> Point? {
        let d = (q.x - p.x) * (s.y - r.y) - (q.y - p.y) * (s.x - r.x)
        guard d != 0 else { return nil }
        let t = ((r.x - p.x) * (s.y - r.y) - (r.y - p.y) * (s.x - r.x)) / d
        let u = ((r.x - p.x) * (q.y - p.y) - (r.y - p.y) * (q.x - p.x)) / d
        guard t > 1e-12, t < 1 - 1e-12, u > 1e-12, u < 1 - 1e-12 else { return nil }
        return Point(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t)
    }

    @Test("the geometry document: its exact format, frames outside ip…op refused")
    func geometryDocument() throws {
        let json = """
        {"fr":30,"ip":0,"op":30,"w":100,"h":50,"layers":[{"ty":4,"ip":0,"op":30,"st":0,"ks":{},"shapes":[
          {"ty":"rc","p":{"a":0,"k":[50,25]},"s":{"a":0,"k":[20,10]},"r":{"a":0,"k":0}},
          {"ty":"st","c":{"a":0,"k":[0,0.5,1]},"o":{"a":0,"k":50},"w":{"a":0,"k":3}}]}]}
        """
        let file = try LottieAnimation(json: json)
        #expect(try file.geometryJSON(frames: [0, 7.5], size: 100) == """
        {"frames":[{"frame":0,"nodes":[{"path":[["M",60,45],["L",60,55],["L",40,55],["L",40,45],["L",60,45],["Z"]],"fill":null,"stroke":[0,0.5,1,1],"strokeWidth":3,"opacity":0.5}]},\
        {"frame":7.5,"nodes":[{"path":[["M",60,45],["L",60,55],["L",40,55],["L",40,45],["L",60,45],["Z"]],"fill":null,"stroke":[0,0.5,1,1],"strokeWidth":3,"opacity":0.5}]}]}
        """)
        #expect(throws: LottieError.invalid(path: "frames[1]", reason: "30 is not a frame of the file (0 ≤ f < 30)")) {
            try file.geometryJSON(frames: [0, 30], size: 100)
        }
        #expect(throws: LottieError.self) { try file.geometryJSON(frames: [.nan], size: 100) }
        #expect(throws: LottieError.self) { try file.geometryJSON(frames: [0], size: 0) }
    }
}
