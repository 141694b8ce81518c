// swift-tools-version: 6.1
// The benchmark package: package-benchmark suites in Swift, the C++ google-benchmark shim over the
// C interface, and the report tool. It depends on the root package by path, so the root package —
// and `swift test` there — never needs a benchmark library.
import Foundation
import PackageDescription

// The root package's identity is the name of its folder (whatever the clone is called).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "AnimationEngineBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // package-benchmark suites: W1, W2 at 10k/100k/1M, W3 seeds, each kernel family, 1 vs 2 threads.
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "AnimationBatch", package: root),
                .product(name: "AnimationCore", package: root),
                .product(name: "AnimationWorkloads", package: root),
                .product(name: "AnimationScene", package: root),
                .product(name: "LayerTree", package: root),
                .product(name: "LayerTreeSeeds", package: root),
            ],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // The C++ google-benchmark shim: the engine through animation_engine.h beside C++ baselines.
        // Its C++ is built at -O3 -march=native (this package is never depended on, so unsafeFlags
        // are allowed here); the engine itself is built with whatever -Xcc flags the command gives.
        .executableTarget(
            name: "engine-shim",
            dependencies: [.product(name: "AnimationEngineC", package: root)],
            cxxSettings: [.unsafeFlags(["-O3", "-march=native"])],
            linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread"), .linkedLibrary("m")]
        ),
        // Lottie at scale: LottieBatch through the C interface beside rlottie's renderTree (loaded
        // with dlopen, so that this builds without librlottie-dev), in one google-benchmark run.
        .executableTarget(
            name: "lottie-shim",
            dependencies: [.product(name: "AnimationEngineC", package: root)],
            cxxSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread"), .linkedLibrary("dl")]
        ),
        // Counts instructions per evaluation under valgrind's callgrind (deterministic, for CI gates).
        .executableTarget(
            name: "instruction-count",
            dependencies: [
                .product(name: "AnimationBatch", package: root),
                .product(name: "AnimationWorkloads", package: root),
            ]
        ),
        // Summarises a report folder (Markdown and SVG charts) and compares two of them.
        .executableTarget(
            name: "perf-report",
            dependencies: [
                .product(name: "AnimationScene", package: root),
                .product(name: "AnimationLottie", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
