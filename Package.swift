// swift-tools-version: 6.1
// The root package: the libraries and their tests. Benchmarks live in Benchmarks/ (their own package)
// so that depending on this package, or running `swift test` here, never needs a benchmark library.
import PackageDescription

let package = Package(
    name: "AnimationEngine",
    products: [
        .library(name: "AnimationCore", targets: ["AnimationCore"]),
        .library(name: "AnimationBatch", targets: ["AnimationBatch"]),
        .library(name: "AnimationWorkloads", targets: ["AnimationWorkloads"]),
        .library(name: "AnimationScene", targets: ["AnimationScene"]),
        // Core Animation's object model: layers, transactions, actions, delegates, layer time.
        .library(name: "LayerTree", targets: ["LayerTree"]),
        // The five seed articles as LayerTree programs, and W3 built as a layer tree.
        .library(name: "LayerTreeSeeds", targets: ["LayerTreeSeeds"]),
        // Lottie (Bodymovin) files in the subset L1: reading, evaluation, geometry.
        .library(name: "AnimationLottie", targets: ["AnimationLottie"]),
        .executable(name: "animation-engine", targets: ["animation-engine"]),
        // The batch engine's figures beside the scalar reference (W1, W2); a product so that the
        // benchmark package builds it with the same engine build as its own tools.
        .executable(name: "batch-figures", targets: ["batch-figures"]),
        // The C interface: animation_engine.h and its implementation (link AnimationEngineC).
        .library(name: "AnimationEngineC", targets: ["AnimationEngineC", "CAnimationEngine"]),
        // Counts the process's heap allocations by replacing malloc & co. in the executable that
        // links it: for test and benchmark executables only.
        .library(name: "CAllocationCounter", targets: ["CAllocationCounter"]),
        // The fuzz targets as functions over bytes: run under libFuzzer by Fuzz/ (docs/fuzzing.md)
        // and replayed by the tests.
        .library(name: "AnimationFuzzing", targets: ["AnimationFuzzing"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // `swift package generate-documentation` for the DocC catalogs (a plugin: nothing is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The specification in code: value types, timing, animations and the scalar reference evaluator.
        // Imports nothing of ours (docs/architecture.md, "The flow of data").
        .target(name: "AnimationCore"),
        // Struct-of-arrays track store, SIMD kernels and the frame evaluator. Imports AnimationCore
        // (to compile animations and to be tested against its reference evaluator), nothing above it.
        .target(name: "AnimationBatch", dependencies: ["AnimationCore", "CKernelSupport"]),
        // Inline C helpers the kernels need and Swift cannot express (a prefetch hint).
        .target(name: "CKernelSupport"),
        // Seeded workloads: the random animations of the agreement tests and docs/architecture.md's W1–W3,
        // shared by the tests, the command-line tool and the benchmarks.
        .target(name: "AnimationWorkloads", dependencies: ["AnimationCore", "AnimationBatch", "CBuildInfo"]),
        .target(name: "CAllocationCounter"),
        // Prints the AnimationBatch figures (W1, W2) beside the scalar reference; the benchmark
        // suites in Benchmarks/ reuse the same workload code.
        .executableTarget(name: "batch-figures", dependencies: ["AnimationBatch", "AnimationWorkloads", "CAllocationCounter"]),
        // Core Animation's object model on the batch engine (docs/semantics.md §1, §2.7, §8–§12): a front
        // end that owns no per-frame math (docs/architecture.md).
        .target(name: "LayerTree", dependencies: ["AnimationCore", "AnimationBatch", "CKernelSupport"]),
        // The seeds as LayerTree programs (drawn through AnimationScene's renderer) and W3 as a tree:
        // what `animation-engine demo` and `bench --scene seeds` run, and the integration tests.
        .target(name: "LayerTreeSeeds", dependencies: ["LayerTree", "AnimationScene", "AnimationWorkloads", "AnimationBatch", "AnimationCore"]),
        // Lottie files (docs/lottie.md, subset L1): the reader with JSON-path errors and a report of
        // what lies outside L1, the scalar reference evaluation, and the geometry hosts and checks read.
        .target(name: "AnimationLottie", dependencies: ["AnimationCore", "AnimationBatch", "AnimationScene"]),
        // Scene files (docs/scene-format.md): decoding with JSON-path errors, and evaluation by either engine.
        .target(name: "AnimationScene", dependencies: ["AnimationCore", "AnimationBatch"]),
        // The command: bench (the main job), evaluate, plot, render. A thin adapter over the libraries.
        .executableTarget(
            name: "animation-engine",
            dependencies: [
                "AnimationCore", "AnimationBatch", "AnimationScene", "AnimationWorkloads", "CAllocationCounter",
                "LayerTree", "LayerTreeSeeds", "AnimationLottie",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The C interface: the header (and the per-thread error message) in C, the entry points in
        // Swift (@_cdecl) over the public API of AnimationCore and AnimationBatch.
        .target(name: "CAnimationEngine"),
        .target(name: "AnimationEngineC", dependencies: ["AnimationCore", "AnimationBatch", "AnimationLottie", "CAnimationEngine"]),
        // A C program that exercises the C interface as a C user would; AnimationEngineCTests runs it.
        .executableTarget(name: "c-interface-check", dependencies: ["AnimationEngineC", "CAnimationEngine"]),
        // The fuzz targets (docs/fuzzing.md): decoders of arbitrary bytes into files, paths,
        // animations and call sequences, with the invariants checked after each step.
        .target(
            name: "AnimationFuzzing",
            dependencies: ["AnimationCore", "AnimationBatch", "AnimationScene", "AnimationWorkloads", "AnimationLottie",
                           "LayerTree", "AnimationEngineC", "CAnimationEngine"]
        ),
        // What the build was compiled for (the -Xcc flags), for benchmark reports.
        .target(name: "CBuildInfo"),
        .testTarget(
            name: "AnimationBatchTests",
            dependencies: [
                "AnimationBatch",
                "AnimationCore",
                "AnimationWorkloads",
                "CAllocationCounter",
                "CKernelSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "AnimationWorkloadsTests",
            dependencies: ["AnimationWorkloads", "AnimationBatch", "AnimationCore"]
        ),
        .testTarget(
            name: "AnimationSceneTests",
            dependencies: ["AnimationScene", "AnimationBatch", "AnimationCore", "AnimationWorkloads"],
            exclude: ["Golden"]   // read through #filePath; UPDATE_GOLDEN=1 rewrites them
        ),
        .testTarget(
            name: "AnimationEngineCTests",
            dependencies: ["AnimationEngineC", "CAnimationEngine", "AnimationCore", "AnimationBatch", "c-interface-check"]
        ),
        .testTarget(
            name: "animation-engineTests",
            dependencies: ["animation-engine", "CAllocationCounter"]   // runs the built command as a user would
        ),
        .testTarget(
            name: "LayerTreeTests",
            dependencies: ["LayerTree", "LayerTreeSeeds", "AnimationScene", "AnimationBatch", "AnimationCore", "AnimationWorkloads", "CAllocationCounter"]
        ),
        .testTarget(
            name: "AnimationLottieTests",
            dependencies: ["AnimationLottie", "AnimationScene", "AnimationCore", "AnimationWorkloads", "CAllocationCounter"],
            exclude: ["Files"]   // Lottie files written for the tests, read through #filePath
        ),
        .testTarget(
            name: "AnimationFuzzingTests",
            dependencies: ["AnimationFuzzing", "AnimationWorkloads"]   // replays Fuzz/Corpus and Fuzz/Regressions
        ),
        .testTarget(
            name: "AnimationCoreTests",
            dependencies: [
                "AnimationCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// CI's one release build (.ci/run): with ANIMATION_ENGINE_CI_RELEASE=1 the benchmark smoke's
// tools join this package, so that the build that serves the optimised tests and the command's
// runs serves the smoke too (a build of its own took 470 s of CI's time, most of it the engine
// compiled again). Nobody sees them without the variable: not `swift test`, not a package that
// depends on this one. Benchmarks/Package.swift declares the same tools for full reports (its
// scripts clear the variable: the two sets never meet in one build). The shims' C++ flags
// (-O3 -march=native in the Benchmarks package) come from .ci/run's command line here, so that
// this manifest holds no unsafe flags.
if Context.environment["ANIMATION_ENGINE_CI_RELEASE"] == "1" {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    package.targets += [
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "AnimationBatch", "AnimationCore", "AnimationWorkloads", "AnimationScene", "LayerTree", "LayerTreeSeeds",
            ],
            path: "Benchmarks/Benchmarks",
            // The suites and an entry point of their own (the Benchmarks package's build plugin
            // writes one there; the plugin's tools would cost this build about 100 s of CPU).
            sources: ["EngineBenchmarks/EngineBenchmarks.swift", "EngineBenchmarksEntry/EngineBenchmarksEntry.swift"]
        ),
        .executableTarget(
            name: "engine-shim",
            dependencies: ["AnimationEngineC"],
            path: "Benchmarks/Sources/engine-shim",
            linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread"), .linkedLibrary("m")]
        ),
        .executableTarget(
            name: "lottie-shim",
            dependencies: ["AnimationEngineC"],
            path: "Benchmarks/Sources/lottie-shim",
            linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread"), .linkedLibrary("dl")]
        ),
        .executableTarget(
            name: "instruction-count",
            dependencies: ["AnimationBatch", "AnimationWorkloads"],
            path: "Benchmarks/Sources/instruction-count"
        ),
        .executableTarget(
            name: "perf-report",
            dependencies: ["AnimationScene", "AnimationLottie", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/Sources/perf-report"
        ),
    ]
    package.cxxLanguageStandard = .cxx17
}

// CI's thread-sanitizer build (.ci/run): with ANIMATION_ENGINE_TEST_MODULES=A,B the package keeps
// those test targets and the targets they depend on, nothing else, so that the sanitizer's build
// compiles only what its tests run. Products go too: each names targets that may be gone.
if let modules = Context.environment["ANIMATION_ENGINE_TEST_MODULES"] {
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var kept = Set<String>()
    var pending = modules.split(separator: ",").map(String.init)
    while let name = pending.popLast() {
        guard let target = byName[name], kept.insert(name).inserted else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
            default: break   // another package's product: built with the targets that use it
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products = []
}
