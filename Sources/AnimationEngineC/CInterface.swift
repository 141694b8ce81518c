// The C interface (Sources/CAnimationEngine/include/animation_engine.h), implemented over the
// public Swift API of AnimationCore and AnimationBatch. Every entry point validates its arguments
// and returns a status; nothing here traps on bad input. Handles are checked against a registry
// of live objects, so a null, destroyed or foreign pointer is an error code, not a crash.
//
// Raw memory. A pointer from C is read or written only after it is checked for null (`required`,
// or `?.pointee` for optional outputs) and its count for range; beyond that the header's contract
// is trusted, as any C library must: an array argument holds the count the caller passes, an
// output points at one writable value. Pointers handed back to C (names, presentation columns)
// point into memory the engine owns, valid for as long as the header says (the engine's life;
// until the next frame or change).
import AnimationBatch
import AnimationCore
import CAnimationEngine
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Online processors (the default thread count).
private var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

/// One engine: a track store and its frame evaluator, and the C strings of its property names.
final class Engine {
    let store = TrackStore()
    let evaluator: FrameEvaluator
    /// Property name → a NUL-terminated copy that lives as long as the engine.
    private var names: [String: UnsafeMutablePointer<CChar>] = [:]

    init() { evaluator = FrameEvaluator(store: store) }

    deinit {
        for name in names.values { free(name) }
    }

    /// A C string of `property` that stays valid while the engine lives.
    func name(_ property: String) -> UnsafePointer<CChar> {
        if let name = names[property] { return UnsafePointer(name) }
        let name = strdup(property)!
        names[property] = name
        return UnsafePointer(name)
    }
}

/// A batch of timing curves (workload W1), with padded buffers for counts that are not a multiple
/// of 16 (the kernel reads and writes whole blocks of 16; a caller's buffers hold exactly `count`).
final class CurveBatch {
    let batch: TimingCurveBatch
    let paddedInputs: UnsafeMutablePointer<Float>
    let paddedOutputs: UnsafeMutablePointer<Float>

    init(_ batch: TimingCurveBatch) {
        self.batch = batch
        // Owned: allocated here, freed in deinit; `evaluate` copies `count` ≤ padded elements.
        let padded = max(batch.blockCount * 16, 16)
        paddedInputs = .allocate(capacity: padded)
        paddedInputs.initialize(repeating: 0, count: padded)
        paddedOutputs = .allocate(capacity: padded)
        paddedOutputs.initialize(repeating: 0, count: padded)
    }

    deinit {   // both allocated in init and owned by this batch alone
        paddedInputs.deallocate()
        paddedOutputs.deallocate()
    }

    /// Evaluates in place when `count` fills whole blocks, else through the padded buffers.
    func evaluate(_ inputs: UnsafePointer<Float>, _ outputs: UnsafeMutablePointer<Float>, threads: Int) {
        let count = batch.count
        if count % 16 == 0 {
            batch.evaluate(inputs: inputs, outputs: outputs, threads: threads)
        } else {
            paddedInputs.update(from: inputs, count: count)
            batch.evaluate(inputs: paddedInputs, outputs: paddedOutputs, threads: threads)
            outputs.update(from: paddedOutputs, count: count)
        }
    }
}

/// The objects handed out, by handle. A handle is not an address: it is a table index and the
/// generation of that entry, so that a handle of a destroyed object stays refused even when a new
/// object takes its memory or its entry (an address-keyed table let a stale engine handle act on
/// whichever engine was allocated where the old one had been). Each live object is kept alive by
/// one retain, taken by `register` and released by `unregister`; the table holds its address.
private struct HandleTable {
    struct Entry {
        /// The retained object's address; 0 for a free entry.
        var object: UInt
        var kind: Int
        /// Bumped each time the entry is freed (31 bits, wrapping): handles of earlier objects no
        /// longer match.
        var generation: UInt32
    }
    var entries: [Entry] = []
    var free: [Int] = []

    /// A handle: generation + 1 (1 … 2³¹) in the high 32 bits, so never null; the index in the
    /// low 32 (the package builds for 64-bit targets only, as kernel_support.h says).
    static func handle(index: Int, generation: UInt32) -> OpaquePointer {
        OpaquePointer(bitPattern: (UInt(generation) + 1) << 32 | UInt(index))!   // non-zero: the high word is at least 1
    }

    /// The next generation of an entry: 31 bits, so that generation + 1 fits the handle's high word.
    static func next(_ generation: UInt32) -> UInt32 { (generation + 1) & 0x7FFF_FFFF }

