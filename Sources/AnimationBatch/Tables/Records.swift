import AnimationCore

// The engine's records: one per track, slot, animation, layer and time node, kept by
// ``EngineTables``. Plain values; what they mean together (who names whom) is checked by
// ``TrackStore/invariantViolations(limit:)``.

/// How a composed slot takes a track's output (``Composition``).
enum CompositionOp: Equatable {
    /// The kernel's value.
    case value
    /// Recomputed over the value beneath (a §4.1 row that depends on the base).
    case recompute
    /// The kernel's number through a value function (§4.7).
    case valueFunction(ValueFunction)
}

/// One compiled property animation: its lane in a batch, the slot it animates and how it
/// composes. Fields ordered by size (4-byte, 1-byte, 8-byte): 56 bytes.
struct TrackRecord: TableRecord {
    var generation: UInt32 = 0
    var batch: Int32 = -1
    var index: Int32 = -1
    var slot: Int32 = -1
    var rotationSlot: Int32 = -1
    var animation: Int32 = -1
    var leafIndex: Int32 = 0
    var alive = false
    /// The leaf's `isAdditive`, read once here so that composition never opens the existential.
    var isAdditive = false
    var field: ValueField?
    var valueKind: ValueKind = .scalar
    var op: CompositionOp = .value
    /// A path animation with a rotation mode (semantics §5.7): it also turns the layer's
    /// `transform` (``rotationSlot``) when the layer has one.
    var rotates = false
    /// The leaf's value function (§4.7), read once here.
    var valueFunction: ValueFunction?
    /// Whether its slot is exclusive (``EngineTables/isExclusive(slot:)``): set whenever the
    /// slot's entries change (``AnimationCompiler/configure(track:)``), so that a retarget reads
    /// it here rather than in the slot's entry list, a cache miss of its own (40 % of a mass
    /// retarget).
    var exclusive = false
    var sequence: UInt64 = 0
    /// The leaf as compiled, kept only where the animation record cannot give it cheaply: a
    /// track inside a group (its enclosing timings), and a track that composition recomputes in
    /// frames (``CompositionOp/recompute``: reading the animation back from its packed form would
    /// allocate in a frame). Nil for the common track, whose animation is its record's
    /// (``EngineTables/leafAnimation(of:)``): one copy of each animation, not two. Boxed, so
    /// that the record holds one word for it rather than 56 bytes.
    var leaf: AnimationLeaf? {
        get { leafBox?.leaf }
        set { leafBox = newValue.map(LeafBox.init) }
    }
    private var leafBox: LeafBox?
}

/// A kept leaf (``TrackRecord/leaf``), by reference.
final class LeafBox {
    let leaf: AnimationLeaf
    init(_ leaf: AnimationLeaf) { self.leaf = leaf }
}

/// A track's place in a slot's composition order (add order, then child order: semantics §8.4):
/// the order is its track's sequence and leaf index (``AnimationCompiler/insertEntry(_:into:)``),
/// read there, so that an entry is 8 bytes.
struct SlotEntry {
    var track: Int32
    var isRotation: Bool
}

/// One property of one layer: the tracks over it in composition order. Its property and model
/// value live in its presentation row (``PresentationTable``: the row's column names the
/// property, the row names the layer and holds the model beside what it shows), so that a slot
/// record is 24 bytes, not 184.
struct SlotRecord: LinkedRecord {
    var generation: UInt32 = 0
    var alive = false
    var kind: ValueKind = .scalar
    var entries: [SlotEntry] = []
    /// Its neighbours on its layer's list of slots, in creation order (``LayerRecord/slots``).
    var previous: Int32 = -1
    var next: Int32 = -1
}

