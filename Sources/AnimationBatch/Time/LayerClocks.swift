import AnimationCore

/// Layers with a time of their own (semantics §2.2, §2.7): each such layer's clock is a time node
/// whose time, each frame, is the layer's local time `(tp − b)·s + o` from its parent layer's; the
/// layer's top-level tracks and group roots read it as their parent time. The frame's clock pass
/// (``ClockStep``s, parents first) is rebuilt only when a layer gains, loses or moves its time.
///
/// The one place that walks a layer's chain of clocks: ``localTime(of:atFrameTime:)`` for a
/// single layer, ``steps`` for a frame (``FramePlan``).
final class LayerClocks {
    /// A layer's clock: the time node that holds its local time each frame, its parent layer and
    /// its timing.
    struct Clock {
        var node: Int32
        var parent: LayerID?
        var timing: LayerTiming
    }

    private let tables: EngineTables
    private(set) var clocks: [LayerID: Clock] = [:]
    /// The clocks whose parent each layer is: removing a clock finds them without a scan of every
    /// clock (a scan each made removing a timed chain quadratic).
    private var children: [LayerID: Set<LayerID>] = [:]
    /// The frame's clock pass, parents first, and each layer's step in it.
    private(set) var steps: [ClockStep] = []
    private var stepOfLayer: [LayerID: Int] = [:]
    private var isStale = false
    /// Work counter for the tests that show layer time linear in a tree's depth (operation
    /// counts, not time): ancestors walked by the cycle check, and clocks placed by ``update()``.
    private(set) var walkSteps = 0

    init(tables: EngineTables) {
        self.tables = tables
    }

    /// See ``TrackStore/setLayerTime(_:parent:timing:)``.
    func setLayerTime(_ layer: LayerID, parent: LayerID?, timing: LayerTiming) throws {
        for (value, field) in [(timing.beginTime, "beginTime"), (timing.speed, "speed"), (timing.timeOffset, "timeOffset")]
        where !value.isFinite {
            throw AnimationError(field: field, reason: "must be finite (got \(value))")
        }
        if let parent {
            guard clocks[parent] != nil else {
                throw AnimationError(field: "parent", reason: "\(parent) has no time of its own (give it one first)")
            }
            // Only a layer with a clock can be a clock's parent (removing a clock clears its
            // children's link), so a new clock closes no cycle, and neither does a clock that
            // keeps its parent: giving a chain its clocks, or retiming a subtree, walks nothing
            // (walking each time was quadratic in the chain's depth).
            var ancestor: LayerID? = clocks[layer].map { $0.parent != parent } == true ? parent : nil
            var steps = 0
            while let a = ancestor {
                if a == layer { throw AnimationError(field: "parent", reason: "\(parent) is \(layer) or one of its descendants") }
                ancestor = clocks[a]?.parent
                steps += 1
                if steps > clocks.count { break }   // bounded: the chain has at most one step per clock
            }
            walkSteps += steps
        }
        if var clock = clocks[layer] {
            let moved = clock.parent != parent
            if moved {
                if let old = clock.parent { children[old]?.remove(layer) }
                if let parent { children[parent, default: []].insert(layer) }
            }
            clock.parent = parent
            clock.timing = timing
            clocks[layer] = clock
            if moved { isStale = true } else if let step = stepOfLayer[layer] { steps[step].timing = timing }
            return
        }
        var record = TimeNode()
        record.alive = true
        let node = tables.allocateNode(record)
        clocks[layer] = Clock(node: node, parent: parent, timing: timing)
        if let parent { children[parent, default: []].insert(layer) }
        isStale = true
        repointTopLevelTiming(of: layer, to: node)
    }

    /// See ``TrackStore/removeLayerTime(_:)``.
    func removeLayerTime(_ layer: LayerID) -> Bool {
        guard let clock = clocks.removeValue(forKey: layer) else { return false }
        if let parent = clock.parent { children[parent]?.remove(layer) }
        for child in children.removeValue(forKey: layer) ?? [] { clocks[child]?.parent = nil }
        repointTopLevelTiming(of: layer, to: -1)
        tables.releaseNode(clock.node)
        isStale = true
        return true
    }

    /// `layer`'s own timing and parent, or nil when it runs on its parent's time.
    func layerTime(of layer: LayerID) -> (timing: LayerTiming, parent: LayerID?)? {
        clocks[layer].map { ($0.timing, $0.parent) }
    }

    /// `layer`'s local time at frame time `time`, computed as a frame computes it: its clock, then
    /// its parents', to the frame time (bounded by the number of clocks).
    func localTime(of layer: LayerID, atFrameTime time: Double) -> Double {
        var chain: [LayerTiming] = []
        var current: LayerID? = layer
        while let l = current, let clock = clocks[l], chain.count <= clocks.count {
            chain.append(clock.timing)
            current = clock.parent
        }
        var t = time
        for timing in chain.reversed() { t = timing.localTime(atParentTime: t) }
        return t
    }

