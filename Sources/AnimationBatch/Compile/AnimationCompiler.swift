import AnimationCore

/// Compiling, between frames: an animation checked against its layer's slots, flattened into its
/// leaves with its groups' timings as time nodes (semantics §2.7, §7), and each leaf compiled into
/// a track in the batch of its kernel (``TrackCompiler`` decides which, and builds the tables);
/// slots created for the properties it animates; each track placed in its slot's composition order
/// (semantics §8.4) and configured for the slot's classification — its §4.1 endpoints over the
/// model, and the model as an exclusive track's fallback. The reverse too: a track or an animation
/// taken out, its lane freed, its slot reclassified.
///
/// It may allocate; frames never call it, but the reaping after a frame frees what finished
/// (``freeAnimation(_:)``), which allocates nothing once capacities are reached.
final class AnimationCompiler {
    private let tables: EngineTables
    private let planner: SlotPlanner
    private let clocks: LayerClocks
    private var batchByKey: [BatchKey: Int] = [:]
    private var precisionCache = CompiledCurve.PrecisionCache()

    init(tables: EngineTables, planner: SlotPlanner, clocks: LayerClocks) {
        self.tables = tables
        self.planner = planner
        self.clocks = clocks
    }

    // MARK: Slots

    /// Creates slot `property` on `layer` with model `model`; the caller checked that none exists
    /// and that the kind fits.
    func createSlot(layer: LayerID, property: String, model: AnimationValue) -> Int32 {
        let (s, isNew) = tables.slots.claim()
        if isNew {
            tables.table.initializeSlot(s)
            // Room to free and replan every slot: a frame that reaps must not allocate.
            planner.reserveSlots(tables.slots.capacity)
        }
        tables.slots[s].alive = true
        tables.slots[s].kind = model.kind
        tables.slots[s].entries = []
        if let grown = tables.table.addSlot(s, generation: tables.slots[s].generation, layer: layer, property: property, model: model) {
            // Its rows moved: exclusive tracks point at them (amortised O(1): the column grows by half).
            for r in 0..<grown.count - 1 { planner.markDirty(grown.slots[r]) }
        }
        tables.link(slot: s, layer: layer)
        tables.version += 1
        // §5.7: path animations with a rotation mode already on the layer turn its new transform.
        if property == "transform", model.kind == .transform {
            for a in tables.allAnimations(of: layer) {
                for t in tables.animations[a].tracks where tables.tracks[t].rotates {
                    tables.tracks[t].rotationSlot = s
                    insertEntry(SlotEntry(track: t, isRotation: true), into: s)
                }
            }
        }
        return s
    }

    /// Frees a slot without animations of its own.
    func freeSlot(_ s: Int32) {
        tables.unlink(slot: s, layer: tables.layer(of: s))
        if let moved = tables.table.removeSlot(s) { planner.markDirty(moved) }   // its row moved
        planner.markDirty(s)
        tables.slots[s].entries = []
        tables.slots.release(s)
        tables.version += 1
    }

    /// Slot `s`'s model is `value` (of its kind): the presentation row shows it at once and the
    /// tracks over the slot that depend on the model follow (§1.1, §4.1).
    func writeModel(_ value: AnimationValue, into s: Int32) {
        tables.table.storeModel(value, slot: s)
        planner.markDirty(s)
        tables.table.store(value, slot: s)
        tables.table.markChanged(s)
        for entry in tables.slots[s].entries where !entry.isRotation { configure(track: entry.track) }
    }

    // MARK: Animations

    /// Validates `animation` against `layer`'s slots without changing anything.
    func check(_ animation: any Animation, layer: LayerID) throws {
        try animation.validate()
        for leaf in animation.leaves {
            let prefix = leaf.indexPath.map { "animations[\($0)]" }.joined(separator: ".")
            let property = AnimationKeyPath.split(leaf.animation.keyPath).property
            let kind: ValueKind
            if let s = tables.slot(layer: layer, property: property) {
                kind = tables.slots[s].kind
            } else if let known = LayerProperty.named(property) {
                kind = known.kind
            } else {
                throw AnimationError(field: "keyPath", reason: "\(layer) has no property '\(property)' (set its model value first)")
                    .prefixed(by: prefix)
            }
            do {
                try leaf.animation.validate(forPropertyKind: kind)
            } catch let error as AnimationError {
                throw error.prefixed(by: prefix)
            }
        }
    }

