// The animation-engine command: bench (the main job), evaluate, render, plot, demo (the `lottie`
// commands are in LottieCommands.swift, `memory` in Memory.swift). A thin adapter over AnimationScene,
// AnimationBatch and AnimationWorkloads; every number it prints comes from those libraries.
import AnimationBatch
import AnimationCore
import AnimationScene
import AnimationWorkloads
import ArgumentParser
import CAllocationCounter
import Foundation
import LayerTree
import LayerTreeSeeds

@main
struct AnimationEngineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animation-engine",
        abstract: "Core Animation's animation model, evaluated in bulk.",
        subcommands: [Bench.self, Evaluate.self, Render.self, Plot.self, Demo.self, Lottie.self, Memory.self],
        defaultSubcommand: Bench.self
    )

    /// Like ArgumentParser's own entry point, but every kind of bad input — a wrong option as much
    /// as a wrong scene file — exits with code 2 and one message (help still exits 0).
    static func main() {
        if let typo = typo(in: Array(CommandLine.arguments.dropFirst())) {
            printError("error: \(typo)")
            Foundation.exit(2)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                exit(withError: error)   // --help, --version
            }
            // One style for every message: ArgumentParser's own begin "Error: ".
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message = "error: " + message.dropFirst("Error: ".count) }
            printError(message)
            Foundation.exit(2)
        }
    }

    /// The commands a first word may name (a word that is none of them goes to `bench` as its
    /// scene file).
    static let commandNames = ["bench", "evaluate", "render", "plot", "demo", "lottie", "memory", "help"]

    /// A first word that is neither a command nor a file but is a command misspelled (`bnech`,
    /// `evalute`): the message saying so; nil when the arguments are fine as they are.
    static func typo(in arguments: [String]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-"), !commandNames.contains(word),
              !FileManager.default.fileExists(atPath: word) else { return nil }
        let ranked = commandNames.map { (name: $0, distance: editDistance(word, $0)) }.min { $0.distance < $1.distance }
        guard let best = ranked, best.distance <= max(1, min(2, best.name.count / 3)) else { return nil }
        return "'\(word)' is neither a command nor a file; did you mean '\(best.name)'?"
    }

    /// Levenshtein distance, with a swap of two neighbours counted once (`bnech` → `bench`: 1).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        guard x.count < 64, y.count < 64 else { return Int.max }   // commands are short: no long work for a long word
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in stride(from: 1, through: x.count, by: 1) {
            for j in stride(from: 1, through: y.count, by: 1) {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}

/// A file's bytes, or a message saying why they cannot be read: missing, a directory, not
/// readable (permissions), or a read that failed.
func readFile(_ path: String) throws -> Data {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw fail("cannot read '\(path)': no such file")
    }
    guard !isDirectory.boolValue else { throw fail("cannot read '\(path)': it is a directory") }
    guard FileManager.default.isReadableFile(atPath: path) else { throw fail("cannot read '\(path)': permission denied") }
    guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot read '\(path)': the read failed") }
    return data
}

/// Writes to standard error (progress, messages): standard output carries only results.
func printError(_ s: String, terminator: String = "\n") {
    FileHandle.standardError.write((s + terminator).data(using: .utf8)!)
}

/// Fails with exit code 2 and one message (never a stack trace, never partial output).
func fail(_ message: String) -> ExitCode {
    printError("error: \(message)")
    return ExitCode(2)
}

/// Reads and decodes a scene file, or fails naming the problem.
func loadScene(_ path: String) throws -> Scene {
    let data = try readFile(path)
    guard let text = String(data: data, encoding: .utf8) else { throw fail("'\(path)' is not UTF-8 text") }
    do {
        return try SceneDecoder.decode(text)
    } catch let error as SceneError {
        throw fail("\(path): \(error)")
    }
}

/// Progress on standard error: a bar redrawn in place on a terminal; elsewhere (a log, a pipe) a
/// line `label: 42 %` every few seconds, so that a long run is never silent, and `label: done`
/// after the last if any was written. Work shorter than the interval writes nothing there. The
/// interval is 5 s, or `ANIMATION_ENGINE_PROGRESS_SECONDS`.
final class ProgressBar {
    let label: String
    let terminal = isatty(2) != 0
    let interval = ProcessInfo.processInfo.environment["ANIMATION_ENGINE_PROGRESS_SECONDS"].flatMap(Double.init) ?? 5
    private var last = Date()
    private var wroteLine = false

