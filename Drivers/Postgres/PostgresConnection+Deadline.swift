// PostgresConnection+Deadline: waits for the server's answer no longer than the call's deadline.
import CPostgres
import Foundation
import Strata

extension PostgresConnection {
    /// The next result of the statement in flight, like `PQgetResult`, but waiting for the server at most until
    /// `deadline` (nil: as long as libpq waits). Past it the connection is marked broken and
    /// ``StrataError/connectionLost(_:)`` thrown: a frozen server or a half-open network cannot hold a call longer.
    func awaitResult(by deadline: PoolInstant?) throws -> OpaquePointer? {
        guard let deadline else { return PQgetResult(handle) }
        while PQisBusy(handle) == 1 {
            let socket = PQsocket(handle)
            guard socket >= 0 else { break }  // closed: PQgetResult reports it
            let left = deadline.nanoseconds(since: .now)
            guard left > 0 else {
                isBroken = true
                let limit = callTimeout.map { "\($0)" } ?? "the deadline"
                throw StrataError.connectionLost(
                    "no answer from the server within \(limit) (statement_timeout plus "
                        + "\(PostgresConnectionOptions.answerGrace) ms): it is frozen or the network is down; "
                        + "the connection was discarded")
            }
            let milliseconds = Int32(clamping: min(left / 1_000_000, 60_000) + 1)
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let n = poll(&ready, 1, milliseconds)
            if n < 0 && errno != EINTR { break }
            if n > 0 && PQconsumeInput(handle) == 0 { break }  // lost: PQgetResult reports it
        }
        return PQgetResult(handle)
    }

    /// The deadline of a call starting now: ``callTimeout`` from now, or nil. On ``MonotonicClock`` (`PoolInstant`):
    /// `ContinuousClock.Instant` is resilient, so each one made, copied and compared was a call.
    var callDeadline: PoolInstant? { callTimeout.map { PoolInstant.now.adding(nanoseconds: $0.nanoseconds) } }

    /// Whether a result came from the server (a success, or an error with the server's SQLSTATE) rather than
    /// from libpq losing the connection.
    static func isServerAnswer(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        guard status == PGRES_FATAL_ERROR || status == PGRES_NONFATAL_ERROR else { return true }
        guard let state = strata_pq_sqlstate(result) else { return false }
        return !String(cString: state).hasPrefix("08")
    }

    /// Whether a statement whose answer never came may have changed the database for good: a COMMIT, or a
    /// write (or raw SQL that is not plainly a read or transaction control) outside a transaction. A write inside
    /// a transaction is rolled back with the lost connection, so it cannot have been applied.
    static func mayHaveWritten(_ statement: Statement?, sql: String, autocommit: Bool) -> Bool {
        switch statement {
        case .commit?: return true
        case .select?, .begin?, .rollback?, .savepoint?, .releaseSavepoint?, .rollbackToSavepoint?: return false
        case .some: return autocommit
        case nil:
            let word = sql.drop { $0.isWhitespace }.prefix { $0.isLetter }.uppercased()
            if word == "COMMIT" || word == "END" { return true }
            let reads = ["SELECT", "SHOW", "BEGIN", "START", "ROLLBACK", "SAVEPOINT", "RELEASE", "VALUES", "TABLE"]
            return autocommit && !reads.contains(word)
        }
    }
}
