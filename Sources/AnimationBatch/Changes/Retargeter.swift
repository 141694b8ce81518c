import AnimationCore
import CKernelSupport

/// Retargeting: an animation replaced by one that only changes its values, timing or spring
/// parameters keeps its track, and the new values are written into its lane in place (semantics
/// §10: the implicit animation of a property changed again). Also the general replacement that
/// keeps an animation's place in every slot's order (``replace(_:with:)``), and the batch form
/// that retargets many at once in one pass over the records.
///
/// What changes: the animation's handle (the old one stops `replaced`, semantics §8.1), its
/// lane's columns, and the slot's plan when how the track composes changed (§4.1). Never a
/// recompilation when the columns can take the change.
final class Retargeter {
    private let tables: EngineTables
    private let planner: SlotPlanner
    private let compiler: AnimationCompiler
    private let clocks: LayerClocks
    /// Counts batch retargets' checks (``AnimationRecord/checkMark``).
    private var checkCount: UInt32 = 0

    init(tables: EngineTables, planner: SlotPlanner, compiler: AnimationCompiler, clocks: LayerClocks) {
        self.tables = tables
        self.planner = planner
        self.compiler = compiler
        self.clocks = clocks
    }

    /// ``TrackStore/replace(_:with:)``: in place when `animation` only retargets the one `handle`
    /// names (``retargetInPlace(_:handle:with:)``), else its contents compiled anew under the same
    /// record, sequence and key.
    func replace(_ handle: AnimationHandle, with animation: any Animation) throws -> AnimationHandle {
        guard let a = tables.resolve(handle) else { throw AnimationError(field: "handle", reason: "does not name a live animation") }
        compiler.foldTarget(a)
        if let retargeted = try retargetInPlace(a, handle: handle, with: animation) { return retargeted }
        let layer = tables.animations[a].layer, sequence = tables.animations[a].sequence, key = tables.animations[a].key
        try compiler.check(animation, layer: layer)
        compiler.removeContents(of: a)
        _ = tables.retireReplaced(a, handle: handle)
        _ = compiler.insert(animation, layer: layer, sequence: sequence, reusing: a)
        tables.animations[a].key = key
        return tables.handle(ofAnimation: a)
    }

    /// ``TrackStore/retarget(_:from:to:beginTime:)->_``: in the columns when they can do it, else
    /// through ``replace(_:with:)`` with the retargeted copy.
    func retarget(_ handle: AnimationHandle, from: AnimationValue?, to: AnimationValue, beginTime: Double) throws -> AnimationHandle {
        guard let a = tables.resolve(handle) else { throw AnimationError(field: "handle", reason: "does not name a live animation") }
        let t = tables.animations[a].columnTrack
        if t >= 0 {
            let kind = tables.tracks[t].valueKind
            if to.kind != kind { throw AnimationError(field: "toValue", reason: "is a \(to.kind) but the animation animates a \(kind)") }
            if let from, from.kind != kind {
                throw AnimationError(field: "fromValue", reason: "is a \(from.kind) but the animation animates a \(kind)")
            }
        }
        guard beginTime.isFinite else { throw AnimationError(field: "beginTime", reason: "must be finite (got \(beginTime))") }
        // Before the columns, which do not validate: refused alike on both paths.
        if let v = to.componentBeyondRange { throw AnimationError.beyondRange(v, field: "toValue") }
        if let v = from?.componentBeyondRange { throw AnimationError.beyondRange(v, field: "fromValue") }
        var retargeted = handle, target = to, source = from ?? to
        // One-element views of three locals, used only inside these closures (the bulk path's interface).
        let done = withUnsafeMutablePointer(to: &retargeted) { handlePointer in
            withUnsafePointer(to: &target) { targetPointer in
                withUnsafePointer(to: &source) { sourcePointer in
                    retargetInColumns(UnsafeMutableBufferPointer(start: handlePointer, count: 1),
                                      from: from == nil ? nil : ValueList(values: UnsafeBufferPointer(start: sourcePointer, count: 1)),
                                      to: ValueList(values: UnsafeBufferPointer(start: targetPointer, count: 1)),
                                      startingAt: 0, beginTime: beginTime)
                }
            }
        }
        if done == 1 { return retargeted }
        compiler.foldTarget(a)
        guard let old = tables.animations[a].animation else {
            throw AnimationError(field: "handle", reason: "does not name a live animation")
        }
        switch old {
        case var basic as BasicAnimation:
            (basic.fromValue, basic.toValue, basic.byValue) = (from, to, nil)
            basic.timing.beginTime = beginTime
            return try replace(handle, with: basic)
        case var spring as SpringAnimation:
            (spring.fromValue, spring.toValue, spring.byValue) = (from, to, nil)
            spring.timing.beginTime = beginTime
            return try replace(handle, with: spring)
        default:
            throw AnimationError(field: "handle", reason: "names a \(type(of: old)), not a basic or spring animation: replace it instead")
        }
    }

