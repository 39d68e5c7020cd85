// SQLiteRebuildFidelityTests: every schema step on a table sqlite3 made keeps what the step does not change
// (inline UNIQUE, CHECK, COLLATE, AUTOINCREMENT and its counter, computed defaults, generated columns, declared
// types, WITHOUT ROWID, partial and expression indexes, triggers, views, foreign keys with their actions).
import Foundation
import Strata
import StrataSQLite
import Testing

@Suite("SQLite table rebuild keeps the schema")
struct SQLiteRebuildFidelityTests {
    static let schema = """
        CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE acct (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          email VARCHAR(80) NOT NULL UNIQUE COLLATE NOCASE,
          balance NUMERIC(10,2) NOT NULL DEFAULT 0 CHECK (balance >= 0), -- never negative
          created TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
          domain TEXT GENERATED ALWAYS AS (substr(email, instr(email, '@') + 1)) VIRTUAL,
          owner_id INTEGER REFERENCES owner (id) ON DELETE SET NULL,
          note TEXT,
          spare INTEGER,
          CONSTRAINT positive_id CHECK (id > 0)
        );
        CREATE TABLE tag (code TEXT PRIMARY KEY, acct_id INTEGER, label TEXT, extra REAL) WITHOUT ROWID;
        CREATE INDEX acct_rich ON acct (balance) WHERE balance > 1000;
        CREATE INDEX acct_lower_note ON acct (lower(note));
        CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT);
        CREATE TRIGGER acct_audit AFTER INSERT ON acct BEGIN INSERT INTO audit (what) VALUES ('insert ' || new.email); END;
        CREATE VIEW acct_view AS SELECT id, email, domain FROM acct;
        CREATE TRIGGER owner_gone AFTER DELETE ON owner BEGIN INSERT INTO audit (what) SELECT 'owner ' || count(*) FROM acct; END;
        INSERT INTO owner VALUES (1, 'o');
        INSERT INTO acct (email, balance, owner_id, note, spare) VALUES ('a@x.io', 5, 1, 'n', 1), ('b@y.io', 2000, NULL, NULL, NULL),
          ('c@z.io', 1, NULL, 'gone', 3);
        DELETE FROM acct WHERE id = 3;
        INSERT INTO tag VALUES ('t1', 1, 'L', 0.5);
        """

    /// One step on an unrelated column, and what it changes in `acct` (for the declared-type check).
    static let steps: [(String, Migration)] = [
        ("drop column", Migration("002") { $0.dropColumn("spare", from: "acct") }),
        ("rename column", Migration("002") { $0.renameColumn("spare", to: "extra", in: "acct") }),
        (
            "nullability",
            Migration("002") { $0.alterColumn("note", in: "acct", to: .text, nullable: false, fill: .text("")) }
        ),
        ("type change", Migration("002") { $0.alterColumn("spare", in: "acct", to: .text, nullable: true) }),
        ("set default", Migration("002") { $0.setDefault(.integer(9), of: "spare", in: "acct") }),
        (
            "add foreign key",
            Migration("002") { $0.addForeignKey(ForeignKey(column: "spare", references: "owner"), to: "acct") }
        ),
        ("drop foreign key", Migration("002") { $0.dropForeignKey(on: "owner_id", of: "acct") }),
        ("add column with fill", Migration("002") { $0.addColumn("flag", .integer, fill: .integer(1), to: "acct") }),
        ("WITHOUT ROWID: drop column", Migration("002") { $0.dropColumn("extra", from: "tag") }),
        (
            "WITHOUT ROWID: nullability",
            Migration("002") { $0.alterColumn("label", in: "tag", to: .text, nullable: false) }
        ),
    ]

    static func objects(_ path: String) throws -> [String] {
        try SQLiteTool.run(
            path,
            "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_master "
                + "WHERE name NOT IN ('acct', 'tag') AND name NOT LIKE 'strata!_migrations%' ESCAPE '!' ORDER BY type, name"
        ).split(separator: "\n").map(String.init)
    }

