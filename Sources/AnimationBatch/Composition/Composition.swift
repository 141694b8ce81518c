import AnimationCore
import Foundation

/// The composition plan of a store (semantics §8.4): typed operations per composed slot, kept up
/// to date slot by slot as animations come and go (``SlotPlanner/update()``) and run by the
/// frame after the kernels, writing each slot's presentation value into the store's
/// ``PresentationTable`` — the one place it lives — and listing the slots whose value changed.
///
/// Three kinds of slot:
/// - **exclusive** — its only animation sets the whole value: the kernel already composed it with
///   the model (fallback and additive base, §4.3), and the frame copies the output into the
///   slot's row right after the kernel, from the track's own lane (``TrackBatch/present(blocks:masks:pending:)``).
///   No operation here: almost every slot of a large scene is one of these.
/// - **fast** — a slot of at most four components whose animations each write the kernel's value,
///   whole or as a component field (`position.x`, `bounds.size`, §4.6): the model, then each
///   contributing entry replacing or adding its components, in Double.
/// - **transform** — a `transform` whose model is a 2D placement (translation, positive scales, a
///   rotation about z; no skew, no perspective) and whose animations set or add its fields
///   (`transform.rotation.z`, `transform.scale`, `transform.translation.x`, …, §4.6) or turn it
///   along a path (rotation modes, §5.7): composed on the decomposed parts — the model decomposed
///   once when planned, each field written into the parts, one recomposition — where the
///   reference decomposes and recomposes the whole matrix for every entry. A frame whose values
///   would leave that form (a scale through zero, a turn of unequal scales before a field) takes
///   the reference's own sequence for the slot.
/// - **general** — everything else (whole-transform animations, other transform models, value
///   functions, rows recomputed over the value beneath): the reference's own composition on
///   `AnimationValue`, per slot.
///
/// Changing one slot's plan is O(its entries): a fast slot's operation is replaced (the last moves
/// into a removed one's place; the entries it leaves are reclaimed by an occasional compaction), a
/// general slot is listed or unlisted. Fast and transform slots run in parallel chunks, each writing
/// its own rows and its own region of the change list; general slots run on the calling thread
/// after them.
/// Results do not depend on the chunking.
final class Composition {
    /// One entry of a fast slot: its track's batch, lane and the components it writes.
    struct FastEntry {
        var batch: Int32
        var index: Int32
        /// The first component of the slot's value it writes, and how many.
        var first: Int32
        var width: Int16
        var additive: Bool
    }

    /// A fast slot: its entries' range in `fastEntries`, its place in the table and its model's
    /// components.
    struct FastSlot {
        var slot: Int32
        var column: Int32
        var row: Int32
        var width: Int32
        var entries: Range<Int32>
        /// Four model components (zeros beyond the value's own).
        var model: (Double, Double, Double, Double)
    }

    /// A transform slot (see the type's overview): its entries' range in `fastEntries` (each
    /// entry's `first` is its ``TransformOp``), its place in the table, its model and the model's
    /// parts.
    struct TransformSlot {
        var slot: Int32
        var column: Int32
        var row: Int32
        var entries: Range<Int32>
        var model: Transform3D
        var parts: DecomposedTransform3D
        /// The parts' rotation as Euler angles (x and y are zeros: a rotation about z).
        var angles: Vector3
    }

    /// What one entry of a transform slot does (semantics §4.6, §5.7).
    enum TransformOp: Int32 {
        case turn, rotationZ, scale, scaleX, scaleY, scaleZ, translation, translationX, translationY, translationZ

        init?(_ field: ValueField?) {
            switch field {
            case .rotation?, .rotationZ?: self = .rotationZ
            case .scale?: self = .scale
            case .scaleX?: self = .scaleX
            case .scaleY?: self = .scaleY
            case .scaleZ?: self = .scaleZ
            case .translation?: self = .translation
            case .translationX?: self = .translationX
            case .translationY?: self = .translationY
            case .translationZ?: self = .translationZ
            default: return nil
            }
        }