    /// The batch retarget behind both public forms: every entry checked, then runs done in the
    /// columns (``retargetInColumns(_:from:to:startingAt:beginTime:)``) and the rest one by one.
    func retargetMany<From: RetargetValues, To: RetargetValues>(_ handles: UnsafeMutableBufferPointer<AnimationHandle>,
                                                                         from sources: From?, to targets: To,
                                                                         beginTime: Double) throws {
        guard beginTime.isFinite else { throw AnimationError(field: "beginTime", reason: "must be finite (got \(beginTime))") }
        try checkRetargets(UnsafeBufferPointer(handles), from: sources, to: targets)
        // Room for a stop event each, growing by doubling (reserving the exact count per call would
        // copy the list at every call while a host retargets without evaluating).
        let needed = tables.pendingEvents.count + handles.count
        if tables.pendingEvents.capacity < needed { tables.pendingEvents.reserveCapacity(max(needed, 2 * tables.pendingEvents.capacity)) }
        var k = 0
        while k < handles.count {
            k = retargetInColumns(handles, from: sources, to: targets, startingAt: k, beginTime: beginTime)
            guard k < handles.count else { break }
            do {
                handles[k] = try retarget(handles[k], from: sources?.value(k), to: targets.value(k), beginTime: beginTime)
            } catch let error as AnimationError {
                switch error.field {
                case "handle": throw AnimationError(field: "handles[\(k)]", reason: error.reason)
                case "toValue": throw AnimationError(field: "targets[\(k)]", reason: error.reason)
                case "fromValue": throw AnimationError(field: "sources[\(k)]", reason: error.reason)
                default: throw error.prefixed(by: "handles[\(k)]")
                }
            }
            k += 1
        }
    }

