import CAnimationEngine

/// Target `c-interface`: a sequence of up to 64 C-interface calls decoded from fuzz input, on up
/// to three engines, with wrong kinds, wrong counts, null pointers, unknown enums, stale and
/// invented ids, NaN and huge numbers, destroyed engines. Checked after every call: the status
/// is one of `ae_status`, an error leaves a message, a destroyed engine whose address no live
/// engine has is refused with `AE_ERROR_INVALID_ENGINE`; every frame's events name animations
/// that were added, each starting at most once and stopping at most once, never starting after
/// its stop; values read after a frame are never NaN when every number given was finite, and
/// finite when every number was ordinary. At the end, every layer is removed and one more frame
/// evaluated on each live engine: then every animation ever added has stopped exactly once and
/// the engine holds no animation and no track.
public func fuzzCInterface(_ bytes: [UInt8]) throws {
    var input = FuzzInput(bytes)
    var engines: [OpaquePointer] = []
    var dead: [OpaquePointer] = []
    var states: [UnsafeRawPointer: EngineLog] = [:]
    var clock = 0.0

    func status(_ s: ae_status, _ call: String) throws -> Bool {
        try check(s.rawValue >= 0 && s.rawValue <= 6, "\(call): status \(s.rawValue) outside ae_status")
        if s != AE_OK {
            let message = String(cString: ae_last_error_message())
            try check(!message.isEmpty, "\(call): error \(s.rawValue) without a message")
        }
        return s == AE_OK
    }
    func readEvents(_ engine: OpaquePointer) throws {
        var count = 0
        guard try status(ae_engine_read_events(engine, nil, 0, &count), "read_events (count)") else { return }
        var events = [ae_event](repeating: ae_event(), count: count)
        var written = 0
        try check(try status(ae_engine_read_events(engine, &events, count, &written), "read_events"), "read_events refused a full buffer")
        try check(written == count, "read_events wrote \(written) of \(count)")
        try states[UnsafeRawPointer(engine)]!.record(events)
    }

    for _ in 0..<input.int(in: 1...64) {
        let engine: OpaquePointer? = switch input.choice(8) {
        case 0: nil
        case 1: dead.isEmpty ? nil : dead[input.choice(dead.count)]
        default: engines.isEmpty ? nil : engines[input.choice(engines.count)]
        }
        let isLive = engine.map { e in engines.contains(e) } ?? false
        let layer = UInt64(input.int(in: 0...4))
        let keyPath = cKeyPaths[input.choice(cKeyPaths.count)]
        let kind = Int32(input.int(in: -1...7))
        let components = Int(ae_value_component_count(kind))
        let count = input.choice(5) == 0 ? input.int(in: 0...17) : components
        // The C interface trusts a pointer to hold the count it is given: every array below holds
        // exactly that many numbers (a short array would be this harness's overflow, not the engine's).
        func numbers(_ n: Int) -> [Double] { (0..<n).map { _ in input.number(scale: 100) } }
        let operation = input.choice(17)
        var s = AE_OK
        var call = ""
        switch operation {
        case 0:
            call = "engine_create"
            var made: OpaquePointer?
            if engines.count < 3, try status(ae_engine_create(&made), call), let made {
                engines.append(made)
                dead.removeAll { $0 == made }
                states[UnsafeRawPointer(made)] = EngineLog()
            }
            continue
        case 1:
            call = "engine_destroy"
            s = ae_engine_destroy(engine)
            if s == AE_OK, let engine {
                engines.removeAll { $0 == engine }
                dead.append(engine)
                states[UnsafeRawPointer(engine)] = nil
            }
        case 2:
            call = "set_model_value"
            s = ae_engine_set_model_value(engine, layer, keyPath, kind, input.bool() ? numbers(count) : nil, count)
        case 3, 4, 5, 6:
            var timing = ae_timing()
            ae_timing_init(&timing)
            if input.bool() {
                timing.begin_time = input.choice(2) == 0 ? 0 : input.number(scale: 3)
                timing.duration = input.number(scale: 3)
                timing.speed = input.choice(2) == 0 ? 1 : input.number(scale: 3)
                timing.time_offset = input.number(scale: 3)
                timing.repeat_count = input.choice(3) == 0 ? .infinity : max(0, input.number(scale: 3))
                timing.autoreverses = Int32(input.int(in: -1...2))
                timing.fill_mode = Int32(input.int(in: -1...4))
                timing.removed_on_completion = Int32(input.int(in: 0...1))
                timing.additive = Int32(input.int(in: 0...1))
                timing.cumulative = Int32(input.int(in: 0...1))
                timing.has_timing_function = Int32(input.int(in: 0...1))
                timing.timing_function = (input.fraction(), input.number(scale: 2), input.fraction(), input.number(scale: 2))
            }
            var id: UInt64 = 0
            // The timing, or (one time in nine) a null pointer in its place.
            let timingBox = UnsafeMutablePointer<ae_timing>.allocate(capacity: 1)
            timingBox.initialize(to: timing)
            defer { timingBox.deallocate() }
            let timingPointer: UnsafePointer<ae_timing>? = input.choice(9) != 0 ? UnsafePointer(timingBox) : nil
            switch operation {
            case 3:
                call = "add_basic"
                let from = input.bool() ? numbers(count) : nil
                let to = input.bool() ? numbers(count) : nil
                let by = input.choice(3) == 0 ? numbers(count) : nil
                s = ae_engine_add_basic(engine, layer, keyPath, kind, from, to, by, count, timingPointer, &id)
            case 4:
                call = "add_keyframe"
                let valueCount = input.int(in: 0...6)
                let values = numbers(valueCount * components)
                let keyTimes = input.bool() ? (0..<valueCount).map { _ in input.fraction() } : nil
                let functions = input.bool() ? (0..<max(valueCount - 1, 0) * 4).map { _ in input.fraction() } : nil
                let mode = Int32(input.int(in: -1...5))
                s = ae_engine_add_keyframe(engine, layer, keyPath, kind, values, valueCount, keyTimes, functions, mode,
                                           timingPointer, &id)
            case 5:
                call = "add_path"
                let elements = (0..<input.int(in: 0...8)).map { _ in
                    ae_path_element(kind: Int32(input.int(in: -1...6)), x: input.number(), y: input.number(),
                                    c1x: input.number(), c1y: input.number(), c2x: input.number(), c2y: input.number())
                }
                s = ae_engine_add_path(engine, layer, keyPath, elements, elements.count, Int32(input.int(in: -1...5)),
                                       Int32(input.int(in: -1...3)), timingPointer, &id)
            default:
                call = "add_spring"
                let from = input.bool() ? numbers(count) : nil
                let to = input.bool() ? numbers(count) : nil
                s = ae_engine_add_spring(engine, layer, keyPath, kind, from, to, nil, count,
                                         input.number(scale: 3), input.number(scale: 300), input.number(scale: 30),
                                         input.number(scale: 10), Int32(input.int(in: 0...1)), timingPointer, &id)
            }
            if s == AE_OK, timingPointer != nil {
                // Every non-finite number is refused at the C edge, a duration of −∞ too.
                try check([timing.begin_time, timing.duration, timing.speed, timing.time_offset].allSatisfy(\.isFinite),
                          "\(call) accepted a non-finite timing (begin \(timing.begin_time), duration \(timing.duration), speed \(timing.speed), offset \(timing.time_offset))")
            }
            if s == AE_OK, let engine {
                try check(isLive, "\(call) succeeded on an engine that is not live")
                try states[UnsafeRawPointer(engine)]!.added(id)
            }
        case 7:
            call = "retarget"
            guard let engine, let log = states[UnsafeRawPointer(engine)] else { continue }
            var ids = (0..<input.int(in: 0...3)).map { _ in input.choice(4) == 0 ? UInt64(input.int(in: 0...99)) : log.anyID(&input) }
            let n = ids.count
            let from = input.bool() ? numbers(n * count) : nil
            let to = input.choice(8) == 0 ? nil : numbers(n * count)
            let before = ids
            s = ae_engine_retarget(engine, &ids, n, kind, from, to, count, input.number(scale: 3))
            if s == AE_OK {
                for (old, new) in zip(before, ids) { try states[UnsafeRawPointer(engine)]!.replaced(old, by: new) }
            } else {
                try check(ids == before, "retarget failed (\(s.rawValue)) but changed the ids")
            }
        case 8:
            call = "remove"
            guard let engine, let log = states[UnsafeRawPointer(engine)] else { s = ae_engine_remove(engine, 7); break }
            s = ae_engine_remove(engine, input.choice(4) == 0 ? UInt64(input.int(in: 0...99)) : log.anyID(&input))
        case 9:
            call = "remove_layer"
            s = ae_engine_remove_layer(engine, layer)
        case 10:
            call = "evaluate"
            clock = input.choice(4) == 0 ? input.number(scale: 5) : clock + abs(input.number(scale: 1, edges: false))
            s = ae_engine_evaluate(engine, clock, Int32(input.int(in: -1...3)))
            if s == AE_OK, let engine {
                try readEvents(engine)
                // The settle queries agree with each other (docs/settling.md): settled means nothing
                // runs, nothing repeats forever and no event is ahead; a next event lies ahead.
                var settled: Int32 = -1, hasNext: Int32 = -1, infinite: Int32 = -1, running: Int32 = -1
                var next = 0.0
                _ = try status(ae_engine_settle_state(engine, &settled, &hasNext, &next, &infinite, &running), "settle_state")
                try check(settled == 0 || (running == 0 && infinite == 0 && hasNext == 0),
                          "settled with running \(running), infinite \(infinite), next \(hasNext)")
                try check(hasNext == 0 || (next > clock && next.isFinite), "next event \(next) not after \(clock)")
                // Ordinary input reads finite values; any finite input (1e300 included) reads no NaN.
                if !input.sawNonFinite {
                    for l in UInt64(0)...4 {
                        for name in ["opacity", "position", "bounds", "transform", "backgroundColor"] {
                            var out = [Double](repeating: 0, count: 16)
                            var n = 0
                            if ae_engine_read_value(engine, l, name, &out, 16, &n) == AE_OK {
                                try check(!out.prefix(n).contains { $0.isNaN }, "layer \(l) \(name) = \(out.prefix(n)) from finite input")
                                try check(input.sawUnusual || out.prefix(n).allSatisfy(\.isFinite), "layer \(l) \(name) = \(out.prefix(n)) from ordinary input")
                            }
                        }
                    }
                }
            }
        case 11:
            call = "read_value"
            var out = [Double](repeating: 0, count: 16)
            var n = 0
            let capacity = input.int(in: 0...16)
            s = capacity == 0 ? ae_engine_read_value(engine, layer, keyPath, nil, 0, &n)
                : ae_engine_read_value(engine, layer, keyPath, &out, capacity, &n)
            if s == AE_ERROR_WRONG_SIZE { try check(n > capacity, "read_value: short buffer reported with count \(n) ≤ \(capacity)") }
            // The velocity beside it (no input read for it: the corpus keeps its meaning): the same
            // count whenever both answer, and no NaN from finite input.
            var rate = [Double](repeating: 0, count: 16)
            var m = 0
            let r = capacity == 0 ? ae_engine_read_velocity(engine, layer, keyPath, nil, 0, &m)
                : ae_engine_read_velocity(engine, layer, keyPath, &rate, capacity, &m)
            if (r == AE_OK || r == AE_ERROR_WRONG_SIZE) && (s == AE_OK || s == AE_ERROR_WRONG_SIZE) {
                try check(m == n, "read_velocity: \(m) components where read_value has \(n)")
            }
            if r == AE_OK && !input.sawNonFinite {
                try check(!rate.prefix(min(m, capacity)).contains { $0.isNaN }, "read_velocity: \(rate.prefix(m)) from finite input")
            }
        case 12:
            call = "read_property"
            var values: UnsafePointer<Double>?
            var layers: UnsafePointer<UInt64>?
            var n = 0, width = 0
            s = ae_engine_read_property(engine, keyPath, &values, &layers, &n, &width)
            if s == AE_OK && n > 0 {
                try check(values != nil && layers != nil, "read_property: \(n) rows without pointers")
                var sum = 0.0
                for k in 0..<n * width { sum += values![k] }   // every row readable (ASan checks the bounds)
                _ = sum
            }
            // The velocity column beside it (no input read for it: the corpus keeps its meaning):
            // in bulk, the values' rows, readable and free of NaN from finite input; then the
            // column switched for the frames to come, by the row count's parity.
            // Only after a success: these calls set the last error message a failure is checked by.
            if s == AE_OK {
                var rates: UnsafePointer<Double>?
                var m = 0, rateWidth = 0
                let r = ae_engine_read_property_velocity(engine, keyPath, &rates, &m, &rateWidth)
                if r == AE_OK {
                    try check(m == n && (n == 0 || rateWidth == width), "read_property_velocity: \(m) rows of \(rateWidth) where the values have \(n) of \(width)")
                    for k in 0..<m * rateWidth where !input.sawNonFinite {
                        try check(!rates![k].isNaN, "read_property_velocity: NaN from finite input")
                    }
                }
                _ = ae_engine_set_velocity_column(engine, Int32(n % 2))
            }
        case 13:
            call = "property_name"
            var name: UnsafePointer<CChar>?
            var n = 0
            s = ae_engine_property_name(engine, UInt32(input.int(in: 0...12)), &name, &n)
            if s == AE_OK { try check(name != nil && name![0] != 0, "property_name: an empty name") }
        case 14:
            call = "read_changes"
            var total = 0
            s = ae_engine_read_changes(engine, nil, 0, &total)
            if s == AE_OK && total > 0 {
                var changes = [ae_change](repeating: ae_change(), count: total)
                var written = 0
                let capacity = input.int(in: 0...total)
                s = ae_engine_read_changes(engine, &changes, capacity, &written)
                try check(written == total, "read_changes counted \(written), then \(total)")
            }
        case 15:
            call = "curve_batch"
            let n = input.int(in: 0...20)
            let points = (0..<n * 4).map { _ in input.choice(3) == 0 ? input.number(scale: 2) : input.fraction() }
            var batch: OpaquePointer?
            s = ae_curve_batch_create(points, n, &batch)
            if s == AE_OK, let batch {
                let inputs = (0..<n).map { _ in Float(input.fraction()) }
                var outputs = [Float](repeating: 0, count: n)
                _ = try status(ae_curve_batch_evaluate(batch, inputs, &outputs, n, Int32(input.int(in: 0...2))), "curve_batch_evaluate")
                _ = try status(ae_curve_batch_destroy(batch), "curve_batch_destroy")
                try check(ae_curve_batch_destroy(batch) != AE_OK, "a curve batch destroyed twice")
            }
        default:
            call = "timing_function_value"
            var y = 0.0
            let points = [input.fraction(), input.number(scale: 2), input.fraction(), input.number(scale: 2)]
            s = ae_timing_function_value(points, input.number(scale: 1), &y)
            if s == AE_OK { try check(y.isFinite, "timing function value \(y)") }
        }
        _ = try status(s, call)
        if let engine, !isLive, !engines.contains(engine), operation != 15, operation != 16 {
            try check(s == AE_ERROR_INVALID_ENGINE, "\(call) on a destroyed or null engine returned \(s.rawValue)")
        }
    }

    // The end: every layer removed, one more frame; every animation stopped once; nothing left.
    for engine in engines {
        for l in UInt64(0)...4 { _ = ae_engine_remove_layer(engine, l) }
        clock = (clock.isFinite ? clock : 0) + 1   // a NaN clock is refused: the last frame needs a real time
        try check(try status(ae_engine_evaluate(engine, clock, 1), "final evaluate"), "the final evaluate failed")
        try readEvents(engine)
        var animations = 0, tracks = 0
        _ = ae_engine_counts(engine, &animations, &tracks)
        try check(animations == 0 && tracks == 0, "\(animations) animations and \(tracks) tracks left after every layer was removed")
        try states[UnsafeRawPointer(engine)]!.allStopped()
        try check(ae_engine_destroy(engine) == AE_OK, "destroy failed")
        try check(ae_engine_destroy(engine) == AE_ERROR_INVALID_ENGINE, "a second destroy was not refused")
    }
}

