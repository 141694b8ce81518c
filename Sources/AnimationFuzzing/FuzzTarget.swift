/// The fuzz targets: each reads a program or a file from the fuzzer's bytes, runs it through a
/// public entry of the package and checks the rules that must hold whatever the input (docs/fuzzing.md).
///
/// A check that fails throws ``FuzzFailure``; the library itself must never trap, hang or
/// allocate without bound on any input. The same functions run under libFuzzer (the `Fuzz/`
/// package) and in the tests, which replay every committed corpus and regression input.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Scene files (docs/scene-format.md): ``fuzzScene(_:)``.
    case scene
    /// Path building, measuring and trimming: ``fuzzPath(_:)``.
    case path
    /// The keyframe constructor and every animation kind, batch against reference: ``fuzzKeyframes(_:)``.
    case keyframes
    /// Sequences of C-interface calls: ``fuzzCInterface(_:)``.
    case cInterface = "c-interface"
    /// Sequences of LayerTree operations with invariants: ``fuzzLayerTree(_:)``.
    case layerTree = "layer-tree"
    /// Lottie files, reference against batch: ``fuzzLottie(_:)``.
    case lottie
    /// Sequences of property-animator calls against its state table: ``fuzzAnimator(_:)``.
    case animator

    /// Runs the target on one input.
    ///
    /// - Throws: ``FuzzFailure`` naming the rule that did not hold.
    public func run(_ bytes: [UInt8]) throws {
        switch self {
        case .scene: try fuzzScene(bytes)
        case .path: try fuzzPath(bytes)
        case .keyframes: try fuzzKeyframes(bytes)
        case .cInterface: try fuzzCInterface(bytes)
        case .layerTree: try fuzzLayerTree(bytes)
        case .lottie: try fuzzLottie(bytes)
        case .animator: try fuzzAnimator(bytes)
        }
    }
}
