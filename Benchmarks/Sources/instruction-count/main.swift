// Runs a fixed amount of engine work for valgrind's callgrind to count: a deterministic measure
// (instructions, not seconds) that a CI gate can trust on a noisy, shared machine.
//
//   valgrind --tool=callgrind --toggle-collect='*measuredWork*' instruction-count w2 10000 10
//
// Only `measuredWork` is counted: steady-state frames (the first frame, which plans, runs before
// it) or repeated timing-curve passes. It prints one JSON object: the workload, the sizes and the
// evaluations inside `measuredWork`, so instructions per evaluation = callgrind's total /
// evaluations. Build it without -march=native (valgrind does not run AVX-512 code) and strip its
// DWARF 5 debug information (valgrind 3.19 cannot read it; symbols stay).
import AnimationBatch
import AnimationWorkloads

/// The only function callgrind counts (`--toggle-collect='*measuredWork*'`).
@inline(never)
func measuredWork(_ repeats: Int, _ body: (Int) -> Void) {
    for k in 0..<repeats { body(k) }
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let size = Int(arguments[arguments.startIndex + 1]), let repeats = Int(arguments[arguments.startIndex + 2]),
      size > 0, size <= 10_000_000, repeats > 0, repeats <= 10_000,
      ["w1", "w2"].contains(arguments.first!) else {
    print("usage: instruction-count w1|w2 SIZE REPEATS   (SIZE ≤ 10,000,000, REPEATS ≤ 10,000)")
    exit(2)
}

if arguments.first == "w1" {
    let count = (size + 15) / 16 * 16
    let workload = W1Workload(count: count)
    let batch = TimingCurveBatch(functions: workload.functions)
    let outputs = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
    outputs.initialize(repeating: 0)
    measuredWork(repeats) { _ in batch.evaluate(inputs: workload.inputs.baseAddress!, outputs: outputs.baseAddress!, threads: 1) }
    print(#"{"workload": "W1", "size": \#(count), "repeats": \#(repeats), "evaluations": \#(count * repeats), "checksum": \#(outputs[count / 2])}"#)
} else {
    let store = try W2Workload(properties: size).makeStore()
    let evaluator = FrameEvaluator(store: store, configuration: .init(maximumThreads: 1))
    evaluator.evaluate(at: 0)   // plans the frame: not steady state
    measuredWork(repeats) { frame in evaluator.evaluate(at: Double(frame + 1) / 60) }
    print(#"{"workload": "W2", "size": \#(size), "repeats": \#(repeats), "evaluations": \#(store.trackCount * repeats)}"#)
}

import Foundation