    /// The entry index a handle names, if it names a live object of `kind`.
    func index(of pointer: OpaquePointer, kind: Int) -> Int? {
        let bits = UInt(bitPattern: UnsafeRawPointer(pointer))
        let index = Int(bits & 0xFFFF_FFFF), high = bits >> 32
        guard high != 0, index < entries.count, entries[index].object != 0, entries[index].kind == kind,
              UInt(entries[index].generation) + 1 == high else { return nil }
        return index
    }
}

private let registry = Mutex(HandleTable())

/// The kind of a handle: 0 engine, 1 curve batch, 2 Lottie file, 3 Lottie batch.
private func tag<T: AnyObject>(_ type: T.Type) -> Int {
    switch ObjectIdentifier(type) {
    case ObjectIdentifier(Engine.self): 0
    case ObjectIdentifier(CurveBatch.self): 1
    case ObjectIdentifier(LottieHandle.self): 2
    default: 3
    }
}

func register<T: AnyObject>(_ object: T) -> OpaquePointer {
    let kind = tag(T.self)
    // One retain per handle, released by `unregister` exactly when the entry is freed.
    let object = UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())
    return registry.withLock { table in
        if let index = table.free.popLast() {
            table.entries[index].object = object
            table.entries[index].kind = kind
            return HandleTable.handle(index: index, generation: table.entries[index].generation)
        }
        table.entries.append(HandleTable.Entry(object: object, kind: kind, generation: 0))
        return HandleTable.handle(index: table.entries.count - 1, generation: 0)
    }
}

func lookup<T: AnyObject>(_ pointer: OpaquePointer?, as type: T.Type) -> T? {
    guard let pointer else { return nil }
    let kind = tag(type)
    let object = registry.withLock { table in table.index(of: pointer, kind: kind).map { table.entries[$0].object } }
    guard let object, let address = UnsafeRawPointer(bitPattern: object) else { return nil }
    // Registered with this kind: a live object of type T, kept alive by the retain `register` took
    // (the header: a handle is used from one thread at a time, so no call destroys it meanwhile).
    return Unmanaged<T>.fromOpaque(address).takeUnretainedValue()
}

func unregister<T: AnyObject>(_ pointer: OpaquePointer?, as type: T.Type) -> Bool {
    guard let pointer else { return false }
    let kind = tag(type)
    let removed: UInt? = registry.withLock { table in
        guard let index = table.index(of: pointer, kind: kind) else { return nil }
        let object = table.entries[index].object
        table.entries[index].object = 0
        table.entries[index].generation = HandleTable.next(table.entries[index].generation)
        table.free.append(index)
        return object
    }
    guard let removed, let address = UnsafeRawPointer(bitPattern: removed) else { return false }
    // The retain `register` took, released once (the entry is free) and outside the lock: the
    // object's deinit may stop threads.
    Unmanaged<T>.fromOpaque(address).release()
    return true
}

/// A failed call: its status and message.
struct CError: Error {
    var status: ae_status
    var message: String
}

/// Runs `body`, turning thrown errors into a status and the thread's message.
func call(_ body: () throws -> Void) -> ae_status {
    do {
        try body()
        ae_internal_set_message("")
        return AE_OK
    } catch let error as CError {
        ae_internal_set_message(error.message)
        return error.status
    } catch let error as AnimationError {
        ae_internal_set_message(error.description)
        return AE_ERROR_INVALID_ARGUMENT
    } catch {
        ae_internal_set_message("\(error)")
        return AE_ERROR_INVALID_ARGUMENT
    }
}

private func engine(_ pointer: OpaquePointer?) throws -> Engine {
    guard let engine = lookup(pointer, as: Engine.self) else {
        throw CError(status: AE_ERROR_INVALID_ENGINE, message: pointer == nil ? "engine is null" : "engine is not a live engine (destroyed, or not made by ae_engine_create)")
    }
    return engine
}

func required<T>(_ pointer: T?, _ name: String) throws -> T {
    guard let pointer else { throw CError(status: AE_ERROR_NULL_POINTER, message: "\(name) is null") }
    return pointer
}

private func string(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> String {
    let text = String(cString: try required(pointer, name))
    guard !text.isEmpty else { throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "\(name) is empty") }
    return text
}

private func valueKind(_ kind: Int32) throws -> ValueKind {
    switch kind {
    case Int32(AE_SCALAR.rawValue): return .scalar
    case Int32(AE_POINT.rawValue): return .point
    case Int32(AE_SIZE.rawValue): return .size
    case Int32(AE_RECT.rawValue): return .rect
    case Int32(AE_COLOR.rawValue): return .color
    case Int32(AE_TRANSFORM.rawValue): return .transform
    default: throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "kind \(kind) is not an ae_value_kind (1…6)")
    }
}

