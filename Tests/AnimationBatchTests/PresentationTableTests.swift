import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// The presentation table: one place per slot's value, bulk reads, the changed set (semantics
/// §1.1; docs/architecture.md, "one presentation table").
@Suite("Presentation table (bulk reads, changed set)")
struct PresentationTableTests {
    @Test("a whole property's column holds every layer's value, the same as value(of:)")
    func columnsMatchValues() throws {
        let scene = try Scene(seed: 0xB01C, layers: TestScale.count(debug: 60, release: 2_000))
        let evaluator = FrameEvaluator(store: scene.store)
        for t in [0.3, 1.7, 4.2] {
            evaluator.evaluate(at: t)
            var rows = 0
            for property in scene.store.presentationProperties {
                let column = try #require(scene.store.presentation(of: property))
                #expect(column.values.count == column.count * column.componentCount && column.layers.count == column.count)
                for row in 0..<column.count {
                    let slot = try #require(column.slot(atRow: row))
                    let value = try #require(column.value(atRow: row))
                    #expect(evaluator.value(of: slot) == value)
                    #expect(scene.store.key(of: slot)?.layer == column.layer(atRow: row))
                    #expect(scene.store.key(of: slot)?.property == property)
                    let place = try #require(scene.store.presentationPlace(of: slot))
                    #expect(scene.store.presentationProperties[place.column] == property && place.row == row)
                    let raw = Array(column.values[row * column.componentCount ..< (row + 1) * column.componentCount])
                    #expect(raw.map(\.bitPattern) == value.components.map(\.bitPattern))
                    rows += 1
                }
                #expect(column.value(atRow: column.count) == nil && column.layer(atRow: -1) == nil && column.slot(atRow: column.count) == nil)
            }
            #expect(rows == scene.store.slotCount)
        }
        #expect(scene.store.presentation(of: "nothing") == nil)
    }

