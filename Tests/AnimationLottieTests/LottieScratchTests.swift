@testable import AnimationLottie
import AnimationCore
import AnimationWorkloads
import Foundation
import Testing

/// The output and working buffers of a compiled program are sized once, from bounds proved in
/// `LottieProgram` (a trim's pieces, moves and closes); nothing may be dropped at any frame. These
/// files are built to stress the bounds: paths with zero-length segments and closing segments,
/// trims of trims, sequential trims over several paths, ranges that wrap, values out of range.
@Suite("Lottie buffer bounds")
struct LottieCapacityTests {
    /// A random L1 file: one shape layer, a group of paths, rectangles and ellipses under one or
    /// two trims (each animated through random values), stroked.
    static func randomFile(_ rng: inout SplitMix64) -> String {
        func number(_ range: ClosedRange<Double>) -> String { String(Double.random(in: range, using: &rng)) }
        func pair(_ range: ClosedRange<Double>) -> String { "[\(number(range)),\(number(range))]" }
        func animated(_ range: ClosedRange<Double>) -> String {
            let keys = (0..<Int.random(in: 2...4, using: &rng)).map { k in
                "{\"t\":\(k * 10),\"s\":[\(number(range))],\"o\":{\"x\":[0.3],\"y\":[0]},\"i\":{\"x\":[0.7],\"y\":[1]}}"
            }
            return "{\"a\":1,\"k\":[\(keys.joined(separator: ","))]}"
        }
        var items: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0, 1:
                // A path; some vertices repeat the one before (zero-length segments), and a closed
                // path may end on its first vertex (a zero-length closing segment).
                let n = Int.random(in: 1...6, using: &rng)
                var vertices: [String] = []
                for k in 0..<n {
                    vertices.append(k > 0 && Bool.random(using: &rng) && Bool.random(using: &rng) ? vertices[k - 1] : pair(0...100))
                }
                let closed = Bool.random(using: &rng)
                if closed && n > 1 && Bool.random(using: &rng) { vertices[n - 1] = vertices[0] }
                let curved = Bool.random(using: &rng)
                let tangents = (0..<n).map { _ in curved ? pair(-30...30) : "[0,0]" }
                let outs = (0..<n).map { _ in curved ? pair(-30...30) : "[0,0]" }
                items.append("{\"ty\":\"sh\",\"ks\":{\"a\":0,\"k\":{\"c\":\(closed),\"v\":[\(vertices.joined(separator: ","))],"
                             + "\"i\":[\(tangents.joined(separator: ","))],\"o\":[\(outs.joined(separator: ","))]}}}")
            case 2:
                items.append("{\"ty\":\"rc\",\"d\":\(Bool.random(using: &rng) ? 1 : 3),\"p\":{\"a\":0,\"k\":\(pair(20...80))},"
                             + "\"s\":{\"a\":0,\"k\":\(pair(0...60))},\"r\":{\"a\":0,\"k\":\(Bool.random(using: &rng) ? "0" : number(0...20))}}")
            default:
                items.append("{\"ty\":\"el\",\"d\":\(Bool.random(using: &rng) ? 1 : 3),\"p\":{\"a\":0,\"k\":\(pair(20...80))},"
                             + "\"s\":{\"a\":0,\"k\":\(pair(0...60))}}")
            }
        }
        func trim() -> String {
            "{\"ty\":\"tm\",\"s\":\(animated(-20...120)),\"e\":\(animated(-20...120)),\"o\":\(animated(-720...720)),"
                + "\"m\":\(Bool.random(using: &rng) ? 1 : 2)}"
        }
        items.append(trim())
        if Bool.random(using: &rng) { items.append(trim()) }
        items.append("{\"ty\":\"st\",\"c\":{\"a\":0,\"k\":[0,0,0,1]},\"o\":{\"a\":0,\"k\":100},\"w\":{\"a\":0,\"k\":2}}")
        let transform = "\"a\":{\"a\":0,\"k\":[0,0]},\"p\":{\"a\":0,\"k\":[0,0]},\"s\":{\"a\":0,\"k\":[100,100]},\"r\":{\"a\":0,\"k\":0},\"o\":{\"a\":0,\"k\":100}"
        return "{\"fr\":30,\"ip\":0,\"op\":40,\"w\":100,\"h\":100,\"layers\":[{\"ddd\":0,\"ty\":4,\"ind\":1,\"ip\":0,\"op\":40,\"st\":0,"
            + "\"ks\":{\(transform)},\"shapes\":[{\"ty\":\"gr\",\"it\":[\(items.joined(separator: ",")),{\"ty\":\"tr\",\(transform)}]}]}]}"
    }

    @Test("§4.5 no trim, at any frame, needs more than the buffers the program sized, and cuts where the reference cuts: random paths, trims of trims, sequential trims")
    func trimsStayWithinTheirBounds() throws {
        var rng = SplitMix64(seed: 0x7819_CAFE)
        let files = LottieTestScale.isFull ? 300 : 25, framesPerFile = LottieTestScale.isFull ? 80 : 16
        var drawn = 0
        for k in 0..<files {
            let json = Self.randomFile(&rng)
            let animation = try LottieAnimation(json: json)
            let batch = LottieBatch(maximumThreads: 1)
            let frames = (0..<framesPerFile).map { 40 * Double($0) / Double(framesPerFile) }
            let instances = try batch.add(LottieProgram(animation, size: 256), count: frames.count)
            for (i, f) in zip(instances, frames) { batch.setFrame(f, of: i) }
            batch.tick()
            #expect(batch.overflowCount == 0, "file \(k) dropped elements: \(json)")
            for (i, f) in zip(instances, frames) {
                let reference = animation.nodes(atFrame: f, size: 256)
                let nodes = batch.nodes(of: i)
                drawn += nodes.reduce(0) { $0 + $1.path.elements.count }
                // The same elements as the reference, and the same numbers: trims measure arc
                // length with the reference's own breakpoints, whatever the curve.
                #expect(LottieBatch.storesReference(nodes, reference), "file \(k) at frame \(f): \(json)")
            }
        }
        #expect(drawn > files * framesPerFile)   // the files draw something: the check is not vacuous
    }
}

