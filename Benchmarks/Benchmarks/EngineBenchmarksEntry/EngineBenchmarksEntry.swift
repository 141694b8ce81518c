// The suites' entry point when CI builds them into the root package (ANIMATION_ENGINE_CI_RELEASE,
// the root Package.swift). Benchmarks/Package.swift has package-benchmark's build plugin write this
// instead; without the plugin, the root build compiles no plugin tools (their ArgumentParser and
// SystemPackage builds for the host cost CI about 100 s of CPU).
import Benchmark

@main
struct EngineBenchmarksEntry: BenchmarkRunnerHooks {
    static func registerBenchmarks() {
        _ = benchmarks()
    }
}
