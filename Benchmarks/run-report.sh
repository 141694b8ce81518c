#!/usr/bin/env bash
# Runs both benchmark suites and writes a report folder: raw JSON, a Markdown summary and SVG charts.
#
#   Benchmarks/run-report.sh                  # full run → perf-reports/<date>-<commit>/
#   Benchmarks/run-report.sh --smoke DIR      # small sizes, one x86-64-v3 build, for CI: the same files, in DIR
#   Benchmarks/run-report.sh --smoke --build-only   # the smoke's build alone
#   Benchmarks/run-report.sh --smoke --prebuilt BIN DIR   # the smoke with the tools already in BIN: CI's one
#       release build of the root package with ANIMATION_ENGINE_CI_RELEASE=1 and -Xcc -march=x86-64-v3
#
# What runs (each in the same run, so ratios compare like with like):
#   - engine-shim (google benchmark): the engine through the C interface beside C++ baselines,
#     engine built with -Xcc -march=native, baselines with -O3 -march=native; repetitions give the noise;
#   - EngineBenchmarks (package-benchmark): W1, W2 at 10k/100k/1M, W3, each family, 1 vs 2 threads,
#     wall clock and malloc counts (built by the benchmark plugin: release, portable flags);
#   - batch-figures --json, native and portable: W1 and W2 beside the scalar reference;
#   - instruction-count under valgrind's callgrind (portable build): instructions per evaluation;
#   - perf-report summarize: README.md and the charts.
# Requires: libbenchmark-dev, valgrind (apt-get install -y libbenchmark-dev valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=0 build_only=0 prebuilt=""
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) smoke=1; shift ;;
        --build-only) build_only=1; shift ;;
        --prebuilt) prebuilt=$(cd "${2:?--prebuilt takes the folder of a release build}" && pwd); shift 2 ;;
        *) break ;;
    esac
done
if [ -n "$prebuilt" ] && { [ $smoke = 0 ] || [ $build_only = 1 ]; }; then echo "--prebuilt goes with --smoke DIR" >&2; exit 2; fi
# This package's tools, not the root package's copies of them (see the root Package.swift).
unset ANIMATION_ENGINE_CI_RELEASE
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
day=$(date -u +%Y-%m-%d)
if [ $build_only = 0 ]; then
    out=${1:-perf-reports/$day-$commit}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
fi
native=(-Xcc -march=native)
native_dir=.build-native portable=() portable_dir=.build

if [ $smoke = 1 ]; then
    w1=65536; mix=10000,100000; reps=2; mintime=0.1; scale=small
    w2=2000; w1count=16000; icrepeats=3; figures=(--w1 100000 --properties 20000 --frames 10)
    # One build serves the whole smoke (and the Lottie smoke, run-lottie-report.sh --smoke):
    # x86-64-v3 (AVX2, FMA) instead of this CPU's instructions and instead of the portable
    # baseline — AVX2 is what callgrind can still run, and a smoke checks that everything runs
    # and that the ratio floors hold, not the figures.
    native=(-Xcc -march=x86-64-v3) native_dir=.build-smoke portable=("${native[@]}") portable_dir=.build-smoke
    build_note="release -Xcc -march=x86-64-v3 for everything (smoke: one build)"
else
    w1=1048576; mix=10000,100000,1000000; reps=5; mintime=0.5; scale=full
    w2=10000; w1count=100000; icrepeats=5; figures=(--w1 1000000 --properties 1000000 --frames 120)
    build_note="release -Xcc -march=native (shim, batch-figures native); release portable (package-benchmark, callgrind)"
fi

native_bin="$PWD/Benchmarks/$native_dir/release" portable_bin="$PWD/Benchmarks/$portable_dir/release"
if [ -n "$prebuilt" ]; then
    native_bin=$prebuilt portable_bin=$prebuilt
    build_note="release -Xcc -march=x86-64-v3 for everything (smoke: CI's one release build of the root package)"
fi

