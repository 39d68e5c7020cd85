// MariaDBSemanticsTests: the MariaDB rows of the semantics table that no shared conformance case can reach (lock
// errors, the server's own ranges, spellings the dialect chose), each run on a real server.
import Foundation
import Strata
import StrataMariaDB
import Synchronization
import Testing

@Suite("MariaDB semantics")
struct MariaDBSemanticsTests {
    /// Two writers lock rows 1 and 2, then each asks for the other's: InnoDB rolls one back (error 1213). Each
    /// thread's outcome, and how many times each body ran.
    private static func deadlock(_ db: Database, retry: RetryPolicy) async -> (results: [Error?], runs: Int) {
        let runs = Atomic<Int>(0)
        let bothHoldOne = DispatchGroup()
        bothHoldOne.enter()
        bothHoldOne.enter()
        let results = Mutex<[Error?]>([nil, nil])
        let done = DispatchGroup()
        for i in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                let first = Int64(i + 1)
                let firstRun = Atomic<Bool>(true)
                do {
                    try db.writeSync(retry: retry) { tx in
                        runs.add(1, ordering: .relaxed)
                        _ = try tx.unsafeRawExecute("UPDATE acct SET n = n + 1 WHERE id = ?", [first])
                        if firstRun.exchange(false, ordering: .relaxed) {
                            bothHoldOne.leave()
                            _ = bothHoldOne.wait(timeout: .now() + 10)
                        }
                        _ = try tx.unsafeRawExecute("UPDATE acct SET n = n + 1 WHERE id = ?", [3 - first])
                    }
                } catch {
                    results.withLock { $0[i] = error }
                }
            }
        }
        await withCheckedContinuation { c in done.notify(queue: .global()) { c.resume() } }
        return (results.withLock { $0 }, runs.load(ordering: .relaxed))
    }

    @Test("a deadlock (1213) is serializationFailure; transaction(retry:) runs the rolled-back body again")
    func deadlockIsSerializationFailure() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_deadlock", pool: 4)
        defer { db.close() }
        _ = try await db.unsafeRawExecute("CREATE TABLE acct (id BIGINT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB")
        _ = try await db.unsafeRawExecute("INSERT INTO acct VALUES (1, 0), (2, 0)")

        let plain = await Self.deadlock(db, retry: .never)
        let failures = plain.results.compactMap { $0 }
        #expect(failures.count == 1, "one writer loses: \(failures)")
        for failure in failures {
            guard case StrataError.serializationFailure = failure else {
                Issue.record("expected serializationFailure, got \(failure)")
                continue
            }
        }
        #expect(try await db.unsafeRawExecute("SELECT n FROM acct ORDER BY id") == [[.integer(1)], [.integer(1)]])

        let retried = await Self.deadlock(db, retry: .attempts(3, backoff: .milliseconds(1)))
        #expect(retried.results.allSatisfy { $0 == nil }, "both commit: \(retried.results)")
        #expect(retried.runs == 3, "the loser ran twice")
        #expect(try await db.unsafeRawExecute("SELECT n FROM acct ORDER BY id") == [[.integer(3)], [.integer(3)]])
        try await MariaDBTestServer.dropDatabase("strata_deadlock")
    }

    @Test("a lock wait past the timeout (1205) is busy, and the waiter's transaction stays as it was")
    func lockWaitIsBusy() async throws {
        _ = try await MariaDBTestServer.freshDatabase("strata_lockwait").close()
        var configuration = Configuration()
        configuration.timeout = 1
        let db = try Database.open(
            try MariaDBTestServer.baseURL + "/strata_lockwait?pool=2", drivers: [.mariadb],
            configuration: configuration)
        defer { db.close() }
        _ = try await db.unsafeRawExecute("CREATE TABLE acct (id BIGINT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB")
        _ = try await db.unsafeRawExecute("INSERT INTO acct VALUES (1, 0)")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = DispatchGroup()
        holder.enter()
        Thread.detachNewThread {
            defer { holder.leave() }
            _ = try? db.writeSync { tx in
                _ = try tx.unsafeRawExecute("UPDATE acct SET n = 1 WHERE id = 1")
                holding.signal()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        #expect(holding.wait(timeout: .now() + 10) == .success)
        let started = Date()
        await #expect(throws: StrataError.busy) {
            try await db.transaction { tx in _ = try tx.unsafeRawExecute("UPDATE acct SET n = 2 WHERE id = 1") }
        }
        // 1 s on an idle server; bounded either way (the default timeout would be 5 s, and no wait hangs).
        #expect(Date().timeIntervalSince(started) < 30, "the lock wait ends")
        release.signal()
        await withCheckedContinuation { c in holder.notify(queue: .global()) { c.resume() } }
        #expect(try await db.unsafeRawExecute("SELECT n FROM acct") == [[.integer(1)]])
        try await MariaDBTestServer.dropDatabase("strata_lockwait")
    }

    @Test("the server's own ranges: DATETIME(6) to 9999-12-31, DECIMAL(65,30), booleans as TINYINT(1) kept 0 or 1")
    func ranges() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_ranges")
        defer { db.close() }
        let d = MariaDBDialect()
        let columns = [ColumnType.date, .decimal, .bool].enumerated()
            .map {
                "`c\($0.offset)` \(d.sqlType($0.element))"
                    + (d.typeCheck($0.element, column: "`c\($0.offset)`")
                        .map { " CHECK (\($0))" } ?? "")
            }
            .joined(separator: ", ")
        _ = try await db.unsafeRawExecute("CREATE TABLE r (\(columns))\(d.tableSuffix)")
        let last = Date(timeIntervalSince1970: 253_402_300_799.5)  // 9999-12-31 23:59:59.5 UTC
        // 35 integer digits (with 3 fraction digits: Decimal's, and Strata's, 38 significant digits).
        let wide = try #require(Decimal(string: "12345678901234567890123456789012345.123"))
        _ = try await db.unsafeRawExecute("INSERT INTO r VALUES (?, ?, ?)", [last, wide, true])
        let row = try #require(try await db.unsafeRawExecute("SELECT * FROM r").first)
        #expect(abs(try Date(databaseValue: row[0]).timeIntervalSince(last)) < 0.000_002)
        #expect(try Decimal(databaseValue: row[1]) == wide)
        #expect(row[2] == .integer(1))
        // 30 fraction digits: the 31st is rounded away.
        let fine = try #require(Decimal(string: "1.1234567890123456789012345678907"))
        _ = try await db.unsafeRawExecute("UPDATE r SET c1 = ?", [fine])
        let rounded = try #require(try await db.unsafeRawExecute("SELECT c1 FROM r").first)
        #expect(try Decimal(databaseValue: rounded[0]) == Decimal(string: "1.123456789012345678901234567891"))
        // More than 38 significant digits (an exact sum, say) read as NaN, an arithmetic error for an aggregate, as
        // on PostgreSQL.
        _ = try await db.unsafeRawExecute(
            "UPDATE r SET c1 = CAST('12345678901234567890123456789012345.1234567' AS DECIMAL(65,30))")
        let past = try #require(try await db.unsafeRawExecute("SELECT c1 FROM r").first)
        #expect(past[0] == .decimal(.nan))
        await #expect(throws: StrataError.self) {
            _ = try await db.unsafeRawExecute("INSERT INTO r (c1) VALUES (?)", [Decimal(string: "1e36")!])
        }
        await #expect(throws: StrataError.self) {
            _ = try await db.unsafeRawExecute("INSERT INTO r (c2) VALUES (2)")
        }
        try await MariaDBTestServer.dropDatabase("strata_ranges")
    }

    @Test("LIMIT inside IN is a derived table; LAG/LEAD defaults are a CASE; long IN lists are one JSON_TABLE bind")
    func spellings() throws {
        let d = MariaDBDialect()
        #expect(d.windowDefault == .frameCase)
        #expect(d.inListArray == .jsonTable)
        #expect(d.limitedInSubquery == .derivedTable)
        #expect(d.keySQLType(.text) == "VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")
        #expect(d.keySQLType(.uuid) == d.sqlType(.uuid))
        #expect(!d.joinKinds.contains(.full))
        #expect(d.returning == [.insert, .delete])
        #expect(!d.transactionalDDL)
    }

    @Test("IN (SELECT … ORDER BY … LIMIT 2), which MariaDB refuses inline (1235), runs as a derived table")
    func limitedInSubquery() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_in_limit")
        defer { db.close() }
        _ = try await db.unsafeRawExecute("CREATE TABLE t (id BIGINT PRIMARY KEY)")
        _ = try await db.unsafeRawExecute("INSERT INTO t VALUES (5), (3), (9), (1)")
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/strata_in_limit", drivers: [.mariadb])
        let connection = try MariaDBDriver(options: try MariaDBConnectionOptions(url: url)).connect()
        let firstTwo = Select(table: "t", selection: .columns(["id"]), order: [Ordering("id")], limit: 2)
        let outer = Select(
            table: "t", selection: .columns(["id"]), filter: .inSubquery(.column("id"), firstTwo),
            order: [Ordering("id", .descending)])
        let sql = try SQLRenderer.render(.select(outer), dialect: MariaDBDialect()).sql
        #expect(sql.contains("IN (SELECT * FROM (SELECT"), "\(sql)")
        var ids: [Int64?] = []
        _ = try connection.execute(.select(outer)) { ids.append($0.int64(at: 0)) }
        #expect(ids == [3, 1])
        try await MariaDBTestServer.dropDatabase("strata_in_limit")
    }

    @Test("lower, upper and a case-insensitive LIKE fold A-Z only: one REPLACE per letter, since LOWER folds É")
    func asciiCaseMapping() throws {
        let replaceAll = { (inner: String, upper: Bool) -> String in
            let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".map(String.init)
            return String(repeating: "REPLACE(", count: 26) + inner
                + letters.map { upper ? ", '\($0.lowercased())', '\($0)')" : ", '\($0)', '\($0.lowercased())')" }
                .joined()
        }
        let lowered = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(.equal, .lower(.column("name")), .value(.text("é"))))
        #expect(
            try SQLRenderer.render(.select(lowered), dialect: MariaDBDialect()).sql
                == "SELECT `id` FROM `t` WHERE (" + replaceAll("`name`", false) + " = ?)")
        let uppered = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(.equal, .upper(.column("name")), .value(.text("É"))))
        #expect(
            try SQLRenderer.render(.select(uppered), dialect: MariaDBDialect()).sql
                == "SELECT `id` FROM `t` WHERE (" + replaceAll("`name`", true) + " = ?)")
        let like = Select(
            table: "t", selection: .columns(["id"]),
            filter: .like(.column("name"), "É%", caseInsensitive: true))
        #expect(
            try SQLRenderer.render(.select(like), dialect: MariaDBDialect()).sql
                == "SELECT `id` FROM `t` WHERE (" + replaceAll("`name`", false) + " LIKE " + replaceAll("?", false)
                + " ESCAPE '\\')")
    }

    @Test("a String key longer than 255 characters is a typed error naming the column")
    func longTextKey() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_text_key")
        defer { db.close() }
        let d = MariaDBDialect()
        _ = try await db.unsafeRawExecute("CREATE TABLE k (`code` \(d.keySQLType(.text)) NOT NULL PRIMARY KEY)")
        _ = try await db.unsafeRawExecute("INSERT INTO k VALUES (?)", [String(repeating: "é", count: 255)])
        await #expect {
            _ = try await db.unsafeRawExecute("INSERT INTO k VALUES (?)", [String(repeating: "a", count: 256)])
        } throws: { error in
            guard case StrataError.typeMismatch(_, "code", _) = error else { return false }
            return true
        }
        try await MariaDBTestServer.dropDatabase("strata_text_key")
    }
}
