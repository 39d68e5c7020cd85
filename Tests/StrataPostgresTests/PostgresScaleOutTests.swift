// PostgresScaleOutTests: scale-out engines detected at connect time and adapted to, each simulated by a real
// PostgreSQL 15 that answers and refuses as the engine does (a shadowed version(), a revoked privilege, a function
// that raises the engine's error, a citus_tables catalog).
import Foundation
import Strata
import StrataPostgres
import Synchronization
import Testing

@Model(table: "scale_item")
struct ScaleItem {
    var id: Int64?
    var label: String
    static var indexes: [Index] { [.on(\ScaleItem.label, unique: true)] }
}

@Model(table: "scale_order")
struct ScaleOrder {
    var id: Int64?
    var tenant: Int64
    var label: String
    var note: String
    static var indexes: [Index] {
        [.on(\ScaleOrder.label, unique: true), .on(\ScaleOrder.tenant, \ScaleOrder.label, unique: true)]
    }
}

@Model(table: "scale_note")
struct ScaleNote {
    var id: Int64?
    var body: String
    static let notifiesOtherProcesses = true
}

@Suite("PostgreSQL engine detection from version() text")
struct PostgresEngineDetectionTests {
    @Test("version() and citus.version name the engine; any other text is PostgreSQL")
    func detection() {
        #expect(PostgresEngine(version: PostgresScaleOutWorld.cockroachVersion, citusVersion: nil) == .cockroachDB)
        #expect(PostgresEngine(version: PostgresScaleOutWorld.yugabyteVersion, citusVersion: nil) == .yugabyteDB)
        let pg = "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc 12.2.0, 64-bit"
        #expect(PostgresEngine(version: pg, citusVersion: "12.1-1") == .citus)
        #expect(PostgresEngine(version: pg, citusVersion: nil) == .postgres)
        #expect(PostgresEngine(version: pg, citusVersion: "") == .postgres)
        #expect(PostgresEngine(name: "cockroachdb") == .cockroachDB && PostgresEngine(name: "CockroachDB") == nil)
    }

    @Test("each engine's adaptations, as documented")
    func adaptations() throws {
        let engines: [PostgresEngine] = [.postgres, .citus, .cockroachDB, .yugabyteDB]
        #expect(engines.map(\.hasAdvisoryLocks) == [true, true, false, true])
        #expect(engines.map(\.hasTemporaryTables) == [true, true, false, true])
        #expect(engines.map(\.retriesSerializationFailures) == [false, false, true, false])
        #expect(engines.map(\.hasListenNotify) == [true, true, false, false])
        #expect(engines.map(\.commitsEachDDL) == [false, false, true, false])
        #expect(engines.map(\.conflictTargetNeedsDistributionColumn) == [false, true, false, false])
        #expect(PostgresDialect(engine: .cockroachDB).transactionalDDL == false)
        #expect(PostgresDialect().transactionalDDL)
        let none = try PostgresDialect(engine: .yugabyteDB).changeNotificationSQL(table: "t")
        let trigger = try PostgresDialect().changeNotificationSQL(table: "t")
        #expect(none.isEmpty && trigger.count == 2)
        #expect(PostgresEngine.cockroachDB.defaultRetry == .attempts(5) && PostgresEngine.citus.defaultRetry == .never)
    }

