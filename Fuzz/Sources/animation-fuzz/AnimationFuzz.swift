import AnimationFuzzing
import CFuzzerDriver
import Foundation

/// `animation-fuzz TARGET [libFuzzer options and corpus folders]` runs one of AnimationFuzzing's
/// targets under libFuzzer (built with -DFUZZING by Fuzz/run.sh); built without it,
/// `animation-fuzz TARGET FILE...` replays saved inputs and prints each outcome. The target may
/// also come from `ANIMATION_FUZZ_TARGET` (how libFuzzer's own child processes receive it).
@main
enum AnimationFuzz {
    static func main() {
        var arguments = CommandLine.arguments
        // The target is the first argument. libFuzzer runs itself again for -merge, -fork and
        // -jobs with its own options only, so the name also travels in the environment.
        let variable = "ANIMATION_FUZZ_TARGET"
        if arguments.count >= 2, let named = FuzzTarget(rawValue: arguments[1]) {
            setenv(variable, named.rawValue, 1)
            arguments.remove(at: 1)
        }
        guard let name = getenv(variable), let target = FuzzTarget(rawValue: String(cString: name)) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: animation-fuzz TARGET [options] [corpus...]; targets: \(names)\n".utf8))
            exit(2)
        }
        selectedTarget = target
        #if FUZZING
        // libFuzzer reads its own options from argv (the target's name is already out of it).
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var argc = Int32(argv.count - 1)
        let status = argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var base: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &base) { data, size in
                let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
                do {
                    try selectedTarget.run(bytes)
                } catch {
                    // A broken rule is a crash to libFuzzer: it saves the input and stops.
                    fatalError("\(selectedTarget.rawValue): \(error)")
                }
                return 0
            }
        }
        exit(status)
        #else
        var failures = 0
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("\(path): cannot read")
                failures += 1
                continue
            }
            do {
                try target.run([UInt8](data))
                print("\(path): passes")
            } catch {
                print("\(path): \(error)")
                failures += 1
            }
        }
        exit(failures == 0 ? 0 : 1)
        #endif
    }
}

/// The target libFuzzer's callback runs: set once in `main` before the driver starts, read only
/// on the driver's thread (libFuzzer calls the callback on the thread that called it).
nonisolated(unsafe) var selectedTarget = FuzzTarget.scene
