// Cases+GracefulClose: closing with a grace period lets calls in flight commit, and refuses the calls made after.
import Foundation
import Strata

extension ConformanceSuite {
    static let gracefulCloseCases: [ConformanceCase] = [
        ConformanceCase("close.graceful-lets-calls-in-flight-commit-and-refuses-new-ones") { db in
            try await Fixtures.migrate(db)
            let closing = try await Siblings.open(db, connections: 2)
            let holding = Signal()
            let release = DispatchSemaphore(value: 0)
            let inFlight = Siblings.onOwnThread {
                try await closing.transaction { tx in
                    var row = ConfGroup(title: "in flight")
                    try row.save(tx)
                    holding.fire()
                    _ = release.wait(timeout: .now() + 300)
                }
            }
            await holding.wait()
            let closed = Task { await closing.close(gracePeriod: .seconds(300)) }
            let refusal = try await firstRefusal(of: closing)
            try check(
                refusal.map { "\($0)".contains("the database is closed") } == true,
                "a call made while closing is refused as closed: \(refusal.map { "\($0)" } ?? "none")")
            release.signal()
            try await inFlight.value
            try checkEqual(await closed.value, true, "every call in flight ended within the grace period")
            let titles = try await ConfGroup.query(on: db).all().map(\.title)
            try checkEqual(titles, ["in flight"], "the call in flight committed")
            try checkEqual(closing.connectionsInUse, 0, "no connection is left in use")
        },
        ConformanceCase("close.graceful-past-its-deadline-closes-and-lets-the-call-end") { db in
            try await Fixtures.migrate(db)
            let closing = try await Siblings.open(db, connections: 2)
            let release = DispatchSemaphore(value: 0)
            let holder = await Siblings.holdOne(closing, until: release)
            let started = ContinuousClock.now
            let drained = await closing.close(gracePeriod: .milliseconds(50))
            let waited = ContinuousClock.now - started
            try checkEqual(drained, false, "a call still running at the deadline: not drained")
            try check(waited >= .milliseconds(50), "it waited the grace period (\(waited))")
            try await checkThrows("a call after closing", { if case .connectionFailed = $0 { true } else { false } }) {
                try await ConfGroup.query(on: closing).count()
            }
            release.signal()
            try await holder.value
            try checkEqual(closing.connectionsInUse, 0, "the late call's connection was given back and closed")
        },
    ]

    /// Waits (up to 300 s: under a whole test run on 2 cores a task can wait a minute for a thread) until `db`
    /// closes, then makes one call; returns its refusal, or nil if it was not refused.
    private static func firstRefusal(of db: Database) async throws -> StrataError? {
        let until = ContinuousClock.now + .seconds(300)
        while !db.isClosed && ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(1)) }
        do {
            _ = try await ConfGroup.query(on: db).count()
            return nil
        } catch let error as StrataError {
            return error
        }
    }
}
