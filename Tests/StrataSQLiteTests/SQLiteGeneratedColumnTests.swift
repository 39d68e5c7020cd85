// SQLiteGeneratedColumnTests: golden DDL of a stored generated column on SQLite, and the rebuild that adds one.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "sqlite_read_back_line")
struct SQLiteReadBackLine {
    var id: Int64?
    var price: Int64
    var quantity: Int64
    @Generated var total: Int64 = 0
    static var generatedColumns: [GeneratedColumn<SQLiteReadBackLine>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity)]
    }
}

@Suite("SQLite dialect: generated columns")
struct SQLiteGeneratedColumnTests {
    let dialect = SQLiteDialect()

    static let schema = TableSchema(
        name: "line",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
            TableColumn(name: "price", type: .integer, isNullable: false),
            TableColumn(name: "quantity", type: .integer, isNullable: false),
            TableColumn(name: "total", type: .integer, isNullable: false)
                .generated(as: .arithmetic(.multiply, .column("price"), .column("quantity"))),
            TableColumn(name: "label", type: .text, isNullable: true)
                .generated(as: .arithmetic(.add, .column("price"), .value(.integer(-1)))),
        ])

    @Test("CREATE TABLE: checked strata_mul in GENERATED ALWAYS AS (…) STORED, literals inline")
    func createTable() throws {
        let r = try SQLRenderer.render(.createTable(Self.schema), dialect: dialect)
        #expect(
            r.sql
                == #"CREATE TABLE IF NOT EXISTS "line" ("id" INTEGER PRIMARY KEY, "price" INTEGER NOT NULL, "#
                + #""quantity" INTEGER NOT NULL, "total" INTEGER NOT NULL GENERATED ALWAYS AS "#
                + #"(strata_mul("price", "quantity")) STORED, "label" TEXT GENERATED ALWAYS AS "#
                + #"(strata_add("price", -1)) STORED) STRICT"#)
        #expect(r.binds.isEmpty)
    }

    @Test("the read-back after a save: the computed columns of the row by key, nothing else")
    func readBackSQL() throws {
        let r = try SQLRenderer.render(SQLiteReadBackLine.readBackStatement(3), dialect: dialect)
        #expect(r.sql == #"SELECT "total" FROM "sqlite_read_back_line" WHERE ("id" = ?)"#)
        #expect(r.binds == [.integer(3)])
    }

    @Test("ADD COLUMN of a generated column is left to the driver's rebuild (SQLite cannot ALTER one in)")
    func addColumnRebuilds() throws {
        let column = Self.schema.columns[3]
        #expect(try SQLRenderer.statements(for: .addColumn(table: "line", column), dialect: dialect) == nil)
    }

    @Test("a migration step adds a generated column: the rebuilt table computes it for the rows it had")
    func addedByRebuild() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: path) }
        let db = try Database.open("sqlite:\(path.path)", drivers: [.sqlite])
        defer { db.close() }
        var plain = Self.schema
        plain.columns.removeLast(2)
        let create = Migration("001_line") { $0.createTable(plain) }
        _ = try await db.migrate([create])
        try await db.withConnection { tx in
            _ = try tx.execute(
                .insert(Insert(table: "line", columns: ["price", "quantity"], rows: [[.integer(3), .integer(4)]])))
        }
        let add = Migration("002_total") { $0.change(.addColumn(table: "line", Self.schema.columns[3])) }
        _ = try await db.migrate([create, add])
        let schema = try await db.withConnection { tx in try tx.introspect() }
        let total = try #require(schema[table: "line"]?.column(named: "total"))
        #expect(total.isGenerated && !total.isNullable && total.type == .integer)
        var totals: [DatabaseValue] = []
        try await db.withConnection { tx in
            _ = try tx.execute(.select(Select(table: "line", selection: .columns(["total"])))) { r in
                totals.append(r.value(at: 0))
            }
        }
        #expect(totals == [.integer(12)])
    }
}
