@testable import AnimationLottie
import AnimationCore
import AnimationWorkloads
import Foundation
import Testing

/// The flat tables a tick reads in place of the file's objects (lottie §2, §4.3): they must give
/// the reference's operations, bit for bit, and what the memo keeps for one program must never
/// reach another.
@Suite("Lottie compiled tables")
struct LottieTablesTests {
    /// A file of `layers` shape layers whose rotation, position and trim end are keyed at the same
    /// frames with the easing (x1, y1, x2, y2): every channel shares one curve and one progress.
    static func sharedKeysFile(layers: Int, easing: (Double, Double, Double, Double)) -> String {
        let (x1, y1, x2, y2) = easing
        func keys(_ from: String, _ to: String) -> String {
            #"{"a":1,"k":[{"t":0,"s":\#(from),"o":{"x":[\#(x1)],"y":[\#(y1)]},"i":{"x":[\#(x2)],"y":[\#(y2)]}},{"t":40,"s":\#(to)}]}"#
        }
        let list = (0..<layers).map { k in
            #"{"ty":4,"ind":\#(k + 1),"ip":0,"op":60,"st":0,"ks":{"p":\#(keys("[\(10 * k),20]", "[\(10 * k + 50),90]")),"#
                + #""r":\#(keys("[0]", "[\(30 + k)]")),"o":\#(keys("[0]", "[100]"))},"#
                + #""shapes":[{"ty":"el","p":{"a":0,"k":[0,0]},"s":\#(keys("[10,10]", "[\(20 + k),30]"))},"#
                + #"{"ty":"tm","s":{"a":0,"k":0},"e":\#(keys("[0]", "[100]")),"o":{"a":0,"k":0},"m":1},"#
                + #"{"ty":"st","c":{"a":0,"k":[1,0,0,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":3}}]}"#
        }
        return #"{"fr":30,"ip":0,"op":60,"w":200,"h":200,"layers":[\#(list.joined(separator: ","))]}"#
    }

    @Test("lottie §2.4 channels keyed alike share one easing solve per instance-frame, with the reference's bits")
    func sharedSolvesKeepTheReferenceBits() throws {
        let animation = try LottieAnimation(json: Self.sharedKeysFile(layers: 12, easing: (0.42, 0, 0.58, 1)))
        let program = try LottieProgram(animation, size: 200)
        // One curve for all 12 × 5 segments: the memo is what makes them one solve.
        #expect(program.channels.curves.count == 1)
        let batch = LottieBatch(maximumThreads: 1)
        let frames = (0..<48).map { Double($0) * 0.97 - 2 }   // before the keys, between them, after
        let instances = try batch.add(program, count: frames.count)
        for (i, f) in zip(instances, frames) { batch.setFrame(f, of: i) }
        batch.tick()
        for (i, f) in zip(instances, frames) {
            #expect(LottieBatch.storesReference(batch.nodes(of: i), animation.nodes(atFrame: f, size: 200)), "frame \(f)")
        }
    }

    @Test("lottie §2.4 an easing solved for one program is never read for another: two programs with different curves at one frame, alternating")
    func solvesStayWithTheirProgram() throws {
        // Curve 0 of each program at the same progress: a memo keyed by curve alone would hand
        // the second program the first one's value.
        let a = try LottieAnimation(json: Self.sharedKeysFile(layers: 3, easing: (0.42, 0, 0.58, 1)))
        let b = try LottieAnimation(json: Self.sharedKeysFile(layers: 3, easing: (0.1, 0.9, 0.2, 1)))
        let programs = try [LottieProgram(a, size: 200), LottieProgram(b, size: 200)]
        #expect(programs[0].memoKey != programs[1].memoKey)
        let batch = LottieBatch(maximumThreads: 1)
        for k in 0..<20 { try batch.add(programs[k % 2], count: 1) }
        for i in 0..<20 { batch.setFrame(Double(10 + i / 2), of: i) }
        batch.tick()
        for i in 0..<20 {
            let expected = [a, b][i % 2].nodes(atFrame: Double(10 + i / 2), size: 200)
            #expect(LottieBatch.storesReference(batch.nodes(of: i), expected), "instance \(i)")
        }
        #expect(a.nodes(atFrame: 10, size: 200) != b.nodes(atFrame: 10, size: 200))
    }