    /// d(local time)/d(frame time) of `layer`: the product of the speeds of its clock and its
    /// parents' (1 without a clock; 0 under a paused one). Bounded as ``localTime(of:atFrameTime:)``.
    func timeRate(of layer: LayerID) -> Double {
        var rate = 1.0
        var current: LayerID? = layer
        var steps = 0
        while let l = current, let clock = clocks[l], steps <= clocks.count {
            rate *= clock.timing.speed
            current = clock.parent
            steps += 1
        }
        return rate
    }

    /// The node whose time is `layer`'s local time, or −1 for the frame's time.
    @inline(__always)
    func node(of layer: LayerID) -> Int32 {
        clocks.isEmpty ? -1 : clocks[layer]?.node ?? -1   // most trees have no layer time: no hash
    }

    /// Points the timing of `layer`'s top-level tracks and group roots at `node` (−1: the frame).
    private func repointTopLevelTiming(of layer: LayerID, to node: Int32) {
        guard let record = tables.layers[layer] else { return }
        for a in tables.animations.members(of: record.animations) where !tables.animations[a].parked {   // a parked lane keeps its padding
            for t in tables.animations[a].tracks where tables.animations[a].nodes.isEmpty {   // top-level tracks
                Self.repoint(tables.batches[Int(tables.tracks[t].batch)], lane: Int(tables.tracks[t].index), to: node)
            }
            for n in tables.animations[a].nodes where tables.nodes[Int(n)].isRoot && tables.nodes[Int(n)].lane >= 0 {
                Self.repoint(tables.nodeBatch, lane: Int(tables.nodes[Int(n)].lane), to: node)
            }
        }
        tables.version += 1
    }

    private static func repoint(_ batch: TrackBatch, lane i: Int, to node: Int32) {
        var timing = batch.timing(i)
        timing.point(at: node)
        batch.setTiming(i, timing)
    }

    /// Rebuilds the clock pass, parents first, when layers gained, lost or moved their time.
    /// Allocation-free once its capacity is reached.
    func update() {
        guard isStale else { return }
        isStale = false
        steps.removeAll(keepingCapacity: true)
        stepOfLayer.removeAll(keepingCapacity: true)
        // Level by level from the roots, each level in layer order: each clock after its parent.
        // Children come from ``children`` (a scan per level was O(clocks · depth), quadratic in a chain).
        var level = clocks.filter { $0.value.parent == nil }.map(\.key).sorted()
        var depth = 0
        while !level.isEmpty && depth <= clocks.count {   // bounded: a level per step of the deepest chain
            var next: [LayerID] = []
            for layer in level {
                let clock = clocks[layer]!   // listed from `clocks`
                stepOfLayer[layer] = steps.count
                steps.append(ClockStep(node: clock.node, parent: clock.parent.flatMap { clocks[$0]?.node } ?? -1, timing: clock.timing))
                next.append(contentsOf: children[layer] ?? [])   // sorted below: a set's order is not
                walkSteps += 1
            }
            level = next.sorted()
            depth += 1
        }
    }

    /// The clocks' part of ``TrackStore/invariantViolations(limit:)``: every clock has a live time
    /// node of no animation, and every live node of no animation is a clock's.
    func check(into report: inout InvariantReport) {
        let clockNodes = Set(clocks.values.map(\.node))
        for (layer, clock) in clocks {
            let n = Int(clock.node)
            report.check(n >= 0 && n < tables.nodes.count && tables.nodes[n].alive && tables.nodes[n].animation < 0,
                         "layer \(layer)'s clock names node \(clock.node), which is not a live clock node")
            if let parent = clock.parent {
                report.check(clocks[parent] != nil, "layer \(layer)'s clock has parent \(parent), which has no clock")
                report.check(children[parent]?.contains(layer) == true, "layer \(layer) is not among the children of its clock's parent \(parent)")
            }
        }
        let listed = children.values.reduce(0) { $0 + $1.count }
        report.check(listed == clocks.values.count { $0.parent != nil }, "the clocks' children lists hold \(listed) links, not one per clock with a parent")
        let unowned = tables.nodes.indices.count { tables.nodes[$0].alive && tables.nodes[$0].animation < 0 && !clockNodes.contains(Int32($0)) }
        report.check(unowned == 0, "\(unowned) live nodes belong to no animation and no layer clock")
    }
}

/// One step of a frame's clock pass: `times[node] = (times[parent] − b)·s + o` (the frame time
/// where `parent` is −1).
struct ClockStep {
    var node: Int32
    var parent: Int32
    var timing: LayerTiming

    /// Runs the clock pass `steps` at frame time `time` into `times` (semantics §2.2, §2.7), and
    /// each clock's rate — its speed times its parent's — into `rates` when a frame computes
    /// velocities.
    static func run(_ steps: [ClockStep], at time: Double, times: UnsafeMutablePointer<Double>, rates: UnsafeMutablePointer<Double>?) {
        for step in steps {
            let parentTime = step.parent >= 0 ? times[Int(step.parent)] : time
            times[Int(step.node)] = step.timing.localTime(atParentTime: parentTime)
        }
        guard let rates else { return }
        for step in steps {
            // Parents precede children in the steps, as for the times.
            rates[Int(step.node)] = (step.parent >= 0 ? rates[Int(step.parent)] : 1) * step.timing.speed
        }
    }
}
