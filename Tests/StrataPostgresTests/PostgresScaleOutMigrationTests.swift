// PostgresScaleOutMigrationTests: versioned migrations on a simulated CockroachDB: a role that may not call
// pg_advisory_xact_lock, and an event trigger that refuses a second DDL statement in one transaction.
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Synchronization
import Testing

/// How many transforms run at once, and how many ran.
final class ScaleOutOverlap: Sendable {
    private let state = Mutex((active: 0, most: 0, ran: 0))

    func run(for seconds: Double) {
        state.withLock { s in
            s.active += 1
            s.ran += 1
            s.most = max(s.most, s.active)
        }
        Thread.sleep(forTimeInterval: seconds)
        state.withLock { $0.active -= 1 }
    }

    var most: Int { state.withLock { $0.most } }
    var ran: Int { state.withLock { $0.ran } }
}

extension PostgresServerTests {
    @Suite("PostgreSQL scale-out engines, simulated: migrations")
    struct PostgresScaleOutMigrationTests {
        /// A world that refuses what CockroachDB refuses to a migration: advisory locks (EXECUTE revoked, unless
        /// `advisoryLocks`), and a second DDL statement in one transaction (an event trigger that logs each DDL's transaction id).
        static func world(_ name: String, advisoryLocks: Bool = false) async throws -> PostgresScaleOutWorld {
            try await PostgresScaleOutWorld.make(
                name, version: PostgresScaleOutWorld.cockroachVersion,
                setup: [
                    advisoryLocks
                        ? "SELECT 1" : "REVOKE EXECUTE ON FUNCTION pg_advisory_xact_lock(bigint) FROM PUBLIC",
                    "CREATE TABLE engine_sim.ddl_log (xid bigint NOT NULL)",
                    """
                    CREATE FUNCTION engine_sim.one_ddl() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
                    BEGIN
                      IF EXISTS (SELECT 1 FROM engine_sim.ddl_log WHERE xid = txid_current()) THEN
                        RAISE EXCEPTION 'unimplemented: a second schema change in one transaction (simulated)'
                          USING ERRCODE = '0A000';
                      END IF;
                      INSERT INTO engine_sim.ddl_log VALUES (txid_current());
                    END $$
                    """,
                    "CREATE EVENT TRIGGER one_ddl ON ddl_command_start EXECUTE FUNCTION engine_sim.one_ddl()",
                ])
        }

        static func table(_ name: String, extra: Bool = false) -> TableSchema {
            var columns = [TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true)]
            if extra { columns.append(TableColumn(name: "extra", type: .text, isNullable: true)) }
            return TableSchema(name: name, columns: columns)
        }

        func exists(_ world: PostgresScaleOutWorld, _ table: String) async throws -> Bool {
            try await world.count("SELECT count(*) FROM pg_class WHERE relname = '\(table)' AND relkind = 'r'") == 1
        }

        @Test("CockroachDB: two migrators serialize on the lease row, without advisory locks; the step runs once")
        func leaseSerializes() async throws {
            let world = try await Self.world("strata_sim_lease")
            let overlap = ScaleOutOverlap()
            let step = Migration("001_slow") { up in
                up.createTable(Self.table("raced"))
                up.transform("take a while") { _ in overlap.run(for: 0.3) }
            }
            // PostgreSQL's lock is refused here, as on CockroachDB.
            let pinned = try world.open("engine=postgres")
            defer { pinned.close() }
            do {
                _ = try await pinned.migrate([step])
                Issue.record("pg_advisory_xact_lock was allowed")
            } catch {
                #expect("\(error)".contains("pg_advisory_xact_lock"), "\(error)")
            }
            #expect(overlap.ran == 0)

            let first = try world.open()
            let second = try world.open()
            defer {
                first.close()
                second.close()
            }
            async let a = first.migrate([step])
            async let b = second.migrate([step])
            let ran = try await [a.count, b.count].sorted()
            #expect(ran == [0, 1], "one migrator applied the step, the other found it applied")
            #expect(overlap.ran == 1 && overlap.most == 1)
            #expect(try await first.migrationHistory().filter { $0.kind == "versioned" }.map(\.name) == ["001_slow"])
            #expect(try await world.count("SELECT count(*) FROM strata_migration_lock WHERE holder IS NULL") == 1)
            #expect(try await world.count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") == 0)
            try await world.drop()
        }

