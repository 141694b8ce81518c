import AnimationCore

/// A layer's own time (semantics §2.2, §2.7): its `beginTime`, `speed` and `timeOffset`, and the
/// layer whose time it derives from.
public struct LayerTiming: Sendable, Equatable {
    /// The layer's `beginTime` in its parent's time.
    public var beginTime: Double
    /// The layer's `speed` (0 freezes its subtree: the pause of §2.8).
    public var speed: Double
    /// The layer's `timeOffset`.
    public var timeOffset: Double

    /// The identity timing: beginTime 0, speed 1, timeOffset 0 (semantics §2.1).
    public init(beginTime: Double = 0, speed: Double = 1, timeOffset: Double = 0) {
        self.beginTime = beginTime
        self.speed = speed
        self.timeOffset = timeOffset
    }

    /// Whether the layer's time is its parent's (beginTime 0, speed 1, timeOffset 0).
    public var isIdentity: Bool { beginTime == 0 && speed == 1 && timeOffset == 0 }

    /// The layer's local time at parent time `parentTime`: `(tp − b) · s + o` (semantics §2.2).
    /// A layer's time is not clipped or repeated: a layer has no active duration of its own.
    @inlinable
    public func localTime(atParentTime parentTime: Double) -> Double {
        (parentTime - beginTime) * speed + timeOffset
    }

    /// The parent time at which the layer's local time is `localTime`: the inverse of
    /// ``localTime(atParentTime:)``. A frozen layer (speed 0) shows `timeOffset` at every parent
    /// time; its inverse is taken as `beginTime`, the parent time at which it froze [inferred].
    @inlinable
    public func parentTime(atLocalTime localTime: Double) -> Double {
        speed == 0 ? beginTime : (localTime - timeOffset) / speed + beginTime
    }
}

// MARK: Layer time (semantics §2.2, §2.7)

extension TrackStore {
    /// A layer with a time of its own: the group-node index that holds its local time each
    /// frame (the column that top-level tracks and group roots of its animations read, as a
    /// group's children read their group's time), its parent layer and its timing.
    struct LayerClock {
        var node: Int32
        var parent: LayerID?
        var timing: LayerTiming
    }

    /// One step of a frame's clock pass: `times[node] = (times[parent] − b)·s + o` (the frame
    /// time where `parent` is −1).
    struct ClockStep {
        var node: Int32
        var parent: Int32
        var timing: LayerTiming
    }

    /// Gives `layer` a time of its own — its local time `(tp − b)·s + o` from its parent's
    /// (semantics §2.2) — or changes it. Top-level animations on the layer (and the roots of its
    /// groups) then read that time as their parent time, so `beginTime`, `speed` and `timeOffset`
    /// on a layer apply to every animation on it and, through `parent`, to a whole subtree
    /// (§2.7). The local time is computed once per layer per frame, parents first, not per track.
    ///
    /// Changing the numbers of a layer that has a time (a pause or a resume, §2.8) is O(1) plus
    /// an O(layers with a time) re-plan before the next frame; giving a layer a time first
    /// re-points its animations' tracks (O(its tracks)). Layers without a time of their own run
    /// on the frame's time, as before, through the kernels' fastest path.
    ///
    /// - Parameters:
    ///   - layer: the layer (it needs no slots or animations yet: those added later read its time).
    ///   - parent: the layer whose local time is this layer's parent time; it must have a time
    ///     of its own. Nil: the frame's time.
    ///   - timing: the layer's `beginTime`, `speed` and `timeOffset`.
    /// - Throws: `AnimationError` naming `beginTime`, `speed` or `timeOffset` when it is not
    ///   finite, or `parent` when it has no time of its own or is `layer` or one of its
    ///   descendants (a cycle). Nothing changes then.
    public func setLayerTime(_ layer: LayerID, parent: LayerID?, timing: LayerTiming) throws {
        for (value, field) in [(timing.beginTime, "beginTime"), (timing.speed, "speed"), (timing.timeOffset, "timeOffset")]
        where !value.isFinite {
            throw AnimationError(field: field, reason: "must be finite (got \(value))")
        }
        if let parent {
            guard clocks[parent] != nil else {
                throw AnimationError(field: "parent", reason: "\(parent) has no time of its own (give it one first)")
            }
            var ancestor: LayerID? = parent
            var steps = 0
            while let a = ancestor {
                if a == layer { throw AnimationError(field: "parent", reason: "\(parent) is \(layer) or one of its descendants") }
                ancestor = clocks[a]?.parent
                steps += 1
                if steps > clocks.count { break }   // bounded: the chain has at most one step per clock
            }
        }
        if var clock = clocks[layer] {
            let moved = clock.parent != parent
            clock.parent = parent
            clock.timing = timing
            clocks[layer] = clock
            if moved { clockPlanIsStale = true } else if let step = clockSteps[layer] { clockPlan[step].timing = timing }
            return
        }
        var record = GroupNode()
        record.alive = true
        let node = allocateNode(record)
        clocks[layer] = LayerClock(node: node, parent: parent, timing: timing)
        clockPlanIsStale = true
        repointTopLevelTiming(of: layer, to: node)
    }