        var field: ValueField {
            switch self {
            case .turn, .rotationZ: .rotationZ
            case .scale: .scale
            case .scaleX: .scaleX
            case .scaleY: .scaleY
            case .scaleZ: .scaleZ
            case .translation: .translation
            case .translationX: .translationX
            case .translationY: .translationY
            case .translationZ: .translationZ
            }
        }
    }

    /// A batch's columns as the fast chunks read them (taken once per frame: batches grow
    /// between frames, never during one).
    struct BatchPointers {
        var state: UnsafeMutablePointer<UInt8>
        var outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        /// The rotation-mode angles of batches that evaluate paths; nil for the others.
        var angle: UnsafeMutablePointer<Float>?
        /// Their cosines and sines, where the batch computes them (``TrackBatch/turnPointers``).
        var cosine: UnsafeMutablePointer<Float>?
        var sine: UnsafeMutablePointer<Float>?
    }

    private(set) var fastSlots: [FastSlot] = []
    private(set) var transformSlots: [TransformSlot] = []
    private(set) var fastEntries: [FastEntry] = []
    /// Where compaction copies the live entries (kept, so that compaction reuses its capacity).
    private var spareEntries: [FastEntry] = []
    /// Entries in `fastEntries` no fast slot uses any more.
    private var garbage = 0
    /// Slots composed by the general path.
    private(set) var generalSlots: [Int32] = []
    /// Per slot index: 0 unplanned (exclusive, unanimated or free), 0 < k < `transformPlace` fast
    /// slot k − 1, k ≥ `transformPlace` transform slot k − `transformPlace`, k < 0 general slot
    /// −k − 1.
    private var place: [Int32] = []
    private static let transformPlace: Int32 = 1 << 30

    /// The slots the parallel chunks compose: the fast ones, then the transform ones.
    var chunkedCount: Int { fastSlots.count + transformSlots.count }
    private(set) var batchPointers: UnsafeMutablePointer<BatchPointers>
    private var batchCapacity = 8

    /// The engine's records, which the general path and the invariant check read.
    let tables: EngineTables

    init(tables: EngineTables) {
        self.tables = tables
        batchPointers = .allocate(capacity: 8)
    }

    deinit { batchPointers.deallocate() }   // allocated in init, regrown in place of the old one, handed only to this frame's kernels

    /// Which components of a value of `kind` a field writes (semantics §4.6), for the fast path.
    static func componentRange(of field: ValueField?, in kind: ValueKind) -> (first: Int, width: Int)? {
        guard let field else { return (0, kind.componentCount) }
        switch (field, kind) {
        case (.x, .point), (.width, .size), (.originX, .rect): return (0, 1)
        case (.y, .point), (.height, .size), (.originY, .rect): return (1, 1)
        case (.origin, .rect): return (0, 2)
        case (.size, .rect): return (2, 2)
        case (.sizeWidth, .rect): return (2, 1)
        case (.sizeHeight, .rect): return (3, 1)
        default: return nil
        }
    }

    /// Makes room for slot indices below `count` (as the store's slot table grows, so that
    /// planning during a reaping frame never allocates).
    func reserveSlots(_ count: Int) {
        if place.count < count { place.append(contentsOf: repeatElement(0, count: count - place.count)) }
    }

    /// Forgets slot `s`'s operation, if it has one.
    func unplan(_ s: Int32) {
        let p = place[Int(s)]
        place[Int(s)] = 0
        if p >= Self.transformPlace {
            let k = Int(p - Self.transformPlace)
            garbage += transformSlots[k].entries.count
            let last = transformSlots.count - 1
            if k != last {
                transformSlots[k] = transformSlots[last]
                place[Int(transformSlots[k].slot)] = Self.transformPlace + Int32(k)
            }
            transformSlots.removeLast()
        } else if p > 0 {
            let k = Int(p) - 1
            garbage += fastSlots[k].entries.count
            let last = fastSlots.count - 1
            if k != last {
                fastSlots[k] = fastSlots[last]
                place[Int(fastSlots[k].slot)] = Int32(k + 1)
            }
            fastSlots.removeLast()
        } else if p < 0 {
            let k = Int(-p) - 1
            let last = generalSlots.count - 1
            if k != last {
                generalSlots[k] = generalSlots[last]
                place[Int(generalSlots[k])] = -Int32(k + 1)
            }
            generalSlots.removeLast()
        }
    }

