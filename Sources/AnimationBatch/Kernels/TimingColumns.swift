import CKernelSupport

/// A batch's timing, a column per field of ``CompiledTiming``: the one place the timing columns are
/// listed, shared by the batch (storing a lane's timing, reading it back, growing, moving and
/// prefetching lanes) and the timing kernel (``TimingKernel/init(_:)`` takes their pointers).
final class TimingColumns {
    let beginTime = Column<Double>(fill: .infinity)   // padding lanes never begin
    let speed = Column<Double>(fill: 1)
    let timeOffset = Column<Double>(fill: 0)
    let duration = Column<Double>(fill: 1)
    let activeDuration = Column<Double>(fill: 1)
    let endProgress = Column<Double>(fill: 1)
    let endIteration = Column<Float>(fill: 0)
    /// Timing flags (``CompiledTiming/timingMask``) and the batches' value flags.
    let flags = Column<UInt8>(fill: 0)
    /// The time node each lane reads its parent time from (−1: the frame's time).
    let timeNode = Column<Int32>(fill: -1)
    /// The timing's fold class (``CompiledTiming/foldClass``): 2 plain (padding lanes are), 1
    /// forward, 0 general.
    let foldClass = Column<UInt8>(fill: 2)

    /// Every column, for what is done to all alike (a stored list: building it per call would
    /// allocate in frames that reap).
    private(set) lazy var all: [any LaneColumn] = [beginTime, speed, timeOffset, duration, activeDuration, endProgress,
                                                   endIteration, flags, timeNode, foldClass]

    /// Stores lane `i`'s timing, keeping its value flags.
    func store(_ t: CompiledTiming, at i: Int) {
        beginTime[i] = t.beginTime
        speed[i] = t.speed
        timeOffset[i] = t.timeOffset
        duration[i] = t.duration
        activeDuration[i] = t.activeDuration
        endProgress[i] = t.endProgress
        endIteration[i] = t.endIteration
        flags[i] = t.flags | (flags[i] & ~CompiledTiming.timingMask)
        timeNode[i] = t.timeNode
        foldClass[i] = t.foldClass
    }

    /// Lane `i`'s timing as ``store(_:at:)`` stored it (its timing flags only).
    func load(_ i: Int) -> CompiledTiming {
        var t = CompiledTiming.padding
        t.beginTime = beginTime[i]
        t.speed = speed[i]
        t.timeOffset = timeOffset[i]
        t.duration = duration[i]
        t.activeDuration = activeDuration[i]
        t.endProgress = endProgress[i]
        t.endIteration = endIteration[i]
        t.flags = flags[i] & CompiledTiming.timingMask
        t.timeNode = timeNode[i]
        return t
    }
}
