// The `lottie` commands: geometry, render and bench of Lottie files (AnimationLottie).

import AnimationCore
import AnimationLottie
import AnimationScene
import AnimationWorkloads
import ArgumentParser
import CAllocationCounter
import Foundation

struct Lottie: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lottie (Bodymovin) files in the subset L1.",
        subcommands: [LottieGeometry.self, LottieRender.self, LottieBench.self]
    )
}

/// Reads a Lottie file, or fails naming the problem (every feature outside L1 with its path).
func loadLottie(_ path: String, lenient: Bool) throws -> LottieAnimation {
    let data = try readFile(path)
    guard let text = String(data: data, encoding: .utf8) else { throw fail("'\(path)' is not UTF-8 text") }
    do {
        let animation = try LottieAnimation(json: text, lenient: lenient)
        for issue in animation.skipped { printError("\(path): skipped (--lenient): \(issue)") }
        return animation
    } catch let error as LottieError {
        throw fail("\(path): \(error)")
    }
}

/// A `--frames` list: finite numbers separated by commas, or nil when any part is not one.
func lottieFrames(_ text: String) -> [Double]? {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard !parts.isEmpty, numbers.count == parts.count, numbers.allSatisfy(\.isFinite) else { return nil }
    return numbers
}

struct LottieGeometry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geometry",
        abstract: "Print what a Lottie file draws at some frames: paths in device pixels, paints, opacities.",
        discussion: """
        Per frame, the nodes in painter's order (back to front), one per fill or stroke with the \
        paths it paints, fitted into SIZE × SIZE, as compact JSON:

          {"frames": [{"frame": F, "nodes": [{
            "path": [["M",x,y], ["L",x,y], ["C",x1,y1,x2,y2,x,y], ["Z"]],
            "fill": [r,g,b,a] or null, "stroke": [r,g,b,a] or null,
            "strokeWidth": w, "opacity": o}, …]}, …]}

        A node inside precompositions with a w and h also has "clip" after "opacity": the region \
        it may draw into (their rectangles, intersected), a path written as "path" is.
        """
    )

    @Argument(help: "The Lottie file (JSON).")
    var file: String

    @Option(help: "The file's own frame numbers, comma-separated (ip ≤ f < op; fractions interpolate).")
    var frames: String = "0"

    @Option(help: "The square the composition is fitted into, in device pixels (one number: the side).")
    var size: Double = 256

    @Option(help: "Output format (json).")
    var format: String = "json"

    @Flag(help: "Skip what is purely cosmetic outside L1 (blend modes, layer effects, stroke dashes), saying so on standard error.")
    var lenient = false

    func validate() throws {
        guard format == "json" else { throw ValidationError("--format must be json") }
        guard size.isFinite && size > 0 && size <= 1_000_000 else { throw ValidationError("--size must be in (0, 1000000]") }
        guard let list = lottieFrames(frames), list.count <= 100_000 else {
            throw ValidationError("--frames must list 1 to 100000 numbers separated by commas (got '\(frames)')")
        }
    }

    func run() throws {
        let animation = try loadLottie(file, lenient: lenient)
        do {
            print(try animation.geometryJSON(frames: lottieFrames(frames) ?? [], size: size))   // checked in validate()
        } catch let error as LottieError {
            throw fail("\(file): \(error)")
        }
    }
}