    /// Plans composed slot `s` (it has no operation): on the fast path if it can take it,
    /// otherwise on the general one.
    func plan(_ s: Int32, record: borrowing SlotRecord, location: SlotLocation,
              tracks: UnsafeBufferPointer<TrackRecord>) {
        if planFast(s, record: record, location: location, tracks: tracks) { return }
        if planTransform(s, record: record, location: location, tracks: tracks) { return }
        generalSlots.append(s)
        place[Int(s)] = -Int32(generalSlots.count)
    }

    private func planFast(_ s: Int32, record: borrowing SlotRecord, location: SlotLocation,
                          tracks: UnsafeBufferPointer<TrackRecord>) -> Bool {
        switch record.kind {
        case .scalar, .point, .size, .rect, .color: break
        default: return false   // transforms: fields are set through decomposition
        }
        for entry in record.entries {
            let track = tracks[Int(entry.track)]
            guard !entry.isRotation, case .value = track.op,
                  let range = Self.componentRange(of: track.field, in: record.kind),
                  range.width == track.valueKind.componentCount else { return false }
        }
        let start = fastEntries.count
        for entry in record.entries {
            let track = tracks[Int(entry.track)]
            let range = Self.componentRange(of: track.field, in: record.kind)!
            fastEntries.append(FastEntry(batch: track.batch, index: track.index, first: Int32(range.first),
                                         width: Int16(range.width), additive: track.isAdditive))
        }
        fastSlots.append(FastSlot(slot: s, column: location.column, row: location.row, width: Int32(record.kind.componentCount),
                                  entries: Int32(start)..<Int32(fastEntries.count), model: Self.components(tables.model(of: s))))
        place[Int(s)] = Int32(fastSlots.count)
        return true
    }

    private func planTransform(_ s: Int32, record: borrowing SlotRecord, location: SlotLocation,
                               tracks: UnsafeBufferPointer<TrackRecord>) -> Bool {
        guard case .transform(let model) = tables.model(of: s), let parts = Self.planarParts(of: model) else { return false }
        for entry in record.entries where !entry.isRotation {
            let track = tracks[Int(entry.track)]
            guard case .value = track.op, TransformOp(track.field) != nil else { return false }
        }
        let start = fastEntries.count
        for entry in record.entries {
            let track = tracks[Int(entry.track)]
            let op = entry.isRotation ? .turn : TransformOp(track.field)!
            fastEntries.append(FastEntry(batch: track.batch, index: track.index, first: op.rawValue, width: 0,
                                         additive: !entry.isRotation && track.isAdditive))
        }
        transformSlots.append(TransformSlot(slot: s, column: location.column, row: location.row,
                                            entries: Int32(start)..<Int32(fastEntries.count), model: model, parts: parts,
                                            angles: parts.rotation.eulerAngles))
        place[Int(s)] = Self.transformPlace + Int32(transformSlots.count - 1)
        return true
    }

    /// The parts of a transform that is a 2D placement — finite, decomposable, positive scales, a
    /// rotation about z only, no skew, no perspective — or nil. Such parts stay in that form while
    /// fields are written with positive scales (see ``composeTransform(_:entries:batches:)``).
    static func planarParts(of model: Transform3D) -> DecomposedTransform3D? {
        guard let parts = model.decomposed(), parts.skew == .zero, parts.perspective == .noPerspective,
              parts.rotation.x == 0, parts.rotation.y == 0,
              parts.scale.x > 0, parts.scale.y > 0, parts.scale.z > 0 else { return nil }
        return parts
    }

