import AnimationBatch
import AnimationCore
@testable import AnimationEngineC
import CAnimationEngine
import Foundation
import Synchronization
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

    @Test("ae_engine_retarget is the store's retarget of many: the same ids and values, bit for bit, from given values or from beneath")
    func retargetMatchesSwift() throws {
        var engine: OpaquePointer?
        #expect(ae_engine_create(&engine) == AE_OK)
        defer { _ = ae_engine_destroy(engine) }
        var timing = ae_timing()
        ae_timing_init(&timing)
        timing.duration = 1.5
        timing.removed_on_completion = 0
        let store = TrackStore(), evaluator = FrameEvaluator(store: store)
        var ids: [UInt64] = [], handles: [AnimationHandle] = []
        for layer in UInt64(1)...12 {
            var from: [Double] = [Double(layer), 0], to: [Double] = [0, Double(layer) * 3]
            var id: UInt64 = 0
            #expect(ae_engine_add_basic(engine, layer, "position", Int32(AE_POINT.rawValue), &from, &to, nil, 2, &timing, &id) == AE_OK)
            ids.append(id)
            var move = BasicAnimation(keyPath: "position", from: Point(x: Double(layer), y: 0), to: Point(x: 0, y: Double(layer) * 3), duration: 1.5)
            move.isRemovedOnCompletion = false
            handles.append(try store.add(move, layer: LayerID(layer)))
        }
        #expect(ae_engine_evaluate(engine, 0.3, 1) == AE_OK)
        evaluator.evaluate(at: 0.3)
        for (round, begin) in [0.4, 0.9].enumerated() {
            let targets = ids.indices.map { k in Point(x: Double(k) * 1.25 + Double(round), y: -Double(k) * 0.75) }
            var packed = targets.flatMap { [$0.x, $0.y] }, sources = targets.flatMap { [$0.y, $0.x] }
            if round == 0 {
                #expect(ae_engine_retarget(engine, &ids, ids.count, Int32(AE_POINT.rawValue), nil, &packed, 2, begin) == AE_OK)
                try store.retarget(&handles, to: targets.map { .point($0) }, beginTime: begin)
            } else {
                #expect(ae_engine_retarget(engine, &ids, ids.count, Int32(AE_POINT.rawValue), &sources, &packed, 2, begin) == AE_OK)
                try store.retarget(&handles, from: targets.map { .point(Point(x: $0.y, y: $0.x)) }, to: targets.map { .point($0) },
                                   beginTime: begin)
            }
            #expect(ids == handles.map(\.rawValue), "round \(round): the same ids")
            for t in [begin, begin + 0.5, begin + 2] {
                #expect(ae_engine_evaluate(engine, t, 1) == AE_OK)
                evaluator.evaluate(at: t)
                for layer in UInt64(1)...12 {
                    var out = [Double](repeating: 0, count: 2)
                    var count = 0
                    #expect(ae_engine_read_value(engine, layer, "position", &out, 2, &count) == AE_OK)
                    #expect(out == evaluator.value(layer: LayerID(layer), property: "position")?.components, "round \(round), layer \(layer), t = \(t)")
                }
            }
        }
    }

    @Test("ae_timing_function_value clamps x outside [0, 1] and refuses a non-finite x (the header's convention)")
    func timingFunctionValueRefusesNonFiniteInput() {
        let points = [0.42, 0.0, 0.58, 1.0]
        var y = -1.0
        #expect(ae_timing_function_value(points, 2, &y) == AE_OK && y == 1)
        #expect(ae_timing_function_value(points, -3, &y) == AE_OK && y == 0)
        for x in [Double.nan, .infinity, -.infinity] {
            y = 7
            #expect(ae_timing_function_value(points, x, &y) == AE_ERROR_INVALID_ARGUMENT)
            #expect(String(cString: ae_last_error_message()).hasPrefix("x must be finite"))
            #expect(y == 7, "nothing written on an error")
        }
    }

    @Test("values and path coordinates beyond ±1e38 are refused with AE_ERROR_INVALID_ARGUMENT, naming the value (the header's convention)")
    func valuesBeyondSinglePrecisionAreRefused() {
        var engine: OpaquePointer?
        #expect(ae_engine_create(&engine) == AE_OK)
        defer { _ = ae_engine_destroy(engine) }
        var id: UInt64 = 0
        var from: [Double] = [0], to: [Double] = [1e39]
        #expect(ae_engine_add_basic(engine, 1, "opacity", Int32(AE_SCALAR.rawValue), &from, &to, nil, 1, nil, &id) == AE_ERROR_INVALID_ARGUMENT)
        #expect(String(cString: ae_last_error_message()).contains("toValue"))
        to = [1e38]
        #expect(ae_engine_add_basic(engine, 1, "opacity", Int32(AE_SCALAR.rawValue), &from, &to, nil, 1, nil, &id) == AE_OK)
    }

    @Test("messages are per thread, and a success clears them")
    func messages() {
        #expect(ae_engine_evaluate(nil, 0, 1) == AE_ERROR_INVALID_ENGINE)
        #expect(String(cString: ae_last_error_message()) == "engine is null")
        // A new thread (not a pooled one, where another test may have left a message of its own)
        // starts with no message: this thread's error is not seen there.
        let seen = Mutex("unset")
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            seen.withLock { $0 = String(cString: ae_last_error_message()) }
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(seen.withLock { $0 } == "", "another thread sees its own (empty) message")
        var engine: OpaquePointer?
        #expect(ae_engine_create(&engine) == AE_OK)
        #expect(String(cString: ae_last_error_message()) == "")
        #expect(ae_engine_destroy(engine) == AE_OK)
    }
}
