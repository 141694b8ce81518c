import AnimationBatch
import AnimationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Many instances of compiled Lottie files (``LottieProgram``), each at its own frame, evaluated
/// together over all cores — what a screen of stickers or a dashboard of animated icons asks of
/// a player each tick.
///
/// An instance is a frame and preallocated output buffers: no per-instance object graph. A
/// ``tick()`` evaluates every instance at its frame into its buffers and allocates nothing (the
/// buffers are sized when instances are added, from the program's bounds, which are proved
/// enough for any frame).
///
/// **Precision.** The output is stored in single precision, as rlottie keeps its geometry and
/// as a renderer uploads it: a point is within half a `Float` ulp of its value (7.6 × 10⁻⁶ px
/// below 256 px, 1.2 × 10⁻⁴ px below 4,096), which halves the memory an instance holds. The values
/// rounded are the reference evaluation's (``LottieAnimation/nodes(atFrame:size:)``, in
/// `Double`) bit for bit, trims included (they measure arc length with the reference's own
/// breakpoints). Instances are split into chunks with fixed boundaries, each written by one
/// thread: results are identical for any thread count.
///
/// Instances are numbered `0 ..< instanceCount`. ``remove(_:)`` keeps the numbers dense: the last
/// instance takes the removed one's number (as a swap-remove does), and the removed instance's
/// buffers are reused by the next ``add(_:count:)`` of the same program, or given back when the
/// unused space outgrows the used (a host that adds and removes instances as things scroll
/// by holds memory for what it shows, not for what it ever showed).
///
/// Not thread-safe: one thread adds and removes instances, sets frames, ticks and reads; the tick
/// uses its own worker threads and returns when they are done.
public final class LottieBatch {
    /// One instance's output after a tick.
    struct Output {
        var nodeStart: Int
        var nodeCount: Int
        var kindStart: Int
        var numberStart: Int
        /// The element kinds and path numbers its nodes use, from the region's start: what an
        /// instance at the same frame copies (``tick()``).
        var kindCount = 0
        var numberCount = 0
        /// Whether its last tick dropped elements (``overflowCount``).
        var dropped = false
    }

    /// An entry of the table that finds instances at the same frame of the same program
    /// (``tick()``): the frame's bits, the first instance found at it, the tick that wrote it.
    struct FrameEntry {
        var frameBits: UInt64
        var instance: Int32
        var epoch: UInt32
    }

    /// A node in an instance's output: its elements (kinds and numbers, in the instance's
    /// buffers), paint and opacity; 40 bytes.
    struct NodeRecord {
        var kindStart: Int32
        var kindCount: Int32
        var numberStart: Int32
        /// The program's paint (its style) shifted left once, | 1 for a fill; −1 for a solid
        /// layer's fill, which has no paint.
        var paintAndFill: Int32
        var red: Float
        var green: Float
        var blue: Float
        var alpha: Float
        var width: Float
        var opacity: Float
        /// The node's clip polygon: its first number in the instance's numbers, and its corner
        /// count (−1: nothing clips the node; 0: everything does).
        var clipStart: Int32
        var clipCount: Int32

        var isFill: Bool { paintAndFill & 1 != 0 }
        var paint: Int { Int(paintAndFill >> 1) }
        var color: Color { Color(red: Double(red), green: Double(green), blue: Double(blue), alpha: Double(alpha)) }
    }

