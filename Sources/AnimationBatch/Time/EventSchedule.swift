import AnimationCore

/// The settle queries (docs/settling.md): whether anything will change without new input, when
/// the next animation in the store begins or ends its active duration, and whether one repeats
/// forever. A room of its own that reads the tables and the layer clocks and changes nothing.
///
/// **Top-level animations** (a property animation outside groups, or a group) are what start and
/// stop, what delegates hear of (semantics §8.1). Each has a linear map from frame time to its
/// layer's local time (its clocks, §2.2, §2.7: `τ = α·T + β`), and begins and ends where
/// `e = (τ − b)·s` crosses 0 and ±AD (§2.4). Each crossing's frame time is solved for, then
/// checked with the frame's own arithmetic (the clock pass and the timing kernel's comparisons):
/// the time returned is the first Double at which a frame sees the new phase, never one at which
/// it still sees the old.
///
/// **Animations inside groups** begin and end where their group's child time (the group's basic
/// time after its timing function, §2.7, §7) crosses their own begin and end. A group's child time
/// is piecewise monotone in its parent time: linear within each half-iteration (the fold of
/// §2.5), then through the timing function, whose cubic turns at most twice (§3). The search walks
/// those pieces in time order and stops after three periods with no crossing (every later
/// iteration repeats one of them), so it is bounded for any repeat count; nested groups search
/// within each piece of their parent. Those times are solved to the rounding of the inversion (a
/// few ulps; the timing function's inverse by bisection to 1e-15 of the duration), not checked.
struct EventSchedule {
    let tables: EngineTables
    let clocks: LayerClocks

    /// How much searching one query may do inside groups (pieces visited): nested groups search
    /// within each piece of their parent, so the work multiplies with the depth of nesting. Past
    /// it, the query answers the next half-iteration boundary of the outermost group instead —
    /// earlier than the event, never later, so a host that waits for it misses nothing.
    static let searchBudget = 20_000

    // MARK: The top-level timing of an animation

    /// An animation's top-level timing (its track's, or its root group's) in its layer's time.
    struct TopTiming {
        var beginTime: Double
        var speed: Double
        var activeDuration: Double

        init(beginTime: Double, speed: Double, activeDuration: Double) {
            self.beginTime = beginTime
            self.speed = speed
            self.activeDuration = activeDuration
        }

        /// A group's timing as its node keeps it (an instant one, reduced motion's, takes no time).
        init(_ t: MediaTiming) {
            self.init(beginTime: t.beginTime, speed: t.speed, activeDuration: t.isInstant ? 0 : t.activeDuration)
        }

        /// 0 before, 1 active, 2 after at local time `tau`, with the timing kernel's comparisons.
        func phase(atLocalTime tau: Double) -> Int {
            if speed == 0 { return 1 }   // a pause: always active (§2.4)
            let e = (tau - beginTime) * speed
            if speed > 0 { return e < 0 ? 0 : (e < activeDuration ? 1 : 2) }
            return e > 0 ? 0 : (e > -activeDuration ? 1 : 2)
        }

        /// The local times at which it begins and ends (the end only when finite): a negative
        /// speed plays the active duration backwards over the same times, [b, b + AD/|s|).
        var boundaries: (Double, Double?) {
            let end = speed != 0 && activeDuration.isFinite ? beginTime + activeDuration / abs(speed) : nil
            return (beginTime, end.flatMap { $0.isFinite ? $0 : nil })
        }
    }

    /// The top-level timing of live animation `a`, or nil when it has neither track nor group.
    func topTiming(of a: Int32) -> TopTiming? {
        if let root = tables.animations[a].nodes.first { return TopTiming(tables.nodes[Int(root)].timing) }
        guard let track = tables.animations[a].tracks.first else { return nil }
        let t = tables.batches[Int(tables.tracks[track].batch)].timing(Int(tables.tracks[track].index))
        return TopTiming(beginTime: t.beginTime, speed: t.speed, activeDuration: t.activeDuration)
    }

