import AnimationCore

extension Composition {
    /// The composed slots' velocity rows after a frame's kernels (docs/velocity.md, "The batch
    /// engine"): a fast slot folds its contributing entries' own velocities as its values are
    /// folded — a replacing entry's velocity replaces, an additive one's adds (semantics §4.3,
    /// §8.4; the model does not move within a frame) —; transform and general slots, whose
    /// composition runs through matrices and the value beneath, get NaN, which sends a reader to
    /// the scalar reference's velocity. Every slot whose row it leaves holding a NaN joins
    /// `marks`. On the calling thread: composed slots are few.
    func composeVelocities(batches: [TrackBatch], rows: UnsafePointer<UnsafeMutablePointer<Double>?>, marks: inout VelocityMarks) {
        let table = tables.table
        fastEntries.withUnsafeBufferPointer { entries in
            for f in fastSlots {
                guard let base = rows[Int(f.column)] else { continue }
                var a = SIMD4<Double>()
                for e in f.entries {
                    let entry = entries[Int(e)]
                    let batch = batches[Int(entry.batch)], i = Int(entry.index)
                    guard batch.state[i] & TrackState.contributes != 0, let velocities = batch.velocities else { continue }
                    for c in 0..<Int(entry.width) {
                        // `first + c` is within the slot's value of at most four components (`planFast`).
                        let k = Int(entry.first) + c, v = Double(velocities.pointers[c][i])
                        a[k] = entry.additive ? a[k] + v : v
                    }
                }
                let row = base + Int(f.row) * Int(f.width)
                for c in 0..<Int(f.width) { row[c] = a[c] }
                // An entry left to the reference (NaN) makes the sum NaN.
                if any(a .!= a) { marks.append(SlotHandle(index: f.slot, generation: table.locations[Int(f.slot)].generation)) }
            }
        }
        for t in transformSlots {
            guard let base = rows[Int(t.column)] else { continue }
            (base + Int(t.row) * 16).update(repeating: .nan, count: 16)
            marks.append(SlotHandle(index: t.slot, generation: table.locations[Int(t.slot)].generation))
        }
        for s in generalSlots {
            guard let row = table.velocityRow(ofSlot: s) else { continue }
            row.update(repeating: .nan, count: table.kinds[Int(table.column(of: s))].componentCount)
            marks.append(SlotHandle(index: s, generation: table.locations[Int(s)].generation))
        }
    }
}

/// The slots whose velocity row the last frame left holding a NaN — lanes and compositions whose
/// velocity the kernels leave to the scalar reference — so that a bulk read
/// (``FrameEvaluator/velocities(of:)``) fills those rows without scanning every row for them.
/// Room for every slot of the table: a frame writes a slot's row once (by the one lane showing
/// into it, or by its composition), so it lists a slot at most once. Holds raw memory owned by
/// the evaluator that keeps it (``release()``).
struct VelocityMarks {
    private(set) var slots: UnsafeMutablePointer<SlotHandle> = .allocate(capacity: 1)
    private(set) var capacity = 1
    /// How many of `slots` this frame listed.
    private(set) var count = 0

    /// Starts a frame's list with room for `slotCapacity` slots. Allocates only when the table grew.
    mutating func reset(room slotCapacity: Int) {
        if slotCapacity > capacity {
            slots.deallocate()   // allocated by this type; read only between frames, never kept by a reader
            capacity = slotCapacity + slotCapacity / 2
            slots = .allocate(capacity: capacity)
        }
        count = 0
    }

    @inline(__always)
    mutating func append(_ slot: SlotHandle) {
        assert(count < capacity, "a slot listed twice in one frame")
        guard count < capacity else { return }
        slots[count] = slot
        count += 1
    }

    /// Frees the list's memory (the owner's deinit).
    func release() { slots.deallocate() }   // allocated by this type, released once by its owner
}
