// PostgresStatementLoopTests: single reads sent from the statement loop while other calls hold connections.
import Foundation
import StrataConformance
import Synchronization
import Testing

@testable import Strata
@testable import StrataPostgres

@Model(table: "pgl_item")
struct LoopItem {
    var id: Int64?
    var name: String
    var rank: Int?
    var note: String?
}

/// A view over `pgl_item` whose `ratio` divides by zero on the row with id 5.
@Model(table: "pgl_ratio")
struct LoopRatio {
    var id: Int64?
    var ratio: Int?
}

/// A view over `pgl_item` that sleeps on the server for each row it reads (`pgl_nap`, set per schema).
@Model(table: "pgl_slow")
struct LoopSlow {
    var id: Int64?
    var name: String
}

extension PostgresServerTests {
    @Suite("PostgreSQL statement loop")
    struct PostgresStatementLoopTests {
        /// Rows in `pgl_item`: `item-<n>`, rank `n % 10`, a note on even rows.
        static let rows = 200

        /// A fresh schema `name` with `pgl_item` (seeded), `pgl_ratio` and `pgl_slow` (sleeping `nap` seconds per row),
        /// and a database on it with `parameters`; the model's columns are already checked, so query-builder reads
        /// may take the loop.
        static func seeded(
            _ name: String, nap: Double = 0.2, poolTimeout: Double = 10, _ parameters: String...
        ) async throws -> Database {
            let schema = try await PostgresTestServer.freshSchema(name)
            schema.close()
            let base = PostgresTestServer.baseURL
            let url =
                base + (base.contains("?") ? "&" : "?") + (["search_path=\(name)"] + parameters).joined(separator: "&")
            let db = try Database.open(
                url, drivers: [.postgres], configuration: Configuration(poolTimeout: poolTimeout))
            try await db.migrate(LoopItem.self)
            try await db.unsafeRawExecute(
                """
                INSERT INTO pgl_item (name, rank, note)
                SELECT 'item-' || g, g % 10, CASE WHEN g % 2 = 0 THEN 'note-' || g END FROM generate_series(1, \(rows)) g
                """)
            try await db.unsafeRawExecute("CREATE VIEW pgl_ratio AS SELECT id, 100 / (id - 5) AS ratio FROM pgl_item")
            try await db.unsafeRawExecute(
                """
                CREATE FUNCTION pgl_nap() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
                BEGIN PERFORM pg_sleep(\(nap)); RETURN true; END $$
                """)
            try await db.unsafeRawExecute("CREATE VIEW pgl_slow AS SELECT id, name FROM pgl_item WHERE pgl_nap()")
            _ = try await LoopItem.query(on: db).count()  // reads the model's columns: later reads may use the loop
            return db
        }

        /// A model as text, to compare whole rows.
        static func text(_ item: LoopItem) -> String {
            "\(item.id ?? -1)|\(item.name)|\(item.rank.map(String.init) ?? "nil")|\(item.note ?? "nil")"
        }

        /// Statements the loop threads were handed so far (process-wide).
        static var loopStatements: Int { PostgresLoopCounters.statements.load(ordering: .relaxed) }

        /// Runs `body` while one connection of `db` is held by a call on a thread of its own, so that every call of
        /// `body` meets another call in flight and goes to the statement loop.
        static func whileHeld<T>(_ db: Database, _ body: () async throws -> T) async throws -> T {
            let release = DispatchSemaphore(value: 0)
            let holder = await Siblings.holdOne(db, until: release)
            let result: Result<T, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            release.signal()
            try await holder.value
            return try result.get()
        }

        /// Waits for `body` at most `seconds`: a call the loop never answers fails the test instead of hanging it
        /// (the task is left behind).
        static func bounded<T: Sendable>(
            _ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T
        ) async throws -> T {
            let box = Mutex<Result<T, any Error>?>(nil)
            let task = Task {
                do {
                    let value = try await body()
                    box.withLock { $0 = .success(value) }
                } catch {
                    box.withLock { $0 = .failure(error) }
                }
            }
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if let result = box.withLock({ $0 }) { return try result.get() }
                try await Task.sleep(for: .milliseconds(5))
            }
            task.cancel()
            throw StrataError.invalidQuery("\(what) took more than \(seconds) s")
        }

        /// `body`'s value, or its error as a `StrataError` (anything else is an untyped `.database(code: -1, …)`).
        static func attempt<T>(_ body: () async throws -> T) async -> Result<T, StrataError> {
            do {
                return .success(try await body())
            } catch let error as StrataError {
                return .failure(error)
            } catch {
                return .failure(.database(code: -1, message: "untyped: \(error)"))
            }
        }

