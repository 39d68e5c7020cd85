// RowLockRendererTests: a dialect that declares no isolation levels or row locks refuses them, typed.
import Testing

@testable import Strata

@Suite("SQL renderer: isolation levels and row locks a dialect lacks")
struct RowLockRendererTests {
    @Test("the default dialect capabilities throw unsupported, never a weaker transaction or no lock")
    func unsupported() throws {
        #expect(throws: StrataError.unsupported(feature: "isolation level serializable", driver: "odd")) {
            try SQLRenderer.render(.beginIsolated(.serializable), dialect: OddDialect())
        }
        var s = Select(table: "job", selection: .columns(["id"]))
        s.lock = RowLock(.update, .skipLocked)
        #expect(throws: StrataError.unsupported(feature: "row locks (FOR UPDATE SKIP LOCKED)", driver: "odd")) {
            try SQLRenderer.render(.select(s), dialect: OddDialect())
        }
        #expect(IsolationSupport.none.serving(.readCommitted) == nil)
        #expect(IsolationLevel.readCommitted < .repeatableRead && IsolationLevel.repeatableRead < .serializable)
    }

    @Test("retry backoff doubles up to its ceiling, with jitter in 0.5…1")
    func backoff() {
        let p = RetryPolicy(maxAttempts: 9, backoff: .milliseconds(10), maxBackoff: .milliseconds(50))
        for _ in 0..<20 {
            let first = p.pause(after: 1)
            #expect(first >= .milliseconds(5) && first <= .milliseconds(10))
            let third = p.pause(after: 3)
            #expect(third >= .milliseconds(20) && third <= .milliseconds(40))
            #expect(p.pause(after: 8) <= .milliseconds(50))
        }
        #expect(RetryPolicy.attempts(0).maxAttempts == 1)
        #expect(RetryPolicy.isRetryable(StrataError.serializationFailure) && RetryPolicy.isRetryable(StrataError.busy))
        #expect(!RetryPolicy.isRetryable(StrataError.lockNotAvailable(table: "job")))
        #expect(!RetryPolicy.isRetryable(StrataError.connectionLost("gone")))
    }
}
