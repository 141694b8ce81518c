#ifndef BUILD_INFO_H
#define BUILD_INFO_H

#ifdef __cplusplus
extern "C" {
#endif

/// The CPU features this package was compiled for, as the C compiler saw them: SwiftPM passes the
/// same `-Xcc` flags (`-Xcc -march=native`) to C targets and to Swift's code generation, so this is
/// what benchmarks record as their build flags. A space-separated list such as
/// "x86-64 sse4.2 avx avx2 fma avx512f", or the architecture alone for a portable build.
const char *animation_build_cpu_features(void);

/// 1 when compiled with optimisation.
int animation_build_optimized(void);

#ifdef __cplusplus
}
#endif

#endif
