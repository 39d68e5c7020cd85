// SQLiteDriverTests: what only the SQLite driver does: connection set-up, golden SQL, error mapping.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "sq_item")
struct SQItem {
    var id: Int64?
    var name: String
    var rank: Int?
}

@Suite("SQLite driver")
struct SQLiteDriverTests {
    @Test("a file connection runs in WAL with foreign keys on and DQS off")
    func connectionSettings() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        let journal = try await db.unsafeRawExecute("PRAGMA journal_mode")
        #expect(journal == [[.text("wal")]])
        let fk = try await db.unsafeRawExecute("PRAGMA foreign_keys")
        #expect(fk == [[.integer(1)]])
        await #expect(throws: StrataError.self) {
            try await db.unsafeRawExecute("SELECT \"no_such_column\"")
        }
    }

    @Test("the SQLite dialect renders a full query")
    func goldenSelect() throws {
        let select = Select(
            table: "user", selection: .columns(["id", "name"]),
            filter: .and([
                .compare(.equal, .column("active"), .value(.bool(true))),
                .like(.column("name"), "Al%"),
            ]),
            order: [Ordering("name"), Ordering("joined_at", .descending)], limit: 10, offset: 20)
        let r = try SQLRenderer.render(.select(select), dialect: SQLiteDialect())
        #expect(
            r.sql == #"SELECT "id", "name" FROM "user" WHERE (("active" = ?) AND ("name" LIKE ? ESCAPE '\')) "#
                + #"ORDER BY "name" ASC, "joined_at" DESC LIMIT ? OFFSET ?"#)
        #expect(r.binds == [.bool(true), .text("Al%"), .integer(10), .integer(20)])
    }

    @Test("tables are STRICT, booleans checked, offset alone gets LIMIT -1")
    func goldenDDL() throws {
        let schema = TableSchema(
            name: "t",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                TableColumn(name: "ok", type: .bool, isNullable: false, schemaDefault: .bool(true)),
            ])
        let ddl = try SQLRenderer.render(.createTable(schema), dialect: SQLiteDialect())
        #expect(
            ddl.sql
                == #"CREATE TABLE IF NOT EXISTS "t" ("id" INTEGER PRIMARY KEY, "ok" INTEGER DEFAULT TRUE NOT NULL CHECK ("ok" IN (0, 1))) STRICT"#
        )
        let page = try SQLRenderer.render(
            .select(Select(table: "t", selection: .columns(["id"]), offset: 3)),
            dialect: SQLiteDialect())
        #expect(page.sql == #"SELECT "id" FROM "t" LIMIT -1 OFFSET ?"#)
    }

    @Test("a UUID or text primary key is TEXT NOT NULL PRIMARY KEY; any other type is refused")
    func goldenKeyDDL() throws {
        for type in [ColumnType.uuid, .text] {
            let schema = TableSchema(
                name: "k", columns: [TableColumn(name: "id", type: type, isNullable: true, isPrimaryKey: true)])
            let ddl = try SQLRenderer.render(.createTable(schema), dialect: SQLiteDialect())
            #expect(ddl.sql == #"CREATE TABLE IF NOT EXISTS "k" ("id" TEXT NOT NULL PRIMARY KEY) STRICT"#)
        }
        let bad = TableSchema(
            name: "k", columns: [TableColumn(name: "id", type: .double, isNullable: true, isPrimaryKey: true)])
        #expect(throws: StrataError.invalidQuery("primary key id must be an integer, a UUID or text")) {
            try StatementCheck.check(.createTable(bad))  // by the core, before any driver renders it
        }
    }

    @Test("a table written by hand with sqlite3-style SQL reads through a model")
    func handWrittenTable() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.unsafeRawExecute("CREATE TABLE sq_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, rank INTEGER)")
        try await db.unsafeRawExecute("INSERT INTO sq_item (name, rank) VALUES ('hand', 3), ('made', NULL)")
        let items = try await SQItem.query(on: db).order(\.name).all()
        #expect(items.map(\.name) == ["hand", "made"])
        #expect(items.map(\.rank) == [3, nil])
    }

    @Test("statements run inside another's row callback keep both statements' text binds intact")
    func nestedStatementsKeepBinds() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.migrate(SQItem.self)
        let long = String(repeating: "é", count: 5000)  // more than the first bind arena holds
        try await db.transaction { tx in
            for name in ["m1", "m2", "m3", "a1"] {
                var item = SQItem(name: name)
                try item.save(tx)
            }
            var seen: [String] = []
            try SQItem.query(on: tx).where(\.name >= "m").order(\.id).forEach { outer in
                seen.append(outer.name)
                var inner = SQItem(name: "b" + long + outer.name)  // sorts before "m": not seen by the outer
                try inner.save(tx)
                #expect(try SQItem.query(on: tx).where(\.name == "a1").count() == 1)
            }
            // The outer statement still compared with "m" after every inner bind.
            #expect(seen == ["m1", "m2", "m3"])
            #expect(try SQItem.query(on: tx).where(\.name > "b" && \.name < "c").count() == 3)
        }
    }

    @Test("the same query, and the same find, run from inside their own forEach get statements of their own")
    func reentrantSameStatement() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.migrate(SQItem.self)
        try await db.transaction { tx in
            for name in ["m1", "m2", "m3", "a1"] {
                var item = SQItem(name: name)
                try item.save(tx)
            }
            let query = SQItem.query(on: tx).where(\.name >= "m").order(\.id)
            var outer: [String] = []
            try query.forEach { item in
                outer.append(item.name)
                #expect(try query.all().map(\.name) == ["m1", "m2", "m3"])
                var inner: [String] = []
                try query.forEach { inner.append($0.name) }
                #expect(inner == ["m1", "m2", "m3"])
                #expect(try SQItem.find(item.id ?? -1, tx)?.name == item.name)
            }
            #expect(outer == ["m1", "m2", "m3"])
        }
    }

    @Test("a path in a missing directory fails at open with a connection error")
    func badPath() {
        #expect {
            try Database.open("sqlite:/nonexistent-dir-\(UUID().uuidString)/x.sqlite", drivers: [.sqlite])
        } throws: { error in
            if case StrataError.connectionFailed(let message) = error { return message.contains("cannot open") }
            return false
        }
    }

    @Test("a second writer waits on the busy timeout, then gets a typed busy error")
    func busy() async throws {
        let file = TemporarySQLiteFile()
        let holder = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        let waiter = try Database.open(
            "sqlite:\(file.path)", drivers: [.sqlite], configuration: Configuration(timeout: 0.05))
        try await holder.migrate(SQItem.self)
        var blocked = SQItem(name: "blocked")
        // The holder's raw transaction lives inside one call (a connection never goes back to the pool inside one).
        try await holder.withConnection { tx in
            try tx.unsafeRawExecute("BEGIN IMMEDIATE")
            try tx.unsafeRawExecute("INSERT INTO sq_item (name) VALUES ('held')")
            #expect(throws: StrataError.busy) { try waiter.writeSync { tx in try blocked.save(tx) } }
            try tx.unsafeRawExecute("COMMIT")
        }
        try await blocked.save(on: waiter)
        #expect(try await SQItem.query(on: holder).count() == 2)
    }
}