    /// Throws what ``retarget(_:from:to:beginTime:)->()`` would for the first
    /// entry it could not do, before it does any: a stale handle or one named twice, an animation
    /// that is not a basic or spring animation, a value of another kind. Reads the records of
    /// later entries ahead (their cache misses overlap) and leaves them in cache for the pass
    /// that retargets: handles that skip through the store (every fifth layer's animation) cost
    /// a dependent miss per record otherwise.
    private func checkRetargets<From: RetargetValues, To: RetargetValues>(_ handles: UnsafeBufferPointer<AnimationHandle>,
                                                                         from sources: From?, to targets: To) throws {
        checkCount = checkCount == .max ? 1 : checkCount + 1   // 0 is the mark of records never checked
        let mark = checkCount
        try tables.animations.withUnsafeMutableBufferPointer { records in
            try tables.tracks.withUnsafeBufferPointer { trackRecords in
                // Index of handle j's record, if it names one in range.
                func record(_ j: Int) -> Int? {
                    guard j < handles.count else { return nil }
                    let a = Int(handles[j].index)
                    return a >= 0 && a < records.count ? a : nil
                }
                for k in 0..<handles.count {
                    // Two stages ahead: the record of entry k + 8, and the track record of entry
                    // k + 4 (whose animation record the first stage fetched four entries ago).
                    // `record` returns only indices below records.count, so both buffers are non-empty and in bounds.
                    if let a = record(k + 8) { Self.prefetch(records.baseAddress! + a) }
                    if let a = record(k + 4), records[a].columnTrack >= 0, Int(records[a].columnTrack) < trackRecords.count {
                        Self.prefetch(trackRecords.baseAddress! + Int(records[a].columnTrack))
                    }
                    let handle = handles[k]
                    guard let a = record(k), records[a].alive, records[a].generation == handle.generation else {
                        throw AnimationError(field: "handles[\(k)]", reason: "does not name a live animation")
                    }
                    guard records[a].checkMark != mark else {
                        throw AnimationError(field: "handles[\(k)]", reason: "names an animation an earlier entry names: its handle goes stale there")
                    }
                    records[a].checkMark = mark
                    let kind: ValueKind
                    let t = records[a].columnTrack
                    if t >= 0 {
                        kind = trackRecords[Int(t)].valueKind
                    } else if let property = records[a].animation as? any PropertyAnimation,
                              property is BasicAnimation || property is SpringAnimation, let valueKind = property.valueKind {
                        kind = valueKind
                    } else {
                        let name = records[a].animation.map { "\(type(of: $0))" } ?? "nothing"
                        throw AnimationError(field: "handles[\(k)]", reason: "names a \(name), not a basic or spring animation: replace it instead")
                    }
                    if targets.kind(k) != kind {
                        throw AnimationError(field: "targets[\(k)]", reason: "is a \(targets.kind(k)) but the animation animates a \(kind)")
                    }
                    if let sources, sources.kind(k) != kind {
                        throw AnimationError(field: "sources[\(k)]", reason: "is a \(sources.kind(k)) but the animation animates a \(kind)")
                    }
                    // Checked here, not only where a replacement validates its animation: an entry
                    // done in the columns (which skip that) must be refused alike, and an entry
                    // done before a later one failed would stay done.
                    try targets.requireWithinRange(k, "targets[\(k)]")
                    try sources?.requireWithinRange(k, "sources[\(k)]")
                }
            }
        }
    }

    /// Prefetches the cache lines of one record (a hint: never faults, never changes results).
    @inline(__always)
    private static func prefetch<Record>(_ record: UnsafePointer<Record>) {
        let bytes = UnsafeRawPointer(record)
        for line in stride(from: 0, to: MemoryLayout<Record>.size, by: 64) { animation_prefetch(bytes + line) }
    }

