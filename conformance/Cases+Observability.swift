// Cases+Observability: what each driver logs through swift-log and records through swift-metrics.
import Logging
import Strata

extension ConformanceSuite {
    /// A second database over the case's driver, logging and measuring as `change` configures.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` when `probe`'s table is in `db` but a second database
    ///   over the driver does not see it (`sqlite::memory:` opens a new, empty database per connection).
    static func observed(
        _ db: Database, probe: any Model.Type = ConfUser.self, _ change: (inout Configuration) -> Void
    ) async throws -> Database {
        let plain = Database(driver: db.driver, configuration: db.configuration)
        defer { plain.close() }
        try await requireSameData(db, plain, probe: probe)
        var configuration = db.configuration
        change(&configuration)
        return Database(driver: db.driver, configuration: configuration)
    }

    /// Throws ``StrataError/unsupported(feature:driver:)`` when `probe`'s table answers in `reference` but not in
    /// `sibling`, another database over the same driver: the case needs both to reach the same data.
    static func requireSameData(_ reference: Database, _ sibling: Database, probe: any Model.Type) async throws {
        guard (try? await rowCount(probe, reference)) != nil else { return }
        do {
            _ = try await rowCount(probe, sibling)
        } catch StrataError.noSuchTable {
            throw StrataError.unsupported(
                feature: "a second connection to the same database", driver: reference.driverName)
        }
    }

    private static func rowCount<M: Model>(_ model: M.Type, _ db: Database) async throws -> Int {
        try await M.query(on: db).count()
    }

    static let observabilityCases: [ConformanceCase] = [
        ConformanceCase("log.statements-with-sql-duration-rows-and-driver") { db in
            try await Fixtures.migrate(db)
            let logs = CapturedLogs()
            let logged = try await observed(db) { $0.logger = logs.logger(level: .debug) }
            defer { logged.close() }
            var user = ConfUser(name: "Ann", email: "s3cret@x.io")
            try await user.save(on: logged)
            let found = try await ConfUser.query(on: logged).where(\.email == "s3cret@x.io").all()
            try checkEqual(found.count, 1, "the row is there")
            try await logged.transaction { tx in _ = try ConfUser.query(on: tx).count() }

            let statements = logs.records.filter { $0.message == "statement" }
            try check(statements.allSatisfy { $0.level == .debug }, "statements log at debug")
            try check(
                statements.allSatisfy { $0.metadata["db.system"] == db.driverName }, "each names the driver")
            let insert = statements.first { $0.metadata["db.operation"] == "insert" }
            try check(insert?.metadata["db.statement"]?.contains("INSERT INTO") == true, "the INSERT's SQL")
            try check(insert?.metadata["db.statement"]?.contains("conf_user") == true, "…naming its table")
            try checkEqual(insert?.metadata["db.rows_changed"], "1", "the INSERT changed one row")
            let select = statements.first { $0.metadata["db.operation"] == "select" }
            try check(select?.metadata["db.statement"]?.contains("SELECT") == true, "the SELECT's SQL")
            try checkEqual(select?.metadata["db.rows_returned"], "1", "the SELECT returned one row")
            let durations = statements.compactMap { $0.metadata["db.duration_ms"].flatMap(Double.init) }
            try check(durations.count == statements.count && durations.allSatisfy { $0 >= 0 }, "each has a duration")
            try check(
                !logs.records.contains { $0.metadata.values.contains { $0.contains("s3cret") } },
                "bound values are redacted")
            try check(select?.metadata["db.binds"]?.contains("redacted") == true, "…and say so")
            try check(
                !statements.contains { $0.metadata["db.operation"] == "transaction" },
                "BEGIN and COMMIT log at trace, not debug")
        },
        ConformanceCase("log.bound-values-and-transaction-control-on-request") { db in
            try await Fixtures.migrate(db)
            let logs = CapturedLogs()
            let logged = try await observed(db) {
                $0.logger = logs.logger(level: .trace)
                $0.logBoundValues = true
            }
            defer { logged.close() }
            try await logged.transaction { tx in
                var user = ConfUser(name: "Ann", email: "shown@x.io")
                try user.save(tx)
            }
            let statements = logs.records.filter { $0.message == "statement" }
            let insert = statements.first { $0.metadata["db.operation"] == "insert" }
            try check(
                insert?.metadata["db.binds"]?.hasPrefix("'Ann', 'shown@x.io', TRUE, NULL") == true,
                "binds shown when asked: \(insert?.metadata["db.binds"] ?? "none")")
            let control = statements.filter { $0.metadata["db.operation"] == "transaction" }
            try check(control.allSatisfy { $0.level == .trace }, "transaction control at trace")
            try check(control.count >= 2, "BEGIN and COMMIT are logged at trace (\(control.count))")
        },
        ConformanceCase("log.slow-statements-warn-at-any-level") { db in
            try await Fixtures.migrate(db)
            let logs = CapturedLogs()
            let everything = try await observed(db) {
                $0.logger = logs.logger(level: .warning)
                $0.slowStatementThreshold = 0
            }
            defer { everything.close() }
            _ = try await ConfUser.query(on: everything).count()
            let warnings = logs.records.filter { $0.message == "slow statement" }
            try checkEqual(warnings.map(\.level), [.warning], "a statement past a zero threshold warns")
            try check(warnings.first?.metadata["db.statement"]?.contains("SELECT") == true, "with its SQL")
            try check(
                !logs.records.contains { $0.message == "statement" }, "nothing at debug when the level is warning")

            let quiet = CapturedLogs()
            let never = try await observed(db) {
                $0.logger = quiet.logger(level: .warning)
                $0.slowStatementThreshold = 3600
            }
            defer { never.close() }
            _ = try await ConfUser.query(on: never).count()
            try checkEqual(quiet.records.count, 0, "no statement takes an hour")
        },
        ConformanceCase("log.connection-events-at-info") { db in
            try await Fixtures.migrate(db)
            let logs = CapturedLogs()
            let logged = try await observed(db) { $0.logger = logs.logger(level: .info) }
            _ = try await ConfUser.query(on: logged).count()
            logged.close()
            let messages = logs.records.map(\.message)
            try checkEqual(messages, ["opened a connection", "closed the pool"], "opened, then closed")
            try check(logs.records.allSatisfy { $0.level == .info }, "at info")
            try check(Configuration().logger.handler is SwiftLogNoOpLogHandler, "the default logger prints nothing")
        },
        ConformanceCase("metrics.statements-errors-and-pool") { db in
            try await Fixtures.migrate(db)
            let metrics = CapturedMetrics()
            let measured = try await observed(db) { $0.metricsFactory = metrics }
            defer { measured.close() }
            var a = ConfUser(name: "a", email: "a@x.io")
            try await a.save(on: measured)
            var twin = ConfUser(name: "twin", email: "a@x.io")
            try await checkThrows(
                "a duplicate email",
                {
                    if case .uniqueViolation = $0 { return true }
                    return false
                }
            ) { try await twin.save(on: measured) }
            _ = try await ConfUser.query(on: measured).all()
            _ = try await ConfUser.query(on: measured).count()
            let driver = ("driver", db.driverName)
            try checkEqual(
                metrics.total("strata_statements_total", [("kind", "select"), driver]), 2, "two selects counted")
            let inserts = metrics.total("strata_statements_total", [("kind", "insert"), driver])
            try checkEqual(inserts, 2, "two inserts counted, the failed one too")
            try checkEqual(
                metrics.samples("strata_statement_duration", [("kind", "select"), driver]).count, 2,
                "each select timed")
            try checkEqual(
                metrics.total("strata_errors_total", [("error", "uniqueViolation"), driver]), 1,
                "the violation counted by its case")
            try checkEqual(try await ConfUser.query(on: db).count(), 1, "the failed insert stored nothing")
            let waits = metrics.samples("strata_pool_wait_duration", [driver])
            try checkEqual(waits.count, 4, "each call leased a connection once")
            try checkEqual(
                metrics.samples("strata_pool_connections_in_use", [driver]).last, 0, "none in use afterwards")
        },
    ]
}

