// The animation-engine command: bench (the main job), evaluate. A thin adapter over AnimationScene,
// AnimationBatch and AnimationWorkloads; every number it prints comes from those libraries.
import AnimationBatch
import AnimationCore
import AnimationScene
import AnimationWorkloads
import ArgumentParser
import CAllocationCounter
import Foundation

@main
struct AnimationEngineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animation-engine",
        abstract: "Core Animation's animation model, evaluated in bulk.",
        subcommands: [Bench.self, Evaluate.self],
        defaultSubcommand: Bench.self
    )

    /// Like ArgumentParser's own entry point, but every kind of bad input — a wrong option as much
    /// as a wrong scene file — exits with code 2 and one message (help still exits 0).
    static func main() {
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
            printError(fullMessage(for: error))
            Foundation.exit(2)
        }
    }
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
    guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot read '\(path)'") }
    guard let text = String(data: data, encoding: .utf8) else { throw fail("'\(path)' is not UTF-8 text") }
    do {
        return try SceneDecoder.decode(text)
    } catch let error as SceneError {
        throw fail("\(path): \(error)")
    }
}

/// A progress bar on standard error, when it is a terminal.
struct ProgressBar {
    let label: String
    let enabled = isatty(2) != 0
    func update(_ fraction: Double) {
        guard enabled else { return }
        let width = 30, filled = Int((fraction * Double(width)).rounded(.down))
        printError("\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                   + String(format: "] %3.0f%%", fraction * 100), terminator: "")
        if fraction >= 1 { printError("") }
    }
}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure frames: W2 of design.md (100,000 mixed animated properties) or a scene file.",
        discussion: """
        Builds the track store, runs frames at 60 Hz on the batch engine and prints frame times,
        evaluations per second, allocations per frame, the threads and build flags used, and the
        speed-up over the scalar reference with the largest deviation from it (as a fraction of the
        precision table of design.md: within the contract when ≤ 1), measured on a sample in the
        same run. Build with `-Xcc -march=native` for this CPU's vector extensions.
        """
    )

    @Argument(help: "A scene file to measure instead of the built-in workload.")
    var sceneFile: String?

    @Option(help: "The built-in scene: w2 (mixed animated properties) or seeds (W3, needs LayerTree).")
    var scene: String = "w2"

    @Option(help: "Animated properties of W2.")
    var properties: Int = 100_000

    @Option(help: "Layers of W3 (--scene seeds).")
    var layers: Int = 10_000

    @Option(help: "Frames to time.")
    var frames: Int = 120

    @Option(help: "Threads (default: one per processor).")
    var threads: Int?

    @Flag(help: "Print one JSON object, and nothing else, on standard output.")
    var json = false

    func validate() throws {
        guard properties > 0 && properties <= 50_000_000 else { throw ValidationError("--properties must be in 1…50,000,000") }
        guard frames > 0 && frames <= 100_000 else { throw ValidationError("--frames must be in 1…100,000") }
        guard layers > 0 else { throw ValidationError("--layers must be positive") }
        if let threads, threads < 1 || threads > 1024 { throw ValidationError("--threads must be in 1…1024") }
        guard ["w2", "seeds"].contains(scene) else { throw ValidationError("--scene must be w2 or seeds") }
    }

    func run() throws {
        let processors = ProcessInfo.processInfo.activeProcessorCount
        let threadCount = threads ?? processors
        let counter: ((() -> Void) -> Int)? = allocation_counter_available() == 1 ? { body in
            allocation_counter_start()
            body()
            return allocation_counter_stop()
        } : nil

        let store: TrackStore
        let layerCount: Int
        let referenceSample: (FrameEvaluator) -> ReferenceFigures
        if let sceneFile {
            let scene = try loadScene(sceneFile)
            let evaluation = try SceneEvaluation(scene)
            store = evaluation.store
            layerCount = evaluation.layers.count
            referenceSample = { _ in Self.reference(evaluation, frames: frames) }
        } else if scene == "seeds" {
            throw fail("--scene seeds (W3) drives LayerTree, which is not built yet; use --scene w2 or a scene file")
        } else {
            let bar = ProgressBar(label: "building W2")
            let workload = W2Workload(properties: properties) { bar.update($0 / 2) }
            store = try workload.makeStore { bar.update(0.5 + $0 / 2) }
            bar.update(1)
            layerCount = workload.layers.count
            referenceSample = { evaluator in
                Measure.reference(workload, evaluator: evaluator, frames: min(frames, 120), sample: 2_000)
            }
        }
        let evaluator = FrameEvaluator(store: store)
        let figures = Measure.frames(evaluator, frames: frames, threads: threadCount, countAllocations: counter)
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
                ("referenceSecondsPerFrame", .number(referenceFrame)),
                ("speedupOverReference", .number(speedup)),
                ("maxErrorVsReference", .number(reference.maximumErrorOfTolerance)),
                ("referenceSampleProperties", .number(Double(reference.sampleProperties))),
            ])
            print(object.prettyText)
            return
        }
        let rows: [(String, String)] = [
            ("scene", sceneFile ?? "W2 (design.md), \(store.trackCount) animated properties"),
            ("layers / properties", "\(layerCount) / \(store.trackCount)"),
            ("frames", "\(frames) at 60 Hz"),
            ("threads", "\(threadCount) of \(processors) processors"),
            ("build", BuildInfo.summary),
            ("frame time p50", String(format: "%.3f ms", figures.frames.p50Seconds * 1e3)),
            ("frame time p99", String(format: "%.3f ms", figures.frames.p99Seconds * 1e3)),
            ("frame time min", String(format: "%.3f ms", figures.frames.minSeconds * 1e3)),
            ("evaluations / s", String(format: "%.1f M", figures.evaluationsPerSecond / 1e6)),
            ("allocations / frame", figures.allocationsPerFrame.map { String(format: "%.2f", $0) } ?? "not counted here"),
            ("scalar reference", String(format: "%.0f ns per property → %.1f ms per frame (sample of %d)",
                                        reference.nanosecondsPerProperty, referenceFrame * 1e3, reference.sampleProperties)),
            ("speed-up over reference", String(format: "%.1f×", speedup)),
            ("max error vs reference", String(format: "%.3f of the precision table", reference.maximumErrorOfTolerance)),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows { print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value) }
    }

    /// The scalar reference on a scene: its speed, and the batch's largest deviation from it.
    static func reference(_ evaluation: SceneEvaluation, frames: Int) -> ReferenceFigures {
        let times = W2Workload.frameTimes(min(frames, 120))
        var properties = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for t in times { properties += evaluation.frame(at: t, engine: .reference).layers.reduce(0) { $0 + $1.values.count } }
        let perProperty = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(max(properties, 1))
        var worst = 0.0, worstOfTolerance = 0.0
        for t in times {
            let batch = evaluation.frame(at: t, engine: .batch), reference = evaluation.frame(at: t, engine: .reference)
            for (layer, (b, r)) in zip(evaluation.layers, zip(batch.layers, reference.layers)) {
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
        Every property a layer sets or animates, per layer per time, as
        {"frames": [{"time": t, "layers": {"id": {"keyPath": value, …}}}]} or as CSV rows
        time,layer,property,value (one number per row: position.x, backgroundColor.red, …).
        Both engines agree within the precision table of design.md.
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

    /// The requested times.
    func frameTimes() throws -> [Double] {
        if let times {
            return try times.split(separator: ",", omittingEmptySubsequences: false).map { piece in
                let text = piece.trimmingCharacters(in: .whitespaces)
                guard let t = Double(text), t.isFinite else { throw fail("--times: '\(text)' is not a finite number of seconds") }
                return t
            }
        }
        let f = fps!, d = duration!
        let count = Int((d * f).rounded(.down)) + 1
        return (0..<count).map { Double($0) / f }
    }

    func run() throws {
        let scene = try loadScene(sceneFile)
        let timeList = try frameTimes()
        let evaluation = try SceneEvaluation(scene)
        let engine = SceneEngine(rawValue: engine)!
        let frames = timeList.map { evaluation.frame(at: $0, engine: engine) }
        // Everything is formed before anything is written: a failure never leaves partial output.
        let output: String
        if format == "json" {
            output = JSON.object([("frames", .array(frames.map(\.json)))]).prettyText
        } else {
            output = ([CSV.header] + frames.flatMap(\.csvRows)).joined(separator: "\n")
        }
        print(output)
    }
}
