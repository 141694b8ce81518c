#include "allocation_counter.h"
#include <errno.h>   // first: on glibc it defines __GLIBC__

// Under AddressSanitizer or ThreadSanitizer the sanitizer's runtime owns malloc: replacing it here
// would bypass the runtime (it enters malloc while it initialises, before it can serve it), so the
// counter is compiled out and says so (allocation_counter_sanitized).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ALLOCATION_COUNTER_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ALLOCATION_COUNTER_SANITIZED 1
#endif

#ifdef ALLOCATION_COUNTER_SANITIZED
int allocation_counter_sanitized(void) { return 1; }
#else
int allocation_counter_sanitized(void) { return 0; }
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(ALLOCATION_COUNTER_SANITIZED)
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

// glibc's own allocator entry points: the definitions below take the public names in this
// executable (the dynamic linker resolves every library's malloc to the executable's first).
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_long allocation_count;
// 0: off; 1: every thread; 2: only threads that called allocation_counter_include_thread(1).
static atomic_int counting;
// Initial-exec TLS in the executable: reading it never allocates.
static __thread int thread_included;

static inline void count_one(void) {
    int mode = atomic_load_explicit(&counting, memory_order_relaxed);
    if (mode == 1 || (mode == 2 && thread_included)) {
        atomic_fetch_add_explicit(&allocation_count, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    count_one();
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

int allocation_counter_available(void) { return 1; }

void allocation_counter_start(void) {
    atomic_store(&allocation_count, 0);
    atomic_store(&counting, 1);
}

long allocation_counter_stop(void) {
    atomic_store(&counting, 0);
    return atomic_load(&allocation_count);
}

void allocation_counter_start_included_threads(void) {
    atomic_store(&allocation_count, 0);
    atomic_store(&counting, 2);
}

void allocation_counter_include_thread(int included) { thread_included = included; }

long allocation_counter_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long)(info.uordblks + info.hblkhd);   // small blocks in use, and large ones (mmapped)
}

#else

int allocation_counter_available(void) { return 0; }
void allocation_counter_start(void) {}
long allocation_counter_stop(void) { return -1; }
void allocation_counter_start_included_threads(void) {}
void allocation_counter_include_thread(int included) { (void)included; }
long allocation_counter_heap_in_use(void) { return -1; }

#endif
