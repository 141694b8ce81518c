import AnimationCore
import Foundation
import PropertyBased
import Testing

/// A linear `opacity` animation from `from` to `to` with `timing`.
func scalarAnimation(from: Double = 0, to: Double = 100, _ configure: (inout BasicAnimation) -> Void = { _ in }) -> BasicAnimation {
    var a = BasicAnimation(keyPath: "opacity")
    a.fromValue = .scalar(from)
    a.toValue = .scalar(to)
    a.duration = 1
    configure(&a)
    return a
}

/// The value `a` shows at parent time `t` over `base`, as a number (nil: no contribution).
func scalarValue(_ a: some PropertyAnimation, at t: Double, base: Double = -1) -> Double? {
    ReferenceEvaluator.sample(a, at: t, base: .scalar(base)).value?.scalarValue
}

@Suite("MediaTiming (semantics §2)")
struct MediaTimingTests {
    // MARK: §2.1

    @Test("§2.1 defaults: beginTime 0, duration 0, speed 1, timeOffset 0, repeats 0, no autoreverse, fill removed")
    func defaultsMatchCoreAnimation() {
        let t = MediaTiming()
        #expect(t.beginTime == 0 && t.duration == 0 && t.speed == 1 && t.timeOffset == 0)
        #expect(t.repeatCount == 0 && t.repeatDuration == 0 && !t.autoreverses && t.fillMode == .removed)
        let a = BasicAnimation(keyPath: "opacity")
        #expect(a.timing == t && a.isRemovedOnCompletion && !a.isAdditive && !a.isCumulative)
    }

    @Test("§2.3 an autoreversing duration near the largest Double keeps a finite period: finite progress at every time, the end state too")
    func autoreversedHugeDurationStaysFinite() {
        // 2d would be ∞, and the fold's k · P a 0 · ∞: the duration is held at half the largest Double.
        for (count, repeatDuration) in [(0.4352941176470586, 0.0), (0, 5.0), (.infinity, 0)] {
            var t = MediaTiming(duration: .greatestFiniteMagnitude, repeatCount: count, autoreverses: true)
            t.repeatDuration = repeatDuration
            t.beginTime = -0.12767223620965884
            t.timeOffset = -2.7053788052185856
            t.fillMode = .both
            #expect(t.effectiveDuration == .greatestFiniteMagnitude / 2)
            #expect(t.iterationDuration.isFinite)
            for time in [-10.0, 0, 1, 3.4313115129320195, 7, 1e6] {
                let state = t.state(atParentTime: time)
                #expect(state.progress.isFinite && state.basicTime.isFinite && state.iteration.isFinite, "\(count), \(repeatDuration) at \(time): \(state)")
            }
            #expect(t.endState.progress.isFinite)
        }
        // Without autoreverses the period is the duration itself, finite: nothing is held.
        #expect(MediaTiming(duration: .greatestFiniteMagnitude).effectiveDuration == .greatestFiniteMagnitude)
    }

    @Test("§2.1 fractional and infinite repeat counts are allowed")
    func fractionalAndInfiniteRepeatCounts() {
        #expect(MediaTiming(duration: 2, repeatCount: 1.5).activeDuration == 3)
        #expect(MediaTiming(duration: 2, repeatCount: .infinity).activeDuration == .infinity)
        let forever = scalarAnimation { $0.repeatCount = .infinity }
        #expect(scalarValue(forever, at: 1e6 + 0.25) == 25)
    }

    // MARK: §2.2

    @Test("§2.2 local time is (tp − beginTime) · speed + timeOffset")
    func headerFormulaMapsParentToLocalTime() {
        let t = MediaTiming(beginTime: 3, speed: 2, timeOffset: 0.5)
        #expect(t.localTime(fromParent: 5) == 4.5)
        #expect(t.parentTime(fromLocal: 4.5) == 5)
        #expect(MediaTiming(speed: 0, timeOffset: 7).localTime(fromParent: 123) == 7)
    }

    @Test("§17 #2 opacity 0→1, d = 2, tp = 0.5 gives 0.25")
    func example2LinearDefault() {
        let a = scalarAnimation(from: 0, to: 1) { $0.duration = 2 }
        #expect(scalarValue(a, at: 0.5) == 0.25)
    }

    @Test("§17 #3 speed 2: from 0 to 100, d = 1, tp = 0.25 gives 50; it ends at tp = 0.5")
    func example3SpeedScalesLocalTime() {
        let a = scalarAnimation { $0.speed = 2 }
        #expect(scalarValue(a, at: 0.25) == 50)
        #expect(a.timing.activeEndTimeInParent == 0.5)
        #expect(ReferenceEvaluator.sample(a, at: 0.5, base: 0).phase == .after)
        #expect(ReferenceEvaluator.sample(a, at: 0.4999, base: 0).phase == .active)
    }