    /// Compiles a checked animation into record `reusing` or a new one.
    func insert(_ animation: any Animation, layer: LayerID, sequence: UInt64, reusing: Int32?) -> Int32 {
        let a = reusing ?? tables.animations.claim().index
        tables.animations[a].alive = true
        tables.animations[a].layer = layer
        tables.animations[a].sequence = sequence
        tables.animations[a].animation = animation
        tables.animations[a].removedOnCompletion = animation.isRemovedOnCompletion
        tables.animations[a].tracks = []
        tables.animations[a].nodes = []
        let handleRaw = tables.handle(ofAnimation: a).rawValue

        // Time nodes, one per group, keyed by the group's index path (semantics §2.7, §7).
        var nodeByPath: [[Int]: Int32] = [:]
        for (leafIndex, leaf) in animation.leaves.enumerated() {
            var parent: Int32 = -1
            for depth in 0..<leaf.groups.count {
                let path = Array(leaf.indexPath.prefix(depth))
                if let existing = nodeByPath[path] {
                    parent = existing
                    continue
                }
                let group = leaf.groups[depth]
                var node = TimeNode()
                node.alive = true
                node.timing = group.timing
                node.curve = group.timingFunction ?? .linear
                node.parent = parent
                node.isRoot = depth == 0
                node.removedOnCompletion = depth == 0 && animation.isRemovedOnCompletion
                node.animation = a
                node.generation = tables.animations[a].generation
                let n = tables.allocateNode(node)
                if depth == 0 {
                    let timing = CompiledTiming(group.timing, topLevel: true, removedOnCompletion: animation.isRemovedOnCompletion,
                                                timeNode: clocks.node(of: layer))
                    tables.nodes[Int(n)].lane = Int32(tables.nodeBatch.append(node: n, animation: handleRaw, timing: timing,
                                                                             function: node.curve))
                }
                planner.listNode(n)   // after its parent, allocated just before
                nodeByPath[path] = n
                tables.animations[a].nodes.append(n)
                parent = n
            }
            // A top-level leaf's parent time is its layer's time (semantics §2.7): the frame's, or
            // its layer's clock's when it has one.
            let t = compile(leaf, leafIndex: Int32(leafIndex), animation: a, handle: handleRaw, layer: layer, sequence: sequence,
                            timeNode: parent >= 0 ? parent : clocks.node(of: layer),
                            topLevelRemovedOnCompletion: animation.isRemovedOnCompletion)
            tables.animations[a].tracks.append(t)
        }
        if tables.animations[a].nodes.isEmpty, tables.animations[a].tracks.count == 1, let t = tables.animations[a].tracks.first,
           tables.tracks[t].valueFunction == nil, tables.batches[Int(tables.tracks[t].batch)] is InterpolatingBatch {
            tables.animations[a].columnTrack = t
        }
        tables.version += 1
        return a
    }

    /// Takes animation `a`'s tracks and time nodes out (its record stays, empty).
    func removeContents(of a: Int32) {
        for t in tables.animations[a].tracks { removeTrack(t) }
        for n in tables.animations[a].nodes {
            let lane = tables.nodes[Int(n)].lane
            if lane >= 0, let moved = tables.nodeBatch.remove(at: Int(lane)) { tables.nodes[Int(moved)].lane = lane }
            tables.nodes[Int(n)].lane = -1
            // The node order forgets it before the next frame (``SlotPlanner/update()``): once
            // per frame, not once per removed animation.
            tables.releaseNode(n)
        }
        tables.animations[a].tracks = []
        tables.animations[a].nodes = []
        tables.animations[a].columnTrack = -1
        tables.version += 1
    }

    /// Frees animation `a` for good: its contents, its place in its layer's record and under its
    /// key, its record (its handles go stale). Reports nothing: the caller does.
    func freeAnimation(_ a: Int32) {
        let layer = tables.animations[a].layer
        removeContents(of: a)
        let key = tables.animations[a].key
        if let key, tables.animationByKey[AnimationKey(layer: layer, key: key)] == a {
            tables.animationByKey[AnimationKey(layer: layer, key: key)] = nil
        }
        tables.changeLayerRecord(layer) { tables.animations.remove(a, from: &$0.animations) }
        tables.animations[a].retargeted = false   // its lane was cleared with its track
        tables.animations[a].animation = nil
        tables.animations[a].key = nil
        tables.animations[a].hasFinished = false
        tables.animations.release(a)
    }