    // The per-instance state a tick and `setFrame` read for every instance: unchecked
    // exclusivity, because the batch is confined to one thread (above) and a tick's threads write
    // only their own chunks' elements of `outputs`, so no two accesses ever overlap — the dynamic
    // checks (a thread-local access set per read) took 13 % of a one-layer file's tick.
    @exclusivity(unchecked) private(set) var programs: [LottieProgram] = []
    @exclusivity(unchecked) private var programOf: [Int] = []
    @exclusivity(unchecked) private var frames: [Double] = []
    /// Each instance's output region (internal: the invariant tests corrupt it on purpose).
    @exclusivity(unchecked) var outputs: [Output] = []
    // Every instance's output, one after another (raw memory, sized by `add`, freed in deinit).
    @exclusivity(unchecked) private var nodes: UnsafeMutableBufferPointer<NodeRecord> = .init(start: nil, count: 0)
    @exclusivity(unchecked) private var kinds: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)
    @exclusivity(unchecked) private var numbers: UnsafeMutableBufferPointer<Float> = .init(start: nil, count: 0)
    private var nodeTotal = 0, kindTotal = 0, numberTotal = 0
    /// Output regions of removed instances, by program: the next instances of that program take
    /// them before the buffers grow.
    private var freeRegions: [[Output]] = []
    /// Bytes of output in ``freeRegions``, and in the regions of instances held.
    private var freeBytes = 0, usedBytes = 0

    private let pool: WorkerPool?
    private var job: TickJob?
    /// Instances per chunk: fixed boundaries make results independent of the thread count.
    static let chunkSize = 16
    /// Working memory, one per thread (the caller's first): an evaluation leaves in it only its
    /// memo of solved curves (``SolveMemo``), whose entries are pure functions of their keys —
    /// the same bits whichever instance wrote them — so which thread runs a chunk does not matter.
    @exclusivity(unchecked) private var scratches: [LottieScratch] = []
    /// Frame sharing (``tick()``), raw memory sized by `add` like the outputs: per instance, the
    /// instance whose output it copies this tick (−1: it is evaluated), and the open-addressed
    /// table (a power of two, at least twice the instances) that finds them, its entries valid
    /// for the tick whose epoch they hold.
    @exclusivity(unchecked) private var sharedSource: UnsafeMutableBufferPointer<Int32> = .init(start: nil, count: 0)
    @exclusivity(unchecked) private var frameTable: UnsafeMutableBufferPointer<FrameEntry> = .init(start: nil, count: 0)
    private var frameEpoch: UInt32 = 0
    /// Ticks left before the batch looks for shared frames again, after a look found few.
    private var ticksBeforeSharing = 0

    /// A batch evaluated on up to `maximumThreads` threads (0: one per processor).
    public init(maximumThreads: Int = 0) {
        let threads = maximumThreads > 0 ? maximumThreads : WorkerPool.processorCount
        pool = threads > 1 ? WorkerPool(workers: threads - 1) : nil
        scratches = (0..<threads).map { _ in LottieScratch() }
    }

    deinit {   // the batch's own buffers, regrown only by `add` (never while a tick runs)
        nodes.deallocate()
        kinds.deallocate()
        numbers.deallocate()
        sharedSource.deallocate()
        frameTable.deallocate()
    }

    /// How many instances the batch holds.
    public var instanceCount: Int { frames.count }

    /// The memory the batch holds for its instances and ticks, in bytes: output buffers, frames
    /// and per-thread working memory (the programs themselves are shared and not counted).
    public var bufferBytes: Int {
        let output = nodes.count * MemoryLayout<NodeRecord>.stride + kinds.count + numbers.count * MemoryLayout<Float>.stride
        let perInstance = frames.count * (MemoryLayout<Double>.stride + MemoryLayout<Output>.stride + MemoryLayout<Int>.stride)
        let frameSharing = sharedSource.count * MemoryLayout<Int32>.stride + frameTable.count * MemoryLayout<FrameEntry>.stride
        return output + perInstance + frameSharing + scratches.reduce(0) { $0 + $1.bytes }
    }

    /// Adds `count` instances of `program`, each at the program's first frame; returns their
    /// numbers. Sets up their output buffers (this allocates; ticks do not).
    ///
    /// - Throws: ``LottieError/invalid(path:reason:)`` naming `count` when it is negative or more
    ///   than 10,000,000 instances would be held.
    @discardableResult
    public func add(_ program: LottieProgram, count: Int) throws -> Range<Int> {
        guard count >= 0, frames.count + count <= 10_000_000 else {
            throw LottieError.invalid(path: "count", reason: "must be in 0…\(10_000_000 - frames.count) (got \(count))")
        }
        let p = programs.firstIndex { $0 === program } ?? {
            programs.append(program)
            freeRegions.append([])
            return programs.count - 1
        }()
        let first = frames.count
        let bytes = Self.regionBytes(program)
        for _ in 0..<count {
            programOf.append(p)
            frames.append(program.animation.inPoint)
            if var region = freeRegions[p].popLast() {
                // A new instance has drawn nothing yet, whatever the region held.
                (region.nodeCount, region.kindCount, region.numberCount, region.dropped) = (0, 0, 0, false)
                outputs.append(region)
                freeBytes -= bytes
            } else {
                outputs.append(Output(nodeStart: nodeTotal, nodeCount: 0, kindStart: kindTotal, numberStart: numberTotal))
                nodeTotal += program.outputNodes
                kindTotal += program.outputKinds
                numberTotal += program.outputNumbers
            }
            usedBytes += bytes
        }
        grow()
        return first..<frames.count
    }

    /// Whether the batch holds `program`: an instance shows it, or buffers that removed instances
    /// left wait for its next one (until the batch gives unused space back).
    public func holds(_ program: LottieProgram) -> Bool { programs.contains { $0 === program } }

    /// What fills output buffers no tick has written yet.
    private static let emptyNode = NodeRecord(kindStart: 0, kindCount: 0, numberStart: 0, paintAndFill: -1,
                                              red: 0, green: 0, blue: 0, alpha: 0, width: 0, opacity: 0, clipStart: 0, clipCount: -1)

    /// The output bytes one instance of `program` holds.
    private static func regionBytes(_ program: LottieProgram) -> Int {
        program.outputNodes * MemoryLayout<NodeRecord>.stride + program.outputKinds + program.outputNumbers * MemoryLayout<Float>.stride
    }

    /// Removes `instance`. The last instance takes its number, so that numbers stay
    /// `0 ..< instanceCount`: the result is the number it had (`instanceCount` after the call),
    /// or nil when `instance` was the last and nothing moved. The moved instance keeps its
    /// program, frame and last geometry.
    ///
    /// - Throws: ``LottieError/invalid(path:reason:)`` naming `instance` when the batch does not
    ///   hold it (nothing is removed).
    @discardableResult
    public func remove(_ instance: Int) throws -> Int? {
        guard frames.indices.contains(instance) else {
            throw LottieError.invalid(path: "instance", reason: "must be in 0..<\(frames.count) (got \(instance))")
        }
        let p = programOf[instance], bytes = Self.regionBytes(programs[p])
        freeRegions[p].append(outputs[instance])
        freeBytes += bytes
        usedBytes -= bytes
        let last = frames.count - 1
        if instance != last {
            programOf[instance] = programOf[last]
            frames[instance] = frames[last]
            outputs[instance] = outputs[last]
        }
        programOf.removeLast()
        frames.removeLast()
        outputs.removeLast()
        // Unused space given back once it outgrows the used (and a few pages): amortised, a
        // compaction copies at most what removals freed since the last one.
        if freeBytes > max(usedBytes, 1 << 16) { compact() }
        return instance != last ? last : nil
    }

    /// Gives back every byte removed instances left, at once (``remove(_:)`` does it by itself
    /// once unused space outgrows the used and 64 KB): lays the instances' outputs out again one
    /// after another, in number order, with their last geometry, and lets go of programs no
    /// instance shows. For a host between scenes; it allocates and copies every instance's output.
    public func compact() {
        var held = [Bool](repeating: false, count: programs.count)
        for p in programOf { held[p] = true }
        var renumber = [Int](repeating: -1, count: programs.count)
        var kept: [LottieProgram] = []
        for (p, program) in programs.enumerated() where held[p] {
            renumber[p] = kept.count
            kept.append(program)
        }
        var nodeCount = 0, kindCount = 0, numberCount = 0
        for p in programOf {
            nodeCount += programs[p].outputNodes
            kindCount += programs[p].outputKinds
            numberCount += programs[p].outputNumbers
        }
        // The new buffers replace the old below and are freed in deinit or by the next compaction
        // (never empty: a base address always exists).
        let newNodes = UnsafeMutableBufferPointer<NodeRecord>.allocate(capacity: max(nodeCount, 1))
        let newKinds = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(kindCount, 1))
        let newNumbers = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(numberCount, 1))
        newNodes.initialize(repeating: Self.emptyNode)   // every held region is copied over below
        newKinds.initialize(repeating: 0)
        newNumbers.initialize(repeating: 0)
        var nodeAt = 0, kindAt = 0, numberAt = 0
        for i in outputs.indices {
            let program = programs[programOf[i]], o = outputs[i]
            // Each region lies inside the old buffers (laid out by `add`) and its new place inside
            // the new ones (sized from the same capacities just above).
            (newNodes.baseAddress! + nodeAt).update(from: nodes.baseAddress! + o.nodeStart, count: program.outputNodes)
            (newKinds.baseAddress! + kindAt).update(from: kinds.baseAddress! + o.kindStart, count: program.outputKinds)
            (newNumbers.baseAddress! + numberAt).update(from: numbers.baseAddress! + o.numberStart, count: program.outputNumbers)
            var moved = o
            (moved.nodeStart, moved.kindStart, moved.numberStart) = (nodeAt, kindAt, numberAt)
            outputs[i] = moved
            nodeAt += program.outputNodes
            kindAt += program.outputKinds
            numberAt += program.outputNumbers
            programOf[i] = renumber[programOf[i]]
        }
        // The old buffers: every region was copied out above, and nothing else points into them
        // (views from `withGeometry` live only inside its closure).
        nodes.deallocate()
        kinds.deallocate()
        numbers.deallocate()
        (nodes, kinds, numbers) = (newNodes, newKinds, newNumbers)
        (nodeTotal, kindTotal, numberTotal) = (nodeCount, kindCount, numberCount)
        sizeSharing(shrinking: true)
        programs = kept
        freeRegions = Array(repeating: [], count: kept.count)
        freeBytes = 0
        job = nil
    }

    private func grow() {
        func regrow<T>(_ buffer: inout UnsafeMutableBufferPointer<T>, _ count: Int, _ fill: T) {
            // Never left without a base address: instances of a file that draws nothing (no shapes,
            // or only null layers) still point into the buffers (the lottie fuzzer found the trap).
            guard count > buffer.count || buffer.baseAddress == nil else { return }
            let bigger = UnsafeMutableBufferPointer<T>.allocate(capacity: max(count, buffer.count * 2, 1))
            bigger.initialize(repeating: fill)
            if let base = buffer.baseAddress, let to = bigger.baseAddress { to.update(from: base, count: buffer.count) }
            buffer.deallocate()
            buffer = bigger
        }
        regrow(&nodes, nodeTotal, Self.emptyNode)
        regrow(&kinds, kindTotal, 0)
        regrow(&numbers, numberTotal, 0)
        sizeSharing(shrinking: false)
        for s in scratches { for p in programs { s.reserve(for: p) } }
        job = nil
    }

    /// Sizes the frame-sharing memory for the instances held: a source per instance and a table
    /// of a power of two at least twice as many entries (so that a probe always meets a free
    /// one), grown with the instances, shrunk only by ``compact()``.
    private func sizeSharing(shrinking: Bool) {
        let sources = max(frames.count, 1)
        var entries = 16
        while entries < 2 * frames.count { entries <<= 1 }   // ≤ 25 doublings: at most 10⁷ instances
        if sharedSource.count < sources || (shrinking && sharedSource.count > sources) {
            sharedSource.deallocate()
            sharedSource = .allocate(capacity: max(sources, shrinking ? 0 : 2 * sharedSource.count))
            sharedSource.initialize(repeating: -1)
        }
        if frameTable.count < entries || (shrinking && frameTable.count > entries) {
            frameTable.deallocate()
            frameTable = .allocate(capacity: max(entries, shrinking ? 0 : 2 * frameTable.count))
            frameTable.initialize(repeating: FrameEntry(frameBits: 0, instance: -1, epoch: 0))
            frameEpoch = 0   // every entry is older than the next tick
        }
    }

    /// Elements that did not fit the buffers in every tick so far: 0, unless the program's
    /// capacity bounds (lottie §4.5) are wrong. The tests and the fuzz target check it; a host
    /// may too (a non-zero count means some path was drawn short).
    public var overflowCount: Int { scratches.reduce(0) { $0 + $1.work.overflows[0] } }

    /// Whether `batch` is `reference` stored in single precision, which is what a batch promises
    /// for every instance (its nodes against ``LottieAnimation/nodes(atFrame:size:)`` at the same
    /// frame and size): the same nodes, paint kinds, path and clip elements, and every number (points,
    /// colours, width, opacity) the nearest `Float` to the reference's — past Float's range the
    /// infinity it rounds to —; a NaN matches a NaN.
    public static func storesReference(_ batch: [LottieNode], _ reference: [LottieNode]) -> Bool {
        func same(_ stored: Double, _ exact: Double) -> Bool {
            let single = Double(Float(exact))
            return stored == single || (stored.isNaN && single.isNaN)
        }
        func same(_ stored: Color?, _ exact: Color?) -> Bool {
            guard let stored, let exact else { return stored == nil && exact == nil }
            return same(stored.red, exact.red) && same(stored.green, exact.green) && same(stored.blue, exact.blue)
                && same(stored.alpha, exact.alpha)
        }
        func same(_ stored: Path, _ exact: Path) -> Bool {
            guard stored.elements.count == exact.elements.count else { return false }
            for (e, f) in zip(stored.elements, exact.elements) {
                switch (e, f) {
                case (.move, .move), (.line, .line), (.curve, .curve), (.closeSubpath, .closeSubpath): break
                default: return false
                }
                for (u, v) in zip(e.points, f.points) where !same(u.x, v.x) || !same(u.y, v.y) { return false }
            }
            return true
        }
        guard batch.count == reference.count else { return false }
        for (b, r) in zip(batch, reference) {
            guard same(b.fill, r.fill), same(b.stroke, r.stroke), same(b.opacity, r.opacity),
                  same(b.strokeWidth, r.strokeWidth), b.strokeStyle == r.strokeStyle, same(b.path, r.path),
                  (b.clip == nil) == (r.clip == nil) else { return false }
            if let stored = b.clip, let exact = r.clip, !same(stored, exact) { return false }
        }
        return true
    }

    /// The frame of `instance` (the file's own frame numbers), or nil for a number the batch
    /// does not hold.
    public func frame(of instance: Int) -> Double? { frames.indices.contains(instance) ? frames[instance] : nil }

    /// Sets the frame `instance` shows from the next tick; frames outside `ip ≤ f < op` are
    /// drawn as the file defines them there (usually nothing), a frame that is not finite is the
    /// file's first. A number the batch does not hold is ignored.
    public func setFrame(_ frame: Double, of instance: Int) {
        guard frames.indices.contains(instance) else { return }
        frames[instance] = frame.isFinite ? frame : programs[programOf[instance]].animation.inPoint
    }

    /// Evaluates every instance at its frame (all cores; no allocation).
    ///
    /// Instances of one program at the same frame (the same bits) draw the same geometry — an
    /// instance's output is a function of its program and frame alone — so one of them is
    /// evaluated and the others copy its output, after every evaluation is done: a grid of
    /// stickers started together, or more instances than a file has frames, costs one evaluation
    /// per frame shown. Finding them is a pass over the instances on the calling thread (a hash
    /// of each frame, a few nanoseconds an instance); where a pass finds that fewer than one
    /// instance in eight shares a frame (a player at the display's rate gives each its own
    /// fraction of a frame), the next 15 ticks skip it. Copies are the bits an evaluation writes,
    /// so what a tick shows does not depend on which instances were evaluated.
    public func tick() {
        checkInvariants()   // debug and fuzzing builds only: nothing in release
        let chunks = (frames.count + Self.chunkSize - 1) / Self.chunkSize
        guard chunks > 0 else { return }
        if job == nil { job = TickJob(batch: self) }
        var copies = 0
        if ticksBeforeSharing > 0 {
            ticksBeforeSharing -= 1
        } else {
            copies = findSharedFrames()
            if copies * 8 < frames.count { ticksBeforeSharing = 15 }
        }
        if copies > 0 {
            run(chunks, .evaluateSources)
            run(chunks, .copyShared)
        } else {
            run(chunks, .evaluateAll)
        }
    }

    /// What one run over the chunks does (``tick()``).
    enum Phase {
        /// Every instance is evaluated (no look this tick, or it found no shared frame).
        case evaluateAll
        /// Instances without a source (``sharedSource`` −1) are evaluated; the others wait.
        case evaluateSources
        /// Instances with a source copy its output: the run after `evaluateSources`, once every
        /// evaluation has ended.
        case copyShared
    }

    /// Runs `runChunk` on every chunk (`WorkerPool.run` returns when every chunk has run).
    private func run(_ chunks: Int, _ phase: Phase) {
        let job = self.job!   // set by `tick`
        job.phase = phase
        if let pool, chunks > 1 {
            pool.prepare()
            pool.run(chunks, job: job)
        } else {
            for c in 0..<chunks { runChunk(c, phase: phase) }
        }
    }

    final class TickJob: ParallelJob {
        unowned let batch: LottieBatch
        /// Set by the batch's thread before a run, read by the workers during it.
        nonisolated(unsafe) var phase = Phase.evaluateAll
        init(batch: LottieBatch) { self.batch = batch }
        func runChunk(_ index: Int) { batch.runChunk(index, thread: 0, phase: phase) }
        func runChunk(_ index: Int, thread: Int) { batch.runChunk(index, thread: thread, phase: phase) }
    }

    /// Sets each instance's source for this tick (``sharedSource``: the first instance of its
    /// program at the same frame bits, or −1); returns how many instances have one.
    private func findSharedFrames() -> Int {
        frameEpoch &+= 1
        if frameEpoch == 0 {   // wrapped (after 2³² looks): entries of the last epoch 0 would look current
            for e in frameTable.indices { frameTable[e].epoch = 0 }
            frameEpoch = 1
        }
        let epoch = frameEpoch, mask = frameTable.count - 1   // a power of two (sizeSharing)
        // Raw memory sized for the instances (sizeSharing): the table holds at least twice as
        // many entries as are written here.
        let table = frameTable.baseAddress!, source = sharedSource.baseAddress!
        var copies = 0
        frames.withUnsafeBufferPointer { frames in
        programOf.withUnsafeBufferPointer { programOf in
        for i in frames.indices {
            let bits = frames[i].bitPattern, program = programOf[i]
            // SplitMix64's finaliser: every bit of the frame reaches the low bits the table takes
            // (whole frames differ only in their high bits).
            var h = bits ^ UInt64(truncatingIfNeeded: program) &* 0x9E37_79B9_7F4A_7C15
            h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
            h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
            h ^= h >> 31
            var slot = Int(truncatingIfNeeded: h) & mask
            source[i] = -1
            // At most 32 probes: frames chosen to collide cost a bounded pass (such an instance is
            // evaluated, not shared), never one quadratic in the instances.
            for _ in 0..<32 {
                let entry = table[slot]
                if entry.epoch != epoch {
                    table[slot] = FrameEntry(frameBits: bits, instance: Int32(truncatingIfNeeded: i), epoch: epoch)
                    break
                }
                if entry.frameBits == bits && programOf[Int(entry.instance)] == program {
                    source[i] = entry.instance
                    copies += 1
                    break
                }
                slot = (slot + 1) & mask
            }
        }
        }
        }
        return copies
    }

    func runChunk(_ c: Int, thread: Int = 0, phase: Phase = .evaluateAll) {
        let work = scratches[thread].work   // raw buffers: copied once per chunk, used without checks
        let end = min(frames.count, (c + 1) * Self.chunkSize)
        // The buffers always have a base address (sized ≥ 1).
        let nodeBase = nodes.baseAddress!, kindBase = kinds.baseAddress!, numberBase = numbers.baseAddress!
        let source = sharedSource.baseAddress!, everyInstance = phase == .evaluateAll
        if phase == .copyShared {
            var current = -1, pathNumbers = 0, clipNumbers = 0
            for i in c * Self.chunkSize..<end where source[i] >= 0 {
                if programOf[i] != current {   // the program read once per run of its instances
                    current = programOf[i]
                    (pathNumbers, clipNumbers) = (programs[current].outputPathNumbers, programs[current].outputNumbers - programs[current].outputPathNumbers)
                }
                // The source's region holds what it drew this tick (every evaluation ended before
                // this run); both regions have its program's capacities, and regions never overlap.
                let from = outputs[Int(source[i])], o = outputs[i]
                (nodeBase + o.nodeStart).update(from: nodeBase + from.nodeStart, count: from.nodeCount)
                (kindBase + o.kindStart).update(from: kindBase + from.kindStart, count: from.kindCount)
                (numberBase + o.numberStart).update(from: numberBase + from.numberStart, count: from.numberCount)
                // Clip polygons lie past the path numbers (their places are the program's).
                if clipNumbers > 0 {
                    (numberBase + o.numberStart + pathNumbers).update(from: numberBase + from.numberStart + pathNumbers, count: clipNumbers)
                }
                (outputs[i].nodeCount, outputs[i].kindCount, outputs[i].numberCount, outputs[i].dropped)
                    = (from.nodeCount, from.kindCount, from.numberCount, from.dropped)
                if from.dropped { work.overflows[0] += 1 }
            }
            return
        }
        frames.withUnsafeBufferPointer { frames in
        programOf.withUnsafeBufferPointer { programOf in
        // The program changes only between runs of one file's instances: taken (and retained)
        // once per run, not per instance. The chunk is not empty (`tick` counts chunks from the
        // instances).
        var current = programOf[c * Self.chunkSize]
        var program = programs[current]
        for i in c * Self.chunkSize..<end where everyInstance || source[i] < 0 {
            if programOf[i] != current {
                current = programOf[i]
                program = programs[current]
            }
            // Instance i's regions start at its offsets with the program's capacities inside them
            // (`add` laid them out); the sink never writes past a capacity (it counts an overflow
            // instead).
            let o = outputs[i]
            var out = OutputSink(nodes: nodeBase + o.nodeStart, nodeCapacity: program.outputNodes,
                                 kinds: kindBase + o.kindStart, kindCapacity: program.outputKinds,
                                 numbers: numberBase + o.numberStart, numberCapacity: program.outputPathNumbers,
                                 clipBase: program.outputPathNumbers)
            work.evaluate(program, frame: frames[i], into: &out)
            (outputs[i].nodeCount, outputs[i].kindCount, outputs[i].numberCount, outputs[i].dropped)
                = (out.nodeCount, out.kindCount, out.numberCount, out.dropped)
            if out.dropped { work.overflows[0] += 1 }
        }
        }
        }
    }

    /// What `instance` drew in the last tick, as nodes (allocates: for checks and readers that
    /// want values; hosts that upload read ``withGeometry(of:_:)``).
    public func nodes(of instance: Int) -> [LottieNode] {
        guard outputs.indices.contains(instance) else { return [] }
        let o = outputs[instance]
        return (0..<o.nodeCount).map { k in
            let n = nodes[o.nodeStart + k]
            var path = Path()
            var at = o.numberStart + Int(n.numberStart)
            func point(_ j: Int) -> Point { Point(x: Double(numbers[j]), y: Double(numbers[j + 1])) }
            for e in 0..<Int(n.kindCount) {
                switch kinds[o.kindStart + Int(n.kindStart) + e] {
                case 0: path.move(to: point(at)); at += 2
                case 1: path.addLine(to: point(at)); at += 2
                case 2:
                    path.addCurve(to: point(at + 4), control1: point(at), control2: point(at + 2))
                    at += 6
                default: path.closeSubpath()
                }
            }
            let style = n.isFill || n.paint < 0 ? nil : programs[programOf[instance]].paints[n.paint].style
            let clipAt = o.numberStart + Int(n.clipStart)
            let clip = n.clipCount < 0 ? nil : LottieClip.path(Int(n.clipCount)) { point(clipAt + 2 * $0) }
            return LottieNode(path: path, fill: n.isFill ? n.color : nil, stroke: n.isFill ? nil : n.color,
                              strokeWidth: Double(n.width), opacity: Double(n.opacity), strokeStyle: style, clip: clip)
        }
    }

    /// Calls `body` with `instance`'s last geometry in place: its node count, then per node the
    /// element kinds (0 move, 1 line, 2 cubic, 3 close) and their numbers (x, y per point; a
    /// cubic's two controls then its end; single precision), without copying. A number the
    /// batch does not hold gives an empty view.
    public func withGeometry(of instance: Int, _ body: (LottieGeometryView) -> Void) {
        guard outputs.indices.contains(instance), let kindBase = kinds.baseAddress,
              let numberBase = numbers.baseAddress else {
            return body(LottieGeometryView(nodes: UnsafeBufferPointer(start: nil, count: 0), kinds: UnsafePointer(bitPattern: 1)!,
                                           numbers: UnsafePointer(bitPattern: 8)!))   // never read: no nodes
        }
        let o = outputs[instance]
        body(LottieGeometryView(nodes: UnsafeBufferPointer(rebasing: nodes[o.nodeStart..<o.nodeStart + o.nodeCount]),
                                kinds: UnsafePointer(kindBase + o.kindStart), numbers: UnsafePointer(numberBase + o.numberStart)))
    }
}