    /// Whether a frame has evaluated animation `a` since it was added (its top-level lane's phase
    /// is no longer "never evaluated"): until then its start is still to be reported.
    func wasEvaluated(_ a: Int32) -> Bool {
        if let root = tables.animations[a].nodes.first {
            let lane = tables.nodes[Int(root)].lane
            return lane >= 0 && tables.nodeBatch.state[Int(lane)] & TrackState.phaseMask != TrackState.neverEvaluated
        }
        guard let track = tables.animations[a].tracks.first else { return true }
        let batch = tables.batches[Int(tables.tracks[track].batch)]
        return batch.state[Int(tables.tracks[track].index)] & TrackState.phaseMask != TrackState.neverEvaluated
    }

    // MARK: Layer time as a line

    /// `layer`'s local time as a line in frame time, `τ = rate·T + offset`, composed from its
    /// clocks root first (semantics §2.2: `τ = (t_parent − b)·s + o`). Bounded by the number of
    /// clocks; O(1) for a layer without a clock of its own.
    func line(of layer: LayerID) -> (rate: Double, offset: Double) {
        guard !clocks.clocks.isEmpty, clocks.clocks[layer] != nil else { return (1, 0) }
        // Innermost first, then composed outward: τ = s_n(… s_1(T − b_1) + o_1 …) + o_n.
        var rate = 1.0, offset = 0.0
        var current: LayerID? = layer
        var steps = 0
        while let l = current, let clock = clocks.clocks[l], steps <= clocks.clocks.count {
            // τ_inner = s·(t_outer − b) + o, with t_outer = rate'·T + offset' still to come:
            // composing from the inside out keeps (rate, offset) of τ in terms of t_outer.
            let s = clock.timing.speed, b = clock.timing.beginTime, o = clock.timing.timeOffset
            offset = rate * (o - s * b) + offset
            rate *= s
            current = clock.parent
            steps += 1
        }
        return (rate, offset)
    }

    /// `layer`'s local time at frame time `time` with the frame's own arithmetic (the clock pass).
    func localTime(of layer: LayerID, atFrameTime time: Double) -> Double {
        clocks.clocks.isEmpty ? time : clocks.localTime(of: layer, atFrameTime: time)
    }

    // MARK: Queries

    /// Whether some live animation's active duration is infinite and its time moves. One whose
    /// time has run past what a Double holds at the latest frame (`(τ − b)·s` overflowed to ±∞,
    /// a speed near 1e308) is past even an infinite end: the frame reported it stopped, and it
    /// counts as ended here as in ``isSettled(atFrameTime:)``.
    func hasInfiniteAnimations() -> Bool {
        for a in tables.animations.indices where isListed(Int32(a)) {
            guard let top = topTiming(of: Int32(a)), !top.activeDuration.isFinite, top.speed != 0 else { continue }
            let layer = tables.animations[a].layer
            guard line(of: layer).rate != 0 else { continue }
            let latest = tables.latestFrameTime
            if latest.isFinite && top.phase(atLocalTime: localTime(of: layer, atFrameTime: latest)) == 2 { continue }
            return true
        }
        return false
    }

    /// Whether some animation is in its active duration at frame time `time` on a moving clock.
    func hasRunningAnimations(atFrameTime time: Double) -> Bool {
        guard tables.animations.liveCount != tables.parkedCount else { return false }
        for a in tables.animations.indices where isListed(Int32(a)) {
            guard let top = topTiming(of: Int32(a)) else { continue }
            let layer = tables.animations[a].layer
            guard line(of: layer).rate * top.speed != 0 else { continue }
            if top.phase(atLocalTime: localTime(of: layer, atFrameTime: time)) == 1 { return true }
        }
        return false
    }

