import AnimationBatch
import AnimationCore
import AnimationLottie
import AnimationScene
import AnimationWorkloads

/// Whether every number in a JSON document is ordinary (0, or a magnitude within [1e-6, 1e6]):
/// the checks of agreement and finiteness hold for such files.
func isOrdinary(_ json: JSON) -> Bool {
    switch json {
    case .number(let x): x == 0 || (abs(x) >= 1e-6 && abs(x) <= 1e6)
    case .array(let items): items.allSatisfy(isOrdinary)
    case .object(let members): members.allSatisfy { isOrdinary($0.value) }
    default: true
    }
}

/// Target `scene`: the bytes as a scene file (docs/scene-format.md). Whatever the text:
/// decoding either gives a scene or throws a `SceneError` (nothing crashes or hangs). A scene
/// that decodes is drawn as SVG and evaluated by both engines at six times, never reading NaN
/// (JSON's numbers are finite); for a file whose numbers are ordinary the batch engine agrees with
/// the scalar reference within docs/architecture.md's precision table (or matches it a hair away,
/// at a jump), and the reference's values are finite.
public func fuzzScene(_ bytes: [UInt8]) throws {
    guard bytes.count <= 1 << 16 else { return }   // libFuzzer's -max_len keeps inputs small anyway
    let text = String(decoding: bytes, as: UTF8.self)
    guard let json = try? JSON.parse(text), let scene = try? SceneDecoder.decode(json) else { return }
    guard let evaluation = try? SceneEvaluation(scene) else { return }
    let ordinary = isOrdinary(json)
    let times = [-0.5, 0, 0.3, 1.1, 2.5, 7.0]
    let renderer = SceneRenderer(evaluation)   // `render`: any value, finite or not, becomes SVG text
    _ = renderer.svg(at: 0.3, engine: .reference)
    // Each layer's tolerance bounds by property, worked out once (they walk the animations).
    var bounds = [PrecisionTable.Bounds](repeating: .init(), count: evaluation.layers.count)
    for t in times {
        let batch = evaluation.frame(at: t, engine: .batch)
        let reference = evaluation.frame(at: t, engine: .reference)
        try check(batch.layers.count == reference.layers.count, "layer counts differ at \(t)")
        // JSON numbers are finite: whatever their size, neither engine reads NaN.
        for (engine, frame) in [("batch", batch), ("reference", reference)] {
            for layer in frame.layers {
                for (keyPath, value) in layer.values where value.components.contains(where: \.isNaN) {
                    throw FuzzFailure("\(layer.id) \(keyPath) at \(t): \(engine) \(value) from finite input")
                }
            }
        }
        guard ordinary else { continue }
        for (l, (layer, (b, r))) in zip(evaluation.layers, zip(batch.layers, reference.layers)).enumerated() {
            for ((keyPath, value), (_, expected)) in zip(b.values, r.values) {
                try check(expected.components.allSatisfy(\.isFinite), "\(r.id) \(keyPath) at \(t): reference \(expected)")
                let property = AnimationKeyPath.split(keyPath).property
                let tolerance = bounds[l].tolerance(property: property, model: layer.model[property], animations: layer.animations,
                                                    reference: expected)
                if PrecisionTable.maxDifference(value, expected) <= tolerance { continue }
                let nearJump = [1e-6, -1e-6, 1e-5, -1e-5, 1e-4, -1e-4].contains { delta in
                    let nearby = evaluation.frame(at: t + delta, engine: .reference)
                    guard let row = nearby.layers.first(where: { $0.id == r.id }),
                          let other = row.values.first(where: { $0.keyPath == keyPath }) else { return false }
                    return PrecisionTable.maxDifference(value, other.value) <= tolerance
                }
                try check(nearJump, "\(r.id) \(keyPath) at \(t): batch \(value), reference \(expected), tolerance \(tolerance)")
            }
        }
    }
}

/// Target `lottie`: the bytes as a Lottie file (the reader is lenient when the first byte is odd).
/// Whatever the text: reading either gives an animation or throws a `LottieError`. A file that
/// reads is drawn as SVG and by the reference at four frames and by a `LottieBatch` of five instances at
/// the same frames, two at one (one evaluated, one copying it): the batch stays within the buffers
/// it sized (no element dropped) and draws the reference's nodes stored in single precision
/// (`LottieBatch.storesReference(_:_:)`), also for numbers past Float's range; and after removing
/// one instance, the others still do.
public func fuzzLottie(_ bytes: [UInt8]) throws {
    guard bytes.count <= 1 << 16 else { return }
    let text = String(decoding: bytes, as: UTF8.self)
    guard let animation = try? LottieAnimation(json: text, lenient: bytes.first.map { $0 & 1 == 1 } ?? false) else { return }
    guard let program = try? LottieProgram(animation, size: 128) else { return }
    let span = animation.outPoint - animation.inPoint
    let frames = [animation.inPoint, animation.inPoint + span / 3, animation.inPoint + span * 0.71, animation.outPoint - 0.5,
                  animation.inPoint + span / 3]
    let batch = LottieBatch(maximumThreads: 1)
    guard let instances = try? batch.add(program, count: frames.count) else { return }
    for (i, f) in zip(instances, frames) { batch.setFrame(f, of: i) }
    batch.tick()
    try check(batch.overflowCount == 0, "the batch dropped elements (\(batch.overflowCount))")
    try checkInvariants(of: batch, "after the first tick")
    // Every file, ordinary numbers or not: numbers past what single precision holds (a position
    // of 1e117) are stored as the infinity Float rounds them to, as the reference's are.
    for (i, f) in zip(instances, frames) {
        _ = animation.svg(atFrame: f, size: 128)   // `lottie render`: any node, finite or not, becomes text
        let reference = animation.nodes(atFrame: f, size: 128)
        try check(LottieBatch.storesReference(batch.nodes(of: i), reference), "frame \(f): the batch differs from the reference")
    }
    // Removal: the last instance takes number 0; after a compaction and a tick every instance
    // still draws its own frame (instance 1 now copies instance 0).
    try check(try batch.remove(0) == frames.count - 1, "removing instance 0 did not move the last one")
    try checkInvariants(of: batch, "after a removal")
    batch.compact()
    try checkInvariants(of: batch, "after a compaction")
    batch.tick()
    for (i, f) in [frames[4], frames[1], frames[2], frames[3]].enumerated() {
        try check(LottieBatch.storesReference(batch.nodes(of: i), animation.nodes(atFrame: f, size: 128)),
                  "after a removal, instance \(i) at frame \(f) differs from the reference")
    }
}

/// Fails with the batch's broken invariants (``LottieBatch/invariantViolations(limit:)``), if any.
private func checkInvariants(of batch: LottieBatch, _ when: String) throws {
    let broken = batch.invariantViolations()
    try check(broken.isEmpty, "LottieBatch invariants broken \(when): \(broken.joined(separator: "; "))")
}
