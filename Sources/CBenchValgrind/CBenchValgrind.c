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

#if defined(__linux__) && defined(STRATA_HAVE_CALLGRIND)
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/// libdispatch parks the main thread of an async `main` in `sigsuspend` with a mask kept in read-only
/// memory, and valgrind 3.19 writes into the mask it is given: under valgrind the process dies as soon as
/// Swift's concurrency starts a thread. This `sigsuspend` (which the executable exports, so it takes the
/// C library's place) hands the kernel a writable copy; it is otherwise the same call.
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)(_NSIG / 8));
}
#endif