/// A value of `kind` from `count` doubles (nil pointer → nil value).
private func value(_ pointer: UnsafePointer<Double>?, kind: ValueKind, count: Int, _ name: String) throws -> AnimationValue? {
    guard let pointer else { return nil }
    guard count == kind.componentCount else {
        throw CError(status: AE_ERROR_WRONG_SIZE, message: "\(name): a \(kind) value has \(kind.componentCount) components, not \(count)")
    }
    let components = Array(UnsafeBufferPointer(start: pointer, count: count))
    // Stricter than the Swift API (where NaN propagates, semantics §16): at this edge a NaN or an
    // infinity is almost always uninitialised memory, so it is refused.
    if let bad = components.firstIndex(where: { !$0.isFinite }) {
        throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "\(name)[\(bad)] must be finite (got \(components[bad]))")
    }
    return try AnimationValue(kind: kind, components: components)
}

/// The from, to and by values of a basic or spring animation (each may be null: semantics §4.1).
private func fromToBy(_ from: UnsafePointer<Double>?, _ to: UnsafePointer<Double>?, _ by: UnsafePointer<Double>?, kind: Int32,
                      count: Int) throws -> (AnimationValue?, AnimationValue?, AnimationValue?) {
    let k = try valueKind(kind)
    return (try value(from, kind: k, count: count, "from"), try value(to, kind: k, count: count, "to"),
            try value(by, kind: k, count: count, "by"))
}

private func timingFunction(_ p: (Double, Double, Double, Double), _ name: String) throws -> TimingFunction {
    do {
        return try TimingFunction(controlPoints: p.0, p.1, p.2, p.3)
    } catch let error as AnimationError {
        throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "\(name): \(error)")
    }
}

/// Applies a C timing block to an animation.
private func apply<A: PropertyAnimation>(_ timing: UnsafePointer<ae_timing>?, to animation: inout A) throws {
    guard let t = timing?.pointee else { return }
    // The Swift API resolves a duration of −∞ (like 0 or a negative one) to the default; at this
    // edge every non-finite number is a mistake (the header's conventions), −∞ included.
    guard t.duration.isFinite else {
        throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "timing.duration must be finite (got \(t.duration))")
    }
    animation.timing = MediaTiming(beginTime: t.begin_time, duration: t.duration, speed: t.speed, timeOffset: t.time_offset,
                                   repeatCount: t.repeat_count, repeatDuration: t.repeat_duration, autoreverses: t.autoreverses != 0,
                                   fillMode: try fillMode(t.fill_mode))
    animation.isRemovedOnCompletion = t.removed_on_completion != 0
    animation.isAdditive = t.additive != 0
    animation.isCumulative = t.cumulative != 0
    animation.timingFunction = t.has_timing_function != 0 ? try timingFunction(t.timing_function, "timing.timing_function") : nil
}

private func fillMode(_ mode: Int32) throws -> FillMode {
    switch mode {
    case 0: .removed
    case 1: .forwards
    case 2: .backwards
    case 3: .both
    default: throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "timing.fill_mode \(mode) is not an ae_fill_mode (0…3)")
    }
}

private func calculationMode(_ mode: Int32) throws -> CalculationMode {
    switch mode {
    case 0: .linear
    case 1: .discrete
    case 2: .paced
    case 3: .cubic
    case 4: .cubicPaced
    default: throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "calculation_mode \(mode) is not an ae_calculation_mode (0…4)")
    }
}

/// Adds a prepared animation and returns its id.
private func add<A: PropertyAnimation>(_ animation: A, to engine: Engine, layer: UInt64, out: UnsafeMutablePointer<UInt64>?) throws {
    let out = try required(out, "out_animation")
    let prepared = try animation.preparedForAdding(layerTime: 0)
    out.pointee = try engine.store.add(prepared, layer: LayerID(layer)).rawValue
}

// MARK: Entry points

/// The C function `ae_value_component_count` (documented in `animation_engine.h`).
@_cdecl("ae_value_component_count")
public func aeValueComponentCount(_ kind: Int32) -> Int {
    (try? valueKind(kind))?.componentCount ?? 0
}

/// The C function `ae_timing_init` (documented in `animation_engine.h`).
@_cdecl("ae_timing_init")
public func aeTimingInit(_ timing: UnsafeMutablePointer<ae_timing>?) {
    guard let timing else { return }
    timing.pointee = ae_timing(begin_time: 0, duration: 0, speed: 1, time_offset: 0, repeat_count: 0, repeat_duration: 0,
                               autoreverses: 0, fill_mode: 0, removed_on_completion: 1, additive: 0, cumulative: 0,
                               has_timing_function: 0, timing_function: (0, 0, 1, 1))
}

