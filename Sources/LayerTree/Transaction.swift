#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimationCore

/// Core Animation's `CATransaction` (semantics §9): a stack of transactions per thread.
///
/// Every change to a layer in a ``LayerContext`` happens inside a transaction. The first change
/// made outside any explicit transaction opens an *implicit* one, which the next
/// ``LayerContext/tick(at:)`` commits (§9.1). ``begin()`` and ``commit()`` open and close explicit
/// ones, which nest.
///
/// Each level holds its own settings; a getter walks outward from the innermost level to the
/// first that set the value (§9.2): ``animationDuration()`` 0.25 s, ``animationTimingFunction()``
/// nil (implicit animations then use `.default`, §3.3), ``disableActions()`` false.
///
/// **Completion blocks** (§9.3): a block runs once every animation added *after it was set* in
/// this transaction (or in transactions nested in it) has finished or been removed. If none was
/// added by the time the transaction commits, it runs at the commit: inside ``commit()`` for an
/// explicit transaction, in the tick's completion step for the implicit one. Setting a second
/// block closes the first one's group: the first then runs as if its transaction had committed.
/// Blocks waiting for animations run in ``LayerContext/tick(at:)``'s completion step, after the
/// animation delegates.
///
/// **Threads.** The stack is per thread, as Core Animation's is; a layer tree is confined to one
/// thread (``LayerContext``), so its transactions are that thread's.
public enum Transaction {
    /// Opens an explicit transaction nested in the current one.
    public static func begin() {
        TransactionStack.current.levels.append(TransactionStack.Level(isImplicit: false))
    }

    /// Commits the innermost explicit transaction: its completion block runs now if no animation
    /// added after it was set is still running (§9.3). Without an explicit transaction open it
    /// commits the implicit one, as ``flush()`` does; with none at all it does nothing.
    public static func commit() {
        let stack = TransactionStack.current
        guard let level = stack.levels.popLast() else { return }
        stack.committed(level, runNow: true)
        if !stack.levels.contains(where: { !$0.isImplicit }) { stack.runDeferredFlush() }
    }

    /// Commits the implicit transaction now (§9.4). While explicit transactions are open it is
    /// deferred until the outermost of them commits.
    public static func flush() {
        let stack = TransactionStack.current
        if stack.levels.contains(where: { !$0.isImplicit }) {
            stack.flushDeferred = true
            return
        }
        stack.commitImplicit(runNow: true)
    }

    /// The duration given to animations added with `duration ≤ 0` (§1.3) and to implicit
    /// animations: the innermost level's that set one, else 0.25 s (§9.2).
    public static func animationDuration() -> Double {
        TransactionStack.current.animationDuration
    }

    /// Sets the current level's ``animationDuration()``. A value that is not finite and positive
    /// is ignored (the transaction keeps its duration): durations must be usable as they are.
    public static func setAnimationDuration(_ duration: Double) {
        guard duration > 0, duration.isFinite else { return }
        TransactionStack.current.currentLevel().duration = duration
    }

    /// The timing function of implicit animations: the innermost level's that set one, else nil
    /// (implicit animations then use `.default`, semantics §3.3).
    public static func animationTimingFunction() -> TimingFunction? {
        TransactionStack.current.animationTimingFunction
    }

    /// Sets the current level's ``animationTimingFunction()`` (nil: back to the enclosing level's).
    public static func setAnimationTimingFunction(_ function: TimingFunction?) {
        TransactionStack.current.currentLevel().timingFunction = .some(function)
    }

    /// Whether property changes run no actions (no implicit animations, §9.2): the innermost
    /// level's setting, else false.
    public static func disableActions() -> Bool {
        TransactionStack.current.disablesActions
    }

    /// Sets the current level's ``disableActions()``.
    public static func setDisableActions(_ flag: Bool) {
        TransactionStack.current.currentLevel().disableActions = flag
    }

    /// The current level's completion block, if one was set in it.
    public static func completionBlock() -> (() -> Void)? {
        TransactionStack.current.levels.last?.completion?.block
    }

