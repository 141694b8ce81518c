import AnimationCore

/// Keeps each property column's rows in the order the kernels show them: the rows of each batch's
/// exclusive tracks in lane order, batch after batch, then the rows no lane shows (slots composed
/// or not animated). A block of sixteen lanes whose rows are then consecutive is shown with a few
/// vector stores (``TrackBatch/contiguous``) where scattered rows cost a store each and, at a
/// million properties, a cache line fetched by every batch that shares the column: W2 at
/// 1,000,000 properties on one thread, 10.9 → 9.7 ms a frame with rows in lane order alone.
///
/// Rows are in no particular order for readers (``PresentationColumn``), so the order is the
/// engine's to choose. Keeping it through every change would move other batches' rows each time,
/// so it is restored in one pass — O(rows + lanes), allocation-free once the tables stop growing —
/// when the blocks that lost it since the last pass outnumber an eighth of all blocks, and no
/// sooner than after a number of layout changes equal to an eighth of the rows: O(1) amortised per
/// change, and never for changes that keep rows where they are (an implicit action taking a lane
/// over).
final class RowLayout {
    private let tables: EngineTables
    /// New row → slot, column after column (`starts[c]` is column c's first place; `fill[c]` its next).
    private var order: [Int32] = []
    private var starts: [Int] = []
    private var fill: [Int] = []
    /// Per slot: 1 while placed by a lane during a pass.
    private var placed: [UInt8] = []
    private var scratch: [Double] = []
    private var layerScratch: [LayerID] = []
    /// Blocks without the order right after the last pass (those that cannot have it: lanes of
    /// several columns or of composed slots side by side, the partial last block).
    private var brokenAfterPass = 0
    /// The batches' running count of layout changes at the last pass.
    private var changesAtPass = 0
    /// Passes made (for tests).
    private(set) var passes = 0
    /// Off, rows stay where they are put (for tests comparing both ways of showing a frame).
    var isEnabled = true

    init(tables: EngineTables) { self.tables = tables }

    /// Restores the order when enough of it was lost (see the type's overview); `composition`'s
    /// operations follow their slots' rows.
    func update(_ composition: Composition) {
        guard isEnabled else { return }
        var blocks = 0, contiguous = 0, changes = 0
        for batch in tables.batches {
            blocks += batch.blockCount
            contiguous += batch.contiguousBlocks
            changes &+= batch.layoutChanges
        }
        var rows = 0
        for column in tables.table.columns { rows += column.count }
        guard blocks - contiguous - brokenAfterPass > blocks / 8, changes &- changesAtPass >= max(64, rows / 8) else { return }
        restore(composition)
        contiguous = 0
        for batch in tables.batches { contiguous += batch.contiguousBlocks }
        brokenAfterPass = blocks - contiguous
        changesAtPass = changes
    }

    /// One pass: each column's new order, the columns reordered, the lanes' row pointers and the
    /// composition's rows following.
    func restore(_ composition: Composition) {
        passes += 1
        let table = tables.table, columns = table.columns, locations = table.locations
        starts.removeAll(keepingCapacity: true)
        fill.removeAll(keepingCapacity: true)
        var total = 0
        for column in columns {
            starts.append(total)
            fill.append(total)
            total += column.count
        }
        if order.count < total { order.append(contentsOf: repeatElement(0, count: total - order.count)) }
        if placed.count < tables.slots.count { placed.append(contentsOf: repeatElement(0, count: tables.slots.count - placed.count)) }
        // The showing lanes' slots, batch by batch in lane order; each slot once, within its column.
        for batch in tables.batches {
            for t in 0..<batch.count where batch.changed[t] & TrackBatch.shows != 0 {
                let slot = SlotHandle(rawValue: batch.shownSlot[t]), s = Int(slot.index)
                guard s < placed.count, placed[s] == 0, locations[s].column >= 0, locations[s].generation == slot.generation else { continue }
                let c = Int(locations[s].column)
                guard fill[c] < starts[c] + columns[c].count else { continue }
                order[fill[c]] = Int32(s)
                fill[c] += 1
                placed[s] = 1
            }
        }
        // Then every other row, in its present order.
        for (c, column) in columns.enumerated() {
            for r in 0..<column.count {
                let s = Int(column.slots[r])
                if placed[s] == 0 {
                    order[fill[c]] = Int32(s)
                    fill[c] += 1
                } else {
                    placed[s] = 0
                }
            }
        }
        order.withUnsafeBufferPointer { order in
            for (c, column) in columns.enumerated() where column.count > 0 {
                column.reorder(UnsafeBufferPointer(rebasing: order[starts[c]..<starts[c] + column.count]), locations: locations,
                               scratch: &scratch, layerScratch: &layerScratch)
            }
        }
        for batch in tables.batches { batch.followRows({ table.rowPointer(ofSlot: $0.index) }, velocityRow: { table.velocityRow(ofSlot: $0.index) }) }
        composition.followRows(locations)
    }
}