        @Test("CockroachDB: a lease held by a live migrator is busy past the lock timeout; a silent one is taken over")
        func leaseTimeoutAndTakeover() async throws {
            let world = try await Self.world("strata_sim_lease_held")
            let overlap = ScaleOutOverlap()
            let step = Migration("001_once") { up in
                up.createTable(Self.table("held"))
                up.transform("count") { _ in overlap.run(for: 0) }
            }
            let db = try world.open(timeout: 1)
            defer { db.close() }
            let admin = try world.admin()
            defer { admin.close() }
            try await admin.unsafeRawExecute(
                "CREATE TABLE strata_migration_lock (id INTEGER PRIMARY KEY, holder TEXT, renewed_at TIMESTAMPTZ)")
            try await admin.unsafeRawExecute("GRANT ALL ON strata_migration_lock TO strata_sim_lease_held")
            try await admin.unsafeRawExecute("INSERT INTO strata_migration_lock VALUES (1, 'another', now())")
            await #expect(throws: StrataError.busy) { try await db.migrate([step]) }
            #expect(overlap.ran == 0)
            #expect(try await exists(world, "held") == false)
            // The holder has not renewed its lease for 6 minutes: it died, and the lease is taken over.
            try await admin.unsafeRawExecute(
                "UPDATE strata_migration_lock SET renewed_at = now() - interval '6 minutes' WHERE id = 1")
            #expect(try await db.migrate([step]) == ["001_once"])
            #expect(overlap.ran == 1)
            #expect(try await world.count("SELECT count(*) FROM strata_migration_lock WHERE holder IS NULL") == 1)
            try await world.drop()
        }

        @Test("CockroachDB: each DDL statement of a step commits alone; a failure in a step undoes what it applied")
        func oneDDLPerTransaction() async throws {
            // Advisory locks allowed, so that PostgreSQL's path fails on the second DDL statement, not on its lock.
            let world = try await Self.world("strata_sim_ddl", advisoryLocks: true)
            let two = Migration("001_two_tables") { up in
                up.createTable(Self.table("a", extra: true))
                up.createTable(Self.table("b"))
            }
            // PostgreSQL's one-transaction step is refused here, as on CockroachDB, and leaves nothing.
            let pinned = try world.open("engine=postgres")
            defer { pinned.close() }
            do {
                _ = try await pinned.migrate([two])
                Issue.record("two DDL statements in one transaction were allowed")
            } catch {
                #expect("\(error)".contains("second schema change"), "\(error)")
            }
            #expect(try await exists(world, "a") == false)

            let db = try world.open()
            defer { db.close() }
            #expect(try await db.migrate([two]) == ["001_two_tables"])
            #expect(try await exists(world, "a"))
            #expect(try await exists(world, "b"))

            // Step 2 creates c, then fails: c was committed by its own DDL, and is dropped again.
            let failing = Migration("002_fails") { up in
                up.createTable(Self.table("c"))
                up.transform("fail") { _ in throw StrataError.invalidArgument("transform", reason: "simulated") }
            }
            await #expect(throws: StrataError.invalidArgument("transform", reason: "simulated")) {
                try await db.migrate([two, failing])
            }
            #expect(try await exists(world, "c") == false)
            #expect(try await db.migrationHistory().map(\.name).contains("002_fails") == false)

            // A drop has no inverse: the step says precisely what stays applied.
            let lossy = Migration("003_lossy") { up in
                up.dropColumn("extra", from: "a")
                up.transform("fail") { _ in throw StrataError.invalidArgument("transform", reason: "simulated") }
            }
            do {
                _ = try await db.migrate([two, lossy])
                Issue.record("the failing step succeeded")
            } catch StrataError.migrationStepIncomplete(let step, let remaining, _) {
                #expect(step == "003_lossy" && remaining.count == 1 && remaining.first?.contains("extra") == true)
            }
            #expect(
                try await world.count(
                    "SELECT count(*) FROM information_schema.columns WHERE table_name = 'a' AND column_name = 'extra'")
                    == 0)
            try await world.drop()
        }

        @Test("the whole conformance suite passes on the simulated CockroachDB, every DDL statement alone")
        func conformanceSuite() async throws {
            let world = try await PostgresScaleOutMigrationTests.world("strata_sim_conformance")
            let db = try world.open()
            defer { db.close() }
            #expect(try world.engine() == .cockroachDB)
            let results = await ConformanceSuite.runAll(on: db)
            for r in results where r.outcome != .passed {
                Issue.record("\(r.name) on simulated CockroachDB: \(r.outcome)")
            }
            #expect(results.filter { $0.outcome == .passed }.count == ConformanceSuite.cases.count)
            let ddl = try await world.count("SELECT count(*) FROM engine_sim.ddl_log")
            let transactions = try await world.count("SELECT count(DISTINCT xid) FROM engine_sim.ddl_log")
            #expect(
                (ddl ?? 0) > 1_000 && ddl == transactions, "\(ddl ?? 0) DDL statements, each in its own transaction")
            try await world.drop()
        }

        @Test("CockroachDB: automatic migration creates a table and its index in two transactions")
        func automaticMigration() async throws {
            let world = try await Self.world("strata_sim_auto")
            let db = try world.open()
            defer { db.close() }
            try await db.migrate(ScaleItem.self)
            var item = ScaleItem(label: "x")
            try await item.save(on: db)
            #expect(item.id != nil)
            #expect(
                try await world.count("SELECT count(*) FROM pg_indexes WHERE tablename = 'scale_item'") == 2,
                "the key and the unique label index")
            try await world.drop()
        }
    }
}