    /// Sets the current level's completion block (§9.3); it waits for the animations added from
    /// now on in this transaction. Nil clears it (a block set before still waits for its own).
    public static func setCompletionBlock(_ block: (() -> Void)?) {
        let stack = TransactionStack.current
        let level = stack.currentLevel()
        if let previous = level.completion {
            previous.commit(into: stack, runNow: false)
        }
        level.completion = block.map { CompletionGroup(block: $0) }
    }

    /// How many transactions are open on this thread (the implicit one counts).
    public static var depth: Int { TransactionStack.current.levels.count }

    /// Takes the global recursive lock that Core Animation offers for changing layer properties
    /// from several threads (§9.4). Layer trees here are confined to one thread (``LayerContext``);
    /// the lock is for hosts that share other state around their trees. Every `lock()` needs an
    /// `unlock()` on the same thread.
    public static func lock() { TransactionLock.shared.lock() }

    /// Releases the lock taken by ``lock()``.
    public static func unlock() { TransactionLock.shared.unlock() }
}

/// A recursive pthread mutex (raw memory: the mutex is allocated once and never moves, as
/// pthread requires).
final class TransactionLock: @unchecked Sendable {   // the mutex serialises every access itself
    static let shared = TransactionLock()
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    private init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// A completion block and the animations it waits for (semantics §9.3).
final class CompletionGroup {
    let block: () -> Void
    /// Animations added to it that have not stopped.
    var pending = 0
    /// Its transaction committed (or its block was replaced): it runs once `pending` is 0.
    var isClosed = false
    var hasRun = false
    /// Whether every animation it waited for finished (for `View.animate`'s `completion(Bool)`).
    var allFinished = true
    /// `View.animate`'s completion, called with ``allFinished`` instead of ``block``.
    var finishedBlock: ((Bool) -> Void)?

    init(block: @escaping () -> Void) { self.block = block }

    /// Closes the group; it runs now (`runNow`) or is queued on the thread's stack when nothing
    /// is pending.
    func commit(into stack: TransactionStack, runNow: Bool) {
        isClosed = true
        guard pending == 0, !hasRun else { return }
        if runNow { run() } else { stack.readyCompletions.append(self) }
    }

    /// One of its animations stopped.
    func animationStopped(finished: Bool, stack: TransactionStack) {
        pending -= 1
        if !finished { allFinished = false }
        if pending == 0 && isClosed && !hasRun { stack.readyCompletions.append(self) }
    }

    func run() {
        guard !hasRun else { return }
        hasRun = true
        if let finishedBlock { finishedBlock(allFinished) } else { block() }
    }
}

/// The per-thread transaction stack behind ``Transaction``. Reached through a pthread key: the
/// stack is thread-local by definition (§9.1) and Swift has no thread-local storage of its own.
final class TransactionStack {
    final class Level {
        let isImplicit: Bool
        var duration: Double?
        var timingFunction: TimingFunction??
        var disableActions: Bool?
        var retargetMode: RetargetMode?
        var completion: CompletionGroup?
        init(isImplicit: Bool) { self.isImplicit = isImplicit }
    }

    /// Outermost first; an implicit level, when open, is at index 0.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: one thread's stack, no closure runs during an access
    #endif
    var levels: [Level] = []
    /// `flush()` was called while explicit transactions were open.
    var flushDeferred = false
    /// Completion blocks whose animations are all done, waiting for a tick's completion step.
    var readyCompletions: [CompletionGroup] = []
    /// Open `View.animate` blocks, innermost last (their durations).
    var viewAnimations: [Double] = []

    /// This thread's stack.
    static var current: TransactionStack {
        if let raw = pthread_getspecific(transactionStackKey) {
            // The key holds a retained TransactionStack (set below, released by the key's destructor).
            return Unmanaged<TransactionStack>.fromOpaque(raw).takeUnretainedValue()
        }
        let stack = TransactionStack()
        pthread_setspecific(transactionStackKey, Unmanaged.passRetained(stack).toOpaque())
        return stack
    }

    /// The innermost level, opening the implicit transaction when none is open (§9.1).
    func currentLevel() -> Level {
        if let level = levels.last { return level }
        let level = Level(isImplicit: true)
        levels.append(level)
        return level
    }

    /// ``Transaction/animationDuration()`` on this stack.
    var animationDuration: Double {
        for level in levels.reversed() { if let d = level.duration { return d } }
        return MediaTiming.defaultDuration
    }

