// QueuedCall: a call that waits for a connection with its body, run by the thread that frees the connection.

/// A call queued for a connection together with its body, so that the connection's thread runs the body as soon as
/// the connection is handed over, without waking the caller's task to send it back there.
///
/// Without it, a contended call (more tasks than connections) costs four thread wake-ups: the releasing thread wakes
/// the waiting task (a cooperative thread), the task hands its body to the connection's thread (a wake-up of a thread
/// that has just gone to sleep), and the answer comes back the same two ways. With it, the releasing connection's
/// thread finds the next body in its own queue and runs it without sleeping, and the task wakes once, with its answer.
///
/// Handed a lease, the body runs on the lease's thread; handed nothing (a slot freed, the pool closed), the task wakes
/// to ask again; on a timeout, a cancellation or a close, the body never runs.
///
/// `@unchecked Sendable`: the body and outcome are set by the caller before the call is queued and read by the one
/// thread the pool's lock hands the call to; the caller reads the outcome only after that thread resumed it.
final class QueuedCall: @unchecked Sendable {
    /// Runs the body on the lease, then resumes the caller (true: it ran).
    private var work: ((Lease) -> Void)?
    private let continuation: UnsafeContinuation<Bool, any Error>

    init(continuation: UnsafeContinuation<Bool, any Error>, work: @escaping (Lease) -> Void) {
        self.continuation = continuation
        self.work = work
    }

    /// The pool handed over `lease` (or nothing: the caller asks again).
    func handed(_ lease: Lease?) {
        guard let lease, work != nil else {
            work = nil
            continuation.resume(returning: false)
            return
        }
        lease.thread.submit { self.run(on: lease) }
    }

    private func run(on lease: Lease) {
        let work = self.work
        self.work = nil
        work?(lease)
        continuation.resume(returning: true)
    }

    /// The wait ended without a connection (a timeout, a cancellation): the body is dropped unrun.
    func fail(_ error: any Error) {
        work = nil
        continuation.resume(throwing: error)
    }
}

/// A queued call's body and what it returned or threw (see ``QueuedCall``).
///
/// `@unchecked Sendable`: written on the connection's thread before the caller is resumed, read by the caller after.
private final class QueuedBody<T>: @unchecked Sendable {
    var body: ((Lease) throws -> T)?
    var outcome: Result<T, any Error>?

    init(_ body: @escaping (Lease) throws -> T) { self.body = body }

    func run(_ lease: Lease) {
        guard let body else { return }
        self.body = nil
        outcome = Result { try body(lease) }
    }
}

extension ConnectionPool {
    /// What ``acquireOrRun(_:)`` did.
    enum Acquired<T> {
        /// A connection was free (or a slot to open one): the caller runs its body, as after ``acquire()``.
        case lease(Lease, alone: Bool)
        /// The call waited, and its body ran on the connection handed to it, on that connection's thread; the
        /// connection is back in the pool.
        case ran(T)
    }

    /// ``acquire()`` for a body that runs on a connection's thread: a call that must wait queues with `body`, which
    /// the thread of the connection handed over runs (see ``QueuedCall``). `body` gives the lease back itself.
    ///
    /// - Throws: what ``acquire()`` throws, and what `body` throws.
    ///
    /// - Parameter isolation: the caller's actor, which the suspension and resumption stay on.
    func acquireOrRun<T>(isolation: isolated (any Actor)? = #isolation, _ body: (Lease) throws -> T) async throws
        -> Acquired<T>
    {
        let start: PoolInstant? = watched ? .now : nil
        var deadline: PoolInstant?
        var queued = false
        var ranBody = false
        do {
            while true {
                switch try checkout() {
                case .use(let lease, let alone):
                    if let start { noteLease(since: start, queued: queued) }
                    return .lease(lease, alone: alone)
                case .open(let alone):
                    let lease = try await connect(alone: alone)
                    if let start { noteLease(since: start, queued: queued) }
                    return .lease(lease, alone: alone)
                case .wait:
                    queued = true
                    let until = deadline ?? timeout.deadline
                    deadline = until
                    let ran: Acquired<T>? = try await withoutActuallyEscaping(body) { body in
                        _ = isolation  // keeps this closure in the caller's isolation, where `body` belongs
                        let call = QueuedBody(body)
                        defer { call.body = nil }  // never outlives this scope, run or not
                        let didRun = try await queue(until: until, retry: false) { c in
                            .call(
                                QueuedCall(continuation: c) { lease in
                                    if let start { self.noteLease(since: start, queued: true) }
                                    call.run(lease)
                                })
                        }
                        guard didRun else { return nil }
                        ranBody = true
                        guard let outcome = call.outcome else {
                            throw StrataError.connectionFailed("a connection's thread did not run the call")
                        }
                        return .ran(try outcome.get())
                    }
                    if let ran { return ran }
                }
            }
        } catch {
            if !ranBody, watched { noteAcquireFailed(error, queued: queued) }
            throw error
        }
    }

    /// Records a lease's wait since `start` (see ``noteLease(waitedNanoseconds:queued:)``).
    func noteLease(since start: PoolInstant, queued: Bool) {
        noteLease(waitedNanoseconds: PoolInstant.now.nanoseconds(since: start), queued: queued)
    }
}
