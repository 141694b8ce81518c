import AnimationBatch
import AnimationCore
import AnimationWorkloads
import Testing

/// The store's lifecycle (semantics §1.2, §1.4, §8.1, §8.2): keys, replacement, removal of
/// animations, slots and layers, and events that end every animation exactly once.
@Suite("Track store lifecycle (keys, outcomes, reaping, removal)")
struct TrackStoreLifecycleTests {
    func fade(_ duration: Double = 1, removedOnCompletion: Bool = true, fill: FillMode = .removed) -> BasicAnimation {
        var a = BasicAnimation(keyPath: "opacity", from: 0, to: 1)
        a.duration = duration
        a.isRemovedOnCompletion = removedOnCompletion
        a.fillMode = fill
        return a
    }

    func events(_ evaluator: FrameEvaluator, at t: Double) -> [AnimationEvent] {
        evaluator.evaluate(at: t)
        return Array(evaluator.events)
    }

    @Test("§1.2 adding under a key that is taken replaces: the old one stops with outcome replaced")
    func addUnderTakenKeyReplaces() throws {
        let store = TrackStore(), layer = LayerID(1)
        let first = try store.add(fade(), layer: layer, forKey: "fade")
        let evaluator = FrameEvaluator(store: store)
        #expect(events(evaluator, at: 0.5) == [AnimationEvent(animation: first, kind: .started)])
        let second = try store.add(fade(2), layer: layer, forKey: "fade")
        #expect(store.animation(first) == nil, "the replaced handle is stale")
        #expect(store.animation(forKey: "fade", layer: layer) == second)
        #expect(store.animationKeys(layer: layer) == ["fade"])
        #expect(store.trackCount == 1)
        let frame = events(evaluator, at: 0.6)
        #expect(frame == [AnimationEvent(animation: first, kind: .stopped, outcome: .replaced),
                          AnimationEvent(animation: second, kind: .started)])
    }

    @Test("§8.2 keys are listed in add order; anonymous animations are never replaced")
    func keysInAddOrder() throws {
        let store = TrackStore(), layer = LayerID(3)
        try store.add(fade(), layer: layer, forKey: "b")
        try store.add(fade(), layer: layer)
        try store.add(fade(), layer: layer, forKey: "a")
        try store.add(fade(), layer: layer)
        #expect(store.animationKeys(layer: layer) == ["b", "a"])
        #expect(store.animations(of: layer).count == 4)
        #expect(store.removeAnimation(forKey: "b", layer: layer))
        #expect(!store.removeAnimation(forKey: "b", layer: layer))
        #expect(store.animationKeys(layer: layer) == ["a"])
        #expect(store.animationKeys(layer: LayerID(99)).isEmpty)
    }

    @Test("an invalid animation under a taken key leaves the old one in place")
    func invalidReplacementKeepsTheOld() throws {
        let store = TrackStore(), layer = LayerID(1)
        let old = try store.add(fade(), layer: layer, forKey: "k")
        var bad = fade()
        bad.repeatCount = -1
        #expect(throws: AnimationError.self) { try store.add(bad, layer: layer, forKey: "k") }
        #expect(store.animation(forKey: "k", layer: layer) == old)
    }

    @Test("replace: the old animation stops (replaced) and its handle goes stale; the new one starts once")
    func replaceReportsBothEnds() throws {
        let store = TrackStore(), layer = LayerID(1)
        let old = try store.add(fade(4), layer: layer, forKey: "k")
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 1)
        let new = try store.replace(old, with: fade(4))
        #expect(new != old && store.animation(old) == nil && store.key(of: new) == "k")
        #expect(events(evaluator, at: 1.1) == [AnimationEvent(animation: old, kind: .stopped, outcome: .replaced),
                                              AnimationEvent(animation: new, kind: .started)])
        #expect(events(evaluator, at: 1.2).isEmpty)
        #expect(throws: AnimationError.self) { try store.replace(old, with: fade()) }
    }

    @Test("retargeting in place (same type, key path and value kind) agrees with the reference and reports like any replace")
    func retargetInPlace() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(.point(Point(x: 5, y: 5)), layer: layer, property: "position")
        try store.setModelValue(0.5, layer: layer, property: "opacity")
        var move = BasicAnimation(keyPath: "position", from: Point.zero, to: Point(x: 100, y: 0), duration: 2)
        move.timingFunction = TimingFunction(name: .easeIn)
        var bounce = SpringAnimation(keyPath: "opacity")
        (bounce.fromValue, bounce.toValue, bounce.stiffness, bounce.damping) = (0, 1, 200, 12)
        bounce.duration = bounce.settlingDuration
        move.isRemovedOnCompletion = false   // still there after the checks below
        bounce.isRemovedOnCompletion = false
        let moving = try store.add(move, layer: layer, forKey: "move")
        let springing = try store.add(bounce, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 0.5)
        let tracks = store.trackCount
        // New targets, timing and curve; the spring stays in its regime (underdamped).
        var retargeted = move
        (retargeted.toValue, retargeted.beginTime, retargeted.duration) = (.point(Point(x: -40, y: 60)), 0.5, 1)
        retargeted.timingFunction = TimingFunction(name: .easeOut)
        retargeted.isAdditive = false
        var rebounced = bounce
        (rebounced.toValue, rebounced.beginTime, rebounced.stiffness) = (0.2, 0.5, 300)
        rebounced.duration = rebounced.settlingDuration
        let newMove = try store.replace(moving, with: retargeted)
        let newSpring = try store.replace(springing, with: rebounced)
        #expect(store.trackCount == tracks && newMove != moving && store.animation(moving) == nil && store.key(of: newMove) == "move")
        #expect(events(evaluator, at: 0.6) == [AnimationEvent(animation: moving, kind: .stopped, outcome: .replaced),
                                               AnimationEvent(animation: springing, kind: .stopped, outcome: .replaced),
                                               AnimationEvent(animation: newMove, kind: .started),
                                               AnimationEvent(animation: newSpring, kind: .started)])
        for t in [0.6, 0.9, 1.2, 1.6, 3.0] {
            evaluator.evaluate(at: t)
            let model: [String: AnimationValue] = ["position": .point(Point(x: 5, y: 5)), "opacity": 0.5]
            let expected = ReferenceEvaluator.presentationValues(model: model, animations: [retargeted, rebounced], at: t)
            for property in ["position", "opacity"] {
                let shown = try #require(evaluator.value(layer: layer, property: property))
                #expect(PrecisionTable.maxDifference(shown, expected[property]!) < 1e-3, "\(property) at \(t): \(shown) vs \(expected[property]!)")
            }
        }
        // Anything more than a retarget (another key path, kind or type) takes the general path.
        var fade = BasicAnimation(keyPath: "opacity", from: 0, to: 1, duration: 1)
        fade.beginTime = 3
        let faded = try store.replace(newSpring, with: fade)
        #expect(store.animation(faded) != nil && store.animation(newSpring) == nil)
        var invalid = retargeted
        invalid.duration = .infinity
        #expect(throws: AnimationError.self) { try store.replace(newMove, with: invalid) }
        #expect(store.animation(newMove) != nil, "an invalid retarget leaves the animation in place")
    }

    @Test("retarget(_:from:to:beginTime:) is replace with the same animation's copy: new values, same curve, fresh start")
    func typedRetarget() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(.point(Point(x: 5, y: 5)), layer: layer, property: "position")
        try store.setModelValue(0.5, layer: layer, property: "opacity")
        var move = BasicAnimation(keyPath: "position", from: Point.zero, to: Point(x: 100, y: 0), duration: 2)
        move.timingFunction = try TimingFunction(controlPoints: 0.3, -0.4, 0.6, 1.4)
        move.isRemovedOnCompletion = false
        var bounce = SpringAnimation(keyPath: "opacity")
        (bounce.fromValue, bounce.toValue, bounce.stiffness, bounce.damping) = (0, 1, 200, 12)
        bounce.duration = bounce.settlingDuration
        let moving = try store.add(move, layer: layer, forKey: "move")
        let springing = try store.add(bounce, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 0.5)
        // Mid-flight, from the value shown (as an implicit action does) to a new target.
        let shown = try #require(evaluator.value(layer: layer, property: "position"))
        let newMove = try store.retarget(moving, from: shown, to: .point(Point(x: -40, y: 60)), beginTime: 0.5)
        let newSpring = try store.retarget(springing, to: 0.2, beginTime: 0.5)   // from the value beneath
        #expect(store.key(of: newMove) == "move" && store.animation(moving) == nil)
        var expectedMove = move
        (expectedMove.fromValue, expectedMove.toValue, expectedMove.beginTime) = (shown, .point(Point(x: -40, y: 60)), 0.5)
        var expectedSpring = bounce
        (expectedSpring.fromValue, expectedSpring.toValue, expectedSpring.beginTime) = (nil, 0.2, 0.5)
        let stored = try #require(store.animation(newMove) as? BasicAnimation)
        #expect(stored.fromValue == shown && stored.toValue == expectedMove.toValue && stored.byValue == nil)
        #expect(stored.beginTime == 0.5 && stored.duration == 2 && stored.timingFunction == move.timingFunction)
        let storedSpring = try #require(store.animation(newSpring) as? SpringAnimation)
        #expect(storedSpring.fromValue == nil && storedSpring.toValue == 0.2 && storedSpring.stiffness == 200)
        #expect(events(evaluator, at: 0.6) == [AnimationEvent(animation: moving, kind: .stopped, outcome: .replaced),
                                               AnimationEvent(animation: springing, kind: .stopped, outcome: .replaced),
                                               AnimationEvent(animation: newMove, kind: .started),
                                               AnimationEvent(animation: newSpring, kind: .started)])
        for t in [0.6, 1.0, 1.7, 2.4, 3.0] {
            evaluator.evaluate(at: t)
            let model: [String: AnimationValue] = ["position": .point(Point(x: 5, y: 5)), "opacity": 0.5]
            let expected = ReferenceEvaluator.presentationValues(model: model, animations: [expectedMove, expectedSpring], at: t)
            for property in ["position", "opacity"] {
                let value = try #require(evaluator.value(layer: layer, property: property))
                #expect(PrecisionTable.maxDifference(value, expected[property]!) < 1e-4, "\(property) at \(t): \(value) vs \(expected[property]!)")
            }
        }
        // Errors name what is wrong; the animation stays.
        #expect(throws: AnimationError.self) { try store.retarget(moving, to: .point(.zero), beginTime: 1) }   // stale
        #expect(throws: AnimationError.self) { try store.retarget(newMove, to: 3, beginTime: 1) }   // a scalar for a point
        #expect(store.animation(newMove) != nil)
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 10, y: 0))
        let fly = try store.add(KeyframeAnimation(keyPath: "position", path: path, duration: 1), layer: LayerID(2))
        do {
            try store.retarget(fly, to: .point(.zero), beginTime: 1)
            Issue.record("a keyframe animation has no from and to")
        } catch let error as AnimationError {
            #expect(error.field == "handle")
        }
    }

    /// A store of `layers` layers, each with a basic fade and a spring slide; every third layer's
    /// opacity also has an additive nudge (a composed slot: a to-only retarget there takes the
    /// general path, §4.1). The same seed builds the same store.
    func retargetFixture(layers: Int, seed: UInt64) throws -> (store: TrackStore, handles: [AnimationHandle], layers: [LayerID]) {
        var rng = SplitMix64(seed: seed)
        func number(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
        let store = TrackStore()
        var handles: [AnimationHandle] = [], ids: [LayerID] = []
        for k in 0..<layers {
            let layer = LayerID(UInt64(k + 1))
            ids.append(layer)
            try store.setModelValue(.scalar(number(0...1)), layer: layer, property: "opacity")
            try store.setModelValue(.point(Point(x: number(-50...50), y: 0)), layer: layer, property: "position")
            var fade = BasicAnimation(keyPath: "opacity", from: number(0...1), to: number(0...1), duration: number(0.5...2))
            fade.isRemovedOnCompletion = k % 2 == 0
            var slide = SpringAnimation(keyPath: "position")
            (slide.toValue, slide.stiffness, slide.damping, slide.duration) = (.point(Point(x: number(-50...50), y: 9)), 150, 14, 2)
            handles.append(try store.add(fade, layer: layer))
            handles.append(try store.add(slide, layer: layer))
            if k % 3 == 0 {
                var nudge = BasicAnimation(keyPath: "opacity", from: 0.0, to: number(-0.2...0.2), duration: 3)
                nudge.isAdditive = true
                try store.add(nudge, layer: layer)
            }
        }
        return (store, handles, ids)
    }

    /// A retarget for each of `retargetFixture`'s handles, in order: a fade's opacity, then a
    /// slide's position.
    func retargetTargets(count: Int) -> [AnimationValue] {
        (0..<count).map { $0 % 2 == 0 ? .scalar(0.25) : .point(Point(x: 1, y: 2)) }
    }

    @Test("retargeting many at once gives the handles, events, stored animations and values of the calls one by one")
    func retargetManyMatchesOneByOne() throws {
        let layers = TestScale.count(debug: 30, release: 300)
        let one = try retargetFixture(layers: layers, seed: 77), many = try retargetFixture(layers: layers, seed: 77)
        let oneFrames = FrameEvaluator(store: one.store), manyFrames = FrameEvaluator(store: many.store)
        oneFrames.evaluate(at: 0.4)
        manyFrames.evaluate(at: 0.4)
        var rng = SplitMix64(seed: 5)
        var oneHandles = one.handles, manyHandles = many.handles
        // Round 1 from the value beneath; round 2 from given values; round 3 again from beneath,
        // over the values round 2 left in the lanes.
        for (round, begin) in [0.5, 0.9, 1.3].enumerated() {
            let targets: [AnimationValue] = oneHandles.indices.map { k in
                k % 2 == 0 ? .scalar(Double.random(in: 0...1, using: &rng))
                           : .point(Point(x: Double.random(in: -80...80, using: &rng), y: Double.random(in: -80...80, using: &rng)))
            }
            let sources: [AnimationValue]? = round == 1 ? targets.map { $0.repeated(times: 0.5) } : nil
            for k in oneHandles.indices {
                oneHandles[k] = try one.store.retarget(oneHandles[k], from: sources?[k], to: targets[k], beginTime: begin)
            }
            try many.store.retarget(&manyHandles, from: sources, to: targets, beginTime: begin)
            #expect(oneHandles == manyHandles, "round \(round): the same handles")
            for k in oneHandles.indices {
                let a = try #require(one.store.animation(oneHandles[k])), b = try #require(many.store.animation(manyHandles[k]))
                if let a = a as? BasicAnimation, let b = b as? BasicAnimation {
                    #expect(a.fromValue == b.fromValue && a.toValue == b.toValue && a.beginTime == b.beginTime && b.toValue == targets[k])
                } else if let a = a as? SpringAnimation, let b = b as? SpringAnimation {
                    #expect(a.fromValue == b.fromValue && a.toValue == b.toValue && a.beginTime == b.beginTime && b.toValue == targets[k])
                } else {
                    Issue.record("round \(round), \(k): \(type(of: a)) and \(type(of: b))")
                }
            }
            for t in [begin, begin + 0.15, begin + 0.3] {
                oneFrames.evaluate(at: t)
                manyFrames.evaluate(at: t)
                #expect(Array(oneFrames.events) == Array(manyFrames.events), "round \(round) at \(t): the same events")
                for layer in one.layers {
                    for property in ["opacity", "position"] {
                        #expect(oneFrames.value(layer: layer, property: property) == manyFrames.value(layer: layer, property: property),
                                "round \(round), layer \(layer), \(property) at \(t)")
                    }
                }
            }
        }
    }

    @Test("retargeting packed components of one kind is the array form: the same handles, values and errors")
    func retargetPackedComponents() throws {
        let layers = TestScale.count(debug: 24, release: 240)
        let array = try retargetFixture(layers: layers, seed: 31), packed = try retargetFixture(layers: layers, seed: 31)
        let arrayFrames = FrameEvaluator(store: array.store), packedFrames = FrameEvaluator(store: packed.store)
        arrayFrames.evaluate(at: 0.2)
        packedFrames.evaluate(at: 0.2)
        // The springs on `position` (every second handle), from given points and from beneath.
        var arrayHandles = stride(from: 1, to: array.handles.count, by: 2).map { array.handles[$0] }
        var packedHandles = stride(from: 1, to: packed.handles.count, by: 2).map { packed.handles[$0] }
        let targets = arrayHandles.indices.map { Point(x: Double($0) * 3, y: -Double($0)) }
        let sources = arrayHandles.indices.map { Point(x: -Double($0), y: 0.5) }
        let numbers = targets.flatMap { [$0.x, $0.y] }, sourceNumbers = sources.flatMap { [$0.x, $0.y] }
        try array.store.retarget(&arrayHandles, from: sources.map { .point($0) }, to: targets.map { .point($0) }, beginTime: 0.25)
        try packedHandles.withUnsafeMutableBufferPointer { h in
            try sourceNumbers.withUnsafeBufferPointer { from in
                try numbers.withUnsafeBufferPointer { to in
                    try packed.store.retarget(h, kind: .point, fromComponents: from, toComponents: to, beginTime: 0.25)
                }
            }
        }
        #expect(arrayHandles == packedHandles)
        try array.store.retarget(&arrayHandles, to: targets.reversed().map { .point($0) }, beginTime: 0.5)
        try packedHandles.withUnsafeMutableBufferPointer { h in
            try Array(targets.reversed().flatMap { [$0.x, $0.y] }).withUnsafeBufferPointer { to in
                try packed.store.retarget(h, kind: .point, toComponents: to, beginTime: 0.5)
            }
        }
        #expect(arrayHandles == packedHandles)
        for t in [0.5, 0.8, 1.4] {
            arrayFrames.evaluate(at: t)
            packedFrames.evaluate(at: t)
            #expect(Array(arrayFrames.events) == Array(packedFrames.events))
            for layer in array.layers {
                #expect(arrayFrames.value(layer: layer, property: "position") == packedFrames.value(layer: layer, property: "position"),
                        "layer \(layer) at \(t)")
            }
        }
        for (k, handle) in packedHandles.enumerated() {
            let stored = try #require(packed.store.animation(handle) as? SpringAnimation)
            #expect(stored.toValue == .point(targets[targets.count - 1 - k]) && stored.fromValue == nil)
        }
        // Errors: the count of numbers, and a kind the animations do not animate.
        #expect(refusedField {
            try packedHandles.withUnsafeMutableBufferPointer { h in
                try Array(numbers.dropLast()).withUnsafeBufferPointer { try packed.store.retarget(h, kind: .point, toComponents: $0, beginTime: 1) }
            }
        } == "targets")
        #expect(refusedField {
            try packedHandles.withUnsafeMutableBufferPointer { h in
                try Array(numbers.prefix(h.count)).withUnsafeBufferPointer { try packed.store.retarget(h, kind: .scalar, toComponents: $0, beginTime: 1) }
            }
        } == "targets[0]")
    }

    @Test("retargeting many at once names the entry that fails and then does nothing")
    func retargetManyErrors() throws {
        let fixture = try retargetFixture(layers: 6, seed: 9)
        let store = fixture.store
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.3)
        var handles = fixture.handles
        let targets = retargetTargets(count: handles.count)
        #expect(refusedField { try store.retarget(&handles, to: Array(targets.dropLast()), beginTime: 1) } == "targets")
        #expect(refusedField { try store.retarget(&handles, from: [0.5], to: targets, beginTime: 1) } == "sources")
        #expect(refusedField { try store.retarget(&handles, to: targets, beginTime: .nan) } == "beginTime")

        var wrongKind = targets
        wrongKind[5] = 3   // a number for a position
        #expect(refusedField { try store.retarget(&handles, to: wrongKind, beginTime: 1) } == "targets[5]")
        var wrongSource = targets
        wrongSource[2] = .point(.zero)   // a position for an opacity
        #expect(refusedField { try store.retarget(&handles, from: wrongSource, to: targets, beginTime: 1) } == "sources[2]")
        var twice = handles
        twice[7] = twice[3]
        #expect(refusedField { try store.retarget(&twice, to: targets, beginTime: 1) } == "handles[7]")
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 10, y: 0))
        var withKeyframes = handles
        withKeyframes[4] = try store.add(KeyframeAnimation(keyPath: "position", path: path, duration: 1), layer: LayerID(99))
        #expect(refusedField { try store.retarget(&withKeyframes, to: targets.enumerated().map { $0.offset == 4 ? .point(.zero) : $0.element },
                                                  beginTime: 1) } == "handles[4]")
        #expect(handles == fixture.handles && twice[..<7] == fixture.handles[..<7], "no handle changed")
        #expect(fixture.handles.allSatisfy { store.animation($0) != nil }, "every animation is as it was")
        evaluator.evaluate(at: 0.35)
        #expect(evaluator.events.allSatisfy { $0.kind != .stopped }, "nothing was replaced")

        // Then all at once: every old handle goes stale.
        try store.retarget(&handles, to: targets, beginTime: 1)
        #expect(fixture.handles.allSatisfy { store.animation($0) == nil })
        var stale = fixture.handles
        #expect(refusedField { try store.retarget(&stale, to: targets, beginTime: 2) } == "handles[0]")
    }

    @Test("a retarget to a value beyond ±1e38 is refused as an added animation's is, on the columns' path and the replace's alike, before any entry is done")
    func retargetBeyondRangeIsRefusedFirst() throws {
        // The C-interface fuzzer's case: two entries, the second beyond range. The first was
        // retargeted (its stop reported, its id moved on) before the second's replacement refused
        // its value, and the error left the caller holding a stale id with no new one.
        let fixture = try retargetFixture(layers: 4, seed: 5)
        let store = fixture.store
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.3)
        let targets = retargetTargets(count: fixture.handles.count)
        for (k, huge) in [(7, AnimationValue.point(Point(x: 1, y: .greatestFiniteMagnitude))), (4, .scalar(-2e38)), (0, .scalar(1e39))] {
            var handles = fixture.handles
            var beyond = targets
            beyond[k] = huge
            #expect(refusedField { try store.retarget(&handles, to: beyond, beginTime: 1) } == "targets[\(k)]")
            #expect(refusedField { try store.retarget(&handles, from: beyond, to: targets, beginTime: 1) } == "sources[\(k)]")
            #expect(handles == fixture.handles, "no handle changed")
            // One at a time: the columns (an exclusive basic track) and a replacement refuse alike.
            #expect(refusedField { try store.retarget(fixture.handles[k], to: huge, beginTime: 1) } == "toValue")
            #expect(refusedField { try store.retarget(fixture.handles[k], from: huge, to: targets[k], beginTime: 1) } == "fromValue")
        }
        // The packed form: the springs on `position`, the last point beyond range.
        var springs = stride(from: 1, to: fixture.handles.count, by: 2).map { fixture.handles[$0] }
        var numbers: [Double] = springs.indices.flatMap { [Double($0), 1.0] }
        numbers[numbers.count - 1] = 3e38
        let packedField = refusedField {
            try springs.withUnsafeMutableBufferPointer { h in
                try numbers.withUnsafeBufferPointer { try store.retarget(h, kind: .point, toComponents: $0, beginTime: 1) }
            }
        }
        #expect(packedField == "targets[\(springs.count - 1)]")
        #expect(springs == stride(from: 1, to: fixture.handles.count, by: 2).map { fixture.handles[$0] })
        #expect(fixture.handles.allSatisfy { store.animation($0) != nil }, "every animation is as it was")
        evaluator.evaluate(at: 0.35)
        #expect(evaluator.events.allSatisfy { $0.kind != .stopped }, "nothing was replaced")
        // Within range is done, as before.
        var handles = fixture.handles
        var edge = targets
        edge[1] = .point(Point(x: 1e38, y: -1e38))
        try store.retarget(&handles, to: edge, beginTime: 1)
        #expect(fixture.handles.allSatisfy { store.animation($0) == nil })
    }

    @Test("retargets mixed with model sets, replaces, removals and animations added on the same slots agree with the reference")
    func retargetSequencesAgree() throws {
        var rng = SplitMix64(seed: 410)
        func number(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
        let store = TrackStore()
        let evaluator = FrameEvaluator(store: store)
        let layers = 24
        // What the reference needs: each layer's model and its live animations in add order.
        var models: [[String: AnimationValue]] = []
        var live: [[(handle: AnimationHandle, animation: any Animation)]] = []
        for k in 0..<layers {
            let layer = LayerID(UInt64(k + 1))
            let model: [String: AnimationValue] = ["opacity": .scalar(number(0...1)), "position": .point(Point(x: number(-50...50), y: 0))]
            for (property, value) in model { try store.setModelValue(value, layer: layer, property: property) }
            var fade = BasicAnimation(keyPath: "opacity", from: number(0...1), to: number(0...1), duration: number(0.5...2))
            fade.isRemovedOnCompletion = false
            var slide = SpringAnimation(keyPath: "position")
            (slide.toValue, slide.stiffness, slide.damping) = (.point(Point(x: number(-50...50), y: number(-50...50))), 150, 14)
            slide.duration = 2
            slide.isRemovedOnCompletion = false
            models.append(model)
            live.append([(try store.add(fade, layer: layer), fade), (try store.add(slide, layer: layer), slide)])
        }
        var t = 0.0
        for step in 0..<TestScale.count(debug: 30, release: 200) {
            t += 0.05
            let k = Int.random(in: 0..<layers, using: &rng), layer = LayerID(UInt64(k + 1))
            let j = Int.random(in: 0..<live[k].count, using: &rng)
            switch number(0...1) {
            case ..<0.45:   // retarget, from the shown value or from the value beneath
                let entry = live[k][j]
                guard let property = entry.animation as? any PropertyAnimation else { continue }
                let name = AnimationKeyPath.split(property.keyPath).property
                let shown = evaluator.value(layer: layer, property: name)!
                let to: AnimationValue = shown.kind == .scalar ? .scalar(number(0...1)) : .point(Point(x: number(-50...50), y: number(-50...50)))
                let from: AnimationValue? = Bool.random(using: &rng) ? shown : nil
                let handle = try store.retarget(entry.handle, from: from, to: to, beginTime: t)
                let stored = try #require(store.animation(handle))
                live[k][j] = (handle, stored)
                if let b = stored as? BasicAnimation { #expect(b.toValue == to && b.fromValue == from && b.beginTime == t) }
                if let s = stored as? SpringAnimation { #expect(s.toValue == to && s.fromValue == from && s.beginTime == t) }
            case ..<0.6:   // a new model under the animations
                let value: AnimationValue = .scalar(number(0...1))
                try store.setModelValue(value, layer: layer, property: "opacity")
                models[k]["opacity"] = value
            case ..<0.75:   // another animation on the same slot (the slot becomes composed)
                var nudge = BasicAnimation(keyPath: "opacity", from: 0.0, to: number(-0.2...0.2), duration: 1)
                nudge.isAdditive = true
                nudge.beginTime = t
                nudge.isRemovedOnCompletion = false
                live[k].append((try store.add(nudge, layer: layer), nudge))
            case ..<0.85 where live[k].count > 1:
                #expect(store.remove(live[k][j].handle))
                live[k].remove(at: j)
            default:   // a replace of the retargeted animation by its own stored form
                let entry = live[k][j]
                let handle = try store.replace(entry.handle, with: try #require(store.animation(entry.handle)))
                live[k][j] = (handle, store.animation(handle)!)
            }
            evaluator.evaluate(at: t)
            for k in 0..<layers {
                let expected = ReferenceEvaluator.presentationValues(model: models[k], animations: live[k].map(\.animation), at: t)
                for property in ["opacity", "position"] {
                    let shown = evaluator.value(layer: LayerID(UInt64(k + 1)), property: property)!
                    #expect(PrecisionTable.maxDifference(shown, expected[property]!) <= 1e-3,
                            "step \(step), layer \(k), \(property): \(shown) vs \(expected[property]!)")
                }
            }
        }
    }

    @Test("§4.1 a retarget on a composed slot that becomes to-only composes over the value beneath")
    func retargetChangesHowATrackComposes() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(.point(Point(x: 5, y: 5)), layer: layer, property: "position")
        var x = BasicAnimation(keyPath: "position.x", from: 0, to: 50, duration: 2)
        x.isRemovedOnCompletion = false
        var move = BasicAnimation(keyPath: "position", from: Point.zero, to: Point(x: 100, y: 100), duration: 2)
        move.isRemovedOnCompletion = false
        try store.add(x, layer: layer)
        let moving = try store.add(move, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        var toOnly = move
        toOnly.fromValue = nil   // from the value beneath (§4.1): recomputed each frame
        toOnly.toValue = .point(Point(x: -20, y: 40))
        try store.replace(moving, with: toOnly)
        for t in [0.5, 1.0, 1.5] {
            evaluator.evaluate(at: t)
            let expected = ReferenceEvaluator.presentationValue(ofProperty: "position", model: .point(Point(x: 5, y: 5)),
                                                                animations: [x, toOnly], at: t)
            let shown = try #require(evaluator.value(layer: layer, property: "position"))
            #expect(PrecisionTable.maxDifference(shown, expected) < 1e-3, "at \(t): \(shown) vs \(expected)")
        }
    }

    @Test("§1.4 an animation removed on completion is reaped in the frame that finishes it")
    func removedOnCompletionIsReaped() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(0.25, layer: layer, property: "opacity")
        let a = try store.add(fade(1), layer: layer, forKey: "fade")
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 0.5)
        #expect(store.trackCount == 1)
        #expect(events(evaluator, at: 1.5) == [AnimationEvent(animation: a, kind: .stopped, outcome: .finished)])
        #expect(store.trackCount == 0 && store.animationCount == 0, "tracks freed in the finishing frame")
        #expect(store.animation(a) == nil && store.animationKeys(layer: layer).isEmpty)
        #expect(evaluator.value(layer: layer, property: "opacity") == 0.25, "the model shows (§8.5)")
        #expect(!store.remove(a), "no second stop")
        #expect(events(evaluator, at: 0.5).isEmpty && events(evaluator, at: 2).isEmpty)
        #expect(evaluator.value(layer: layer, property: "opacity") == 0.25)
    }

    @Test("§8.1 seeking back and forth reports a start and a finish once each")
    func seekingReportsEachEndOnce() throws {
        let store = TrackStore(), layer = LayerID(1)
        let a = try store.add(fade(1, removedOnCompletion: false, fill: .both), layer: layer)
        let evaluator = FrameEvaluator(store: store)
        var all: [AnimationEvent] = []
        for t in [-1.0, 0.5, 2, 0.2, -3, 0.7, 5, 1.5, -1] { all += events(evaluator, at: t) }
        #expect(all == [AnimationEvent(animation: a, kind: .started), AnimationEvent(animation: a, kind: .stopped, outcome: .finished)])
        #expect(store.animation(a) != nil, "not removed on completion: it stays")
        evaluator.evaluate(at: 0.5)
        #expect(abs(evaluator.value(layer: layer, property: "opacity")!.scalarValue! - 0.5) < 1e-6, "values follow the time")
        #expect(store.hasFinished(a) == true)
        #expect(store.remove(a))
        #expect(events(evaluator, at: 0.5).isEmpty, "§8.1: its stop was the finish; removing it reports no second one")
    }

    @Test("§8.1 an animation removed before its end stops once, with outcome removed")
    func removedEarlyStopsOnce() throws {
        let store = TrackStore(), layer = LayerID(1)
        let a = try store.add(fade(3, removedOnCompletion: false, fill: .forwards), layer: layer)
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 1)
        #expect(store.hasFinished(a) == false)
        #expect(store.remove(a))
        #expect(events(evaluator, at: 5) == [AnimationEvent(animation: a, kind: .stopped, outcome: .removed)])
    }

    @Test("groups report their start and finish once, however the time moves")
    func groupsReportOnce() throws {
        let store = TrackStore(), layer = LayerID(1)
        var group = AnimationGroup(animations: [fade(1)], duration: 1)
        group.isRemovedOnCompletion = false
        group.fillMode = .forwards
        let g = try store.add(group, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        var all: [AnimationEvent] = []
        for t in [0.5, 2, 0.5, 3, -1, 0.1] { all += events(evaluator, at: t) }
        #expect(all == [AnimationEvent(animation: g, kind: .started), AnimationEvent(animation: g, kind: .stopped, outcome: .finished)])
    }

    @Test("a group removed on completion is reaped with its nodes")
    func groupsAreReaped() throws {
        let store = TrackStore(), layer = LayerID(1)
        let group = AnimationGroup(animations: [fade(1), BasicAnimation(keyPath: "position", from: Point.zero,
                                                                         to: Point(x: 10, y: 0), duration: 1)], duration: 1)
        let g = try store.add(group, layer: layer)
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 0.5)
        #expect(store.trackCount == 2)
        #expect(events(evaluator, at: 1.2) == [AnimationEvent(animation: g, kind: .stopped, outcome: .finished)])
        #expect(store.trackCount == 0 && store.animationCount == 0)
        #expect(events(evaluator, at: 0.5).isEmpty)
    }

    @Test("§8.1 a group added after a finished group was reaped reports its own start and finish (its node's storage is reused)")
    func reusedGroupNodeReportsAnew() throws {
        let store = TrackStore(), layer = LayerID(1)
        let first = try store.add(AnimationGroup(animations: [fade(1)], duration: 1), layer: layer)
        let evaluator = FrameEvaluator(store: store)
        #expect(events(evaluator, at: 0.5) == [AnimationEvent(animation: first, kind: .started)])
        #expect(events(evaluator, at: 1.5) == [AnimationEvent(animation: first, kind: .stopped, outcome: .finished)])
        #expect(store.animationCount == 0, "reaped, its node freed")
        _ = events(evaluator, at: 1.6)   // the frame that drops the freed node from the order
        var second = AnimationGroup(animations: [fade(1)], duration: 1)
        second.beginTime = 2
        let g = try store.add(second, layer: layer)
        #expect(events(evaluator, at: 2.5) == [AnimationEvent(animation: g, kind: .started)])
        #expect(events(evaluator, at: 3.5) == [AnimationEvent(animation: g, kind: .stopped, outcome: .finished)])
    }

    @Test("with reaping off, finished animations stay and a timeline can be sought back")
    func reapingOff() throws {
        let store = TrackStore(), layer = LayerID(1)
        try store.add(fade(1), layer: layer)
        let evaluator = FrameEvaluator(store: store, configuration: .init(reapsFinishedAnimations: false))
        evaluator.evaluate(at: 2)
        #expect(store.animationCount == 1)
        #expect(evaluator.value(layer: layer, property: "opacity") == 1, "§1.4: nothing shows after the end")
        evaluator.evaluate(at: 0.25)
        #expect(abs(evaluator.value(layer: layer, property: "opacity")!.scalarValue! - 0.25) < 1e-6)
        #expect(evaluator.events.isEmpty, "its start and finish were reported already")
    }

    @Test("removeLayer cancels every animation on the layer, frees its slots, and its handles go stale")
    func removeLayerCancels() throws {
        let store = TrackStore(), layer = LayerID(7), other = LayerID(8)
        try store.setModelValue(.point(Point(x: 1, y: 2)), layer: layer, property: "position")
        let slot = try store.setModelValue(0.5, layer: layer, property: "opacity")
        let a = try store.add(fade(3), layer: layer, forKey: "f")
        let b = try store.add(BasicAnimation(keyPath: "position.x", from: 0, to: 5, duration: 3), layer: layer)
        let c = try store.add(fade(3), layer: other)
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 0.5)
        #expect(store.removeLayer(layer))
        #expect(!store.removeLayer(layer))
        #expect(store.animation(a) == nil && store.animation(b) == nil && store.animation(c) != nil)
        #expect(store.modelValue(of: slot) == nil && evaluator.value(of: slot) == nil)
        #expect(store.slots(of: layer).isEmpty && store.slotCount == 1 && store.layerCount == 1)
        #expect(store.presentation(of: "position")?.count == 0)
        #expect(events(evaluator, at: 0.6) == [AnimationEvent(animation: a, kind: .stopped, outcome: .cancelled),
                                              AnimationEvent(animation: b, kind: .stopped, outcome: .cancelled)])
        // The freed slot's index is reused with a new generation: the old handle stays stale.
        let reused = try store.setModelValue(0.75, layer: LayerID(9), property: "opacity")
        #expect(reused != slot && evaluator.value(of: slot) == nil && evaluator.value(of: reused) == 0.75)
    }

    @Test("removeSlot cancels the animations with a track on it; a path's rotation link is dropped")
    func removeSlotCancels() throws {
        let store = TrackStore(), layer = LayerID(1)
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 0, y: 100))
        let orbit = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, rotationMode: .auto, duration: 2)
        let transform = try store.setModelValue(.transform(.identity), layer: layer, property: "transform")
        let moving = try store.add(orbit, layer: layer)
        let scaling = try store.add(BasicAnimation(keyPath: "transform.scale", from: 1, to: 2, duration: 5), layer: layer)
        let evaluator = FrameEvaluator(store: store)
        _ = events(evaluator, at: 0.5)
        #expect(store.removeSlot(transform))
        #expect(!store.removeSlot(transform))
        #expect(store.animation(scaling) == nil && store.animation(moving) != nil)
        #expect(events(evaluator, at: 0.6) == [AnimationEvent(animation: scaling, kind: .stopped, outcome: .cancelled)])
        #expect(store.slot(layer: layer, property: "transform") == nil)
        let y = evaluator.value(layer: layer, property: "position")!.components[1]
        #expect(abs(y - 30) < 1e-3, "the path animation goes on: \(y)")
    }

    @Test("§5.7 a rotation mode turns a transform slot created after the animation, as the reference does")
    func rotationFollowsLateTransformSlot() throws {
        var path = Path()
        path.move(to: .zero)
        path.addLine(to: Point(x: 0, y: 100))   // straight down: the tangent angle is π/2
        let orbit = KeyframeAnimation(keyPath: "position", path: path, calculationMode: .paced, rotationMode: .auto, duration: 2)
        for transformFirst in [true, false] {
            let store = TrackStore(), layer = LayerID(1)
            if transformFirst { try store.setModelValue(.transform(.identity), layer: layer, property: "transform") }
            try store.add(orbit, layer: layer)
            if !transformFirst { try store.setModelValue(.transform(.identity), layer: layer, property: "transform") }
            let evaluator = FrameEvaluator(store: store)
            evaluator.evaluate(at: 0.5)
            let expected = ReferenceEvaluator.presentationValues(model: ["position": .point(.zero), "transform": .transform(.identity)],
                                                                 animations: [orbit], at: 0.5)["transform"]!
            let shown = evaluator.value(layer: layer, property: "transform")!
            #expect(PrecisionTable.maxDifference(shown, expected) < 1e-5, "transform first: \(transformFirst)")
            #expect(shown != .transform(.identity))
        }
    }

    @Test("stale handles are refused everywhere")
    func staleHandlesAreRefused() throws {
        let store = TrackStore()
        let a = try store.add(fade(), layer: LayerID(1))
        #expect(store.remove(a))
        #expect(!store.remove(a) && store.animation(a) == nil && store.key(of: a) == nil && store.layer(of: a) == nil)
        #expect(throws: AnimationError.self) { try store.replace(a, with: fade()) }
        let forged = AnimationHandle(rawValue: 0xFFFF_FFFF_0000_0000)
        #expect(!store.remove(forged))
        #expect(store.presentationValue(of: SlotHandle(rawValue: 0x7FFF_FFFF)) == nil)
        #expect(!store.removeSlot(SlotHandle(rawValue: 12345)))
    }

    @Test("a new slot takes the catalog's kind: a wrong kind is refused, naming the value")
    func catalogKinds() throws {
        let store = TrackStore()
        #expect(throws: AnimationError.self) { try store.setModelValue(.point(.zero), layer: LayerID(1), property: "opacity") }
        try store.setModelValue(1, layer: LayerID(1), property: "progress")
        #expect(throws: AnimationError.self) { try store.setModelValue(.point(.zero), layer: LayerID(2), property: "progress") }
    }

    @Test("§1.1 a model set through a slot handle is a model set by layer and key; a stale handle or another kind changes nothing")
    func modelThroughSlotHandle() throws {
        let byKey = TrackStore(), byHandle = TrackStore()
        var handles: [SlotHandle] = []
        for store in [byKey, byHandle] {
            handles.append(try store.setModelValue(0.25, layer: LayerID(1), property: "opacity"))
            _ = try store.add(fade(1), layer: LayerID(1), forKey: "fade")
        }
        let keyFrames = FrameEvaluator(store: byKey), handleFrames = FrameEvaluator(store: byHandle)
        keyFrames.evaluate(at: 0.25)
        handleFrames.evaluate(at: 0.25)
        try byKey.setModelValue(0.75, layer: LayerID(1), property: "opacity")
        #expect(byHandle.setModelValue(0.75, slot: handles[1]))
        #expect(byHandle.presentationValue(of: handles[1]) == byKey.presentationValue(of: handles[0]))
        for t in [0.5, 0.75, 1.25] {
            keyFrames.evaluate(at: t)
            handleFrames.evaluate(at: t)
            #expect(byHandle.presentationValue(of: handles[1]) == byKey.presentationValue(of: handles[0]), "t = \(t)")
        }
        #expect(byHandle.modelValue(of: handles[1]) == .scalar(0.75))
        // Another kind: refused, the model stays.
        #expect(!byHandle.setModelValue(.point(.zero), slot: handles[1]))
        #expect(byHandle.modelValue(of: handles[1]) == .scalar(0.75))
        // Stale (the layer went) and forged handles: refused, nothing created.
        byHandle.removeLayer(LayerID(1))
        #expect(!byHandle.setModelValue(0.5, slot: handles[1]))
        #expect(!byHandle.setModelValue(0.5, slot: SlotHandle(rawValue: 0x7FFF_FFFF)))
        #expect(byHandle.allSlots.isEmpty)
    }

    /// Adds `count` additive animations to one key of one layer (each by +1), runs a frame and
    /// removes half; returns how many times tracks were configured, and checks the value shown.
    func additiveStackWork(_ count: Int) throws -> Int {
        let store = TrackStore(), layer = LayerID(1)
        try store.setModelValue(.scalar(0), layer: layer, property: "opacity")
        var handles: [AnimationHandle] = []
        for _ in 0..<count {
            var a = BasicAnimation(keyPath: "opacity", from: 0.0, to: 1.0, duration: 1)
            a.isAdditive = true
            handles.append(try store.add(a, layer: layer))
        }
        let evaluator = FrameEvaluator(store: store)
        evaluator.evaluate(at: 0.5)
        #expect(evaluator.value(layer: layer, property: "opacity")?.scalarValue == 0.5 * Double(count))
        for h in handles.prefix(count / 2) { #expect(store.remove(h)) }
        evaluator.evaluate(at: 0.5)
        #expect(evaluator.value(layer: layer, property: "opacity")?.scalarValue == 0.5 * Double(count - count / 2))
        #expect(store.invariantViolations().isEmpty)
        return store.configuredTracks
    }

    @Test("§4.3 adding many additive animations to one key is linear: each configures only its own track")
    func manyAnimationsOnOneKeyAreLinear() throws {
        let small = try additiveStackWork(300), large = try additiveStackWork(600)
        // Configuring every track of the slot on each add was quadratic: 4× the work at twice the count.
        #expect(large <= 2 * small + 8, "\(small) configurations for 300 animations, \(large) for 600")
        #expect(large <= 600 + 8)
    }
}

/// The field an `AnimationError` thrown by `body` names; the error's description for any other
/// error, nil where `body` does not throw.
private func refusedField(_ body: () throws -> Void) -> String? {
    do { try body() } catch let error as AnimationError { return error.field } catch { return "\(error)" }
    return nil
}
