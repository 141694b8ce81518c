import AnimationCore
import AnimationWorkloads
@testable import AnimationLottie
import CAllocationCounter
import Foundation
import Testing

/// Many instances in one batch (issue "Lottie at scale", Deliver 2): the compiled evaluation
/// against the reference, several programs and frames at once, thread counts, allocations.
@Suite("Lottie batch")
struct LottieBatchTests {
    static let files = ["shapes-rectangles", "shapes-ellipse-stroke", "shapes-path-morph", "transforms-parenting", "keyframes",
                        "spatial-auto-orient", "precomposition-solid", "precomposition-remap", "trims", "group-opacity",
                        "start-times", "players-accept", "players-loose-numbers", "paints-and-trims", "precomposition-clips"]

    /// The largest difference between two node lists' numbers, or infinity when their shapes differ.
    static func difference(_ a: [LottieNode], _ b: [LottieNode]) -> Double {
        guard a.count == b.count else { return .infinity }
        var worst = 0.0
        for (x, y) in zip(a, b) {
            guard x.fill == y.fill, x.stroke == y.stroke, x.opacity == y.opacity, x.strokeWidth == y.strokeWidth,
                  x.strokeStyle == y.strokeStyle, x.path.elements.count == y.path.elements.count else { return .infinity }
            for (e, f) in zip(x.path.elements, y.path.elements) {
                let p = e.points, q = f.points
                guard p.count == q.count else { return .infinity }
                switch (e, f) {
                case (.move, .move), (.line, .line), (.curve, .curve), (.closeSubpath, .closeSubpath): break
                default: return .infinity
                }
                for (u, v) in zip(p, q) { worst = max(worst, abs(u.x - v.x), abs(u.y - v.y)) }
            }
        }
        return worst
    }

    @Test("every instance draws what the reference draws at its frame, stored in single precision: bit for bit, trims included",
          arguments: files)
    func agreesWithReference(_ name: String) throws {
        let animation = try lottieFile(name)
        let program = try LottieProgram(animation, size: 256)
        let batch = LottieBatch(maximumThreads: 1)
        let span = animation.outPoint - animation.inPoint
        let frames = (0..<40).map { animation.inPoint + span * Double($0) / 40 + (($0 % 3 == 0) ? 0.37 : 0) }
        let instances = try batch.add(program, count: frames.count)
        for (i, f) in zip(instances, frames) { batch.setFrame(f, of: i) }
        batch.tick()
        for (i, f) in zip(instances, frames) {
            let expected = animation.nodes(atFrame: f, size: 256)
            #expect(LottieBatch.storesReference(batch.nodes(of: i), expected), "\(name) at frame \(f)")
        }
        #expect(batch.overflowCount == 0)
    }

    @Test("the benchmark files (long trimmed curves, morphs, spatial tangents, parenting chains) are the reference in single precision",
          arguments: ["loader-12", "logo-48"])
    func benchmarkFilesAgree(_ name: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Benchmarks/Lottie/\(name).json")
        let animation = try LottieAnimation(json: String(contentsOf: url, encoding: .utf8))
        let batch = LottieBatch(maximumThreads: 2)
        let frames = stride(from: animation.inPoint, to: animation.outPoint, by: 7.5).map { $0 }
        let instances = try batch.add(LottieProgram(animation, size: 256), count: frames.count)
        for (i, f) in zip(instances, frames) { batch.setFrame(f, of: i) }
        batch.tick()
        for (i, f) in zip(instances, frames) {
            #expect(LottieBatch.storesReference(batch.nodes(of: i), animation.nodes(atFrame: f, size: 256)), "\(name) at frame \(f)")
        }
        #expect(batch.overflowCount == 0)
    }

