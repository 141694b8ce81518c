import AnimationCore
import Testing

func opacityIn(_ animations: [any Animation], at t: Double, model: Double = -1) -> Double? {
    ReferenceEvaluator.presentationValue(ofProperty: "opacity", model: .scalar(model), animations: animations, at: t).scalarValue
}

@Suite("AnimationGroup (semantics §7)")
struct AnimationGroupTests {
    @Test("§7 children are clipped, not scaled: a 10 s child in a 5 s group shows its first 5 s")
    func childrenAreClippedNotScaled() throws {
        let child = scalarAnimation { $0.duration = 10 }
        let group = AnimationGroup(animations: [child], duration: 5)
        #expect(opacityIn([group], at: 2) == 20)
        #expect(abs(try #require(opacityIn([group], at: 4.9)) - 49) < 1e-9)
        #expect(opacityIn([group], at: 5.5) == -1)
    }

    @Test("§7 the group's timing applies first: speed, repeat and timing function reach the children")
    func groupTimingAppliesFirst() {
        let child = scalarAnimation { $0.duration = 2 }
        var group = AnimationGroup(animations: [child], duration: 2)
        group.speed = 2
        #expect(opacityIn([group], at: 0.5) == 50)
        group.speed = 1
        group.repeatCount = 2
        #expect(opacityIn([group], at: 2.5) == 25)
        group.timingFunction = .easeIn
        #expect(opacityIn([group], at: 3) == 100 * TimingFunction.easeIn.value(at: 0.5))
    }

    @Test("§7 a child's beginTime is relative to the group's start")
    func childBeginTimeIsRelativeToGroup() {
        let child = scalarAnimation { $0.beginTime = 1 }
        var group = AnimationGroup(animations: [child], duration: 3)
        group.beginTime = 10
        #expect(opacityIn([group], at: 10.5) == -1)
        #expect(opacityIn([group], at: 11.5) == 50)
    }

    @Test("§7 children's removedOnCompletion is ignored; their fill acts within the group")
    func childFillActsWithinGroup() {
        let held = scalarAnimation { $0.fillMode = .forwards; $0.isRemovedOnCompletion = true }
        let dropped = scalarAnimation()
        #expect(opacityIn([AnimationGroup(animations: [held], duration: 3)], at: 2) == 100)
        #expect(opacityIn([AnimationGroup(animations: [dropped], duration: 3)], at: 2) == -1)
    }

    @Test("§7 outside the group's active range children show nothing unless the group fills")
    func outsideGroupChildrenShowNothing() {
        let child = scalarAnimation { $0.fillMode = .both }
        var group = AnimationGroup(animations: [child], duration: 1)
        group.beginTime = 1
        #expect(opacityIn([group], at: 0.5) == -1)
        #expect(opacityIn([group], at: 2.5) == -1)
        group.fillMode = .both
        group.isRemovedOnCompletion = false
        #expect(opacityIn([group], at: 0.5) == 0)
        #expect(opacityIn([group], at: 2.5) == 100)
    }

    @Test("§1.3 a group with no duration clips its children at 0.25 s")
    func groupWithoutDurationClipsAtDefault() throws {
        let child = scalarAnimation { $0.duration = 1 }
        let group = try AnimationGroup(animations: [child]).preparedForAdding(layerTime: 0)
        #expect(group.duration == 0.25)
        #expect(opacityIn([group], at: 0.2) == 20)
        #expect(opacityIn([group], at: 0.3) == -1)
    }

    @Test("§7 the lottie pattern: a repeating, autoreversing, filling group selects a child sub-range by timeOffset")
    func lottieClippingGroup() throws {
        let child = scalarAnimation { $0.duration = 10; $0.timeOffset = 4 }   // shows 40…60 over 2 s
        var group = AnimationGroup(animations: [child], duration: 2)
        group.repeatCount = 2
        group.autoreverses = true
        group.fillMode = .both
        group.isRemovedOnCompletion = false
        #expect(opacityIn([group], at: 1) == 50)
        #expect(opacityIn([group], at: 3) == 50)   // reversed half
        #expect(abs(try #require(opacityIn([group], at: 3.5)) - 45) < 1e-9)
        #expect(opacityIn([group], at: 100) == 40) // ends on the start of the sub-range (integral count, autoreverse)
    }

    @Test("§7 children compose in order, and nested groups flatten into leaves")
    func nestedGroupsFlatten() {
        var additive = scalarAnimation(from: 1, to: 1)
        additive.isAdditive = true
        let inner = AnimationGroup(animations: [scalarAnimation(), additive], duration: 1)
        let outer = AnimationGroup(animations: [inner, scalarAnimation(keyPathFor: "position.x")], duration: 1)
        #expect(outer.leaves.map(\.indexPath) == [[0, 0], [0, 1], [1]])
        #expect(outer.leaves[1].groups.count == 2)
        #expect(opacityIn([outer], at: 0.5) == 51)
    }

    @Test("§7 invalid children are named by index")
    func invalidChildrenAreNamed() {
        let bad = scalarAnimation { $0.repeatCount = -1 }
        let group = AnimationGroup(animations: [scalarAnimation(), AnimationGroup(animations: [bad])])
        #expect(throws: AnimationError(field: "animations[1].animations[0].repeatCount", reason: "must be ≥ 0 (got -1.0)")) {
            try group.validate()
        }
    }
}

func scalarAnimation(keyPathFor keyPath: String) -> BasicAnimation {
    var a = scalarAnimation()
    a.keyPath = keyPath
    return a
}