    @Test("a model value set between frames shows at once, in value(of:) and in the column")
    func modelShowsAtOnce() throws {
        let store = TrackStore(), layer = LayerID(1)
        let slot = try store.setModelValue(.point(Point(x: 1, y: 2)), layer: layer, property: "position")
        #expect(store.presentationValue(of: slot) == .point(Point(x: 1, y: 2)), "before any frame")
        try store.add(BasicAnimation(keyPath: "position", from: Point.zero, to: Point(x: 10, y: 0), duration: 1), layer: layer)
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.1)
        try store.setModelValue(.point(Point(x: -5, y: 5)), layer: layer, property: "position")
        #expect(evaluator.value(of: slot) == .point(Point(x: -5, y: 5)))
        #expect(Array(store.presentation(of: "position")!.values) == [-5, 5])
    }

    @Test("the changed set lists exactly the slots whose shown value changed, each once")
    func changedSet() throws {
        let store = TrackStore()
        let moving = try store.setModelValue(.point(.zero), layer: LayerID(1), property: "position")
        let still = try store.setModelValue(0.5, layer: LayerID(2), property: "opacity")
        let later = try store.setModelValue(0, layer: LayerID(3), property: "opacity")
        let move = BasicAnimation(keyPath: "position", from: Point.zero, to: Point(x: 100, y: 0), duration: 1)
        try store.add(move, layer: LayerID(1))
        var delayed = BasicAnimation(keyPath: "opacity", from: 0, to: 1)
        delayed.beginTime = 2
        delayed.duration = 2
        try store.add(delayed, layer: LayerID(3))
        let evaluator = FrameEvaluator(store: store)
        func changes(at t: Double) -> Set<SlotHandle> {
            evaluator.evaluate(at: t)
            #expect(Set(evaluator.changedSlots).count == evaluator.changedSlots.count, "each once")
            return Set(evaluator.changedSlots)
        }
        #expect(changes(at: 0.5) == [moving, still, later], "the first frame: every new slot")
        #expect(changes(at: 0.6) == [moving])
        #expect(changes(at: 0.6).isEmpty, "the same time again: nothing changed")
        try store.setModelValue(0.7, layer: LayerID(2), property: "opacity")
        try store.setModelValue(0.7, layer: LayerID(2), property: "opacity")
        #expect(changes(at: 0.7) == [moving, still], "a model set counts once")
        #expect(changes(at: 1.5) == [moving], "the move ended: back to the model")
        #expect(changes(at: 1.8).isEmpty)
        #expect(changes(at: 2.5) == [later])
    }

    @Test("a composed slot (fields and additive over a model) lands in its row")
    func composedSlotsLandInTheTable() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(.rect(Rect(x: 1, y: 2, width: 30, height: 40)), layer: layer, property: "bounds")
        try store.setModelValue(.transform(.identity), layer: layer, property: "transform")
        let width = BasicAnimation(keyPath: "bounds.size.width", from: 10, to: 20, duration: 1)
        var grow = BasicAnimation(keyPath: "bounds", by: Rect(x: 0, y: 0, width: 4, height: 8), duration: 1)
        grow.isAdditive = true
        let spin = BasicAnimation(keyPath: "transform.rotation.z", from: 0, to: 1, duration: 1)
        for animation in [width, grow, spin] as [any Animation] { try store.add(animation, layer: layer) }
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        let model: [String: AnimationValue] = ["bounds": .rect(Rect(x: 1, y: 2, width: 30, height: 40)), "transform": .transform(.identity)]
        let expected = ReferenceEvaluator.presentationValues(model: model, animations: [width, grow, spin], at: 0.5)
        for property in ["bounds", "transform"] {
            let column = try #require(store.presentation(of: property))
            let shown = try #require(column.value(atRow: 0))
            #expect(PrecisionTable.maxDifference(shown, expected[property]!) < 1e-5, "\(property): \(shown) vs \(expected[property]!)")
        }
    }

    @Test("both schedulers give the same values, changes and events, bit for bit")
    func schedulersAgree() throws {
        // Fresh stores per run; slot numbers follow dictionary order, which differs between
        // stores, so values and changes are compared by (layer, property).
        var runs: [[[UInt64]]] = [], changeRuns: [[[String]]] = [], eventRuns: [[[AnimationEvent]]] = []
        for scheduler in [FrameEvaluator.Configuration.Scheduler.workerPool, .dispatch] {
            for threads in [1, 0] {
                let scene = try Scene(seed: 77, layers: TestScale.count(debug: 50, release: 2_000))
                let evaluator = FrameEvaluator(store: scene.store, configuration: .init(parallelThreshold: 0, chunksPerBatch: 4,
                                                                                       maximumThreads: threads, scheduler: scheduler))
                var frames: [[UInt64]] = [], changes: [[String]] = [], events: [[AnimationEvent]] = []
                for t in [0.1, 0.9, 2.3, 6.0] {
                    evaluator.evaluate(at: t)
                    frames.append(scene.store.presentationProperties.sorted().flatMap { property in
                        let column = scene.store.presentation(of: property)!
                        return (0..<column.count).sorted { column.layer(atRow: $0)! < column.layer(atRow: $1)! }
                            .flatMap { column.value(atRow: $0)!.components.map(\.bitPattern) }
                    })
                    changes.append(evaluator.changedSlots.map { "\(scene.store.key(of: $0)!)" }.sorted())
                    events.append(Array(evaluator.events))
                }
                runs.append(frames)
                changeRuns.append(changes)
                eventRuns.append(events)
            }
        }
        #expect(runs.allSatisfy { $0 == runs[0] })
        #expect(changeRuns.allSatisfy { $0 == changeRuns[0] })
        #expect(eventRuns.allSatisfy { $0 == eventRuns[0] })
    }

    @Test("§1.1 a model set under an animation that holds its value shows the animation again next frame")
    func modelSetUnderAHeldValue() throws {
        let store = TrackStore(), layer = LayerID(1)
        let slot = try store.setModelValue(1, layer: layer, property: "opacity")
        var fade = BasicAnimation(keyPath: "opacity", from: 0.2, to: 0.8, duration: 1)
        fade.fillMode = .forwards
        fade.isRemovedOnCompletion = false
        try store.add(fade, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 2)
        evaluator.evaluate(at: 2.1)   // the kernel's output keeps its bits: nothing to show
        let held = AnimationValue.scalar(Double(Float(0.8)))   // the kernel's Float value
        #expect(evaluator.value(of: slot) == held && evaluator.changedSlots.isEmpty)
        try store.setModelValue(0.5, layer: layer, property: "opacity")
        #expect(evaluator.value(of: slot) == 0.5, "a model value shows at once")
        evaluator.evaluate(at: 2.2)
        #expect(evaluator.value(of: slot) == held, "the held value is shown again, though the kernel's bits did not change")
        #expect(Array(evaluator.changedSlots) == [slot], "listed once (a model set)")
        evaluator.evaluate(at: 2.3)
        #expect(evaluator.changedSlots.isEmpty)
    }

    @Test("exclusive rows stay right while their columns grow and rows move")
    func rowsFollowGrowthAndMoves() throws {
        let store = TrackStore()
        let evaluator = FrameEvaluator(store: store)
        var animations: [LayerID: BasicAnimation] = [:]
        func add(_ n: Int) throws {
            let layer = LayerID(UInt64(n + 1))
            let a = BasicAnimation(keyPath: "position", from: Point(x: Double(n), y: 0), to: Point(x: Double(n), y: 100), duration: 1)
            try store.add(a, layer: layer)
            animations[layer] = a
        }
        func check(at t: Double) throws {
            evaluator.evaluate(at: t)
            for (layer, a) in animations {
                let shown = try #require(evaluator.value(layer: layer, property: "position"))
                let expected = ReferenceEvaluator.presentationValue(ofProperty: "position", model: .point(.zero), animations: [a], at: t)
                #expect(PrecisionTable.maxDifference(shown, expected) < 1e-4, "\(layer) at \(t): \(shown) vs \(expected)")
            }
        }
        try add(0)
        try check(at: 0.25)
        for n in 1..<TestScale.count(debug: 70, release: 600) { try add(n) }   // the column doubles several times
        try check(at: 0.25)
        // Removing layers moves the column's last rows into their places.
        for n in stride(from: 0, to: animations.count, by: 3) {
            store.removeLayer(LayerID(UInt64(n + 1)))
            animations[LayerID(UInt64(n + 1))] = nil
        }
        try check(at: 0.25)
        try check(at: 0.5)
    }

    @Test("§8.4 a slot that goes from composed back to exclusive shows its remaining animation")
    func composedBackToExclusive() throws {
        let store = TrackStore(), layer = LayerID(1)
        let slot = try store.setModelValue(0, layer: layer, property: "opacity")
        var hold = BasicAnimation(keyPath: "opacity", from: 0.3, to: 0.3, duration: 10)
        hold.isRemovedOnCompletion = false
        var nudge = BasicAnimation(keyPath: "opacity", from: 0, to: 0.5, duration: 10)
        nudge.isAdditive = true
        try store.add(hold, layer: layer)
        let extra = try store.add(nudge, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 5)
        let composed = try #require(evaluator.value(of: slot))
        let expected = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: 0, animations: [hold, nudge], at: 5)
        #expect(PrecisionTable.maxDifference(composed, expected) < 1e-6 && abs(expected.components[0] - 0.55) < 1e-9, "0.3, then 0.25 added")
        store.remove(extra)
        evaluator.evaluate(at: 5)
        #expect(evaluator.value(of: slot) == .scalar(Double(Float(0.3))), "the kernel's value again")
        #expect(Array(evaluator.changedSlots) == [slot])
    }

    @Test("reads with forged handles (any raw value) find nothing, never memory that was not written")
    func forgedHandles() throws {
        let store = TrackStore()
        let live = try store.setModelValue(0.5, layer: LayerID(1), property: "opacity")
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0)
        var rng = SplitMix64(seed: 5)
        for _ in 0..<2_000 {
            let index = UInt64.random(in: 0..<40, using: &rng), generation = UInt64.random(in: 0..<3, using: &rng)
            let forged = SlotHandle(rawValue: generation << 32 | index)
            let expected: AnimationValue? = forged == live ? 0.5 : nil
            #expect(evaluator.value(of: forged) == expected && store.presentationValue(of: forged) == expected)
            #expect((evaluator.components(of: forged) != nil) == (forged == live))
        }
        #expect(evaluator.value(of: SlotHandle(rawValue: .max)) == nil)
    }

    @Test("the changed set is exact for values the reference evaluates (a whole-transform animation held at its end)")
    func changedSetForReferenceTracks() throws {
        let store = TrackStore(), layer = LayerID(1)
        let slot = try store.setModelValue(.transform(.identity), layer: layer, property: "transform")
        var turn = BasicAnimation(keyPath: "transform", from: Transform3D.identity,
                                  to: Transform3D.rotation(angle: 1, x: 0, y: 0, z: 1), duration: 1)
        turn.fillMode = .forwards
        turn.isRemovedOnCompletion = false
        try store.add(turn, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        #expect(Array(evaluator.changedSlots) == [slot])
        evaluator.evaluate(at: 0.6)
        #expect(Array(evaluator.changedSlots) == [slot])
        evaluator.evaluate(at: 2)
        #expect(Array(evaluator.changedSlots) == [slot], "the end value")
        evaluator.evaluate(at: 3)
        #expect(evaluator.changedSlots.isEmpty, "held: the same bits")
    }

    @Test("the changed set is exactly the rows whose bits changed, each once, over many blocks, with model sets, any chunking")
    func changedSetMatchesTheRows() throws {
        // 70 layers (five blocks of a batch, the last partial): some moving, some held, some
        // delayed; model values set between frames on moving, held and still slots.
        for chunks in [1, 3, 5] {
            let store = TrackStore()
            var slots: [SlotHandle] = []
            for l in 0..<70 {
                let layer = LayerID(UInt64(l + 1))
                slots.append(try store.setModelValue(0.25, layer: layer, property: "opacity"))
                guard l % 7 != 6 else { continue }   // a still slot
                var fade = BasicAnimation(keyPath: "opacity", from: 0, to: 1, duration: 1)
                fade.beginTime = l % 5 == 0 ? 0.5 : 0
                fade.fillMode = .forwards
                fade.isRemovedOnCompletion = false
                try store.add(fade, layer: layer)
            }
            let evaluator = FrameEvaluator(store: store, configuration: .init(parallelThreshold: 0, chunksPerBatch: chunks, maximumThreads: 2))
            var shown = slots.map { _ in UInt64(0) }
            for (frame, t) in [0.1, 0.2, 0.2, 0.7, 1.5, 1.6].enumerated() {
                if frame == 2 || frame == 4 {
                    // Model sets: on a moving slot, a held one and a still one (listed once each).
                    for l in [3, 10, 13] { try store.setModelValue(0.75, layer: LayerID(UInt64(l + 1)), property: "opacity") }
                }
                evaluator.evaluate(at: t)
                var expected = Set<SlotHandle>()
                for (k, slot) in slots.enumerated() {
                    let bits = try #require(evaluator.value(of: slot)?.components.first).bitPattern
                    if bits != shown[k] || frame == 0 { expected.insert(slot) }
                    shown[k] = bits
                }
                if frame == 2 || frame == 4 { expected.formUnion([3, 10, 13].map { slots[$0] }) }
                let listed = Array(evaluator.changedSlots)
                #expect(Set(listed).count == listed.count, "each once (frame \(frame), \(chunks) chunks)")
                #expect(Set(listed) == expected, "frame \(frame), \(chunks) chunks: \(Set(listed).symmetricDifference(expected).count) differ")
            }
            #expect(store.invariantViolations().isEmpty)
        }
    }

    @Test("the changed set is the frame's, read late: after animations were removed or added, and when the frame reaped or parked finished ones")
    func changedSetIsTheFramesWhenReadLate() throws {
        // The kernels' part of the list is written on its first read, or before a lane moves or
        // changes its slot: here finished animations are reaped inside each frame (their lanes
        // removed, the batch's last lane moved into each gap) before anything reads the list.
        for (chunks, parks) in [(1, false), (3, false), (3, true)] {
            let store = TrackStore()
            // Parked, a finished animation keeps its lane but no longer shows (its slot re-shown).
            store.parksFinishedAnimations = parks
            var slots: [SlotHandle] = []
            for l in 0..<80 {
                let layer = LayerID(UInt64(l + 1))
                slots.append(try store.setModelValue(0.25, layer: layer, property: "opacity"))
                slots.append(try store.setModelValue(.point(Point(x: -1, y: -1)), layer: layer, property: "position"))
                // Ends between 0.3 and 1.09 s, and is removed then (semantics §1.4).
                try store.add(BasicAnimation(keyPath: "opacity", from: 0, to: Double(l + 1), duration: 0.3 + 0.01 * Double(l)), layer: layer,
                              forKey: "fade")
                try store.add(BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: Double(l), y: 1), duration: 2),
                              layer: layer)
            }
            let configuration = FrameEvaluator.Configuration(parallelThreshold: 0, chunksPerBatch: chunks, maximumThreads: 2)
            let evaluator = FrameEvaluator(store: store, configuration: configuration)
            var shown: [[UInt64]] = slots.map { _ in [] }
            for (frame, t) in [0.1, 0.35, 0.5, 0.75, 1.2].enumerated() {
                evaluator.evaluate(at: t)
                var expected = Set<SlotHandle>()
                for (k, slot) in slots.enumerated() {
                    let bits = try #require(evaluator.value(of: slot)).components.map(\.bitPattern)
                    if bits != shown[k] { expected.insert(slot) }
                    shown[k] = bits
                }
                // Changes before the read.
                if frame == 1 {
                    for l in stride(from: 0, to: 80, by: 5) { store.removeAllAnimations(layer: LayerID(UInt64(l + 1))) }
                } else if frame == 2 {
                    for l in stride(from: 1, to: 80, by: 6) {
                        var more = BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 5, y: 5), duration: 1)
                        more.isAdditive = true
                        try store.add(more, layer: LayerID(UInt64(l + 1)))
                    }
                }
                let listed = Array(evaluator.changedSlots)
                #expect(Set(listed).count == listed.count, "each once (frame \(frame), \(chunks) chunks)")
                #expect(Set(listed) == expected, "frame \(frame), \(chunks) chunks: \(Set(listed).symmetricDifference(expected).count) differ")
                #expect(store.invariantViolations().isEmpty)
            }
            #expect(parks ? store.parkedAnimationCount > 0 : store.trackCount < 160, "finished animations were reaped or parked")
        }
    }
}