    /// Whether nothing changes after frame time `time` without new input (``TrackStore/isSettled(atFrameTime:)``).
    func isSettled(atFrameTime time: Double) -> Bool {
        guard !hasPendingChanges else { return false }
        if tables.animations.liveCount == tables.parkedCount { return true }
        // An animation a frame saw finish stays finished from then on while time runs forwards:
        // no layer has a clock of its own, and `time` is the latest frame time (a host that seeks
        // back before an end brings the animation back: then each is looked at). e = (τ − b)·s
        // stays past its end for either sign of s. Those records are passed on two bytes, read in
        // place: a tree of settled layers kept by forwards fills is one streaming pass over them.
        let allForward = clocks.clocks.isEmpty && time >= tables.latestFrameTime
        let running = tables.animations.withUnsafeBufferPointer { records -> Int? in
            for a in records.indices where records[a].alive && !records[a].parked {
                if allForward && records[a].hasFinished { continue }
                if !isSettled(animation: Int32(a), atFrameTime: time) { return a }
            }
            return nil
        }
        return running == nil
    }

    /// Whether animation `a` will not change after frame time `time` (``isSettled(atFrameTime:)``).
    private func isSettled(animation index: Int32, atFrameTime time: Double) -> Bool {
        guard let top = topTiming(of: index) else { return true }
        if !wasEvaluated(index) { return false }
        let layer = tables.animations[Int(index)].layer
        let rate = line(of: layer).rate * top.speed
        if rate == 0 { return true }   // frozen: its time stands still (§2.8)
        let phase = top.phase(atLocalTime: localTime(of: layer, atFrameTime: time))
        if phase == 1 { return false }   // running
        // Before an infinite active duration: it begins and then runs forever. After one, its
        // time overflowed past the end (``hasInfiniteAnimations()``): ended like any other.
        if !top.activeDuration.isFinite && phase == 0 { return false }
        return nextBoundary(of: top, layer: layer, after: time) == nil
    }

    /// The earliest frame time after `time` at which a live animation begins or ends its active
    /// duration, or an event is due (``TrackStore/nextEventTime(after:)``).
    func nextEventTime(after time: Double) -> Double? {
        guard time.isFinite else { return nil }
        // Events of changes since the last frame, and starts not yet reported, are due at once.
        if hasPendingChanges { return time.nextUp }
        var best: Double?
        func consider(_ t: Double?) {
            guard let t, t > time, t.isFinite else { return }
            if best.map({ t < $0 }) ?? true { best = t }
        }
        var budget = Self.searchBudget
        for a in tables.animations.indices where isListed(Int32(a)) {
            let index = Int32(a)
            guard let top = topTiming(of: index) else { continue }
            if !wasEvaluated(index) { return time.nextUp }
            let layer = tables.animations[a].layer
            consider(nextBoundary(of: top, layer: layer, after: time))
            if !tables.animations[a].nodes.isEmpty {
                consider(nextChildEvent(of: index, layer: layer, after: time, before: best, budget: &budget))
            }
        }
        return best
    }

    /// Whether the next frame has something to report whatever its time: the events of removals
    /// and replacements since the last frame, or values set since (model values, new slots),
    /// which it reports as changed.
    private var hasPendingChanges: Bool {
        !tables.pendingEvents.isEmpty || !tables.table.pendingChanges.isEmpty
    }

    /// A live animation that is not parked.
    @inline(__always)
    private func isListed(_ a: Int32) -> Bool {
        tables.animations[a].alive && !tables.animations[a].parked
    }

