/// What a frame runs, handed from the store's planner to ``FrameEvaluator`` before each frame
/// (``TrackStore/prepareFrame()``): the batches to evaluate, the time nodes and the clock pass that
/// feed them, the composition plan and the presentation table they fill. The evaluator reads
/// nothing else of the store during a frame, and gives the plan up before it tells the store
/// which animations finished (the store changes its tables then).
struct FramePlan {
    let batches: [TrackBatch]
    /// Group roots, sixteen at once.
    let nodeBatch: NodeBatch
    /// Each time node's time this frame (the column the nodes, clocks and tracks read and write).
    let nodeTimes: Column<Double>
    /// Each time node's rate, in frames that compute velocities.
    let nodeRates: Column<Double>
    /// Time nodes, parents first, and their records (nested nodes are evaluated from them).
    let nodeOrder: [Int32]
    let nodes: [TimeNode]
    /// The layers' clocks, parents first.
    let clockSteps: [ClockStep]
    let composition: Composition
    let table: PresentationTable
    /// Moves whenever the track or slot layout changed since the last plan.
    let version: Int
    /// Events from changes since the last frame, which the frame delivers first.
    let pendingEventCount: Int

    /// How many tracks the batches hold.
    var trackCount: Int { batches.reduce(0) { $0 + $1.count } }
}