    /// After the rows moved (``RowLayout``): each fast and transform slot's operation writes its
    /// slot's row again.
    func followRows(_ locations: UnsafePointer<SlotLocation>) {
        for k in fastSlots.indices { fastSlots[k].row = locations[Int(fastSlots[k].slot)].row }
        for k in transformSlots.indices { transformSlots[k].row = locations[Int(transformSlots[k].slot)].row }
    }

    /// Reclaims the entries of forgotten fast slots once they outnumber the live ones (amortised
    /// O(1) per change; the spare array's capacity is reused).
    func compactIfNeeded() {
        guard garbage > 1_024, garbage > fastEntries.count / 2 else { return }
        spareEntries.removeAll(keepingCapacity: true)
        spareEntries.reserveCapacity(fastEntries.count - garbage)
        for k in fastSlots.indices {
            let start = Int32(spareEntries.count)
            spareEntries.append(contentsOf: fastEntries[Int(fastSlots[k].entries.lowerBound)..<Int(fastSlots[k].entries.upperBound)])
            fastSlots[k].entries = start..<Int32(spareEntries.count)
        }
        for k in transformSlots.indices {
            let start = Int32(spareEntries.count)
            let entries = transformSlots[k].entries
            spareEntries.append(contentsOf: fastEntries[Int(entries.lowerBound)..<Int(entries.upperBound)])
            transformSlots[k].entries = start..<Int32(spareEntries.count)
        }
        swap(&fastEntries, &spareEntries)
        garbage = 0
    }

    /// The plan's part of ``TrackStore/invariantViolations(limit:)``: the place table and the
    /// operation lists name each other; every slot not waiting to be planned again
    /// (``SlotPlanner/isDirty(_:)``) has the operation its entries call for — none for an exclusive
    /// slot, whose track shows into the slot's row itself — at the slot's current row, reading its
    /// tracks' current lanes in composition order.
    func checkPlan(isDirty: (Int32) -> Bool, into report: inout InvariantReport) {
        report.check(place.count >= tables.slots.count, "the plan has places for \(place.count) of \(tables.slots.count) slots")
        report.check(garbage >= 0 && garbage <= fastEntries.count, "the plan counts \(garbage) unused of \(fastEntries.count) entries")
        func placed(_ s: Int32, _ expected: Int32, _ what: String) {
            report.check(s >= 0 && Int(s) < place.count && place[Int(s)] == expected, "\(what) for slot \(s) is not where its place says")
        }
        for (k, f) in fastSlots.enumerated() { placed(f.slot, Int32(k + 1), "fast operation \(k)") }
        for (k, f) in transformSlots.enumerated() { placed(f.slot, Self.transformPlace + Int32(k), "transform operation \(k)") }
        for (k, s) in generalSlots.enumerated() { placed(s, -Int32(k + 1), "general operation \(k)") }
        let operations = fastSlots.count + transformSlots.count + generalSlots.count
        let placedCount = place.count { $0 != 0 }
        report.check(placedCount == operations, "\(placedCount) slots have a place for \(operations) operations")

        func entriesMatch(_ range: Range<Int32>, _ slot: SlotRecord) -> Bool {
            guard range.lowerBound >= 0, Int(range.upperBound) <= fastEntries.count, range.count == slot.entries.count else { return false }
            return zip(fastEntries[Int(range.lowerBound)..<Int(range.upperBound)], slot.entries).allSatisfy { planned, entry in
                let track = tables.tracks[Int(entry.track)]
                return planned.batch == track.batch && planned.index == track.index
            }
        }
        for s in tables.slots.indices where !isDirty(Int32(s)) && !report.isFull {
            let slot = tables.slots[s]
            let p = s < place.count ? place[s] : 0
            guard slot.alive, !slot.entries.isEmpty, slot.entries.allSatisfy({ tables.tracks[Int($0.track)].alive }) else {
                report.check(p == 0, "slot \(s) has an operation but is free or unanimated")
                continue
            }
            let location = tables.table.locations[s]
            if tables.isExclusive(slot: Int32(s)) {
                report.check(p == 0, "exclusive slot \(s) has an operation")
                let track = tables.tracks[Int(slot.entries[0].track)]
                let shown = tables.batches[Int(track.batch)].shownRow[Int(track.index)]
                report.check(shown == tables.table.rowPointer(ofSlot: Int32(s)), "exclusive slot \(s)'s track shows into another row")
            } else if p >= Self.transformPlace {
                let f = transformSlots[Int(p - Self.transformPlace)]
                report.check(f.column == location.column && f.row == location.row, "transform slot \(s)'s operation writes an old row")
                report.check(entriesMatch(f.entries, slot), "transform slot \(s)'s operation reads other lanes than its tracks'")
            } else if p > 0 {
                let f = fastSlots[Int(p) - 1]
                report.check(f.column == location.column && f.row == location.row, "fast slot \(s)'s operation writes an old row")
                report.check(Int(f.width) == slot.kind.componentCount, "fast slot \(s)'s operation writes \(f.width) components")
                report.check(entriesMatch(f.entries, slot), "fast slot \(s)'s operation reads other lanes than its tracks'")
            } else {
                report.check(p < 0, "composed slot \(s) has no operation")
            }
        }
    }

