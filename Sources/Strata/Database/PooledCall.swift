// PooledCall: a call that runs on its connection's own thread, handed the lease there and releasing it there.
import Foundation

/// A call waiting for (or running on) a pooled connection's thread, seen without its result type.
protocol PooledWork: AnyObject, Sendable {
    /// Runs the call on `lease`'s thread, releases the lease there, then resumes the caller.
    func start(on lease: Lease)
    /// Resumes the caller with `error` instead of running the call.
    func fail(_ error: any Error)
    /// Resumes the caller to try leasing again (a slot may be free, or the pool closed).
    func retry()
}

/// One call's body, run on the leased connection's thread with the caller suspended meanwhile.
///
/// When the body returns, the connection's thread releases the lease itself, so a call waiting for a
/// connection is handed it there and starts on the same thread at once: a busy connection goes from
/// one call to the next without waking a task in between or putting its thread to sleep. The caller
/// is resumed once, with the body's outcome.
///
/// `@unchecked Sendable`: the caller stores the body and the continuation before the call is queued,
/// then stays suspended until the continuation is resumed; the pool's mutex hands the call to exactly
/// one of release, timeout, cancellation or close, and that one resumes it after the last access (the
/// thread drops the body before resuming), so the caller and the thread never touch it at once.
final class PooledCall<T>: PooledWork, @unchecked Sendable {
    private var body: ((Lease) throws -> T)?
    private var outcome: Result<T, any Error>?
    private var continuation: UnsafeContinuation<Bool, any Error>?
    private let pool: ConnectionPool

    init(_ body: @escaping (Lease) throws -> T, pool: ConnectionPool) {
        self.body = body
        self.pool = pool
    }

    /// Sets where the caller resumes; called before the call is queued or started.
    func suspend(_ continuation: UnsafeContinuation<Bool, any Error>) { self.continuation = continuation }

    func start(on lease: Lease) {
        lease.thread.submit { [self] in
            if let body {
                outcome = Result { try body(lease) }
            }
            body = nil
            pool.release(lease)  // may start the next waiting call on this same thread
            continuation?.resume(returning: true)
        }
    }

    func fail(_ error: any Error) { continuation?.resume(throwing: error) }

    func retry() { continuation?.resume(returning: false) }

    /// Drops the body (so `withoutActuallyEscaping` finds it did not escape).
    func drop() { body = nil }

    /// What the body returned or threw, once the caller is resumed after ``start(on:)``.
    func result() throws -> T {
        guard let outcome else { throw StrataError.connectionFailed("a connection's thread did not run the call") }
        return try outcome.get()
    }
}
