// SQLiteMigrationTests: two real processes migrating one file, the table rebuild's triggers, plans printed as SQLite DDL.
import Foundation
import Strata
import StrataSQLite
import Testing

/// What each child process does: migrate the file with one slow step and log what it did.
enum MigratingProcess {
    /// The step: the same checksum in every process (a transform counts by its label).
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
        let db = try Database.open(url, drivers: [.sqlite])
        let applied = try await db.migrate([step(log: log)])
        append("done \(applied.count)\n", to: log)
        db.close()
    }
}

@Suite("SQLite versioned migrations")
struct SQLiteMigrationTests {
    @Test("two processes migrating one file at once: the second waits (BEGIN IMMEDIATE), the step runs once")
    func twoProcesses() async throws {
        let file = TemporarySQLiteFile()
        let url = "sqlite:\(file.path)"
        let log = file.path + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        async let first = #expect(processExitsWith: .success) { [url = url as String, log = log as String] in
            try await MigratingProcess.run(url: url, log: log)
        }
        async let second = #expect(processExitsWith: .success) { [url = url as String, log = log as String] in
            try await MigratingProcess.run(url: url, log: log)
        }
        _ = await (first, second)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("ran") }.count == 1, "the step ran in one process: \(lines)")
        #expect(lines.filter { $0.hasPrefix("done") }.sorted() == ["done 0", "done 1"], "both finished: \(lines)")
        let db = try Database.open(url, drivers: [.sqlite])
        defer { db.close() }
        #expect(try await db.migrationHistory().filter { $0.kind == "versioned" }.map(\.name) == ["001_slow"])
    }

    @Test("a table rebuild keeps the table's triggers, and children that cascade keep their rows")
    func rebuildKeepsTriggersAndChildren() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.unsafeRawExecute(
            "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL, extra TEXT) STRICT")
        try await db.unsafeRawExecute(
            "CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent (id) ON DELETE CASCADE) STRICT"
        )
        try await db.unsafeRawExecute("CREATE TABLE audit (note TEXT) STRICT")
        try await db.unsafeRawExecute(
            "CREATE TRIGGER parent_audit AFTER INSERT ON parent BEGIN INSERT INTO audit VALUES (new.name); END")
        try await db.unsafeRawExecute("INSERT INTO parent (id, name, extra) VALUES (1, 'a', 'x'), (2, 'b', 'y')")
        try await db.unsafeRawExecute("INSERT INTO child (id, parent_id) VALUES (10, 1), (11, 2)")
        try await db.migrate([
            Migration("001") { up in
                up.dropColumn("extra", from: "parent")
                up.alterColumn("name", in: "parent", to: .text, nullable: true)
            }
        ])
        #expect(
            try await db.unsafeRawExecute("SELECT id, parent_id FROM child ORDER BY id") == [
                [.integer(10), .integer(1)], [.integer(11), .integer(2)],
            ])
        #expect(
            try await db.unsafeRawExecute("SELECT id, name FROM parent ORDER BY id") == [
                [.integer(1), .text("a")], [.integer(2), .text("b")],
            ])
        try await db.unsafeRawExecute("INSERT INTO parent (id, name) VALUES (3, 'c')")
        #expect(try await db.unsafeRawExecute("SELECT note FROM audit ORDER BY note").last == [.text("c")])
        try await db.unsafeRawExecute("DELETE FROM parent WHERE id = 1")
        #expect(try await db.unsafeRawExecute("SELECT id FROM child") == [[.integer(11)]], "cascade still on")
        #expect(try await db.unsafeRawExecute("PRAGMA foreign_keys") == [[.integer(1)]], "foreign keys back on")
    }

    @Test("a plan prints as SQLite DDL: rebuilds where ALTER TABLE falls short, destructive changes flagged")
    func planAsSQL() throws {
        let plan = MigrationPlan(changes: [
            PlannedChange(
                change: .addColumn(table: "user", TableColumn(name: "email", type: .text, isNullable: true)),
                isDestructive: false),
            PlannedChange(change: .dropColumn(table: "user", column: "age"), isDestructive: true),
            PlannedChange(change: .renameColumn(table: "user", column: "nick", to: "handle"), isDestructive: false),
        ])
        #expect(
            try plan.sql(dialect: SQLiteDialect()) == """
                ALTER TABLE "user" ADD COLUMN "email" TEXT;
                -- DESTRUCTIVE: drop column user.age
                -- drop column age: SQLite rebuilds user (create the new table, copy every row, drop the old one, \
                rename, re-create indexes and triggers, PRAGMA foreign_key_check)
                ALTER TABLE "user" RENAME COLUMN "nick" TO "handle";
                """)
        #expect(
            plan.swiftSource(name: "002_user") == """
                let migration = Migration("002_user") { up in
                    up.change(.addColumn(table: "user", TableColumn(name: "email", type: .text, isNullable: true)))
                    // DESTRUCTIVE
                    up.change(.dropColumn(table: "user", column: "age"))
                    up.change(.renameColumn(table: "user", column: "nick", to: "handle"))
                }

                """)
    }
}
