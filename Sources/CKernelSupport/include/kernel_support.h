#ifndef KERNEL_SUPPORT_H
#define KERNEL_SUPPORT_H

#include <stddef.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

// Small helpers the Swift kernels cannot express (prefetch, gather, mask reductions that stay
// inline): inlined into Swift code by the Clang importer.

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

/// Sixteen 32-bit lanes (Swift imports the type as `SIMD16<Int32>`).
typedef int animation_int32x16 __attribute__((ext_vector_type(16)));

/// 1 when any lane of `mask` is nonzero. Swift's `any(_:)` over a `SIMDMask` reduces through the
/// standard library's generic `min()`, which in large kernels stays an out-of-line call (every
/// vector register spilled around it); this one is an OR reduction, inlined.
static inline int animation_any(animation_int32x16 mask) {
    return __builtin_reduce_or(mask) != 0;
}

/// 1 when every lane of `mask` is nonzero (mask lanes are 0 or −1).
static inline int animation_all(animation_int32x16 mask) {
    return __builtin_reduce_and(mask) != 0;
}

/// The lanes of `mask` (0 or −1 each) as the bits of an integer, lane k as bit k: a set of lanes
/// to walk with a count of trailing zeros, instead of testing sixteen lanes one by one.
static inline unsigned animation_mask_bits(animation_int32x16 mask) {
    const animation_int32x16 weights = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
    return (unsigned)__builtin_reduce_or(mask & weights);
}

/// Sixteen Floats (Swift imports the type as `SIMD16<Float>`).
typedef float animation_float32x16 __attribute__((ext_vector_type(16)));

/// The vector types of Clang's AVX-512 gather built-in (same bits as the two types above).
typedef float animation_v16sf __attribute__((__vector_size__(64)));
typedef int animation_v16si __attribute__((__vector_size__(64)));

/// `base[index[k]]` for each of the sixteen lanes: one gather instruction with AVX-512, a loop of
/// loads without (Swift has no gather). Every index must address a readable Float.
static inline animation_float32x16 animation_gather(const float *base, animation_int32x16 index) {
#if defined(__AVX512F__)
    return (animation_float32x16)__builtin_ia32_gathersiv16sf((animation_v16sf){0}, base, (animation_v16si)index,
                                                              (unsigned short)0xFFFF, 4);
#else
    animation_float32x16 result;
    for (int k = 0; k < 16; k++) result[k] = base[index[k]];
    return result;
#endif
}

/// 1 when this code is compiled for AVX-512 (`-Xcc -march=native` on a CPU that has it), 0
/// otherwise: a compile-time constant once inlined, for kernels whose best form depends on the
/// register file (32 512-bit registers, or 16 of 128 bits in the portable x86-64 build).
static inline int animation_has_avx512(void) {
#if defined(__AVX512F__)
    return 1;
#else
    return 0;
#endif
}
/// An estimate of `1 / x` in each lane: with AVX-512 one `vrcp14ps` (relative error below 2⁻¹⁴,
/// ±0 → ±∞, ±∞ → ±0, NaN → NaN), otherwise the division itself. For Newton steps whose answer is
/// checked and corrected by the next step, where a division's last bits buy nothing.
static inline animation_float32x16 animation_reciprocal_estimate(animation_float32x16 x) {
#if defined(__AVX512F__)
    return (animation_float32x16)__builtin_ia32_rcp14ps512_mask((animation_v16sf)x, (animation_v16sf){0},
                                                                (unsigned short)0xFFFF);
#else
    return 1.0f / x;
#endif
}

/// The huge-page size the column allocator aligns large blocks to (2 MiB on x86-64 and most arm64
/// Linux systems).
#define ANIMATION_HUGE_PAGE_BYTES ((size_t)2 << 20)

/// `bytes` of storage for a column or pool (`Column`, `Pool`): 64-byte aligned; for 2 MiB or more
/// on transparent huge pages on Linux (`madvise(MADV_HUGEPAGE)`, a hint the kernel follows when
/// its THP mode is `madvise` or `always`). A frame reads 20 to 30 columns at once, and keyframe and
/// path tracks read their records and tables at scattered places: with 4 KiB pages that is a TLB
/// miss per page, and the hardware prefetchers stop at every page boundary.
///
/// Large blocks start at a different offset into their first 2 MiB page each time (0 to 30 times
/// 4,160 bytes, `bytes` plus that much reserved): columns that all started on a 2 MiB boundary put
/// track `i` of every column in the same cache set (and on the same 4 KiB offset), and the portable
/// build's keyframe frames at 200,000 tracks ran 30 % slower than with malloc's scattered starts
/// (measured); staggered, they ran as fast or faster. NULL when the memory is not there. Free with
/// `animation_free_columns(storage, bytes)`, the same `bytes`.
static inline void *animation_allocate_columns(size_t bytes) {
    const size_t huge = ANIMATION_HUGE_PAGE_BYTES;
    void *storage = NULL;
    if (bytes >= huge) {
        static unsigned stagger = 0;
        size_t offset = (size_t)(__atomic_fetch_add(&stagger, 1, __ATOMIC_RELAXED) % 31) * 4160;
        if (posix_memalign(&storage, huge, bytes + offset) != 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        (void)madvise(storage, (bytes + offset + 4095) & ~(size_t)4095, MADV_HUGEPAGE);   // a hint: failure is harmless
#endif
        return (char *)storage + offset;
    }
    if (posix_memalign(&storage, 64, bytes < 64 ? 64 : bytes) != 0) return NULL;
    return storage;
}

/// Frees storage from `animation_allocate_columns(bytes)`: a large block's start is found again by
/// rounding down to its 2 MiB boundary (its offset is below 2 MiB).
static inline void animation_free_columns(void *storage, size_t bytes) {
    if (bytes >= ANIMATION_HUGE_PAGE_BYTES) storage = (void *)((size_t)storage & ~(ANIMATION_HUGE_PAGE_BYTES - 1));
    free(storage);
}

/// Stores the low byte of each of the sixteen lanes at `destination[0 ..< 16]` (one truncating
/// narrow and one 16-byte store; Swift's lane-by-lane conversion compiles to byte inserts).
static inline void animation_store_bytes(unsigned char *destination, animation_int32x16 value) {
    typedef unsigned char bytes16 __attribute__((ext_vector_type(16)));
    bytes16 narrowed = __builtin_convertvector(value, bytes16);
    __builtin_memcpy(destination, &narrowed, 16);
}

#endif
