#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

// Counts heap allocations of the whole process, so that tests and benchmarks can check that a
// steady-state frame allocates nothing. Linking this target replaces malloc, calloc, realloc,
// posix_memalign, aligned_alloc, memalign and valloc in the executable (they count, then forward
// to glibc's own entry points); it is for test and benchmark executables only, never libraries.

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when allocations can be counted here (glibc, no sanitizer), 0 elsewhere.
int allocation_counter_available(void);
/// 1 when this was built under AddressSanitizer or ThreadSanitizer, whose runtime owns malloc:
/// counting is compiled out (allocation tests are skipped, not passed).
int allocation_counter_sanitized(void);
/// Resets the count and starts counting (every thread).
void allocation_counter_start(void);
/// Stops counting and returns the number of allocations since the start.
long allocation_counter_stop(void);
/// Resets the count and starts counting only on threads that included themselves: a test runner
/// runs other tests on other threads at the same time, and their allocations must not count.
void allocation_counter_start_included_threads(void);
/// Includes (1) or excludes (0) the calling thread for allocation_counter_start_included_threads.
void allocation_counter_include_thread(int included);
/* Bytes of heap in use (glibc's mallinfo2), or -1 where unknown: for memory per instance. */
long allocation_counter_heap_in_use(void);

#ifdef __cplusplus
}
#endif

#endif
