// RetryPolicy: how often and how patiently a transaction that lost a race with another one runs again.
import Foundation

/// How a transaction that failed for a reason worth retrying runs again: from scratch, after a growing pause.
///
/// ```swift
/// try await db.transaction(isolation: .serializable, retry: .attempts(5)) { tx in
///     let total = try Account.query(on: tx).sum(\.balance)
///     var entry = Entry(amount: total)
///     try entry.save(tx)
/// }
/// ```
///
/// An attempt is retried when it throws ``StrataError/serializationFailure`` (PostgreSQL's 40001, and its
/// deadlock victim 40P01) or ``StrataError/busy`` (SQLite's lock, the memory driver's busy timeout): each
/// means the transaction was rolled back whole and wrote nothing, so running the body again is safe. Nothing
/// else is retried: not ``StrataError/lockNotAvailable(table:)`` (a `noWait` lock asked not to wait), not
/// ``StrataError/connectionLost(_:)`` (a commit's outcome is then unknown, and a second run could write
/// twice). After the last attempt the error is rethrown unchanged.
///
/// Between attempts the task sleeps (the synchronous entries block their thread): `backoff` after the first
/// failure, doubling each time up to `maxBackoff`, each pause scaled by a random factor in 0.5…1 so that two
/// transactions that collided do not collide again in step.
public struct RetryPolicy: Sendable, Hashable {
    /// The most times the body runs, at least 1.
    public var maxAttempts: Int
    /// The pause after the first failed attempt.
    public var backoff: Duration
    /// The longest pause between two attempts.
    public var maxBackoff: Duration

    /// A policy that runs the body at most `maxAttempts` times (at least once).
    ///
    /// - Parameters:
    ///   - maxAttempts: the most runs of the body; values below 1 count as 1.
    ///   - backoff: the pause after the first failure (default 5 ms).
    ///   - maxBackoff: the longest pause (default 500 ms).
    public init(maxAttempts: Int, backoff: Duration = .milliseconds(5), maxBackoff: Duration = .milliseconds(500)) {
        self.maxAttempts = Swift.max(1, maxAttempts)
        self.backoff = backoff
        self.maxBackoff = maxBackoff
    }

    /// Runs the body once: no retry.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// Runs the body at most `n` times, pausing `backoff` (doubling, up to 500 ms) between runs.
    ///
    /// - Parameters:
    ///   - n: the most runs of the body; values below 1 count as 1.
    ///   - backoff: the pause after the first failure (default 5 ms).
    public static func attempts(_ n: Int, backoff: Duration = .milliseconds(5)) -> RetryPolicy {
        RetryPolicy(maxAttempts: n, backoff: backoff)
    }

    /// Whether an attempt that threw `error` may run again: a serialization failure, a deadlock or a busy
    /// database, which roll the whole transaction back.
    public static func isRetryable(_ error: any Error) -> Bool {
        switch error as? StrataError {
        case .serializationFailure?, .busy?: return true
        default: return false
        }
    }

    /// The pause after failed attempt number `attempt` (from 1), jitter included.
    func pause(after attempt: Int) -> Duration {
        var pause = backoff
        for _ in 1..<Swift.max(1, attempt) where pause < maxBackoff { pause = pause * 2 }
        return Swift.min(pause, maxBackoff) * Double.random(in: 0.5...1)
    }

    /// Runs `attempt` (given its number, from 1) until it succeeds, fails for a reason not retried, or has run
    /// ``maxAttempts`` times; sleeps between attempts.
    nonisolated(nonsending)
        func run<T>(_ attempt: (Int) async throws -> T) async throws -> T
    {
        var n = 1
        while true {
            do {
                return try await attempt(n)
            } catch let error where n < maxAttempts && Self.isRetryable(error) {
                try await Task.sleep(for: pause(after: n))
                n += 1
            }
        }
    }

    /// The blocking twin of ``run(_:)``: sleeps its thread between attempts.
    func runBlocking<T>(_ attempt: (Int) throws -> T) throws -> T {
        var n = 1
        while true {
            do {
                return try attempt(n)
            } catch let error where n < maxAttempts && Self.isRetryable(error) {
                let c = pause(after: n).components
                Thread.sleep(forTimeInterval: Double(c.seconds) + Double(c.attoseconds) / 1e18)
                n += 1
            }
        }
    }
}