    /// Takes `layer`'s own time away: its animations run on the frame's time again, and layers
    /// whose parent it was now derive theirs from the frame's time. Returns false when it had none.
    @discardableResult
    public func removeLayerTime(_ layer: LayerID) -> Bool {
        guard let clock = clocks.removeValue(forKey: layer) else { return false }
        for (child, var c) in clocks where c.parent == layer {
            c.parent = nil
            clocks[child] = c
        }
        repointTopLevelTiming(of: layer, to: -1)
        nodes[Int(clock.node)].alive = false
        releasedNodes.append(clock.node)
        clockPlanIsStale = true
        return true
    }

    /// `layer`'s own timing and parent, or nil when it runs on its parent's time.
    public func layerTime(of layer: LayerID) -> (timing: LayerTiming, parent: LayerID?)? {
        clocks[layer].map { ($0.timing, $0.parent) }
    }

    /// `layer`'s local time at frame time `time`, computed as a frame computes it (its clock,
    /// then its parents', to the frame time).
    public func localTime(of layer: LayerID, atFrameTime time: Double) -> Double {
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

    /// The node whose time is `layer`'s local time, or −1 for the frame's time.
    func clockNode(of layer: LayerID) -> Int32 {
        clocks.isEmpty ? -1 : clocks[layer]?.node ?? -1   // most trees have no layer time: no hash
    }

    /// Points the timing of `layer`'s top-level tracks and group roots at `node` (−1: the frame).
    private func repointTopLevelTiming(of layer: LayerID, to node: Int32) {
        guard let record = layerRecords[layer] else { return }
        for a in record.animations where !animations[Int(a)].parked {   // a parked lane keeps its padding
            for t in animations[Int(a)].tracks where tracks[Int(t)].leaf?.groups.isEmpty ?? false {
                let batch = batches[Int(tracks[Int(t)].batch)]
                Self.repoint(batch, lane: Int(tracks[Int(t)].index), to: node)
            }
            for n in animations[Int(a)].nodes where nodes[Int(n)].isRoot && nodes[Int(n)].lane >= 0 {
                Self.repoint(nodeBatch, lane: Int(nodes[Int(n)].lane), to: node)
            }
        }
        version += 1
    }

    private static func repoint(_ batch: TrackBatch, lane i: Int, to node: Int32) {
        batch.group[i] = node
        batch.flags[i] = node >= 0 ? batch.flags[i] | CompiledTiming.grouped : batch.flags[i] & ~CompiledTiming.grouped
    }

    /// Rebuilds the clock plan, parents first, when layers gained, lost or moved their time.
    /// Allocation-free once its capacity is reached.
    func updateClockPlan() {
        guard clockPlanIsStale else { return }
        clockPlanIsStale = false
        clockPlan.removeAll(keepingCapacity: true)
        clockSteps.removeAll(keepingCapacity: true)
        // Depth-first from the roots: each clock after its parent. Children are found by a scan
        // per level (O(clocks · depth)); plans change only when the tree's timing does.
        var level: [LayerID] = clocks.filter { $0.value.parent == nil }.map(\.key).sorted()
        var depth = 0
        while !level.isEmpty && depth <= clocks.count {
            var next: [LayerID] = []
            for layer in level {
                let clock = clocks[layer]!   // listed from `clocks`
                clockSteps[layer] = clockPlan.count
                clockPlan.append(ClockStep(node: clock.node, parent: clock.parent.flatMap { clocks[$0]?.node } ?? -1,
                                           timing: clock.timing))
            }
            let listed = Set(level)
            next = clocks.filter { $0.value.parent.map(listed.contains) ?? false }.map(\.key).sorted()
            level = next
            depth += 1
        }
    }

    /// The clock pass of a frame: each layer's local time, parents first (semantics §2.2, §2.7).
    func evaluateClocks(at time: Double) {
        let times = nodeTimes.base
        for step in clockPlan {
            let parentTime = step.parent >= 0 ? times[Int(step.parent)] : time
            times[Int(step.node)] = step.timing.localTime(atParentTime: parentTime)
        }
    }
}
