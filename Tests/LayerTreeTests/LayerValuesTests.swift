import AnimationCore
import AnimationWorkloads
@testable import LayerTree
import Testing

@Suite("LayerValues: a layer's model values by key (§1.1, §11)")
struct LayerValuesTests {
    @Test("§11 a layer's values read back as set: cataloged and custom keys, set, replaced and removed in any order")
    func valuesReadBackAsSet() {
        let keys = LayerProperty.all.map(\.name) + ["progress", "progressColor", "", "opacity ", "Opacity", "strokeEndX"]
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20 {
            var values = LayerValues()
            var expected: [String: AnimationValue] = [:]
            for step in 0..<200 {
                let key = keys[Int(generator.next() % UInt64(keys.count))]
                let value: AnimationValue? = generator.next() % 4 == 0 ? nil : .scalar(Double(step))
                values[key] = value
                expected[key] = value
                for k in keys { #expect(values[k] == expected[k], "\(k) after step \(step)") }
            }
            #expect(values.sorted.map(\.key) == expected.keys.sorted())
            #expect(values.sorted.map(\.value) == expected.sorted { $0.key < $1.key }.map(\.value))
        }
    }

    @Test("§11 a cataloged key reads the same by name and by catalog index")
    func catalogIndexIsTheName() {
        var values = LayerValues()
        for (i, property) in LayerProperty.all.enumerated() where i % 2 == 0 { values[property.name] = property.defaultValue }
        for (i, property) in LayerProperty.all.enumerated() {
            #expect(values[catalog: i] == values[property.name])
            #expect((values[catalog: i] != nil) == (i % 2 == 0), "\(property.name)")
        }
    }

    @Test("the catalog fits the 64 bits that say which cataloged keys have a value")
    func catalogFitsTheBitSet() {
        #expect(LayerProperty.all.count <= 64)
    }

    @Test("§11 typed properties read what keys set, through the catalog, on a layer and its presentation copy")
    func typedPropertiesThroughTheCatalog() throws {
        let layer = ShapeLayer()
        layer.setValue(.scalar(0.25), forKey: "opacity")
        layer.setValue(.scalar(0.5), forKey: "strokeEnd")
        layer.setValue(.scalar(7), forKey: "custom")
        #expect(layer.opacity == 0.25 && layer.strokeEnd == 0.5 && layer.value(forKey: "custom") == .scalar(7))
        #expect(layer.definedKeys == ["custom", "opacity", "strokeEnd"])
        layer.setValue(nil, forKey: "opacity")
        #expect(layer.opacity == 1 && layer.definedKeys == ["custom", "strokeEnd"])
        let copy = ShapeLayer(layer: layer)
        #expect(copy.strokeEnd == 0.5 && copy.value(forKey: "custom") == .scalar(7) && copy.definedKeys == layer.definedKeys)
    }
}
