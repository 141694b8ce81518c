import AnimationBatch
import AnimationCore
@testable import AnimationEngineC
import CAnimationEngine
import Foundation
import Testing

@Suite("C interface")
struct CInterfaceTests {
    @Test("from C: the c-interface-check program passes every check")
    func fromC() throws {
        let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        let program = try #require(candidates.map { $0.appendingPathComponent("c-interface-check") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) })
        let process = Process()
        process.executableURL = program
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("all checks passed"))
    }

    @Test("from Swift: values through the C interface equal the Swift engine's, bit for bit")
    func matchesSwift() throws {
        var engine: OpaquePointer?
        #expect(ae_engine_create(&engine) == AE_OK)
        defer { _ = ae_engine_destroy(engine) }
        var timing = ae_timing()
        ae_timing_init(&timing)
        timing.duration = 2
        timing.repeat_count = 3
        timing.autoreverses = 1
        timing.has_timing_function = 1
        timing.timing_function = (0.25, 0.1, 0.25, 1)
        var from: [Double] = [0, 0, 0, 1], to: [Double] = [1, 0.5, 0.25, 1]
        var id: UInt64 = 0
        #expect(ae_engine_add_basic(engine, 1, "backgroundColor", Int32(AE_COLOR.rawValue), &from, &to, nil, 4, &timing, &id) == AE_OK)

        let store = TrackStore()
        var animation = BasicAnimation(keyPath: "backgroundColor", from: Color(red: 0, green: 0, blue: 0), to: Color(red: 1, green: 0.5, blue: 0.25),
                                       duration: 2, timingFunction: .default)
        animation.repeatCount = 3
        animation.autoreverses = true
        _ = try store.add(animation.preparedForAdding(layerTime: 0), layer: LayerID(1))
        let evaluator = FrameEvaluator(store: store)
        for k in 0..<50 {
            let t = Double(k) * 0.17
            #expect(ae_engine_evaluate(engine, t, 1) == AE_OK)
            evaluator.evaluate(at: t)
            var out = [Double](repeating: 0, count: 4)
            var count = 0
            #expect(ae_engine_read_value(engine, 1, "backgroundColor", &out, 4, &count) == AE_OK)
            #expect(out == evaluator.value(layer: LayerID(1), property: "backgroundColor")?.components, "t = \(t)")
        }
    }

    @Test("ae_engine_read_changes counts what it writes: slots of a layer removed since the frame are neither counted nor listed")
    func changesCountWhatIsWritten() throws {
        var engine: OpaquePointer?
        #expect(ae_engine_create(&engine) == AE_OK)
        defer { _ = ae_engine_destroy(engine) }
        var timing = ae_timing()
        ae_timing_init(&timing)
        timing.duration = 1
        var from: [Double] = [0], to: [Double] = [1]
        var id: UInt64 = 0
        for layer in UInt64(1)...4 {
            #expect(ae_engine_add_basic(engine, layer, "opacity", Int32(AE_SCALAR.rawValue), &from, &to, nil, 1, &timing, &id) == AE_OK)
        }
        #expect(ae_engine_evaluate(engine, 0.5, 1) == AE_OK)
        var count = 0
        #expect(ae_engine_read_changes(engine, nil, 0, &count) == AE_OK && count == 4)
        #expect(ae_engine_remove_layer(engine, 2) == AE_OK)
        var changes = [ae_change](repeating: ae_change(), count: 8)
        #expect(ae_engine_read_changes(engine, &changes, 8, &count) == AE_OK)
        #expect(count == 3, "layer 2's slot is gone: \(count)")
        #expect(Set(changes.prefix(count).map(\.layer)) == [1, 3, 4])
    }

    @Test("messages are per thread, and a success clears them")
    func messages() async {
        #expect(ae_engine_evaluate(nil, 0, 1) == AE_ERROR_INVALID_ENGINE)
        #expect(String(cString: ae_last_error_message()) == "engine is null")
        let other = await Task.detached { String(cString: ae_last_error_message()) }.value
        #expect(other == "" || other == "engine is null", "another thread sees its own message")
        var engine: OpaquePointer?
        #expect(ae_engine_create(&engine) == AE_OK)
        #expect(String(cString: ae_last_error_message()) == "")
        #expect(ae_engine_destroy(engine) == AE_OK)
    }
}