/// The C function `ae_engine_create` (documented in `animation_engine.h`).
@_cdecl("ae_engine_create")
public func aeEngineCreate(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> ae_status {
    call {
        try required(out, "out_engine").pointee = register(Engine())
    }
}

/// The C function `ae_engine_destroy` (documented in `animation_engine.h`).
@_cdecl("ae_engine_destroy")
public func aeEngineDestroy(_ pointer: OpaquePointer?) -> ae_status {
    call {
        guard unregister(pointer, as: Engine.self) else { _ = try engine(pointer); return }
    }
}

/// The C function `ae_engine_set_model_value` (documented in `animation_engine.h`).
@_cdecl("ae_engine_set_model_value")
public func aeEngineSetModelValue(_ pointer: OpaquePointer?, _ layer: UInt64, _ property: UnsafePointer<CChar>?, _ kind: Int32,
                                  _ values: UnsafePointer<Double>?, _ count: Int) -> ae_status {
    call {
        let engine = try engine(pointer)
        let name = try string(property, "property")
        let v = try value(try required(values, "value"), kind: try valueKind(kind), count: count, "value")!
        _ = try engine.store.setModelValue(v, layer: LayerID(layer), property: name)
    }
}

/// The C function `ae_engine_add_basic` (documented in `animation_engine.h`).
@_cdecl("ae_engine_add_basic")
public func aeEngineAddBasic(_ pointer: OpaquePointer?, _ layer: UInt64, _ keyPath: UnsafePointer<CChar>?, _ kind: Int32,
                             _ from: UnsafePointer<Double>?, _ to: UnsafePointer<Double>?, _ by: UnsafePointer<Double>?, _ count: Int,
                             _ timing: UnsafePointer<ae_timing>?, _ out: UnsafeMutablePointer<UInt64>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        var animation = BasicAnimation(keyPath: try string(keyPath, "key_path"))
        (animation.fromValue, animation.toValue, animation.byValue) = try fromToBy(from, to, by, kind: kind, count: count)
        try apply(timing, to: &animation)
        try add(animation, to: engine, layer: layer, out: out)
    }
}

/// The C function `ae_engine_add_keyframe` (documented in `animation_engine.h`).
@_cdecl("ae_engine_add_keyframe")
public func aeEngineAddKeyframe(_ pointer: OpaquePointer?, _ layer: UInt64, _ keyPath: UnsafePointer<CChar>?, _ kind: Int32,
                                _ values: UnsafePointer<Double>?, _ valueCount: Int, _ keyTimes: UnsafePointer<Double>?,
                                _ timingFunctions: UnsafePointer<Double>?, _ mode: Int32,
                                _ timing: UnsafePointer<ae_timing>?, _ out: UnsafeMutablePointer<UInt64>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let k = try valueKind(kind)
        let values = try required(values, "values")
        guard valueCount >= 1 && valueCount <= 1 << 20 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "value_count must be in 1…1,048,576 (got \(valueCount))")
        }
        var animation = KeyframeAnimation(keyPath: try string(keyPath, "key_path"))
        animation.values = try (0..<valueCount).map { i in
            try value(values + i * k.componentCount, kind: k, count: k.componentCount, "values[\(i)]")!
        }
        // `value_count` doubles, as the header says key_times holds (value_count is range-checked above).
        if let keyTimes { animation.keyTimes = Array(UnsafeBufferPointer(start: keyTimes, count: valueCount)) }
        if let timingFunctions, valueCount > 1 {
            animation.timingFunctions = try (0..<valueCount - 1).map { i in
                let p = timingFunctions + 4 * i
                return try timingFunction((p[0], p[1], p[2], p[3]), "timing_functions[\(i)]")
            }
        }
        animation.calculationMode = try calculationMode(mode)
        try apply(timing, to: &animation)
        try add(animation, to: engine, layer: layer, out: out)
    }
}