@Suite("Opening databases")
struct OpeningTests {
    @Test("sqlite::memory: is a private database on one connection")
    func sqliteInMemory() async throws {
        let db = try Database.open("sqlite::memory:", drivers: [.sqlite])
        try await db.migrate(SQItem.self)
        var item = SQItem(name: "only here")
        try await item.save(on: db)
        #expect(try await SQItem.query(on: db).count() == 1)
        let other = try Database.open("sqlite::memory:", drivers: [.sqlite])
        #expect(try await other.withConnection { tx in try tx.columns(of: "sq_item") } == nil)
    }

    @Test("fromEnvironment reads DATABASE_URL and falls back to an embedded database")
    func fromEnvironment() throws {
        // Environments of the test's own, not setenv: changing the process's races with every thread that reads it
        // (a test starting a Process crashed so, copying the environment while it changed).
        #expect(
            try Database.fromEnvironment(drivers: [.sqlite], fallback: "sqlite::memory:", environment: [:]).driverName
                == "sqlite")
        #expect(
            try Database.fromEnvironment(
                drivers: [.sqlite], fallback: "sqlite::memory:", environment: ["DATABASE_URL": ""]
            ).driverName == "sqlite")
        #expect(
            try Database.fromEnvironment(
                drivers: [.sqlite], fallback: "mysql://nope", environment: ["DATABASE_URL": "sqlite::memory:"]
            ).driverName == "sqlite")
        #expect(throws: StrataError.unknownScheme("oracle")) {
            try Database.fromEnvironment(drivers: [.sqlite], environment: ["DATABASE_URL": "oracle://x"])
        }
    }
}
