#!/usr/bin/env bash
# Runs one fuzz target under libFuzzer with AddressSanitizer (docs/fuzzing.md):
#   bash Fuzz/run.sh TARGET [libFuzzer options]      e.g. bash Fuzz/run.sh path -runs=1000000
#   bash Fuzz/run.sh --build-only                    the instrumented build alone (CI builds it early)
# Targets: scene, path, keyframes, c-interface, layer-tree, lottie, animator. New corpus entries go to
# Fuzz/.build-fuzz/corpus/TARGET (the committed seeds in Fuzz/Corpus/TARGET are read, not
# written); a failing input is saved as Fuzz/.build-fuzz/artifacts/TARGET-crash-… — copy it to
# Fuzz/Regressions/TARGET/ once fixed, so that the tests replay it for ever.
set -euo pipefail
cd "$(dirname "$0")"
target="${1:?usage: run.sh TARGET [libFuzzer options]}"
shift
# libFuzzer's runtime without its main (ours calls LLVMFuzzerRunDriver): from the toolchain's clang.
resource_dir="$(dirname "$(dirname "$(command -v swiftc)")")/lib/clang"
runtime="$(ls "$resource_dir"/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -n 1)"
if [ -z "$runtime" ]; then
    echo "libclang_rt.fuzzer_no_main-x86_64.a not found under $resource_dir (a Swift toolchain for Linux x86_64 ships it)" >&2
    exit 1
fi
# Coverage as -sanitize=fuzzer gives it (edges, comparisons, 8-bit counters), without its main.
swift build -c release --scratch-path .build-fuzz --product animation-fuzz \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
    -Xswiftc -DFUZZING -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol" | tail -n 3
[ "$target" = --build-only ] && exit 0
mkdir -p ".build-fuzz/corpus/$target" .build-fuzz/artifacts
# Swift's own crash handler would read memory ASan guards and bury the trap's report: off.
export SWIFT_BACKTRACE=enable=no
# No stack recorded per allocation: the targets allocate on every call, and recording took a sixth
# of a run (the animator's seeds: 12.2 → 10.3 s). A report still shows the faulting access's
# stack; replay the saved input with ASAN_OPTIONS=malloc_context_size=30 (docs/fuzzing.md).
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"
dictionary=()
[ -f "Dictionaries/$target.dict" ] && dictionary=("-dict=Dictionaries/$target.dict")
exec .build-fuzz/release/animation-fuzz "$target" -max_len=8192 -timeout=60 -report_slow_units=30 -rss_limit_mb=4096 \
    "-artifact_prefix=.build-fuzz/artifacts/$target-" "${dictionary[@]}" "$@" \
    ".build-fuzz/corpus/$target" "Corpus/$target"