    // MARK: §2.3

    @Test("§2.3 autoreverse doubles the period; repeatCount multiplies it; repeatDuration overrides")
    func iterationPeriodAndActiveDuration() {
        #expect(MediaTiming(duration: 2).activeDuration == 2)
        #expect(MediaTiming(duration: 2, autoreverses: true).iterationDuration == 4)
        #expect(MediaTiming(duration: 2, repeatCount: 1, autoreverses: true).activeDuration == 4)
        #expect(MediaTiming(duration: 1, repeatCount: 1.5, autoreverses: true).activeDuration == 3)
        #expect(MediaTiming(duration: 1, repeatDuration: 2.5).activeDuration == 2.5)
        #expect(MediaTiming(duration: 0).activeDuration == 0.25)  // §1.3: evaluated as 0.25 s
    }

    // MARK: §2.4

    @Test("§2.4 phases: before e < 0, active 0 ≤ e < AD, after e ≥ AD")
    func phasesForPositiveSpeed() {
        let t = MediaTiming(beginTime: 1, duration: 2)
        #expect(t.state(atParentTime: 0.999).phase == .before)
        #expect(t.state(atParentTime: 1).phase == .active)
        #expect(t.state(atParentTime: 2.999).phase == .active)
        #expect(t.state(atParentTime: 3).phase == .after)
    }

    @Test("§2.4 timeOffset starts part-way, wraps to the start and still lasts AD")
    func timeOffsetWrapsWithinActiveDuration() {
        let a = scalarAnimation { $0.duration = 4; $0.timeOffset = 1 }
        #expect(scalarValue(a, at: 0) == 25)
        #expect(scalarValue(a, at: 2) == 75)
        #expect(scalarValue(a, at: 3) == 0)      // wrapped
        #expect(scalarValue(a, at: 3.5) == 12.5)
        #expect(ReferenceEvaluator.sample(a, at: 3.99, base: 0).phase == .active)
        #expect(ReferenceEvaluator.sample(a, at: 4, base: 0).phase == .after)
    }

    @Test("§2.4 negative speed runs the timeline backwards from the end")
    func negativeSpeedRunsBackwards() {
        let a = scalarAnimation { $0.duration = 2; $0.speed = -1; $0.beginTime = 10 }
        #expect(scalarValue(a, at: 10) == 100)           // starts at the end
        #expect(scalarValue(a, at: 10.5) == 75)
        #expect(scalarValue(a, at: 11.5) == 25)
        #expect(ReferenceEvaluator.sample(a, at: 9.9, base: 0).phase == .before)
        #expect(ReferenceEvaluator.sample(a, at: 12, base: 0).phase == .after)
        #expect(a.timing.activeEndTimeInParent == 12)   // played backwards over [10, 12)
        var filled = a
        filled.fillMode = .both
        filled.isRemovedOnCompletion = false
        #expect(scalarValue(filled, at: 9) == 100)       // backwards fill holds the (reversed) start
        #expect(scalarValue(filled, at: 13) == 0)        // forwards fill holds the (reversed) end
    }

    @Test("§2.4 speed 0 freezes local time at timeOffset")
    func zeroSpeedFreezesAtTimeOffset() {
        let a = scalarAnimation { $0.duration = 4; $0.speed = 0; $0.timeOffset = 1 }
        for tp in [-100.0, 0, 1, 3.5, 1e9] {
            #expect(scalarValue(a, at: tp) == 25)
            #expect(ReferenceEvaluator.sample(a, at: tp, base: 0).phase == .active)
        }
        #expect(a.timing.activeEndTimeInParent == .infinity)
    }

    // MARK: §2.5

    @Test("§17 #9 autoreverse mirrors time: tp = 1.25 gives 75, active duration 2")
    func example9ReversedHalfMirrorsTime() {
        let a = scalarAnimation { $0.autoreverses = true; $0.repeatCount = 1 }
        #expect(scalarValue(a, at: 1.25) == 75)
        #expect(a.timing.activeDuration == 2)
    }

    @Test("§2.5 the timing function sees folded progress: an ease-in played backwards looks like ease-out")
    func timingFunctionAppliesToFoldedProgress() throws {
        let a = scalarAnimation(from: 0, to: 1) { $0.autoreverses = true; $0.timingFunction = .easeIn }
        for u in stride(from: 0.05, through: 0.95, by: 0.1) {
            let forward = try #require(scalarValue(a, at: u))
            let backward = try #require(scalarValue(a, at: 2 - u))
            #expect(abs(forward - backward) <= 1e-12)
            #expect(abs(forward - TimingFunction.easeIn.value(at: u)) <= 1e-12)
        }
    }