        /// The process ids of `db`'s backends, found by their `application_name`.
        static func backends(_ application: String) async throws -> Set<Int64> {
            let admin = try PostgresTestServer.open()
            defer { admin.close() }
            let rows = try await admin.unsafeRawExecute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = ?", [application])
            return Set(
                rows.compactMap { row -> Int64? in
                    if case .integer(let pid)? = row.first { return pid }
                    return nil
                })
        }

        /// Runs `body(task, round)` `rounds` times in each of `tasks` tasks at once; returns every mismatch it reports.
        static func concurrently(
            tasks: Int, rounds: Int, _ body: @escaping @Sendable (Int, Int) async throws -> [String]
        ) async throws -> [String] {
            try await withThrowingTaskGroup(of: [String].self) { group in
                for t in 0..<tasks {
                    group.addTask {
                        var wrong: [String] = []
                        for r in 0..<rounds { wrong += try await body(t, r) }
                        return wrong
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }

        /// What `find`, `all`, `first`, `count` and `exists` return for a task's ids, compared with `expected`
        /// (a serial read); one line per mismatch.
        static func readsMismatches(_ db: Database, task t: Int, round r: Int, expected: [Int64: String]) async throws
            -> [String]
        {
            var wrong: [String] = []
            let id = Int64((t * 37 + r * 11) % rows + 1)
            let found = try await LoopItem.find(id, on: db).map(text)
            if found != expected[id] {
                wrong.append("find(\(id)) = \(found ?? "nil"), expected \(expected[id] ?? "nil")")
            }
            let rank = (t + r) % 10
            let ranked = expected.filter { $0.value.split(separator: "|")[2] == "\(rank)" }
            let all = try await LoopItem.query(on: db).where(\.rank == rank).order(\.id).all().map(text)
            let wanted = ranked.keys.sorted().compactMap { expected[$0] }
            if all != wanted { wrong.append("all(rank \(rank)): \(all.count) rows, expected \(wanted.count)") }
            let first = try await LoopItem.query(on: db).where(\.rank == rank).order(\.id, .descending).first()
            if first.map(text) != wanted.last { wrong.append("first(rank \(rank)) = \(first.map(text) ?? "nil")") }
            let count = try await LoopItem.query(on: db).where(\.rank == rank).count()
            if count != wanted.count { wrong.append("count(rank \(rank)) = \(count), expected \(wanted.count)") }
            let name = "item-\(id)"
            if try await !LoopItem.query(on: db).where(\.name == name).exists() { wrong.append("exists(\(name))") }
            if try await LoopItem.query(on: db).where(\.name == "none-\(t)").exists() { wrong.append("exists(none)") }
            return wrong
        }

        /// The rows of `pgl_item` read serially in one transaction (the ordinary path), by id.
        static func serial(_ db: Database) async throws -> [Int64: String] {
            let items = try await db.transaction { tx in try LoopItem.query(on: tx).order(\.id).all() }
            return Dictionary(uniqueKeysWithValues: items.map { ($0.id ?? -1, text($0)) })
        }

        @Test(
            "64 tasks through pool=8: find, all, first, count and exists on the loop return exactly a serial read's rows"
        )
        func manyReaders() async throws {
            let db = try await Self.seeded("strata_loop_rows", "pool=8")
            defer { db.close() }
            let expected = try await Self.serial(db)
            #expect(expected.count == Self.rows)
            let before = Self.loopStatements
            let wrong = try await Self.whileHeld(db) {
                try await Self.bounded(120, "64 tasks of reads") {
                    try await Self.concurrently(tasks: 64, rounds: 4) { t, r in
                        try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                    }
                }
            }
            #expect(wrong.isEmpty, "\(wrong.count) mismatches, first: \(wrong.prefix(5))")
            let sent = Self.loopStatements - before
            #expect(sent >= 64 * 4 * 6, "only \(sent) of \(64 * 4 * 6) reads went through the loop")
            #expect(db.connectionsInUse == 0)
            #expect(db.pool.openCount <= 8)
            try await PostgresTestServer.dropSchema("strata_loop_rows")
        }

        @Test("a server error on the loop path is the ordinary path's typed error, and every connection goes on")
        func serverErrorOnLoop() async throws {
            let db = try await Self.seeded("strata_loop_error", "pool=8")
            defer { db.close() }
            // Alone: the ordinary path, on the caller's thread.
            let ordinary = await Self.attempt { try await LoopRatio.find(5, on: db) }
            guard case .failure(let expected) = ordinary else {
                Issue.record("find(5) on pgl_ratio divides by zero, but returned \(ordinary)")
                return
            }
            #expect(
                expected
                    == .arithmeticError(expression: "an arithmetic expression on pgl_ratio", reason: "division by zero")
            )
            let before = Self.loopStatements
            let results = try await Self.whileHeld(db) {
                try await Self.bounded(60, "32 tasks of ratios") {
                    try await withThrowingTaskGroup(of: (Int64, Result<Int?, StrataError>).self) { group in
                        for t in 0..<32 {
                            let id = Int64(t % 2 == 0 ? 5 : t + 1)
                            group.addTask { (id, await Self.attempt { try await LoopRatio.find(id, on: db)?.ratio }) }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
            }
            #expect(Self.loopStatements - before >= 32)
            for (id, result) in results {
                switch result {
                case .failure(let error): #expect(id == 5 && error == expected, "find(\(id)): \(error)")
                case .success(let ratio):
                    #expect(id != 5 && ratio == 100 / (Int(id) - 5), "find(\(id)) = \(ratio ?? 0)")
                }
            }
            #expect(results.count == 32)
            // Every connection the errors ran on still answers, and nothing was lost.
            let counts = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 16, rounds: 2) { _, _ in
                    let n = try await LoopItem.query(on: db).count()
                    return n == Self.rows ? [] : ["count \(n)"]
                }
            }
            #expect(counts.isEmpty, "\(counts)")
            #expect(db.connectionsInUse == 0)
            try await PostgresTestServer.dropSchema("strata_loop_error")
        }

        @Test("a view dropped on another connection after the loop prepared it is noSuchTable, as on the ordinary path")
        func droppedOnLoop() async throws {
            let db = try await Self.seeded("strata_loop_drop", "pool=8")
            defer { db.close() }
            let admin = try await PostgresTestServer.freshSchema("strata_loop_drop_admin")
            admin.close()
            // Prepared on every connection the loop uses.
            let warm = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 32, rounds: 2) { t, _ in
                    let id = Int64(t + 6)
                    let ratio = try await LoopRatio.find(id, on: db)?.ratio
                    return ratio == 100 / (Int(id) - 5) ? [] : ["find(\(id)) = \(ratio ?? 0)"]
                }
            }
            #expect(warm.isEmpty, "\(warm)")
            let other = try PostgresTestServer.open("search_path=strata_loop_drop")
            defer { other.close() }
            try await other.unsafeRawExecute("DROP VIEW pgl_ratio")
            let ordinary = await Self.attempt { try await LoopRatio.find(7, on: db) }
            guard case .failure(let expected) = ordinary else {
                Issue.record("find on a dropped view returned \(ordinary)")
                return
            }
            #expect(expected == .noSuchTable("pgl_ratio"))
            let before = Self.loopStatements
            let failed = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 32, rounds: 2) { t, _ in
                    let result = await Self.attempt { try await LoopRatio.find(Int64(t + 6), on: db) }
                    guard case .failure(let error) = result, error == expected else { return ["\(result)"] }
                    return []
                }
            }
            #expect(failed.isEmpty, "\(failed.count) differ: \(failed.prefix(3))")
            #expect(Self.loopStatements - before >= 64)
            // Made again: the same loop reads find it on every connection.
            try await other.unsafeRawExecute(
                "CREATE VIEW pgl_ratio AS SELECT id, 100 / (id - 5) AS ratio FROM pgl_item")
            let again = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 32, rounds: 2) { t, _ in
                    let id = Int64(t + 6)
                    let ratio = try await LoopRatio.find(id, on: db)?.ratio
                    return ratio == 100 / (Int(id) - 5) ? [] : ["find(\(id)) = \(ratio ?? 0)"]
                }
            }
            #expect(again.isEmpty, "\(again)")
            #expect(try await LoopItem.query(on: db).count() == Self.rows)
            try await PostgresTestServer.dropSchema("strata_loop_drop_admin")
            try await PostgresTestServer.dropSchema("strata_loop_drop")
        }

        @Test("a value the check refuses (text with NUL) is the same invalidValue on the loop, and nothing is sent")
        func refusedValueOnLoop() async throws {
            let db = try await Self.seeded("strata_loop_refused", "pool=4")
            defer { db.close() }
            let bad = "a\u{0}b"
            let ordinary = await Self.attempt { try await LoopItem.query(on: db).where(\.name == bad).all().count }
            guard case .failure(let expected) = ordinary, case .invalidValue = expected else {
                Issue.record("a NUL in text was not refused: \(ordinary)")
                return
            }
            let before = Self.loopStatements
            let differ = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 16, rounds: 2) { t, _ in
                    // Half of them meet a free connection, half queue behind the others (the check runs in both).
                    if t % 2 == 0 {
                        let result = await Self.attempt {
                            try await LoopItem.query(on: db).where(\.name == bad).count()
                        }
                        guard case .failure(let error) = result, error == expected else { return ["\(result)"] }
                        return []
                    }
                    let n = try await LoopItem.query(on: db).count()
                    return n == Self.rows ? [] : ["count \(n)"]
                }
            }
            #expect(differ.isEmpty, "\(differ)")
            #expect(Self.loopStatements - before >= 16, "the good reads went through the loop")
            #expect(db.connectionsInUse == 0)
            #expect(try await LoopItem.query(on: db).count() == Self.rows)
            try await PostgresTestServer.dropSchema("strata_loop_refused")
        }

        @Test("a row the model cannot read is the same decodingFailed on the loop, and the connections go on")
        func undecodableOnLoop() async throws {
            let db = try await Self.seeded("strata_loop_decode", "pool=4")
            defer { db.close() }
            try await db.unsafeRawExecute("DROP VIEW pgl_ratio")
            try await db.unsafeRawExecute("CREATE VIEW pgl_ratio AS SELECT id, 'many'::text AS ratio FROM pgl_item")
            let ordinary = await Self.attempt { try await LoopRatio.find(1, on: db) }
            guard case .failure(let expected) = ordinary, case .decodingFailed = expected else {
                Issue.record("a text ratio read as Int: \(ordinary)")
                return
            }
            let before = Self.loopStatements
            let differ = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 16, rounds: 2) { t, _ in
                    let result = await Self.attempt { try await LoopRatio.find(Int64(t + 1), on: db) }
                    guard case .failure(let error) = result, error == expected else { return ["\(result)"] }
                    return []
                }
            }
            #expect(differ.isEmpty, "\(differ.prefix(3))")
            #expect(Self.loopStatements - before >= 32)
            #expect(db.connectionsInUse == 0)
            #expect(try await LoopItem.query(on: db).count() == Self.rows)
            try await PostgresTestServer.dropSchema("strata_loop_decode")
        }

        @Test("queued reads go in groups to busy connections: a failing one fails alone, the ones it skipped run again")
        func pipelinedReadsFailAlone() async throws {
            let db = try await Self.seeded("strata_loop_pipeline", "pool=3")
            defer { db.close() }
            let expected = try #require(await Self.attempt { try await LoopRatio.find(5, on: db) }.failureValue)
            let sent = Self.loopStatements
            let pipelined = PostgresLoopCounters.pipelined.load(ordering: .relaxed)
            let resent = PostgresLoopCounters.resent.load(ordering: .relaxed)
            let wrong = try await Self.whileHeld(db) {
                try await Self.bounded(60, "48 tasks of ratios") {
                    try await Self.concurrently(tasks: 48, rounds: 8) { t, r in
                        let id = Int64((t + r) % 12 + 1)  // every twelfth read divides by zero
                        let result = await Self.attempt { try await LoopRatio.find(id, on: db)?.ratio }
                        switch result {
                        case .failure(let error) where id == 5 && error == expected: return []
                        case .success(let ratio?) where id != 5 && ratio == 100 / (Int(id) - 5): return []
                        default: return ["find(\(id)): \(result)"]
                        }
                    }
                }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(3))")
            #expect(Self.loopStatements - sent >= 48 * 8)
            #expect(
                PostgresLoopCounters.pipelined.load(ordering: .relaxed) > pipelined,
                "two connections for 48 tasks: reads queued behind others on a connection")
            #expect(
                PostgresLoopCounters.resent.load(ordering: .relaxed) > resent,
                "a division by zero grouped with other reads: the server skipped them, and they ran again")
            #expect(db.connectionsInUse == 0)
            #expect(try await LoopItem.query(on: db).count() == Self.rows)
            try await PostgresTestServer.dropSchema("strata_loop_pipeline")
        }

        @Test("a column's type changed by another process: loop reads prepare again (a stale plan) and succeed")
        func stalePlanOnLoop() async throws {
            let db = try await Self.seeded("strata_loop_stale", "pool=8")
            defer { db.close() }
            let expected = try await Self.serial(db)
            let warm = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 32, rounds: 2) { t, r in
                    try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                }
            }
            #expect(warm.isEmpty, "\(warm.prefix(3))")
            // By psql, another process: a change made through this process's connections makes them all prepare
            // again before they use a statement (see `PostgresSchemaEpoch`), and no plan would go stale.
            try PSQLTool.run(nil, "ALTER TABLE strata_loop_stale.pgl_item ALTER COLUMN rank TYPE integer")
            let replans = PostgresLoopCounters.replans.load(ordering: .relaxed)
            let before = Self.loopStatements
            let wrong = try await Self.whileHeld(db) {
                try await Self.bounded(60, "reads after ALTER TABLE") {
                    try await Self.concurrently(tasks: 32, rounds: 2) { t, r in
                        try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                    }
                }
            }
            #expect(wrong.isEmpty, "\(wrong.count) mismatches, first: \(wrong.prefix(3))")
            #expect(Self.loopStatements - before >= 32 * 2 * 6)
            #expect(
                PostgresLoopCounters.replans.load(ordering: .relaxed) > replans,
                "no loop statement met its stale plan")
            #expect(db.connectionsInUse == 0)
            try await PostgresTestServer.dropSchema("strata_loop_stale")
        }

        @Test(
            "with every connection held, a queued loop read ends with poolTimeout, a cancelled one with CancellationError, and nothing leaks",
            .timeLimit(.minutes(1)))
        func queuedTimeoutAndCancel() async throws {
            let db = try await Self.seeded(
                "strata_loop_queue", poolTimeout: 0.5, "pool=2", "application_name=strata_loop_queue")
            defer { db.close() }
            // Both connections sleep in transactions on threads of their own.
            let sleepers = (0..<2).map { _ in
                Siblings.onOwnThread {
                    try await db.transaction { tx in _ = try tx.unsafeRawExecute("SELECT pg_sleep(2.5)") }
                }
            }
            let held = ContinuousClock.now + .seconds(5)
            while db.connectionsInUse < 2 && ContinuousClock.now < held { try await Task.sleep(for: .milliseconds(5)) }
            try #require(db.connectionsInUse == 2)
            #expect(db.pool.statementLoop != nil)

            let start = ContinuousClock.now
            let timedOut = await Self.attempt { try await LoopItem.find(1, on: db) }
            let waited = ContinuousClock.now - start
            #expect(timedOut.failureValue == .poolTimeout(seconds: 0.5), "\(timedOut)")
            #expect(waited >= .seconds(0.45) && waited < .seconds(2), "waited \(waited)")
            #expect(db.pool.waitingCount == 0, "the timed-out read left the queue")

            let cancelled = Task { try await LoopItem.query(on: db).where(\.rank == 3).all() }
            let queued = ContinuousClock.now + .seconds(2)
            while db.pool.waitingCount < 1 && ContinuousClock.now < queued {
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(db.pool.waitingCount == 1, "the read queued")
            cancelled.cancel()
            let outcome = await cancelled.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(db.pool.waitingCount == 0, "the cancelled read left the queue")

            for sleeper in sleepers { try await sleeper.value }
            #expect(db.connectionsInUse == 0)
            #expect(db.pool.openCount == 2)
            #expect(
                try await Self.backends("strata_loop_queue").count == 2, "the server sees the pool's two connections")
            let expected = try await Self.serial(db)
            let before = Self.loopStatements
            let wrong = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 8, rounds: 2) { t, r in
                    try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(3))")
            #expect(Self.loopStatements - before >= 8 * 2 * 6)
            #expect(db.pool.openCount == 2)
            #expect(db.pool.waitingCount == 0)
            try await PostgresTestServer.dropSchema("strata_loop_queue")
        }

        /// Of 24 slow reads through 3 free connections, those still queued when each connection has its pipeline
        /// full (``PostgresLoopThread/pipelineDepth`` in flight).
        static let queuedBehindPipelines = 24 - 3 * PostgresLoopThread.pipelineDepth

        @Test(
            "tasks cancelled while their loop reads are queued or running: an answer already asked for arrives, the rest are CancellationError, nothing leaks",
            .timeLimit(.minutes(1)))
        func cancelledReaders() async throws {
            // Each read sleeps long enough on the server that the queue is still full when a loaded machine looks: the
            // first answers let the pipelines take more, so a 0.3 s nap was missed by a poll under load (CI).
            let db = try await Self.seeded("strata_loop_cancel", nap: 1.5, "pool=4")
            defer { db.close() }
            let before = Self.loopStatements
            let results = try await Self.whileHeld(db) {
                let tasks = (0..<24).map { t in
                    Task { try await LoopSlow.find(Int64(t + 1), on: db)?.name }
                }
                let queued = ContinuousClock.now + .seconds(5)
                while db.pool.waitingCount < 21 && ContinuousClock.now < queued {
                    try await Task.sleep(for: .milliseconds(5))
                }
                // 3 run on the loop and 21 queue; a connection's pipeline takes more of them only once it answers.
                #expect(db.pool.waitingCount == 21, "3 reads run on the loop, 21 queue")
                for task in tasks { task.cancel() }
                return try await Self.bounded(10, "cancelled reads") {
                    var out: [(Int, Result<String?, any Error>)] = []
                    for (t, task) in tasks.enumerated() { out.append((t, await task.result)) }
                    return out
                }
            }
            var answered = 0
            var cancelled = 0
            for (t, result) in results {
                switch result {
                case .success(let name):
                    answered += 1
                    #expect(name == "item-\(t + 1)")
                case .failure(let error as CancellationError):
                    _ = error
                    cancelled += 1
                case .failure(let error): Issue.record("read \(t): \(error)")
                }
            }
            #expect(answered >= 3, "the reads already sent were answered")
            #expect(Self.loopStatements - before >= 3)
            #expect(answered + cancelled == 24)
            #expect(cancelled >= Self.queuedBehindPipelines, "the reads no pipeline took left the queue")
            #expect(db.pool.waitingCount == 0)
            #expect(db.connectionsInUse == 0)
            #expect(db.pool.openCount <= 4)
            let expected = try await Self.serial(db)
            let wrong = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 16, rounds: 2) { t, r in
                    try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(3))")
            try await PostgresTestServer.dropSchema("strata_loop_cancel")
        }

        @Test(
            "closing the database while loop reads are queued and running: each is answered or connectionFailed, and every connection closes",
            .timeLimit(.minutes(1)))
        func closedWhileQueued() async throws {
            let application = "strata_loop_close"
            // As above: the queue stays full for the nap (1.5 s), not a window a loaded machine's poll misses.
            let db = try await Self.seeded("strata_loop_close", nap: 1.5, "pool=3", "application_name=\(application)")
            defer { db.close() }
            let release = DispatchSemaphore(value: 0)
            let holder = await Siblings.holdOne(db, until: release)
            let before = Self.loopStatements
            let tasks = (0..<12).map { t in
                Task { await Self.attempt { try await LoopSlow.find(Int64(t + 1), on: db)?.name } }
            }
            let queued = ContinuousClock.now + .seconds(5)
            while db.pool.waitingCount < 10 && ContinuousClock.now < queued {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(db.pool.waitingCount == 10, "2 reads run on the loop, 10 queue")
            db.close()
            release.signal()
            try await holder.value
            let results = try await Self.bounded(10, "reads of a closed database") {
                var out: [Result<String?, StrataError>] = []
                for task in tasks { out.append(await task.value) }
                return out
            }
            var answered = 0
            for (t, result) in results.enumerated() {
                switch result {
                case .success(let name):
                    answered += 1
                    #expect(name == "item-\(t + 1)")
                case .failure(.connectionFailed(let why)): #expect(why.contains("closed"), "\(why)")
                case .failure(let error): Issue.record("read \(t): \(error)")
                }
            }
            #expect(answered >= 2, "the reads already sent were answered")
            #expect(Self.loopStatements - before >= 2)
            #expect(db.pool.waitingCount == 0)
            #expect(db.pool.openCount == 0, "every connection closed")
            let gone = ContinuousClock.now + .seconds(5)
            while try await !Self.backends(application).isEmpty && ContinuousClock.now < gone {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try await Self.backends(application).isEmpty, "the server saw every connection close")
            try await PostgresTestServer.dropSchema("strata_loop_close")
        }

        @Test(
            "backends terminated while loop reads are in flight: each read succeeds or is connectionLost, none hangs, and later reads all succeed",
            .timeLimit(.minutes(1)))
        func terminatedBackends() async throws {
            let application = "strata_loop_kill"
            let db = try await Self.seeded("strata_loop_kill", nap: 0.1, "pool=8", "application_name=\(application)")
            defer { db.close() }
            let admin = try PostgresTestServer.open()
            defer { admin.close() }
            let before = Self.loopStatements
            let results = try await Self.whileHeld(db) {
                try await Self.bounded(30, "reads while backends are terminated") {
                    try await withThrowingTaskGroup(of: [Result<String?, StrataError>].self) { group in
                        for t in 0..<32 {
                            group.addTask {
                                var out: [Result<String?, StrataError>] = []
                                for r in 0..<4 {
                                    let id = Int64((t * 7 + r) % Self.rows + 1)
                                    out.append(await Self.attempt { try await LoopSlow.find(id, on: db)?.name })
                                }
                                return out
                            }
                        }
                        try await Task.sleep(for: .milliseconds(250))
                        _ = try await admin.unsafeRawExecute(
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?",
                            [application])
                        return try await group.reduce(into: []) { $0 += $1 }
                    }
                }
            }
            #expect(results.count == 32 * 4)
            var lost = 0
            for result in results {
                switch result {
                case .success(let name): #expect(name?.hasPrefix("item-") == true)
                case .failure(.connectionLost): lost += 1
                case .failure(let error): Issue.record("a read failed with \(error), not connectionLost")
                }
            }
            #expect(lost > 0, "no read was in flight when the backends were terminated")
            #expect(Self.loopStatements - before >= lost)

            // Terminated between reads: the idle connections are found dead at checkout and replaced.
            let survivors = try await Self.backends(application)
            _ = try await admin.unsafeRawExecute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?",
                [application])
            let gone = ContinuousClock.now + .seconds(5)
            while try await !Self.backends(application).isDisjoint(with: survivors) && ContinuousClock.now < gone {
                try await Task.sleep(for: .milliseconds(10))
            }
            let expected = try await Self.serial(db)
            let sentBefore = Self.loopStatements
            let wrong = try await Self.whileHeld(db) {
                try await Self.bounded(30, "reads after the backends were terminated") {
                    try await Self.concurrently(tasks: 32, rounds: 2) { t, r in
                        try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                    }
                }
            }
            #expect(wrong.isEmpty, "\(wrong.count) mismatches, first: \(wrong.prefix(3))")
            #expect(Self.loopStatements - sentBefore >= 32 * 2 * 6)
            #expect(try await Self.backends(application).isDisjoint(with: survivors))
            #expect(db.connectionsInUse == 0)
            #expect(db.pool.openCount <= 8)
            try await PostgresTestServer.dropSchema("strata_loop_kill")
        }

        @Test("a loop read past statement_timeout is statementTimeout as on the ordinary path, and the pool recovers")
        func statementTimeoutOnLoop() async throws {
            let db = try await Self.seeded("strata_loop_timeout", nap: 2, "pool=4", "statement_timeout=300ms")
            defer { db.close() }
            let ordinary = await Self.attempt { try await LoopSlow.find(1, on: db) }
            #expect(ordinary.failureValue == .statementTimeout(table: "pgl_slow"), "\(ordinary)")
            let before = Self.loopStatements
            let start = ContinuousClock.now
            let results = try await Self.whileHeld(db) {
                try await Self.bounded(10, "reads past statement_timeout") {
                    try await withThrowingTaskGroup(of: Result<LoopSlow?, StrataError>.self) { group in
                        for t in 0..<6 {
                            group.addTask { await Self.attempt { try await LoopSlow.find(Int64(t + 1), on: db) } }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
            }
            let took = ContinuousClock.now - start
            #expect(Self.loopStatements - before >= 6)
            #expect(results.count == 6)
            for result in results { #expect(result.failureValue == ordinary.failureValue, "\(result)") }
            #expect(took < .seconds(1.9), "statement_timeout ended the reads after \(took)")
            let expected = try await Self.serial(db)
            let wrong = try await Self.whileHeld(db) {
                try await Self.concurrently(tasks: 16, rounds: 2) { t, r in
                    try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(3))")
            #expect(db.connectionsInUse == 0)
            try await PostgresTestServer.dropSchema("strata_loop_timeout")
        }

        @Test(
            "a frozen backend (SIGSTOPped) holds a loop read no longer than statement_timeout + 2 s: connectionLost, then a new connection",
            .enabled(
                if: ServerAccess.controlsServer,
                "signals the server's backend process: needs a local throwaway server (pg_virtualenv) or STRATA_SERVER_CONTROL=1"
            ),
            .timeLimit(.minutes(1)))
        func frozenBackendOnLoop() async throws {
            let application = "strata_loop_frozen"
            let db = try await Self.seeded(
                "strata_loop_frozen", "pool=2", "statement_timeout=1s", "application_name=\(application)")
            defer { db.close() }
            // Both connections open; the holder takes one, the read gets the other (the one to freeze).
            let release = DispatchSemaphore(value: 0)
            let pids = Mutex<[Int64]>([])
            let holder = Siblings.onOwnThread {
                try await db.transaction { tx in
                    if case .integer(let pid)? = try tx.unsafeRawExecute("SELECT pg_backend_pid()").first?.first {
                        pids.withLock { $0.append(pid) }
                    }
                    _ = release.wait(timeout: .now() + 30)
                }
            }
            let held = ContinuousClock.now + .seconds(5)
            while pids.withLock({ $0.isEmpty }) && ContinuousClock.now < held {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(try await LoopItem.find(1, on: db)?.name == "item-1")  // opens the second connection, on the loop
            let others = try await Self.backends(application).subtracting(pids.withLock { $0 })
            try #require(others.count == 1)
            let frozen = Int32(try #require(others.first))
            try #require(frozen > 0)
            #expect(kill(frozen, SIGSTOP) == 0, "SIGSTOP \(frozen): errno \(errno)")
            defer { kill(frozen, SIGCONT) }
            let before = Self.loopStatements
            let start = ContinuousClock.now
            let result = await Self.attempt { try await LoopItem.find(2, on: db) }
            let took = ContinuousClock.now - start
            kill(frozen, SIGCONT)
            #expect(Self.loopStatements - before >= 1)
            guard case .failure(.connectionLost(let why)) = result else {
                Issue.record("a read on a frozen backend returned \(result)")
                release.signal()
                try await holder.value
                return
            }
            #expect(why.contains("no answer"), "\(why)")
            #expect(took >= .seconds(2.9) && took < .seconds(5), "gave up after \(took)")
            #expect(try await LoopItem.find(3, on: db)?.name == "item-3", "a new connection answers")
            release.signal()
            try await holder.value
            #expect(db.pool.openCount <= 2)
            #expect(db.connectionsInUse == 0)
            try await PostgresTestServer.dropSchema("strata_loop_frozen")
        }

        @Test("the loop's thread ends after 200 ms idle and a later burst starts it again")
        func idleThreadRestarts() async throws {
            let db = try await Self.seeded("strata_loop_idle", "pool=4")
            defer { db.close() }
            let expected = try await Self.serial(db)
            let loop = try #require(db.pool.statementLoop as? PostgresStatementLoop)
            for burst in 0..<2 {
                let started = loop.threadActivity.started
                let before = Self.loopStatements
                let wrong = try await Self.whileHeld(db) {
                    try await Self.bounded(30, "burst \(burst)") {
                        try await Self.concurrently(tasks: 16, rounds: 2) { t, r in
                            try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                        }
                    }
                }
                #expect(wrong.isEmpty, "burst \(burst): \(wrong.prefix(3))")
                #expect(Self.loopStatements - before >= 16 * 2 * 6, "burst \(burst) went through the loop")
                #expect(loop.threadActivity.started > started, "burst \(burst) started the loop's thread")
                // Idle: the thread ends within its idle limit (200 ms) plus a poll.
                let idle = ContinuousClock.now + .seconds(3)
                while loop.threadActivity.running > 0 && ContinuousClock.now < idle {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(loop.threadActivity.running == 0, "the idle loop thread ended")
                try await Task.sleep(for: .milliseconds(350))
            }
            try await PostgresTestServer.dropSchema("strata_loop_idle")
        }

        @Test("prepare=off (a pooler's mode): loop reads are sent unnamed, return the right rows, and prepare nothing")
        func unnamedStatementsOnLoop() async throws {
            let db = try await Self.seeded("strata_loop_unnamed", "pool=8", "prepare=off")
            defer { db.close() }
            let expected = try await Self.serial(db)
            let before = Self.loopStatements
            let wrong = try await Self.whileHeld(db) {
                try await Self.bounded(120, "64 tasks of unnamed reads") {
                    try await Self.concurrently(tasks: 64, rounds: 2) { t, r in
                        try await Self.readsMismatches(db, task: t, round: r, expected: expected)
                    }
                }
            }
            #expect(wrong.isEmpty, "\(wrong.count) mismatches, first: \(wrong.prefix(5))")
            #expect(Self.loopStatements - before >= 64 * 2 * 6)
            // Every connection of the pool (held at once) has no prepared statement.
            let prepared = try await Self.concurrently(tasks: 8, rounds: 1) { _, _ in
                let rows = try await db.unsafeRawExecute(
                    "SELECT (SELECT count(*) FROM pg_prepared_statements), pg_sleep(0.2)")
                guard case .integer(let n)? = rows.first?.first else { return ["no count"] }
                return n == 0 ? [] : ["\(n) prepared statements"]
            }
            #expect(prepared.isEmpty, "\(prepared)")
            try await PostgresTestServer.dropSchema("strata_loop_unnamed")
        }
    }
}

extension Result {
    /// The error, or nil for a success.
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
