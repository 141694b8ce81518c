// The C interface's Lottie entry points (animation_engine.h, "Lottie"), over AnimationLottie's
// public API. As everywhere in the C interface: every argument is checked, nothing traps; a
// pointer is used only after its null check and its count's range check (CInterface.swift's
// "Raw memory").
import AnimationCore
import AnimationLottie
import CAnimationEngine

/// A Lottie file compiled for one size (`ae_lottie`).
final class LottieHandle {
    let program: LottieProgram
    init(_ program: LottieProgram) { self.program = program }
}

/// A batch of Lottie instances (`ae_lottie_batch`); it keeps the files it holds instances of alive.
final class LottieBatchHandle {
    let batch: LottieBatch
    var files: [LottieHandle] = []
    init(threads: Int) { batch = LottieBatch(maximumThreads: threads) }
}

private func lottie(_ pointer: OpaquePointer?) throws -> LottieHandle {
    guard let handle = lookup(pointer, as: LottieHandle.self) else {
        throw CError(status: AE_ERROR_UNKNOWN_ID, message: pointer == nil ? "lottie is null" : "lottie is not a live file (destroyed, or not made by ae_lottie_create)")
    }
    return handle
}

private func lottieBatch(_ pointer: OpaquePointer?) throws -> LottieBatchHandle {
    guard let handle = lookup(pointer, as: LottieBatchHandle.self) else {
        throw CError(status: AE_ERROR_UNKNOWN_ID, message: pointer == nil ? "batch is null" : "batch is not a live batch (destroyed, or not made by ae_lottie_batch_create)")
    }
    return handle
}

private func lottieError(_ error: LottieError) -> CError {
    CError(status: AE_ERROR_INVALID_ARGUMENT, message: error.description)
}

/// The C function `ae_lottie_create` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_create")
public func aeLottieCreate(_ json: UnsafePointer<CChar>?, _ length: Int, _ size: Double, _ lenient: Int32,
                           _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ae_status {
    call {
        let out = try required(out, "out_lottie")
        let json = try required(json, "json")
        guard length >= 0 && length <= 1 << 30 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "length must be in 0…1,073,741,824 (got \(length))")
        }
        guard size.isFinite && size > 0 else { throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "size must be a positive number (got \(size))") }
        let bytes = UnsafeRawBufferPointer(start: json, count: length)   // `length` bytes at a non-null `json`: the header's contract, the range checked above
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "json is not UTF-8 text")
        }
        do {
            let program = try LottieProgram(LottieAnimation(json: text, lenient: lenient != 0), size: size)
            out.pointee = register(LottieHandle(program))
        } catch let error as LottieError {
            throw lottieError(error)
        }
    }
}

/// The C function `ae_lottie_destroy` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_destroy")
public func aeLottieDestroy(_ pointer: OpaquePointer?) -> ae_status {
    call {
        guard unregister(pointer, as: LottieHandle.self) else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "lottie is null, destroyed, or not made by ae_lottie_create")
        }
    }
}

/// The C function `ae_lottie_info` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_info")
public func aeLottieInfo(_ pointer: OpaquePointer?, _ frameRate: UnsafeMutablePointer<Double>?, _ inPoint: UnsafeMutablePointer<Double>?,
                         _ outPoint: UnsafeMutablePointer<Double>?, _ width: UnsafeMutablePointer<Double>?,
                         _ height: UnsafeMutablePointer<Double>?) -> ae_status {
    call {
        let a = try lottie(pointer).program.animation
        let outs = [(frameRate, "out_frame_rate"), (inPoint, "out_in_point"), (outPoint, "out_out_point"), (width, "out_width"), (height, "out_height")]
        for (out, name) in outs { _ = try required(out, name) }
        frameRate?.pointee = a.frameRate
        inPoint?.pointee = a.inPoint
        outPoint?.pointee = a.outPoint
        width?.pointee = a.width
        height?.pointee = a.height
    }
}

/// The C function `ae_lottie_geometry_json` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_geometry_json")
public func aeLottieGeometryJSON(_ pointer: OpaquePointer?, _ frames: UnsafePointer<Double>?, _ frameCount: Int,
                                 _ out: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ outLength: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let handle = try lottie(pointer)
        let outLength = try required(outLength, "out_length")
        guard frameCount >= 0 && frameCount <= 100_000 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "frame_count must be in 0…100,000 (got \(frameCount))")
        }
        guard capacity >= 0 else { throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "capacity must not be negative") }
        // `frame_count` doubles at a non-null `frames` (the header's contract; the count checked above).
        let list = frameCount == 0 ? [] : Array(UnsafeBufferPointer(start: try required(frames, "frames"), count: frameCount))
        let text: String
        do {
            text = try handle.program.animation.geometryJSON(frames: list, size: handle.program.size)
        } catch let error as LottieError {
            throw lottieError(error)
        }
        let utf8 = Array(text.utf8)
        outLength.pointee = utf8.count
        guard capacity > utf8.count else { return }   // the length alone: the caller sizes a buffer
        let out = try required(out, "out")
        utf8.withUnsafeBufferPointer { bytes in
            UnsafeMutableRawPointer(out).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)   // capacity > count
        }
        out[utf8.count] = 0
    }
}

