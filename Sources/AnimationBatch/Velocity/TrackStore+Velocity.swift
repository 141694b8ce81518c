import AnimationCore

// Velocity read per slot (docs/velocity.md): the scalar reference's analytic rate over the slot's
// animations, at the time a frame evaluates them. Computed when asked, from the animations as
// added: nothing is kept or computed per frame for it.

extension TrackStore {
    /// d(presentation value)/dt of `slot` at frame time `time`, per second of frame time: the
    /// reference's rate (`ReferenceEvaluator.presentationValuesWithRates(model:animations:at:)`)
    /// of the slot's property over its layer's animations, in add order (semantics §8.4), at the
    /// layer's local time, times d(local time)/d(frame time) (its clocks' speeds). A value of the
    /// property's kind; zero where nothing moves; nil for a stale handle.
    ///
    /// Cost: the layer's animations are read back (a keyframe animation rebuilds its plan), so a
    /// read costs microseconds, not the nanoseconds of a value read: read it when a velocity is
    /// needed (an interruption, a gesture's hand-off), not for every slot every frame.
    public func velocity(of slot: SlotHandle, atFrameTime time: Double) -> AnimationValue? {
        guard let (layer, property) = key(of: slot), let model = modelValue(of: slot) else { return nil }
        let rate = clocks.timeRate(of: layer)
        guard rate != 0 else { return .zeroRate(of: model.kind) }
        guard let s = tables.resolve(slot) else { return nil }
        var animations: [any Animation] = []
        for a in tables.listedAnimations(of: layer) {
            // Only what shows in the slot — a track of the property or a path's rotation turning
            // it (semantics §5.7) — read back: reading one unpacks it (a keyframe animation
            // rebuilds its plan), and a layer may hold many.
            let touches = tables.animations[a].tracks.contains { tables.tracks[$0].slot == s || tables.tracks[$0].rotationSlot == s }
            // As `animation(_:)` reads it: a retarget pending in the columns folded in.
            if touches, let animation = compiler.retargetedAnimation(a) ?? tables.animations[a].animation { animations.append(animation) }
        }
        guard !animations.isEmpty else { return .zeroRate(of: model.kind) }
        let local = localTime(of: layer, atFrameTime: time)
        let result = ReferenceEvaluator.presentationValuesWithRates(model: [property: model], animations: animations, at: local)
        guard let moving = result[property]?.rate else { return .zeroRate(of: model.kind) }
        // The reference reads no NaN rate from values that are not NaN (the batch's never are),
        // and scaling keeps a component that does not move at 0 when the clocks' product of
        // speeds overflows (a chain of clocks at 1e200).
        return rate == 1 ? moving : moving.rateScaled(by: rate)
    }
}

extension FrameEvaluator {
    /// Sets this frame's velocity state on every batch: with ``Configuration/computesVelocity``
    /// the table, the batches and the node rates get their storage (once; allocation-free after
    /// that while the store does not grow) and the column pointers are taken; without it every
    /// batch is told to compute nothing.
    func prepareVelocities(_ frame: FramePlan) {
        hasVelocities = configuration.computesVelocity
        guard configuration.computesVelocity else {
            if velocityFrame != nil {
                velocityFrame = nil
                for batch in frame.batches { batch.velocityFrame = nil }
                frame.nodeBatch.velocityFrame = nil
            }
            return
        }
        let table = frame.table
        table.enableVelocities()
        let columns = table.columns
        if columns.count > velocityRowCapacity {
            velocityRows.deallocate()   // owned by the evaluator (init), handed to chunks only during a frame
            velocityRowCapacity = max(columns.count, 2 * velocityRowCapacity)
            velocityRows = .allocate(capacity: velocityRowCapacity)
        }
        for (c, column) in columns.enumerated() { velocityRows[c] = column.velocities }
        frame.nodeRates.reserve(frame.nodes.count, count: frame.nodes.count)
        let state = VelocityFrame(nodeRates: frame.nodeRates.base)
        velocityFrame = state
        for batch in frame.batches {
            batch.enableVelocities { table.velocityRow(ofSlot: $0.index) }
            batch.velocityFrame = state
        }
        frame.nodeBatch.enableVelocities { _ in nil }   // its kernel's velocity step (the node rates) takes the columns' pointers
        frame.nodeBatch.velocityFrame = state
    }

    /// The velocity of `slot` after the last frame, per second of frame time: read from its
    /// velocity row when the frame computed velocities (``Configuration/computesVelocity``),
    /// else — and for slots whose velocity the kernels leave to it (whole transforms, transform
    /// and general compositions) — ``TrackStore/velocity(of:atFrameTime:)``, the scalar
    /// reference's. Nil before the first frame and for a stale handle.
    public func velocity(of slot: SlotHandle) -> AnimationValue? {
        guard !time.isNaN else { return nil }
        if hasVelocities, let s = store.tables.resolve(slot), let row = store.table.velocityRow(ofSlot: s) {
            let kind = store.table.kinds[Int(store.table.column(of: s))]
            if !(0..<kind.componentCount).contains(where: { row[$0].isNaN }) { return PresentationTable.read(kind, from: row) }
        }
        return store.velocity(of: slot, atFrameTime: time)
    }

    /// Whether the last frame's kernels computed `slot`'s velocity (its row holds no NaN): false
    /// where a read takes the scalar reference's.
    package func computedVelocity(of slot: SlotHandle) -> Bool {
        guard hasVelocities, let s = store.tables.resolve(slot), let row = store.table.velocityRow(ofSlot: s) else { return false }
        return !(0..<store.table.kinds[Int(store.table.column(of: s))].componentCount).contains { row[$0].isNaN }
    }

    /// The velocity of `property` on `layer` after the last frame (``velocity(of:)``); nil when
    /// the layer has no such slot or before the first frame.
    public func velocity(layer: LayerID, property: String) -> AnimationValue? {
        store.slot(layer: layer, property: property).flatMap(velocity(of:))
    }

    /// Every layer's velocity of `property` after the last frame, in bulk: a view laid out as
    /// ``TrackStore/presentation(of:)``'s values (same rows, same order), per second of frame
    /// time (docs/velocity.md). Nil when the last frame computed no velocities
    /// (``Configuration/computesVelocity`` off) or no slot has the property. Rows the kernels
    /// leave to the scalar reference are filled from it here, once per frame; the rest is read
    /// as the frame wrote it (the frame lists those rows: a read looks at them, not at every row).
    /// Valid until the store next changes or the next frame.
    public func velocities(of property: String) -> PresentationColumn? {
        guard hasVelocities, !time.isNaN, let c = store.table.columnIndex(of: property) else { return nil }
        let column = store.table.columns[Int(c)]
        guard let rows = column.velocities else { return nil }
        let width = column.width
        func fill(_ row: UnsafeMutablePointer<Double>, slot: SlotHandle) {
            guard (0..<width).contains(where: { row[$0].isNaN }) else { return }
            let value = store.velocity(of: slot, atFrameTime: time) ?? AnimationValue.zeroRate(of: column.kind)
            PresentationTable.write(value, to: row)
        }
        // The frame listed every row it left holding a NaN: this column's are filled.
        for j in 0..<velocityMarks.count {
            let slot = velocityMarks.slots[j]
            guard let s = store.tables.resolve(slot), store.table.column(of: s) == c, let row = store.table.velocityRow(ofSlot: s) else { continue }
            fill(row, slot: slot)
        }
        return PresentationColumn(column, locations: UnsafePointer(store.table.locations), rows: rows)
    }
}
