// CBenchValgrind: wraps valgrind's header-only client requests; no-ops where the headers are absent.
#include "CBenchValgrind.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define STRATA_HAVE_CALLGRIND 1
#endif
#endif

#ifdef STRATA_HAVE_CALLGRIND
int strata_bench_running_on_valgrind(void) { return (int)RUNNING_ON_VALGRIND; }
void strata_bench_callgrind_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void strata_bench_callgrind_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
int strata_bench_callgrind_available(void) { return 1; }
#else
int strata_bench_running_on_valgrind(void) { return 0; }
void strata_bench_callgrind_start(void) {}
void strata_bench_callgrind_stop(void) {}
int strata_bench_callgrind_available(void) { return 0; }
#endif
