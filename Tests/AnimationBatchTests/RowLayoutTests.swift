import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// Presentation rows kept in the order the kernels show them (Plan/RowLayout.swift): a pass moves
/// rows and nothing a reader sees, and vector-shown blocks give the bits scattered stores give.
@Suite("Row layout (rows in lane order)")
struct RowLayoutTests {
    /// A store whose columns are shared by several batches (position: basic, keyframe, spring and
    /// path; opacity: basic and spring), with composed slots (two animations on one key) and
    /// unanimated ones between them.
    static func store(layers: Int, keepsOrder: Bool) throws -> (TrackStore, [SlotHandle]) {
        let store = TrackStore()
        store.keepsRowsInLaneOrder = keepsOrder
        var rng = SplitMix64(seed: 41)
        func unit() -> Double { Double.random(in: 0..<1, using: &rng) }
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addCurve(to: Point(x: 90, y: 40), control1: Point(x: 10, y: 80), control2: Point(x: 60, y: -30))
        var slots: [SlotHandle] = []
        for l in 0..<layers {
            let layer = LayerID(UInt64(l + 1))
            slots.append(try store.setModelValue(.point(Point(x: Double(l), y: 1)), layer: layer, property: "position"))
            slots.append(try store.setModelValue(0.5, layer: layer, property: "opacity"))
            let begin = unit() * 0.5, duration = 0.5 + unit()
            switch l % 6 {
            case 0:
                try store.add(BasicAnimation(keyPath: "position", from: Point(x: unit() * 100, y: 0), to: Point(x: 0, y: unit() * 100),
                                             duration: duration), layer: layer)
            case 1:
                var k = KeyframeAnimation(keyPath: "position")
                k.values = (0..<5).map { _ in .point(Point(x: unit() * 50, y: unit() * 50)) }
                k.duration = duration
                k.beginTime = begin
                try store.add(k, layer: layer)
            case 2:
                var s = SpringAnimation(keyPath: "opacity")
                (s.fromValue, s.toValue) = (.scalar(unit()), .scalar(unit()))
                s.duration = duration
                try store.add(s, layer: layer)
            case 3:
                var k = KeyframeAnimation(keyPath: "position")
                k.path = path
                k.calculationMode = .paced
                k.duration = duration
                try store.add(k, layer: layer)
            case 4:
                // Composed: two animations on one key.
                try store.add(BasicAnimation(keyPath: "opacity", from: 0, to: 1, duration: duration), layer: layer)
                var more = BasicAnimation(keyPath: "opacity", from: 0, to: 0.25, duration: duration)
                more.isAdditive = true
                try store.add(more, layer: layer)
            default:
                // Colours (four components) on every other such layer; the rest unanimated.
                guard l % 12 == 5 else { break }
                slots.append(try store.setModelValue(.color(.clear), layer: layer, property: "backgroundColor"))
                try store.add(BasicAnimation(keyPath: "backgroundColor", from: Color(red: unit(), green: unit(), blue: unit(), alpha: 1),
                                             to: Color(red: 0, green: unit(), blue: 1, alpha: unit()), duration: duration), layer: layer)
            }
        }
        return (store, slots)
    }

    @Test("a pass moves rows and nothing a reader sees: values, models, changed sets and events, bit for bit, any chunking")
    func passKeepsWhatReadersSee() throws {
        let layers = TestScale.count(debug: 300, release: 5_000)
        for chunks in [nil, 3] as [Int?] {
            let (ordered, slots) = try Self.store(layers: layers, keepsOrder: true)
            let (scattered, twin) = try Self.store(layers: layers, keepsOrder: false)
            let configuration = FrameEvaluator.Configuration(parallelThreshold: 0, chunksPerBatch: chunks, maximumThreads: 2)
            let a = FrameEvaluator(store: ordered, configuration: configuration)
            let b = FrameEvaluator(store: scattered, configuration: configuration)
            for (frame, t) in [0.05, 0.3, 0.3, 0.35, 0.3, 0.8, 1.7].enumerated() {
                if frame == 2 {
                    for l in stride(from: 0, to: layers, by: 7) {
                        let layer = LayerID(UInt64(l + 1))
                        for store in [ordered, scattered] { try store.setModelValue(0.125, layer: layer, property: "opacity") }
                    }
                }
                if frame == 3 {
                    // Lanes leave blocks shown straight into rows: the blocks left behind compare
                    // with their rows again, not with outputs the kernels stopped writing.
                    for l in stride(from: 0, to: layers, by: 11) {
                        for store in [ordered, scattered] { store.removeAllAnimations(layer: LayerID(UInt64(l + 1))) }
                    }
                }
                a.evaluate(at: t)
                b.evaluate(at: t)
                for (x, y) in zip(slots, twin) {
                    let p = try #require(a.value(of: x)), q = try #require(b.value(of: y))
                    #expect(p.components.map(\.bitPattern) == q.components.map(\.bitPattern), "frame \(frame): \(p) vs \(q)")
                }
                #expect(Set(a.changedSlots) == Set(b.changedSlots.map { slots[twin.firstIndex(of: $0)!] }), "frame \(frame)")
                #expect(Array(a.events) == Array(b.events).map { $0 }, "frame \(frame)")
                #expect(ordered.invariantViolations().isEmpty, "\(ordered.invariantViolations())")
                if frame == 1 {
                    // Before anything finished: one pass after the store was built.
                    #expect(ordered.rowOrderPasses == 1)
                    #expect(ordered.contiguousBlocks >= 4, "blocks of one, two and four components shown by vector stores")
                }
            }
            #expect(ordered.rowOrderPasses >= 1)
            #expect(scattered.rowOrderPasses == 0 && scattered.contiguousBlocks == 0)
            // Every column's layers and values agree, whatever the rows' order.
            for property in ["position", "opacity", "backgroundColor"] {
                let p = try #require(ordered.presentation(of: property)), q = try #require(scattered.presentation(of: property))
                func byLayer(_ c: PresentationColumn) -> [LayerID: [UInt64]] {
                    Dictionary(uniqueKeysWithValues: (0..<c.count).map { (c.layer(atRow: $0)!, c.value(atRow: $0)!.components.map(\.bitPattern)) })
                }
                #expect(byLayer(p) == byLayer(q), "\(property)")
            }
        }
    }