    /// Takes the batches' column pointers for this frame.
    func takePointers(of batches: [TrackBatch]) {
        if batches.count > batchCapacity {
            regrow(&batchPointers, keeping: 0, capacity: batches.count * 2)
            batchCapacity = batches.count * 2
        }
        for (b, batch) in batches.enumerated() {
            let turns = batch.turnPointers
            batchPointers[b] = BatchPointers(state: batch.state.base, outputs: batch.outputs.pointers, angle: batch.anglePointer,
                                             cosine: turns?.cosine, sine: turns?.sine)
        }
    }

    /// The four components of a value of at most four components (zeros beyond its own).
    private static func components(_ v: AnimationValue) -> (Double, Double, Double, Double) {
        switch v {
        case .scalar(let x): (x, 0, 0, 0)
        case .point(let p): (p.x, p.y, 0, 0)
        case .size(let s): (s.width, s.height, 0, 0)
        case .rect(let r): (r.origin.x, r.origin.y, r.size.width, r.size.height)
        case .color(let c): (c.red, c.green, c.blue, c.alpha)
        default: (0, 0, 0, 0)
        }
    }

    /// Composes chunked slots `range` (fast slots, then transform slots, see ``chunkedCount``) into
    /// their rows and lists those that changed (and that `target.pending` does not list already)
    /// at `target.changes`. Returns how many it listed.
    func runChunk(_ range: Range<Int>, into target: PresentationTarget) -> Int {
        var count = 0
        let batches = UnsafePointer(batchPointers)
        let fastRange = range.clamped(to: 0..<fastSlots.count)
        let transformRange = (range.lowerBound - fastSlots.count)..<(range.upperBound - fastSlots.count)
        fastEntries.withUnsafeBufferPointer { entries in
            fastSlots.withUnsafeBufferPointer { fast in
                for o in fastRange where Self.composeFast(fast[o], entries: entries, batches: batches, bases: target.bases)
                    && target.pending[Int(fast[o].slot)] == 0 {
                    let s = fast[o].slot
                    target.changes[count] = SlotHandle(index: s, generation: target.locations[Int(s)].generation)
                    count += 1
                }
            }
            transformSlots.withUnsafeBufferPointer { slots in
                for o in transformRange.clamped(to: 0..<slots.count) {
                    // In place: a transform slot is some 300 bytes, and copying it cost as much as
                    // composing a slot that only turns.
                    let f = UnsafePointer(slots.baseAddress! + o)   // o is within the buffer (clamped above)
                    let value = Self.composeTransform(f, entries: entries, batches: batches)
                        ?? Self.composeTransformByReference(f.pointee, entries: entries, batches: batches)
                    let row = target.bases[Int(f.pointee.column)] + Int(f.pointee.row) * 16
                    let s = f.pointee.slot
                    if PresentationTable.replace(row, with: value) && target.pending[Int(s)] == 0 {
                        target.changes[count] = SlotHandle(index: s, generation: target.locations[Int(s)].generation)
                        count += 1
                    }
                }
            }
        }
        return count
    }