struct LottieRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a Lottie file's frames as SVG, with an index.html that plays them.",
        discussion: "Every frame from ip to op (exclusive), or --frames; drawn from the geometry `lottie geometry` prints."
    )

    @Argument(help: "The Lottie file (JSON).")
    var file: String

    @Option(name: .shortAndLong, help: "The directory for the frames and index.html (default: the file's name).")
    var output: String?

    @Option(help: "Frames to draw, comma-separated (default: every frame from ip to op).")
    var frames: String?

    @Option(help: "The square the composition is fitted into, in pixels (one number: the side).")
    var size: Double = 256

    @Flag(help: "Skip what is purely cosmetic outside L1, saying so on standard error.")
    var lenient = false

    func validate() throws {
        guard size.isFinite && size > 0 && size <= 16384 else { throw ValidationError("--size must be in (0, 16384]") }
        if let frames, lottieFrames(frames) == nil {
            throw ValidationError("--frames must list numbers separated by commas (got '\(frames)')")
        }
    }

    func run() throws {
        let animation = try loadLottie(file, lenient: lenient)
        let list: [Double]
        if let frames {
            list = lottieFrames(frames) ?? []   // checked in validate()
        } else {
            let span = (animation.outPoint - animation.inPoint).rounded(.up)   // finite: the reader checks ip and op
            guard span <= 100_000 else { throw fail("\(file): \(span < 1e15 ? String(Int(span)) : "\(span)") frames (draw at most 100000; pick some with --frames)") }
            let count = Int(span)
            list = (0..<count).map { animation.inPoint + Double($0) }
        }
        for (k, f) in list.enumerated() where !(f >= animation.inPoint && f < animation.outPoint) {
            throw fail("\(file): frames[\(k)]: \(f) is not a frame of the file (\(animation.inPoint) ≤ f < \(animation.outPoint))")
        }
        let directory = output ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw fail("cannot create '\(directory)': \(error.localizedDescription)")
        }
        let names = list.indices.map { String(format: "frame-%05d.svg", $0) }
        for (name, f) in zip(names, list) { try writeAtomically(animation.svg(atFrame: f, size: size), to: directory + "/" + name) }
        try writeAtomically(SceneRenderer.indexHTML(frames: names, fps: animation.frameRate, size: Size(width: size, height: size),
                                                    title: "\(URL(fileURLWithPath: file).lastPathComponent)"),
                            to: directory + "/index.html")
        printError("wrote \(names.count) frames and index.html to \(directory)")
    }
}

