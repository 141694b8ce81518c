import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

/// Tests run concurrently on a pool of threads and transactions are per thread: each test starts
/// by committing whatever an earlier test on its thread left open.
func freshTransactions() {
    var guardCount = 0
    while Transaction.depth > 0 && guardCount < 100 {
        Transaction.commit()
        guardCount += 1
    }
}

/// A context with `layer` under its root, ticked once at `time`.
func context(with layers: Layer..., at time: Double = 0) -> LayerContext {
    freshTransactions()
    let context = LayerContext(configuration: FrameEvaluator.Configuration(maximumThreads: 1))
    for layer in layers { context.rootLayer.addSublayer(layer) }
    context.tick(at: time)
    return context
}

/// Records delegate callbacks in order.
final class Recorder: AnimationDelegate {
    var log: [String] = []
    let name: String
    init(_ name: String = "") { self.name = name }
    func animationDidStart(_ animation: any Animation) { log.append("\(name)start") }
    func animationDidStop(_ animation: any Animation, finished: Bool) { log.append("\(name)stop(\(finished))") }
}

/// A shared log for several recorders.
final class SharedLog: AnimationDelegate {
    let name: String
    let sink: LogSink
    init(_ name: String, _ sink: LogSink) { self.name = name; self.sink = sink }
    func animationDidStart(_ animation: any Animation) { sink.lines.append("\(name) start") }
    func animationDidStop(_ animation: any Animation, finished: Bool) { sink.lines.append("\(name) stop \(finished)") }
}

final class LogSink { var lines: [String] = [] }

func near(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-4) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

func opacityFade(from: Double = 0, to: Double = 1, duration: Double = 1) -> BasicAnimation {
    BasicAnimation(keyPath: "opacity", from: from, to: to, duration: duration)
}
