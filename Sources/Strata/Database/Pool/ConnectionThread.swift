// ConnectionThread: a pooled connection's own thread, where its blocking calls run off Swift's cooperative pool.
import Foundation

/// A thread that runs one connection's calls, so that a call that waits (a network round trip, a lock
/// held by another connection) holds this thread rather than one of Swift's few cooperative threads.
///
/// The caller suspends while its body runs here and resumes when it returns: no thread per call, no
/// polling. The thread sleeps on a condition between calls and ends with ``stop()`` (or when the
/// connection's lease goes away).
///
/// `@unchecked Sendable`: `jobs` and `stopped` are read and written only while `condition` is locked.
package final class ConnectionThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false

    /// Starts the thread.
    ///
    /// - Parameter name: the thread's name, for debuggers and profilers.
    package init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        // As much stack as a main thread has: bodies are user code and may recurse deeply.
        thread.stackSize = 8 << 20
        thread.start()
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
            job()
        }
    }

    /// Queues `job` to run on this thread after the jobs before it.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread finish the calls it was given, then end.
    package func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on this thread and returns (or throws) what it did, suspending the caller meanwhile.
    ///
    /// The body is not interrupted when the calling task is cancelled: it finishes, so the connection
    /// is never left halfway through a call.
    ///
    /// - Parameter isolation: the caller's actor, which the suspension and resumption stay on.
    func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { body in
            _ = isolation  // keeps this closure in the caller's isolation, where `body` belongs
            let call = Call(body)
            await withUnsafeContinuation { (resume: UnsafeContinuation<Void, Never>) in
                submit {
                    call.run()
                    resume.resume()
                }
            }
            return try call.result()
        }
    }
}

/// One body handed to a ``ConnectionThread``, and what it returned or threw.
///
/// `@unchecked Sendable`: the caller stores the body, then suspends until the thread has run it and
/// resumed the caller's continuation; the lock that hands the job over and the resumption order every
/// access, so the caller and the thread never touch it at once. The body is dropped before the
/// caller resumes, so `withoutActuallyEscaping` finds it did not escape.
private final class Call<T>: @unchecked Sendable {
    private var body: (() throws -> T)?
    private var outcome: Result<T, any Error>?

    init(_ body: @escaping () throws -> T) { self.body = body }

    func run() {
        guard let body else { return }
        self.body = nil
        outcome = Result { try body() }
    }

    func result() throws -> T {
        guard let outcome else { throw StrataError.connectionFailed("a connection's thread did not run the call") }
        return try outcome.get()
    }
}