    @Test("§2.5 k counts completed iterations")
    func foldCountsCompletedIterations() {
        let t = MediaTiming(duration: 2, repeatCount: 3, autoreverses: true)
        #expect(t.state(atParentTime: 1).iteration == 0)
        #expect(t.state(atParentTime: 4.5).iteration == 1)
        #expect(t.state(atParentTime: 9).iteration == 2)
        #expect(t.state(atParentTime: 9).progress == 0.5)  // u = 9 − 2·4 = 1
    }

    // MARK: §2.6

    @Test("§17 #7 a delayed animation without backwards fill shows the model value")
    func example7NoBackwardsFillShowsModel() {
        let a = scalarAnimation { $0.beginTime = 1 }
        let model = AnimationValue.scalar(100)
        let v = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: model, animations: [a], at: 0.5)
        #expect(v == .scalar(100))
    }

    @Test("§17 #8 with backwards fill it shows the start value")
    func example8BackwardsFillClampsToStart() {
        let a = scalarAnimation { $0.beginTime = 1; $0.fillMode = .backwards }
        #expect(scalarValue(a, at: 0.5) == 0)
    }

    @Test("§2.6 forwards fill holds the end only when not removed on completion")
    func forwardsFillHoldsEndWhenNotRemoved() {
        var a = scalarAnimation { $0.fillMode = .forwards }
        #expect(scalarValue(a, at: 2) == nil)     // removed on completion (§1.4)
        #expect(ReferenceEvaluator.sample(a, at: 2, base: 0).isRemoved)
        a.isRemovedOnCompletion = false
        #expect(scalarValue(a, at: 2) == 100)
        a.fillMode = .removed
        #expect(scalarValue(a, at: 2) == nil)     // snaps back to the model
    }

    @Test("§2.6 end-inclusive fill: fractional counts stop at the fraction; integral counts with autoreverse end on from")
    func forwardsFillIsEndInclusive() {
        let fractional = scalarAnimation { $0.repeatCount = 1.5; $0.fillMode = .forwards; $0.isRemovedOnCompletion = false }
        #expect(scalarValue(fractional, at: 10) == 50)
        let reversed = scalarAnimation { $0.repeatCount = 2; $0.autoreverses = true; $0.fillMode = .both; $0.isRemovedOnCompletion = false }
        #expect(scalarValue(reversed, at: 10) == 0)
        let plain = scalarAnimation { $0.repeatCount = 3; $0.fillMode = .forwards; $0.isRemovedOnCompletion = false }
        #expect(scalarValue(plain, at: 10) == 100)
        let halfReversed = scalarAnimation { $0.repeatCount = 1.5; $0.autoreverses = true; $0.fillMode = .forwards; $0.isRemovedOnCompletion = false }
        #expect(scalarValue(halfReversed, at: 10) == 100)
    }

    @Test("§2.6 fill modes: removed, forwards, backwards, both")
    func fillModeFlags() {
        #expect(!FillMode.removed.fillsBackwards && !FillMode.removed.fillsForwards)
        #expect(FillMode.forwards.fillsForwards && !FillMode.forwards.fillsBackwards)
        #expect(FillMode.backwards.fillsBackwards && !FillMode.backwards.fillsForwards)
        #expect(FillMode.both.fillsBackwards && FillMode.both.fillsForwards)
    }

    // MARK: §2.7

    @Test("§2.7 local times compose through a chain of timings")
    func hierarchyComposesTimeMaps() {
        let root = MediaTiming(beginTime: 10, speed: 2)
        let child = MediaTiming(beginTime: 4, speed: 0.5, timeOffset: 1)
        let t = MediaTiming.localTime(13, through: [root, child])
        let expected: Double = ((13 - 10) * 2 - 4) * 0.5 + 1
        #expect(t == expected)
        #expect(MediaTiming.parentTime(t, through: [root, child]) == 13)
    }

    @Test("§2.7 layer → group → animation: each level's time feeds the next")
    func layerGroupAnimationHierarchy() {
        let layer = MediaTiming(speed: 2)
        let child = scalarAnimation { $0.duration = 2 }
        var group = AnimationGroup(animations: [child], duration: 4)
        group.beginTime = 1
        let layerTime = layer.localTime(fromParent: 1.25)  // 2.5 in the layer
        let v = ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: -1, animations: [group], at: layerTime)
        #expect(v == .scalar(75))                           // group time 1.5 → child 1.5 of 2
        let later = layer.localTime(fromParent: 1.6)       // group time 2.2: the child has ended
        #expect(ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: -1, animations: [group], at: later) == .scalar(-1))
    }

    // MARK: §2.8

    @Test("§2.8 the pause/resume recipe freezes and resumes without a jump")
    func pauseResumeRecipeIsExact() async {
        await propertyCheck(count: 200, input: Gen.double(in: 0...100_000), Gen.double(in: 0...10_000), Gen.double(in: 0...3)) { now, pauseLength, delta in
            let animation = scalarAnimation(from: 0, to: 1000) { $0.duration = 1e6; $0.beginTime = 0 }
            var layer = MediaTiming()
            func presented(_ t: Double) -> Double { scalarValue(animation, at: layer.localTime(fromParent: t)) ?? .nan }
            let before = presented(now)
            let beforeDelta = presented(now + delta)
            // pause
            let tPause = layer.localTime(fromParent: now)
            layer.speed = 0
            layer.timeOffset = tPause
            #expect(presented(now) == before)
            #expect(presented(now + pauseLength) == before)
            // resume
            let resume = now + pauseLength
            layer.speed = 1
            layer.timeOffset = 0
            layer.beginTime = 0
            layer.beginTime = layer.localTime(fromParent: resume) - tPause
            #expect(abs(presented(resume) - before) <= 1e-8)
            #expect(abs(presented(resume + delta) - beforeDelta) <= 1e-8)
        }
    }

    @Test("property: a paused animation is continuous across pause and resume at every moment")
    func pauseResumeContinuity() throws {
        // A fixed, awkward case: times that are not representable exactly.
        var layer = MediaTiming()
        let animation = scalarAnimation(from: 0, to: 1) { $0.duration = 10; $0.beginTime = 0.1 }
        let now = 3.3
        let tPause = layer.localTime(fromParent: now)
        let paused = try #require(scalarValue(animation, at: tPause))
        layer.speed = 0
        layer.timeOffset = tPause
        let resume = 7.7
        #expect(scalarValue(animation, at: layer.localTime(fromParent: resume)) == paused)
        layer.speed = 1
        layer.timeOffset = 0
        layer.beginTime = 0
        layer.beginTime = layer.localTime(fromParent: resume) - tPause
        #expect(abs(try #require(scalarValue(animation, at: layer.localTime(fromParent: resume))) - paused) <= 1e-12)
    }

    // MARK: validation and bad input

    @Test("invalid timing values are rejected, naming the field")
    func invalidTimingIsRejected() {
        let cases: [(MediaTiming, String)] = [
            (MediaTiming(beginTime: .nan), "beginTime"), (MediaTiming(beginTime: .infinity), "beginTime"),
            (MediaTiming(duration: .nan), "duration"), (MediaTiming(duration: .infinity), "duration"),
            (MediaTiming(speed: .nan), "speed"), (MediaTiming(speed: -.infinity), "speed"),
            (MediaTiming(timeOffset: .infinity), "timeOffset"),
            (MediaTiming(repeatCount: -1), "repeatCount"), (MediaTiming(repeatCount: .nan), "repeatCount"),
            (MediaTiming(repeatDuration: -2), "repeatDuration"), (MediaTiming(repeatDuration: .nan), "repeatDuration"),
        ]
        for (timing, field) in cases {
            do {
                try timing.validate()
                Issue.record("accepted \(timing)")
            } catch let error as AnimationError {
                #expect(error.field == field, "\(error)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(throws: Never.self) { try MediaTiming(duration: -3, speed: 0, repeatCount: .infinity).validate() }
    }

    @Test("negative and −∞ durations resolve to the 0.25 s default")
    func negativeDurationUsesDefault() {
        #expect(MediaTiming(duration: -1).effectiveDuration == 0.25)
        #expect(MediaTiming(duration: -.infinity).effectiveDuration == 0.25)
        #expect(throws: Never.self) { try MediaTiming(duration: -.infinity).validate() }
    }

    @Test("NaN parent time contributes nothing; ±∞ fall before or after")
    func nonFiniteParentTimes() {
        let a = scalarAnimation { $0.fillMode = .both; $0.isRemovedOnCompletion = false }
        #expect(scalarValue(a, at: .nan) == nil)
        #expect(ReferenceEvaluator.sample(a, at: .nan, base: 0).phase == .before)
        #expect(scalarValue(a, at: -.infinity) == 0)
        #expect(scalarValue(a, at: .infinity) == 100)
        let forever = scalarAnimation { $0.repeatCount = .infinity; $0.fillMode = .both }
        #expect(scalarValue(forever, at: .infinity) == nil)
        #expect(ReferenceEvaluator.sample(forever, at: .infinity, base: 0).phase == .after)
    }

    @Test("huge repeat counts neither hang nor lose the iteration")
    func hugeRepeatCounts() {
        let many = scalarAnimation { $0.repeatCount = 1e300 }
        #expect(many.timing.activeDuration == 1e300)
        #expect(scalarValue(many, at: 1e15 + 0.5) == 50)
        let overflowing = scalarAnimation { $0.repeatCount = 1e308; $0.duration = 10; $0.autoreverses = true }
        #expect(overflowing.timing.activeDuration == .infinity)
        #expect(scalarValue(overflowing, at: 5) == 50)
        let state = MediaTiming(duration: 1, repeatCount: 1e300, fillMode: .forwards).state(atParentTime: .greatestFiniteMagnitude)
        #expect(state.phase == .after && state.progress == 1)
    }

    @Test("§16 repeatCount 0 means one iteration")
    func zeroRepeatCountIsOneIteration() {
        let a = scalarAnimation()
        #expect(a.timing.activeDuration == 1)
        #expect(scalarValue(a, at: 0.5) == 50)
        #expect(scalarValue(a, at: 1.5) == nil)
    }

    @Test("§16 progress is clamped to [0, 1] before the timing function")
    func progressIsClampedBeforeTimingFunction() {
        let states = stride(from: -1.0, through: 3, by: 0.125).map {
            MediaTiming(duration: 1, fillMode: .both).state(atParentTime: $0)
        }
        #expect(states.allSatisfy { (0...1).contains($0.progress) })
    }

    // MARK: Instant timings (reduced motion, docs/reduced-motion.md)

    @Test("an instant timing is before its begin time, then after its end from the begin time on")
    func instantPhases() {
        var a = scalarAnimation { $0.duration = 2; $0.beginTime = 3 }
        a.timing.isInstant = true
        #expect(ReferenceEvaluator.sample(a, at: 2.999, base: 0).phase == .before)
        #expect(ReferenceEvaluator.sample(a, at: 3, base: 0).phase == .after)
        #expect(ReferenceEvaluator.sample(a, at: 3, base: 0).value == nil)   // removed on completion
        a.fillMode = .forwards
        a.isRemovedOnCompletion = false
        #expect(scalarValue(a, at: 3) == 100)                 // the end state at its begin time
        #expect(scalarValue(a, at: 2.5) == nil)               // no backwards fill: nothing before
        a.fillMode = .both
        #expect(scalarValue(a, at: 2.5) == 100)               // a backwards fill shows the same end
        #expect(a.timing.activeEndTimeInParent == 3)
    }

    @Test("an instant timing shows the state its active duration ends in: repeats, autoreverse, offset, reversed")
    func instantEndState() {
        func instantEnd(_ configure: (inout BasicAnimation) -> Void) -> Double? {
            var a = scalarAnimation { $0.fillMode = .forwards; $0.isRemovedOnCompletion = false; configure(&$0) }
            let written = a
            a.timing.isInstant = true
            // As the animation written would show after its end.
            let farAfter = written.timing.activeEndTimeInParent + 1
            #expect(scalarValue(a, at: a.beginTime) == scalarValue(written, at: farAfter))
            return scalarValue(a, at: a.beginTime + 0.001)
        }
        #expect(instantEnd { $0.repeatCount = 1.5 } == 50)
        #expect(instantEnd { $0.autoreverses = true; $0.repeatCount = 2 } == 0)
        #expect(instantEnd { $0.timeOffset = 0.25 } == 25)
        #expect(instantEnd { $0.speed = -1; $0.beginTime = 1 } == 0)
    }

    @Test("an instant timing that repeats forever has no end state: it shows nothing; at speed 0 it stays frozen at its end")
    func instantEdges() {
        var forever = scalarAnimation { $0.repeatCount = .infinity; $0.fillMode = .forwards; $0.isRemovedOnCompletion = false }
        forever.timing.isInstant = true
        #expect(ReferenceEvaluator.sample(forever, at: 1, base: 0).value == nil)
        var frozen = scalarAnimation { $0.speed = 0; $0.timeOffset = 0.5 }
        frozen.timing.isInstant = true
        #expect(ReferenceEvaluator.sample(frozen, at: 10, base: 0).phase == .active)
        #expect(scalarValue(frozen, at: 10) == 50)   // its end state: t = AD + o wraps to the offset (§2.6)
    }
}
