// Prints the AnimationBatch figures (docs/architecture.md, "Standard workloads"): the timing-curve kernel on W1, and W2 frames
// at N properties on one and two threads, each beside the scalar reference measured in the same run,
// with allocations per frame and the build's CPU flags. Run it with
//   swift run -c release -Xcc -march=native batch-figures
//   swift run -c release batch-figures            (portable build)
// Options: --properties N (W2, default 1,000,000), --frames N (default 120), --w1 N (default
// 1,000,000), --only FAMILY (one kernel family of W2 alone: basicScalar, basicPoint, basicColor,
// keyframe, path, spring), --json (one JSON object on standard output). --properties 0 runs W1 only.
import AnimationBatch
import AnimationWorkloads
import CAllocationCounter
import Foundation

var arguments = CommandLine.arguments.dropFirst()
var properties = 1_000_000, frames = 120, w1Count = 1_000_000, json = false
var only: W2Workload.Family?
while let argument = arguments.popFirst() {
    switch argument {
    case "--properties": properties = Int(arguments.popFirst() ?? "") ?? properties
    case "--frames": frames = Int(arguments.popFirst() ?? "") ?? frames
    case "--w1": w1Count = Int(arguments.popFirst() ?? "") ?? w1Count
    case "--json": json = true
    case "--only": only = W2Workload.Family(rawValue: arguments.popFirst() ?? "")
    default:
        FileHandle.standardError.write("unknown argument \(argument)\n".data(using: .utf8)!)
        exit(2)
    }
}

@MainActor func log(_ s: String) { if !json { print(s) } else { FileHandle.standardError.write((s + "\n").data(using: .utf8)!) } }

struct Report: Codable {
    var build: String
    var processors: Int
    var w1: W1Figures
    var w2: [W2Figures]
    var reference: ReferenceFigures
    var referenceFrameSecondsEstimate: Double
    var speedupOverReference2Threads: Double
    var scalingOneToTwoThreads: Double
    var reads: [ReadFigures]
    var churn: [ChurnFigures]
}

log("build: \(BuildInfo.summary); processors: \(ProcessInfo.processInfo.activeProcessorCount)")
let w1Workload = W1Workload(count: w1Count)
let w1 = Measure.w1(w1Workload)
w1Workload.deallocate()   // the inputs are not used after the W1 figures
log(String(format: "W1 timing curves (%d evaluations): %.2f ns/eval 1 thread, %.2f ns/eval 2 threads (%.2f core-ns); reference %.1f ns/eval (%.0f×); max error %.2e, p99.99 %.2e, named curves %.2e; %d evaluations in Double (nearly vertical curves)",
           w1.evaluations, w1.nanosecondsPerEvaluation1Thread, w1.nanosecondsPerEvaluation2Threads,
           w1.coreNanosecondsPerEvaluation2Threads, w1.referenceNanosecondsPerEvaluation, w1.speedupOverReference1Thread,
           w1.maximumError, w1.p9999Error, w1.maximumErrorNamedCurves, w1.doubleEvaluated))

guard properties > 0 else { exit(0) }   // W1 only
log("W2: building \(properties) properties…")
let w2Workload = W2Workload(properties: properties, only: only)
let store = try w2Workload.makeStore()
let evaluator = FrameEvaluator(store: store)
let counter: ((() -> Void) -> Int)? = allocation_counter_available() == 1 ? { body in
    allocation_counter_start()
    body()
    return allocation_counter_stop()
} : nil
var w2: [W2Figures] = []
for threads in [1, 2] {
    let figures = Measure.frames(evaluator, frames: frames, threads: threads, countAllocations: counter)
    w2.append(figures)
    log(String(format: "W2 %d properties, %d thread(s): frame p50 %.3f ms, p99 %.3f ms, min %.3f ms, %.1f M evaluations/s, %@ allocations/frame",
               figures.properties, threads, figures.frames.p50Seconds * 1e3, figures.frames.p99Seconds * 1e3, figures.frames.minSeconds * 1e3,
               figures.evaluationsPerSecond / 1e6, figures.allocationsPerFrame.map { String(format: "%.2f", $0) } ?? "n/a"))
}
let reference = Measure.reference(w2Workload, evaluator: evaluator, frames: min(frames, 120), sample: 5_000)
let referenceFrame = reference.nanosecondsPerProperty * Double(properties) / 1e9
let speedup = referenceFrame / w2[1].frames.p50Seconds
let scaling = w2[0].frames.p50Seconds / w2[1].frames.p50Seconds
log(String(format: "reference: %.0f ns/property on %d sampled properties → %.1f ms per frame at %d; batch on 2 threads %.1f× faster; 1→2 threads %.2f×; max error %.3f of the precision table (relative %.2e)",
           reference.nanosecondsPerProperty, reference.sampleProperties, referenceFrame * 1e3, properties, speedup, scaling,
           reference.maximumErrorOfTolerance, reference.maximumRelativeError))
var reads: [ReadFigures] = []
for threads in [1, 2] {
    let r = Measure.reads(evaluator, frames: frames, threads: threads)
    reads.append(r)
    log(String(format: "reads, %d thread(s), %d values: bulk %.2f ns/value, value(of:) %.1f ns/call; frame + bulk read p50 %.3f ms against the frame alone %.3f ms (%.2f×); %.0f changed slots/frame",
               threads, r.values, r.bulkNanosecondsPerValue, r.valueOfNanosecondsPerCall, r.endToEnd.p50Seconds * 1e3,
               r.frameAlone.p50Seconds * 1e3, r.endToEnd.p50Seconds / r.frameAlone.p50Seconds, r.changedPerFrame))
}
// Last: it replaces every animation (new handles).
var churn: [ChurnFigures] = []
for threads in [1, 2] {
    let c = try Measure.churn(w2Workload, evaluator: evaluator, frames: frames, threads: threads)
    churn.append(c)
    log(String(format: "churn, %d thread(s), %d of %d animations replaced before every other frame: frame after p50 %.3f ms against %.3f ms without (%.2f×), %.0f ns per replace; all %d replaced in %.1f ms, the frame after %.3f ms; %d basic and spring animations retargeted to new values in %.1f ms (%.0f ns each), again in one call in %.1f ms (%.0f ns each)",
               threads, c.retargetedPerFrame, c.properties, c.frameAfterRetarget.p50Seconds * 1e3, c.frameAlone.p50Seconds * 1e3,
               c.frameAfterRetarget.p50Seconds / c.frameAlone.p50Seconds, c.replaceNanoseconds, c.properties,
               c.retargetAllSeconds * 1e3, c.frameAfterRetargetAllSeconds * 1e3, c.retargetedValues, c.retargetValuesSeconds * 1e3,
               c.retargetValuesSeconds * 1e9 / Double(max(1, c.retargetedValues)), c.retargetManySeconds * 1e3,
               c.retargetManySeconds * 1e9 / Double(max(1, c.retargetedValues))))
}
if json {
    let report = Report(build: BuildInfo.summary, processors: ProcessInfo.processInfo.activeProcessorCount, w1: w1, w2: w2,
                        reference: reference, referenceFrameSecondsEstimate: referenceFrame,
                        speedupOverReference2Threads: speedup, scalingOneToTwoThreads: scaling, reads: reads, churn: churn)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(data: try encoder.encode(report), encoding: .utf8)!)
}