    /// The first frame time after `time` at which a frame sees `top` in another phase than at
    /// `time`: a boundary solved on the layer's line, then moved up an ulp at a time (at most
    /// 64, then by doubling steps) until the frame's arithmetic agrees.
    func nextBoundary(of top: TopTiming, layer: LayerID, after time: Double) -> Double? {
        let (rate, offset) = line(of: layer)
        guard rate != 0 else { return nil }
        let (begin, end) = top.boundaries
        let now = top.phase(atLocalTime: localTime(of: layer, atFrameTime: time))
        var best: Double?
        for tau in [begin, end] {
            guard let tau else { continue }
            var t = (tau - offset) / rate
            guard t.isFinite else { continue }
            if t <= time {
                // Rounding may put a boundary the frame has not crossed yet at or before `time`.
                t = time.nextUp
                guard top.phase(atLocalTime: localTime(of: layer, atFrameTime: t)) != now else { continue }
            }
            var step = t.ulp, tries = 0
            while top.phase(atLocalTime: localTime(of: layer, atFrameTime: t)) == now && tries < 128 {
                t += step
                if tries >= 64 { step *= 2 }
                tries += 1
            }
            // A boundary the frame does not see change anything (its other side is this one).
            guard top.phase(atLocalTime: localTime(of: layer, atFrameTime: t)) != now else { continue }
            if best.map({ t < $0 }) ?? true { best = t }
        }
        return best
    }

    // MARK: Inside groups

    /// The first frame time after `time` (and before `limit`, when given) at which a track or
    /// nested group inside animation `a` begins or ends, through its groups' child times.
    private func nextChildEvent(of a: Int32, layer: LayerID, after time: Double, before limit: Double?,
                                budget: inout Int) -> Double? {
        let record = tables.animations[a]
        guard let root = record.nodes.first else { return nil }
        let (rate, offset) = line(of: layer)
        guard rate != 0 else { return nil }
        // The root's parent time runs from the layer's time now toward ±∞ (or the limit). A
        // crossing solved within a few ulps of `time` is the one a tick at `time` handled (the
        // inversion rounds either way): the search goes on past it.
        let tolerance = 16 * max(time.ulp, Double.leastNormalMagnitude)
        var from = time
        for _ in 0..<8 {
            let start = rate * from + offset
            let end = limit.map { rate * $0 + offset } ?? (rate > 0 ? Double.infinity : -Double.infinity)
            var search = GroupSearch(tables: tables, animation: a, budget: budget)
            let found = search.firstCrossing(node: root, from: start, to: end, excludingStart: true)
            budget = search.budget
            switch found {
            case .found(let tau, let crossing):
                let t = settle((tau - offset) / rate, crossing, layer: layer)
                if t > time + tolerance { return t }
                from = max(t, from) + tolerance
            case .none:
                return nil
            case .gaveUp:
                // Past the budget: the root's next half-iteration boundary (earlier than the event).
                let t = (search.nextHalfBoundary(of: root, after: start, toward: end) - offset) / rate
                return t.isFinite ? max(t, time.nextUp) : nil
            }
        }
        // Eight crossings in a row within a few ulps of each other: the time reached, which is no
        // later than the next one (earlier, never later).
        return from
    }

    /// `t` moved up an ulp at a time (at most 64, then by doubling steps) until the child time
    /// of the crossing's group, computed as the reference does, is past its target: the
    /// inversion may round the time a hair early, where a frame would still see the old phase.
    private func settle(_ t: Double, _ crossing: GroupSearch.Crossing, layer: LayerID) -> Double {
        func childTime(_ time: Double) -> Double? {
            var tau = localTime(of: layer, atFrameTime: time)
            for n in crossing.path {
                let node = tables.nodes[Int(n)]
                guard let child = GroupTiming(timing: node.timing, timingFunction: node.curve).childTime(atParentTime: tau).childTime
                else { return nil }
                tau = child
            }
            return tau
        }
        // Not yet crossed: the child's phase, computed as a frame does, is not the one past the
        // crossing; for a jump, the child time has not reached the far side of the jump.
        func before(_ y: Double) -> Bool {
            if let child = crossing.child { return child.phase(atLocalTime: y) != crossing.phase }
            return crossing.ascending ? y < crossing.target : y >= crossing.target
        }
        var nudged = t, step = t.ulp, tries = 0
        while let y = childTime(nudged), before(y) {
            // 64 ulps, then doubling steps to about 1e-8 of the time: the inversion's error is a
            // few ulps; a crossing not reached by then is left as solved.
            guard tries < 84 else { return t }
            nudged += step
            if tries >= 64 { step *= 2 }
            tries += 1
        }
        return nudged
    }
}