    @Test("several programs in one batch; each instance at its own frame; 1 and 3 threads give the same bits")
    func programsFramesAndThreads() throws {
        let programs = try Self.files.map { try LottieProgram(lottieFile($0), size: 128) }
        func run(threads: Int) throws -> [[LottieNode]] {
            let batch = LottieBatch(maximumThreads: threads)
            for (k, program) in programs.enumerated() {
                let range = try batch.add(program, count: 10 + k)
                for (j, i) in range.enumerated() {
                    let a = program.animation
                    batch.setFrame(a.inPoint + Double(j * 7 % Int(a.outPoint - a.inPoint)), of: i)
                }
            }
            batch.tick()
            return (0..<batch.instanceCount).map { batch.nodes(of: $0) }
        }
        let one = try run(threads: 1), three = try run(threads: 3)
        #expect(one.count == three.count && one.count > 100)
        #expect(zip(one, three).allSatisfy { Self.difference($0, $1) == 0 })
        #expect(one.contains { !$0.isEmpty })
    }

    @Test("instances of one file at the same frame share one evaluation: each shows the reference at its frame, bit for bit, for 1 and 3 threads, whether frames are shared by many, by few or by none")
    func instancesAtOneFrameShareAnEvaluation() throws {
        let names = ["trims", "precomposition-clips", "shapes-path-morph", "spatial-auto-orient"]
        let animations = try names.map { try lottieFile($0) }
        let programs = try animations.map { try LottieProgram($0, size: 128) }
        var expected: [String: [LottieNode]] = [:]   // the reference per file and frame (frames repeat)
        func run(threads: Int) throws -> [[[LottieNode]]] {
            let batch = LottieBatch(maximumThreads: threads)
            for program in programs { try batch.add(program, count: 60) }
            var ticks: [[[LottieNode]]] = []
            // Ticks 0–3: a few frames shared by many instances (fractions of a frame, ±0, the same
            // frame in two files); 4–6: every instance at its own frame (so that the batch stops
            // looking for shared frames for a while); 7–30: all at one frame again.
            for tick in 0..<31 {
                for i in 0..<batch.instanceCount {
                    let a = animations[i / 60], span = a.outPoint - a.inPoint
                    let f: Double = switch tick {
                    case 0..<4: a.inPoint + [0.0, -0.0, 2.5, span / 3, span / 3, 7][(i * (tick + 1)) % 6]
                    case 4..<7: a.inPoint + span * Double(i % 60) / 60 + Double(tick) / 10
                    default: a.inPoint + Double(tick % 5)
                    }
                    batch.setFrame(f, of: i)
                }
                batch.tick()
                var shown: [[LottieNode]] = []
                for i in 0..<batch.instanceCount {
                    let a = animations[i / 60], f = batch.frame(of: i)!, key = "\(i / 60) \(f.bitPattern)"
                    let reference = expected[key] ?? a.nodes(atFrame: f, size: 128)
                    expected[key] = reference
                    #expect(LottieBatch.storesReference(batch.nodes(of: i), reference),
                            "\(names[i / 60]) at frame \(f), tick \(tick), \(threads) threads")
                    shown.append(batch.nodes(of: i))
                }
                ticks.append(shown)
            }
            #expect(batch.overflowCount == 0)
            #expect(batch.invariantViolations() == [])
            return ticks
        }
        let one = try run(threads: 1), three = try run(threads: 3)
        #expect(zip(one, three).allSatisfy { zip($0, $1).allSatisfy { Self.difference($0, $1) == 0 } })
        #expect(one.joined().contains { !$0.isEmpty })
    }

    /// Skipped where the counter is compiled out (off glibc, under a sanitizer).
    @Test("ticks allocate nothing once instances are added (optimised builds)",
          .enabled(if: LottieTestScale.isFull && allocation_counter_available() == 1))
    func ticksDoNotAllocate() throws {
        let batch = LottieBatch(maximumThreads: 1)
        for name in Self.files { try batch.add(LottieProgram(lottieFile(name), size: 256), count: 20) }
        batch.tick()
        allocation_counter_include_thread(1)
        defer { allocation_counter_include_thread(0) }
        allocation_counter_start_included_threads()
        for k in 0..<10 {
            for i in 0..<batch.instanceCount { batch.setFrame(Double((i + k) % 10), of: i) }
            batch.tick()
        }
        let count = allocation_counter_stop()
        #expect(count == 0, "\(count) allocations in 10 ticks")
    }

    @Test("removing an instance gives its number to the last one, which keeps its file, frame and geometry; random adds and removals of several files stay the reference")
    func removalKeepsNumbersDense() throws {
        let names = ["shapes-rectangles", "trims", "shapes-path-morph", "precomposition-remap"]
        let animations = try names.map { try lottieFile($0) }
        let programs = try animations.map { try LottieProgram($0, size: 128) }
        let batch = LottieBatch(maximumThreads: 2)
        var model: [(file: Int, frame: Double)] = []   // what instance i shows, by number
        var rng = SplitMix64(seed: 0x5245_4d56)
        for step in 0..<300 {
            if model.isEmpty || Int.random(in: 0..<5, using: &rng) < 2 {
                let file = Int.random(in: 0..<programs.count, using: &rng), count = Int.random(in: 1...6, using: &rng)
                let range = try batch.add(programs[file], count: count)
                #expect(range == model.count..<model.count + count)
                #expect(range.allSatisfy { batch.nodes(of: $0).isEmpty }, "a new instance has drawn nothing before its first tick")
                for i in range {
                    let a = animations[file], f = a.inPoint + Double.random(in: 0..<(a.outPoint - a.inPoint), using: &rng)
                    batch.setFrame(f, of: i)
                    model.append((file, f))
                }
            } else {
                let i = Int.random(in: 0..<model.count, using: &rng)
                let last = model.count - 1
                let lastGeometry = batch.nodes(of: last)
                let moved = try batch.remove(i)
                #expect(moved == (i == last ? nil : last))
                if i != last {
                    model[i] = model[last]
                    #expect(Self.difference(batch.nodes(of: i), lastGeometry) == 0, "the moved instance keeps its last geometry")
                }
                model.removeLast()
            }
            #expect(batch.instanceCount == model.count)
            if step % 10 == 9 {
                batch.tick()
                for (i, m) in model.enumerated() {
                    #expect(batch.frame(of: i) == m.frame)
                    #expect(LottieBatch.storesReference(batch.nodes(of: i), animations[m.file].nodes(atFrame: m.frame, size: 128)),
                            "step \(step), instance \(i) (\(names[m.file]) at \(m.frame))")
                }
            }
        }
        #expect(batch.overflowCount == 0)
        #expect(throws: LottieError.self) { try batch.remove(model.count) }
        #expect(throws: LottieError.self) { try batch.remove(-1) }
    }

    @Test("removed instances' buffers go to the next instances of their file, and back once unused space outgrows the used")
    func removalReusesAndReturnsMemory() throws {
        let animation = try lottieFile("trims"), other = try lottieFile("keyframes")
        let program = try LottieProgram(animation, size: 128), otherProgram = try LottieProgram(other, size: 128)
        let batch = LottieBatch(maximumThreads: 1)
        batch.compact()   // nothing held yet: nothing to lay out
        try batch.add(program, count: 2_000)
        let full = batch.bufferBytes
        for _ in 0..<10 {   // churn: remove 100, add 100 of the same file
            for _ in 0..<100 { try batch.remove(0) }
            try batch.add(program, count: 100)
        }
        #expect(batch.bufferBytes == full, "reused, not grown")
        for i in 0..<batch.instanceCount { batch.setFrame(Double(i % 30), of: i) }
        batch.tick()
        let before = (0..<20).map { batch.nodes(of: $0) }
        while batch.instanceCount > 20 { try batch.remove(batch.instanceCount - 1) }
        #expect(batch.bufferBytes < full / 4, "given back: \(batch.bufferBytes) of \(full) bytes")
        #expect((0..<20).allSatisfy { Self.difference(batch.nodes(of: $0), before[$0]) == 0 }, "moved with their geometry")
        #expect(batch.holds(program))
        // A file no instance shows any more is let go by a compaction (removals may leave its
        // last 64 KB waiting for another instance).
        try batch.add(otherProgram, count: 2_000)
        while batch.instanceCount > 20 { try batch.remove(batch.instanceCount - 1) }
        batch.compact()
        #expect(batch.holds(program) && !batch.holds(otherProgram))
        for i in 0..<20 { batch.setFrame(Double(i), of: i) }
        batch.tick()
        for i in 0..<20 {
            #expect(LottieBatch.storesReference(batch.nodes(of: i), animation.nodes(atFrame: Double(i), size: 128)), "instance \(i)")
        }
    }

    @Test("a file that draws nothing (no layers, only a null layer) ticks and reads back empty (found by the lottie fuzzer)")
    func fileThatDrawsNothing() throws {
        for json in [#"{"fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[]}"#,
                     #"{"fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":3,"ind":1,"ip":0,"op":10,"st":0,"ks":{}}]}"#] {
            let batch = LottieBatch(maximumThreads: 1)
            let instances = try batch.add(LottieProgram(LottieAnimation(json: json), size: 64), count: 3)
            for i in instances { batch.setFrame(Double(i), of: i) }
            batch.tick()
            #expect(instances.allSatisfy { batch.nodes(of: $0).isEmpty }, "\(json)")
            #expect(batch.overflowCount == 0)
        }
    }

    @Test("bad counts are refused; an instance's frame that is not finite shows the first frame")
    func badInput() throws {
        let batch = LottieBatch(maximumThreads: 1)
        let program = try LottieProgram(lottieFile("keyframes"), size: 64)
        #expect(throws: LottieError.self) { try batch.add(program, count: -1) }
        #expect(throws: LottieError.self) { try LottieProgram(lottieFile("keyframes"), size: .nan) }
        let i = try batch.add(program, count: 1).lowerBound
        batch.setFrame(.nan, of: i)
        #expect(batch.frame(of: i) == 0)
        batch.tick()
        #expect(LottieBatch.storesReference(batch.nodes(of: i), program.animation.nodes(atFrame: 0, size: 64)))
        // Numbers the batch does not hold: ignored, empty.
        batch.setFrame(3, of: 99)
        #expect(batch.frame(of: 99) == nil && batch.frame(of: -1) == nil && batch.nodes(of: 99).isEmpty)
        var seen = -1
        batch.withGeometry(of: 99) { seen = $0.count }
        #expect(seen == 0)
        batch.withGeometry(of: i) { geometry in
            seen = geometry.count
            #expect(geometry.count > 0 && geometry.kinds(of: 0).first == 0 && geometry.paint(of: 0).isFill)
        }
        #expect(seen == batch.nodes(of: i).count)
    }

    @Test("adding, removing, compacting and ticking keep the batch's invariants; overlapping regions are named")
    func invariantsHoldAndCorruptionIsNamed() throws {
        let batch = LottieBatch(maximumThreads: 1)
        let programs = try ["trims", "keyframes", "group-opacity"].map { try LottieProgram(lottieFile($0), size: 128) }
        for (k, program) in programs.enumerated() { try batch.add(program, count: 3 + k) }
        batch.tick()
        #expect(batch.invariantViolations() == [])
        try batch.remove(0)
        try batch.remove(4)
        try batch.add(programs[0], count: 2)   // takes the freed region of its program
        batch.tick()
        #expect(batch.invariantViolations() == [])
        batch.compact()
        #expect(batch.invariantViolations() == [])
        batch.tick()
        #expect(batch.invariantViolations() == [])

        batch.outputs[1].nodeStart = batch.outputs[0].nodeStart   // two instances in one region
        #expect(batch.invariantViolations().contains { $0.contains("two node regions overlap") }, "\(batch.invariantViolations())")
    }
}

enum LottieTestScale {
    #if DEBUG
    static let isFull = false
    #else
    static let isFull = true
    #endif

}
