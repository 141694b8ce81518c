import CAllocationCounter
import Foundation
import Testing

/// The built `animation-engine` executable, beside the test bundle.
let executable: URL = {
    let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
    for directory in candidates {
        let url = directory.appendingPathComponent("animation-engine")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return candidates[0].appendingPathComponent("animation-engine")
}()

let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples")

/// The Lottie test files written for this project.
let lottieFiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("AnimationLottieTests/Files")

struct Run {
    var status: Int32
    var output: String
    var error: String
}

/// Runs the command with `arguments`; standard input is empty.
func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read before waiting, so a large output never fills the pipe and blocks the child.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
               error: String(decoding: errData, as: UTF8.self))
}

/// A scene file in a fresh temporary directory (remove it with ``removeSceneDirectory(_:)``).
func sceneFile(_ text: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("animation-engine-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("scene.json")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
}

/// Removes the temporary directory of a scene file from ``sceneFile(_:)`` and everything in it.
func removeSceneDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

@Suite("animation-engine command")
struct CommandTests {
    @Test("memory: bytes per slot and track of every kind and per layer; heap back where it started after add/remove and create/remove cycles",
          .enabled(if: allocation_counter_available() == 1, "the heap in use is measured with glibc's mallinfo2, not under a sanitizer"))
    func memoryFigures() throws {
        let result = try run(["memory", "--layers", "300", "--cycles", "3000", "--layer-cycles", "600", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let kinds = try #require(report["kinds"] as? [[String: Any]])
        #expect(kinds.map { $0["kind"] as? String } == ["basic scalar", "basic point", "basic color", "basic transform",
                                                        "keyframe scalar (8 values)", "spring scalar", "path (8 elements)"])
        for kind in kinds {
            let track = try #require(kind["bytesPerTrack"] as? Double), slot = try #require(kind["bytesPerSlot"] as? Double)
            #expect(track > 64 && track < 100_000 && slot > 16 && slot < 100_000, "\(kind)")
        }
        #expect((report["bytesPerLayer"] as? Double ?? 0) > 64)
        let cycles = try #require(report["cycles"] as? [[String: Any]])
        #expect(cycles.count == 3)
        for run in cycles {
            #expect(run["returned"] as? Bool == true && (run["difference"] as? Int ?? .max) <= 65_536, "\(run)")
        }
        // A bad option is refused as every other command's are.
        let bad = try run(["memory", "--layers", "0"])
        #expect(bad.status == 2 && bad.error.contains("--layers"))
    }

    @Test("the executable is built beside the tests")
    func found() {
        #expect(FileManager.default.isExecutableFile(atPath: executable.path), "\(executable.path)")
    }

    @Test("evaluate: JSON frames with every reported property per layer")
    func evaluateJSON() throws {
        let result = try run(["evaluate", examples.appendingPathComponent("progress-ring.json").path, "--times", "0,1,2.5"])
        #expect(result.status == 0, "\(result.error)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let frames = try #require(object?["frames"] as? [[String: Any]])
        #expect(frames.map { $0["time"] as? Double } == [0, 1, 2.5])
        let layers = try #require(frames[2]["layers"] as? [String: [String: Any]])
        #expect(Set(layers.keys) == ["track", "ring"])
        let end = try #require(layers["ring"]?["strokeEnd"] as? Double)
        #expect(abs(end - 0.72) < 1e-6, "filled forwards at the end value")
    }

    @Test("evaluate: CSV, and both engines print the same rows within the precision table")
    func evaluateCSV() throws {
        let scene = examples.appendingPathComponent("spring.json").path
        let batch = try run(["evaluate", scene, "--fps", "10", "--duration", "1", "--format", "csv"])
        let reference = try run(["evaluate", scene, "--fps", "10", "--duration", "1", "--format", "csv", "--engine", "reference"])
        #expect(batch.status == 0 && reference.status == 0)
        let rows = batch.output.split(separator: "\n"), referenceRows = reference.output.split(separator: "\n")
        #expect(rows.first == "time,layer,property,value")
        #expect(rows.count == referenceRows.count && rows.count > 11)
        for (b, r) in zip(rows.dropFirst(), referenceRows.dropFirst()) {
            let bf = b.split(separator: ","), rf = r.split(separator: ",")
            #expect(bf.prefix(3) == rf.prefix(3))
            let x = Double(bf[3])!, y = Double(rf[3])!
            #expect(abs(x - y) <= 1e-3 * (1 + abs(y)), "\(b) vs \(r)")
        }
    }

    @Test("evaluate --velocity: a velocity column in CSV and a velocities object in JSON, the same from both engines")
    func evaluateVelocity() throws {
        let scene = try sceneFile(#"{"layers": [{"id": "a", "properties": {"opacity": 0},"#
            + #""animations": [{"type": "basic", "keyPath": "position", "from": [0, 0], "to": [100, 40], "duration": 2, "timingFunction": "linear"}]}]}"#)
        defer { removeSceneDirectory(scene) }
        for engine in ["batch", "reference"] {
            let csv = try run(["evaluate", scene.path, "--times", "0.5,3", "--format", "csv", "--velocity", "--engine", engine])
            #expect(csv.status == 0, "\(csv.error)")
            let rows = csv.output.split(separator: "\n").map(String.init)
            #expect(rows.first == "time,layer,property,value,velocity")
            #expect(rows.contains("0.5,a,position.x,25,50") && rows.contains("0.5,a,position.y,10,20"), "\(rows)")
            #expect(rows.contains("0.5,a,opacity,0,0") && rows.contains("3,a,position.x,0,0"), "\(rows)")
            let json = try run(["evaluate", scene.path, "--times", "0.5", "--velocity", "--engine", engine])
            let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
            let frame = try #require((object?["frames"] as? [[String: Any]])?.first)
            let velocities = try #require(frame["velocities"] as? [String: [String: Any]])
            #expect(velocities["a"]?["position"] as? [Double] == [50, 20])
            #expect(frame["layers"] != nil)
        }
        let plain = try run(["evaluate", scene.path, "--times", "0.5"])
        #expect(!plain.output.contains("velocities"), "nothing added without the flag")
    }

    @Test("bad input: exit code 2, one message naming the problem, nothing on standard output",
          arguments: [
              (#"{"layers": [{"id": "a", "animations": [{"type": "keyframe", "keyPath": "opacity", "values": [0, 1, 0], "keyTimes": [0, 0.6, 0.5]}]}]}"#,
               "layers[0].animations[0].keyTimes: must be non-decreasing"),
              (#"{"layers": [{"id": "a", "animations": [{"type": "wobble", "keyPath": "opacity"}]}]}"#, "layers[0].animations[0].type"),
              (#"{"layers": [{"id": "a", "properties": {"position": [1, 2, 3]}}]}"#, "layers[0].properties.position"),
              (#"{"layers": [{"id": "a", }]}"#, "malformed JSON at line 1"),
          ])
    func badScene(text: String, expected: String) throws {
        let scene = try sceneFile(text)
        defer { removeSceneDirectory(scene) }
        let result = try run(["evaluate", scene.path, "--times", "0"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains(expected), "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1, "one message: \(result.error)")
        #expect(!result.error.contains("Fatal error") && !result.error.contains("Stack dump"))
    }

    @Test("bad options: exit code 2 and one message",
          arguments: [["evaluate", "missing.json", "--times", "0"], ["evaluate", "x.json", "--times", "0", "--format", "xml"],
                      ["evaluate", "x.json"], ["bench", "--properties", "0"], ["bench", "--scene", "w9"],
                      ["render", "x.json"], ["render", "x.json", "--fps", "10", "--duration", "1"],
                      ["plot", "--timing", "1.5,0,1,1"], ["plot", "--timing", "bouncy"], ["plot", "x.json"], ["frobnicate"]])
    func badOptions(arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.error)")
        #expect(result.output.isEmpty)
        #expect(!result.error.isEmpty)
    }

    @Test("a misspelled command is named with what it resembles; a file that cannot be read says why; every message starts with 'error:'")
    func typosAndUnreadableFiles() throws {
        let bench = try run(["bnech"])
        #expect(bench.status == 2 && bench.output.isEmpty
                && bench.error == "error: 'bnech' is neither a command nor a file; did you mean 'bench'?\n", "\(bench.error)")
        let evaluate = try run(["evalute", examples.appendingPathComponent("arc.json").path])
        #expect(evaluate.status == 2 && evaluate.error.contains("did you mean 'evaluate'?"), "\(evaluate.error)")
        // A word far from every command is taken as a scene file, as before.
        let far = try run(["frobnicate"])
        #expect(far.status == 2 && far.error == "error: cannot read 'frobnicate': no such file\n", "\(far.error)")
        let directory = try run(["evaluate", examples.path, "--times", "0"])
        #expect(directory.status == 2 && directory.error.contains("cannot read '\(examples.path)': it is a directory"), "\(directory.error)")
        let lottie = try run(["lottie", "geometry", "/nonexistent/file.json"])
        #expect(lottie.status == 2 && lottie.error.contains("no such file"), "\(lottie.error)")
        // ArgumentParser's own messages in the same style.
        let option = try run(["bench", "--frobnicate"])
        #expect(option.status == 2 && option.error.hasPrefix("error: ") && !option.error.contains("Error:"), "\(option.error)")
    }

    @Test("progress when standard error is not a terminal: a line every few seconds and 'done'; --threads 0 is one per processor")
    func progressWithoutATerminal() throws {
        // Lines every 0 s instead of 5, so that a short run shows them; the pipes are no terminal.
        let result = try run(["bench", "--properties", "500", "--frames", "2", "--threads", "0"],
                             environment: ["ANIMATION_ENGINE_PROGRESS_SECONDS": "0"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.error.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("building W2: ") && $0.hasSuffix(" %") }, "\(result.error)")
        #expect(lines.contains("building W2: done") && !result.error.contains("\r"), "\(result.error)")
        #expect(result.output.contains("threads"), "the figures still on standard output")
        // Without the setting, work this short writes no progress at all (the interval is 5 s).
        let quiet = try run(["bench", "--properties", "500", "--frames", "2"])
        #expect(quiet.status == 0 && !quiet.error.contains("building W2"), "\(quiet.error)")
        // render's sequences and lottie bench's ticks report progress the same way.
        let placeholder = try sceneFile("{}")
        defer { removeSceneDirectory(placeholder) }
        let frames = placeholder.deletingLastPathComponent().appendingPathComponent("frames")
        let render = try run(["render", examples.appendingPathComponent("arc.json").path, "--fps", "4", "--duration", "1", "-o", frames.path],
                             environment: ["ANIMATION_ENGINE_PROGRESS_SECONDS": "0"])
        #expect(render.status == 0 && render.error.contains("drawing 5 frames: done"), "\(render.error)")
        let lottie = try run(["lottie", "bench", lottieFiles.appendingPathComponent("trims.json").path, "--instances", "2", "--ticks", "3"],
                             environment: ["ANIMATION_ENGINE_PROGRESS_SECONDS": "0"])
        #expect(lottie.status == 0 && lottie.error.contains("3 ticks of 2 instances: done"), "\(lottie.error)")
    }

    @Test("help: paragraphs are wrapped once, by the parser (no ragged lines), and every example fits one line")
    func helpWrapsOnce() throws {
        for command in [["bench"], ["evaluate"], ["render"], ["plot"], ["demo"], ["memory"], ["lottie", "geometry"], ["lottie", "bench"]] {
            let help = try run(command + ["--help"])
            #expect(help.status == 0)
            // The discussion: after the overview's paragraph, up to USAGE.
            let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let usage = lines.firstIndex(where: { $0.hasPrefix("USAGE:") }),
                  let start = lines.firstIndex(where: { $0.isEmpty }), start < usage else { continue }
            let discussion = Array(lines[(start + 1)..<usage])
            for (k, line) in discussion.enumerated() where k + 1 < discussion.count {
                let next = discussion[k + 1]
                // A line of a paragraph followed by more of it is filled close to the width.
                guard !line.isEmpty, !next.isEmpty, !line.hasPrefix("  "), !next.hasPrefix("  ") else { continue }
                #expect(line.count >= 55, "\(command): a ragged line '\(line)' before '\(next)'")
            }
            for line in discussion where line.hasPrefix("  ") {
                #expect(line.count <= 80, "\(command): an example longer than a line: '\(line)'")
            }
        }
        let plot = try run(["plot", "--help"])
        #expect(plot.output.contains("\n  plot --timing easeIn --timing 0.68,-0.55,0.27,1.55 -o curves.svg\n"))
        #expect(try run(["render", "--help"]).output.contains("\n  render SCENE --fps 30 --duration 2 -o frames/\n"))
    }

    @Test("evaluate --times with a non-number names it")
    func badTimes() throws {
        let result = try run(["evaluate", examples.appendingPathComponent("color.json").path, "--times", "0,soon"])
        #expect(result.status == 2 && result.output.isEmpty && result.error.contains("'soon'"))
    }

    @Test("render: one frame to a file; a sequence with index.html; a failure leaves the old file intact")
    func render() throws {
        let placeholder = try sceneFile("{}")
        defer { removeSceneDirectory(placeholder) }
        let directory = placeholder.deletingLastPathComponent()
        let frame = directory.appendingPathComponent("frame.svg")
        let scene = examples.appendingPathComponent("stroke.json").path
        let single = try run(["render", scene, "--at", "1", "-o", frame.path])
        #expect(single.status == 0 && single.error.hasPrefix("wrote \(frame.path) (") && single.output.isEmpty, "\(single.error)")
        let svg = try String(contentsOf: frame, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains(#"id="squiggle""#))

        let bad = try sceneFile(#"{"layers": [{"id": "a", "properties": {"opacity": "high"}}]}"#)
        defer { removeSceneDirectory(bad) }
        let failed = try run(["render", bad.path, "--at", "1", "-o", frame.path])
        #expect(failed.status == 2)
        #expect(try String(contentsOf: frame, encoding: .utf8) == svg, "the earlier output is untouched")

        let frames = directory.appendingPathComponent("frames")
        #expect(try run(["render", scene, "--fps", "4", "--duration", "1", "-o", frames.path]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
        #expect(files == ["frame-00000.svg", "frame-00001.svg", "frame-00002.svg", "frame-00003.svg", "frame-00004.svg", "index.html"])

        // A file in a folder not made yet gets the folder.
        let nested = directory.appendingPathComponent("out/deeper/frame.svg")
        #expect(try run(["render", scene, "--at", "1", "-o", nested.path]).status == 0)
        #expect(try String(contentsOf: nested, encoding: .utf8) == svg)

        // --size as WIDTHxHEIGHT, or one number for a square as `lottie` reads it.
        let square = try run(["render", scene, "--at", "1", "--size", "64"])
        #expect(square.status == 0 && square.output.contains(#"width="64" height="64""#), "\(square.output.prefix(200))")
        let wide = try run(["render", scene, "--at", "1", "--size", "90x40"])
        #expect(wide.status == 0 && wide.output.contains(#"width="90" height="40""#))
        let refused = try run(["render", scene, "--at", "1", "--size", "0"])
        #expect(refused.status == 2 && refused.error.contains("--size"))
    }

    @Test("plot: timing functions and a scene property as SVG")
    func plot() throws {
        let timing = try run(["plot", "--timing", "easeOut", "--timing", "0.1,0.7,0.2,1"])
        #expect(timing.status == 0 && timing.output.hasPrefix("<svg") && timing.output.contains(">easeOut</text>"))
        let property = try run(["plot", examples.appendingPathComponent("color.json").path, "--layer", "swatch",
                                "--property", "backgroundColor", "--property", "opacity"])
        #expect(property.status == 0 && property.output.contains(">swatch.opacity</text>") && property.output.contains("backgroundColor.red"))
        let unknown = try run(["plot", examples.appendingPathComponent("color.json").path, "--layer", "swatch", "--property", "strokeEnd"])
        #expect(unknown.status == 2 && unknown.error.contains("neither sets nor animates 'strokeEnd'"))
    }

    @Test("bench --json: one JSON object with the documented fields, for W2 and for the W3 seeds")
    func benchJSON() throws {
        for arguments in [["bench", "--properties", "500", "--frames", "3", "--json"],
                          ["bench", "--scene", "seeds", "--layers", "40", "--frames", "3", "--json", "--threads", "1"]] {
            let result = try run(arguments)
            #expect(result.status == 0, "\(result.error)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            for field in ["layers", "properties", "frames", "threads", "buildFlags", "frameTimeP50Seconds", "frameTimeP99Seconds",
                          "evaluationsPerSecond", "allocationsPerFrame", "speedupOverReference", "maxErrorVsReference"] {
                #expect(object[field] != nil, "\(arguments[1]): \(field)")
            }
            #expect((object["maxErrorVsReference"] as? Double ?? 2) <= 1, "within the precision table")
            #expect(object["frames"] as? Int == 3)
        }
    }

    @Test("lottie geometry: the documented JSON for the file's own frames; a file outside L1 names each feature and its path")
    func lottieGeometry() throws {
        let lottie = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AnimationLottieTests/Files")
        let result = try run(["lottie", "geometry", lottie.appendingPathComponent("shapes-rectangles.json").path,
                              "--frames", "0,7", "--size", "200", "--format", "json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix(#"{"frames":[{"frame":0,"nodes":[{"path":[["M",110,120],["L",110,120],["C","#))
        #expect(result.output.contains(#"{"path":[["M",50,70],["L",50,90],["L",10,90],["L",10,70],["L",50,70],["Z"]],"fill":[1,0,0,1],"stroke":null,"strokeWidth":0,"opacity":1}]},{"frame":7,"#))
        let outside = try run(["lottie", "geometry", lottie.appendingPathComponent("outside-l1.json").path])
        #expect(outside.status == 2 && outside.output.isEmpty)
        #expect(outside.error.contains("masks at layers[0].masksProperties") && outside.error.contains("text layers at layers[1].ty"),
                "\(outside.error)")
        let late = try run(["lottie", "geometry", lottie.appendingPathComponent("shapes-rectangles.json").path, "--frames", "10"])
        #expect(late.status == 2 && late.error.contains("frames[0]: 10 is not a frame of the file (0 ≤ f < 10)"), "\(late.error)")
        for bad in [["lottie", "geometry", "missing.json"], ["lottie", "geometry", "x.json", "--frames", "1,soon"],
                    ["lottie", "geometry", "x.json", "--size", "0"], ["lottie", "geometry", "x.json", "--format", "svg"]] {
            let r = try run(bad)
            #expect(r.status == 2 && r.output.isEmpty && !r.error.isEmpty, "\(bad)")
        }
    }

    @Test("lottie render: one SVG per frame from ip to op and an index.html that plays them")
    func lottieRender() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AnimationLottieTests/Files/trims.json")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lottie-render-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(["lottie", "render", file.path, "-o", directory.path, "--size", "128"])
        #expect(result.status == 0, "\(result.error)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names.count == 11 && names.first == "frame-00000.svg" && names.contains("index.html"), "\(names)")
        let frame = try String(contentsOf: directory.appendingPathComponent("frame-00003.svg"), encoding: .utf8)
        #expect(frame.contains(##"stroke="#0000ff""##) && frame.contains(#"width="128""#))
        let late = try run(["lottie", "render", file.path, "-o", directory.path, "--frames", "3,12"])
        #expect(late.status == 2 && late.error.contains("frames[1]"), "\(late.error)")
    }

    @Test("lottie bench: ticks of many instances, text and JSON, whole or fractional frames; bad options refused")
    func lottieBench() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AnimationLottieTests/Files/trims.json")
        let text = try run(["lottie", "bench", file.path, file.path, "--instances", "20", "--ticks", "3", "--threads", "2"])
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("2 file(s) × 20 instances = 40, 2 thread(s), 3 ticks") && text.output.contains("ns per instance-frame"))
        let json = try run(["lottie", "bench", file.path, "--instances", "10", "--ticks", "2", "--json"])
        #expect(json.status == 0 && json.output.hasPrefix("{") && json.output.contains("\"nanosecondsPerInstanceFrame\":")
                && json.output.contains("\"instances\":10") && json.output.contains("\"fractionalFrames\":false"), "\(json.output)")
        let fractional = try run(["lottie", "bench", file.path, "--instances", "10", "--ticks", "2", "--fractional-frames", "--json"])
        #expect(fractional.status == 0 && fractional.output.contains("\"fractionalFrames\":true"), "\(fractional.output)")
        for bad in [["lottie", "bench"], ["lottie", "bench", file.path, "--instances", "0"], ["lottie", "bench", "missing.json"]] {
            let r = try run(bad)
            #expect(r.status == 2 && r.output.isEmpty, "\(bad)")
        }
    }

    @Test("lottie render and bench: a file whose op − ip is past Int's range is refused or cycled, never a trap")
    func lottieHugeFrameSpan() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lottie-span-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("long.json")
        try #"{"fr":30,"ip":0,"op":1e300,"w":10,"h":10,"layers":[{"ty":4,"ip":0,"op":1e300,"ks":{},"shapes":[{"ty":"rc","p":{"a":0,"k":[5,5]},"s":{"a":0,"k":[2,2]}},{"ty":"fl","c":{"a":0,"k":[0,0,0]},"o":{"a":0,"k":100}}]}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let render = try run(["lottie", "render", file.path, "-o", directory.appendingPathComponent("frames").path])
        #expect(render.status == 2 && render.error.contains("1e+300 frames (draw at most 100000"), "\(render.error)")
        let bench = try run(["lottie", "bench", file.path, "--instances", "4", "--ticks", "2"])
        #expect(bench.status == 0 && bench.output.contains("ns per instance-frame"), "\(bench.error)")
    }
}
