// CBenchValgrind: callgrind's client requests (start/stop instrumentation) as plain C functions for Swift.
#ifndef CBENCHVALGRIND_H
#define CBENCHVALGRIND_H

/// Whether the process runs under valgrind (0 when not, or when built without valgrind's headers).
int strata_bench_running_on_valgrind(void);
/// Turns callgrind's instrumentation on (a no-op outside callgrind).
void strata_bench_callgrind_start(void);
/// Turns callgrind's instrumentation off (a no-op outside callgrind).
void strata_bench_callgrind_stop(void);
/// Whether this build can talk to callgrind at all (valgrind's headers were found at build time).
int strata_bench_callgrind_available(void);
/// Calls into the C allocator (`malloc`, `calloc`, `realloc`) by every thread of the process so far (glibc on Linux;
/// 0 elsewhere). `posix_memalign` and `aligned_alloc`, which Swift uses for over-aligned objects only, are not counted.
unsigned long strata_bench_allocations(void);
/// Whether ``strata_bench_allocations`` counts (1) or always says 0.
int strata_bench_counts_allocations(void);

#endif