    init(label: String) { self.label = label }

    func update(_ fraction: Double) {
        if terminal {
            let width = 30, filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded(.down))
            printError("\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                       + String(format: "] %3.0f%%", fraction * 100), terminator: "")
            if fraction >= 1 { printError("") }
            return
        }
        if fraction >= 1 {
            if wroteLine { printError("\(label): done") }
            wroteLine = false
            return
        }
        guard Date().timeIntervalSince(last) >= interval else { return }
        printError("\(label): \(Int((fraction * 100).rounded())) %")
        last = Date()
        wroteLine = true
    }
}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure frames: W2 of docs/architecture.md (100,000 mixed animated properties) or a scene file.",
        discussion: """
        Builds the track store, runs frames at 60 Hz on the batch engine and prints frame times, \
        evaluations per second, allocations per frame, the threads and build flags used, and the \
        speed-up over the scalar reference with the largest deviation from it (as a fraction of the \
        precision table of docs/architecture.md: within the contract when ≤ 1), measured on a sample in the \
        same run. Build with `-Xcc -march=native` for this CPU's vector extensions.
        """
    )

    @Argument(help: "A scene file to measure instead of the built-in workload.")
    var sceneFile: String?

    @Option(help: "The built-in scene: w2 (mixed animated properties) or seeds (W3: layers of the five seed kinds).")
    var scene: String = "w2"

    @Option(help: "Animated properties of W2.")
    var properties: Int = 100_000

    @Option(help: "Layers of W3 (--scene seeds).")
    var layers: Int = 10_000

    @Option(help: "Frames to time.")
    var frames: Int = 120

    @Option(help: "Threads (0 or left out: one per processor).")
    var threads: Int?

    @Flag(help: "Print one JSON object, and nothing else, on standard output.")
    var json = false

    @Flag(help: "Also measure frames that compute every track's velocity (docs/velocity.md) against frames that do not, alternating in one run, and the bulk read of every velocity.")
    var velocity = false

    func validate() throws {
        guard properties > 0 && properties <= 50_000_000 else { throw ValidationError("--properties must be in 1…50,000,000") }
        guard frames > 0 && frames <= 100_000 else { throw ValidationError("--frames must be in 1…100,000") }
        guard layers > 0 && layers <= 10_000_000 else { throw ValidationError("--layers must be in 1…10,000,000") }
        if let threads, threads < 0 || threads > 1024 { throw ValidationError("--threads must be in 0…1024 (0: one per processor)") }
        guard ["w2", "seeds"].contains(scene) else { throw ValidationError("--scene must be w2 or seeds") }
    }

    func run() throws {
        let processors = ProcessInfo.processInfo.activeProcessorCount
        let threadCount = threads.map { $0 == 0 ? processors : $0 } ?? processors
        let counter: ((() -> Void) -> Int)? = allocation_counter_available() == 1 ? { body in
            allocation_counter_start()
            body()
            return allocation_counter_stop()
        } : nil

        let store: TrackStore
        let layerCount: Int
        let referenceSample: (FrameEvaluator) -> ReferenceFigures
        var tree: LayerContext?
        if let sceneFile {
            let scene = try loadScene(sceneFile)
            let evaluation = try SceneEvaluation(scene)
            store = evaluation.store
            layerCount = evaluation.layers.count
            referenceSample = { _ in Self.reference(evaluation, frames: frames) }
        } else if scene == "seeds" {
            // W3 through LayerTree: a layer tree whose ticks drive the engine.
            let bar = ProgressBar(label: "building W3")
            let context = try SeedTree.make(layers: layers)
            bar.update(0.8)
            // The reference judges the same animations on the scene's first 500 layers.
            let sample = try SceneEvaluation(try SeedScene.make(layers: min(layers, 500)))
            bar.update(1)
            tree = context
            store = context.store
            layerCount = context.layerCount - 1
            referenceSample = { _ in Self.reference(sample, frames: frames, sampleLayers: 500) }
        } else {
            let bar = ProgressBar(label: "building W2")
            // Built as drawn, keeping only the reference's sample: the bench's peak is the store's.
            let (built, sample) = try W2Workload.streamedStore(properties: properties, sample: 2_000) { bar.update($0) }
            store = built
            bar.update(1)
            layerCount = properties
            referenceSample = { evaluator in
                Measure.reference(sample, evaluator: evaluator, frames: min(frames, 120), sample: 2_000)
            }
        }
        let evaluator = tree?.evaluator ?? FrameEvaluator(store: store)
        let figures = Measure.frames(evaluator, frames: frames, threads: threadCount, countAllocations: counter)
        // End to end: frames followed by a bulk read of every presentation value (what a host
        // does), alternating with frames alone in the same run.
        let reads = Measure.reads(evaluator, frames: frames, threads: threadCount)
        let ticks = tree.map { LayerTreeMeasure.ticks($0, frames: frames, threads: threadCount, countAllocations: counter) }
        let velocities = velocity ? Measure.velocities(evaluator, frames: frames, threads: threadCount) : nil
        let reference = referenceSample(evaluator)
        let referenceFrame = reference.nanosecondsPerProperty * Double(store.trackCount) / 1e9
        let speedup = referenceFrame / figures.frames.p50Seconds

        if json {
            let object: JSON = .object([
                ("layers", .number(Double(layerCount))),
                ("properties", .number(Double(store.trackCount))),
                ("frames", .number(Double(frames))),
                ("threads", .number(Double(threadCount))),
                ("processors", .number(Double(processors))),
                ("buildFlags", .string(BuildInfo.summary)),
                ("frameTimeP50Seconds", .number(figures.frames.p50Seconds)),
                ("frameTimeP99Seconds", .number(figures.frames.p99Seconds)),
                ("frameTimeMinSeconds", .number(figures.frames.minSeconds)),
                ("evaluationsPerSecond", .number(figures.evaluationsPerSecond)),
                ("allocationsPerFrame", figures.allocationsPerFrame.map { .number($0) } ?? .null),
                ("endToEndP50Seconds", .number(reads.endToEnd.p50Seconds)),
                ("frameAloneP50Seconds", .number(reads.frameAlone.p50Seconds)),
                ("bulkReadNanosecondsPerValue", .number(reads.bulkNanosecondsPerValue)),
                ("referenceSecondsPerFrame", .number(referenceFrame)),
                ("speedupOverReference", .number(speedup)),
                ("maxErrorVsReference", .number(reference.maximumErrorOfTolerance)),
                ("referenceSampleProperties", .number(Double(reference.sampleProperties))),
            ] + (ticks.map { t in [
                ("tickEndToEndP50Seconds", .number(t.tickEndToEnd.p50Seconds)),
                ("engineEndToEndP50Seconds", .number(t.engineEndToEnd.p50Seconds)),
                ("tickOverEngine", .number(t.tickOverEngine)),
                ("churnTickP50Seconds", .number(t.churnTickEndToEnd.p50Seconds)),
                ("quietTickP50Seconds", .number(t.quietTickEndToEnd.p50Seconds)),
                ("churnOverQuiet", .number(t.churnOverQuiet)),
                ("layersChangedPerChurnTick", .number(Double(t.changedPerChurnTick))),
                ("churnChangesP50Seconds", .number(t.churnChanges.p50Seconds)),
                ("allocationsPerTick", t.allocationsPerTick.map { .number($0) } ?? .null),
            ] } ?? []) + (velocities.map { v in [
                ("velocityFrameP50Seconds", .number(v.withVelocity.p50Seconds)),
                ("velocityFrameAloneP50Seconds", .number(v.without.p50Seconds)),
                ("velocityAddedFraction", .number(v.addedFraction)),
                ("velocityBulkReadNanosecondsPerValue", .number(v.bulkNanosecondsPerValue)),
                ("velocityFirstReadNanosecondsPerValue", .number(v.firstReadNanosecondsPerValue)),
                ("velocityComputedValues", .number(Double(v.computedValues))),
                ("velocityValues", .number(Double(v.values))),
            ] } ?? []))
            print(object.prettyText)
            return
        }
        var rows: [(String, String)] = [
            ("scene", sceneFile ?? (scene == "seeds" ? "W3 (docs/architecture.md): \(layerCount) layers of the five seed kinds, a LayerTree"
                                                      : "W2 (docs/architecture.md), \(store.trackCount) animated properties")),
            ("layers / properties", "\(layerCount) / \(store.trackCount)"),
            ("frames", "\(frames) at 60 Hz"),
            ("threads", "\(threadCount) of \(processors) processors"),
            ("build", BuildInfo.summary),
            ("frame time p50", String(format: "%.3f ms", figures.frames.p50Seconds * 1e3)),
            ("frame time p99", String(format: "%.3f ms", figures.frames.p99Seconds * 1e3)),
            ("frame time min", String(format: "%.3f ms", figures.frames.minSeconds * 1e3)),
            ("evaluations / s", String(format: "%.1f M", figures.evaluationsPerSecond / 1e6)),
            ("allocations / frame", figures.allocationsPerFrame.map { String(format: "%.2f", $0) } ?? "not counted here"),
            ("frame + bulk read p50", String(format: "%.3f ms (a second run, alternating with frames alone: %.3f ms there; %.2f ns per value read)",
                                             reads.endToEnd.p50Seconds * 1e3, reads.frameAlone.p50Seconds * 1e3,
                                             reads.bulkNanosecondsPerValue)),
            ("scalar reference", String(format: "%.0f ns per property → %.1f ms per frame (sample of %d)",
                                        reference.nanosecondsPerProperty, referenceFrame * 1e3, reference.sampleProperties)),
            ("speed-up over reference", String(format: "%.1f×", speedup)),
            ("max error vs reference", String(format: "%.3f of the precision table's bound (within the contract when ≤ 1)",
                                              reference.maximumErrorOfTolerance)),
        ]
        if let t = ticks {
            rows += [
                ("LayerContext.tick + bulk read p50", String(format: "%.3f ms (the engine's frame + bulk read %.3f ms, same store, alternating: %.2f×)",
                                                            t.tickEndToEnd.p50Seconds * 1e3, t.engineEndToEnd.p50Seconds * 1e3, t.tickOverEngine)),
                ("tick after 1 % changed p50", String(format: "%.3f ms (%d layers given an implicit animation; quiet ticks %.3f ms: %.2f×)",
                                                      t.churnTickEndToEnd.p50Seconds * 1e3, t.changedPerChurnTick,
                                                      t.quietTickEndToEnd.p50Seconds * 1e3, t.churnOverQuiet)),
                ("the changes alone p50", String(format: "%.3f ms (%.2f µs per change)", t.churnChanges.p50Seconds * 1e3,
                                                 t.churnChanges.p50Seconds * 1e6 / Double(max(1, t.changedPerChurnTick)))),
                ("allocations / tick", t.allocationsPerTick.map { String(format: "%.2f", $0) } ?? "not counted here"),
            ]
        }
        if let v = velocities {
            rows += [
                ("frame with velocities p50", String(format: "%.3f ms (without, alternating: %.3f ms; %+.1f %%)", v.withVelocity.p50Seconds * 1e3,
                                                     v.without.p50Seconds * 1e3, v.addedFraction * 100)),
                ("velocities read in bulk", String(format: "%.2f ns per value (%d of %d computed by the kernels, the rest by the reference)",
                                                   v.bulkNanosecondsPerValue, v.computedValues, v.values)),
                ("first bulk read after a frame", String(format: "%.2f ns per value (the rows left to the reference filled from it)",
                                                         v.firstReadNanosecondsPerValue)),
            ]
        }
        // The headline: what a reader wants from one run, before the figures behind it.
        let allocations = figures.allocationsPerFrame.map { $0 == 0 ? "no allocation" : String(format: "%.2f allocations", $0) }
        print(String(format: "%@ animated properties: a frame in %.3f ms (p50, %d thread%@), %.1f× the speed of the scalar reference, %@",
                     "\(store.trackCount)", figures.frames.p50Seconds * 1e3, threadCount, threadCount == 1 ? "" : "s", speedup,
                     reference.maximumErrorOfTolerance <= 1 ? "within its precision contract" : "OUTSIDE its precision contract")
              + (allocations.map { ", \($0) per frame" } ?? ""))
        print("")
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows { print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value) }
    }

    /// The scalar reference on a scene (on its first `sampleLayers` layers when given): its speed,
    /// and the batch's largest deviation from it.
    static func reference(_ evaluation: SceneEvaluation, frames: Int, sampleLayers: Int? = nil) -> ReferenceFigures {
        let times = W2Workload.frameTimes(min(frames, 120))
        let sample = 0..<min(sampleLayers ?? evaluation.layers.count, evaluation.layers.count)
        var properties = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for t in times {
            properties += evaluation.frame(at: t, engine: .reference, layers: sample).layers.reduce(0) { $0 + $1.values.count }
        }
        let perProperty = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(max(properties, 1))
        var worst = 0.0, worstOfTolerance = 0.0
        for t in times {
            let batch = evaluation.frame(at: t, engine: .batch, layers: sample)
            let reference = evaluation.frame(at: t, engine: .reference, layers: sample)
            for (layer, (b, r)) in zip(evaluation.layers[sample], zip(batch.layers, reference.layers)) {
                for (x, y) in zip(b.values, r.values) {
                    let difference = PrecisionTable.maxDifference(x.value, y.value)
                    worst = max(worst, difference / (1 + PrecisionTable.magnitude(y.value)))
                    let tolerance = PrecisionTable.tolerance(property: x.keyPath, model: layer.modelValue(x.keyPath),
                                                             animations: layer.animations, reference: y.value)
                    worstOfTolerance = max(worstOfTolerance, difference / tolerance)
                }
            }
        }
        return ReferenceFigures(sampleProperties: properties / max(times.count, 1), nanosecondsPerProperty: perProperty,
                                maximumRelativeError: worst, maximumErrorOfTolerance: worstOfTolerance)
    }
}

struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a scene's presentation values at given times.",
        discussion: """
        Every property a layer sets or animates, per layer per time, as \
        {"frames": [{"time": t, "layers": {"id": {"keyPath": value, …}}}]} or as CSV rows \
        time,layer,property,value (one number per row: position.x, backgroundColor.red, …). \
        Both engines agree within the precision table of docs/architecture.md. With --velocity, \
        each frame adds "velocities" (the same shape, d value/dt) and CSV rows a velocity column.
        """
    )

    @Argument(help: "The scene file (docs/scene-format.md).")
    var sceneFile: String

    @Option(help: "Comma-separated times in seconds.")
    var times: String?

    @Option(help: "Frames per second (with --duration).")
    var fps: Double?

    @Option(help: "Seconds to cover from 0 (with --fps).")
    var duration: Double?

    @Option(help: "json or csv.")
    var format: String = "json"

    @Option(help: "batch (the SIMD engine) or reference (the scalar reference evaluator).")
    var engine: String = "batch"

    @Flag(help: "Add each value's velocity, d value/dt per second (docs/velocity.md): a \"velocities\" object per frame in JSON, a velocity column in CSV.")
    var velocity = false

    func validate() throws {
        guard ["json", "csv"].contains(format) else { throw ValidationError("--format must be json or csv") }
        guard SceneEngine(rawValue: engine) != nil else { throw ValidationError("--engine must be batch or reference") }
        switch (times, fps, duration) {
        case (.some, nil, nil): break
        case (nil, .some(let f), .some(let d)):
            guard f.isFinite && f > 0 && f <= 10_000 else { throw ValidationError("--fps must be in (0, 10,000]") }
            guard d.isFinite && d >= 0 && f * d <= 1_000_000 else { throw ValidationError("--duration must be ≥ 0, at most 1,000,000 frames in all") }
        default: throw ValidationError("give --times, or --fps with --duration")
        }
    }

    /// The requested times, computed as they are used (memory flat in their number).
    func requestedTimes() throws -> AnySequence<Double> {
        if let times {
            return AnySequence(try times.split(separator: ",", omittingEmptySubsequences: false).map { piece in
                let text = piece.trimmingCharacters(in: .whitespaces)
                guard let t = Double(text), t.isFinite else { throw fail("--times: '\(text)' is not a finite number of seconds") }
                return t
            })
        }
        let fps = fps!
        return AnySequence((0..<frameCount(fps: fps, duration: duration!)).lazy.map { Double($0) / fps })
    }

    func run() throws {
        let scene = try loadScene(sceneFile)
        let timeList = try requestedTimes()
        let evaluation = try SceneEvaluation(scene)
        // Every input was checked above, so nothing fails once writing starts: a bad input still
        // leaves no partial output, and rows go out as they are computed.
        var output = StandardOutput()
        evaluation.writeFrames(at: timeList, engine: SceneEngine(rawValue: engine)!, format: SceneTextFormat(rawValue: format)!,
                               velocity: velocity) {
            output.write($0)
        }
        output.flush()
    }
}