    @Test("passes are rare: none for frames or changes that keep rows in place, a bounded number for churn")
    func passesAreAmortised() throws {
        let layers = TestScale.count(debug: 400, release: 4_000)
        let (store, slots) = try Self.store(layers: layers, keepsOrder: true)
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.1)
        #expect(store.rowOrderPasses == 1)
        for t in [0.2, 0.3, 0.35] { evaluator.evaluate(at: t) }
        #expect(store.rowOrderPasses == 1, "frames alone keep the order")
        // Churn: animations removed and added, a few per frame, over many frames.
        var changes = 0
        for frame in 0..<60 {
            let perFrame = max(5, layers / 80)
            for k in 0..<perFrame {
                let l = (frame * perFrame + k) * 37 % layers
                let layer = LayerID(UInt64(l + 1))
                store.removeAllAnimations(layer: layer)
                try store.add(BasicAnimation(keyPath: "position", from: Point.zero, to: Point(x: 5, y: 5), duration: 1), layer: layer)
                changes += 2
            }
            evaluator.evaluate(at: 0.4 + Double(frame) / 1_000)   // before any animation ends: nothing is reaped
            #expect(store.invariantViolations().isEmpty)
        }
        // A pass needs at least an eighth of the rows (64 at least) in layout changes since the
        // last one; re-animating a layer changes at most four lanes' rows (a lane removed and
        // unshown, one added and shown).
        let rows = slots.count, churned = changes / 2
        #expect(store.rowOrderPasses >= 2, "the churn lost the order at least once")
        #expect(store.rowOrderPasses <= 1 + 4 * churned / max(64, rows / 8), "\(store.rowOrderPasses) passes for \(churned) layers re-animated, \(rows) rows")
    }

    @Test("a block that leaves the order compares with its rows, not with outputs its kernel stopped writing",
          arguments: ["opacity", "position", "backgroundColor"])
    func leavingTheOrderComparesWithRows(property: String) throws {
        // One, two and four components: blocks of each are shown straight into their rows while
        // in order, leaving the output column behind.
        func value(_ x: Double) -> AnimationValue {
            switch property {
            case "position": .point(Point(x: x, y: -x))
            case "backgroundColor": .color(Color(red: x, green: x / 2, blue: x / 4, alpha: -x))
            default: .scalar(x)
            }
        }
        let store = TrackStore()
        store.keepsRowsInLaneOrder = false
        var slots: [SlotHandle] = []
        for l in 0..<64 {
            let layer = LayerID(UInt64(l + 1))
            slots.append(try store.setModelValue(value(0), layer: layer, property: property))
            var animation = BasicAnimation(keyPath: property)
            animation.duration = 1
            (animation.fromValue, animation.toValue) = (value(Double(l)), value(Double(l) + 1))
            try store.add(animation, layer: layer)
            // Another column in between, so that the rows start out of lane order.
            try store.setModelValue(1, layer: layer, property: "zPosition")
        }
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.25)   // the output column holds the values at 0.25
        store.keepsRowsInLaneOrder = true
        try store.setModelValue(5, layer: LayerID(64), property: "zPosition")   // a change: the next frame plans, and orders the rows
        evaluator.evaluate(at: 0.5)
        #expect(store.rowOrderPasses == 1 && store.contiguousBlocks > 0)
        evaluator.evaluate(at: 0.75)   // shown straight into the rows
        store.removeAllAnimations(layer: LayerID(1))   // the first block leaves the order
        evaluator.evaluate(at: 0.25)   // the values the output column still holds
        for (l, slot) in slots.enumerated() where l > 0 {
            let expected = value(Double(l) + 0.25).components.map { Double(Float($0)) }
            let shown = try #require(evaluator.value(of: slot))
            #expect(shown.components == expected, "layer \(l + 1): \(shown)")
        }
        #expect(store.invariantViolations().isEmpty)
    }
}
