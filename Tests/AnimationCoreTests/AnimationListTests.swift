import AnimationCore
import Testing

@Suite("AnimationList (semantics §1, §8)")
struct AnimationListTests {
    @Test("§1.1 model and presentation: animations change what shows, not the model")
    func presentationIsModelWithAnimationsApplied() throws {
        var list = AnimationList()
        try list.add(scalarAnimation(from: 0, to: 1), forKey: "fade", layerTime: 10)
        let model: [String: AnimationValue] = ["opacity": 0.3, "position": .point(.zero)]
        let shown = list.presentationValues(model: model, at: 10.5)
        #expect(shown["opacity"] == .scalar(0.5))
        #expect(shown["position"] == .point(.zero))
        #expect(model["opacity"] == .scalar(0.3))
    }

    @Test("§1.2 adding copies: later changes to the caller's animation have no effect")
    func addingCopies() throws {
        var list = AnimationList()
        var a = scalarAnimation(from: 0, to: 1)
        try list.add(a, forKey: "k", layerTime: 0)
        a.toValue = 1000
        #expect(list.presentationValue(ofProperty: "opacity", model: 0, at: 0.5) == .scalar(0.5))
    }

    @Test("§17 #14 adding with an existing key replaces; the replaced one is returned")
    func example14SameKeyReplaces() throws {
        var list = AnimationList()
        try list.add(scalarAnimation(from: 0, to: 1), forKey: "k", layerTime: 0)
        let replaced = try list.add(scalarAnimation(from: 5, to: 5), forKey: "k", layerTime: 0)
        #expect(replaced?.key == "k")
        #expect(list.animationKeys == ["k"])
        #expect(list.presentationValue(ofProperty: "opacity", model: 0, at: 0.5) == .scalar(5))
    }

    @Test("§1.2 nil keys are anonymous and never replaced")
    func anonymousAnimationsAccumulate() throws {
        var list = AnimationList()
        try list.add(scalarAnimation(), forKey: nil, layerTime: 0)
        try list.add(scalarAnimation(), forKey: nil, layerTime: 0)
        #expect(list.entries.count == 2 && list.animationKeys.isEmpty)
    }

    @Test("§17 #6 duration 0 when added becomes 0.25 s; a transaction's duration wins")
    func example6DefaultDuration() throws {
        var list = AnimationList()
        try list.add(scalarAnimation { $0.duration = 0 }, forKey: "a", layerTime: 0)
        try list.add(scalarAnimation { $0.duration = -1 }, forKey: "b", layerTime: 0, transactionDuration: 2)
        #expect(list.animation(forKey: "a")?.duration == 0.25)
        #expect(list.animation(forKey: "b")?.duration == 2)
        #expect(throws: AnimationError.self) { try list.add(scalarAnimation(), forKey: "c", layerTime: 0, transactionDuration: .nan) }
    }

    @Test("§1.4 removedOnCompletion removes the animation once its active duration has passed")
    func completedAnimationsAreRemoved() throws {
        var list = AnimationList()
        try list.add(scalarAnimation(), forKey: "gone", layerTime: 0)
        try list.add(scalarAnimation { $0.isRemovedOnCompletion = false; $0.fillMode = .forwards }, forKey: "kept", layerTime: 0)
        #expect(list.removeCompleted(at: 0.5).isEmpty)
        let removed = list.removeCompleted(at: 1)
        #expect(removed.map(\.key) == ["gone"])
        #expect(list.animationKeys == ["kept"])
        #expect(list.presentationValue(ofProperty: "opacity", model: 7, at: 3) == .scalar(100))
    }

    @Test("§1.5 beginTime 0 means now; a non-zero beginTime is absolute in layer time")
    func beginTimeZeroMeansNow() throws {
        var list = AnimationList()
        try list.add(scalarAnimation(), forKey: "now", layerTime: 42)
        try list.add(scalarAnimation { $0.beginTime = 43 }, forKey: "later", layerTime: 42)
        #expect(list.animation(forKey: "now")?.beginTime == 42)
        #expect(list.animation(forKey: "later")?.beginTime == 43)
    }

    @Test("§8.2 animationKeys in add order; animation(forKey:) returns the stored copy")
    func keysInAddOrder() throws {
        var list = AnimationList()
        for key in ["c", "a", "b"] { try list.add(scalarAnimation(), forKey: key, layerTime: 0) }
        #expect(list.animationKeys == ["c", "a", "b"])
        #expect(list.animation(forKey: "a") is BasicAnimation)
        #expect(list.animation(forKey: "zzz") == nil)
    }

    @Test("§8.4 composition: model, then animations in add order; replace, add, or set a field")
    func compositionInAddOrder() throws {
        var list = AnimationList()
        try list.add(basic("position", from: .point(Point(x: 0, y: 0)), to: .point(Point(x: 100, y: 100))), forKey: "move", layerTime: 0)
        var nudge = basic("position", from: .point(Point(x: 0, y: 10)), to: .point(Point(x: 0, y: 10)))
        nudge.isAdditive = true
        try list.add(nudge, forKey: "nudge", layerTime: 0)
        try list.add(basic("position.x", to: 0), forKey: "x", layerTime: 0)
        let v = list.presentationValue(ofProperty: "position", model: .point(Point(x: 5, y: 5)), at: 0.5)
        #expect(v == .point(Point(x: 25, y: 60)))   // 50,50 → +10 y → x from 50 to 0 at ½
    }