/// The search for the next crossing of a child's begin or end inside one animation's groups
/// (``EventSchedule``, "Animations inside groups").
struct GroupSearch {
    let tables: EngineTables
    let animation: Int32
    var budget: Int

    /// Which crossing was found: the groups from the root down to the one whose child time
    /// crossed `target` (a child's begin or end), and whether it was going up.
    struct Crossing {
        var path: [Int32]
        var target: Double
        var ascending: Bool
        /// The child whose begin or end it is, and its phase past the crossing; nil for a jump of
        /// the child time (a new iteration), which is past where the time has jumped.
        var child: EventSchedule.TopTiming? = nil
        var phase = 0
    }

    enum Result { case found(Double, Crossing), none, gaveUp }

    /// A child's begin or end in its group's child time.
    struct Target {
        var time: Double
        var timing: EventSchedule.TopTiming
        var isEnd: Bool
    }

    /// The children of `node` inside the animation: the begin and end of each track and nested
    /// group that reads its time, in its time (none for a child with speed 0: it never changes
    /// phase); and the nested groups, searched within.
    private func children(of node: Int32) -> (targets: [Target], nodes: [Int32]) {
        var targets: [Target] = []
        var nested: [Int32] = []
        func add(_ timing: EventSchedule.TopTiming) {
            guard timing.speed != 0 else { return }
            targets.append(Target(time: timing.beginTime, timing: timing, isEnd: false))
            if let end = timing.boundaries.1 { targets.append(Target(time: end, timing: timing, isEnd: true)) }
        }
        let record = tables.animations[animation]
        for t in record.tracks {
            let timing = tables.batches[Int(tables.tracks[t].batch)].timing(Int(tables.tracks[t].index))
            guard timing.timeNode == node else { continue }
            add(EventSchedule.TopTiming(beginTime: timing.beginTime, speed: timing.speed, activeDuration: timing.activeDuration))
        }
        for n in record.nodes where tables.nodes[Int(n)].parent == node {
            add(EventSchedule.TopTiming(tables.nodes[Int(n)].timing))
            nested.append(n)
        }
        return (targets, nested)
    }

    /// The first parent time of `node` from `from` toward `to` (either order) at which one of its
    /// children begins or ends; `excludingStart` leaves `from` itself out.
    mutating func firstCrossing(node: Int32, from: Double, to: Double, excludingStart: Bool) -> Result {
        let (targets, nested) = children(of: node)
        let timing = tables.nodes[Int(node)].timing
        let curve = tables.nodes[Int(node)].curve
        let pieces = GroupPieces(timing: timing, curve: curve)
        var result = Result.none
        var previousEnd: Double?
        pieces.walk(from: from, to: to) { piece in
            budget -= 1
            if budget < 0 { result = .gaveUp; return false }
            defer { previousEnd = piece.yEnd }
            // The child time jumps (a new iteration, or the wrap of a time offset): a child whose
            // phase differs on the two sides begins or ends there. (Not the ulps by which two
            // pieces that meet, such as the halves of an autoreversing iteration, may differ.)
            if let previous = previousEnd, abs(previous - piece.yStart) > 1e-9 * max(timing.effectiveDuration, abs(previous)),
               phasesDiffer(under: node, previous, piece.yStart, depth: 0) {
                result = .found(piece.startParentTime, Crossing(path: [node], target: (previous + piece.yStart) / 2,
                                                                ascending: piece.yStart > previous))
                return false
            }
            let exclude = excludingStart && piece.startsAtWalkStart
            // The children's first crossing within the piece's range of child times.
            var best: Double?
            var crossing: Crossing?
            let ascending = piece.yEnd >= piece.yStart
            func better(_ y: Double) -> Bool { best.map { ascending ? y < $0 : y > $0 } ?? true }
            for target in targets where piece.contains(target.time, excludingStart: exclude) && better(target.time) {
                best = target.time
                // The phase a frame sees past the crossing: phases follow the child time in order.
                let phase = ascending ? (target.isEnd ? 2 : 1) : (target.isEnd ? 1 : 0)
                crossing = Crossing(path: [node], target: target.time, ascending: ascending, child: target.timing, phase: phase)
            }
            for n in nested {
                switch firstCrossing(node: n, from: piece.yStart, to: piece.yEnd, excludingStart: exclude) {
                case .found(let y, var inner):
                    if better(y) {
                        best = y
                        inner.path.insert(node, at: 0)
                        crossing = inner
                    }
                case .none: break
                case .gaveUp: result = .gaveUp; return false
                }
            }
            guard let y = best, let crossing else { return true }
            result = .found(piece.parentTime(atChildTime: y), crossing)
            return false
        }
        return result
    }

