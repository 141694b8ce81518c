import AnimationCore
import AnimationScene
import LayerTree

/// One seed article as a LayerTree program: layers in a `LayerContext`, and a script of what
/// the app does at given times (changes, transactions, reads of presentation values). Run by
/// ``SeedRun``, which ticks the context and draws each frame from presentation values.
public protocol SeedProgram: AnyObject {
    /// The name on the command line (`animation-engine demo <name>`).
    static var name: String { get }
    /// One line on what the seed shows.
    static var title: String { get }
    init()
    /// The program's context (its tree under `rootLayer`).
    var context: LayerContext { get }
    /// The canvas the frames are drawn on.
    var canvas: Size { get }
    /// How long the program runs, in seconds.
    var duration: Double { get }
    /// Does what the script says happens after the previous tick and up to `time`, just before
    /// the tick at `time`.
    func advance(to time: Double)
    /// What happened: callbacks, reads, completions, each with its time.
    var log: [String] { get }
}

/// The five seeds, in the order of the articles, then the first one retargeted both ways
/// (``RetargetSeed``).
public enum Seeds {
    public static var all: [any SeedProgram.Type] { [
        ProgressRingSeed.self, TransactionSeed.self, BorderSeed.self, RingDidStopSeed.self, ArcFlightSeed.self, RetargetSeed.self,
    ] }

    /// The seed called `name`, or nil.
    public static func named(_ name: String) -> (any SeedProgram.Type)? {
        all.first { $0.name == name }
    }
}

/// A script: actions at times, each run once, in time order, by the first `advance(to:)` that
/// reaches its time.
struct Script {
    private var steps: [(time: Double, action: () -> Void)] = []
    private var next = 0

    mutating func at(_ time: Double, _ action: @escaping () -> Void) {
        steps.append((time, action))
        steps.sort { $0.time < $1.time }
    }

    mutating func advance(to time: Double) {
        while next < steps.count, steps[next].time <= time {
            let action = steps[next].action
            next += 1
            action()
        }
    }
}

/// A layer that draws content of its own: its snapshot adds these layers inside it.
public protocol SnapshotContent {
    /// Scene layers drawn inside this layer (in its bounds' coordinates).
    func contentLayers() -> [SceneLayer]
}

/// Runs seed programs and draws their frames.
public enum SeedRun {
    /// The frames of `program` at `fps` from 0 to its duration: each the SVG of the tree's
    /// presentation values after the tick at its time.
    public static func frames(_ program: any SeedProgram, fps: Double) -> [String] {
        let count = max(1, Int((program.duration * fps).rounded(.down)) + 1)
        var frames: [String] = []
        for k in 0..<count {
            let t = Double(k) / fps
            program.advance(to: t)
            program.context.tick(at: t)
            frames.append(SceneRenderer.svg(snapshot: snapshot(program.context), size: program.canvas,
                                            caption: "\(type(of: program).name) at \(String(format: "%.3f", t)) s", labeled: true))
        }
        return frames
    }

    /// Runs `program` to time `time` in ticks of 1/60 s without drawing (for tests and timing).
    public static func run(_ program: any SeedProgram, until time: Double, from start: Double = 0) {
        var t = start
        while t <= time + 1e-9 {
            program.advance(to: t)
            program.context.tick(at: t)
            t += 1.0 / 60
        }
    }

    /// The tree under `context`'s root as a static scene of presentation values (model values
    /// for a layer that has not been through a tick).
    public static func snapshot(_ context: LayerContext) -> Scene {
        var counter = 0
        func convert(_ layer: Layer) -> SceneLayer {
            counter += 1
            let shown: Layer = layer.presentation() ?? layer
            let properties = shown.definedKeys.compactMap { key in shown.value(forKey: key).map { (name: key, value: $0) } }
            let shape = layer as? ShapeLayer
            var children = (layer as? SnapshotContent)?.contentLayers() ?? []
            children += (layer.sublayers ?? []).map(convert)
            return SceneLayer(id: layer.name ?? "layer-\(counter)", type: shape == nil ? .layer : .shape, properties: properties,
                              path: shape?.path, animations: [], sublayers: children)
        }
        return Scene(layers: (context.rootLayer.sublayers ?? []).map(convert))
    }
}
