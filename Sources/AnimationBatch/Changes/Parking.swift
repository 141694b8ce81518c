import AnimationCore

/// Parking and taking over (``TrackStore/parksFinishedAnimations``): a keyed basic or spring
/// animation that finishes and is removed on completion leaves its track *parked* — out of its
/// slot, showing nothing, its handle stale — for the next animation under the same key, which
/// takes the track over in place when it only retargets it. And the implicit-change path
/// (``retargetImplicit(_:layer:forKey:from:beginTime:)``): a layer property changed again,
/// its implicit animation retargeted or taken over in the columns alone (semantics §10).
///
/// What anyone observes is what removal and adding give; the difference is cost: a layer tree
/// whose properties change over and over compiles and reaps nothing after the first time.
final class Parking {
    private let tables: EngineTables
    private let planner: SlotPlanner
    private let compiler: AnimationCompiler
    private let retargeter: Retargeter
    private let clocks: LayerClocks

    init(tables: EngineTables, planner: SlotPlanner, compiler: AnimationCompiler, retargeter: Retargeter, clocks: LayerClocks) {
        self.tables = tables
        self.planner = planner
        self.compiler = compiler
        self.retargeter = retargeter
        self.clocks = clocks
    }

    /// A keyed animation with one basic or spring track outside groups, not turning a transform.
    func canPark(_ a: Int32) -> Bool {
        guard let key = tables.animations[a].key, tables.animations[a].columnTrack >= 0,
              tables.parkedAnimation(forKey: key, layer: tables.animations[a].layer) == nil else { return false }
        return tables.tracks[Int(tables.animations[a].columnTrack)].rotationSlot < 0
    }

    /// Parks finished animation `a`: it leaves its slot (which shows its model again, §8.5), its
    /// lane takes a timing that never begins and shows nowhere, its handle goes stale and its
    /// key moves to the layer's parked keys. No event: its finish was this frame's.
    func park(_ a: Int32) {
        let t = tables.animations[a].columnTrack
        let batch = tables.batches[Int(tables.tracks[t].batch)], i = Int(tables.tracks[t].index)
        // A pending retarget is dropped, not folded: nothing reads a parked animation's values
        // (what takes it over compares its key path, kind and flags, which retargets leave alone,
        // and writes values, timing and begin time anew). Folding was 1 µs of each park.
        tables.animations[a].retargeted = false
        unsafeDowncast(batch, to: InterpolatingBatch.self).targetState[i] = InterpolatingBatch.noTarget   // canPark: a column track
        compiler.removeEntries(of: t, from: tables.tracks[t].slot)
        // A lane that never begins and neither fills nor reports (a padding lane's begin time,
        // speed, offset, flags and parent); what that overwrote is kept for a takeover.
        var timing = batch.timing(i)
        (tables.animations[a].parkedSpeed, tables.animations[a].parkedTimeOffset, tables.animations[a].parkedFlags) =
            (timing.speed, timing.timeOffset, timing.flags)
        let padding = CompiledTiming.padding
        (timing.beginTime, timing.speed, timing.timeOffset, timing.flags) = (padding.beginTime, padding.speed, padding.timeOffset, padding.flags)
        timing.point(at: -1)
        batch.setTiming(i, timing)
        batch.state[i] = TrackState.neverEvaluated
        batch.setShown(i, row: nil, velocityRow: nil, slot: SlotHandle(rawValue: 0))
        // It stays in its layer's record and under its key, parked by its flag (``LayerRecord``).
        tables.animations[a].parked = true
        tables.animations[a].hasFinished = true   // a stop was reported: taking it over reports none
        tables.animations[a].generation &+= 1
        tables.parkedCount += 1
        tables.version += 1
    }

    /// The animation parked under `key` on `layer` taken over by `animation` in place, or nil
    /// when `animation` does more than retarget it (the parked one is then freed).
    func unpark(key: String, layer: LayerID, for animation: any Animation) throws -> AnimationHandle? {
        guard let a = tables.parkedAnimation(forKey: key, layer: layer) else { return nil }
        let t = tables.animations[a].columnTrack
        let sequence = tables.nextSequence
        let handle = AnimationHandle(index: a, generation: tables.animations[a].generation)
        // Back in its slot first (last: the newest), so that the retarget configures it for the
        // slot it is in; the slot's other tracks are configured for it now being composed.
        let s = tables.tracks[t].slot
        tables.slots[s].entries.append(SlotEntry(track: t, isRotation: false))
        planner.markDirty(s)
        if tables.slots[s].entries.count > 1 {
            for entry in tables.slots[s].entries where !entry.isRotation && entry.track != t { compiler.configure(track: entry.track) }
        }
        guard let revived = try retargetChecked(a, handle: handle, with: animation) else {
            discardParked(a)
            return nil
        }
        tables.nextSequence += 1
        tables.animations[a].sequence = sequence
        tables.tracks[t].sequence = sequence
        tables.animations[a].parked = false
        tables.parkedCount -= 1
        tables.version += 1
        return revived
    }