    /// Whether some child of `node`, at any depth, is in another phase at child time `a` than at
    /// `b` (the two sides of a jump).
    private func phasesDiffer(under node: Int32, _ a: Double, _ b: Double, depth: Int) -> Bool {
        let (targets, nested) = children(of: node)
        if targets.contains(where: { $0.timing.phase(atLocalTime: a) != $0.timing.phase(atLocalTime: b) }) { return true }
        guard depth < 64 else { return true }   // deeper than any group nests in practice: say yes (earlier, never later)
        for n in nested {
            let group = GroupTiming(timing: tables.nodes[Int(n)].timing, timingFunction: tables.nodes[Int(n)].curve)
            if let ca = group.childTime(atParentTime: a).childTime, let cb = group.childTime(atParentTime: b).childTime,
               ca != cb, phasesDiffer(under: n, ca, cb, depth: depth + 1) {
                return true
            }
        }
        return false
    }

    /// The next half-iteration boundary of `node` after parent time `from` toward `to`.
    func nextHalfBoundary(of node: Int32, after from: Double, toward to: Double) -> Double {
        GroupPieces(timing: tables.nodes[Int(node)].timing, curve: .linear).firstBoundary(from: from, to: to)
    }
}

/// A group's child time as a function of its parent time, cut into monotone pieces (semantics
/// §2.4–§2.7: `e = (tp − b)·s`, `w = (e + o) mod AD`, the fold into half-iterations, then
/// `y = f(p)·d`).
struct GroupPieces {
    let timing: MediaTiming
    let curve: TimingFunction

    /// One monotone piece: child times from `yStart` to `yEnd` while the parent time runs from
    /// the piece's start to its end, with the fold's line `p = pA + pB·x` (x = e + o) and the
    /// progress range it covers.
    struct Piece {
        var yStart: Double
        var yEnd: Double
        var progressStart: Double
        var progressEnd: Double
        var pA: Double
        var pB: Double
        var timing: MediaTiming
        var curve: TimingFunction
        var startsAtWalkStart: Bool
        /// The parent time at which the piece begins.
        var startParentTime: Double

        func contains(_ y: Double, excludingStart: Bool) -> Bool {
            let lo = min(yStart, yEnd), hi = max(yStart, yEnd)
            guard y >= lo && y <= hi else { return false }
            return !(excludingStart && y == yStart)
        }

        /// The parent time at which the piece's child time is `y`: the timing function inverted
        /// by bisection within the piece's progress range (monotone there), then the fold's line.
        func parentTime(atChildTime y: Double) -> Double {
            let d = timing.effectiveDuration
            var lo = progressStart, hi = progressEnd
            let target = y / d
            let rising = curve.value(at: hi) >= curve.value(at: lo)
            if curve.isLinear {
                lo = min(max(target, min(progressStart, progressEnd)), max(progressStart, progressEnd))
            } else {
                for _ in 0..<60 {   // 2⁻⁶⁰ of the piece: below a Double ulp of any progress
                    let mid = (lo + hi) / 2
                    if (curve.value(at: mid) < target) == rising { lo = mid } else { hi = mid }
                }
            }
            let x = (lo - pA) / pB
            return timing.parentTime(fromLocal: x)
        }
    }

