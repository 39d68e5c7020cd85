// PostgresMigrationTests: two real processes migrating one database (the advisory lock), plans printed as PostgreSQL DDL.
import Foundation
import Strata
import StrataPostgres
import Testing

/// What each child process does: migrate with one slow step and log what it did.
enum PostgresMigratingProcess {
    static func step(log: String) -> Migration {
        Migration("001_slow") { up in
            up.createTable(
                TableSchema(
                    name: "raced",
                    columns: [TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true)]))
            up.transform("log and take a while") { _ in
                append("ran \(getpid())\n", to: log)
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    static func append(_ line: String, to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { exit(4) }
        _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
    }

    static func run(url: String, log: String) async throws {
        let db = try Database.open(url, drivers: [.postgres])
        let applied = try await db.migrate([step(log: log)])
        append("done \(applied.count)\n", to: log)
        db.close()
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL versioned migrations")
    struct PostgresMigrationTests {
        @Test("two processes migrating one database at once: the second waits on the advisory lock, the step runs once")
        func twoProcesses() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_migration_race")
            defer { db.close() }
            let url = PostgresTestServer.url("search_path=strata_migration_race")
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("strata-race-\(getpid()).log").path
            try? FileManager.default.removeItem(atPath: log)
            defer { try? FileManager.default.removeItem(atPath: log) }
            async let first = #expect(processExitsWith: .success) { [url = url as String, log = log as String] in
                try await PostgresMigratingProcess.run(url: url, log: log)
            }
            async let second = #expect(processExitsWith: .success) { [url = url as String, log = log as String] in
                try await PostgresMigratingProcess.run(url: url, log: log)
            }
            _ = await (first, second)
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.filter { $0.hasPrefix("ran") }.count == 1, "the step ran in one process: \(lines)")
            #expect(lines.filter { $0.hasPrefix("done") }.sorted() == ["done 0", "done 1"], "both finished: \(lines)")
            #expect(try await db.migrationHistory().filter { $0.kind == "versioned" }.map(\.name) == ["001_slow"])
        }

        @Test("a plan prints as PostgreSQL DDL, destructive changes flagged")
        func planAsSQL() throws {
            let plan = MigrationPlan(changes: [
                PlannedChange(change: .dropColumn(table: "user", column: "age"), isDestructive: true),
                PlannedChange(
                    change: .alterColumn(
                        table: "user", column: "rank", type: .integer, nullable: false, fill: .integer(0)),
                    isDestructive: true),
                PlannedChange(
                    change: .addForeignKey(
                        table: "user", ForeignKey(column: "group_id", references: "group", onDelete: .cascade)),
                    isDestructive: false),
            ])
            #expect(
                try plan.sql(dialect: PostgresDialect()) == """
                    -- DESTRUCTIVE: drop column user.age
                    ALTER TABLE "user" DROP COLUMN "age";
                    -- DESTRUCTIVE: alter column user.rank to integer not null (fill NULLs with 0)
                    -- user.rank: each value converted to integer in Swift; one that does not convert stops the step
                    ALTER TABLE "user" ALTER COLUMN "rank" TYPE BIGINT USING "rank"::BIGINT;
                    UPDATE "user" SET "rank" = 0 WHERE "rank" IS NULL;
                    ALTER TABLE "user" ALTER COLUMN "rank" SET NOT NULL;
                    ALTER TABLE "user" ADD CONSTRAINT "user_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "group" \
                    ("id") ON DELETE CASCADE;
                    """)
        }
    }
}