// MARK: Invariants

extension LottieBatch: InvariantChecking {
    /// Every broken invariant, each described (at most `limit`); empty when the batch is
    /// consistent. O(instances + the nodes and elements they drew); it allocates. Debug and
    /// fuzzing builds check it before every tick (``checkInvariants()``).
    ///
    /// What it checks:
    /// - every instance has a program, a frame and an output region; every program has a list of
    ///   free regions;
    /// - every region, an instance's or a free one, lies inside the buffers, with room for its
    ///   program's bounds, and no two regions overlap;
    /// - the used and free byte counts are the sums of the regions';
    /// - each drawn node lies inside its instance's region: its elements within the region's
    ///   elements, its numbers (two per move and line, six per curve) within the region's path
    ///   numbers, its clip polygon (two numbers per corner) within the region's clip numbers.
    public func invariantViolations(limit: Int = 20) -> [String] {
        var report = InvariantReport(limit: limit)
        report.check(programOf.count == frames.count && outputs.count == frames.count,
                     "\(frames.count) frames, \(programOf.count) programs and \(outputs.count) outputs for the instances")
        report.check(freeRegions.count == programs.count, "\(freeRegions.count) free lists for \(programs.count) programs")
        report.check(nodeTotal <= nodes.count && kindTotal <= kinds.count && numberTotal <= numbers.count,
                     "the regions reach past the buffers")
        var regions: [(output: Output, program: Int, instance: Int?)] = []
        for i in outputs.indices where i < programOf.count { regions.append((outputs[i], programOf[i], i)) }
        for (p, free) in freeRegions.enumerated() { for o in free { regions.append((o, p, nil)) } }
        var used = 0, unused = 0
        var nodeSpans: [(Int, Int)] = [], kindSpans: [(Int, Int)] = [], numberSpans: [(Int, Int)] = []
        for (o, p, instance) in regions where !report.isFull {
            let name = instance.map { "instance \($0)" } ?? "a free region of program \(p)"
            guard p >= 0, p < programs.count else {
                report.check(false, "\(name) names program \(p) of \(programs.count)")
                continue
            }
            let program = programs[p]
            if instance == nil { unused += Self.regionBytes(program) } else { used += Self.regionBytes(program) }
            report.check(o.nodeStart >= 0 && o.nodeStart + program.outputNodes <= nodeTotal
                         && o.kindStart >= 0 && o.kindStart + program.outputKinds <= kindTotal
                         && o.numberStart >= 0 && o.numberStart + program.outputNumbers <= numberTotal,
                         "\(name)'s region reaches past the buffers")
            report.check(o.nodeCount >= 0 && o.nodeCount <= program.outputNodes, "\(name) drew \(o.nodeCount) of at most \(program.outputNodes) nodes")
            report.check(o.kindCount >= 0 && o.kindCount <= program.outputKinds && o.numberCount >= 0 && o.numberCount <= program.outputPathNumbers,
                         "\(name) used \(o.kindCount) elements and \(o.numberCount) numbers of at most \(program.outputKinds) and \(program.outputPathNumbers)")
            nodeSpans.append((o.nodeStart, program.outputNodes))
            kindSpans.append((o.kindStart, program.outputKinds))
            numberSpans.append((o.numberStart, program.outputNumbers))
            guard instance != nil, o.nodeStart >= 0, o.nodeStart + o.nodeCount <= nodes.count else { continue }
            for k in 0..<o.nodeCount where !report.isFull {
                let n = nodes[o.nodeStart + k]
                let kindEnd = Int(n.kindStart) + Int(n.kindCount)
                guard n.kindStart >= 0, n.kindCount >= 0, kindEnd <= program.outputKinds, o.kindStart + kindEnd <= kinds.count else {
                    report.check(false, "\(name)'s node \(k) has elements outside its region")
                    continue
                }
                var numbersUsed = 0
                for e in Int(n.kindStart)..<kindEnd { numbersUsed += [2, 2, 6, 0][min(Int(kinds[o.kindStart + e]), 3)] }
                report.check(n.numberStart >= 0 && Int(n.numberStart) + numbersUsed <= program.outputPathNumbers,
                             "\(name)'s node \(k) has numbers outside its region")
                report.check(n.clipCount < 0 || (n.clipStart >= program.outputPathNumbers
                                                 && Int(n.clipStart) + 2 * Int(n.clipCount) <= program.outputNumbers),
                             "\(name)'s node \(k) has a clip outside its region")
            }
        }
        report.check(used == usedBytes && unused == freeBytes,
                     "the regions hold \(used) used and \(unused) free bytes, the batch counts \(usedBytes) and \(freeBytes)")
        for (spans, what) in [(nodeSpans, "node"), (kindSpans, "element"), (numberSpans, "number")] {
            let sorted = spans.filter { $0.1 > 0 }.sorted { $0.0 < $1.0 }
            for (a, b) in zip(sorted, sorted.dropFirst()) where a.0 + a.1 > b.0 {
                report.check(false, "two \(what) regions overlap (at \(a.0) and \(b.0))")
            }
        }
        return report.lines
    }
}