/// Standard output through a 64 KiB buffer: one write(2) per buffer, not per frame or row.
struct StandardOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                // Unchecked pointer: offset < bytes.count, so the buffer is non-empty and the range in it.
                let n = Foundation.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    // A reader that closed early (`| head`) has what it wanted; anything else is a failure.
                    if errno == EPIPE { exit(0) }
                    FileHandle.standardError.write(Data("error: cannot write standard output: \(String(cString: strerror(errno)))\n".utf8))
                    exit(1)
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes `text` to `path` whole or not at all (a temporary file beside it, then a rename).
func writeAtomically(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
    do {
        // A file in a folder not made yet (`-o out/arc.svg`) gets the folder, as a sequence's does.
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: temporary)
        // rename(2) replaces an existing file atomically.
        guard rename(temporary.path, url.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    } catch {
        try? FileManager.default.removeItem(at: temporary)
        throw fail("cannot write '\(path)': \(error.localizedDescription)")
    }
}

/// Frame times from 0: `fps` frames a second over `duration` seconds, both ends included.
func frameTimes(fps: Double, duration: Double) -> [Double] {
    (0..<frameCount(fps: fps, duration: duration)).map { Double($0) / fps }
}

/// How many of ``frameTimes(fps:duration:)`` there are.
func frameCount(fps: Double, duration: Double) -> Int {
    Int((duration * fps + 1e-9).rounded(.down)) + 1
}