    @Test("the URL's engine parameter pins the engine; an unknown one is refused, typed")
    func urlParameter() throws {
        let url = try DatabaseURL("postgres://u@h/d?engine=yugabytedb", drivers: [.postgres])
        #expect(try PostgresConnectionOptions(url: url).engine == .yugabyteDB)
        // The PostgreSQL article's example.
        let article = "postgres://app@crdb.internal:26257/shop?engine=cockroachdb"
        #expect(try PostgresDriver(url: article).engine == .cockroachDB)
        #expect(try PostgresDriver(url: article).defaultRetry == .attempts(5))
        let none = try DatabaseURL("postgres://u@h/d", drivers: [.postgres])
        #expect(try PostgresConnectionOptions(url: none).engine == nil)
        let bad = try DatabaseURL("postgres://u:secret@h/d?engine=oracle", drivers: [.postgres])
        do {
            _ = try PostgresConnectionOptions(url: bad)
            Issue.record("engine=oracle was accepted")
        } catch {
            guard case .invalidURL(let shown, let reason) = error else {
                Issue.record("not invalidURL: \(error)")
                return
            }
            #expect(reason.contains("engine") && reason.contains("oracle"))
            #expect(shown.hasPrefix("postgres://") && !"\(error)".contains("secret"), "the password is redacted")
        }
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL scale-out engines, simulated")
    struct PostgresScaleOutTests {
        @Test("each connection detects the engine from version() and citus.version; the URL's engine= overrides")
        func detectedAtConnect() async throws {
            let crdb = try await PostgresScaleOutWorld.make(
                "strata_sim_detect_crdb", version: PostgresScaleOutWorld.cockroachVersion)
            let yb = try await PostgresScaleOutWorld.make(
                "strata_sim_detect_yb", version: PostgresScaleOutWorld.yugabyteVersion)
            let citus = try await PostgresScaleOutWorld.make(
                "strata_sim_detect_citus",
                setup: ["ALTER DATABASE strata_sim_detect_citus SET citus.version = '12.1-1'"])
            let plain = try await PostgresScaleOutWorld.make("strata_sim_detect_pg")
            #expect(try crdb.engine() == .cockroachDB)
            #expect(try yb.engine() == .yugabyteDB)
            #expect(try citus.engine() == .citus)
            #expect(try plain.engine() == .postgres)
            #expect(try crdb.engine("engine=postgres") == .postgres)
            #expect(try plain.engine("engine=cockroachdb") == .cockroachDB)
            // The driver Database.open made knows it too, from the connection it opened.
            let driver = try PostgresDriver(url: crdb.url())
            #expect(driver.engine == .postgres, "not connected yet: PostgreSQL")
            _ = try driver.connect()
            #expect(driver.engine == .cockroachDB && driver.defaultRetry == .attempts(5))
            for world in [crdb, yb, citus, plain] { try await world.drop() }
        }

        /// A world that refuses what CockroachDB refuses: no temporary tables for the role, and a function that
        /// fails with 40001 on its first two calls (a sequence counts them across rollbacks).
        static func cockroachWorld(_ name: String) async throws -> PostgresScaleOutWorld {
            try await PostgresScaleOutWorld.make(
                name, version: PostgresScaleOutWorld.cockroachVersion,
                setup: [
                    "REVOKE TEMPORARY ON DATABASE \(name) FROM PUBLIC",
                    "REVOKE TEMPORARY ON DATABASE \(name) FROM \(name)",
                    "CREATE SEQUENCE engine_sim.attempts",
                    """
                    CREATE FUNCTION engine_sim.contend() RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
                    DECLARE n bigint := nextval('engine_sim.attempts');
                    BEGIN
                      IF n <= 2 THEN
                        RAISE EXCEPTION 'restart transaction: TransactionRetryWithProtoRefreshError (simulated)'
                          USING ERRCODE = '40001';
                      END IF;
                      RETURN n;
                    END $$
                    """,
                ])
        }

        @Test("CockroachDB: transaction retries 40001 by default; the body's writes land once")
        func retriesByDefault() async throws {
            let world = try await Self.cockroachWorld("strata_sim_retry")
            let db = try world.open()
            defer { db.close() }
            try await db.migrate(ScaleItem.self)
            let runs = ScaleOutRuns()
            try await db.transaction { tx in
                runs.add()
                var item = ScaleItem(label: "once")
                try item.save(tx)
                _ = try tx.unsafeRawExecute("SELECT engine_sim.contend()")
            }
            #expect(runs.value == 3, "two serialization failures, then success")
            #expect(try await ScaleItem.query(on: db).all().map(\.label) == ["once"])
            #expect(try await world.count("SELECT last_value FROM engine_sim.attempts") == 3)

            // Pinned to PostgreSQL (no default retry), the same refusal reaches the caller and nothing is kept.
            let pinned = try world.open("engine=postgres")
            defer { pinned.close() }
            _ = try await world.count("SELECT setval('engine_sim.attempts', 1, false)")
            await #expect(throws: StrataError.serializationFailure) {
                try await pinned.transaction { tx in
                    var item = ScaleItem(label: "twice")
                    try item.save(tx)
                    _ = try tx.unsafeRawExecute("SELECT engine_sim.contend()")
                }
            }
            #expect(try await ScaleItem.query(on: db).count() == 1)
            // An explicit policy wins over the engine's default.
            _ = try await world.count("SELECT setval('engine_sim.attempts', 1, false)")
            await #expect(throws: StrataError.serializationFailure) {
                try await db.transaction(isolation: .serializable, retry: .never) { tx in
                    _ = try tx.unsafeRawExecute("SELECT engine_sim.contend()")
                }
            }
            try await world.drop()
        }

