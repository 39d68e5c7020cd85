// DedicatedThreadExecutor: a task executor with a thread of its own, for a case whose task must block.
import Foundation

/// Runs the jobs of the tasks that prefer it on one thread of its own.
///
/// A case whose transaction body blocks (waiting for another connection to read or write) runs that
/// task here, so the wait holds this thread and never one of Swift's few cooperative threads, which
/// the other connection's task needs.
///
/// `@unchecked Sendable`: `jobs` and `stopped` are read and written only while `condition` is locked.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        let thread = Thread { [self] in loop() }
        thread.name = "strata conformance"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs given so far have run.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
