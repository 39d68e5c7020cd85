// DedicatedThreadExecutor: a task executor with a thread of its own, for a case whose task must block.
import Strata

/// Runs the jobs of the tasks that prefer it on one thread of its own (a core ``ConnectionThread``).
///
/// A case whose transaction body blocks (waiting for another connection to read or write) runs that
/// task here, so the wait holds this thread and never one of Swift's few cooperative threads, which
/// the other connection's task needs.
final class DedicatedThreadExecutor: TaskExecutor, Sendable {
    private let thread = ConnectionThread(name: "strata conformance")

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        thread.submit { unowned.runSynchronously(on: executor) }
    }

    /// Ends the thread once the jobs given so far have run.
    func stop() { thread.stop() }
}