    @Test("lottie §2.4, §2.6 the memo answers only for its own program, curve or segment and input bits; an entry another instance wrote is read")
    func memoKeys() throws {
        let capacity = 64
        let entries = UnsafeMutablePointer<SolveMemo.Entry>.allocate(capacity: capacity)
        defer { entries.deallocate() }
        entries.initialize(repeating: SolveMemo.Entry(program: 0, index: 0, input: 0, x: 0, y: 0), count: capacity)
        var builder = LottieChannels.Builder()
        // Curve 0 ease-in-ease-out, then 199 others: one of them shares segment 0's slots.
        builder.curves = [TimingFunction.easeInEaseOut] + (1..<200).map { try! TimingFunction(controlPoints: Double($0) / 200, 0.1, 0.5, 1) }
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addCurve(to: Point(x: 100, y: 0), control1: Point(x: 0, y: 50), control2: Point(x: 100, y: 50))
        #expect(builder.add(LottieProperty.SpatialCurve(measure: PathMeasure(path))) == 0)
        let channels = LottieChannels(builder)
        let exact = TimingFunction.easeInEaseOut.value(at: 0.3), point = channels.spatialPoint(0, atFraction: 0.3)
        let shift = UInt64(64 - capacity.trailingZeroBitCount)
        let first = SolveMemo(entries: entries, shift: shift, program: 1)
        #expect(channels.eased(0, 0.3, first) == exact)
        #expect(channels.spatialPoint(0, atFraction: 0.3, first) == point)
        first.entry(0, 0.3).pointee.x = 42   // what a stale read would return
        first.entry(-1, 0.3).pointee.x = 43
        // The same program — another instance at the same frame, or the next tick — reads them.
        let again = SolveMemo(entries: entries, shift: shift, program: 1)
        #expect(channels.eased(0, 0.3, again) == 42, "the same program reads its entry")
        #expect(channels.spatialPoint(0, atFraction: 0.3, again).x == 43, "the same program reads its point")
        // Another program, another input, or curve 0 against segment 0: solved again.
        let other = SolveMemo(entries: entries, shift: shift, program: 2)
        #expect(channels.eased(0, 0.3, other) == exact, "another program solves again")
        #expect(channels.spatialPoint(0, atFraction: 0.3, other) == point, "another program finds its point again")
        #expect(channels.eased(0, 0.3.nextUp, other) == TimingFunction.easeInEaseOut.value(at: 0.3.nextUp), "an input one ulp away")
        // A curve and segment 0 whose entries share a slot at every input: each evicts the
        // other, neither reads the other's value.
        let c = try #require((1..<200).first { other.entry($0, 0.5) == other.entry(-1, 0.5) })
        for _ in 0..<2 {
            #expect(channels.eased(c, 0.5, other) == builder.curves[c].value(at: 0.5), "curve \(c)")
            #expect(channels.spatialPoint(0, atFraction: 0.5, other) == channels.spatialPoint(0, atFraction: 0.5), "segment 0")
        }
        // Sizes: a power of two from 64 to the largest, twice every whole frame's entries when it fits.
        // Cuts on compiled tables are keyed apart from curves and spatial segments.
        #expect(SolveMemo.cutKey(table: 0) < -(1 << 40) && SolveMemo.cutKey(table: (1 << 40) - 1) > Int.min)
        #expect(SolveMemo.cutKey(table: 7) != SolveMemo.cutKey(table: 8))
        #expect(SolveMemo.capacity(keys: 1, frames: 30) == 64)
        #expect(SolveMemo.capacity(keys: 3, frames: 60) == 512)
        #expect(SolveMemo.capacity(keys: 12, frames: 400) == SolveMemo.largestCapacity)
        #expect(SolveMemo.capacity(keys: 0, frames: -.infinity) == 64 && SolveMemo.capacity(keys: 5, frames: .nan) == 64)
        #expect(SolveMemo.capacity(keys: Int.max, frames: .infinity) == SolveMemo.largestCapacity)
    }

