import AnimationBatch
import AnimationCore
import LayerTree

/// Target `animator`: up to 80 calls on one or two `PropertyAnimator`s over a context with
/// three layers — blocks that move, fade and resize layers (added before and while active),
/// completions, start (with and without a delay), pause, scrub (`fractionComplete`, NaN and
/// outside [0, 1] included), reverse, stop with and without finishing, finish at each position,
/// continue with and without a new curve and pace; model changes outside the animators; ticks. The
/// second animator's blocks and starts run under `.preserveVelocity`.
///
/// Checked after every call, against the state table (docs/property-animator.md): the state
/// each call leaves (a call not allowed in a state changes nothing); `isRunning` only while
/// active; `fractionComplete` in [0, 1] and 0 while inactive; each completion called at most
/// once, all of a run's completions in the call or tick that ended it, none for a run stopped
/// without finishing; the context's and the engine's invariants; finite presentation values. At
/// the end (a stopped animator finished, the clock moved past every run): every completion of a
/// run that ended was called exactly once.
public func fuzzAnimator(_ bytes: [UInt8]) throws {
    var input = FuzzInput(bytes)
    let context = LayerContext(configuration: FrameEvaluator.Configuration(maximumThreads: 1))
    let layers = (0..<3).map { _ in Layer() }
    for layer in layers { context.rootLayer.addSublayer(layer) }
    var time = 0.0
    context.tick(at: time)

    /// What the fuzzer expects of one animator.
    final class Model {
        let animator: PropertyAnimator
        /// Runs ended so far; a completion is owed by the run of the number it was added at.
        var endedRuns = 0
        var completions: [(run: Int, calls: Int, discarded: Bool)] = []
        init(_ animator: PropertyAnimator) { self.animator = animator }

        /// The run ended (completed or finished): its completions must all have been called once.
        func runEnded(_ why: String) throws {
            for c in completions where c.run == endedRuns && !c.discarded {
                try check(c.calls == 1, "a completion of run \(endedRuns) called \(c.calls) times when it ended (\(why))")
            }
            endedRuns += 1
        }
    }
    var models: [Model] = []
    var trace: [String] = []
    let count = input.int(in: 1...2)
    for k in 0..<count {
        let duration = [1.0, 0.25, 2, input.number(scale: 3, edges: false)][input.choice(4)]
        let animator = input.bool()
            ? PropertyAnimator(duration: duration, timingFunction: input.timingFunction(edges: false) ?? .linear, context: context)
            : PropertyAnimator(duration: duration, dampingRatio: [0.3, 1, 2, input.number(scale: 2, edges: false)][input.choice(4)],
                               context: context)
        models.append(Model(animator))
        trace.append("P\(k) = animator(\(animator.duration) s)")
    }

    /// A tick; an animator active before it and inactive after it ended its run in it.
    func tick(to time: Double) throws {
        let activeBefore = models.map { $0.animator.state == .active }
        context.tick(at: time)
        for (k, model) in models.enumerated() where activeBefore[k] && model.animator.state == .inactive {
            try model.runEnded("the tick at \(time)")
        }
    }

    func block(_ input: inout FuzzInput) -> () -> Void {
        let layer = layers[input.choice(layers.count)]
        let x = input.number(scale: 200, edges: false), o = input.fraction(edges: false)
        switch input.choice(3) {
        case 0: return { layer.position = Point(x: x, y: -x) }
        case 1: return { layer.opacity = o }
        default: return { layer.bounds = Rect(x: 0, y: 0, width: abs(x), height: o * 50) }
        }
    }

    for _ in 0..<input.int(in: 1...80) {
        let m = models[input.choice(models.count)]
        let a = m.animator
        let before = a.state
        let wasRunning = a.isRunning
        var call = ""
        // The second animator takes keys over under .preserveVelocity (docs/retargeting.md): its
        // blocks start at the velocity a key has. Chosen by position, so that no input byte is
        // read for it (the corpus keeps its meaning).
        let keepsVelocity = models.count > 1 && m === models[1]
        func recording(_ body: () -> Void) {
            guard keepsVelocity else { return body() }
            Transaction.begin()
            Transaction.setRetargetMode(.preserveVelocity)
            body()
            Transaction.commit()
        }
        switch input.choice(13) {
        case 0:
            let changes = block(&input)
            recording { a.addAnimations(changes) }
            call = "addAnimations"
            try check(a.state == before, "addAnimations changed the state")
        case 1:
            let index = m.completions.count
            m.completions.append((m.endedRuns, 0, false))
            a.addCompletion { [weak m] _ in m?.completions[index].calls += 1 }
            call = "addCompletion"
        case 2:
            recording { a.startAnimation() }
            call = "start"
            try check(before == .stopped ? a.state == .stopped : (a.state == .active && a.isRunning), "start from \(before) left \(a.state)")
        case 3:
            let delay = input.number(scale: 1, edges: false)
            recording { a.startAnimation(afterDelay: delay) }
            call = "start(afterDelay: \(delay))"
            let allowed = before != .stopped && delay >= 0
            try check(allowed ? (a.state == .active && a.isRunning) : (a.state == before && a.isRunning == wasRunning),
                      "start(afterDelay: \(delay)) from \(before) left \(a.state)")
        case 4:
            a.pauseAnimation()
            call = "pause"
            try check(before == .stopped ? a.state == .stopped : (a.state == .active && !a.isRunning), "pause from \(before) left \(a.state)")
        case 5:
            let f = [0, 1, .nan, -1, 2, input.fraction(edges: false)][input.choice(6)]
            let fraction = a.fractionComplete
            a.fractionComplete = f
            call = "fractionComplete = \(f)"
            if f.isNaN || before == .stopped || wasRunning {
                try check(a.state == before && (f.isNaN || before != .stopped || a.fractionComplete == fraction), "a scrub not allowed changed something")
            } else {
                try check(a.state == .active && !a.isRunning && a.fractionComplete == min(max(f, 0), 1), "scrub to \(f) from \(before)")
            }
        case 6:
            a.isReversed.toggle()
            call = "isReversed = \(a.isReversed)"
            try check(a.state == before, "reversing changed the state")
        case 7, 8:
            let withoutFinishing = input.bool()
            a.stopAnimation(withoutFinishing)
            call = "stop(\(withoutFinishing))"
            if before == .active {
                try check(a.state == (withoutFinishing ? .inactive : .stopped), "stop(\(withoutFinishing)) left \(a.state)")
                if withoutFinishing {
                    for i in m.completions.indices where m.completions[i].run == m.endedRuns { m.completions[i].discarded = true }
                    for c in m.completions where c.run == m.endedRuns { try check(c.calls == 0, "a completion called by stop(true)") }
                    m.endedRuns += 1
                }
            } else {
                try check(a.state == before, "stop on \(before) changed the state")
            }
        case 9:
            let position = [PropertyAnimator.Position.start, .end, .current][input.choice(3)]
            a.finishAnimation(at: position)
            call = "finish(\(position))"
            if before == .stopped {
                try check(a.state == .inactive, "finish left \(a.state)")
                try m.runEnded("finishAnimation")
            } else {
                try check(a.state == before, "finish on \(before) changed the state")
            }
        case 10:
            let paused = a.state == .active && !a.isRunning
            let factor = [1, 0.5, 3, 0, -1, .nan][input.choice(6)]
            a.continueAnimation(withTimingFunction: input.timingFunction(edges: false), durationFactor: factor)
            call = "continue(×\(factor))"
            let valid = paused && factor > 0 && factor.isFinite
            try check(valid ? a.isRunning : a.state == before, "continue from \(before) (paused \(paused), factor \(factor)) left \(a.state)")
        case 11:
            // A change outside the animators: an implicit animation of its own (§10).
            layers[input.choice(layers.count)].opacity = input.fraction(edges: false)
            call = "opacity set outside"
        default:
            time += Double(input.int(in: 0...90)) / 60
            try tick(to: time)
            call = "tick(\(time))"
        }
        trace.append("P\(models.firstIndex { $0 === m } ?? -1).\(call) → \(a.state)\(a.isRunning ? " running" : "") at \(a.fractionComplete)")
        do {
            for model in models {
                let b = model.animator
                try check(!b.isRunning || b.state == .active, "running while \(b.state)")
                try check((0...1).contains(b.fractionComplete), "fractionComplete \(b.fractionComplete)")
                try check(b.state != .inactive || b.fractionComplete == 0, "inactive at fraction \(b.fractionComplete)")
                for c in model.completions {
                    try check(c.calls <= 1, "a completion called \(c.calls) times")
                    try check(!c.discarded || c.calls == 0, "a completion of a run stopped without finishing was called")
                    try check(c.run >= model.endedRuns || c.calls == 1 || c.discarded, "a completion of an ended run was not called")
                }
            }
            let broken = context.invariantViolations() + context.store.invariantViolations()
            try check(broken.isEmpty, "invariants broken: \(broken.joined(separator: "; "))")
            for layer in layers {
                guard let presentation = layer.presentation() else { continue }
                for key in ["position", "opacity", "bounds"] {
                    let value = presentation.value(forKey: key)
                    try check(value?.components.allSatisfy(\.isFinite) ?? true, "\(key) = \(String(describing: value))")
                }
            }
        } catch let failure as FuzzFailure {
            throw FuzzFailure("\(failure.description); steps: \(trace.joined(separator: "; "))")
        }
    }
    // The end: stopped animators finished, the clock moved past every run.
    for model in models where model.animator.state == .stopped {
        model.animator.finishAnimation(at: .current)
        try model.runEnded("the end's finishAnimation")
    }
    let longest = models.map(\.animator.duration).max() ?? 1
    do {
        for step in 1...4 {
            time += longest * 3 * Double(step)
            try tick(to: time)
        }
        for model in models {
            for c in model.completions {
                if c.run < model.endedRuns {
                    try check(c.calls == 1 || c.discarded, "a completion of an ended run called \(c.calls) times")
                } else {
                    try check(c.calls == 0, "a completion of a run that has not ended called \(c.calls) times")
                }
            }
        }
    } catch let failure as FuzzFailure {
        throw FuzzFailure("\(failure.description); steps: \(trace.joined(separator: "; "))")
    }
}
