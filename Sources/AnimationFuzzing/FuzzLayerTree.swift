import AnimationBatch
import AnimationCore
import LayerTree

/// Target `layer-tree`: up to 96 LayerTree operations decoded from fuzz input on one context —
/// layers and shape layers created, moved and removed; model values set by key and key path
/// (implicit animations, §10); explicit basic, keyframe and spring animations added, replaced by
/// key and removed; transactions begun, committed and flushed with durations, disabled actions
/// and completion blocks (§9); layer time changed (pause, resume, seek: `speed`, `timeOffset`,
/// `beginTime`, §2.7); ticks forward, backward and at NaN. Delegates, when told an animation
/// stopped, may remove layers, remove or add animations and write the model: changes from a
/// callback during a tick.
///
/// Checked after every step: the tree's, the context's and the engine's invariants hold
/// (`LayerContext.invariantViolations(limit:)`, `TrackStore.invariantViolations(limit:)`); each
/// animation the context accepted has been told its start at most once and its stop at most once,
/// never a start after its stop; after each tick the presentation values of every layer in the tree
/// are finite when every number given was ordinary. At the end (open transactions committed, every
/// layer removed, two more ticks):
/// every accepted animation has stopped exactly once (one added outside the tree and removed
/// before its layer joined never ran, and is told nothing), every completion block has run
/// exactly once, and the engine holds no animation and no track.
public func fuzzLayerTree(_ bytes: [UInt8]) throws {
    var input = FuzzInput(bytes)
    let edges = input.bool()
    // One input in eight runs its frames in chunks of 8 over two threads (worker threads are
    // started per context: on every input they would cost more than the program itself).
    let threads = input.choice(8) == 0 ? 2 : 1
    let context = LayerContext(configuration: FrameEvaluator.Configuration(parallelThreshold: 4, chunkSize: 8, maximumThreads: threads))
    var layers: [Layer] = [context.rootLayer]
    var recorders: [FuzzRecorder] = []
    var openTransactions = 0
    var completions: [Int] = []   // how many times each completion block ran
    let completionCounter = CompletionCounter()
    var time = 0.0
    // What was done, step by step (layers by their index in `layers`): the failure message's context.
    var trace: [String] = []
    func index(_ layer: Layer) -> Int { layers.firstIndex { $0 === layer } ?? -1 }

    for _ in 0..<input.int(in: 1...96) {
        let layer = layers[input.choice(layers.count)]
        switch input.choice(14) {
        case 0:
            let made: Layer = input.bool() ? Layer() : ShapeLayer()
            if input.bool() { made.position = input.point(edges: edges) }
            layers.append(made)
            let parent = layers[input.choice(layers.count)]
            parent.addSublayer(made)
            trace.append("L\(layers.count - 1) = new, under L\(index(parent))")
        case 1:
            let child = layers[input.choice(layers.count)]
            layer.addSublayer(child)   // a cycle, the root or the layer itself: refused, nothing changes
            trace.append("L\(index(layer)).addSublayer(L\(index(child)))")
        case 2:
            layer.removeFromSuperlayer()
            trace.append("L\(index(layer)).removeFromSuperlayer()")
        case 3, 4:
            let property = fuzzProperties[input.choice(fuzzProperties.count)]
            if input.choice(4) == 0 {
                let keyPath = ["position.x", "transform.rotation.z", "transform.scale", "bounds.size.width", "progress"][input.choice(5)]
                layer.setValue(.scalar(input.number(edges: edges)), forKeyPath: keyPath)
                trace.append("L\(index(layer)).\(keyPath) = …")
            } else {
                layer.setValue(input.value(of: property.kind, edges: edges), forKeyPath: property.name)
                trace.append("L\(index(layer)).\(property.name) = …")
            }
        case 5:
            let property = fuzzProperties[input.choice(fuzzProperties.count)]
            let animation: any Animation = switch input.choice(3) {
            case 0: input.basicAnimation(keyPath: property.name, kind: property.kind, edges: edges)
            case 1: input.springAnimation(keyPath: property.name, kind: property.kind, edges: edges)
            default: input.keyframeAnimation(keyPath: property.name, kind: property.kind, edges: edges)
            }
            let target = layers[input.choice(layers.count)]
            let recorder = FuzzRecorder(reaction: input.choice(6), target: target)
            let key = [nil, "a", "b", property.name][input.choice(4)]
            // Outside the tree the animation waits; removed while waiting, it is dropped without
            // callbacks (it never ran: Layer.add's documentation), so it may end with no stop.
            recorder.addedOutsideTheTree = context.layerID(of: layer) == nil
            let added = (try? layer.add(animation, forKey: key, delegate: recorder)) != nil
            if added {
                recorder.name = "A\(recorders.count)"
                recorders.append(recorder)
            }
            trace.append("L\(index(layer)).add(\(type(of: animation)) \(property.name), key \(key ?? "nil"), reaction \(recorder.reaction) on L\(index(target)))"
                         + (added ? " = \(recorder.name)" : " refused"))
        case 6:
            let key = ["a", "b", "opacity", "position"][input.choice(4)]
            layer.removeAnimation(forKey: key)
            trace.append("L\(index(layer)).removeAnimation(\(key))")
        case 7:
            layer.removeAllAnimations()
            trace.append("L\(index(layer)).removeAllAnimations()")
        case 8:
            if openTransactions < 4 {
                Transaction.begin()
                openTransactions += 1
                // Odd depths keep velocity when they retarget (docs/retargeting.md), even ones
                // restart: chosen by depth, so that no input byte is read for it (the corpus
                // keeps its meaning).
                Transaction.setRetargetMode(openTransactions % 2 == 1 ? .preserveVelocity : .restart)
            }
            if input.bool() { Transaction.setAnimationDuration(input.number(scale: 2, edges: edges)) }
            if input.bool() { Transaction.setDisableActions(input.bool()) }
            if input.bool() {
                let index = completions.count
                completions.append(0)
                Transaction.setCompletionBlock { completionCounter.ran(index) }
            }
            trace.append("begin (depth \(openTransactions), \(Transaction.animationDuration()) s, actions \(Transaction.disableActions() ? "off" : "on"), "
                         + "\(Transaction.retargetMode()))")
        case 9:
            if openTransactions > 0 {
                Transaction.commit()
                openTransactions -= 1
                trace.append("commit")
            } else {
                Transaction.flush()
                trace.append("flush")
            }
        case 10:
            switch input.choice(4) {
            case 0: layer.speed = input.choice(2) == 0 ? 0 : input.number(scale: 3, edges: edges)
            case 1: layer.timeOffset = input.number(scale: 5, edges: edges)
            case 2: layer.beginTime = input.number(scale: 5, edges: edges)
            default:
                // Apple's pause / resume recipe (§2.7).
                if layer.speed == 0 {
                    let paused = layer.timeOffset
                    layer.speed = 1
                    layer.timeOffset = 0
                    layer.beginTime = 0
                    layer.beginTime = layer.convertTime(context.currentTime, from: nil) - paused
                } else {
                    let paused = layer.convertTime(context.currentTime, from: nil)
                    layer.speed = 0
                    layer.timeOffset = paused
                }
            }
            trace.append("L\(index(layer)) time: speed \(layer.speed), offset \(layer.timeOffset), begin \(layer.beginTime)")
        default:
            time = switch input.choice(6) {
            case 0: input.number(scale: 3, edges: edges)    // a seek, perhaps backwards or NaN
            default: time + Double(input.int(in: 0...40)) / 60
            }
            context.tick(at: time)
            trace.append("tick(\(time)) " + recorders.map { "\($0.name):\($0.starts)/\($0.stops)" }.joined(separator: " "))
            if !input.sawUnusual { try checkFinite(context, layers) }
        }
        do {
            for recorder in recorders { try recorder.checkOnce() }
            let broken = context.invariantViolations() + context.store.invariantViolations()
            try check(broken.isEmpty, "invariants broken: \(broken.joined(separator: "; "))")
        } catch let failure as FuzzFailure {
            throw FuzzFailure("\(failure.description); steps: \(trace.joined(separator: "; "))")
        }
    }

    // The end: transactions closed; every layer outside the tree joins it (its waiting
    // animations start running), then the tree is emptied; ticks deliver every stop.
    for _ in 0..<openTransactions { Transaction.commit() }
    for layer in layers where layer.superlayer == nil && layer !== context.rootLayer { context.rootLayer.addSublayer(layer) }
    time = (time.isFinite ? time : 0) + 1
    context.tick(at: time)
    for layer in layers where layer !== context.rootLayer { layer.removeFromSuperlayer() }
    context.rootLayer.removeAllAnimations()
    context.tick(at: time + 1)
    context.tick(at: time + 2)
    // A stop on the root may have animated it again (reactions 4 and 5, without delegates).
    context.rootLayer.removeAllAnimations()
    context.tick(at: time + 3)
    for recorder in recorders {
        try recorder.checkOnce()
        try check(recorder.stops == 1 || (recorder.addedOutsideTheTree && recorder.stops == 0 && recorder.starts == 0),
                  "\(recorder.name) (reaction \(recorder.reaction)) stopped \(recorder.stops) times by the end; "
                  + "steps: \(trace.joined(separator: "; "))")
    }
    for (index, runs) in completionCounter.runs(count: completions.count).enumerated() {
        try check(runs == 1, "completion block \(index) ran \(runs) times")
    }
    try check(context.store.animationCount == 0, "\(context.store.animationCount) animations left in the engine")
    try check(context.layerCount == 1, "\(context.layerCount) layers left in the tree")
}

