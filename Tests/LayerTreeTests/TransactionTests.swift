import AnimationBatch
import AnimationCore
@testable import LayerTree
import Testing
import Foundation
import Synchronization

@Suite("Transaction (§9)")
struct TransactionTests {
    @Test("§9.1 a change outside any transaction opens the implicit one; the next tick commits it")
    func implicitTransaction() {
        let layer = Layer()
        let ctx = context(with: layer)
        #expect(Transaction.depth == 0)
        layer.opacity = 0.5
        #expect(Transaction.depth == 1)
        ctx.tick(at: 0.1)
        #expect(Transaction.depth == 0)
    }

    @Test("§9.1 explicit transactions nest; settings walk outward to the enclosing level (§9.2)")
    func nestingAndLookup() {
        freshTransactions()
        #expect(Transaction.animationDuration() == 0.25)
        #expect(Transaction.animationTimingFunction() == nil)
        #expect(!Transaction.disableActions())
        Transaction.begin()
        Transaction.setAnimationDuration(2)
        Transaction.setDisableActions(true)
        Transaction.begin()
        #expect(Transaction.depth == 2)
        #expect(Transaction.animationDuration() == 2 && Transaction.disableActions())
        Transaction.setAnimationDuration(5)
        Transaction.setAnimationTimingFunction(.easeIn)
        #expect(Transaction.animationDuration() == 5 && Transaction.animationTimingFunction() == .easeIn)
        Transaction.setAnimationDuration(.nan)
        Transaction.setAnimationDuration(-1)
        #expect(Transaction.animationDuration() == 5, "unusable durations are ignored")
        Transaction.commit()
        #expect(Transaction.animationDuration() == 2 && Transaction.animationTimingFunction() == nil)
        Transaction.commit()
        #expect(Transaction.animationDuration() == 0.25 && !Transaction.disableActions())
        Transaction.commit()   // nothing open: nothing happens
        #expect(Transaction.depth == 0)
    }

    @Test("§9.2 disableActions: property changes run no implicit animation")
    func disableActions() {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.begin()
        Transaction.setDisableActions(true)
        layer.opacity = 0
        Transaction.commit()
        #expect(layer.animationKeys() == nil)
        ctx.tick(at: 0.1)
        #expect(layer.presentation()?.opacity == 0)
        layer.opacity = 1
        #expect(layer.animationKeys() == ["opacity"])
    }