struct LottieBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure ticks of many Lottie instances, each at its own frame, evaluated together (LottieBatch).",
        discussion: """
        Every file gets --instances instances; instance i of a file shows frame (7·i + tick) mod its frame count \
        (distinct frames, as a screen of stickers shows them); with --fractional-frames, that frame plus a \
        fraction of its own, (0.618…·i) mod 1, as players that draw at the display's rate show them (no two \
        instances at the same value). Reported: reading and compiling apart, the tick's p50 and the time per \
        instance-frame, the batch's memory per instance, heap allocations per tick.
        """
    )

    @Argument(help: "Lottie files (JSON).")
    var files: [String]

    @Option(help: "Instances of each file.")
    var instances: Int = 1000

    @Option(help: "Ticks to measure.")
    var ticks: Int = 100

    @Option(help: "Threads (0: one per processor).")
    var threads: Int = 0

    @Option(help: "The square every instance is fitted into, in pixels.")
    var size: Double = 256

    @Flag(help: "Give each instance a fraction of a frame of its own (a player at the display's rate), not whole frames.")
    var fractionalFrames = false

    @Flag(help: "Print one JSON object, and nothing else, on standard output.")
    var json = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one Lottie file") }
        guard (1...1_000_000).contains(instances) else { throw ValidationError("--instances must be in 1…1000000") }
        guard (1...100_000).contains(ticks) else { throw ValidationError("--ticks must be in 1…100000") }
        guard (0...256).contains(threads) else { throw ValidationError("--threads must be in 0…256") }
        guard size.isFinite && size > 0 && size <= 16384 else { throw ValidationError("--size must be in (0, 16384]") }
    }

    func run() throws {
        func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
        let heapBefore = allocation_counter_heap_in_use()
        let readStart = now()
        let animations = try files.map { try loadLottie($0, lenient: false) }
        let readSeconds = Double(now() - readStart) / 1e9
        let compileStart = now()
        let programs: [LottieProgram]
        do {
            programs = try animations.map { try LottieProgram($0, size: size) }
        } catch let error as LottieError {
            throw fail("\(error)")
        }
        let batch = LottieBatch(maximumThreads: threads)
        var spans: [(range: Range<Int>, first: Double, count: Int)] = []
        for program in programs {
            let range = try batch.add(program, count: instances)
            let a = program.animation
            // The frames cycled through: op − ip, which a file may make as large as 1e308 (Int(_:) would trap).
            spans.append((range, a.inPoint, Int(min(max((a.outPoint - a.inPoint).rounded(.up), 1), 1e9))))
        }
        let setupSeconds = Double(now() - compileStart) / 1e9
        // Read once: a flag's wrapped value costs a generic-metadata lookup per read (a sixth of
        // the command's run on a one-layer file, outside the timed ticks).
        let fractionalFrames = fractionalFrames
        func setFrames(_ tick: Int) {
            for span in spans {
                for (j, i) in span.range.enumerated() {
                    // The golden ratio's fraction: every instance a different one, spread evenly.
                    let fraction = fractionalFrames ? (Double(j) * 0.618_033_988_749_895).truncatingRemainder(dividingBy: 1) : 0
                    batch.setFrame(span.first + Double((7 * j + tick) % span.count) + fraction, of: i)
                }
            }
        }
        setFrames(0)
        batch.tick()
        // Everything the instances hold, the files and programs shared among them included.
        let heapAfter = allocation_counter_heap_in_use()
        let heapPerInstance: Double? = heapBefore >= 0 && heapAfter >= 0 ? Double(heapAfter - heapBefore) / Double(batch.instanceCount) : nil
        var samples: [Double] = []
        let bar = ProgressBar(label: "\(ticks) ticks of \(batch.instanceCount) instances")
        for t in 0..<ticks {
            setFrames(t + 1)
            let start = now()
            batch.tick()
            samples.append(Double(now() - start) / 1e9)
            bar.update(Double(t + 1) / Double(ticks))   // outside the timed tick
        }
        var allocations: Double?
        if allocation_counter_available() == 1 {
            allocation_counter_start()
            for t in 0..<10 { setFrames(ticks + t); batch.tick() }
            allocations = Double(allocation_counter_stop()) / 10
        }
        samples.sort()
        let p50 = samples[samples.count / 2]
        let total = batch.instanceCount
        let perInstance = p50 / Double(total) * 1e9
        let bytes = Double(batch.bufferBytes) / Double(total)
        let usedThreads = threads > 0 ? threads : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        if json {
            var fields: [String] = []
            fields.append("\"files\":[\(files.map { JSON.string($0).text }.joined(separator: ","))]")
            fields.append("\"instancesPerFile\":\(instances)")
            fields.append("\"instances\":\(total)")
            fields.append("\"fractionalFrames\":\(fractionalFrames)")
            fields.append("\"threads\":\(usedThreads)")
            fields.append("\"readSeconds\":\(readSeconds)")
            fields.append("\"setupSeconds\":\(setupSeconds)")
            fields.append("\"tickP50Seconds\":\(p50)")
            fields.append("\"tickMinSeconds\":\(samples[0])")
            fields.append("\"nanosecondsPerInstanceFrame\":\(perInstance)")
            fields.append("\"bufferBytesPerInstance\":\(bytes)")
            fields.append("\"heapBytesPerInstance\":\(heapPerInstance.map { "\($0)" } ?? "null")")
            fields.append("\"allocationsPerTick\":\(allocations.map { "\($0)" } ?? "null")")
            fields.append("\"cpuFeatures\":\(JSON.string(BuildInfo.cpuFeatures).text)")
            print("{" + fields.joined(separator: ",") + "}")
        } else {
            print("lottie bench: \(files.count) file(s) × \(instances) instances = \(total), \(usedThreads) thread(s), \(ticks) ticks")
            print(String(format: "read %.1f ms, compile and set up %.1f ms", readSeconds * 1e3, setupSeconds * 1e3))
            print(String(format: "tick p50 %.3f ms (min %.3f ms): %.0f ns per instance-frame", p50 * 1e3, samples[0] * 1e3, perInstance))
            print(String(format: "batch memory %.0f bytes per instance; heap %@ per instance (files and programs shared)", bytes,
                         heapPerInstance.map { String(format: "%.0f bytes", $0) } ?? "unknown"))
            print("allocations / tick: \(allocations.map { String(format: "%.2f", $0) } ?? "not counted")")
        }
    }
}