    /// The parent times at which the child time's direction or line changes, from `from` toward
    /// `to`; calls `body` with each monotone piece in order until it returns false. Stops after
    /// three periods of local time (the pieces repeat after one) or at the end of the active
    /// duration.
    func walk(from: Double, to: Double, _ body: (Piece) -> Bool) {
        let s = timing.speed
        guard s != 0, from != to, !timing.isInstant else { return }   // instant: one constant child time
        let ad = timing.activeDuration, d = timing.effectiveDuration, period = timing.iterationDuration
        // Elapsed time e over the walk, clipped to the active range (§2.4).
        var e1 = (from - timing.beginTime) * s, e2 = (to - timing.beginTime) * s
        let (lo, hi) = s > 0 ? (0.0, ad) : (-ad, 0.0)
        let forward = e2 > e1
        let startClipped: Bool
        if forward {
            startClipped = e1 < lo
            e1 = max(e1, lo); e2 = min(e2, hi)
        } else {
            startClipped = e1 > hi
            e1 = min(e1, hi); e2 = max(e2, lo)
        }
        guard forward ? e1 < e2 : e1 > e2 else { return }
        let o = timing.timeOffset
        var x = e1 + o
        let xEnd = e2 + o
        let limit = 3 * period
        var walked = 0.0
        var first = true
        while forward ? x < xEnd : x > xEnd, walked <= limit {
            // The next boundary: a half-iteration (a multiple of d) or the wrap (a multiple of AD).
            var next = forward ? d * ((x / d).rounded(.down) + 1) : d * ((x / d).rounded(.up) - 1)
            if next == x { next = forward ? x + d : x - d }   // rounding: always move on
            if ad.isFinite {
                let wrap = forward ? ad * ((x / ad).rounded(.down) + 1) : ad * ((x / ad).rounded(.up) - 1)
                if forward ? wrap < next : wrap > next { next = wrap }
            }
            let segmentEnd = forward ? min(next, xEnd) : max(next, xEnd)
            // The fold on this segment is one line: p = (w − kP)/d, or (2d − (w − kP))/d mirrored.
            let mid = (x + segmentEnd) / 2
            let wrapShift = ad.isFinite ? ad * (mid / ad).rounded(.down) : 0
            let w = mid - wrapShift
            let k = (w / period).rounded(.down)
            let u = w - k * period
            let mirrored = timing.autoreverses && u >= d
            // p(x) = pA + pB·x on this segment.
            let pB = mirrored ? -1 / d : 1 / d
            let pA = mirrored ? (2 * d + k * period + wrapShift) / d : -(k * period + wrapShift) / d
            let pStart = min(max(pA + pB * x, 0), 1), pEnd = min(max(pA + pB * segmentEnd, 0), 1)
            // The timing function's turning points within the segment's progress range.
            var cuts = [pStart]
            for turn in curve.turningProgresses where turn > min(pStart, pEnd) && turn < max(pStart, pEnd) {
                cuts.append(turn)
            }
            cuts.append(pEnd)
            if pEnd < pStart { cuts[1..<(cuts.count - 1)].sort(by: >) } else { cuts[1..<(cuts.count - 1)].sort() }
            for j in 0..<(cuts.count - 1) {
                let piece = Piece(yStart: curve.value(at: cuts[j]) * d, yEnd: curve.value(at: cuts[j + 1]) * d,
                                  progressStart: cuts[j], progressEnd: cuts[j + 1], pA: pA, pB: pB,
                                  timing: timing, curve: curve, startsAtWalkStart: first && j == 0 && !startClipped,
                                  startParentTime: timing.parentTime(fromLocal: j == 0 ? x : (cuts[j] - pA) / pB))
                if !body(piece) { return }
            }
            first = false
            walked += abs(segmentEnd - x)
            x = segmentEnd
        }
    }