# Two builds of the engine (one in smoke mode), each in its own scratch folder of the benchmark
# package (so that they never invalidate each other): native (-march=native) for the shim and
# batch-figures, portable for package-benchmark, callgrind, batch-figures and the report tool.
# batch-figures is the root package's product, built here as a dependency's: the same engine
# build serves it. (With --prebuilt, nothing is built here.)
if [ -z "$prebuilt" ]; then
    echo "== building (engine native for the shim and batch-figures; portable for the rest) =="
    for product in engine-shim batch-figures; do
        (cd Benchmarks && swift build -c release "${native[@]}" --scratch-path "$native_dir" --product "$product" 2>&1 | tail -n 1)
    done
    for product in instruction-count perf-report batch-figures; do
        (cd Benchmarks && swift build -c release ${portable[@]+"${portable[@]}"} --scratch-path "$portable_dir" --product "$product" 2>&1 | tail -n 1)
    done
    if [ $smoke = 1 ]; then
        # The smoke runs the suites without the benchmark plugin (below): its tool alone took 2.5 of
        # the CI smoke's minutes to compile, and a plugin build between two `swift build`s of the same
        # folder made the next one compile the engine again. lottie-shim: the Lottie smoke's
        # (run-lottie-report.sh --smoke), from this same build.
        for product in EngineBenchmarks lottie-shim; do
            (cd Benchmarks && swift build -c release "${native[@]}" --scratch-path "$native_dir" --product "$product" 2>&1 | tail -n 1)
        done
    fi
fi
[ $build_only = 1 ] && exit 0

cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)
cat > "$out/environment.json" <<JSON
{"date": "$day", "commit": "$commit", "cpu": "$cpu", "processors": "$(nproc)",
 "os": "$(. /etc/os-release && echo "$PRETTY_NAME")", "swift": "$(swift --version 2>&1 | head -n 1 | sed 's/"/\\"/g')",
 "engineBuild": "$build_note",
 "shimW1Size": "$w1", "shimMixSizes": "$mix", "repetitions": "$reps", "scale": "$scale"}
JSON

echo "== C++ shim (google benchmark) =="
"$native_bin/engine-shim" --w1-size=$w1 --mix-sizes=$mix --benchmark_repetitions=$reps \
    --benchmark_min_time=$mintime --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/shim.json" --benchmark_out_format=json

echo "== Swift suites (package-benchmark) =="
if [ $smoke = 1 ]; then
    # Each benchmark's executable run by itself prints its histograms (perf-report reads the
    # malloc counts from them): what the smoke checks is that every benchmark runs and that
    # steady-state frames allocate nothing.
    (cd Benchmarks && BENCHMARK_SCALE=$scale "$native_bin/EngineBenchmarks" --quiet true > "$out/swift-standalone.txt")
    echo "$(grep -c "^Debug results for" "$out/swift-standalone.txt") benchmarks run"
else
    (cd Benchmarks && BENCHMARK_SCALE=$scale swift package ${portable[@]+"${portable[@]}"} --scratch-path "$portable_dir" \
        --disable-sandbox --allow-writing-to-directory "$out" benchmark --format jmh --path "$out" --no-progress 2>&1 | tail -n 3)
    mv "$out/Current_run.jmh.json" "$out/swift.jmh.json"
fi

echo "== batch-figures, native and portable =="
"$native_bin/batch-figures" "${figures[@]}" --json > "$out/figures-native.json"
if [ "$native_bin" = "$portable_bin" ]; then   # the smoke's one build: the same binary, run once
    cp "$out/figures-native.json" "$out/figures-portable.json"
else
    "$portable_bin/batch-figures" "${figures[@]}" --json > "$out/figures-portable.json"
fi

echo "== instructions per evaluation (callgrind) =="
binary=$(mktemp)
objcopy --strip-debug "$portable_bin/instruction-count" "$binary"   # valgrind 3.19 cannot read DWARF 5
count() {  # workload size repeats → {"instructions": …, "evaluations": …}
    local cg; cg=$(mktemp)
    local info; info=$(valgrind --tool=callgrind --callgrind-out-file="$cg" --toggle-collect='*measuredWork*' "$binary" "$1" "$2" "$3" 2>/dev/null)
    local total; total=$(grep '^summary:' "$cg" | awk '{print $2}')
    local evaluations; evaluations=$(echo "$info" | sed 's/.*"evaluations": \([0-9]*\).*/\1/')
    rm -f "$cg"
    echo "{\"instructions\": $total, \"evaluations\": $evaluations, \"size\": $2, \"repeats\": $3}"
}
echo "{\"W1 (portable)\": $(count w1 $w1count $icrepeats), \"W2 (portable)\": $(count w2 $w2 $icrepeats)}" > "$out/instructions.json"
rm -f "$binary"

echo "== summary =="
"$portable_bin/perf-report" summarize "$out"
