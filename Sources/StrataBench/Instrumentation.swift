// Instrumentation: turns callgrind's counting on for exactly one timed section (the `--once` child run).
import CBenchValgrind
import Synchronization

/// Under `valgrind --tool=callgrind --instr-atstart=no`, counts the instructions of one timed section.
///
/// Instrumentation is global in callgrind (every thread is counted while it is on), which is what the
/// Strata side needs: its timed section hops between the caller and the pool's threads. ``arm()`` is
/// called right before the one run to be counted; ``begin()`` and ``end()`` (called by ``timed(_:digest:)``)
/// then turn instrumentation on and off once. Outside callgrind they do nothing.
enum Instrumentation {
    private static let armed = Atomic<Bool>(false)

    /// Counts the next timed section.
    static func arm() { armed.store(true, ordering: .sequentiallyConsistent) }

    static func begin() {
        if armed.load(ordering: .relaxed) { strata_bench_callgrind_start() }
    }

    static func end() {
        if armed.exchange(false, ordering: .sequentiallyConsistent) { strata_bench_callgrind_stop() }
    }

    /// Whether this process runs under valgrind.
    static var onValgrind: Bool { strata_bench_running_on_valgrind() != 0 }

    /// Whether this build can talk to callgrind (valgrind's headers were there when it was compiled).
    static var available: Bool { strata_bench_callgrind_available() != 0 }
}