/// The C function `ae_lottie_batch_create` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_create")
public func aeLottieBatchCreate(_ threads: Int32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ae_status {
    call {
        let out = try required(out, "out_batch")
        guard threads >= 0 && threads <= 1024 else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "threads must be in 0…1024 (got \(threads))")
        }
        out.pointee = register(LottieBatchHandle(threads: Int(threads)))
    }
}

/// The C function `ae_lottie_batch_destroy` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_destroy")
public func aeLottieBatchDestroy(_ pointer: OpaquePointer?) -> ae_status {
    call {
        guard unregister(pointer, as: LottieBatchHandle.self) else {
            throw CError(status: AE_ERROR_UNKNOWN_ID, message: "batch is null, destroyed, or not made by ae_lottie_batch_create")
        }
    }
}

/// The C function `ae_lottie_batch_add` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_add")
public func aeLottieBatchAdd(_ pointer: OpaquePointer?, _ file: OpaquePointer?, _ count: Int, _ outFirst: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let handle = try lottieBatch(pointer), source = try lottie(file)
        let outFirst = try required(outFirst, "out_first")
        do {
            let range = try handle.batch.add(source.program, count: count)
            if !handle.files.contains(where: { $0 === source }) { handle.files.append(source) }
            outFirst.pointee = range.lowerBound
        } catch let error as LottieError {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: error.description)
        }
    }
}

/// The C function `ae_lottie_batch_remove` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_remove")
public func aeLottieBatchRemove(_ pointer: OpaquePointer?, _ instance: Int, _ outMoved: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let handle = try lottieBatch(pointer)
        guard instance >= 0 && instance < handle.batch.instanceCount else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "instance \(instance) is not below \(handle.batch.instanceCount)")
        }
        let moved = try handle.batch.remove(instance)   // in range: cannot throw
        // SIZE_MAX: nothing moved (the C side reads the bit pattern as size_t).
        outMoved?.pointee = moved ?? -1
        // Files no instance of the batch shows any more are let go (the batch dropped their programs).
        handle.files.removeAll { !handle.batch.holds($0.program) }
    }
}

/// The C function `ae_lottie_batch_set_frames` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_set_frames")
public func aeLottieBatchSetFrames(_ pointer: OpaquePointer?, _ first: Int, _ frames: UnsafePointer<Double>?, _ count: Int) -> ae_status {
    call {
        let handle = try lottieBatch(pointer)
        guard first >= 0, count >= 0, first <= handle.batch.instanceCount, count <= handle.batch.instanceCount - first else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE,
                         message: "instances \(first)…\(first + count - 1) are not all in the batch (it holds \(handle.batch.instanceCount))")
        }
        guard count > 0 else { return }
        let frames = try required(frames, "frames")
        for k in 0..<count where !frames[k].isFinite {
            throw CError(status: AE_ERROR_INVALID_ARGUMENT, message: "frames[\(k)] is not finite (\(frames[k]))")
        }
        for k in 0..<count { handle.batch.setFrame(frames[k], of: first + k) }
    }
}

/// The C function `ae_lottie_batch_tick` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_tick")
public func aeLottieBatchTick(_ pointer: OpaquePointer?) -> ae_status {
    call { try lottieBatch(pointer).batch.tick() }
}

/// The numbers an element kind of `LottieGeometryView` carries (move and line 2, cubic 6, close 0).
private func numberCount(_ kinds: UnsafeBufferPointer<UInt8>) -> Int {
    kinds.reduce(0) { $0 + ($1 == 2 ? 6 : $1 == 3 ? 0 : 2) }
}

