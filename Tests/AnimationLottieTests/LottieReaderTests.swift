import AnimationCore
@testable import AnimationLottie
import Testing

/// Reading: the subset L1, the features outside it reported with their JSON paths, bad input
/// named where it is (lottie §5; the issue's "Deliver" 1).
@Suite("Lottie reader")
struct LottieReaderTests {
    @Test("§5 every feature outside L1 is reported with its JSON path; nothing is drawn wrong in silence")
    func outsideL1() throws {
        #expect(throws: LottieError.unsupported([
            LottieIssue(feature: "masks", path: "layers[0].masksProperties", isCosmetic: false),
            LottieIssue(feature: "mattes", path: "layers[0].tt", isCosmetic: false),
            LottieIssue(feature: "layer effects", path: "layers[0].ef", isCosmetic: true),
            LottieIssue(feature: "blend modes", path: "layers[0].bm", isCosmetic: true),
            LottieIssue(feature: "gradients", path: "layers[0].shapes[0].ty", isCosmetic: false),
            LottieIssue(feature: "repeaters", path: "layers[0].shapes[1].ty", isCosmetic: false),
            LottieIssue(feature: "merge paths", path: "layers[0].shapes[2].ty", isCosmetic: false),
            LottieIssue(feature: "polystars", path: "layers[0].shapes[3].ty", isCosmetic: false),
            LottieIssue(feature: "stroke dashes", path: "layers[0].shapes[4].d", isCosmetic: true),
            LottieIssue(feature: "expressions", path: "layers[0].ks.p.x", isCosmetic: false),
            LottieIssue(feature: "skew", path: "layers[0].ks.sk", isCosmetic: false),
            LottieIssue(feature: "text layers", path: "layers[1].ty", isCosmetic: false),
            LottieIssue(feature: "3D", path: "layers[2].ddd", isCosmetic: false),
            LottieIssue(feature: "image layers", path: "layers[2].ty", isCosmetic: false),
        ])) { try lottieFile("outside-l1") }
        // Lenient: the cosmetic ones are skipped and listed; the rest still refuse the file.
        #expect(throws: LottieError.self) { try lottieFile("outside-l1", lenient: true) }
    }

    @Test("--lenient skips what is purely cosmetic and says so")
    func lenientSkipsCosmetic() throws {
        let json = """
        {"fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":4,"ip":0,"op":10,"bm":1,"ks":{},"shapes":[
          {"ty":"rc","p":{"a":0,"k":[5,5]},"s":{"a":0,"k":[2,2]}},
          {"ty":"st","c":{"a":0,"k":[0,0,0]},"o":{"a":0,"k":100},"w":{"a":0,"k":1},"d":[{"n":"d","v":{"a":0,"k":2}}]}]}]}
        """
        #expect(throws: LottieError.self) { try LottieAnimation(json: json) }
        let file = try LottieAnimation(json: json, lenient: true)
        #expect(file.skipped.map(\.description) == ["blend modes at layers[0].bm", "stroke dashes at layers[0].shapes[1].d"])
        #expect(file.nodes(atFrame: 0, size: 10).count == 1)
    }

    @Test("malformed JSON is an error with its line and column")
    func syntax() {
        #expect(throws: LottieError.syntax("malformed JSON at line 2, column 1: unexpected character")) {
            try LottieAnimation(json: "{\"fr\":\n}")
        }
        #expect(throws: LottieError.self) { try LottieAnimation(json: String(repeating: "[", count: 100_000)) }
        #expect(throws: LottieError.self) { try LottieAnimation(json: "") }
    }

    @Test("missing or wrong values are errors naming their JSON path")
    func invalidValues() {
        func error(_ json: String) -> String? {
            do { _ = try LottieAnimation(json: json); return nil } catch { return "\(error)" }
        }
        let head = "\"fr\":30,\"ip\":0,\"op\":10,\"w\":10,\"h\":10"
        #expect(error("[]") == "must be an object (a Lottie file), not an array")
        #expect(error("{\"ip\":0}") == "fr: is missing")
        #expect(error("{\"fr\":0,\"ip\":0,\"op\":1,\"w\":1,\"h\":1,\"layers\":[]}") == "fr: must be positive (got 0.0)")
        #expect(error("{\"fr\":30,\"ip\":5,\"op\":5,\"w\":1,\"h\":1,\"layers\":[]}") == "op: must be greater than ip (5.0)")
        #expect(error("{\(head),\"layers\":[{\"ty\":4,\"ip\":0,\"op\":10,\"ks\":{\"p\":{\"a\":0,\"k\":\"x\"}}}]}")
                == "layers[0].ks.p.k: must be a number or an array of numbers, not a string")
        #expect(error("{\(head),\"layers\":[{\"ty\":4,\"ip\":0,\"op\":10,\"ks\":{\"o\":{\"a\":1,\"k\":[{\"t\":5,\"s\":[1]},{\"t\":2,\"s\":[0]}]}}}]}")
                == "layers[0].ks.o.k[1].t: goes back in time (2.0 after 5.0)")
        #expect(error("{\(head),\"layers\":[{\"ty\":4,\"ip\":0,\"op\":10,\"ks\":{},\"shapes\":[{\"ty\":\"gr\",\"it\":[{\"ty\":\"tr\"},{\"ty\":\"rc\",\"p\":{\"a\":0,\"k\":[0,0]}}]}]}]}")
                == "layers[0].shapes[0].it[1].s: must be an object with \"k\" (a property)")
        #expect(error("{\(head),\"layers\":[{\"ty\":0,\"refId\":\"nope\",\"ip\":0,\"op\":10,\"ks\":{}}]}")
                == "layers[0].refId: names no precomposition ('nope')")
        #expect(error("{\(head),\"assets\":[{\"id\":\"a\",\"layers\":[{\"ty\":0,\"refId\":\"a\",\"ip\":0,\"op\":10,\"ks\":{}}]}],\"layers\":[{\"ty\":0,\"refId\":\"a\",\"ip\":0,\"op\":10,\"ks\":{}}]}")
                == "assets(a).layers[0].refId: 'a' contains itself")
        #expect(error("{\(head),\"layers\":[{\"ty\":4,\"ip\":0,\"op\":10,\"ks\":{},\"shapes\":[{\"ty\":\"sh\",\"ks\":{\"a\":1,\"k\":[{\"t\":0,\"s\":[{\"c\":false,\"v\":[[0,0]],\"i\":[[0,0]],\"o\":[[0,0]]}]},{\"t\":5,\"s\":[{\"c\":false,\"v\":[[0,0],[1,1]],\"i\":[[0,0],[0,0]],\"o\":[[0,0],[0,0]]}]}]}}]}]}")
                == "layers[0].shapes[0].ks.k[1].s: has 2 vertices where key 0 has 1")
        #expect(error("{\(head),\"layers\":[{\"ty\":1,\"sw\":5,\"sh\":5,\"sc\":5,\"ip\":0,\"op\":10,\"ks\":{}}]}")
                == "layers[0].sc: must be a colour like \"#ff8800\"")
    }

    @Test("what players accept: empty and malformed colours, missing optional fields, a last key with only t (docs/bad-input.md)")
    func valuesPlayersAccept() throws {
        let file = try lottieFile("players-accept")   // 200 × 200 at size 200
        func node(_ f: Double, at corner: Point) throws -> LottieNode {
            try #require(file.nodes(atFrame: f, size: 200).first { start($0) == corner }, "no node starts at \(corner)")
        }
        let white = Color(red: 1, green: 1, blue: 1), black = Color(red: 0, green: 0, blue: 0)
        // Solids (their path starts at (sw, 0)): `sc` empty → white; not a colour → black; in
        // capitals → read; missing → white.
        #expect(try node(10, at: Point(x: 40, y: 10)).fill == white)
        #expect(try node(10, at: Point(x: 80, y: 10)).fill == black)
        #expect(try node(10, at: Point(x: 120, y: 10)).fill == Color(red: 0x33 / 255.0, green: 0xcc / 255.0, blue: 0x66 / 255.0))
        #expect(try node(10, at: Point(x: 160, y: 10)).fill == white)
        // Fills: no components → white, no `c` → white, one component → that red, no `o` → 100 %.
        #expect(try node(10, at: Point(x: 42, y: 58)).fill == white)
        #expect(try node(10, at: Point(x: 82, y: 58)).fill == white)
        #expect(try node(10, at: Point(x: 122, y: 58)).fill == Color(red: 0.5, green: 0, blue: 0))
        let full = try node(10, at: Point(x: 162, y: 58))
        #expect(full.fill == Color(red: 0.2, green: 0.4, blue: 0.8) && full.opacity == 1)
        // A stroke without `w`: width 0 (still a node, as rlottie lists it).
        let thin = try node(10, at: Point(x: 42, y: 108))
        #expect(thin.stroke == black && thin.strokeWidth == 0)
        // Trims without `s` or `e` read 0 there: 0 … 50 % and 0 … 75 % of a 96-pixel square.
        #expect(spelled(try node(10, at: Point(x: 82, y: 108)).path) == ["M 82 108", "L 82 132", "L 58 132"])
        #expect(spelled(try node(10, at: Point(x: 122, y: 108)).path) == ["M 122 108", "L 122 132", "L 98 132", "L 98 108"])
        // An ellipse without `p` sits at its layer's origin (150, 120): its top first.
        #expect(try node(10, at: Point(x: 150, y: 110)).fill == Color(red: 0.5, green: 0.2, blue: 0.7))
        // A last key with only `t`: the segment ends at the previous key's `e`, which then holds.
        #expect(try node(10, at: Point(x: 112, y: 158)).fill == Color(red: 0.3, green: 0.3, blue: 0.3))
        #expect(try node(25, at: Point(x: 192, y: 158)).fill == Color(red: 0.3, green: 0.3, blue: 0.3))
    }

    @Test("what lottie-web reads as numbers: one-element arrays, strings of digits, true for a flag (docs/bad-input.md)")
    func numbersLottieWebReads() throws {
        let file = try lottieFile("players-loose-numbers")   // 200 × 200 at size 200
        let nodes = file.nodes(atFrame: 5, size: 200)
        // `sw: [30]`, `sh: "20"`, `ip: [0]`, `op: "30"`: a 30 × 20 solid at (10, 10), shown.
        let solid = try #require(nodes.first { $0.fill == Color(red: 0x33 / 255.0, green: 0x66 / 255.0, blue: 0x99 / 255.0) })
        #expect(spelled(solid.path) == ["M 40 10", "L 40 30", "L 10 30", "L 10 10", "L 40 10", "Z"])
        // A colour of strings and an opacity of "50"; `h: true` holds the first key until frame 10.
        let held = try #require(nodes.first { $0.fill == Color(red: 1, green: 0.5, blue: 0) })
        #expect(held.opacity == 0.5 && start(held) == Point(x: 52, y: 88))
        #expect(file.nodes(atFrame: 10, size: 200).first { $0.fill == Color(red: 1, green: 0.5, blue: 0) }.flatMap(start)
                == Point(x: 172, y: 88))
        // A key's `s` given as a bare number: opacity 20 → 80 % over frames 0 … 20.
        let faded = try #require(file.nodes(atFrame: 10, size: 200).first { $0.fill == Color(red: 0, green: 0, blue: 0) })
        #expect(near(faded.opacity, 0.5, 1e-12))
        // Still refused: a string that is not a number, with the path of the value.
        #expect(throws: LottieError.invalid(path: "layers[0].ks.p.k", reason: "must be a number or an array of numbers, not a string")) {
            try LottieAnimation(json: "{\"fr\":30,\"ip\":0,\"op\":10,\"w\":10,\"h\":10,\"layers\":[{\"ty\":4,\"ip\":0,\"op\":10,\"ks\":{\"p\":{\"a\":0,\"k\":\"x\"}}}]}")
        }
    }

    @Test("whole-number fields (ty, ind, parent, lc, lj) that are not whole or lie past ±2^31 are errors naming them, not traps")
    func wholeNumberFields() {
        func error(_ layer: String) -> String? {
            let json = "{\"fr\":30,\"ip\":0,\"op\":10,\"w\":10,\"h\":10,\"layers\":[{\"ip\":0,\"op\":10,\"ks\":{},\(layer)}]}"
            do { _ = try LottieAnimation(json: json); return nil } catch { return "\(error)" }
        }
        // The fuzzer's input: an index of 118 digits used to trap converting to Int.
        #expect(error("\"ty\":4,\"ind\":5555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555551")
                == "layers[0].ind: must be a whole number within ±2147483647, not 5.555555555555556e+117")
        #expect(error("\"ty\":3,\"parent\":-1e19") == "layers[0].parent: must be a whole number within ±2147483647, not -1e+19")
        #expect(error("\"ty\":1e300") == "layers[0].ty: must be a whole number within ±2147483647, not 1e+300")
        #expect(error("\"ty\":4.5") == "layers[0].ty: must be a whole number within ±2147483647, not 4.5")
        #expect(error("\"ty\":4,\"shapes\":[{\"ty\":\"st\",\"c\":{\"a\":0,\"k\":[0,0,0]},\"o\":{\"a\":0,\"k\":100},\"w\":{\"a\":0,\"k\":1},\"lc\":9e18}]")
                == "layers[0].shapes[0].lc: must be a whole number within ±2147483647, not 9e+18")
        // Whole numbers written with a fraction part still read (exporters write 1.0).
        #expect(error("\"ty\":4.0,\"ind\":2.0") == nil)
    }

    @Test("groups and precompositions nested without bound are refused, not recursed into")
    func nestingIsBounded() {
        var group = "{\"ty\":\"rc\",\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[1,1]}}"
        for _ in 0..<100 { group = "{\"ty\":\"gr\",\"it\":[\(group)]}" }
        let json = "{\"fr\":30,\"ip\":0,\"op\":10,\"w\":10,\"h\":10,\"layers\":[{\"ty\":4,\"ip\":0,\"op\":10,\"ks\":{},\"shapes\":[\(group)]}]}"
        #expect(throws: LottieError.self) { try LottieAnimation(json: json) }
    }

    /// A file of `levels` precompositions, each holding `references` layers that name the next
    /// (the last holds a null layer), with one root layer naming the first.
    static func fanOut(levels: Int, references: Int) -> String {
        let layer = { (id: String) in "{\"ty\":0,\"refId\":\"\(id)\",\"ip\":0,\"op\":10,\"ks\":{}}" }
        let assets = (0..<levels).map { k in
            let inner = k == levels - 1 ? "{\"ty\":3,\"ip\":0,\"op\":10,\"ks\":{}}"
                                        : Array(repeating: layer("p\(k + 1)"), count: references).joined(separator: ",")
            return "{\"id\":\"p\(k)\",\"layers\":[\(inner)]}"
        }
        return "{\"fr\":30,\"ip\":0,\"op\":10,\"w\":10,\"h\":10,\"assets\":[\(assets.joined(separator: ","))],\"layers\":[\(layer("p0"))]}"
    }

    @Test("precompositions named many times are checked once each: work linear in the file, the expanded size bounded and named")
    func precompositionFanOutIsBounded() throws {
        // 3·2¹¹ − 1 expanded layers: read; the check visits each layer of the file once, not each path.
        func visits(_ levels: Int) throws -> Int {
            let animation = try LottieAnimation(json: Self.fanOut(levels: levels, references: 2))
            var check = ReferenceCheck(precompositions: animation.precompositions)
            let size = try check.size(of: animation.layers, "layers", chain: [])
            #expect(size.layers == (3 << (levels - 1)) - 1, "\(levels) levels")
            return check.visited
        }
        let twelve = try visits(12), thirteen = try visits(13)
        #expect(thirteen - twelve == 2, "visited \(twelve) layers at 12 levels, \(thirteen) at 13 (walking every path doubles)")
        // 4²⁰ layers in a file of 20 KB: refused at once, naming the limit.
        let message: String
        do { _ = try LottieAnimation(json: Self.fanOut(levels: 20, references: 4)); message = "" } catch { message = "\(error)" }
        #expect(message.contains("expands to more than 100000 layers"), "\(message)")
    }

    @Test("a chain of 10,000 precompositions is refused as nested too deep, not as a cycle")
    func deepPrecompositionChainIsNamedAsDepth() {
        let message: String
        do { _ = try LottieAnimation(json: Self.fanOut(levels: 10_000, references: 1)); message = "" } catch { message = "\(error)" }
        #expect(message.hasSuffix("precompositions nested more than 64 levels"), "\(message)")
        #expect(!message.contains("contains itself"))
    }
}