    /// The first half-iteration boundary after `from` toward `to`, in parent time (±∞ when none).
    func firstBoundary(from: Double, to: Double) -> Double {
        let s = timing.speed, d = timing.effectiveDuration
        guard s != 0 else { return to > from ? .infinity : -.infinity }
        let x = (from - timing.beginTime) * s + timing.timeOffset
        let forward = (to > from) == (s > 0)
        var next = forward ? d * ((x / d).rounded(.down) + 1) : d * ((x / d).rounded(.up) - 1)
        if next == x { next = forward ? x + d : x - d }
        return timing.parentTime(fromLocal: next)
    }
}

// MARK: - The store's settle queries

extension TrackStore {
    /// Whether, after a frame at `time` and without new input, no later frame changes a
    /// presentation value or reports an event (docs/settling.md): no removal or replacement waits
    /// to be reported, no value set since the last frame waits to be reported as changed, every
    /// animation has been evaluated by a frame, and each has ended (kept by
    /// a forwards fill: settled), waits for a begin that its time never reaches, or stands on a
    /// frozen clock (speed 0 in its layers' or its own timing, semantics §2.8). An animation that
    /// repeats forever on a moving clock never settles (``hasInfiniteAnimations``).
    ///
    /// O(1) when the store holds no animation (finished ones removed on completion, the
    /// default); otherwise one pass over the animations, stopping at the first that still runs.
    /// Allocates nothing unless layers have clocks of their own.
    public func isSettled(atFrameTime time: Double) -> Bool {
        schedule.isSettled(atFrameTime: time)
    }

    /// The earliest frame time later than `time` at which an animation in the store begins or
    /// ends its active duration (semantics §2.4) — top-level animations and, through their
    /// groups' child times, the animations inside groups (§2.7, §7) — or at which an event is due
    /// (a removal or replacement not yet reported, a value set since the last frame, or an
    /// animation no frame has evaluated yet: then `time.nextUp`). Nil when there is none (every animation has ended, or runs forever
    /// without beginning or ending again).
    ///
    /// For a top-level animation the time returned is the first Double at which a frame sees
    /// the new phase (checked with the frame's arithmetic); inside groups it is solved to a few
    /// ulps. One pass over the animations; inside groups bounded by a budget of 20,000 pieces searched.
    public func nextEventTime(after time: Double) -> Double? {
        schedule.nextEventTime(after: time)
    }

    /// Whether some animation is in its active duration at frame time `time` (semantics §2.4) on
    /// a clock that moves: its value may change at every frame. When none is, nothing changes
    /// before ``nextEventTime(after:)``, and a host may skip every frame until then. O(1) when
    /// the store holds no animation; otherwise one pass, stopping at the first that runs.
    public func hasRunningAnimations(atFrameTime time: Double) -> Bool {
        schedule.hasRunningAnimations(atFrameTime: time)
    }

    /// Whether some animation in the store repeats forever (an infinite `repeatCount` or
    /// `repeatDuration`, semantics §2.3) on a clock that moves: the store then never settles.
    /// One whose time overflowed past its end by the latest frame (a speed near 1e308) has ended
    /// and does not count (docs/settling.md).
    public var hasInfiniteAnimations: Bool {
        schedule.hasInfiniteAnimations()
    }
}

extension FrameEvaluator {
    /// ``TrackStore/isSettled(atFrameTime:)`` after the last frame (before the first: whether
    /// the store holds no animation and no event waits, since no frame has evaluated any).
    public var isSettled: Bool { store.isSettled(atFrameTime: time) }

    /// ``TrackStore/hasRunningAnimations(atFrameTime:)`` after the last frame (false before the first).
    public var hasRunningAnimations: Bool {
        time.isNaN ? false : store.hasRunningAnimations(atFrameTime: time)
    }

    /// ``TrackStore/nextEventTime(after:)`` after the last frame (nil before the first).
    public var nextEventTime: Double? {
        time.isNaN ? nil : store.nextEventTime(after: time)
    }
}
