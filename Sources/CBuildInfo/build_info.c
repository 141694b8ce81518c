#include "build_info.h"

const char *animation_build_cpu_features(void) {
    return ""
#if defined(__x86_64__)
           "x86-64"
#elif defined(__aarch64__)
           "arm64"
#else
           "unknown-arch"
#endif
#ifdef __SSE4_2__
           " sse4.2"
#endif
#ifdef __AVX__
           " avx"
#endif
#ifdef __AVX2__
           " avx2"
#endif
#ifdef __FMA__
           " fma"
#endif
#ifdef __AVX512F__
           " avx512f"
#endif
#ifdef __AVX512VL__
           " avx512vl"
#endif
        ;
}

int animation_build_optimized(void) {
#ifdef __OPTIMIZE__
    return 1;
#else
    return 0;
#endif
}