    /// A transform slot by its parts (semantics §4.6, §5.7): the model's parts, each contributing
    /// field entry reading its base from them (the reference decomposes the matrix so far: the
    /// same parts, to rounding) and writing them, rotation-mode turns gathered and applied to the
    /// matrix as the reference does (`Rz(θ) · M`; turns about z commute). Nil when a frame's
    /// values leave the planar form — a scale not above zero, a value that is not finite, a turn
    /// of unequal x and y scales followed by a field (its decomposition would have a skew) — and
    /// the reference's sequence must decide.
    @inline(__always)
    static func composeTransform(_ f: UnsafePointer<TransformSlot>, entries: UnsafeBufferPointer<FastEntry>,
                                 batches: UnsafePointer<BatchPointers>) -> Transform3D? {
        // `f` points into `transformSlots` (the caller's buffer of the plan, alive for the call);
        // `batches` has one entry per batch of the store, refreshed by `refreshBatchPointers` before a frame.
        var parts = f.pointee.parts, angle = f.pointee.angles.z
        var turn = 0.0, written = false
        // The one turn's cosine and sine when its batch computed them (the common case: one path
        // animation with a rotation mode); NaN otherwise.
        var turns = 0, turnCosine = Double.nan, turnSine = Double.nan
        for e in f.pointee.entries {
            let entry = entries[Int(e)]
            let batch = batches[Int(entry.batch)], i = Int(entry.index)
            guard batch.state[i] & TrackState.contributes != 0 else { continue }
            let op = TransformOp(rawValue: entry.first).unsafelyUnwrapped   // written by planTransform
            if op == .turn {
                guard let angles = batch.angle else { continue }
                turn += Double(angles[i])
                turns += 1
                if let cosine = batch.cosine, let sine = batch.sine {
                    (turnCosine, turnSine) = (Double(cosine[i]), Double(sine[i]))
                } else {
                    (turnCosine, turnSine) = (.nan, .nan)
                }
                continue
            }
            if turns > 0 {
                // The matrix so far turned by Rz(turn): its parts are these with the angle moved,
                // as long as the turn commutes with the scales.
                guard parts.scale.x == parts.scale.y else { return nil }
                angle += turn
                turn = 0
                turns = 0
                (turnCosine, turnSine) = (.nan, .nan)
            }
            let v = Double(batch.outputs[0][i])
            let add = entry.additive
            switch op {
            case .turn: break
            case .rotationZ: angle = add ? angle + v : v
            case .scale:
                let s = add ? (parts.scale.x + parts.scale.y + parts.scale.z) / 3 + v : v
                parts.scale = Vector3(x: s, y: s, z: s)
            case .scaleX: parts.scale.x = add ? parts.scale.x + v : v
            case .scaleY: parts.scale.y = add ? parts.scale.y + v : v
            case .scaleZ: parts.scale.z = add ? parts.scale.z + v : v
            case .translation:
                let w = Double(batch.outputs[1][i])
                parts.translation.x = add ? parts.translation.x + v : v
                parts.translation.y = add ? parts.translation.y + w : w
            case .translationX: parts.translation.x = add ? parts.translation.x + v : v
            case .translationY: parts.translation.y = add ? parts.translation.y + v : v
            case .translationZ: parts.translation.z = add ? parts.translation.z + v : v
            }
            guard parts.scale.x > 0, parts.scale.y > 0, parts.scale.z > 0, parts.scale.x.isFinite, parts.scale.y.isFinite,
                  parts.scale.z.isFinite, parts.translation.x.isFinite, parts.translation.y.isFinite,
                  parts.translation.z.isFinite, angle.isFinite else { return nil }
            written = true
        }
        var m = f.pointee.model
        if written {
            parts.rotation = Quaternion(eulerAngles: Vector3(x: f.pointee.angles.x, y: f.pointee.angles.y, z: angle))
            m = parts.recomposed()
        }
        if turns == 1 && !turnCosine.isNaN { return turned(m, cosine: turnCosine, sine: turnSine) }
        return turns > 0 ? turned(m, cosine: cos(turn), sine: sin(turn)) : m
    }