extension ConformanceSuite {
    static let observationCases: [ConformanceCase] = [
        ConformanceCase("observe.initial-then-one-per-commit") { db in
            try await Fixtures.migrate(db)
            var values = ConfGroup.query(on: db).order(\.title).observe().makeAsyncIterator()
            try checkEqual(try await values.next()?.map(\.title), [], "the initial value")
            var a = ConfGroup(title: "a")
            try await a.save(on: db)
            try checkEqual(try await values.next()?.map(\.title), ["a"], "after an autocommit insert")
            try await db.transaction { tx in
                var b = ConfGroup(title: "b")
                try b.save(tx)
                var c = ConfGroup(title: "c")
                try c.save(tx)
                b.title = "b2"
                try b.save(tx)
            }
            try checkEqual(try await values.next()?.map(\.title), ["a", "b2", "c"], "one value for a commit of three")
            a.title = "a2"
            try await a.save(on: db)
            try checkEqual(
                try await values.next()?.map(\.title), ["a2", "b2", "c"],
                "the next value is the next commit's (the transaction announced itself once)")
            _ = try await ConfGroup.query(on: db).where(\.title == "c").delete()
            try checkEqual(try await values.next()?.map(\.title), ["a2", "b2"], "after a bulk delete")
        },
        ConformanceCase("observe.rollback-and-other-tables-announce-nothing") { db in
            try await Fixtures.migrate(db)
            var values = ConfGroup.query(on: db).order(\.title).observe().makeAsyncIterator()
            try checkEqual(try await values.next()?.map(\.title), [], "the initial value")
            struct Abort: Error {}
            do {
                try await db.transaction { tx in
                    var lost = ConfGroup(title: "lost")
                    try lost.save(tx)
                    throw Abort()
                }
            } catch is Abort {}
            try await db.transaction { tx in
                var kept = ConfGroup(title: "kept")
                try kept.save(tx)
                try tx.savepoint { tx in
                    var inner = ConfGroup(title: "inner")
                    try inner.save(tx)
                    throw Rollback()
                }
            }
            try checkEqual(try await values.next()?.map(\.title), ["kept"], "the commit, not the rollback")
            var user = ConfUser(name: "u", email: "u@x.io")
            try await user.save(on: db)  // another table: not announced to this query
            var last = ConfGroup(title: "last")
            try await last.save(on: db)
            try checkEqual(
                try await values.next()?.map(\.title), ["kept", "last"], "the next group commit, not the user's")
        },
        ConformanceCase("observe.cancelling-stops-and-frees-the-connection") { db in
            try await Fixtures.migrate(db)
            let seen = Signal()
            let consumer = Task {
                var count = 0
                for try await _ in ConfGroup.query(on: db).observe() {
                    count += 1
                    seen.fire()
                }
                return count
            }
            await seen.wait()
            try checkEqual(db.observationCount, 1, "one observation while it runs")
            consumer.cancel()
            _ = try? await consumer.value
            var g = ConfGroup(title: "after")
            try await g.save(on: db)
            var rounds = 0
            while (db.observationCount > 0 || db.connectionsInUse > 0) && rounds < 3000 {
                rounds += 1
                try await Task.sleep(for: .milliseconds(10))
            }
            try checkEqual(db.observationCount, 0, "the observation ended")
            try checkEqual(db.connectionsInUse, 0, "and holds no connection")
        },
    ]
}
