import AnimationBatch
import AnimationCore

extension LayerContext: InvariantChecking {
    /// Every broken invariant of the tree, each described (at most `limit`); empty when it is
    /// consistent. Compiled in every configuration (tests and the fuzz target call it); it walks
    /// the whole tree, O(layers + action records), iteratively (no recursion as deep as the tree).
    /// Debug and fuzzing builds check it at the start of every tick (``checkInvariants()``).
    ///
    /// What it checks:
    /// - the root is in the context and has no superlayer;
    /// - every sublayer names its superlayer back, and no layer is reached twice (no cycle, no
    ///   layer under two parents);
    /// - the context's registry holds exactly the layers reachable from the root, each under the
    ///   engine name it carries, each naming this context;
    /// - layers in the tree have no animations waiting to join it;
    /// - each layer's action records are filed under their own keys, its last-used record is one
    ///   of them, and a record's slot, where it still resolves, is the slot of its layer and key;
    /// - the watched and display lists name each layer once, watched layers carry the mark, and
    ///   both list only layers of this tree.
    public func invariantViolations(limit: Int = 20) -> [String] {
        var report = InvariantReport(limit: limit)
        report.check(rootLayer.context === self && rootLayer.superlayer == nil, "the root is not in its context, or has a superlayer")
        var reached = Set<ObjectIdentifier>()
        var pending: [Layer] = [rootLayer]
        while let layer = pending.popLast(), !report.isFull {   // bounded: each layer is expanded once
            guard reached.insert(ObjectIdentifier(layer)).inserted else {
                report.check(false, "layer \(layer.name ?? "?") is reached twice from the root")
                continue
            }
            checkLayer(layer, into: &report)
            report.check(layer.timedInTree == (!layer.timing.isIdentity || layer.storedSuperlayer?.timedInTree == true),
                         "\(layer.name ?? "?")'s mark of a timed ancestor is \(layer.timedInTree), not what its timing and its superlayer's mark say")
            report.check(layer.storedSublayers.count { $0 === Layer.hole } == layer.sublayerHoles,
                         "\(layer.name ?? "?") counts \(layer.sublayerHoles) holes among its sublayers, which is not how many it holds")
            for (k, sublayer) in layer.storedSublayers.enumerated() where sublayer !== Layer.hole {
                report.check(sublayer.storedSuperlayer === layer,
                             "sublayer \(sublayer.name ?? "?") of \(layer.name ?? "?") names another superlayer")
                report.check(sublayer.indexInSuperlayer == k,
                             "sublayer \(sublayer.name ?? "?") of \(layer.name ?? "?") is at \(k) but records \(sublayer.indexInSuperlayer)")
                pending.append(sublayer)
            }
        }
        report.check(reached.count == layers.count, "\(layers.count) layers are registered, \(reached.count) are in the tree")
        for (id, layer) in layers where !report.isFull {
            report.check(layer.id == id && layer.context === self, "layer \(id) is registered under another name or context")
            report.check(reached.contains(ObjectIdentifier(layer)), "layer \(id) is registered but not in the tree")
        }
        func listedOnce(_ list: [Layer], _ name: String) {
            let unique = Set(list.map(ObjectIdentifier.init))
            report.check(unique.count == list.count, "a layer is on the \(name) list twice")
            report.check(unique.isSubset(of: reached), "the \(name) list holds a layer outside the tree")
        }
        listedOnce(watchedLayers, "watched")
        listedOnce(displayList, "display")
        for layer in watchedLayers { report.check(layer.isWatched, "a watched layer does not carry the mark") }
        return report.lines
    }

    /// One layer's part: its registration, waiting animations and action records.
    private func checkLayer(_ layer: Layer, into report: inout InvariantReport) {
        let name = layer.name ?? "?"
        guard let id = layer.id, layer.context === self else {
            report.check(false, "layer \(name) is in the tree but not in its context")
            return
        }
        report.check(layers[id] === layer, "layer \(name) (\(id)) is not registered under its name")
        report.check(layer.waitingAnimations.isEmpty, "layer \(name) (\(id)) is in the tree with animations waiting to join it")
        for (key, record) in layer.actionRecords {
            report.check(record.key == key, "layer \(name)'s action record for '\(key)' is filed under '\(record.key)'")
            if let slot = record.slot, let owner = store.key(of: slot) {
                report.check(owner.layer == id && owner.property == AnimationKeyPath.split(key).property,
                             "layer \(name)'s action record for '\(key)' names the slot of \(owner.layer) '\(owner.property)'")
            }
        }
        if let last = layer.lastActionRecord {
            report.check(layer.actionRecords[last.key] === last, "layer \(name)'s last action record is not one of its records")
        }
    }
}