    /// How many times a track was configured: a work counter for the tests that show adding many
    /// animations to one key linear (operation counts, not time).
    private(set) var configuredTracks = 0

    // MARK: Slot entries

    /// Puts `entry` in slot `s`'s composition order (by its track's sequence, then leaf index)
    /// and reclassifies it. Sought from the end: a new animation is the newest, so its place is
    /// found in one step.
    func insertEntry(_ entry: SlotEntry, into s: Int32) {
        func order(_ e: SlotEntry) -> (UInt64, Int32) { (tables.tracks[e.track].sequence, tables.tracks[e.track].leafIndex) }
        let key = order(entry)
        var position = tables.slots[s].entries.count
        while position > 0, order(tables.slots[s].entries[position - 1]) > key { position -= 1 }
        let wasExclusive = tables.isExclusive(slot: s)
        tables.slots[s].entries.insert(entry, at: position)
        // A track's configuration depends on the slot only through its exclusivity (and the model,
        // which ``reclassify(slot:)`` handles when it changes): with the slot shared before and
        // after, the others keep theirs and only the new one is configured. Configuring every
        // entry on each insert made adding N animations to one key quadratic.
        if wasExclusive || tables.isExclusive(slot: s) {
            reclassify(slot: s)
        } else {
            planner.markDirty(s)
            if !entry.isRotation { configure(track: entry.track) }
        }
    }

    /// Takes track `t`'s entries out of slot `s` (none: −1) and reclassifies it.
    func removeEntries(of t: Int32, from s: Int32) {
        guard s >= 0 else { return }
        tables.slots[s].entries.removeAll { $0.track == t }
        // As in insertEntry: the tracks left need configuring only when the slot became exclusive
        // (or empty, when it shows its model again).
        if tables.slots[s].entries.count <= 1 {
            reclassify(slot: s)
        } else {
            planner.markDirty(s)
        }
    }

    private func removeTrack(_ t: Int32) {
        let record = tables.tracks[t]
        let batch = tables.batches[Int(record.batch)]
        if let moved = batch.remove(at: Int(record.index)) {
            tables.tracks[moved].index = record.index
            // Its shown target moved with it; a composed slot's plan names its lane.
            planner.markDirty(tables.tracks[moved].slot)
            if tables.tracks[moved].rotationSlot >= 0 { planner.markDirty(tables.tracks[moved].rotationSlot) }
        }
        tables.tracks[t].leaf = nil
        tables.tracks.release(t)
        removeEntries(of: t, from: record.slot)
        removeEntries(of: t, from: record.rotationSlot)
    }

    /// After a slot's entries changed: its tracks are reconfigured to match its classification;
    /// a slot left without animations shows its model value again at once (semantics §8.5).
    private func reclassify(slot s: Int32) {
        planner.markDirty(s)
        if tables.slots[s].entries.isEmpty { tables.table.show(tables.model(of: s), slot: s) }
        for entry in tables.slots[s].entries where !entry.isRotation { configure(track: entry.track) }
    }

