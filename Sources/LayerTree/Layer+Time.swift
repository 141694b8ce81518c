import AnimationBatch
import AnimationCore

// Layer time (CAMediaTiming on a layer, semantics §2.2, §2.7, §2.8).
extension Layer {
    /// The layer's `beginTime` in its superlayer's time (default 0). Applies to the whole subtree.
    public var beginTime: Double {
        get { timing.beginTime }
        set { setTiming { $0.beginTime = newValue } }
    }
    /// The layer's `speed` (default 1; 0 freezes the subtree, §2.8). Applies to the whole subtree.
    public var speed: Double {
        get { timing.speed }
        set { setTiming { $0.speed = newValue } }
    }
    /// The layer's `timeOffset` (default 0). Applies to the whole subtree.
    public var timeOffset: Double {
        get { timing.timeOffset }
        set { setTiming { $0.timeOffset = newValue } }
    }

    /// Converts `time` from `layer`'s local time (nil: the context's time, `currentTime`'s
    /// clock) to this layer's: up `layer`'s chain to the context's time, then down this one's,
    /// each step `t = (tp − b)·s + o` or its inverse (§2.2). A frozen layer (speed 0) maps every
    /// time to its `timeOffset`; its inverse gives its `beginTime` [inferred].
    public func convertTime(_ time: Double, from layer: Layer?) -> Double {
        localTime(atContextTime: layer?.contextTime(atLocalTime: time) ?? time)
    }

    /// Converts `time` from this layer's local time to `layer`'s (nil: the context's time).
    public func convertTime(_ time: Double, to layer: Layer?) -> Double {
        let t = contextTime(atLocalTime: time)
        return layer?.localTime(atContextTime: t) ?? t
    }

    /// This layer's local time at context time `time`: its ancestors' maps from the root down,
    /// then its own (§2.7).
    func localTime(atContextTime time: Double) -> Double {
        var depth = 0
        var timed = false
        var current: Layer? = self
        while let layer = current {   // bounded: a tree has no cycles (addSublayer refuses them)
            if !layer.timing.isIdentity { timed = true }
            depth += 1
            current = layer.storedSuperlayer
        }
        // Identity timings map a time to itself exactly: a tree without any (the common case)
        // needs no chain.
        guard timed else { return time }
        // The chain, root first, in scratch memory (on the stack for ordinary depths): every
        // implicit change asks for its layer's time, and an array was an allocation each.
        return withUnsafeTemporaryAllocation(of: LayerTiming.self, capacity: depth) { chain in
            var current: Layer? = self
            var k = depth
            while let layer = current, k > 0 {
                k -= 1
                chain.initializeElement(at: k, to: layer.timing)   // a trivial type: nothing to deinitialize
                current = layer.storedSuperlayer
            }
            var t = time
            for timing in chain[k...] { t = timing.localTime(atParentTime: t) }
            return t
        }
    }

    /// The context time at which this layer's local time is `time`.
    func contextTime(atLocalTime time: Double) -> Double {
        var t = time
        var current: Layer? = self
        while let layer = current {
            t = layer.timing.parentTime(atLocalTime: t)
            current = layer.storedSuperlayer
        }
        return t
    }

    /// Changes the timing; a value that is not finite is ignored (the layer keeps its timing).
    private func setTiming(_ change: (inout LayerTiming) -> Void) {
        var t = timing
        change(&t)
        guard t.beginTime.isFinite, t.speed.isFinite, t.timeOffset.isFinite else { return }
        timing = t
        context?.timingChanged(self)
    }

    func timingValue(forKey key: String) -> Double? {
        switch key {
        case "beginTime": timing.beginTime
        case "speed": timing.speed
        case "timeOffset": timing.timeOffset
        default: nil
        }
    }

    /// Sets a timing key through key-value access; true when `key` is one.
    func setTimingValue(_ value: AnimationValue?, forKey key: String) -> Bool {
        guard timingValue(forKey: key) != nil else { return false }
        let v = value?.scalarValue ?? (key == "speed" ? 1 : 0)
        switch key {
        case "beginTime": beginTime = v
        case "speed": speed = v
        default: timeOffset = v
        }
        return true
    }
}