/// The C function `ae_engine_add_path` (documented in `animation_engine.h`).
@_cdecl("ae_engine_add_path")
public func aeEngineAddPath(_ pointer: OpaquePointer?, _ layer: UInt64, _ keyPath: UnsafePointer<CChar>?,
                            _ elements: UnsafePointer<ae_path_element>?, _ elementCount: Int, _ mode: Int32, _ rotation: Int32,
                            _ timing: UnsafePointer<ae_timing>?, _ out: UnsafeMutablePointer<UInt64>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let elements = try required(elements, "elements")
        guard elementCount >= 1 && elementCount <= 1 << 20 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "element_count must be in 1…1,048,576 (got \(elementCount))")
        }
        var path = Path()
        for i in 0..<elementCount {
            let e = elements[i]
            let end = Point(x: e.x, y: e.y), c1 = Point(x: e.c1x, y: e.c1y), c2 = Point(x: e.c2x, y: e.c2y)
            switch e.kind {
            case Int32(AE_PATH_MOVE.rawValue): path.move(to: end)
            case Int32(AE_PATH_LINE.rawValue): path.addLine(to: end)
            case Int32(AE_PATH_QUAD.rawValue): path.addQuadCurve(to: end, control: c1)
            case Int32(AE_PATH_CURVE.rawValue): path.addCurve(to: end, control1: c1, control2: c2)
            case Int32(AE_PATH_CLOSE.rawValue): path.closeSubpath()
            case Int32(AE_PATH_ARC.rawValue):
                path.addArc(center: end, radius: e.c1x, startAngle: e.c1y, endAngle: e.c2x, clockwise: e.c2y != 0)
            default:
                throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "elements[\(i)].kind \(e.kind) is not an ae_path_element_kind (0…5)")
            }
        }
        do {
            try path.validate()
        } catch let error as AnimationError {
            throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "elements: \(error)")
        }
        let rotationMode: RotationMode?
        switch rotation {
        case 0: rotationMode = nil
        case 1: rotationMode = .auto
        case 2: rotationMode = .autoReverse
        default: throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "rotation_mode \(rotation) is not an ae_rotation_mode (0…2)")
        }
        var animation = KeyframeAnimation(keyPath: try string(keyPath, "key_path"), path: path,
                                          calculationMode: try calculationMode(mode), rotationMode: rotationMode)
        try apply(timing, to: &animation)
        try add(animation, to: engine, layer: layer, out: out)
    }
}

/// The C function `ae_engine_add_spring` (documented in `animation_engine.h`).
@_cdecl("ae_engine_add_spring")
public func aeEngineAddSpring(_ pointer: OpaquePointer?, _ layer: UInt64, _ keyPath: UnsafePointer<CChar>?, _ kind: Int32,
                              _ from: UnsafePointer<Double>?, _ to: UnsafePointer<Double>?, _ by: UnsafePointer<Double>?, _ count: Int,
                              _ mass: Double, _ stiffness: Double, _ damping: Double, _ initialVelocity: Double,
                              _ allowsOverdamping: Int32, _ timing: UnsafePointer<ae_timing>?,
                              _ out: UnsafeMutablePointer<UInt64>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        var animation = SpringAnimation(keyPath: try string(keyPath, "key_path"))
        (animation.fromValue, animation.toValue, animation.byValue) = try fromToBy(from, to, by, kind: kind, count: count)
        animation.mass = mass
        animation.stiffness = stiffness
        animation.damping = damping
        animation.initialVelocity = initialVelocity
        animation.allowsOverdamping = allowsOverdamping != 0
        try apply(timing, to: &animation)
        try animation.validate()
        if !(animation.timing.duration > 0) { animation.timing.duration = animation.settlingDuration }
        try add(animation, to: engine, layer: layer, out: out)
    }
}

/// The C function `ae_engine_retarget` (documented in `animation_engine.h`).
@_cdecl("ae_engine_retarget")
public func aeEngineRetarget(_ pointer: OpaquePointer?, _ ids: UnsafeMutablePointer<UInt64>?, _ count: Int, _ kind: Int32,
                             _ from: UnsafePointer<Double>?, _ to: UnsafePointer<Double>?, _ components: Int,
                             _ beginTime: Double) -> ae_status {
    call {
        let engine = try engine(pointer)
        let k = try valueKind(kind)
        guard components == k.componentCount else {
            throw CError(status: AE_ERROR_WRONG_SIZE, message: "components: a \(k) value has \(k.componentCount) components, not \(components)")
        }
        guard count > 0 else { return }
        let ids = try required(ids, "animations"), to = try required(to, "to")
        guard beginTime.isFinite else { throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "begin_time must be finite (got \(beginTime))") }
        // As for single values: at this edge a NaN or an infinity is uninitialised memory.
        func finite(_ pointer: UnsafePointer<Double>, _ name: String) throws -> UnsafeBufferPointer<Double> {
            let numbers = UnsafeBufferPointer(start: pointer, count: count * components)
            if let bad = numbers.firstIndex(where: { !$0.isFinite }) {
                throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "\(name)[\(bad)] must be finite (got \(numbers[bad]))")
            }
            return numbers
        }
        let targets = try finite(to, "to"), sources = try from.map { try finite($0, "from") }
        var handles = (0..<count).map { AnimationHandle(rawValue: ids[$0]) }
        do {
            try handles.withUnsafeMutableBufferPointer { h in
                try engine.store.retarget(h, kind: k, fromComponents: sources, toComponents: targets, beginTime: beginTime)
            }
        } catch let error as AnimationError {
            // The store names its arrays; this edge names the arguments.
            let field = error.field.replacingOccurrences(of: "handles[", with: "animations[")
                .replacingOccurrences(of: "targets[", with: "to[").replacingOccurrences(of: "sources[", with: "from[")
            // An id the store refuses is stale or named twice, unless it names another kind of animation.
            let unknown = field.hasPrefix("animations[") && !error.reason.contains("not a basic or spring animation")
            let status = unknown ? AE_ERROR_UNKNOWN_ID : AE_ERROR_INVALID_ARGUMENT
            throw CError(status: status, message: "\(field): \(error.reason)")
        }
        for (i, handle) in handles.enumerated() { ids[i] = handle.rawValue }
    }
}