    /// Writes the model-dependent columns of a track: §4.1 endpoints over the model, and for an
    /// exclusive track the model as its fallback (and additive base).
    func configure(track t: Int32) {
        configuredTracks += 1
        foldTarget(tables.tracks[t].animation)
        let batch = tables.batches[Int(tables.tracks[t].batch)]
        let slot = tables.tracks[t].slot, field = tables.tracks[t].field, valueFunction = tables.tracks[t].valueFunction
        let exclusive = tables.isExclusive(slot: slot)
        tables.tracks[t].exclusive = exclusive
        let model = tables.model(of: slot)
        let base = field?.get(from: model) ?? model
        let i = Int(tables.tracks[t].index)

        // Only these batches' values depend on the model, and nothing here allocates: frames that
        // reap reconfigure the tracks left in a slot. Basic and spring values are read where they
        // are kept (no box); a reference lane keeps its own animation once configured.
        var dependsOnBase = false
        var recomputed: (any PropertyAnimation)?
        switch batch {
        case let interpolating as InterpolatingBatch:   // basic and spring
            guard let values = tables.interpolation(of: t) else { return }
            let (start, end) = values.endpoints(base: base, valueFunction: valueFunction) ?? (base, base)
            interpolating.setValues(i, start: start, delta: end.difference(from: start), cumulative: values.isCumulative)
            dependsOnBase = values.dependsOnBase(valueFunction: valueFunction)
        case let reference as ReferenceBatch:
            let configured = i < reference.animations.count
            guard let animation = configured ? reference.animations[i] : tables.leafAnimation(of: t) else { return }
            if let function = valueFunction {
                // The batch holds the number (compose applies the function, §4.7): the animation
                // without its function, over the function's identity input.
                var numeric = animation
                numeric.valueFunction = nil
                reference.setAnimation(i, numeric, model: .scalar(function.identityInput), exclusive: false, additive: false)
            } else {
                reference.setAnimation(i, animation, model: base, exclusive: exclusive, additive: tables.tracks[t].isAdditive)
            }
            // The track's value function, not the lane's copy's (stripped above for a numeric lane).
            dependsOnBase = Interpolation(animation)?.dependsOnBase(valueFunction: valueFunction) ?? false
            recomputed = animation
        default:
            break
        }
        if exclusive {
            ValueStorage.store(model, into: batch.base, at: i)
        } else {
            batch.base.clear(i)
        }
        batch.setFlag(i, CompiledTiming.addsBase, exclusive && tables.tracks[t].isAdditive)
        if let function = tables.tracks[t].valueFunction {
            tables.tracks[t].op = .valueFunction(function)
        } else {
            tables.tracks[t].op = dependsOnBase ? .recompute : .value
        }
        // Composition reads a recomputed track's animation in frames: a top-level one keeps it
        // unpacked for that (``TrackRecord/leaf``).
        if tables.isTopLevel(track: t) {
            if tables.tracks[t].op != .recompute {
                tables.tracks[t].leaf = nil
            } else if tables.tracks[t].leaf == nil, let animation = recomputed ?? tables.leafAnimation(of: t) {
                tables.tracks[t].leaf = AnimationLeaf(animation: animation)   // once, when it becomes recomputed
            }
        }
    }

    // MARK: Retargets held in lanes

    /// Animation `a`'s stored animation with the retarget its lane holds applied (new from and
    /// to, no by, new begin time), or nil when none is pending (``Retargeter``).
    func retargetedAnimation(_ a: Int32) -> (any Animation)? {
        guard tables.animations[a].retargeted else { return nil }
        let t = Int(tables.animations[a].columnTrack)
        // Unchecked: only tracks of interpolating batches are retargeted in their lanes.
        let batch = unsafeDowncast(tables.batches[Int(tables.tracks[t].batch)], to: InterpolatingBatch.self)
        let i = Int(tables.tracks[t].index)
        guard let (from, to) = batch.pendingTarget(i, kind: tables.tracks[t].valueKind) else { return nil }
        let beginTime = batch.timingColumns.beginTime[i]
        switch tables.animations[a].animation {
        case var basic as BasicAnimation:
            (basic.fromValue, basic.toValue, basic.byValue) = (from, to, nil)
            basic.timing.beginTime = beginTime
            return basic
        case var spring as SpringAnimation:
            (spring.fromValue, spring.toValue, spring.byValue) = (from, to, nil)
            spring.timing.beginTime = beginTime
            return spring
        default:
            return nil
        }
    }

    /// Folds animation `a`'s pending retarget into its stored animation and its track's leaf.
    func foldTarget(_ a: Int32) {
        guard let folded = retargetedAnimation(a) else { return }
        tables.animations[a].retargeted = false
        let t = Int(tables.animations[a].columnTrack)
        unsafeDowncast(tables.batches[Int(tables.tracks[t].batch)], to: InterpolatingBatch.self)   // as in retargetedAnimation
            .targetState[Int(tables.tracks[t].index)] = InterpolatingBatch.noTarget
        tables.animations[a].animation = folded
        // A track that keeps its leaf keeps the folded one (a column track is top-level).
        if tables.tracks[t].leaf != nil, let property = folded as? any PropertyAnimation {
            tables.tracks[t].leaf = AnimationLeaf(animation: property)
        }
    }

    // MARK: Tracks

    private func batch(for key: BatchKey) -> Int32 {
        if let b = batchByKey[key] { return Int32(b) }
        let batch: TrackBatch
        switch key {
        case .basic(let w): batch = BasicBatch(width: w)
        case .spring(let w, let regime): batch = SpringBatch(width: w, regime: regime)
        case .keyframe(let w): batch = KeyframeBatch(width: w)
        case .path: batch = PathBatch()
        case .reference(let kind): batch = ReferenceBatch(kind: kind)
        }
        tables.batches.append(batch)
        batchByKey[key] = tables.batches.count - 1
        return Int32(tables.batches.count - 1)
    }