    @Test(
        "a step on an unrelated column keeps every constraint, index, trigger, view and declared type",
        arguments: steps.indices)
    func stepKeepsSchema(_ n: Int) async throws {
        let (what, step) = Self.steps[n]
        let file = TemporarySQLiteFile()
        try SQLiteTool.run(file.path, Self.schema)
        let objectsBefore = try Self.objects(file.path)
        let types = try SQLiteTool.run(file.path, "SELECT name || ' ' || type FROM pragma_table_xinfo('acct')")
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate([step])
        db.close()

        #expect(try Self.objects(file.path) == objectsBefore, "\(what): indexes, triggers and views as they were")
        let table = try SQLiteTool.run(file.path, "SELECT sql FROM sqlite_master WHERE name = 'acct'")
        for kept in [
            "UNIQUE COLLATE NOCASE", "CHECK (balance >= 0)", "AUTOINCREMENT", "DEFAULT CURRENT_TIMESTAMP",
            "GENERATED ALWAYS AS (substr(email, instr(email, '@') + 1)) VIRTUAL",
            "CONSTRAINT positive_id CHECK (id > 0)",
            "email VARCHAR(80)", "balance NUMERIC(10,2)",
        ] {
            #expect(table.contains(kept), "\(what): acct keeps \(kept): \(table)")
        }
        #expect(!table.contains("STRICT"), "\(what): acct is not made STRICT: \(table)")
        if !what.contains("foreign key") {
            #expect(table.contains("REFERENCES owner (id) ON DELETE SET NULL"), "\(what): the inline key: \(table)")
        }
        let tag = try SQLiteTool.run(file.path, "SELECT sql FROM sqlite_master WHERE name = 'tag'")
        #expect(tag.hasSuffix("WITHOUT ROWID"), "\(what): tag stays WITHOUT ROWID: \(tag)")
        let typesAfter = try SQLiteTool.run(file.path, "SELECT name || ' ' || type FROM pragma_table_xinfo('acct')")
        for line in types.split(separator: "\n") where !line.hasPrefix("spare") && !line.hasPrefix("note") {
            #expect(typesAfter.contains(line), "\(what): declared type kept: \(line) in \(typesAfter)")
        }

        // Behaviour: what was refused before is refused after; what was computed is computed.
        // The column added with a fill has no DEFAULT (the fill was for the rows already there): give it a value.
        let (flag, one) = what == "add column with fill" ? (", flag", ", 1") : ("", "")
        let reopened = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { reopened.close() }
        await #expect(throws: StrataError.self, "\(what): a duplicate email (other case) is refused") {
            try await reopened.unsafeRawExecute(
                "INSERT INTO acct (email, balance, note\(flag)) VALUES ('A@X.IO', 1, 'x'\(one))")
        }
        await #expect(throws: StrataError.self, "\(what): a negative balance is refused") {
            try await reopened.unsafeRawExecute(
                "INSERT INTO acct (email, balance, note\(flag)) VALUES ('n@x.io', -1, 'x'\(one))")
        }
        try await reopened.unsafeRawExecute(
            "INSERT INTO acct (email, balance, note\(flag)) VALUES ('d@w.io', 3, 'x'\(one))")
        let added = try await reopened.unsafeRawExecute(
            "SELECT id, created IS NOT NULL, domain FROM acct WHERE email = 'd@w.io'")
        #expect(
            added == [[.integer(4), .integer(1), .text("w.io")]], "\(what): AUTOINCREMENT past 3, DEFAULT, generated")
        #expect(
            try await reopened.unsafeRawExecute("SELECT count(*) FROM audit") == [[.integer(4)]],
            "\(what): the trigger still fires")
        #expect(
            try await reopened.unsafeRawExecute("SELECT count(*) FROM acct_view") == [[.integer(3)]],
            "\(what): the view still reads")
        let rows = try await reopened.unsafeRawExecute("SELECT id, email, balance FROM acct ORDER BY id")
        #expect(rows.count == 3 && rows[0][1] == .text("a@x.io") && rows[1][2] == .integer(2000), "\(what): rows kept")
        if !what.contains("foreign key") {
            try await reopened.unsafeRawExecute("DELETE FROM owner WHERE id = 1")
            #expect(
                try await reopened.unsafeRawExecute("SELECT owner_id FROM acct WHERE id = 1") == [[.null]],
                "\(what): ON DELETE SET NULL still acts")
        }
    }

    @Test("dropping a column the schema still uses is refused with a typed error naming it; nothing changes")
    func dropUsedColumnRefused() async throws {
        let file = TemporarySQLiteFile()
        try SQLiteTool.run(file.path, Self.schema)
        let before = try SQLiteTool.run(file.path, "SELECT group_concat(sql, ';') FROM sqlite_master")
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        // `email` feeds the generated column, the view and the trigger; `note` an expression index.
        for column in ["email", "note"] {
            await #expect(throws: StrataError.self, "dropping \(column)") {
                try await db.migrate([Migration("002_drop_\(column)") { $0.dropColumn(column, from: "acct") }])
            }
            do {
                try await db.migrate([Migration("002_drop_\(column)") { $0.dropColumn(column, from: "acct") }])
            } catch let error as StrataError {
                guard case .invalidQuery(let reason) = error else {
                    Issue.record("dropping \(column): wrong error \(error)")
                    continue
                }
                #expect(reason.contains("acct.\(column)"), "the refusal names the column: \(reason)")
            }
        }
        db.close()
        #expect(
            try SQLiteTool.run(
                file.path, "SELECT group_concat(sql, ';') FROM sqlite_master WHERE name NOT LIKE 'strata%'")
                == before, "the schema is as it was")
    }

    @Test("a column with an inline UNIQUE (which SQLite's DROP COLUMN refuses) is dropped with it; the rest is kept")
    func dropUniqueColumn() async throws {
        let file = TemporarySQLiteFile()
        try SQLiteTool.run(
            file.path,
            """
            CREATE TABLE u (id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT UNIQUE, n INTEGER NOT NULL CHECK (n > 0));
            INSERT INTO u (code, n) VALUES ('a', 1), ('b', 2);
            """)
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate([Migration("002") { $0.dropColumn("code", from: "u") }])
        let sql = try await db.unsafeRawExecute("SELECT sql FROM sqlite_master WHERE name = 'u'")
        guard case .text(let text) = sql.first?.first else {
            Issue.record("no table u")
            return
        }
        #expect(!text.contains("code") && text.contains("CHECK (n > 0)") && text.contains("AUTOINCREMENT"), "\(text)")
        #expect(
            try await db.unsafeRawExecute("SELECT id, n FROM u ORDER BY id") == [
                [.integer(1), .integer(1)], [.integer(2), .integer(2)],
            ])
        await #expect(throws: StrataError.self, "the CHECK still holds") {
            try await db.unsafeRawExecute("INSERT INTO u (n) VALUES (0)")
        }
    }
}