    /// The retargets from `first` on that the columns alone can do, in one pass: for each, the new
    /// endpoints (§4.1 over the model for to-only), the begin time and a fresh state written into
    /// the track's lane, with the exact values kept there (``InterpolatingBatch``) — no copy, cast
    /// or boxing of the animation, and no memory of its own. The record arrays are reached through
    /// one access each: every access to a class's array property is checked at run time, and
    /// those checks were 30 % of a mass retarget done call by call. Returns the index of the first
    /// retarget left (a stale handle, another kind of animation or value, a to-only retarget on a
    /// composed slot — recomputed from the animation every frame, §4.1 — for the single call to do
    /// or reject), or `handles.count`.
    private func retargetInColumns<From: RetargetValues, To: RetargetValues>(_ handles: UnsafeMutableBufferPointer<AnimationHandle>,
                                                                             from sources: From?, to targets: To,
                                                                             startingAt first: Int, beginTime: Double) -> Int {
        var k = first
        let table = tables.table
        tables.animations.withUnsafeMutableBufferPointer { records in
            tables.tracks.withUnsafeMutableBufferPointer { trackRecords in
                tables.batches.withUnsafeBufferPointer { batchList in
                    while k < handles.count {
                        let handle = handles[k], a = Int(handle.index)
                        guard a >= 0, a < records.count, records[a].alive, records[a].generation == handle.generation else { return }
                        let t = Int(records[a].columnTrack)
                        guard t >= 0 else { return }
                        let kind = trackRecords[t].valueKind
                        guard targets.kind(k) == kind, sources?.kind(k) ?? kind == kind, sources != nil || trackRecords[t].exclusive else { return }
                        // Unchecked: `columnTrack` is set only for a track of an interpolating batch (``AnimationCompiler/insert(_:layer:sequence:reusing:)``).
                        let batch = unsafeDowncast(batchList[Int(trackRecords[t].batch)], to: InterpolatingBatch.self)
                        let i = Int(trackRecords[t].index)

                        let retargeted = EngineTables.retire(&records[a], Int32(a), handle: handle, events: &tables.pendingEvents)
                        records[a].retargeted = true
                        batch.animationID[i] = retargeted.rawValue
                        // The timing stands but for its begin time, which a top-level track keeps as
                        // given (``CompiledTiming``; it is not part of ``CompiledTiming/isPlain``).
                        batch.timingColumns.beginTime[i] = beginTime
                        batch.state[i] = TrackState.neverEvaluated   // a new animation: it starts and ends anew (§8.1)
                        // §4.1: from `from`, or from the value beneath (the model: the slot is exclusive).
                        // The values are read in place, component by component: copying the 129-byte
                        // values per retarget was an eighth of a mass retarget.
                        let slot = trackRecords[t].slot
                        if let sources {
                            batch.retarget(i, from: sources, k, to: targets, k, keepsFrom: true)
                        } else {
                            // The model read from its row (`slot` is a live slot's index).
                            var model = table.model(of: slot)
                            withUnsafePointer(to: &model) { model in
                                batch.retarget(i, from: ValueList(values: UnsafeBufferPointer(start: model, count: 1)), 0,
                                               to: targets, k, keepsFrom: false)
                            }
                        }
                        switch (trackRecords[t].op, sources != nil) {
                        case (.value, true), (.recompute, false): break
                        default:
                            trackRecords[t].op = sources == nil ? .recompute : .value
                            planner.markDirty(slot)   // its own arrays: no overlap with the accesses held here
                        }
                        handles[k] = retargeted
                        k += 1
                    }
                }
            }
        }
        return k
    }

    /// ``replace(_:with:)`` in place when `animation` only retargets animation `a` (see there), or
    /// nil when it does more. Validated like any animation: the key path and the values' kind are
    /// the old animation's, which were checked against the slot when it was added.
    func retargetInPlace(_ a: Int32, handle: AnimationHandle, with animation: any Animation) throws -> AnimationHandle? {
        guard tables.animations[a].nodes.isEmpty, tables.animations[a].tracks.count == 1 else { return nil }
        let t = Int(tables.animations[a].tracks[0])
        let batch = tables.batches[Int(tables.tracks[t].batch)], i = Int(tables.tracks[t].index)
        // Only basic and spring lanes are rewritten in place: no other kept animation is read back.
        guard batch is BasicBatch || batch is SpringBatch, tables.tracks[t].rotationSlot < 0,
              let old = tables.leafAnimation(of: Int32(t)) else { return nil }
        let spring: SpringAnimation?
        switch (animation, old, batch) {
        case (let new as BasicAnimation, let old as BasicAnimation, is BasicBatch):
            guard new.keyPath == old.keyPath, new.valueKind == old.valueKind, new.isAdditive == old.isAdditive,
                  new.isCumulative == old.isCumulative, new.valueFunction == nil, old.valueFunction == nil else { return nil }
            spring = nil
        case (let new as SpringAnimation, let old as SpringAnimation, let springs as SpringBatch):
            guard new.keyPath == old.keyPath, new.valueKind == old.valueKind, new.isAdditive == old.isAdditive,
                  new.isCumulative == old.isCumulative, new.valueFunction == nil, old.valueFunction == nil,
                  SpringRegime(dampingRatio: new.dampingRatio, omega0: new.undampedAngularFrequency) == springs.regime else { return nil }
            spring = new
        default:
            return nil
        }
        try animation.validate()
        let property = animation as! any PropertyAnimation   // both cases above are property animations
        let retargeted = tables.retireReplaced(a, handle: handle)
        tables.animations[a].animation = animation
        tables.animations[a].removedOnCompletion = animation.isRemovedOnCompletion
        tables.tracks[t].leaf = nil   // its record's animation; `configure` below keeps one where frames need it
        batch.animationID[i] = retargeted.rawValue
        let timing = CompiledTiming(property.timing, topLevel: true, removedOnCompletion: animation.isRemovedOnCompletion,
                                    timeNode: clocks.node(of: tables.animations[a].layer))
        if property.timingFunction == old.timingFunction {
            batch.setTiming(i, timing)   // the same curve: its columns stand (a retarget's common case)
        } else {
            batch.setTiming(i, timing, curve: property.timingFunction)
        }
        batch.state[i] = TrackState.neverEvaluated   // a new animation: it starts and ends anew (§8.1)
        if let spring, let springs = batch as? SpringBatch {
            springs.setSpring(i, omega0: spring.undampedAngularFrequency, zeta: spring.dampingRatio, initialVelocity: spring.initialVelocity)
        }
        let op = tables.tracks[t].op
        compiler.configure(track: Int32(t))
        // A composed slot's plan depends on how the track composes (a to-only animation over the
        // value beneath is recomputed, §4.1): replan it when that changed.
        switch (op, tables.tracks[t].op) {
        case (.value, .value), (.recompute, .recompute): break
        default: planner.markDirty(tables.tracks[t].slot)
        }
        return retargeted
    }