/// One instance's geometry in a ``LottieBatch``'s buffers (valid inside
/// ``LottieBatch/withGeometry(of:_:)`` only: it points into the batch's memory).
public struct LottieGeometryView {
    let nodes: UnsafeBufferPointer<LottieBatch.NodeRecord>
    let kinds: UnsafePointer<UInt8>
    let numbers: UnsafePointer<Float>

    /// How many nodes, back to front.
    public var count: Int { nodes.count }
    /// Node `k`'s element kinds (0 move, 1 line, 2 cubic, 3 close).
    public func kinds(of k: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: kinds + Int(nodes[k].kindStart), count: Int(nodes[k].kindCount))
    }
    /// Node `k`'s numbers: two per point, a cubic's controls before its end (single precision:
    /// the reference's values rounded to the nearest `Float`).
    public func numbers(of k: Int) -> UnsafePointer<Float> { numbers + Int(nodes[k].numberStart) }
    /// Node `k`'s colour, and whether it fills (else strokes); stored in single precision.
    public func paint(of k: Int) -> (color: Color, isFill: Bool, strokeWidth: Double, opacity: Double) {
        (nodes[k].color, nodes[k].isFill, Double(nodes[k].width), Double(nodes[k].opacity))
    }
    /// Node `k`'s clip (``LottieNode/clip``): its corners, two numbers each in single precision,
    /// in the order the clip path visits them; empty when the precompositions around it have
    /// nothing in common; nil when nothing clips it.
    public func clip(of k: Int) -> UnsafeBufferPointer<Float>? {
        guard nodes[k].clipCount >= 0 else { return nil }
        return UnsafeBufferPointer(start: numbers + Int(nodes[k].clipStart), count: 2 * Int(nodes[k].clipCount))
    }
}

/// Writes nodes into an instance's buffers (raw memory of the batch; bounds from the program).
struct OutputSink {
    let nodes: UnsafeMutablePointer<LottieBatch.NodeRecord>
    let nodeCapacity: Int
    let kinds: UnsafeMutablePointer<UInt8>
    let kindCapacity: Int
    let numbers: UnsafeMutablePointer<Float>
    /// The paths' numbers: the region's first `numberCapacity`; clip polygons follow from
    /// `clipBase` (``LottieProgram/outputPathNumbers``).
    let numberCapacity: Int
    let clipBase: Int
    var nodeCount = 0
    var kindCount = 0
    var numberCount = 0
    var dropped = false

    init(nodes: UnsafeMutablePointer<LottieBatch.NodeRecord>, nodeCapacity: Int, kinds: UnsafeMutablePointer<UInt8>, kindCapacity: Int,
         numbers: UnsafeMutablePointer<Float>, numberCapacity: Int, clipBase: Int) {
        self.nodes = nodes
        self.nodeCapacity = nodeCapacity
        self.kinds = kinds
        self.kindCapacity = kindCapacity
        self.numbers = numbers
        self.numberCapacity = numberCapacity
        self.clipBase = clipBase
    }
}
