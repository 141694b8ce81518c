import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing

/// ``LayerContext/invariantViolations(limit:)``: a tree changed only through the API stays
/// consistent — layers added, moved, removed, animated and ticked — and each kind of corruption
/// is named.
@Suite("LayerContext invariants (the tree, the registry and the action records agree)")
struct LayerContextInvariantsTests {
    /// A small tree: two branches, implicit and explicit animations, a layer with its own time.
    private func tree() -> (LayerContext, [Layer]) {
        let context = LayerContext()
        let layers = (0..<6).map { i -> Layer in
            let layer = i % 2 == 0 ? Layer() : ShapeLayer()
            layer.name = "L\(i)"
            return layer
        }
        context.rootLayer.addSublayer(layers[0])
        layers[0].addSublayer(layers[1])
        layers[0].addSublayer(layers[2])
        context.rootLayer.addSublayer(layers[3])
        layers[3].addSublayer(layers[4])
        layers[4].addSublayer(layers[5])
        return (context, layers)
    }

    @Test("a tree changed only through its API keeps its invariants: moves, removals, animations, layer time, ticks")
    func apiKeepsInvariants() throws {
        let (context, layers) = tree()
        #expect(context.invariantViolations() == [])
        layers[1].opacity = 0.5   // an implicit animation: an action record with a slot
        try layers[2].add(BasicAnimation(keyPath: "position", from: Point(x: 0, y: 0), to: Point(x: 5, y: 5), duration: 1), forKey: "move")
        layers[4].speed = 2
        context.tick(at: 0.1)
        #expect(context.invariantViolations() == [])
        layers[3].addSublayer(layers[1])        // moved to the other branch, with its record
        layers[2].removeFromSuperlayer()        // leaves the tree: its records forget the store
        context.tick(at: 0.2)
        #expect(context.invariantViolations() == [])
        layers[5].addSublayer(layers[2])        // joins again, deepest
        layers[2].opacity = 0.25
        layers[0].removeFromSuperlayer()
        context.tick(at: 0.3)
        #expect(context.invariantViolations() == [])
        #expect(context.store.invariantViolations() == [])
    }

    @Test("a sublayer that names another superlayer, and a registered layer outside the tree, are named")
    func corruptedTreeIsNamed() {
        let (context, layers) = tree()
        layers[1].storedSuperlayer = layers[3]   // behind the tree's back
        #expect(context.invariantViolations().contains { $0.contains("sublayer L1 of L0 names another superlayer") },
                "\(context.invariantViolations())")
        layers[1].storedSuperlayer = layers[0]

        layers[0].storedSublayers.removeAll { $0 === layers[2] }   // L2 is registered but unreachable
        let broken = context.invariantViolations()
        #expect(broken.contains { $0.contains("layers are registered") }, "\(broken)")
        #expect(broken.contains { $0.contains("is registered but not in the tree") }, "\(broken)")
    }

    @Test("an action record filed under another key is named")
    func misfiledRecordIsNamed() {
        let (context, layers) = tree()
        layers[1].opacity = 0.5
        context.tick(at: 0.1)
        let record = layers[1].actionRecords["opacity"]!
        layers[1].actionRecords["opacity"] = nil
        layers[1].actionRecords["position"] = record
        #expect(context.invariantViolations().contains { $0.contains("action record for 'position' is filed under 'opacity'") },
                "\(context.invariantViolations())")
    }
}
