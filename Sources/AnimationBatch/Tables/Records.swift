import AnimationCore

// The engine's records: one per track, slot, animation, layer and time node, kept by
// ``EngineTables``. Plain values; what they mean together (who names whom) is checked by
// ``TrackStore/invariantViolations(limit:)``.

/// How a composed slot takes a track's output (``Composition``).
enum CompositionOp {
    /// The kernel's value.
    case value
    /// Recomputed over the value beneath (a §4.1 row that depends on the base).
    case recompute
    /// The kernel's number through a value function (§4.7).
    case valueFunction(ValueFunction)
}

/// One compiled property animation: its lane in a batch, the slot it animates and how it composes.
struct TrackRecord: TableRecord {
    var generation: UInt32 = 0
    var alive = false
    var batch: Int32 = -1
    var index: Int32 = -1
    var slot: Int32 = -1
    var rotationSlot: Int32 = -1
    var animation: Int32 = -1
    var leaf: AnimationLeaf?
    /// The leaf's `isAdditive`, read once here so that composition never opens the existential.
    var isAdditive = false
    var field: ValueField?
    var valueKind: ValueKind = .scalar
    var op: CompositionOp = .value
    var sequence: UInt64 = 0
    var leafIndex: Int32 = 0
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
}

/// A track's place in a slot's composition order (add order, then child order: semantics §8.4).
struct SlotEntry {
    var track: Int32
    var sequence: UInt64
    var leafIndex: Int32
    var isRotation: Bool
}

/// One property of one layer: its model value and the tracks over it in composition order.
struct SlotRecord: TableRecord {
    var generation: UInt32 = 0
    var alive = false
    var layer = LayerID(0)
    var property = ""
    var kind: ValueKind = .scalar
    var model: AnimationValue = 0
    var entries: [SlotEntry] = []
}

/// One animation added to a layer: its tracks and time nodes, its key and its lifecycle.
struct AnimationRecord: TableRecord {
    var generation: UInt32 = 0
    var alive = false
    var layer = LayerID(0)
    var sequence: UInt64 = 0
    var animation: (any Animation)?
    /// The key it was added under (semantics §1.2); nil for anonymous animations.
    var key: String?
    /// The animation's `isRemovedOnCompletion`: a frame that finishes it reaps it (§1.4).
    var removedOnCompletion = false
    /// A frame reported its finish (it is not removed on completion): its stop was reported,
    /// so removing it later reports nothing (semantics §8.1: exactly one stop).
    var hasFinished = false
    var tracks: [Int32] = []
    var nodes: [Int32] = []
    /// Its track's lane holds a retarget not yet folded into `animation`
    /// (``InterpolatingBatch/pendingTarget(_:kind:)``).
    var retargeted = false
    /// The one track of a basic or spring animation outside groups, which a retarget rewrites in
    /// place (``Retargeter``); −1 for other animations.
    var columnTrack: Int32 = -1
    /// The last batch retarget that checked it (``Retargeter``): an animation named twice is
    /// refused before anything is done.
    var checkMark: UInt32 = 0
    /// Finished and removed, its track kept for the next animation under its key
    /// (``TrackStore/parksFinishedAnimations``): invisible, its handles stale, its lane showing nothing.
    var parked = false
    /// Parked: the timing its lane had (``TrackBatch/timing(_:)``), which a takeover restores.
    var parkedTiming = CompiledTiming.padding
}

/// What the engine knows of one layer: its slots, its animations in add order and their keys
/// (semantics §1.2, §8.2), so that a front end needs no registry of its own.
struct LayerRecord {
    var slots: [Int32] = []
    /// Every animation on the layer, parked ones too, in no particular order: readers order
    /// them by sequence (add order, semantics §8.2; ``EngineTables/listedAnimations(of:)``). So
    /// moving one to the end of the order, parking it and taking it over leave the record alone.
    var animations: [Int32] = []
    /// The animation under each key (semantics §1.2): live, or finished and parked
    /// (``TrackStore/parksFinishedAnimations``; its record says which). Never both: only the live
    /// one parks, and one added under the key takes the parked one over or frees it. So parking
    /// and taking over leave this table alone; each used to change it, a removal and an
    /// insertion in every implicit change and every park.
    var keys: [String: Int32] = [:]
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

/// A slot's name: one property of one layer.
struct SlotKey: Hashable {
    var layer: LayerID
    var property: String
}

/// Which batch a track joins: its kernel and value width.
enum BatchKey: Hashable {
    case basic(Int)
    case spring(Int, SpringRegime)
    case keyframe(Int)
    case path
    case reference(ValueKind)
}
