import AnimationCore

/// Basic animations of 1-, 2- or 4-component values (numbers, points, sizes, rectangles, colours):
/// `CABasicAnimation` as columns.
///
/// **Kernel.** Timing (``TimingKernel``), the timing curve (``CurveKernel``), then per component
/// `v = from + Δ · (f + k · cumulative)` — one multiply-add covers interpolation (semantics §4.2)
/// and the cumulative term (§4.4) — and the exclusive-track fallback/additive step (§4.3, §8.4).
/// `from` and `Δ = end − start` are the §4.1 endpoints resolved when the track is compiled (against
/// the model value for base-dependent rows).
///
/// **Error bound.** ≤ 1e-5 · (|from| + |to| + 1) against the reference (Float values, the curve
/// kernel's 2e-5): the randomised agreement tests check it.
///
/// **Velocity** (when a frame asks, docs/velocity.md): `Δ · f′(p) · p′`.
///
/// **Speed.** W2's basic families at 200,000 tracks, native build, frame p50 per track on one / two
/// threads: numbers 5.6 / 3.5 ns, points 6.5 / 5.2 ns, colours 11.8 / 6.8 ns. Folding four plain
/// blocks at once in the timing stage took about 30 % off each (alternating runs on one core).
final class BasicBatch: InterpolatingBatch {
    override func evaluate(blocks: Range<Int>, time: Double, nodeTimes: UnsafePointer<Double>) {
        let out = outputPointers
        let start = self.start.pointers, delta = self.delta.pointers
        let width = self.width
        let velocity = velocityStep(time: time, nodeTimes: nodeTimes)
        evaluateCurved(blocks: blocks, time: time, nodeTimes: nodeTimes) { i, timingBlock, f, curve in
            var timing: TimingBlock { timingBlock.pointee }   // read where used (see evaluateCurved)
            out.storeInterpolated(start: start, delta: delta, fraction: f, timing: timingBlock, width: width, block: i)
            if let velocity {
                // v′ = Δ · f′(p) · p′ (the cumulative term is constant within an iteration).
                let rate = velocity.curvedRates(timing, block: i, curve: curve)
                for c in 0..<width { velocity.store(load16(delta[c], i) * rate, component: c, block: i) }
            }
        }
    }
}
