// CompositeKeyRenderTests: the exact SQL of a model whose key has two columns on SQLite and PostgreSQL: its DDL,
// and the find, update, insert and delete that name every key column.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@Model(table: "line", primaryKey: ["orderID", "productID"]) struct KeyedLine {
    var orderID: Int64
    var productID: String
    var quantity: Int
}

/// A hand-written model whose table has two key columns but whose `ID` is a plain `String`: refused by save.
struct MiskeyedLine: Model {
    static let schema = TableSchema(
        name: "miskeyed",
        columns: [
            TableColumn(\MiskeyedLine.a, "a", primaryKey: true), TableColumn(\MiskeyedLine.b, "b", primaryKey: true),
        ])
    var a: Int64
    var b: Int64
    var id: String?
    init(a: Int64, b: Int64) { (self.a, self.b, id) = (a, b, "x") }
    init(row: Row) throws { (a, b, id) = (try row.decode(0), try row.decode(1), "x") }
    var databaseValues: [DatabaseValue] { [a.databaseValue, b.databaseValue] }
}

@Suite("SQL renderer: composite primary keys")
struct CompositeKeyRenderTests {
    @Test("CREATE TABLE declares the key columns NOT NULL and PRIMARY KEY (a, b) after the columns")
    func ddl() throws {
        #expect(
            try SQLRenderer.render(.createTable(KeyedLine.schema), dialect: SQLiteDialect()).sql
                == "CREATE TABLE IF NOT EXISTS \"line\" (\"order_id\" INTEGER NOT NULL, \"product_id\" TEXT NOT NULL,"
                + " \"quantity\" INTEGER NOT NULL, PRIMARY KEY (\"order_id\", \"product_id\")) STRICT")
        #expect(
            try SQLRenderer.render(.createTable(KeyedLine.schema), dialect: PostgresDialect()).sql
                == "CREATE TABLE IF NOT EXISTS \"line\" (\"order_id\" BIGINT NOT NULL,"
                + " \"product_id\" TEXT COLLATE \"C\" NOT NULL, \"quantity\" BIGINT NOT NULL,"
                + " PRIMARY KEY (\"order_id\", \"product_id\"))")
    }

    @Test("find, update, insert and delete name every key column")
    func writes() async throws {
        let driver = LoggingDriver()
        let db = Database(driver: driver)
        try await db.migrate(KeyedLine.self)
        _ = driver.log.take()
        var line = KeyedLine(orderID: 1, productID: "p", quantity: 2)
        try await line.save(on: db)
        line.quantity = 3
        try await line.save(on: db)
        let found = try await KeyedLine.find(KeyedLine.ID(orderID: 1, productID: "p"), on: db)
        #expect(found?.quantity == 3)
        #expect(try await line.delete(on: db))
        let statements = driver.log.take()
        let sqlite = try statements.map { try SQLRenderer.render($0, dialect: SQLiteDialect()).sql }
        let pg = try statements.map { try SQLRenderer.render($0, dialect: PostgresDialect()).sql }
        #expect(
            sqlite == [
                "UPDATE \"line\" SET \"quantity\" = ? WHERE ((\"order_id\" = ?) AND (\"product_id\" = ?))",
                "INSERT INTO \"line\" (\"order_id\", \"product_id\", \"quantity\") VALUES (?, ?, ?)",
                "UPDATE \"line\" SET \"quantity\" = ? WHERE ((\"order_id\" = ?) AND (\"product_id\" = ?))",
                "SELECT \"order_id\", \"product_id\", \"quantity\" FROM \"line\""
                    + " WHERE ((\"order_id\" = ?) AND (\"product_id\" = ?))",
                "DELETE FROM \"line\" WHERE ((\"order_id\" = ?) AND (\"product_id\" = ?))",
            ])
        #expect(
            pg == [
                "UPDATE \"line\" SET \"quantity\" = $1 WHERE ((\"order_id\" = $2) AND (\"product_id\" = $3))",
                "INSERT INTO \"line\" (\"order_id\", \"product_id\", \"quantity\") VALUES ($1, $2, $3)",
                "UPDATE \"line\" SET \"quantity\" = $1 WHERE ((\"order_id\" = $2) AND (\"product_id\" = $3))",
                "SELECT \"order_id\", \"product_id\", \"quantity\" FROM \"line\""
                    + " WHERE ((\"order_id\" = $1) AND (\"product_id\" = $2))",
                "DELETE FROM \"line\" WHERE ((\"order_id\" = $1) AND (\"product_id\" = $2))",
            ])
    }

    @Test("a hand-written model with two key columns and an ID that is no CompositeKey is refused by name")
    func handWrittenWithoutCompositeKey() async throws {
        let db = Database(driver: MemoryDriver())
        try await db.migrate(MiskeyedLine.self)
        var line = MiskeyedLine(a: 1, b: 2)
        await #expect(
            throws: StrataError.invalidArgument(
                "MiskeyedLine",
                reason: "its table has a composite key (a, b) but its ID, String, is no CompositeKey: "
                    + "declare it with @Model(primaryKey:)")
        ) { try await line.save(on: db) }
        #expect(try await MiskeyedLine.query(on: db).count() == 0)
        // Find and delete by such an ID are refused too, never matched by the first key column alone.
        let refusal = StrataError.invalidArgument(
            "MiskeyedLine",
            reason: "its table has a composite key (a, b) but its ID, String, is no CompositeKey: "
                + "declare it with @Model(primaryKey:)")
        await #expect(throws: refusal) { try await MiskeyedLine.find("1", on: db) }
        await #expect(throws: refusal) { try await MiskeyedLine.query(on: db).filter(id: "1").delete() }
    }

    @Test("a stored model's key column is refused by name, model and row unchanged")
    func keyColumnChange() async throws {
        let db = Database(driver: MemoryDriver())
        try await db.migrate(KeyedLine.self)
        var line = KeyedLine(orderID: 1, productID: "p", quantity: 2)
        try await line.save(on: db)
        line.productID = "q"
        await #expect(
            throws: StrataError.invalidValue(
                table: "line", column: "product_id",
                reason: "KeyedLine's key column cannot change once stored: save a new model and delete this one")
        ) { try await line.save(on: db) }
        #expect(line.productID == "q")
        #expect(try await KeyedLine.query(on: db).all().map(\.productID) == ["p"])
    }
}