    @Test("§8.5 after removal the presentation returns to the model")
    func removalRestoresModel() throws {
        var list = AnimationList()
        try list.add(scalarAnimation(), forKey: "k", layerTime: 0)
        #expect(list.presentationValue(ofProperty: "opacity", model: 3, at: 0.5) == .scalar(50))
        #expect(list.removeAnimation(forKey: "k") != nil)
        #expect(list.presentationValue(ofProperty: "opacity", model: 3, at: 0.5) == .scalar(3))
        try list.add(scalarAnimation(), forKey: "k", layerTime: 0)
        #expect(list.removeAllAnimations().count == 1 && list.entries.isEmpty)
    }

    @Test("adding checks the key path against the cataloged property's kind")
    func addChecksPropertyKinds() {
        var list = AnimationList()
        #expect(throws: AnimationError(field: "keyPath", reason: "'position' holds a point but the animation's values are a scalar")) {
            try list.add(basic("position", from: 0, to: 1), forKey: "bad", layerTime: 0)
        }
        let group = AnimationGroup(animations: [scalarAnimation(), basic("bounds.size.depth", to: 1)], duration: 1)
        #expect(throws: AnimationError.self) { try list.add(group, forKey: "g", layerTime: 0) }
        do {
            try list.add(group, forKey: "g", layerTime: 0)
        } catch let error as AnimationError {
            #expect(error.field == "animations[1].keyPath")
        } catch {
            Issue.record("\(error)")
        }
        #expect(list.entries.isEmpty)
    }
}

@Suite("LayerProperty (semantics §11, §12)")
struct LayerPropertyTests {
    @Test("§11 defaults: opacity 1, anchorPoint (0.5, 0.5), identity transforms, strokeEnd 1, lineWidth 1, miterLimit 10, fillColor black")
    func documentedDefaults() {
        #expect(LayerProperty.named("opacity")?.defaultValue == .scalar(1))
        #expect(LayerProperty.named("anchorPoint")?.defaultValue == .point(Point(x: 0.5, y: 0.5)))
        #expect(LayerProperty.named("transform")?.defaultValue == .transform(.identity))
        #expect(LayerProperty.named("sublayerTransform")?.defaultValue == .transform(.identity))
        #expect(LayerProperty.named("strokeEnd")?.defaultValue == .scalar(1))
        #expect(LayerProperty.named("strokeStart")?.defaultValue == .scalar(0))
        #expect(LayerProperty.named("lineWidth")?.defaultValue == .scalar(1))
        #expect(LayerProperty.named("miterLimit")?.defaultValue == .scalar(10))
        #expect(LayerProperty.named("fillColor")?.defaultValue == .color(.black))
        #expect(LayerProperty.named("cornerRadius")?.defaultValue == .scalar(0))
        #expect(LayerProperty.all.allSatisfy { $0.defaultValue.kind == $0.kind })
    }

    @Test("§12 the documented animatable properties are cataloged and implicitly animated")
    func implicitlyAnimatedProperties() {
        for name in ["anchorPoint", "backgroundColor", "borderColor", "borderWidth", "bounds", "contentsRect", "cornerRadius",
                     "opacity", "position", "shadowColor", "shadowOffset", "shadowOpacity", "shadowRadius", "sublayerTransform",
                     "transform", "zPosition", "fillColor", "lineDashPhase", "lineWidth", "miterLimit", "strokeColor",
                     "strokeStart", "strokeEnd"] {
            #expect(LayerProperty.named(name)?.isImplicitlyAnimated == true, "\(name)")
        }
        #expect(LayerProperty.named("strokeEnd")?.isShapeLayerProperty == true)
        #expect(LayerProperty.named("frame") == nil)
    }

    @Test("§11 the catalog finds each of its names, and no other: neighbours in length and first letter, prefixes, case, accents")
    func catalogLookupIsExact() {
        for (i, property) in LayerProperty.all.enumerated() {
            #expect(LayerProperty.index(named: property.name) == i)
            #expect(LayerProperty.named(property.name)?.name == property.name)
        }
        let names = Set(LayerProperty.all.map(\.name))
        var probes = ["", "o", "opacit", "opacityy", "Opacity", "OPACITY", "opacitY", "opacité", "sublayerTransforms",
                      "anchorPointZZ", "strokeEnds", "shadowColour", "zposition", String(repeating: "s", count: 40),
                      "strokeStar\u{0}", "op\u{0}city"]
        for name in names {
            // Same length and first byte, one byte changed: the bucket's neighbours.
            var bytes = Array(name.utf8)
            bytes[bytes.count - 1] ^= 1
            probes.append(String(decoding: bytes, as: UTF8.self))
            probes.append(String(name.dropLast()))
            probes.append(name + "s")
            probes.append(name.uppercased())
        }
        for probe in probes where !names.contains(probe) {
            #expect(LayerProperty.index(named: probe) == nil, "\(probe)")
            #expect(LayerProperty.named(probe) == nil, "\(probe)")
        }
    }

    @Test("§11 §12 the catalog's traits are its properties' kind, implicit animation and shape-layer flags, in its order")
    func catalogTraitsFollowTheCatalog() {
        #expect(LayerProperty.traits.count == LayerProperty.all.count)
        for (property, traits) in zip(LayerProperty.all, LayerProperty.traits) {
            #expect(traits.kind == property.kind, "\(property.name)")
            #expect(traits.isImplicitlyAnimated == property.isImplicitlyAnimated, "\(property.name)")
            #expect(traits.isShapeLayerProperty == property.isShapeLayerProperty, "\(property.name)")
        }
        let strokeEnd = LayerProperty.index(named: "strokeEnd")!, position = LayerProperty.index(named: "position")!
        #expect(LayerProperty.traits[strokeEnd].isShapeLayerProperty && !LayerProperty.traits[position].isShapeLayerProperty)
        #expect(LayerProperty.traits[position].kind == .point && LayerProperty.traits[position].isImplicitlyAnimated)
    }
}