    /// `Rz(θ) · m` for `c = cos θ`, `s = sin θ`, in the row-vector convention
    /// (`Transform3D.rotation(angle: θ, x: 0, y: 0, z: 1)` concatenated with `m`): only the first
    /// two rows mix, 16 products where the general one takes 64 and normalises the axis.
    @inline(__always)
    static func turned(_ m: Transform3D, cosine c: Double, sine s: Double) -> Transform3D {
        var r = m
        r.m11 = c * m.m11 + s * m.m21
        r.m12 = c * m.m12 + s * m.m22
        r.m13 = c * m.m13 + s * m.m23
        r.m14 = c * m.m14 + s * m.m24
        r.m21 = c * m.m21 - s * m.m11
        r.m22 = c * m.m22 - s * m.m12
        r.m23 = c * m.m23 - s * m.m13
        r.m24 = c * m.m24 - s * m.m14
        return r
    }

    /// A transform slot by the reference's own sequence (semantics §4.6, §5.7, §8.4): each entry
    /// decomposes the matrix so far, writes its field and recomposes; a turn concatenates its
    /// rotation.
    static func composeTransformByReference(_ f: TransformSlot, entries: UnsafeBufferPointer<FastEntry>,
                                            batches: UnsafePointer<BatchPointers>) -> Transform3D {
        var accumulated = AnimationValue.transform(f.model)
        for e in f.entries {
            let entry = entries[Int(e)]
            let batch = batches[Int(entry.batch)], i = Int(entry.index)
            guard batch.state[i] & TrackState.contributes != 0 else { continue }
            let op = TransformOp(rawValue: entry.first).unsafelyUnwrapped   // written by planTransform
            if op == .turn {
                if let angles = batch.angle, case .transform(let t) = accumulated {
                    accumulated = .transform(Transform3D.rotation(angle: Double(angles[i]), x: 0, y: 0, z: 1).concatenating(t))
                }
                continue
            }
            let field = op.field
            let value: AnimationValue = op == .translation
                ? .size(Size(width: Double(batch.outputs[0][i]), height: Double(batch.outputs[1][i])))
                : .scalar(Double(batch.outputs[0][i]))
            let composed = entry.additive ? field.get(from: accumulated).adding(value) : value   // §4.3
            accumulated = field.set(composed, in: accumulated)
        }
        guard case .transform(let t) = accumulated else { return f.model }
        return t
    }

    /// A fast slot: the model, then every contributing entry in add order, replacing or adding its
    /// components (semantics §4.3, §4.6, §8.4), in Double — the reference's arithmetic on
    /// components. Returns whether the row changed.
    @inline(__always)
    private static func composeFast(_ f: FastSlot, entries: UnsafeBufferPointer<FastEntry>, batches: UnsafePointer<BatchPointers>,
                                    bases: UnsafePointer<UnsafeMutablePointer<Double>>) -> Bool {
        var a = f.model
        withUnsafeMutableBytes(of: &a) { raw in
            let a = raw.baseAddress!.assumingMemoryBound(to: Double.self)   // a homogeneous tuple of four Doubles
            for e in f.entries {
                let entry = entries[Int(e)]
                let batch = batches[Int(entry.batch)], i = Int(entry.index)
                guard batch.state[i] & TrackState.contributes != 0 else { continue }
                for c in 0..<Int(entry.width) {
                    let value = Double(batch.outputs[c][i])
                    let k = Int(entry.first) + c
                    a[k] = entry.additive ? a[k].adding(value) : value   // opposite infinities: the later (§16)
                }
            }
        }
        let row = bases[Int(f.column)] + Int(f.row) * Int(f.width)
        return withUnsafeBytes(of: &a) { raw in
            // As above: four Doubles; `planFast` takes only kinds of at most four components, and each
            // entry's range lies within its kind (`componentRange`), so every index is below 4.
            let a = raw.baseAddress!.assumingMemoryBound(to: Double.self)
            var differs = false
            for c in 0..<Int(f.width) {
                differs = differs || a[c].bitPattern != row[c].bitPattern
                row[c] = a[c]
            }
            return differs
        }
    }

