import AnimationBatch
import AnimationCore
import AnimationScene
@testable import LayerTree
import LayerTreeSeeds
import Testing

/// The five seed articles as integration tests: each runs as the demo runs it (ticks at 60 Hz)
/// and is checked at the moments the article is about.
@Suite("Seeds as LayerTree programs (integration)")
struct SeedTests {
    @Test("progress ring: retargeted mid-flight it carries on from its presentation value; the public value clamps")
    func progressRing() throws {
        freshTransactions()
        let seed = ProgressRingSeed()
        SeedRun.run(seed, until: 0.6 - 1.0 / 60)
        let before = try #require(seed.ring.presentation()?.progress)
        #expect(before > 0.05 && before < 0.35, "mid-flight: \(before)")
        SeedRun.run(seed, until: 0.6 + 1.0 / 120, from: 0.6)   // the retarget, then its first tick
        let after = try #require(seed.ring.presentation()?.progress)
        #expect(abs(after - before) < 0.02, "no jump: \(before) → \(after)")
        #expect(seed.ring.progress == 0.85, "the model holds the new target")
        SeedRun.run(seed, until: 1.95, from: 0.6 + 1.0 / 60)
        #expect(near(seed.ring.presentation()?.progress, 0.85, 1e-6))
        #expect(near(seed.ring.drawnProgress, 0.85, 1e-6), "display() drew from the presentation copy")
        SeedRun.run(seed, until: 3.5, from: 1.95 + 1.0 / 60)
        #expect(seed.ring.progress == 1)
        #expect(near(seed.ring.presentation()?.progress, 1, 1e-6))
        #expect(seed.ring.drawnColor == Color(red: 0.2, green: 0.75, blue: 0.4))
        #expect(seed.ring.displayCount > 20)
    }

    @Test("transactions: a standalone layer and a view's layer in a block animate; a bare view's layer does not; completions run at the ends")
    func transactions() throws {
        freshTransactions()
        let seed = TransactionSeed()
        SeedRun.run(seed, until: 0.75)
        let y = seed.squares.map { $0.presentation()?.position.y ?? .nan }
        #expect(y[0] == 150, "(a) 0.25 s implicit: done by 0.75")
        #expect(y[1] == 150, "(b) the view's layer jumped")
        #expect(y[2] > 60 && y[2] < 150, "(c) inside View.animate: moving")
        #expect(y[3] == 150, "(d) delegate nil: animated 0.25 s, done")
        #expect(y[4] > 60 && y[4] < 150, "(e) 2 s transaction: moving")
        #expect(seed.log.contains { $0.hasSuffix("b-view animations: none") })
        #expect(seed.log.contains { $0.hasSuffix("d-delegate-nil animations: position") })
        SeedRun.run(seed, until: 3.0, from: 0.75 + 1.0 / 60)
        #expect(seed.log.contains { $0.contains("(c) View.animate completion, finished: true") })
        let completion = try #require(seed.log.first { $0.contains("(e) completion block") })
        #expect(completion.hasPrefix("2.4") || completion.hasPrefix("2.5"), "\(completion)")
        #expect(seed.timed.presentation()?.backgroundColor == Color(red: 0.9, green: 0.35, blue: 0.3))
    }

    @Test("border: strokeEnd draws the border over 2 s with the model set first; strokeStart then erases it")
    func border() throws {
        freshTransactions()
        let seed = BorderSeed()
        SeedRun.run(seed, until: 1.25)
        let midway = try #require(seed.border.presentation()?.strokeEnd)
        #expect(near(midway, 0.5, 1e-3), "easeInEaseOut at half time: \(midway)")
        SeedRun.run(seed, until: 2.5, from: 1.25 + 1.0 / 60)
        #expect(seed.border.presentation()?.strokeEnd == 1)
        #expect(seed.border.animationKeys() == nil)
        SeedRun.run(seed, until: 4.0, from: 2.5 + 1.0 / 60)
        #expect(seed.border.presentation()?.strokeStart == 1)
    }

    @Test("ring didStop: the delegate writes the model once, so the ring stays full; its callback starts the next animation")
    func ringDidStop() throws {
        freshTransactions()
        let seed = RingDidStopSeed()
        SeedRun.run(seed, until: 3.0)
        #expect(seed.log.filter { $0.contains("didStart") }.count == 1)
        #expect(seed.log.filter { $0.contains("didStop finished: true") }.count == 1)
        #expect(seed.ring.strokeEnd == 0.75)
        #expect(seed.ring.presentation()?.strokeEnd == 0.75)
        #expect(seed.ring.animationKeys() == nil, "the pulse ran and was removed")
    }

    @Test("arc flight: stopped from its presentation layer it stays where it was, turned along the arc")
    func arcFlight() throws {
        freshTransactions()
        let seed = ArcFlightSeed()
        SeedRun.run(seed, until: 3.0)
        let stopped = try #require(seed.stoppedAt)
        #expect(seed.plane.animationKeys() == nil)
        #expect(seed.plane.presentation()?.position == stopped.position)
        #expect(seed.plane.presentation()?.transform == stopped.transform)
        #expect(stopped.position.y < 150 && stopped.position.x > 40 && stopped.position.x < 160, "on the rising half: \(stopped.position)")
        #expect(stopped.transform.m12 < -0.1, "turned upwards along the arc")
    }

    @Test("every seed draws its frames (the demo's output)")
    func framesDraw() {
        for type in Seeds.all {
            freshTransactions()
            let program = type.init()
            let frames = SeedRun.frames(program, fps: 10)
            #expect(frames.count == Int(program.duration * 10) + 1, "\(type.name)")
            #expect(frames.allSatisfy { $0.hasPrefix("<svg") && $0.contains("<g id=") }, "\(type.name)")
            // Each frame says its time, and names its top-level layers under them.
            #expect(frames.last?.contains(">\(type.name) at \(String(format: "%.3f", program.duration)) s</text>") == true, "\(type.name)")
            if type.name == "transactions" {
                for name in ["a-standalone", "b-view", "c-view-animate", "d-delegate-nil", "e-transaction"] {
                    #expect(frames.allSatisfy { $0.contains(">\(name)</text>") }, "\(name)")
                }
            }
        }
    }

    @Test("W3 as a layer tree gives the scene's presentation values, bit for bit")
    func seedTreeMatchesScene() throws {
        freshTransactions()
        let count = 25
        let context = try SeedTree.make(layers: count)
        let evaluation = try SceneEvaluation(try SeedScene.make(layers: count))
        let layers = context.rootLayer.sublayers ?? []
        #expect(layers.count == count)
        for t in [0.0, 0.4, 1.3, 2.9, 7.25] {
            context.tick(at: t)
            let frame = evaluation.frame(at: t, engine: .batch)
            for (layer, shown) in zip(layers, frame.layers) {
                #expect(layer.name == shown.id)
                for (keyPath, value) in shown.values {
                    let slot = try #require(context.slot(of: layer, forKey: keyPath), "\(shown.id).\(keyPath)")
                    #expect(context.store.presentationValue(of: slot) == value, "\(shown.id).\(keyPath) at \(t)")
                }
            }
        }
    }
}
