// swift-tools-version: 6.1
// The fuzzers (docs/fuzzing.md): AnimationFuzzing's targets under libFuzzer and AddressSanitizer.
// A package of its own, like Benchmarks/, so that the root package never needs the fuzzing flags.
// Built by Fuzz/run.sh with coverage and the sanitizer on the command line; a plain `swift build`
// here gives a replayer of saved inputs instead.
import Foundation
import PackageDescription

// The root package's identity is the name of its folder (whatever the clone is called).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "AnimationEngineFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // Declares libFuzzer's entry point for Swift (the runtime comes from clang's
        // libclang_rt.fuzzer_no_main, linked by run.sh).
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "animation-fuzz",
            dependencies: ["CFuzzerDriver", .product(name: "AnimationFuzzing", package: root)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