    /// An implicit action's animation added again (LayerTree's fast path, semantics §10): what
    /// ``TrackStore/add(_:layer:forKey:)`` does with a copy of animation `handle` (a basic or spring animation
    /// under `key` on `layer`) that animates from `from` to the value beneath (no `to`, no `by`)
    /// and begins at `beginTime` — the old one stops `replaced` unless it finished, the copy goes
    /// to the end of the order, a parked one is taken over — done in the columns alone: no
    /// existential copies, casts or compiling: 1.1–2.6 µs less per layer property change (caches
    /// cold after a tick) than adding the copy.
    ///
    /// `handle` may also name an animation that finished and was parked since (its handle went
    /// stale by parking and nothing else). Nil — and nothing changed — when the columns cannot do
    /// it: another animation under the key, a stale handle, a value of another kind or not
    /// finite, a composed slot (the value beneath is not the model), a field, additive or rotating
    /// track; the caller then adds the copy through ``TrackStore/add(_:layer:forKey:)``, which gives the
    /// same result. The caller vouches that the copy equals the animation but for its values and
    /// begin time.
    func retargetImplicit(_ handle: AnimationHandle, layer: LayerID, forKey key: String,
                          from: AnimationValue, beginTime: Double) -> AnimationHandle? {
        let a = Int(handle.index)
        guard a >= 0, a < tables.animations.count, tables.animations[a].alive, tables.animations[a].layer == layer,
              beginTime.isFinite else { return nil }
        let parked = tables.animations[a].parked
        // Parking bumps the generation once (``park(_:)``); any later change bumps it again.
        guard tables.animations[a].generation == (parked ? handle.generation &+ 1 : handle.generation),
              tables.animations[a].key == key else { return nil }
        let t = Int(tables.animations[a].columnTrack)
        guard t >= 0, tables.tracks[t].field == nil, !tables.tracks[t].isAdditive, tables.tracks[t].rotationSlot < 0,
              tables.tracks[t].valueKind == from.kind else { return nil }
        var finite = true
        from.forEachComponent { _, v in finite = finite && v.isFinite }   // components in place: no array
        guard finite else { return nil }
        let s = Int(tables.tracks[t].slot)
        // The value beneath is the model only in an exclusive slot: this track alone, or, parked,
        // an empty slot it returns to.
        if parked {
            guard tables.slots[s].entries.isEmpty else { return nil }
        } else {
            guard tables.slots[s].entries.count == 1, tables.slots[s].entries[0].track == Int32(t) else { return nil }
        }
        // Unchecked: `columnTrack` is set only for a track of an interpolating batch (``AnimationCompiler/insert(_:layer:sequence:reusing:)``).
        let batch = unsafeDowncast(tables.batches[Int(tables.tracks[t].batch)], to: InterpolatingBatch.self)
        let i = Int(tables.tracks[t].index)
        if parked {
            // Back in its slot with the timing it had (the lane kept most of it; parking kept what
            // it overwrote), under its layer's clock as it is now; its finish was reported when it
            // was parked, so no stop now. Kept rather than compiled again from the animation:
            // reaching the animation's timing through its existential was 0.3 µs of a takeover.
            var timing = batch.timing(i)
            (timing.speed, timing.timeOffset, timing.flags) =
                (tables.animations[a].parkedSpeed, tables.animations[a].parkedTimeOffset, tables.animations[a].parkedFlags)
            timing.point(at: clocks.node(of: layer))
            let sequence = tables.takeSequence()
            tables.animations[a].sequence = sequence
            tables.tracks[t].sequence = sequence
            tables.slots[s].entries.append(SlotEntry(track: Int32(t), isRotation: false))
            planner.markDirty(Int32(s))   // the plan shows the lane in the slot's row again
            batch.setTiming(i, timing)
            tables.tracks[t].exclusive = true
            batch.setFlag(i, CompiledTiming.addsBase, false)   // not additive (checked above)
            tables.animations[a].parked = false
            tables.parkedCount -= 1
            tables.version += 1
        } else {
            retargeter.moveToEnd(Int32(a))
        }
        let model = tables.model(of: Int32(s))
        // An exclusive track's fallback, shown when it does not contribute: defensive here (an
        // animation that begins now contributes until it ends, and then it is parked or, kept,
        // reconfigured by every model change), but the lane must match what configuring gives.
        ValueStorage.store(model, into: batch.base, at: i)
        // The old one stops `replaced`; a parked one's finish was reported when it was parked.
        let retargeted = tables.retireReplaced(Int32(a), handle: handle)
        tables.animations[a].retargeted = true
        batch.animationID[i] = retargeted.rawValue
        batch.timingColumns.beginTime[i] = beginTime   // a top-level track keeps its begin time as given
        batch.state[i] = TrackState.neverEvaluated   // a new animation: it starts and ends anew (§8.1)
        // Its composition op stands: the animation was from-only before too (the caller's
        // vouching), so configuring gave it `.recompute` already (§4.1).
        batch.retarget(i, from: from, toBeneath: model)
        return retargeted
    }

    /// ``Retargeter/retargetInPlace(_:handle:with:)``, taking the entry inserted by
    /// ``unpark(key:layer:for:)`` out again when it throws or declines.
    private func retargetChecked(_ a: Int32, handle: AnimationHandle, with animation: any Animation) throws -> AnimationHandle? {
        do {
            if let revived = try retargeter.retargetInPlace(a, handle: handle, with: animation) { return revived }
        } catch {
            let t = tables.animations[a].columnTrack
            compiler.removeEntries(of: t, from: tables.tracks[t].slot)
            throw error
        }
        return nil
    }

    /// Frees parked animation `a` for good.
    func discardParked(_ a: Int32) {
        guard tables.animations[a].parked else { return }
        tables.animations[a].parked = false
        tables.parkedCount -= 1
        compiler.freeAnimation(a)
    }

    /// Frees every animation parked on `layer` (for `slot` only, when given).
    func discardParked(layer: LayerID, slot: Int32? = nil) {
        let parked = tables.allAnimations(of: layer).filter { tables.animations[$0].parked }
        for a in parked where slot == nil || tables.tracks[Int(tables.animations[a].columnTrack)].slot == slot {
            discardParked(a)
        }
    }
}