/// Key paths the C target draws: known properties and fields, and names that are not.
private let cKeyPaths = [
    "opacity", "position", "position.x", "bounds", "bounds.size.width", "transform", "transform.rotation.z",
    "backgroundColor", "", "nonsense", "position.", "a.b.c.d", "transform.scale",
]

/// One engine's animations as its events told them: added, started, stopped.
struct EngineLog {
    private var added: [UInt64] = []
    private var started: Set<UInt64> = []
    private var stopped: Set<UInt64> = []

    /// An id from those added (or 0 when none was).
    func anyID(_ input: inout FuzzInput) -> UInt64 { added.isEmpty ? 0 : added[input.choice(added.count)] }

    mutating func added(_ id: UInt64) throws {
        try check(!added.contains(id), "id \(id) handed out twice")
        added.append(id)
    }

    /// A retarget: `old` stops (replaced) with the next frame, `new` is a new animation.
    mutating func replaced(_ old: UInt64, by new: UInt64) throws { try added(new) }

    mutating func record(_ events: [ae_event]) throws {
        for event in events {
            try check(added.contains(event.animation), "an event for id \(event.animation), never added")
            if event.kind == 0 {
                try check(!started.contains(event.animation), "id \(event.animation) started twice")
                try check(!stopped.contains(event.animation), "id \(event.animation) started after its stop")
                started.insert(event.animation)
            } else {
                try check(event.kind == 1, "event kind \(event.kind)")
                try check(!stopped.contains(event.animation), "id \(event.animation) stopped twice")
                try check((0...3).contains(event.outcome), "outcome \(event.outcome)")
                stopped.insert(event.animation)
            }
        }
    }

    func allStopped() throws {
        let missing = added.filter { !stopped.contains($0) }
        try check(missing.isEmpty, "ids \(missing.prefix(5)) never stopped")
    }
}
