#ifndef KERNEL_SUPPORT_H
#define KERNEL_SUPPORT_H

#include <stddef.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

// Small helpers the Swift kernels cannot express (prefetch, gathers, mask reductions that stay
// inline): inlined into Swift code by the Clang importer.

/// Asks the CPU to start loading the cache line at `address` (for reading, low temporal
/// locality). A hint: never faults, never changes results.
static inline void animation_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 1);
}

/// Asks the CPU to start loading the cache line at `address` for writing (a store to it
/// follows soon). A hint: never faults, never changes results.
static inline void animation_prefetch_write(const void *address) {
    __builtin_prefetch(address, 1, 1);
}

/// Tells the CPU this thread is spinning on a flag (`pause` on x86, `yield` on ARM): a spin loop
/// then neither floods the memory pipeline nor starves a sibling hyperthread.
static inline void animation_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
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

/// The vector type of Clang's AVX-512 built-ins (same bits as `animation_float32x16`).
typedef float animation_v16sf __attribute__((__vector_size__(64)));

#if defined(__AVX512F__)
/// Four Floats (a quad of `animation_gather_quads`).
typedef float animation_float32x4 __attribute__((ext_vector_type(4)));

/// `[w x y z]`: four quads as one 16-lane vector, `w` in the lowest 128-bit lane.
static inline animation_float32x16 animation_concat4(animation_float32x4 w, animation_float32x4 x,
                                                     animation_float32x4 y, animation_float32x4 z) {
    return __builtin_shufflevector(__builtin_shufflevector(w, x, 0, 1, 2, 3, 4, 5, 6, 7),
                                   __builtin_shufflevector(y, z, 0, 1, 2, 3, 4, 5, 6, 7),
                                   0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
#endif

/// The four consecutive Floats at `base + index[k]` for each of the sixteen lanes `k`, transposed
/// into `out[0 ..< 64]`: `out[k] = base[index[k]]`, `out[16 + k] = base[index[k] + 1]`, `out[32 + k]`
/// and `out[48 + k]` the third and fourth. With AVX-512, sixteen 16-byte loads and a 4 × 4
/// transpose within each 128-bit lane (the quads placed so that it leaves the lanes in order): on
/// this Zen 4 the four 16-lane gathers it replaced (`vgatherdps`) cost the path kernel about a
/// fifth of its frame. Otherwise a loop of loads. Every `base + index[k]` must address four
/// readable Floats.
static inline void animation_gather_quads(const float *base, animation_int32x16 index, float *out) {
#if !defined(__AVX512F__)
    // With 16 registers of 128 bits the transpose spills: lane by lane measured the same.
    for (int k = 0; k < 16; k++) {
        const float *quad = base + index[k];
        out[k] = quad[0];
        out[16 + k] = quad[1];
        out[32 + k] = quad[2];
        out[48 + k] = quad[3];
    }
#else
    animation_float32x4 q[16];
    for (int k = 0; k < 16; k++) __builtin_memcpy(&q[k], base + index[k], sizeof(animation_float32x4));
    // a = [q0 q4 q8 q12], b = [q1 q5 q9 q13], c = [q2 q6 q10 q14], d = [q3 q7 q11 q15]: after the
    // transpose within each 128-bit lane, lane L of the j-th result holds component j of q4L … q4L+3.
    animation_float32x16 a = animation_concat4(q[0], q[4], q[8], q[12]);
    animation_float32x16 b = animation_concat4(q[1], q[5], q[9], q[13]);
    animation_float32x16 c = animation_concat4(q[2], q[6], q[10], q[14]);
    animation_float32x16 d = animation_concat4(q[3], q[7], q[11], q[15]);
    // Per 128-bit lane: [a0 b0 a1 b1], [a2 b2 a3 b3], [c0 d0 c1 d1], [c2 d2 c3 d3].
    animation_float32x16 abLow = __builtin_shufflevector(a, b, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
    animation_float32x16 abHigh = __builtin_shufflevector(a, b, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31);
    animation_float32x16 cdLow = __builtin_shufflevector(c, d, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
    animation_float32x16 cdHigh = __builtin_shufflevector(c, d, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31);
    animation_float32x16 first = __builtin_shufflevector(abLow, cdLow, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
    animation_float32x16 second = __builtin_shufflevector(abLow, cdLow, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    animation_float32x16 third = __builtin_shufflevector(abHigh, cdHigh, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
    animation_float32x16 fourth = __builtin_shufflevector(abHigh, cdHigh, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    __builtin_memcpy(out, &first, 64);
    __builtin_memcpy(out + 16, &second, 64);
    __builtin_memcpy(out + 32, &third, 64);
    __builtin_memcpy(out + 48, &fourth, 64);
#endif
}

/// Eight Doubles (Swift imports the type as `SIMD8<Double>`).
typedef double animation_float64x8 __attribute__((ext_vector_type(8)));

/// Whether the build targets a CPU with vector rounding instructions (SSE4.1's `roundps`/`roundpd`,
/// AVX-512's `vrndscale`, arm64's `frint`). Without them the compiler's vector floor is a libm call
/// per lane, with every vector register spilled around it; the helpers below round by exact
/// arithmetic instead.
#if defined(__SSE4_1__) || defined(__aarch64__)
#define ANIMATION_VECTOR_ROUNDING 1
#else
#define ANIMATION_VECTOR_ROUNDING 0
#endif

#if !ANIMATION_VECTOR_ROUNDING
/// `*x` rounded to the nearest integer, ties to even, by exact arithmetic: below 2²³,
/// `|x| + 2²³ − 2²³` is `|x|` rounded to the nearest integer (the sum's spacing is 1, and it rounds
/// ties to even), with the sign put back (so −0.4 gives −0); from 2²³ on every Float is an integer,
/// and ∞ and NaN fail the test, so those lanes keep `x`. Into `*result`, by pointers: a C call that
/// passes or returns a 64-byte vector warns in builds without AVX-512 (inlined, the pointers go away).
static inline void animation_round_even_arithmetic(const animation_float32x16 *x, animation_float32x16 *result) {
    typedef unsigned int u32x16 __attribute__((ext_vector_type(16)));
    const animation_float32x16 big = 0x1p23f;
    u32x16 bits = (u32x16)*x, sign = bits & 0x80000000u;
    animation_float32x16 magnitude = (animation_float32x16)(bits & 0x7FFFFFFFu);
    u32x16 nearest = (u32x16)((magnitude + big) - big) | sign;
    u32x16 small = (u32x16)(magnitude < big);
    *result = (animation_float32x16)((nearest & small) | (bits & ~small));
}
#endif

/// `x` rounded to the nearest integer, ties to even, per lane, bit for bit as `roundevenf` (±0,
/// ±∞ and NaN included): exact arithmetic without vector rounding (`animation_round_even_arithmetic`).
static inline animation_float32x16 animation_round_even(animation_float32x16 x) {
#if ANIMATION_VECTOR_ROUNDING
    return __builtin_elementwise_roundeven(x);
#else
    animation_float32x16 nearest;
    animation_round_even_arithmetic(&x, &nearest);
    return nearest;
#endif
}

/// `⌊x⌋` per lane, bit for bit as `floorf` (±0, ±∞ and NaN included): without vector rounding,
/// `animation_round_even_arithmetic`, less 1 where that passed `x`.
static inline animation_float32x16 animation_floor(animation_float32x16 x) {
#if ANIMATION_VECTOR_ROUNDING
    return __builtin_elementwise_floor(x);
#else
    typedef unsigned int u32x16 __attribute__((ext_vector_type(16)));
    animation_float32x16 nearest;
    animation_round_even_arithmetic(&x, &nearest);
    // Less 1 where that passed x: subtracting +0 elsewhere keeps a −0 (adding +0 would not).
    return nearest - (animation_float32x16)((u32x16)(animation_float32x16)1.0f & (u32x16)(nearest > x));
#endif
}

/// `⌊x⌋` per lane for Doubles, bit for bit as `floor`: without vector rounding, the arithmetic of
/// `animation_round_even_arithmetic` with 2⁵² for 2²³ (in Doubles: C has no generics), less 1
/// where that passed `x`.
static inline animation_float64x8 animation_floor_double(animation_float64x8 x) {
#if ANIMATION_VECTOR_ROUNDING
    return __builtin_elementwise_floor(x);
#else
    typedef unsigned long long u64x8 __attribute__((ext_vector_type(8)));
    const animation_float64x8 big = 0x1p52;
    u64x8 bits = (u64x8)x, sign = bits & 0x8000000000000000ull;
    animation_float64x8 magnitude = (animation_float64x8)(bits & 0x7FFFFFFFFFFFFFFFull);
    animation_float64x8 nearest = (animation_float64x8)((u64x8)((magnitude + big) - big) | sign);
    // Less 1 where that passed x: subtracting +0 elsewhere keeps a −0 (adding +0 would not).
    nearest = nearest - (animation_float64x8)((u64x8)(animation_float64x8)1.0 & (u64x8)(nearest > x));
    u64x8 small = (u64x8)(magnitude < big);
    return (animation_float64x8)(((u64x8)nearest & small) | (bits & ~small));
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

typedef unsigned char animation_bytes16 __attribute__((ext_vector_type(16)));

/// ORs `marks` (0 or 1 per lane) into the sixteen change bytes at `changed`.
static inline void animation_mark_lanes(unsigned char *changed, animation_bytes16 marks) {
    animation_bytes16 flags;
    __builtin_memcpy(&flags, changed, 16);
    flags |= marks;
    __builtin_memcpy(changed, &flags, 16);
}

/// Stores sixteen Floats at `destination` and ORs 1 into `changed[0 ..< 16]` for each lane whose
/// bits differ from those it replaces (a NaN repeated is no change). The old values share the
/// cache lines the store writes anyway, so the comparison costs no memory traffic; it lets the
/// frame skip the presentation rows of tracks whose value did not change.
static inline void animation_store_marking_changes(float *destination, animation_float32x16 value, unsigned char *changed) {
    animation_float32x16 old;
    __builtin_memcpy(&old, destination, 64);
    animation_int32x16 differs = ((animation_int32x16)value != (animation_int32x16)old) & 1;
    animation_mark_lanes(changed, __builtin_convertvector(differs, animation_bytes16));
    __builtin_memcpy(destination, &value, 64);
}

// `__builtin_shufflevector` indices for ``animation_show_component_marking``: place j of a block's
// W-component rows takes the spread shown value (operand 0) where j is component C's place and
// the old row (operand 1, from index 16·W) elsewhere; EVERY lists component C's places.
#define ANIMATION_MERGE(W, C, j) (((j) % (W) == (C)) ? (j) : (W) * 16 + (j))
#define ANIMATION_MERGE8(W, C, j) ANIMATION_MERGE(W, C, j), ANIMATION_MERGE(W, C, j + 1), ANIMATION_MERGE(W, C, j + 2), \
    ANIMATION_MERGE(W, C, j + 3), ANIMATION_MERGE(W, C, j + 4), ANIMATION_MERGE(W, C, j + 5), ANIMATION_MERGE(W, C, j + 6), \
    ANIMATION_MERGE(W, C, j + 7)
#define ANIMATION_EVERY4(W, C, k) (C) + (W) * (k), (C) + (W) * ((k) + 1), (C) + (W) * ((k) + 2), (C) + (W) * ((k) + 3)
#define ANIMATION_EVERY16(W, C) ANIMATION_EVERY4(W, C, 0), ANIMATION_EVERY4(W, C, 4), ANIMATION_EVERY4(W, C, 8), ANIMATION_EVERY4(W, C, 12)
#define ANIMATION_SPREAD4(k) k, k, k, k

// One component C of a block of sixteen two-component rows (32 Doubles at `rows`): merged into
// the rows in full-width loads and stores, the old component compared bit for bit.
#define ANIMATION_SHOW_COMPONENT2(C) do { \
    d32 old, spread, merged; \
    __builtin_memcpy(&old, rows, 256); \
    spread = __builtin_shufflevector(shown, shown, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, \
                                     8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15); \
    merged = __builtin_shufflevector(spread, old, ANIMATION_MERGE8(2, C, 0), ANIMATION_MERGE8(2, C, 8), \
                                     ANIMATION_MERGE8(2, C, 16), ANIMATION_MERGE8(2, C, 24)); \
    before = __builtin_shufflevector(old, old, ANIMATION_EVERY16(2, C)); \
    __builtin_memcpy(rows, &merged, 256); \
} while (0)

// As ``ANIMATION_SHOW_COMPONENT2`` for four-component rows (64 Doubles).
#define ANIMATION_SHOW_COMPONENT4(C) do { \
    d64 old, spread, merged; \
    __builtin_memcpy(&old, rows, 512); \
    spread = __builtin_shufflevector(shown, shown, ANIMATION_SPREAD4(0), ANIMATION_SPREAD4(1), ANIMATION_SPREAD4(2), \
                                     ANIMATION_SPREAD4(3), ANIMATION_SPREAD4(4), ANIMATION_SPREAD4(5), ANIMATION_SPREAD4(6), \
                                     ANIMATION_SPREAD4(7), ANIMATION_SPREAD4(8), ANIMATION_SPREAD4(9), ANIMATION_SPREAD4(10), \
                                     ANIMATION_SPREAD4(11), ANIMATION_SPREAD4(12), ANIMATION_SPREAD4(13), ANIMATION_SPREAD4(14), \
                                     ANIMATION_SPREAD4(15)); \
    merged = __builtin_shufflevector(spread, old, ANIMATION_MERGE8(4, C, 0), ANIMATION_MERGE8(4, C, 8), \
                                     ANIMATION_MERGE8(4, C, 16), ANIMATION_MERGE8(4, C, 24), ANIMATION_MERGE8(4, C, 32), \
                                     ANIMATION_MERGE8(4, C, 40), ANIMATION_MERGE8(4, C, 48), ANIMATION_MERGE8(4, C, 56)); \
    before = __builtin_shufflevector(old, old, ANIMATION_EVERY16(4, C)); \
    __builtin_memcpy(rows, &merged, 512); \
} while (0)

/// Shows component `component` of a value kernel's sixteen lanes straight into sixteen
/// consecutive presentation rows of `width` (1, 2 or 4) Doubles each, marking in `changed`
/// (bit 0) the lanes whose component bits change; other widths do nothing (their blocks take the
/// Float output column). The Float output column is not written: the rows are the output of
/// such a block. A wider block's rows are read and written whole for each component (merged in
/// registers): the first component's stores bring its lines into cache, the others hit them, and
/// the output column's write and second pass — 14 MB a frame in W2 at 1,000,000 properties —
/// are saved.
static inline void animation_show_component_marking(double *rows, long width, long component,
                                                    animation_float32x16 value, unsigned char *changed) {
    typedef double d16 __attribute__((ext_vector_type(16)));
    typedef double d32 __attribute__((ext_vector_type(32)));
    typedef double d64 __attribute__((ext_vector_type(64)));
    typedef long i64x16 __attribute__((ext_vector_type(16)));   // 64-bit on the LP64 targets this builds for
    d16 shown = __builtin_convertvector(value, d16), before;
    switch (width * 4 + component) {
    case 4:
        __builtin_memcpy(&before, rows, 128);
        __builtin_memcpy(rows, &shown, 128);
        break;
    case 8: ANIMATION_SHOW_COMPONENT2(0); break;
    case 9: ANIMATION_SHOW_COMPONENT2(1); break;
    case 16: ANIMATION_SHOW_COMPONENT4(0); break;
    case 17: ANIMATION_SHOW_COMPONENT4(1); break;
    case 18: ANIMATION_SHOW_COMPONENT4(2); break;
    case 19: ANIMATION_SHOW_COMPONENT4(3); break;
    default: return;
    }
    i64x16 differs = ((i64x16)shown != (i64x16)before) & 1;
    animation_mark_lanes(changed, __builtin_convertvector(differs, animation_bytes16));
}

/// Shows sixteen lanes of two components into sixteen consecutive rows of a presentation column
/// (a block whose rows are contiguous, in lane order): `rows[2k] = x[k]`, `rows[2k + 1] = y[k]`.
static inline void animation_show_rows2(double *rows, const float *x, const float *y) {
    typedef float f16 __attribute__((ext_vector_type(16)));
    typedef float f32 __attribute__((ext_vector_type(32)));
    typedef double d32 __attribute__((ext_vector_type(32)));
    f16 a, b;
    __builtin_memcpy(&a, x, 64);
    __builtin_memcpy(&b, y, 64);
    f32 xy = __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                                     8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    d32 d = __builtin_convertvector(xy, d32);
    __builtin_memcpy(rows, &d, 256);
}

/// As ``animation_show_rows2`` for four components: `rows[4k + c]` is component c of lane k.
static inline void animation_show_rows4(double *rows, const float *c0, const float *c1, const float *c2, const float *c3) {
    typedef float f16 __attribute__((ext_vector_type(16)));
    typedef float f32 __attribute__((ext_vector_type(32)));
    typedef double d32 __attribute__((ext_vector_type(32)));
    f16 a, b, c, d;
    __builtin_memcpy(&a, c0, 64);
    __builtin_memcpy(&b, c1, 64);
    __builtin_memcpy(&c, c2, 64);
    __builtin_memcpy(&d, c3, 64);
    // Lanes 0–7, then 8–15: (a, b, c, d) of each lane side by side.
    f32 low = __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23),
                                      __builtin_shufflevector(c, d, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23),
                                      0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23,
                                      8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
    f32 high = __builtin_shufflevector(__builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31),
                                       __builtin_shufflevector(c, d, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31),
                                       0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23,
                                       8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
    d32 lowRows = __builtin_convertvector(low, d32), highRows = __builtin_convertvector(high, d32);
    __builtin_memcpy(rows, &lowRows, 256);
    __builtin_memcpy(rows + 32, &highRows, 256);
}

#endif