    @Test("lottie §2.4, §2.6, §4.5 instances that share frames, tick after tick, draw the reference's bits with the memo: spatial positions, eased channels, trims' cuts, one and two threads")
    func memoAcrossInstancesAndTicks() throws {
        // Three layers moving along curves (spatial tangents) with their own easings, an
        // ellipse (cubics: compiled breakpoint tables) cut by a keyed trim: instance i at frame
        // (7i + tick) mod 40 + a quarter, so that frames repeat within a tick and from one tick
        // to the next.
        func layer(_ k: Int) -> String {
            let keys = #"[{"t":0,"s":[\#(10 * k),20],"o":{"x":[0.5],"y":[-0.5]},"i":{"x":[0.2],"y":[1]},"to":[\#(40 + k),-30],"ti":[-20,\#(35 - k)]},{"t":40,"s":[150,\#(100 + k)]}]"#
            return #"{"ty":4,"ind":\#(k + 1),"ip":0,"op":60,"st":0,"ks":{"p":{"a":1,"k":\#(keys)}},"#
                + #""shapes":[{"ty":"el","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[20,\#(12 + 4 * k)]}},"#
                + #"{"ty":"tm","s":{"a":0,"k":0},"e":{"a":1,"k":[{"t":0,"s":[10],"o":{"x":[0.3],"y":[0]},"i":{"x":[0.\#(k + 4)],"y":[1]}},{"t":40,"s":[100]}]},"o":{"a":0,"k":0},"m":1},"#
                + #"{"ty":"fl","c":{"a":0,"k":[0,0.5,1,1]},"o":{"a":0,"k":100}}]}"#
        }
        let json = #"{"fr":30,"ip":0,"op":60,"w":200,"h":200,"layers":[\#((0..<3).map(layer).joined(separator: ","))]}"#
        let animation = try LottieAnimation(json: json)
        let program = try LottieProgram(animation, size: 200)
        #expect(program.channels.spatialCubics.count == 3)
        #expect(program.measureTables.filter { $0 >= 0 }.count == 12, "four cubics of each ellipse measured when compiled")
        var drawn: [[[LottieNode]]] = []
        for threads in [1, 2] {
            let batch = LottieBatch(maximumThreads: threads)
            let instances = try batch.add(program, count: 120)
            var ticks: [[LottieNode]] = []
            for tick in 0..<3 {
                for i in instances { batch.setFrame(Double((7 * i + tick) % 40) + 0.25, of: i) }
                batch.tick()
                for i in instances {
                    let frame = Double((7 * i + tick) % 40) + 0.25
                    #expect(LottieBatch.storesReference(batch.nodes(of: i), animation.nodes(atFrame: frame, size: 200)),
                            "\(threads) threads, tick \(tick), instance \(i) at \(frame)")
                    ticks.append(batch.nodes(of: i))
                }
            }
            drawn.append(ticks)
        }
        #expect(drawn[0] == drawn[1], "one and two threads draw the same bits")
    }

    @Test("lottie §2.6 a point along a spatial segment from the flat tables is SpatialCurve.point's, bit for bit: random curves, loops, cusps, points, fractions outside 0…1 and NaN")
    func spatialPointsEqualTheReference() {
        var rng = SplitMix64(seed: 0x5350_4154)
        var builder = LottieChannels.Builder()
        var curves: [LottieProperty.SpatialCurve] = []
        for k in 0..<300 {
            func point() -> Point {
                k % 10 == 0 ? Point(x: 3, y: 4)   // every tenth curve a point: no length
                    : Point(x: Double.random(in: -500...500, using: &rng), y: Double.random(in: -500...500, using: &rng))
            }
            var path = Path()
            path.move(to: point())
            path.addCurve(to: point(), control1: point(), control2: point())
            let curve = LottieProperty.SpatialCurve(measure: PathMeasure(path))
            curves.append(curve)
            #expect(builder.add(curve) == k)
        }
        let channels = LottieChannels(builder)
        let fractions = [0, 1, -0.5, 1.5, .nan, .infinity, -.infinity, 1e-300, 0.5] + (0..<40).map { _ in Double.random(in: 0...1, using: &rng) }
        for (k, curve) in curves.enumerated() {
            #expect(channels.spatialCubics[k].count > 0, "curve \(k) kept flat")
            for f in fractions {
                let expected = curve.point(atFraction: f), got = channels.spatialPoint(k, atFraction: f)
                #expect(got.x.bitPattern == expected.x.bitPattern && got.y.bitPattern == expected.y.bitPattern,
                        "curve \(k) at \(f): \(got) vs \(expected)")
            }
        }
    }

    /// A random morph: 1–5 keys of `n` vertices, some holds, some without `e`, frames that may repeat.
    static func randomMorph(_ rng: inout SplitMix64, vertices n: Int) -> LottieShapeProperty {
        func bezier(closed: Bool) -> LottieBezier {
            func points() -> [Point] {
                (0..<n).map { _ in Point(x: Double.random(in: -100...100, using: &rng), y: Double.random(in: -100...100, using: &rng)) }
            }
            return LottieBezier(closed: closed, vertices: points(), inTangents: points(), outTangents: points())
        }
        var frame = Double.random(in: -5...5, using: &rng)
        let closed = Bool.random(using: &rng)
        let keys = (0..<Int.random(in: 1...5, using: &rng)).map { _ -> LottieShapeProperty.Key in
            frame += [0, 0.5, 7, 12.25].randomElement(using: &rng)!
            return LottieShapeProperty.Key(frame: frame, start: bezier(closed: closed), end: Bool.random(using: &rng) ? bezier(closed: !closed) : nil,
                                           hold: Int.random(in: 0..<4, using: &rng) == 0,
                                           easing: try! TimingFunction(controlPoints: Double.random(in: 0...1, using: &rng),
                                                                       Double.random(in: -1...2, using: &rng), Double.random(in: 0...1, using: &rng),
                                                                       Double.random(in: -1...2, using: &rng)))   // within the checked ranges
        }
        return LottieShapeProperty(keys: keys)
    }

    /// The same elements with the same numbers, bit for bit (a NaN frame gives NaN points).
    static func sameBits(_ a: Path, _ b: Path) -> Bool {
        guard a.elements.count == b.elements.count else { return false }
        return zip(a.elements, b.elements).allSatisfy { e, f in
            switch (e, f) {
            case (.move, .move), (.line, .line), (.curve, .curve), (.quadCurve, .quadCurve), (.closeSubpath, .closeSubpath): break
            default: return false
            }
            return e.points.count == f.points.count && zip(e.points, f.points).allSatisfy {
                $0.x.bitPattern == $1.x.bitPattern && $0.y.bitPattern == $1.y.bitPattern
            }
        }
    }

    @Test("lottie §4.3 a morph from the flat tables is LottieShapes.bezier's, element for element and bit for bit: before, between, on and after keys, holds, keys without e")
    func morphTablesEqualTheReference() {
        var rng = SplitMix64(seed: 0x4d4f_5250)
        for _ in 0..<200 {
            let properties = (0..<3).map { _ in Self.randomMorph(&rng, vertices: Int.random(in: 1...6, using: &rng)) }
            let tables = LottieMorphs(properties)
            for (m, property) in properties.enumerated() {
                let frames = property.keys.flatMap { [$0.frame, $0.frame + 0.25, $0.frame - 1e-9] } + [-1e9, 1e9, .nan]
                for f in frames {
                    var expected = PathSink(), got = PathSink()
                    LottieShapes.bezier(property, frame: f, into: &expected)
                    tables.emit(m, frame: f, into: &got)
                    #expect(Self.sameBits(got.path, expected.path), "morph \(m) at frame \(f)")
                }
            }
        }
    }
}