/// The C function `ae_engine_remove` (documented in `animation_engine.h`).
@_cdecl("ae_engine_remove")
public func aeEngineRemove(_ pointer: OpaquePointer?, _ animation: UInt64) -> ae_status {
    call {
        let engine = try engine(pointer)
        guard engine.store.remove(AnimationHandle(rawValue: animation)) else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "no animation with id \(animation) (removed, or never added)")
        }
    }
}

/// The C function `ae_engine_remove_layer` (documented in `animation_engine.h`).
@_cdecl("ae_engine_remove_layer")
public func aeEngineRemoveLayer(_ pointer: OpaquePointer?, _ layer: UInt64) -> ae_status {
    call {
        let engine = try engine(pointer)
        guard engine.store.removeLayer(LayerID(layer)) else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "no layer with id \(layer) (removed, or never given a value or animation)")
        }
    }
}

/// The C function `ae_engine_counts` (documented in `animation_engine.h`).
@_cdecl("ae_engine_counts")
public func aeEngineCounts(_ pointer: OpaquePointer?, _ animations: UnsafeMutablePointer<Int>?, _ tracks: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        animations?.pointee = engine.store.animationCount
        tracks?.pointee = engine.store.trackCount
    }
}

/// The C function `ae_engine_evaluate` (documented in `animation_engine.h`).
@_cdecl("ae_engine_evaluate")
public func aeEngineEvaluate(_ pointer: OpaquePointer?, _ time: Double, _ threads: Int32) -> ae_status {
    call {
        let engine = try engine(pointer)
        guard time.isFinite else { throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "time must be finite (got \(time))") }
        guard threads >= 0 && threads <= 1024 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "threads must be in 0…1024 (got \(threads))")
        }
        if engine.evaluator.configuration.maximumThreads != Int(threads) {
            engine.evaluator.configuration.maximumThreads = Int(threads)
        }
        engine.evaluator.evaluate(at: time)
    }
}

/// The C function `ae_engine_settle_state` (documented in `animation_engine.h`).
@_cdecl("ae_engine_settle_state")
public func aeEngineSettleState(_ pointer: OpaquePointer?, _ settled: UnsafeMutablePointer<Int32>?, _ hasNext: UnsafeMutablePointer<Int32>?,
                                _ nextTime: UnsafeMutablePointer<Double>?, _ infinite: UnsafeMutablePointer<Int32>?,
                                _ running: UnsafeMutablePointer<Int32>?) -> ae_status {
    call {
        let evaluator = try engine(pointer).evaluator
        settled?.pointee = evaluator.isSettled ? 1 : 0
        let next = evaluator.nextEventTime
        hasNext?.pointee = next == nil ? 0 : 1
        nextTime?.pointee = next ?? 0
        infinite?.pointee = evaluator.store.hasInfiniteAnimations ? 1 : 0
        running?.pointee = evaluator.hasRunningAnimations ? 1 : 0
    }
}

/// The C function `ae_engine_read_value` (documented in `animation_engine.h`).
@_cdecl("ae_engine_read_value")
public func aeEngineReadValue(_ pointer: OpaquePointer?, _ layer: UInt64, _ property: UnsafePointer<CChar>?,
                              _ out: UnsafeMutablePointer<Double>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let name = try string(property, "property")
        guard let v = engine.evaluator.value(layer: LayerID(layer), property: name) else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "layer \(layer) has no value for '\(name)' (set a model value or add an animation first)")
        }
        try copyComponents(of: v, name: name, into: out, capacity: capacity, outCount: outCount)
    }
}

