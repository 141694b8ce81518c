import AnimationCore

extension Composition {
    /// The composed slots' velocity rows after a frame's kernels (docs/velocity.md, "The batch
    /// engine"): a fast slot folds its contributing entries' own velocities as its values are
    /// folded — a replacing entry's velocity replaces, an additive one's adds (semantics §4.3,
    /// §8.4; the model does not move within a frame) —; transform and general slots, whose
    /// composition runs through matrices and the value beneath, get NaN, which sends a reader to
    /// the scalar reference's velocity. On the calling thread: composed slots are few.
    func composeVelocities(batches: [TrackBatch], rows: UnsafePointer<UnsafeMutablePointer<Double>?>) {
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
            }
        }
        for t in transformSlots {
            guard let base = rows[Int(t.column)] else { continue }
            (base + Int(t.row) * 16).update(repeating: .nan, count: 16)
        }
        for s in generalSlots {
            guard let row = table.velocityRow(ofSlot: s) else { continue }
            row.update(repeating: .nan, count: table.kinds[Int(table.column(of: s))].componentCount)
        }
    }
}