/// The batch's trims measure arc length as the reference does (`PathMeasure`, AnimationCore): the
/// same breakpoints, sums and solves, so that cut paths are equal bit for bit in double precision —
/// whether the breakpoints were computed when compiled or are walked again each frame.
@Suite("Lottie trims against PathMeasure")
struct LottieTrimMeasureTests {
    @Test("§4.5 a cut is Path.trimmed's, bit for bit: random paths with cusps, loops, zero-length segments and several subpaths")
    func cutsEqualTheReference() {
        var rng = SplitMix64(seed: 0x7219_0A11)
        let cases = LottieTestScale.isFull ? 4000 : 300
        var compared = 0
        for _ in 0..<cases {
            var path = Path()
            func point() -> Point {
                // Coordinates from a small lattice now and then: coincident points and control
                // points on the ends (cusps, zero-length segments).
                Bool.random(using: &rng) ? Point(x: Double(Int.random(in: 0...3, using: &rng)) * 40, y: Double(Int.random(in: 0...3, using: &rng)) * 40)
                    : Point(x: Double.random(in: -50...250, using: &rng), y: Double.random(in: -50...250, using: &rng))
            }
            for k in 0..<Int.random(in: 1...9, using: &rng) {
                switch k == 0 ? 0 : Int.random(in: 0..<8, using: &rng) {
                case 0: path.move(to: point())
                case 1, 2: path.addLine(to: point())
                case 3, 4, 5, 6: path.addCurve(to: point(), control1: point(), control2: point())
                default: path.closeSubpath()
                }
            }
            // The elements as the path keeps them (a close of a closed subpath is dropped), which
            // is what the batch's builders write too.
            let (kinds, numbers) = Self.flat(path)
            let a = Double.random(in: -0.1...1.1, using: &rng), b = Double.random(in: -0.1...1.1, using: &rng)
            let (expectedKinds, expectedNumbers) = Self.flat(path.trimmed(from: a, to: b))
            for compiled in [false, true] {
                let ours = LottieWork.trimmed(kinds: kinds, numbers: numbers, from: a, to: b, compiled: compiled)
                #expect(ours.kinds == expectedKinds && ours.numbers == expectedNumbers,
                        "\(compiled ? "compiled" : "walked") cut \(a)…\(b) of \(path.elements): \(ours) against \(expectedKinds), \(expectedNumbers)")
            }
            compared += expectedKinds.count
        }
        #expect(compared > cases)   // most cuts keep something: the comparison is not vacuous
    }

    @Test("§4.5 a cut on a compiled table is kept in the memo by its table: two paths cut at the same length each get their own parameter, solved or read back")
    func cutsAreMemoisedByTable() throws {
        // Two ellipses of different shapes under a trim: each measured when compiled, a table
        // per quarter. A cut at the same length on the first quarter of each is a different
        // parameter; a memo keyed without the table would hand the second the first's.
        func layer(_ k: Int, _ height: Int) -> String {
            #"{"ty":4,"ind":\#(k),"ip":0,"op":60,"st":0,"ks":{},"shapes":[{"ty":"el","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[40,\#(height)]}},"#
                + #"{"ty":"tm","s":{"a":0,"k":0},"e":{"a":1,"k":[{"t":0,"s":[0]},{"t":30,"s":[100]}]},"o":{"a":0,"k":0},"m":1},"#
                + #"{"ty":"st","c":{"a":0,"k":[1,0,0,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":2}}]}"#
        }
        let json = #"{"fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":[\#(layer(1, 10)),\#(layer(2, 70))]}"#
        let program = try LottieProgram(LottieAnimation(json: json), size: 100)
        try #require(program.measures.count == 2)
        var work = LottieWork()
        work.reserve(for: program)
        defer { work.deallocate() }
        work.memoProgram[0] = program.memoKey
        let local = 3.0
        var cuts: [Double] = []
        program.measureNumbers.withUnsafeBufferPointer { numbers in
            let tables = numbers.baseAddress!
            for m in program.measures {
                _ = work.load(m, from: program)
                let table = work.segmentTables[0]
                #expect(table >= 0, "the first quarter has a compiled table")
                let solved = ArcLength.solve(ofLength: local, in: ArcLength.bracket(local, pairs: tables + table + 1, count: Int(tables[table])),
                                             total: work.segmentLengths[0], cubic: work.cubic(0))
                for _ in 0..<2 {   // solved, then read back
                    #expect(work.parameter(atLocal: local, in: 0, tables: tables) == solved)
                }
                cuts.append(solved)
            }
        }
        #expect(cuts[0] != cuts[1], "the two quarters are different curves: \(cuts)")
    }

    /// A path as element kinds (0 move, 1 line, 2 cubic, 3 close) and numbers, as the batch keeps paths.
    static func flat(_ path: Path) -> (kinds: [UInt8], numbers: [Double]) {
        var kinds: [UInt8] = [], numbers: [Double] = []
        for element in path.elements {
            switch element {
            case .move(let p): kinds.append(0); numbers += [p.x, p.y]
            case .line(let p): kinds.append(1); numbers += [p.x, p.y]
            case .curve(let p, let c1, let c2): kinds.append(2); numbers += [c1.x, c1.y, c2.x, c2.y, p.x, p.y]
            case .quadCurve: Issue.record("a quadratic curve: neither these paths nor their cuts have one")
            case .closeSubpath: kinds.append(3)
            }
        }
        return (kinds, numbers)
    }
}