/// The C function `ae_engine_read_velocity` (documented in `animation_engine.h`).
@_cdecl("ae_engine_read_velocity")
public func aeEngineReadVelocity(_ pointer: OpaquePointer?, _ layer: UInt64, _ property: UnsafePointer<CChar>?,
                                 _ out: UnsafeMutablePointer<Double>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let name = try string(property, "property")
        guard engine.evaluator.value(layer: LayerID(layer), property: name) != nil else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "layer \(layer) has no value for '\(name)' (set a model value or add an animation first)")
        }
        guard let v = engine.evaluator.velocity(layer: LayerID(layer), property: name) else {
            throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "no frame has been evaluated yet: a velocity is a frame's (call ae_engine_evaluate first)")
        }
        try copyComponents(of: v, name: name, into: out, capacity: capacity, outCount: outCount)
    }
}

/// The C function `ae_engine_set_velocity_column` (documented in `animation_engine.h`).
@_cdecl("ae_engine_set_velocity_column")
public func aeEngineSetVelocityColumn(_ pointer: OpaquePointer?, _ on: Int32) -> ae_status {
    call {
        let engine = try engine(pointer)
        engine.evaluator.configuration.computesVelocity = on != 0
    }
}

/// The C function `ae_engine_read_property_velocity` (documented in `animation_engine.h`).
@_cdecl("ae_engine_read_property_velocity")
public func aeEngineReadPropertyVelocity(_ pointer: OpaquePointer?, _ property: UnsafePointer<CChar>?,
                                         _ outValues: UnsafeMutablePointer<UnsafePointer<Double>?>?,
                                         _ outCount: UnsafeMutablePointer<Int>?, _ outComponents: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let name = try string(property, "property")
        guard engine.evaluator.hasVelocities else {
            throw CError(status: AE_ERROR_INVALID_ARGUMENT,
                         message: "the last frame computed no velocities (call ae_engine_set_velocity_column(engine, 1), then ae_engine_evaluate)")
        }
        guard let column = engine.evaluator.velocities(of: name) else {
            outValues?.pointee = nil
            outCount?.pointee = 0
            outComponents?.pointee = 0
            return
        }
        outValues?.pointee = column.values.baseAddress.map(UnsafePointer.init)
        outCount?.pointee = column.count
        outComponents?.pointee = column.componentCount
    }
}

/// What `ae_engine_read_value` and `ae_engine_read_velocity` share: `value`'s components copied as
/// ``read(into:capacity:count:outCount:_:)`` copies, then `AE_ERROR_WRONG_SIZE` when the capacity
/// is short (the count still reported).
private func copyComponents(of value: AnimationValue, name: String, into out: UnsafeMutablePointer<Double>?, capacity: Int,
                            outCount: UnsafeMutablePointer<Int>?) throws {
    let components = value.components
    try read(into: out, capacity: capacity, count: components.count, outCount: outCount) { out in
        for i in 0..<min(capacity, components.count) { out[i] = components[i] }
    }
    guard capacity >= components.count else {
        throw CError(status: AE_ERROR_WRONG_SIZE, message: "'\(name)' has \(components.count) components; capacity is \(capacity)")
    }
}

/// What the entries that copy into a caller's array share: the count is reported first (so that a
/// caller can size its array with a first call of capacity 0), a negative capacity is an error,
/// and `out` is required only when something is to be written.
private func read<Element>(into out: UnsafeMutablePointer<Element>?, capacity: Int, count: Int, outCount: UnsafeMutablePointer<Int>?,
                           _ write: (UnsafeMutablePointer<Element>) throws -> Void) throws {
    outCount?.pointee = count
    guard capacity >= 0 else { throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "capacity is negative") }
    guard capacity > 0 else { return }
    try write(try required(out, "out"))
}

/// The C function `ae_engine_read_events` (documented in `animation_engine.h`).
@_cdecl("ae_engine_read_events")
public func aeEngineReadEvents(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<ae_event>?, _ capacity: Int,
                               _ outCount: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let events = try engine(pointer).evaluator.events
        try read(into: out, capacity: capacity, count: events.count, outCount: outCount) { out in
            for (i, event) in events.prefix(capacity).enumerated() {
                out[i] = ae_event(animation: event.animation.rawValue, kind: event.kind == .started ? 0 : 1,
                                  outcome: event.outcome.map { Int32($0.rawValue) } ?? -1)
            }
        }
    }
}

/// The C function `ae_engine_read_property` (documented in `animation_engine.h`).
@_cdecl("ae_engine_read_property")
public func aeEngineReadProperty(_ pointer: OpaquePointer?, _ property: UnsafePointer<CChar>?,
                                 _ outValues: UnsafeMutablePointer<UnsafePointer<Double>?>?,
                                 _ outLayers: UnsafeMutablePointer<UnsafePointer<UInt64>?>?,
                                 _ outCount: UnsafeMutablePointer<Int>?, _ outComponents: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let name = try string(property, "property")
        guard let column = engine.store.presentation(of: name) else {
            outValues?.pointee = nil
            outLayers?.pointee = nil
            outCount?.pointee = 0
            outComponents?.pointee = 0
            return
        }
        outValues?.pointee = column.values.baseAddress.map(UnsafePointer.init)
        // A LayerID is a struct of one UInt64: the same bytes as the C array of ids.
        outLayers?.pointee = column.layers.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt64.self) }
        outCount?.pointee = column.count
        outComponents?.pointee = column.componentCount
    }
}