    /// The general slots, on the calling thread after the chunks: each slot's value into its row;
    /// those that changed (and that `pending` does not list) are listed at `changes`. Returns how
    /// many it listed.
    func composeGeneral(time: Double, pending: UnsafePointer<UInt8>, changes: UnsafeMutablePointer<SlotHandle>) -> Int {
        guard !generalSlots.isEmpty else { return 0 }
        var count = 0
        let table = tables.table
        // Slots and tracks are reached through their buffers: subscripting the tables' arrays
        // copies a whole record per access.
        tables.tracks.withUnsafeBufferPointer { tracks in
            tables.slots.withUnsafeBufferPointer { slots in
                for s in generalSlots {
                    let value = Self.composedValue(of: slots[Int(s)], model: table.model(of: s), tables: tables, tracks: tracks, time: time)
                    if PresentationTable.replace(table.rowPointer(ofSlot: s), with: value, width: slots[Int(s)].kind.componentCount)
                        && pending[Int(s)] == 0 {
                        changes[count] = SlotHandle(index: s, generation: table.locations[Int(s)].generation)
                        count += 1
                    }
                }
            }
        }
        return count
    }

    /// One slot's value by the general path: its model value, then its entries in add order
    /// (semantics §8.4), and the rotation of path animations with a rotation mode (§5.7).
    private static func composedValue(of slot: SlotRecord, model: AnimationValue, tables: EngineTables,
                                      tracks: UnsafeBufferPointer<TrackRecord>, time: Double) -> AnimationValue {
        var accumulated = model
        for entry in slot.entries {
            let t = Int(entry.track)
            let batch = tables.batches[Int(tracks[t].batch)]
            let i = Int(tracks[t].index)
            guard batch.state[i] & TrackState.contributes != 0 else { continue }
            if entry.isRotation {
                let angle: Float
                switch batch {
                case let paths as PathBatch: angle = paths.angle[i]
                case let keyframes as KeyframeBatch: angle = keyframes.angle[i]
                case let reference as ReferenceBatch: angle = reference.angle[i]
                default: continue
                }
                if case .transform(let t) = accumulated {
                    accumulated = .transform(Transform3D.rotation(angle: Double(angle), x: 0, y: 0, z: 1).concatenating(t))
                }
                continue
            }
            let field = tracks[t].field
            let base = field?.get(from: accumulated) ?? accumulated
            let value: AnimationValue
            switch tracks[t].op {
            case .value:
                value = ValueStorage.load(tracks[t].valueKind, from: batch.outputs, at: i)
            case .valueFunction(let function):
                value = .transform(function.transform(for: Double(batch.outputs.pointers[0][i])))
            case .recompute:
                // The reference's own timing state, in Double, at the track's parent time.
                guard let animation = tracks[t].leaf?.animation else { continue }
                let node = batch.timingColumns.timeNode[i]
                let parentTime = node >= 0 ? tables.nodeTimes[Int(node)] : time
                let state = animation.timing.state(atParentTime: parentTime)
                guard state.contributes, let v = animation.value(in: state, base: base) else { continue }
                value = v
            }
            let composed = tracks[t].isAdditive ? base.adding(value) : value   // §4.3
            accumulated = field?.set(composed, in: accumulated) ?? composed
        }
        return accumulated
    }
}