    @Test("§9.2 the transaction's duration and timing function shape implicit animations")
    func durationAndFunctionShapeImplicitAnimations() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        Transaction.begin()
        Transaction.setAnimationDuration(2)
        Transaction.setAnimationTimingFunction(.linear)
        layer.opacity = 0
        Transaction.commit()
        let a = try #require(layer.animation(forKey: "opacity") as? BasicAnimation)
        #expect(a.duration == 2 && a.timingFunction == .linear && a.fromValue == .scalar(1) && a.toValue == nil)
        ctx.tick(at: 1)
        #expect(near(layer.presentation()?.opacity, 0.5))
        layer.opacity = 1
        #expect((layer.animation(forKey: "opacity") as? BasicAnimation)?.timingFunction == .default, "§3.3 implicit animations use .default")
    }

    @Test("§9.3 §17 #15 a completion block with no animations runs at commit")
    func completionWithoutAnimations() {
        freshTransactions()
        var ran = 0
        Transaction.begin()
        Transaction.setCompletionBlock { ran += 1 }
        #expect(Transaction.completionBlock() != nil)
        Transaction.commit()
        #expect(ran == 1)
    }

    @Test("§9.3 a completion block waits for the animations added after it was set, finished or removed")
    func completionWaitsForAnimations() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var log: [String] = []
        Transaction.begin()
        try layer.add(opacityFade(duration: 5), forKey: "before")   // added before the block: not waited for
        Transaction.setCompletionBlock { log.append("done") }
        try layer.add(opacityFade(duration: 1), forKey: "a")
        try layer.add(BasicAnimation(keyPath: "position.x", from: 0.0, to: 1.0, duration: 2), forKey: "b")
        Transaction.commit()
        #expect(log.isEmpty)
        ctx.tick(at: 1.5)
        #expect(log.isEmpty, "b is still running")
        layer.removeAnimation(forKey: "b")
        ctx.tick(at: 1.6)
        #expect(log == ["done"])
        ctx.tick(at: 6)
        #expect(log == ["done"])
    }

    @Test("§9.3 a replaced completion block runs as if committed; animations added inside a block use the outer settings")
    func replacedBlockAndOuterSettings() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var log: [String] = []
        Transaction.begin()
        Transaction.setAnimationDuration(3)
        Transaction.setCompletionBlock { log.append("first") }
        Transaction.setCompletionBlock {
            log.append("second")
            try? layer.add(opacityFade(duration: 0), forKey: "inside")
        }
        Transaction.commit()
        #expect(log == ["second"])
        ctx.tick(at: 0.1)
        #expect(log == ["second", "first"])
        #expect(layer.animation(forKey: "inside")?.duration == 0.25)
    }

    @Test("§9.3 nested transactions' animations are waited for by the outer block")
    func nestedAnimationsCount() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var done = false
        Transaction.begin()
        Transaction.setCompletionBlock { done = true }
        Transaction.begin()
        try layer.add(opacityFade(duration: 1), forKey: "inner")
        Transaction.commit()
        Transaction.commit()
        #expect(!done)
        ctx.tick(at: 0.5)
        #expect(!done)
        ctx.tick(at: 1.5)
        #expect(done)
    }

    @Test("§9.3 the implicit transaction's completion block runs in the tick that commits it")
    func implicitCompletion() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        var ran = false
        Transaction.setCompletionBlock { ran = true }
        #expect(Transaction.depth == 1)
        ctx.tick(at: 0.1)
        #expect(ran)
    }

    @Test("§9.4 flush commits the implicit transaction, deferred while explicit ones are open")
    func flushDefers() {
        let layer = Layer()
        let ctx = context(with: layer)
        defer { withExtendedLifetime(ctx) {} }
        var ran = false
        layer.opacity = 0.5
        Transaction.setCompletionBlock { ran = true }
        Transaction.begin()
        Transaction.flush()
        #expect(!ran && Transaction.depth == 2)
        Transaction.commit()
        #expect(ran && Transaction.depth == 0)
        layer.opacity = 0.25
        Transaction.flush()
        #expect(Transaction.depth == 0)
    }

    @Test("§9.5 changes of one key in one transaction collapse to the last action")
    func duplicatesCollapse() throws {
        let layer = Layer()
        let ctx = context(with: layer)
        layer.opacity = 0.5
        layer.opacity = 0
        #expect(layer.animationKeys() == ["opacity"])
        ctx.tick(at: 0.125)
        // One animation, from the presentation value (1) to the last model value (0), 0.25 s, .default.
        let expected = 1 - TimingFunction.default.value(at: 0.5)
        #expect(near(layer.presentation()?.opacity, expected))
    }

    @Test("§9.1 a new context starts from a committed implicit transaction: earlier settings do not leak")
    func newContextCommitsImplicit() {
        freshTransactions()
        Transaction.setDisableActions(true)   // on the implicit transaction, never ticked
        #expect(Transaction.depth == 1)
        let layer = Layer()
        let ctx = context(with: layer)   // (the helper commits too; a bare context does it itself)
        _ = ctx
        Transaction.setDisableActions(true)
        let bare = LayerContext()
        #expect(Transaction.depth == 0 && !Transaction.disableActions())
        let other = Layer()
        bare.rootLayer.addSublayer(other)
        other.opacity = 0.5
        #expect(other.animationKeys() == ["opacity"])
    }

    @Test("§9.4 lock and unlock are a recursive lock")
    func lockIsRecursive() {
        Transaction.lock()
        Transaction.lock()   // recursive: no deadlock
        Transaction.unlock()
        let taken = Mutex<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            Transaction.lock()   // waits until the test thread unlocks
            taken.withLock { $0 = true }
            Transaction.unlock()
            done.signal()
        }
        thread.start()
        usleep(20_000)
        #expect(!taken.withLock { $0 }, "held by this thread")
        Transaction.unlock()
        done.wait()
        #expect(taken.withLock { $0 })
    }

    @Test("transactions are per thread")
    func perThread() {
        freshTransactions()
        Transaction.begin()
        Transaction.setAnimationDuration(7)
        let seen = Mutex<Double>(0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            seen.withLock { $0 = Transaction.animationDuration() }
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(seen.withLock { $0 } == 0.25, "another thread sees its own stack")
        #expect(Transaction.animationDuration() == 7)
        Transaction.commit()
    }
}
