// SQLiteInteropTests: tables written by the sqlite3 command-line tool read through models that map onto them.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "legacy_people")
struct LegacyPerson {
    var id: Int64?
    @Column("full_name") var name: String
    @Column("born") var birth: Date
    @Column("is_admin") var admin: Bool
    @Column("balance") var balance: Decimal
    @Column("profile") var profile: [String: String]?
    var note: String?
}

@Suite("SQLite interop")
struct SQLiteInteropTests {
    /// Runs the real `sqlite3` tool on a database file.
    func sqlite3(_ path: String, _ sql: String) throws {
        let tool = "/usr/bin/sqlite3"
        try #require(
            FileManager.default.isExecutableFile(atPath: tool), "the sqlite3 tool is needed (apt-get install sqlite3)")
        let (status, _) = try ToolRun.run(tool, [path, sql])
        try #require(status == 0)
    }

    @Test("hand-written SQL from sqlite3 reads through a model with custom table and column names")
    func readsHandWrittenTable() async throws {
        let file = TemporarySQLiteFile()
        try sqlite3(
            file.path,
            """
            CREATE TABLE legacy_people (id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, born TEXT NOT NULL,
                                        is_admin INTEGER NOT NULL, balance NUMERIC NOT NULL, profile TEXT, note TEXT);
            INSERT INTO legacy_people VALUES (1, 'Ada', '1815-12-10', 1, '12.50', '{"lang":"en"}', NULL);
            INSERT INTO legacy_people VALUES (2, 'Alan', '1912-06-23 10:00:00', 0, '7', NULL, 'turing');
            INSERT INTO legacy_people VALUES (3, 'Grace', '1906-12-09T08:30:00.5Z', 1, '-1.25', NULL, NULL);
            """)
        let db = try Database.open("sqlite:\(file.path)?migrate=off", drivers: [.sqlite])
        try await db.migrate(LegacyPerson.self)  // only checks: every mapped column exists, reads and compares
        let people = try await LegacyPerson.query(on: db).order(\.birth).all()
        #expect(people.map(\.name) == ["Ada", "Grace", "Alan"])
        #expect(people[0].admin && !people[2].admin)
        #expect(people[0].balance == Decimal(string: "12.5"))
        #expect(people[0].profile == ["lang": "en"])
        #expect(people[2].note == "turing")
        #expect(people[1].birth == DateText.parse("1906-12-09 08:30:00.5"))
        let admins = try await LegacyPerson.query(on: db).where(\.admin == true).count()
        #expect(admins == 2)
        var ada = people[0]
        ada.note = "first programmer"
        try await ada.save(on: db)
        #expect(try await LegacyPerson.find(1, on: db)?.note == "first programmer")
    }

    @Test("a text value where a model expects a number is a typed decoding error naming model, column and value")
    func foreignWrongType() async throws {
        let file = TemporarySQLiteFile()
        try sqlite3(
            file.path,
            """
            CREATE TABLE legacy_people (id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, born TEXT, is_admin INTEGER,
                                        balance TEXT, profile TEXT, note TEXT);
            INSERT INTO legacy_people VALUES (1, 'Bad', '2000-01-01', 'yes', '1', NULL, NULL);
            """)
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        await #expect(
            throws: StrataError.decodingFailed(
                model: "LegacyPerson", column: "is_admin", value: "text \"yes\"",
                expected: "Bool")
        ) {
            try await LegacyPerson.query(on: db).all()
        }
    }

    @Test("typed items read row after row: a wrong type in the second row's second item names that item's column")
    func foreignWrongTypeInTypedItems() async throws {
        let file = TemporarySQLiteFile()
        try sqlite3(
            file.path,
            """
            CREATE TABLE legacy_people (id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, born TEXT, is_admin INTEGER,
                                        balance TEXT, profile TEXT, note TEXT);
            INSERT INTO legacy_people VALUES (1, 'Ada', '2000-01-01', 1, '1', NULL, NULL);
            INSERT INTO legacy_people VALUES (2, 'Bad', '2000-01-01', 'maybe', '1', NULL, NULL);
            """)
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        let first = try await LegacyPerson.query(on: db).where(\.id == 1).select(.column(\.name), .column(\.admin))
        #expect(first.count == 1 && first[0].0 == "Ada" && first[0].1)
        await #expect(
            throws: StrataError.decodingFailed(
                model: "LegacyPerson", column: "is_admin", value: "text \"maybe\"", expected: "Bool")
        ) {
            try await LegacyPerson.query(on: db).order(\.id).select(.column(\.name), .column(\.admin))
        }
    }
}