    /// Whether the Float curve kernel can evaluate the per-segment timing functions of a keyframe
    /// animation within the precision contract (semantics §5.4: linear and cubic modes use them).
    /// If not, the track is evaluated by the reference (``ReferenceBatch``): a nearly vertical
    /// curve magnifies even the Float rounding of the segment's local time past the bound. (A
    /// nearly vertical animation-level function needs no such detour: the kernels evaluate it in
    /// Double from the Double progress, see ``CurveColumns``.)
    private func segmentCurvesWithinFloatPrecision(_ animation: any PropertyAnimation) -> Bool {
        guard let k = animation as? KeyframeAnimation, let functions = k.timingFunctions,
              k.calculationMode == .linear || k.calculationMode == .cubic else { return true }
        return functions.allSatisfy { precisionCache.isWithinFloatPrecision($0) }
    }

    private func compile(_ leaf: AnimationLeaf, leafIndex: Int32, animation a: Int32, handle: UInt64, layer: LayerID,
                         sequence: UInt64, timeNode: Int32, topLevelRemovedOnCompletion: Bool) -> Int32 {
        let animation = leaf.animation
        let (property, fieldPath) = AnimationKeyPath.split(animation.keyPath)
        let s: Int32 = tables.slot(layer: layer, property: property)
            ?? createSlot(layer: layer, property: property, model: LayerProperty.named(property)!.defaultValue)
        let slotKind = tables.slots[s].kind
        let field = fieldPath.flatMap { try? ValueField(path: $0, of: slotKind) }
        let valueKind: ValueKind = animation.valueFunction != nil ? .scalar : (field?.kind ?? slotKind)
        let width = valueKind.componentCount
        let isMatrix = valueKind == .transform || valueKind == .affineTransform

        let (key, curve) = TrackCompiler.batch(for: animation, valueKind: valueKind,
                                                  floatCurvesSuffice: !isMatrix && segmentCurvesWithinFloatPrecision(animation))
        let b = batch(for: key)
        let t = tables.tracks.claim().index
        let timing = CompiledTiming(animation.timing, topLevel: leaf.groups.isEmpty,
                                    removedOnCompletion: topLevelRemovedOnCompletion, timeNode: timeNode)
        let index = tables.batches[Int(b)].appendCommon(track: t, animation: handle, timing: timing, curve: curve)

        var record = TrackRecord()
        record.generation = tables.tracks[t].generation
        record.alive = true
        record.batch = b
        record.index = Int32(index)
        record.slot = s
        record.animation = a
        record.leaf = leaf.groups.isEmpty ? nil : leaf   // a top-level leaf is its record's animation
        record.isAdditive = leaf.animation.isAdditive
        record.valueFunction = leaf.animation.valueFunction
        record.field = field
        record.valueKind = valueKind
        record.sequence = sequence
        record.leafIndex = leafIndex
        tables.tracks[t] = record

        // Data that does not depend on the slot's model.
        switch tables.batches[Int(b)] {
        case let keyframes as KeyframeBatch:
            let k = animation as! KeyframeAnimation
            keyframes.setKeyframes(index, TrackCompiler.compile(k, width: width),
                                   rotating: k.rotationMode != nil && k.path != nil ? k : nil)
        case let paths as PathBatch:
            let k = animation as! KeyframeAnimation
            paths.setPath(index, k.path!, cumulativeDelta: TrackCompiler.cumulativeDelta(k), rotating: k.rotationMode != nil ? k : nil)
        case let springs as SpringBatch:
            let spring = animation as! SpringAnimation
            springs.setSpring(index, omega0: spring.undampedAngularFrequency, zeta: spring.dampingRatio,
                              initialVelocity: spring.initialVelocity)
        default:
            break
        }

        insertEntry(SlotEntry(track: t, isRotation: false), into: s)
        // §5.7: a path animation with a rotation mode also turns the layer's transform, when the
        // layer has one (a transform slot created later is linked then, ``createSlot``).
        if let k = animation as? KeyframeAnimation, k.rotationMode != nil, k.path != nil {
            tables.tracks[t].rotates = true
            if let transformSlot = tables.slot(layer: layer, property: "transform"),
               tables.slots[transformSlot].kind == .transform {
                tables.tracks[t].rotationSlot = transformSlot
                insertEntry(SlotEntry(track: t, isRotation: true), into: transformSlot)
            }
        }
        return t
    }
}