/// Every layer in the tree has finite presentation values and velocities (after a tick from
/// ordinary input).
private func checkFinite(_ context: LayerContext, _ layers: [Layer]) throws {
    for layer in layers where context.layerID(of: layer) != nil {
        guard let presentation = layer.presentation() else { continue }
        for key in presentation.definedKeys {
            guard let value = presentation.value(forKey: key) else { continue }
            try check(value.components.allSatisfy(\.isFinite), "\(key) = \(value) on a layer, from ordinary input")
            if let velocity = layer.velocity(forKey: key) {
                try check(velocity.kind == value.kind, "velocity of \(key) is a \(velocity.kind), its value a \(value.kind)")
                try check(velocity.components.allSatisfy(\.isFinite), "velocity of \(key) = \(velocity), from ordinary input")
            }
        }
    }
}

/// Counts completion-block runs (a class: the blocks outlive the loop that sets them).
final class CompletionCounter {
    private var counts: [Int: Int] = [:]
    func ran(_ index: Int) { counts[index, default: 0] += 1 }
    func runs(count: Int) -> [Int] { (0..<count).map { counts[$0] ?? 0 } }
}

/// An animation delegate that counts what it is told and, on its stop, may change the tree
/// (`reaction`: 0–1 nothing, 2 remove `target` from its superlayer, 3 remove `target`'s
/// animations, 4 write `target`'s model opacity (an implicit animation), 5 add a new animation
/// to `target`).
final class FuzzRecorder: AnimationDelegate {
    let reaction: Int
    weak var target: Layer?
    var name = ""
    var addedOutsideTheTree = false
    private(set) var starts = 0
    private(set) var stops = 0
    private var startedAfterStop = false

    init(reaction: Int, target: Layer) {
        self.reaction = reaction
        self.target = target
    }

    func animationDidStart(_ animation: any Animation) {
        if stops > 0 { startedAfterStop = true }
        starts += 1
    }

    func animationDidStop(_ animation: any Animation, finished: Bool) {
        stops += 1
        guard let target else { return }
        switch reaction {
        case 2: target.removeFromSuperlayer()
        case 3: target.removeAllAnimations()
        case 4: target.opacity = 0.5
        case 5:
            var fade = BasicAnimation(keyPath: "opacity")
            fade.fromValue = .scalar(0)
            fade.toValue = .scalar(1)
            fade.timing.duration = 0.5
            try? target.add(fade, forKey: "fade")
        default: break
        }
    }

    func checkOnce() throws {
        try check(starts <= 1, "an animation was told its start \(starts) times")
        try check(stops <= 1, "an animation was told its stop \(stops) times")
        try check(!startedAfterStop, "an animation was told its start after its stop")
    }
}