/// The C function `ae_engine_property_name` (documented in `animation_engine.h`).
@_cdecl("ae_engine_property_name")
public func aeEnginePropertyName(_ pointer: OpaquePointer?, _ index: UInt32, _ outName: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                 _ outCount: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let properties = engine.store.presentationProperties
        outCount?.pointee = properties.count
        guard Int(index) < properties.count else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "property index \(index) is not below \(properties.count)")
        }
        try required(outName, "out_name").pointee = engine.name(properties[Int(index)])
    }
}

/// The C function `ae_engine_read_changes` (documented in `animation_engine.h`).
@_cdecl("ae_engine_read_changes")
public func aeEngineReadChanges(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<ae_change>?, _ capacity: Int,
                                _ outCount: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let engine = try engine(pointer)
        let changes = engine.evaluator.changedSlots
        // A slot removed since the frame has no place any more: it is neither counted nor
        // written, so that *out_count is what a large enough buffer receives.
        let live = changes.reduce(0) { $0 + (engine.store.presentationPlace(of: $1) == nil ? 0 : 1) }
        try read(into: out, capacity: capacity, count: live, outCount: outCount) { out in
            var written = 0
            for slot in changes where written < capacity {
                guard let place = engine.store.presentationPlace(of: slot), let layer = engine.store.key(of: slot)?.layer else { continue }
                out[written] = ae_change(layer: layer.rawValue, property: UInt32(place.column), row: UInt32(place.row))
                written += 1
            }
        }
    }
}

/// The C function `ae_curve_batch_create` (documented in `animation_engine.h`).
@_cdecl("ae_curve_batch_create")
public func aeCurveBatchCreate(_ points: UnsafePointer<Double>?, _ count: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ae_status {
    call {
        let out = try required(out, "out_batch")
        let points = try required(points, "control_points")
        guard count >= 0 && count <= 1 << 28 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "count must be in 0…268,435,456 (got \(count))")
        }
        let functions = try (0..<count).map { i in
            try timingFunction((points[4 * i], points[4 * i + 1], points[4 * i + 2], points[4 * i + 3]), "control_points[\(i)]")
        }
        out.pointee = register(CurveBatch(TimingCurveBatch(functions: functions)))
    }
}

/// The C function `ae_curve_batch_destroy` (documented in `animation_engine.h`).
@_cdecl("ae_curve_batch_destroy")
public func aeCurveBatchDestroy(_ pointer: OpaquePointer?) -> ae_status {
    call {
        guard unregister(pointer, as: CurveBatch.self) else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "batch is null, destroyed, or not made by ae_curve_batch_create")
        }
    }
}

/// The C function `ae_curve_batch_evaluate` (documented in `animation_engine.h`).
@_cdecl("ae_curve_batch_evaluate")
public func aeCurveBatchEvaluate(_ pointer: OpaquePointer?, _ inputs: UnsafePointer<Float>?, _ outputs: UnsafeMutablePointer<Float>?,
                                 _ count: Int, _ threads: Int32) -> ae_status {
    call {
        guard let curves = lookup(pointer, as: CurveBatch.self) else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "batch is null, destroyed, or not made by ae_curve_batch_create")
        }
        let inputs = try required(inputs, "inputs"), outputs = try required(outputs, "outputs")
        guard count == curves.batch.count else {
            throw CError(status: AE_ERROR_WRONG_SIZE, message: "the batch holds \(curves.batch.count) functions; count is \(count)")
        }
        guard threads >= 0 && threads <= 1024 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "threads must be in 0…1024 (got \(threads))")
        }
        curves.evaluate(inputs, outputs, threads: threads == 0 ? processorCount : Int(threads))
    }
}

/// The C function `ae_timing_function_value` (documented in `animation_engine.h`).
@_cdecl("ae_timing_function_value")
public func aeTimingFunctionValue(_ points: UnsafePointer<Double>?, _ x: Double, _ out: UnsafeMutablePointer<Double>?) -> ae_status {
    call {
        let points = try required(points, "control_points")
        let out = try required(out, "out_y")
        // The header's convention: a non-finite input is a mistake at this edge, not a NaN result.
        guard x.isFinite else { throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "x must be finite (got \(x))") }
        out.pointee = try timingFunction((points[0], points[1], points[2], points[3]), "control_points").value(at: x)
    }
}