        @Test(
            "CockroachDB: a large insertAll takes multi-row INSERTs, never a temporary table; a failure keeps nothing")
        func insertAllWithoutTemporaryTables() async throws {
            let world = try await Self.cockroachWorld("strata_sim_stage")
            let db = try world.open()
            defer { db.close() }
            try await db.migrate(ScaleItem.self)
            // PostgreSQL's path is refused here, as CockroachDB refuses it: the staging table needs TEMPORARY.
            let pinned = try world.open("engine=postgres")
            defer { pinned.close() }
            var refused = (0..<2_000).map { ScaleItem(label: "p\($0)") }
            await #expect(throws: (any Error).self) { try await ScaleItem.insertAll(&refused, on: pinned) }
            #expect(refused.allSatisfy { $0.id == nil })
            #expect(try await ScaleItem.query(on: db).count() == 0)

            var batch = (0..<2_000).map { ScaleItem(label: "l\($0)") }
            try await ScaleItem.insertAll(&batch, on: db)
            let stored = try await ScaleItem.query(on: db).order(\.id).all()
            #expect(stored.count == 2_000)
            #expect(batch.map(\.id) == stored.map(\.id) && batch.map(\.label) == stored.map(\.label))

            // A duplicate at row 1,800: a unique violation, and neither the table nor the models changed.
            var failing = (0..<2_000).map { ScaleItem(label: $0 == 1_800 ? "l5" : "f\($0)") }
            await #expect(throws: StrataError.uniqueViolation(table: "scale_item", columns: ["label"])) {
                try await ScaleItem.insertAll(&failing, on: db)
            }
            #expect(failing.allSatisfy { $0.id == nil })
            #expect(try await ScaleItem.query(on: db).count() == 2_000)
            #expect(try await world.count("SELECT count(*) FROM pg_class WHERE relpersistence = 't'") == 0)
            try await world.drop()
        }

        @Test("CockroachDB and YugabyteDB: no LISTEN is sent, no trigger installed; own commits are still observed")
        func noListen() async throws {
            for (name, version) in [
                ("strata_sim_listen_crdb", PostgresScaleOutWorld.cockroachVersion),
                ("strata_sim_listen_yb", PostgresScaleOutWorld.yugabyteVersion),
            ] {
                let world = try await PostgresScaleOutWorld.make(name, version: version)
                let db = try world.open()
                try await db.migrate(ScaleNote.self)
                #expect(try await world.count("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal") == 0)
                var values = ScaleNote.query(on: db).order(\.id).observe().makeAsyncIterator()
                #expect(try await values.next()?.map(\.body) == [])
                var note = ScaleNote(body: "own")
                try await note.save(on: db)
                #expect(try await values.next()?.map(\.body) == ["own"])
                #expect(
                    try await world.count(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'"
                    )
                        == 0)
                db.close()
                try await world.drop()
            }
            // The same check sees the LISTEN on PostgreSQL, so a zero above means something.
            let world = try await PostgresScaleOutWorld.make("strata_sim_listen_pg")
            let db = try world.open()
            try await db.migrate(ScaleNote.self)
            #expect(try await world.count("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal") == 1)
            var values = ScaleNote.query(on: db).order(\.id).observe().makeAsyncIterator()
            #expect(try await values.next()?.map(\.body) == [])
            #expect(
                try await world.count(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'"
                )
                    == 1)
            db.close()
            try await world.drop()
        }

        @Test("Citus: an upsert whose target lacks the distribution column is refused before it is sent")
        func distributionColumn() async throws {
            let world = try await PostgresScaleOutWorld.make(
                "strata_sim_citus",
                setup: [
                    "ALTER DATABASE strata_sim_citus SET citus.version = '12.1-1'",
                    "CREATE TABLE engine_sim.citus_tables (table_name regclass, distribution_column text)",
                    "GRANT SELECT ON engine_sim.citus_tables TO strata_sim_citus",
                ])
            let db = try world.open()
            defer { db.close() }
            try await db.migrate(ScaleOrder.self)
            let admin = try world.admin()
            defer { admin.close() }
            try await admin.unsafeRawExecute("INSERT INTO engine_sim.citus_tables VALUES ('scale_order', 'tenant')")
            try await admin.unsafeRawExecute("CREATE TABLE engine_sim.sent (n int)")
            try await admin.unsafeRawExecute(
                "CREATE FUNCTION engine_sim.log_sent() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS "
                    + "$$ BEGIN INSERT INTO engine_sim.sent VALUES (1); RETURN NULL; END $$")
            try await admin.unsafeRawExecute(
                "CREATE TRIGGER sent BEFORE INSERT ON public.scale_order FOR EACH STATEMENT "
                    + "EXECUTE FUNCTION engine_sim.log_sent()")

            var order = ScaleOrder(tenant: 7, label: "a", note: "first")
            do {
                try await order.upsert(on: db, onConflict: \.label)
                Issue.record("an upsert on label alone was sent")
            } catch StrataError.invalidQuery(let message) {
                #expect(message.contains("scale_order") && message.contains("tenant") && message.contains("label"))
            }
            #expect(order.id == nil)
            #expect(try await world.count("SELECT count(*) FROM engine_sim.sent") == 0, "no INSERT reached the table")
            #expect(try await ScaleOrder.query(on: db).count() == 0)

            try await order.upsert(on: db, onConflict: \.tenant, \.label)
            var again = ScaleOrder(tenant: 7, label: "a", note: "second")
            try await again.upsert(on: db, onConflict: \.tenant, \.label)
            #expect(order.id != nil && again.id == order.id)
            #expect(try await ScaleOrder.query(on: db).all().map(\.note) == ["second"])
            #expect(try await world.count("SELECT count(*) FROM engine_sim.sent") == 2)

            // Pinned to PostgreSQL, the label-only upsert is sent (and works: PostgreSQL has the index).
            let pinned = try world.open("engine=postgres")
            defer { pinned.close() }
            var other = ScaleOrder(tenant: 8, label: "b", note: "pg")
            try await other.upsert(on: pinned, onConflict: \.label)
            #expect(other.id != nil)
            try await world.drop()
        }
    }
}

/// Counts the runs of a transaction body (which runs synchronously, on one thread at a time).
final class ScaleOutRuns: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
