#!/usr/bin/env bash
# Lottie at scale beside rlottie, in one run: lottie-shim (google benchmark; LottieBatch through the
# C interface and rlottie's renderTree, N instances each at its own integer frame, 1 and 2 threads,
# heap per instance, parse and set-up apart) into a report folder.
#
#   Benchmarks/run-lottie-report.sh                # N = 1, 100, 1000, 10000, 3 repetitions → perf-reports/<date>-lottie-<commit>/
#   Benchmarks/run-lottie-report.sh --smoke DIR    # N = 1, 100, short runs, for CI: fails if a row could not run
#   Benchmarks/run-lottie-report.sh --smoke --prebuilt BIN DIR   # the same with lottie-shim and perf-report
#       already in BIN (CI's one release build: run-report.sh explains)
#   Benchmarks/run-lottie-report.sh --real FOLDER [--real-only] [DIR]
#       also every *.json in FOLDER (real files, kept outside the repository: players' sample
#       files), read leniently, at 100 and 1,000 instances, 3 repetitions: ours on 1 and 2
#       threads beside rlottie on one (a file outside L1 even so is listed as skipped);
#       --real-only measures only those. Then perf-report lottie writes lottie-summary.md: per
#       file its layers, paths, paints, trims, keyframes, both ticks and the ratio, with charts.
#
# Requires: libbenchmark-dev, librlottie-dev (apt-get install -y libbenchmark-dev librlottie-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=0 real="" real_only=0 prebuilt=""
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) smoke=1; shift ;;
        --prebuilt) prebuilt=$(cd "${2:?--prebuilt takes the folder of a release build}" && pwd); shift 2 ;;
        --real) real=$(cd "${2:?--real takes a folder of Lottie files}" && pwd); shift 2 ;;
        --real-only) real_only=1; shift ;;
        *) break ;;
    esac
done
if [ $real_only = 1 ] && [ -z "$real" ]; then echo "--real-only needs --real FOLDER" >&2; exit 2; fi
if [ -n "$prebuilt" ] && [ $smoke = 0 ]; then echo "--prebuilt goes with --smoke" >&2; exit 2; fi
# This package's tools, not the root package's copies of them (see the root Package.swift).
unset ANIMATION_ENGINE_CI_RELEASE
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
day=$(date -u +%Y-%m-%d)
out=${1:-perf-reports/$day-lottie-$commit}
mkdir -p "$out"
out=$(cd "$out" && pwd)
files=Benchmarks/Lottie/loader-12.json,Benchmarks/Lottie/logo-48.json
build=(-Xcc -march=native) build_dir=.build-native build_note="release -Xcc -march=native"
if [ $smoke = 1 ]; then
    sizes=1,100; options=(--benchmark_min_time=0.01)
    # The benchmark smoke's build (run-report.sh --smoke): one build for both smokes.
    build=(-Xcc -march=x86-64-v3) build_dir=.build-smoke build_note="release -Xcc -march=x86-64-v3 (smoke)"
else
    # Repetitions interleaved at random: the machines drift by tens of per cent within a run, and
    # a ratio taken between rows measured minutes apart carries that drift.
    sizes=1,100,1000,10000; options=(--benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true)
fi

bin="$PWD/Benchmarks/$build_dir/release"
if [ -n "$prebuilt" ]; then
    bin=$prebuilt build_note="release -Xcc -march=x86-64-v3 (smoke: CI's one release build of the root package)"
else
    echo "== building lottie-shim and perf-report (the engine with ${build[*]}) =="
    for product in lottie-shim perf-report; do
        (cd Benchmarks && swift build -c release "${build[@]}" --scratch-path "$build_dir" --product "$product" 2>&1 | tail -n 1)
    done
fi

if [ $real_only = 1 ]; then sizes="not run (--real-only)" files="not run (--real-only)"; fi
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)
cat > "$out/environment.json" <<JSON
{"date": "$day", "commit": "$commit", "cpu": "$cpu", "processors": "$(nproc)",
 "os": "$(. /etc/os-release && echo "$PRETTY_NAME")", "swift": "$(swift --version 2>&1 | head -n 1 | sed 's/"/\\"/g')",
 "engineBuild": "$build_note", "rlottie": "$(dpkg-query -W -f='${Version}' librlottie-dev 2>/dev/null || echo unknown)",
 "instances": "$sizes", "files": "$files", "realFiles": "${real:+every *.json of a folder outside the repository}"}
JSON

if [ $real_only = 0 ]; then
    echo "== lottie-shim =="
    "$bin/lottie-shim" --lottie-files=$files --instances=$sizes "${options[@]}" \
        --benchmark_out="$out/lottie-shim.json" --benchmark_out_format=json | tee "$out/lottie-shim.txt"
    if grep -q "ERROR OCCURRED" "$out/lottie-shim.txt"; then
        echo "lottie-shim: a row could not run (see above)" >&2
        exit 1
    fi
fi
if [ -n "$real" ]; then
    echo "== lottie-shim: real files in $real =="
    real_files=$(find "$real" -maxdepth 1 -name '*.json' | sort | paste -sd, -)
    [ -n "$real_files" ] || { echo "no *.json in $real" >&2; exit 2; }
    "$bin/lottie-shim" --lottie-files= --real-files="$real_files" --real-instances=100,1000 \
        --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
        --benchmark_out="$out/lottie-real.json" --benchmark_out_format=json | tee "$out/lottie-real.txt"
fi
"$bin/perf-report" lottie "$out" ${real:+--real "$real"}