/// One animation added to a layer: its tracks and time nodes, its key and its lifecycle. Its
/// fields are ordered by size (the 4-byte ones, then the flags, then the 8-byte ones), so that
/// the record packs into 112 bytes.
struct AnimationRecord: LinkedRecord {
    var generation: UInt32 = 0
    /// Its neighbours on its layer's list of animations (``LayerRecord/animations``).
    var previous: Int32 = -1
    var next: Int32 = -1
    /// The one track of a basic or spring animation outside groups, which a retarget rewrites in
    /// place (``Retargeter``); −1 for other animations.
    var columnTrack: Int32 = -1
    /// The last batch retarget that checked it (``Retargeter``): an animation named twice is
    /// refused before anything is done.
    var checkMark: UInt32 = 0
    var alive = false
    /// The animation's `isRemovedOnCompletion`: a frame that finishes it reaps it (§1.4).
    var removedOnCompletion = false
    /// A frame reported its finish (it is not removed on completion): its stop was reported,
    /// so removing it later reports nothing (semantics §8.1: exactly one stop).
    var hasFinished = false
    /// Its track's lane holds a retarget not yet folded into `animation`
    /// (``InterpolatingBatch/pendingTarget(_:kind:)``).
    var retargeted = false
    /// Finished and removed, its track kept for the next animation under its key
    /// (``TrackStore/parksFinishedAnimations``): invisible, its handles stale, its lane showing nothing.
    var parked = false
    /// Parked: what its lane's timing had that parking overwrote (``Parking/park(_:)``), which a
    /// takeover restores; the lane keeps the rest (durations, end state) in place. Its flags
    /// here, its speed and offset below.
    var parkedFlags: UInt8 = 0
    var layer = LayerID(0)
    var sequence: UInt64 = 0
    /// The animation as added (``KeptAnimation``: packed for basic and spring animations).
    var kept: KeptAnimation?
    /// The key it was added under (semantics §1.2); nil for anonymous animations.
    var key: String?
    var tracks = TrackList()
    var nodes: [Int32] = []
    var parkedSpeed = 1.0
    var parkedTimeOffset = 0.0
}

extension AnimationRecord {
    /// The animation as added (decoded from ``kept``: read it once per change, not in a loop).
    var animation: (any Animation)? {
        get { kept?.animation }
        set { kept = newValue.map(KeptAnimation.init) }
    }
}

/// An animation's tracks: the one of a property animation inline, a group's several in an array
/// (an array of one was 48 bytes of heap for every basic animation).
struct TrackList: RandomAccessCollection, ExpressibleByArrayLiteral {
    private var single: Int32 = -1
    private var many: [Int32] = []

    init() {}
    init(arrayLiteral tracks: Int32...) { for t in tracks { append(t) } }

    var startIndex: Int { 0 }
    var endIndex: Int { many.isEmpty ? (single >= 0 ? 1 : 0) : many.count }
    subscript(i: Int) -> Int32 { many.isEmpty ? single : many[i] }

    mutating func append(_ t: Int32) {
        if many.isEmpty {
            if single < 0 {
                single = t
            } else {
                many = [single, t]
                single = -1
            }
        } else {
            many.append(t)
        }
    }
}

/// What the engine knows of one layer: its slots and its animations (semantics §1.2, §8.2), so
/// that a front end needs no registry of its own; the keys are ``EngineTables/animationByKey``'s.
/// 24 bytes, and no allocation for a layer of up to ``EngineTables/slotIndexThreshold`` slots.
struct LayerRecord {
    /// Its slots in creation order, linked through their records (``LinkedRecord``).
    var slots = RecordList()
    /// Its slots by presentation column, once it has more than
    /// ``EngineTables/slotIndexThreshold`` of them (a look-up walks a shorter list); empty
    /// before, which costs no allocation.
    var slotIndex: [Int32: Int32] = [:]
    /// Every animation on the layer, parked ones too, linked through their records in the order
    /// they were added, which is not the composition order: readers order them by sequence (add
    /// order, semantics §8.2; ``EngineTables/listedAnimations(of:)``). So moving one to the end
    /// of the order, parking it and taking it over leave the list alone.
    var animations = RecordList()
}

/// An animation's key on its layer (semantics §1.2).
struct AnimationKey: Hashable {
    var layer: LayerID
    var key: String
}

/// A node of the time tree: a group's timing (semantics §2.7, §7), whose children read its time,
/// or a layer's clock (``LayerClocks``), whose animations read the layer's local time. Either way
/// its time lives in ``EngineTables/nodeTimes`` each frame, and tracks name it as the node they
/// take their parent time from (``CompiledTiming/timeNode``).
struct TimeNode {
    var alive = false
    var timing = MediaTiming()
    var curve = TimingFunction.linear
    var parent: Int32 = -1
    var isRoot = false
    var removedOnCompletion = false
    /// The owning animation; −1 for a layer's clock.
    var animation: Int32 = -1
    /// The owning animation's handle generation, so that events never copy its record.
    var generation: UInt32 = 0
    /// A root's lane in ``EngineTables/nodeBatch``; −1 for a nested node or a clock.
    var lane: Int32 = -1
}


/// Which batch a track joins: its kernel and value width.
enum BatchKey: Hashable {
    case basic(Int)
    case spring(Int, SpringRegime)
    case keyframe(Int)
    case path
    case reference(ValueKind)
}