/// Parses `WIDTHxHEIGHT`, or one number for a square (as `lottie`'s `--size` reads it).
func parseSize(_ text: String?) throws -> Size? {
    guard let text else { return nil }
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    let numbers = parts.count == 1 ? [parts[0], parts[0]] : parts
    guard numbers.count == 2, let w = Double(numbers[0]), let h = Double(numbers[1]), w.isFinite, h.isFinite,
          w >= 1, h >= 1, w <= 16384, h <= 16384 else {
        throw fail("--size: '\(text)' is not WIDTHxHEIGHT (or one number for a square) with each in 1…16384")
    }
    return Size(width: w, height: h)
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a scene as SVG: one frame, or a sequence of frames with an index.html that plays them.",
        discussion: """
        Shape layers and plain layers are drawn from their presentation values: position, bounds, \
        anchorPoint, transform (orthographic), opacity, backgroundColor, cornerRadius, border, \
        shadow, zPosition, sublayerTransform; a shape's path filled with fillColor and stroked with \
        strokeColor at lineWidth, trimmed to strokeStart…strokeEnd. The canvas holds every \
        top-level layer's frame unless --size is given.
          render SCENE --at 0.5 -o frame.svg
          render SCENE --fps 30 --duration 2 -o frames/
        """
    )

    @Argument(help: "The scene file (docs/scene-format.md).")
    var sceneFile: String

    @Option(help: "The scene time of a single frame, in seconds.")
    var at: Double?

    @Option(help: "Frames per second of a sequence (with --duration).")
    var fps: Double?

    @Option(help: "Seconds a sequence covers from 0 (with --fps).")
    var duration: Double?

    @Option(name: .shortAndLong, help: "The SVG file (--at; standard output if omitted) or the directory (--fps).")
    var output: String?

    @Option(help: "The canvas as WIDTHxHEIGHT, or one number for a square (default: fits the top-level layers).")
    var size: String?

    @Option(help: "batch (the SIMD engine) or reference (the scalar reference evaluator).")
    var engine: String = "batch"

    func validate() throws {
        guard SceneEngine(rawValue: engine) != nil else { throw ValidationError("--engine must be batch or reference") }
        switch (at, fps, duration) {
        case (.some(let t), nil, nil):
            guard t.isFinite else { throw ValidationError("--at must be a finite number of seconds") }
        case (nil, .some(let f), .some(let d)):
            guard f.isFinite && f > 0 && f <= 1000 else { throw ValidationError("--fps must be in (0, 1000]") }
            guard d.isFinite && d >= 0 && f * d <= 10_000 else { throw ValidationError("--duration must be ≥ 0, at most 10,000 frames in all") }
            guard output != nil else { throw ValidationError("a sequence needs -o DIRECTORY") }
        default: throw ValidationError("give --at, or --fps with --duration")
        }
    }

    func run() throws {
        let scene = try loadScene(sceneFile)
        let canvas = try parseSize(size)
        let renderer = SceneRenderer(try SceneEvaluation(scene), size: canvas)
        let engine = SceneEngine(rawValue: engine)!
        if let at {
            let svg = renderer.svg(at: at, engine: engine)
            if let output {
                try writeAtomically(svg, to: output)
                printError("wrote \(output) (\(Int(renderer.size.width)) × \(Int(renderer.size.height)))")
            } else {
                print(svg, terminator: "")
            }
            return
        }
        // Every frame is drawn before anything is written.
        let times = frameTimes(fps: fps!, duration: duration!)
        let names = times.indices.map { String(format: "frame-%05d.svg", $0) }
        let bar = ProgressBar(label: "drawing \(times.count) frames")
        var documents: [String] = []
        for (k, t) in times.enumerated() {
            documents.append(renderer.svg(at: t, engine: engine))
            bar.update(Double(k + 1) / Double(times.count))
        }
        let directory = output!
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw fail("cannot create '\(directory)': \(error.localizedDescription)")
        }
        for (name, svg) in zip(names, documents) { try writeAtomically(svg, to: directory + "/" + name) }
        try writeAtomically(SceneRenderer.indexHTML(frames: names, fps: fps!, size: renderer.size,
                                                    title: URL(fileURLWithPath: sceneFile).lastPathComponent),
                            to: directory + "/index.html")
        printError("wrote \(names.count) frames and index.html to \(directory)")
    }
}

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw SVG charts: timing functions side by side, or properties of a scene over time.",
        discussion: """
        With neither a scene nor --timing it draws the five named timing functions. A scene \
        property is one chart per --property, one line per component; the time axis covers the \
        layer's animations (--duration to choose). For example:

          plot --timing easeIn --timing 0.68,-0.55,0.27,1.55 -o curves.svg
          plot SCENE --layer ring --property strokeEnd -o ring.svg
        """
    )

    @Argument(help: "A scene file whose properties to plot.")
    var sceneFile: String?

    @Option(help: "A timing function: linear, easeIn, easeOut, easeInEaseOut, default, or x1,y1,x2,y2 (repeatable).")
    var timing: [String] = []

    @Option(help: "The layer whose properties to plot.")
    var layer: String?

    @Option(help: "A property (or component: position.y) of --layer (repeatable).")
    var property: [String] = []

    @Option(help: "Seconds to cover from 0 (default: until the layer's animations end).")
    var duration: Double?

    @Option(help: "Samples per second.")
    var fps: Double = 120

    @Option(help: "batch (the SIMD engine) or reference (the scalar reference evaluator).")
    var engine: String = "batch"

    @Option(name: .shortAndLong, help: "The SVG file (standard output if omitted).")
    var output: String?

    func validate() throws {
        guard SceneEngine(rawValue: engine) != nil else { throw ValidationError("--engine must be batch or reference") }
        guard fps.isFinite && fps > 0 && fps <= 10_000 else { throw ValidationError("--fps must be in (0, 10,000]") }
        if let duration, !(duration.isFinite && duration > 0 && duration * fps <= 1_000_000) {
            throw ValidationError("--duration must be > 0, at most 1,000,000 samples in all")
        }
        if sceneFile != nil {
            guard timing.isEmpty else { throw ValidationError("give a scene or --timing, not both") }
            guard layer != nil, !property.isEmpty else { throw ValidationError("a scene plot needs --layer and at least one --property") }
        } else if layer != nil || !property.isEmpty {
            throw ValidationError("--layer and --property need a scene file")
        }
    }

    /// A timing function from its name or four control-point numbers.
    static func timingFunction(_ text: String) throws -> TimingFunction {
        if let name = TimingFunction.Name(rawValue: text) { return TimingFunction(name: name) }
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 4, numbers.allSatisfy({ $0 != nil }) else {
            throw fail("--timing: '\(text)' is not \(TimingFunction.Name.allCases.map(\.rawValue).joined(separator: ", ")) or x1,y1,x2,y2")
        }
        do {
            return try TimingFunction(controlPoints: numbers[0]!, numbers[1]!, numbers[2]!, numbers[3]!)
        } catch let error as AnimationError {
            throw fail("--timing '\(text)': \(error)")
        }
    }

    func run() throws {
        let svg: String
        if let sceneFile {
            let evaluation = try SceneEvaluation(try loadScene(sceneFile))
            let engine = SceneEngine(rawValue: engine)!
            do {
                let span = try duration ?? evaluation.plotDuration(layer: layer!)
                let times = frameTimes(fps: fps, duration: span)
                let charts = try property.map { name in
                    SVGChart(title: "\(layer!).\(name)", xLabel: "scene time (s)", yLabel: name,
                             series: try evaluation.series(layer: layer!, property: name, times: times, engine: engine))
                }
                svg = SVGChart.grid(charts, columns: min(charts.count, 2))
            } catch let error as SceneError {
                throw fail("\(sceneFile): \(error.path == "layer" ? "--layer" : "--property"): \(error.reason)")
            }
        } else {
            let functions = timing.isEmpty ? TimingFunction.Name.allCases.map { TimingFunction(name: $0) }
                                           : try timing.map(Self.timingFunction)
            svg = SVGChart.grid(functions.map { SVGChart.timingFunction($0) }, columns: min(functions.count, 5))
        }
        if let output {
            try writeAtomically(svg, to: output)
            printError("wrote \(output)")
        } else {
            print(svg, terminator: "")
        }
    }
}

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a seed article as a LayerTree program and write its frames as SVG with an index.html that plays them.",
        discussion: """
        Seeds: \(Seeds.all.map { "\($0.name) (\($0.title))" }.joined(separator: "; ")). \
        Each frame is drawn from the layers' presentation values after a tick; the program's log \
        (delegate callbacks, completion blocks, presentation reads) is printed and written to log.txt.
        """
    )

    @Argument(help: "The seed: progress-ring, transactions, border, ring-did-stop, arc-flight or retarget.")
    var seed: String

    @Option(name: .shortAndLong, help: "The directory for the frames and index.html (default: demo-<seed>).")
    var output: String?

    @Option(help: "Frames per second.")
    var fps: Double = 30

    func validate() throws {
        guard Seeds.named(seed) != nil else {
            throw ValidationError("unknown seed '\(seed)' (seeds: \(Seeds.all.map { $0.name }.joined(separator: ", ")))")
        }
        guard fps.isFinite && fps > 0 && fps <= 240 else { throw ValidationError("--fps must be in (0, 240]") }
    }

    func run() throws {
        let program = Seeds.named(seed)!.init()
        let documents = SeedRun.frames(program, fps: fps)
        let names = documents.indices.map { String(format: "frame-%05d.svg", $0) }
        let directory = output ?? "demo-\(seed)"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw fail("cannot create '\(directory)': \(error.localizedDescription)")
        }
        for (name, svg) in zip(names, documents) { try writeAtomically(svg, to: directory + "/" + name) }
        try writeAtomically(SceneRenderer.indexHTML(frames: names, fps: fps, size: program.canvas,
                                                    title: "\(seed): \(type(of: program).title)"),
                            to: directory + "/index.html")
        let log = program.log.joined(separator: "\n") + "\n"
        try writeAtomically(log, to: directory + "/log.txt")
        print(log, terminator: "")
        var written = "\(names.count) frames, index.html and log.txt"
        if program is RetargetSeed {
            // Value and velocity over time, both rings, sampled finer than the frames.
            try writeAtomically(RetargetSeed.chart(fps: max(fps, 120)), to: directory + "/chart.svg")
            written += ", chart.svg (progress and velocity against time)"
        }
        printError("wrote \(written) to \(directory)")
    }
}