/// The C function `ae_lottie_batch_read_nodes` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_read_nodes")
public func aeLottieBatchReadNodes(_ pointer: OpaquePointer?, _ instance: Int, _ out: UnsafeMutablePointer<ae_lottie_node>?,
                                   _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> ae_status {
    call {
        let handle = try lottieBatch(pointer)
        let outCount = try required(outCount, "out_count")
        guard instance >= 0 && instance < handle.batch.instanceCount else {
            throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "instance \(instance) is not below \(handle.batch.instanceCount)")
        }
        guard capacity >= 0 else { throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "capacity must not be negative") }
        var failure: CError?
        handle.batch.withGeometry(of: instance) { geometry in
            outCount.pointee = geometry.count
            guard capacity > 0, geometry.count > 0 else { return }
            guard let out else { failure = CError(status: AE_ERROR_NULL_POINTER, message: "out is null"); return }
            for k in 0..<min(capacity, geometry.count) {
                let paint = geometry.paint(of: k), kinds = geometry.kinds(of: k)
                out[k] = ae_lottie_node(is_fill: paint.isFill ? 1 : 0,
                                        color: (paint.color.red, paint.color.green, paint.color.blue, paint.color.alpha),
                                        stroke_width: paint.strokeWidth, opacity: paint.opacity,
                                        element_count: kinds.count, number_count: numberCount(kinds))
            }
        }
        if let failure { throw failure }
    }
}

/// Calls `body` with node `node` of `instance` in the batch `pointer` names, its geometry read in
/// place; a batch, instance or node that does not exist is the C interface's error, and so is
/// whatever `body` throws.
func withLottieNode(_ pointer: OpaquePointer?, _ instance: Int, _ node: Int, _ body: (LottieGeometryView) throws -> Void) throws {
    let handle = try lottieBatch(pointer)
    guard instance >= 0 && instance < handle.batch.instanceCount else {
        throw CError(status: AE_ERROR_OUT_OF_RANGE, message: "instance \(instance) is not below \(handle.batch.instanceCount)")
    }
    var failure: (any Error)?
    handle.batch.withGeometry(of: instance) { geometry in
        guard node >= 0 && node < geometry.count else {
            failure = CError(status: AE_ERROR_OUT_OF_RANGE, message: "node \(node) is not below \(geometry.count)")
            return
        }
        do { try body(geometry) } catch { failure = error }
    }
    if let failure { throw failure }
}

/// The C function `ae_lottie_batch_read_path` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_read_path")
public func aeLottieBatchReadPath(_ pointer: OpaquePointer?, _ instance: Int, _ node: Int, _ kinds: UnsafeMutablePointer<Int32>?,
                                  _ kindCapacity: Int, _ numbers: UnsafeMutablePointer<Double>?, _ numberCapacity: Int) -> ae_status {
    call {
        try withLottieNode(pointer, instance, node) { geometry in
            let elementKinds = geometry.kinds(of: node), count = numberCount(elementKinds)
            guard kindCapacity >= elementKinds.count, numberCapacity >= count else {
                throw CError(status: AE_ERROR_WRONG_SIZE,
                             message: "the node has \(elementKinds.count) elements and \(count) numbers; the buffers hold \(kindCapacity) and \(numberCapacity)")
            }
            guard let kinds, let numbers else {
                throw CError(status: AE_ERROR_NULL_POINTER, message: kinds == nil ? "kinds is null" : "numbers is null")
            }
            let map: [Int32] = [Int32(AE_PATH_MOVE.rawValue), Int32(AE_PATH_LINE.rawValue), Int32(AE_PATH_CURVE.rawValue), Int32(AE_PATH_CLOSE.rawValue)]
            for (k, kind) in elementKinds.enumerated() { kinds[k] = map[Int(min(kind, 3))] }
            let source = geometry.numbers(of: node)
            for k in 0..<count { numbers[k] = Double(source[k]) }
        }
    }
}

/// The C function `ae_lottie_batch_read_clip` (documented in `animation_engine.h`).
@_cdecl("ae_lottie_batch_read_clip")
public func aeLottieBatchReadClip(_ pointer: OpaquePointer?, _ instance: Int, _ node: Int, _ corners: UnsafeMutablePointer<Double>?,
                                  _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?, _ outClipped: UnsafeMutablePointer<Int32>?) -> ae_status {
    call {
        guard let outCount, let outClipped else {
            _ = try lottieBatch(pointer)   // a bad handle is named first, as everywhere
            throw CError(status: AE_ERROR_NULL_POINTER, message: outCount == nil ? "out_count is null" : "out_clipped is null")
        }
        try withLottieNode(pointer, instance, node) { geometry in
            guard let clip = geometry.clip(of: node) else {
                outCount.pointee = 0
                outClipped.pointee = 0
                return
            }
            let count = clip.count / 2
            outCount.pointee = count
            outClipped.pointee = 1
            guard capacity >= count else {
                throw CError(status: AE_ERROR_WRONG_SIZE, message: "the clip has \(count) corners; the buffer holds \(capacity)")
            }
            guard count == 0 || corners != nil else { throw CError(status: AE_ERROR_NULL_POINTER, message: "corners is null") }
            for k in 0..<2 * count { corners![k] = Double(clip[k]) }   // checked above: not null when there is a corner
        }
    }
}