    /// Gives animation `a` the newest place in the composition order and in its layer's list, as
    /// if it had just been added (replacement by key, semantics §1.2, §8.2, §8.4).
    func moveToEnd(_ a: Int32) {
        let sequence = tables.takeSequence()
        tables.animations[a].sequence = sequence
        for t in tables.animations[a].tracks {
            tables.tracks[t].sequence = sequence
            for s in [tables.tracks[t].slot, tables.tracks[t].rotationSlot] where s >= 0 {
                guard let k = tables.slots[s].entries.firstIndex(where: { $0.track == t }) else { continue }
                if k == tables.slots[s].entries.count - 1 { continue }   // already last: the order stands
                compiler.insertEntry(tables.slots[s].entries.remove(at: k), into: s)
            }
        }
        // Its layer's list is ordered by sequence when read (``LayerRecord/animations``).
    }
}

/// The values of a batch retarget, by entry: a list of values, or packed components of one kind.
protocol RetargetValues {
    func kind(_ k: Int) -> ValueKind
    func value(_ k: Int) -> AnimationValue
    /// Calls `body` with each component of value `k` (in ``AnimationValue/components`` order).
    func forEachComponent(_ k: Int, _ body: (Int, Double) -> Void)
}

extension RetargetValues {
    /// Throws, naming `field`, where a component of value `k` is beyond
    /// ±`AnimationValue.largestMagnitude` — the rule every added animation's values meet, with
    /// the same words (`AnimationError.beyondRange`).
    func requireWithinRange(_ k: Int, _ field: String) throws {
        var beyond: Double?
        forEachComponent(k) { _, v in if beyond == nil, abs(v) > AnimationValue.largestMagnitude { beyond = v } }
        if let v = beyond { throw AnimationError.beyondRange(v, field: field) }
    }
}

/// Values from a buffer of ``AnimationValue``s.
struct ValueList: RetargetValues {
    let values: UnsafeBufferPointer<AnimationValue>
    @inline(__always) func kind(_ k: Int) -> ValueKind { values[k].kind }
    @inline(__always) func value(_ k: Int) -> AnimationValue { values[k] }
    @inline(__always) func forEachComponent(_ k: Int, _ body: (Int, Double) -> Void) {
        values[k].forEachComponent(body)
    }
}

/// Values of one kind from packed components (`kind.componentCount` numbers each).
struct PackedValues: RetargetValues {
    let numbers: UnsafeBufferPointer<Double>
    let kind: ValueKind
    @inline(__always) func kind(_ k: Int) -> ValueKind { kind }
    @inline(__always) func value(_ k: Int) -> AnimationValue {
        let base = k * kind.componentCount
        return AnimationValue(kind: kind) { numbers[base + $0] }
    }
    @inline(__always) func forEachComponent(_ k: Int, _ body: (Int, Double) -> Void) {
        let width = kind.componentCount, base = k * width
        for c in 0..<width { body(c, numbers[base + c]) }
    }
}
