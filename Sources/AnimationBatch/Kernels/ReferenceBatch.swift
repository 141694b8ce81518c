import AnimationCore

/// Tracks whose value is computed per lane by the reference itself: timing in SIMD, the value in
/// Double by AnimationCore's own functions, stored as Float.
///
/// Two kinds of track come here. Animations of whole transforms (`Transform3D`,
/// `AffineTransform`; decomposition, shortest-arc slerp, recomposition, semantics §15): they are few
/// next to numbers, points and colours, and their per-lane work (a 4×4 decomposition and
/// recomposition) dwarfs the gathers a SIMD form would need. And animations with a nearly vertical
/// timing function (``CompiledCurve/isWithinFloatPrecision(_:)``), which the Float curve kernel
/// cannot evaluate within the precision contract. Either way the values agree with the reference
/// to Float rounding. Nothing here allocates (AnimationCore's transform math is allocation-free).
final class ReferenceBatch: TrackBatch {
    let kind: ValueKind
    /// Parallel to positions.
    private(set) var animations: [any PropertyAnimation] = []
    private(set) var models: [AnimationValue] = []
    /// 1: exclusive (compose with the model here), 2: additive.
    private(set) var modes: [UInt8] = []
    /// The tangent angle for path animations with a rotation mode (semantics §5.7), set in frames
    /// where the track contributes.
    let angle = Column<Float>(fill: 0)
    override var anglePointer: UnsafeMutablePointer<Float>? { angle.base }
    /// Whether any track is a path animation with a rotation mode (a frame skips the angle otherwise).
    private var rotatingCount = 0

    init(kind: ValueKind) {
        self.kind = kind
        super.init(width: kind.componentCount)
    }

    func setAnimation(_ i: Int, _ animation: any PropertyAnimation, model: AnimationValue, exclusive: Bool, additive: Bool) {
        let mode: UInt8 = (exclusive ? 1 : 0) | (additive ? 2 : 0)
        if i < animations.count {
            if Self.rotates(animations[i]) { rotatingCount -= 1 }
            animations[i] = animation
            models[i] = model
            modes[i] = mode
        } else {
            animations.append(animation)
            models.append(model)
            modes.append(mode)
        }
        if Self.rotates(animation) { rotatingCount += 1 }
    }

    private static func rotates(_ animation: any PropertyAnimation) -> Bool {
        guard let k = animation as? KeyframeAnimation else { return false }
        return k.rotationMode != nil && k.path != nil
    }

    override func reserveSpecific(_ needed: Int, count: Int) {
        angle.reserve(needed, count: count)
    }

    override func willRemoveSpecific(_ i: Int) {
        if i < animations.count && Self.rotates(animations[i]) { rotatingCount -= 1 }
    }

    override func moveSpecific(_ from: Int, to: Int) {
        angle[to] = angle[from]
        animations[to] = animations[from]
        models[to] = models[from]
        modes[to] = modes[from]
    }

    override func clearSpecific(_ i: Int) {
        angle[i] = 0
        animations.removeLast()
        models.removeLast()
        modes.removeLast()
    }

    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let timingKernel = self.timingKernel
        let velocity = velocityStep(time: time, nodeTimes: nodeTimes)
        let state = statePointers
        for block in blocks {
            let i = block * 16
            let timing = timingKernel.evaluate(block: i, time: time, nodeTimes: nodeTimes)
            state.store(timing, block: i)
            for lane in 0..<min(16, count - i) {
                let t = i + lane
                let model = models[t]
                var shown = model
                if timing.weight[lane] != 0 {
                    let progress = lane < 8 ? timing.progressLow[lane] : timing.progressHigh[lane - 8]
                    let state = TimingState(phase: .active, contributes: true, activeTime: 0,
                                            iteration: Double(timing.iteration[lane]), basicTime: progress * timingColumns.duration[t],
                                            progress: progress)
                    if let v = animations[t].value(in: state, base: model) {
                        shown = modes[t] == 3 ? model.adding(v) : v
                    }
                    if rotatingCount > 0, let k = animations[t] as? KeyframeAnimation, k.rotationMode != nil {
                        angle[t] = Float(k.rotationAngle(in: state) ?? 0)
                    }
                } else if modes[t] & 1 == 0 {
                    continue
                }
                ValueStorage.store(shown, into: outputs, at: t)
                // Forced: the frame compares these few rows itself, so that the changed set lists
                // only values whose bits changed.
                changed[t] |= TrackBatch.forced
            }
            if let velocity {
                // Not computed here: NaN sends a reader to the scalar reference's velocity
                // (docs/velocity.md), which these few tracks' Double work would repeat anyway.
                for c in 0..<width { velocity.store(SIMD16<Float>(repeating: .nan), component: c, block: i) }
            }
        }
    }
}
