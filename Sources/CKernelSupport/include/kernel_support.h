#ifndef KERNEL_SUPPORT_H
#define KERNEL_SUPPORT_H

// Small helpers the Swift kernels cannot express: inlined into Swift code by the Clang importer.

/// Asks the CPU to start loading the cache line at `address` (for reading, low temporal
/// locality). A hint: never faults, never changes results.
static inline void animation_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 1);
}

/// 1 when this code is compiled for a CPU with fused multiply-add (for example with
/// `-Xcc -march=native` on a recent x86-64), 0 otherwise. A compile-time constant once inlined:
/// the kernels use it to choose `addingProduct` (one instruction with FMA, a libm call per lane
/// without) or a multiply and an add, with no run-time test.
static inline int animation_has_fma(void) {
#if defined(__FMA__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

#endif
