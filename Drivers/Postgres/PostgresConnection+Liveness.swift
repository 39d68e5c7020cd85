// PostgresConnection+Liveness: tells the pool, without a round trip, whether an idle connection is still alive.
import CPostgres
import Foundation
import Strata

extension PostgresConnection {
    /// Whether the idle connection can take a statement: its socket shows no hang-up or error, and whatever the
    /// server sent while it sat idle (after a restart: a FATAL message, then the end of the stream) leaves libpq's
    /// status good. A `poll` with no wait and, only when something arrived, `PQconsumeInput`; never a query.
    ///
    /// A connection opened for a standby only is not usable once its server was promoted: PostgreSQL 14 and later
    /// report `in_hot_standby = off` with the first statement after a promotion, so a replica of a failover
    /// formation answers at most one more read from the new primary before the pool replaces it (and skips that
    /// replica while it is not a standby).
    public var isUsable: Bool {
        guard !isBroken, PQstatus(handle) == CONNECTION_OK else { return false }
        if requiresStandby, let hot = PQparameterStatus(handle, "in_hot_standby"), strcmp(hot, "off") == 0 {
            isBroken = true
            return false
        }
        for _ in 0..<4 {  // a message and then the end of the stream may take two reads
            var ready = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            let n = poll(&ready, 1, 0)
            if n == 0 { return true }
            if n < 0 { return errno == EINTR }
            let broken = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
            if ready.revents & broken != 0 || PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK {
                isBroken = true
                return false
            }
        }
        return PQstatus(handle) == CONNECTION_OK
    }
}
