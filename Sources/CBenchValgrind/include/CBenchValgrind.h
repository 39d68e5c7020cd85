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

#endif
