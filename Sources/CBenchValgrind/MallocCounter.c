// MallocCounter: counts this process's calls into the C allocator (glibc), for allocations per statement.
#include "CBenchValgrind.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc

#if defined(__linux__) && defined(__GLIBC__)
#include <stdatomic.h>
#include <stddef.h>

// glibc's own allocator, which these wrappers call: every thread's allocations (Swift's through swift_slowAlloc,
// libpq's, Foundation's) reach the executable's `malloc` first, as with any allocator a program brings.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static atomic_ulong strata_bench_allocation_count;

void *malloc(size_t size) {
    atomic_fetch_add_explicit(&strata_bench_allocation_count, 1, memory_order_relaxed);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    atomic_fetch_add_explicit(&strata_bench_allocation_count, 1, memory_order_relaxed);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    atomic_fetch_add_explicit(&strata_bench_allocation_count, 1, memory_order_relaxed);
    return __libc_realloc(pointer, size);
}

unsigned long strata_bench_allocations(void) {
    return atomic_load_explicit(&strata_bench_allocation_count, memory_order_relaxed);
}
int strata_bench_counts_allocations(void) { return 1; }
#else
unsigned long strata_bench_allocations(void) { return 0; }
int strata_bench_counts_allocations(void) { return 0; }
#endif