    /// ``Transaction/animationTimingFunction()`` on this stack.
    var animationTimingFunction: TimingFunction? {
        for level in levels.reversed() { if let f = level.timingFunction { return f } }
        return nil
    }

    /// The default actions made so far (§10 step 4), by catalog index, each with the timing
    /// function it carries: a change would otherwise build its action anew, a 550-byte animation
    /// boxed and freed again (0.3 µs of an implicit change). Shared copies are safe: an
    /// animation is a value, and whoever changes one changes a copy of its own.
    #if !DEBUG
    @exclusivity(unchecked)   // unchecked in release: one thread's stack, no closure runs during an access
    #endif
    private var implicitActions: [(timing: TimingFunction, action: LayerAction)?] =
        Array(repeating: nil, count: LayerProperty.all.count)

    /// The default action of the cataloged property at `index` (named `key`) under this stack's
    /// transaction: a basic animation of `key` with no values and the transaction's timing
    /// function, else `.default` (§3.3, §10). Its duration (0) resolves to the transaction's
    /// when added (§1.3).
    func implicitAction(index: Int, key: String) -> LayerAction {
        let timing = animationTimingFunction ?? .default
        if let cached = implicitActions[index], cached.timing == timing { return cached.action }
        var animation = BasicAnimation(keyPath: key)
        animation.timingFunction = timing
        let action = LayerAction.animation(animation)
        implicitActions[index] = (timing, action)
        return action
    }

    /// Whether a level on this thread ever set a retarget mode: until one does, every change
    /// knows it restarts without walking the levels (a change is made by the hundred per tick).
    var hasSetRetargetMode = false

    /// ``Transaction/retargetMode()`` on this stack.
    var retargetMode: RetargetMode {
        guard hasSetRetargetMode else { return .restart }
        for level in levels.reversed() { if let mode = level.retargetMode { return mode } }
        return .restart
    }

    /// ``Transaction/disableActions()`` on this stack.
    var disablesActions: Bool {
        for level in levels.reversed() { if let flag = level.disableActions { return flag } }
        return false
    }

    /// Opens the implicit transaction if no transaction is open: every change does (§9.1).
    func touch() {
        if levels.isEmpty { levels.append(Level(isImplicit: true)) }
    }

    /// Whether an open level has a completion block (checked before ``openGroups()``, which
    /// builds an array: most changes happen with none).
    var hasOpenGroups: Bool {
        levels.contains { $0.completion != nil }
    }

    /// Whether a completion block will run at the next tick without new input: one that became
    /// ready, or the implicit transaction's (committed by the tick) with nothing left to wait for.
    var hasCompletionDue: Bool {
        if !readyCompletions.isEmpty { return true }
        guard levels.count == 1, levels[0].isImplicit, let group = levels[0].completion else { return false }
        return group.pending == 0 && !group.hasRun
    }

    /// Every open level's completion group: an animation added now is waited for by each.
    func openGroups() -> [CompletionGroup] {
        levels.compactMap { $0.completion }
    }

    /// A level was popped: its completion block runs now or when its animations are done.
    func committed(_ level: Level, runNow: Bool) {
        level.completion?.commit(into: self, runNow: runNow)
    }

    /// Commits the implicit transaction if it is the only level open.
    func commitImplicit(runNow: Bool) {
        guard levels.count == 1, levels[0].isImplicit else { return }
        let level = levels.removeFirst()
        committed(level, runNow: runNow)
    }

    func runDeferredFlush() {
        if flushDeferred {
            flushDeferred = false
            commitImplicit(runNow: true)
        }
    }

    /// Runs the completion blocks that became ready, in the order they did (blocks they add run
    /// in a later tick's step, so the step is bounded).
    func runReadyCompletions() {
        guard !readyCompletions.isEmpty else { return }
        let ready = readyCompletions
        readyCompletions.removeAll(keepingCapacity: true)
        for group in ready { group.run() }
    }
}

/// The key of each thread's ``TransactionStack``; its destructor releases the stack when the
/// thread ends.
private let transactionStackKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { raw in
        // The value was stored retained by `TransactionStack.current`.
        if let raw { Unmanaged<TransactionStack>.fromOpaque(raw).release() }
    }
    return key
}()
