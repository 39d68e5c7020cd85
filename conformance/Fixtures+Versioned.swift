// Fixtures+Versioned: the tables, models and helpers of the versioned-migration, alter, introspect and diff cases.
import Foundation
import Strata

@Model(table: "ver_widget")
struct VerWidgetV1 {
    var id: Int64?
    var name: String
}

@Model(table: "ver_widget")
struct VerWidgetV2 {
    var id: Int64?
    var name: String
    var color: String?
    var count = 0

    static var indexes: [Index] { [.on(\VerWidgetV2.name, unique: true)] }
}

@Model(table: "ver_item")
struct VerItem {
    var id: Int64?
    var title: String
    var code: String?
    var qty: Int?
    var price: Double?
    var ownerID: Int64?
}

enum VersionedFixtures {
    /// Every table the cases create, children first; dropped before and after each case.
    static let tables = [
        "ver_tag", "ver_item", "ver_goods", "ver_gadget", "ver_widget", "ver_owner", "ver_person", "fill_person",
        "strata_migrations",
    ]

    /// A case that starts and ends with none of its tables.
    static func `case`(_ name: String, _ body: @escaping @Sendable (Database) async throws -> Void) -> ConformanceCase {
        ConformanceCase(name) { db in
            try await drop(db)
            do {
                try await body(db)
            } catch {
                try? await drop(db)
                throw error
            }
            try await drop(db)
        }
    }

    static func drop(_ db: Database) async throws {
        try await db.withConnection { tx in
            for t in tables { try tx.dropTable(t) }
        }
    }

    static let owner = TableSchema(
        name: "ver_owner",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
            TableColumn(name: "name", type: .text, isNullable: false),
        ])

    static let item = TableSchema(
        name: "ver_item",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
            TableColumn(name: "title", type: .text, isNullable: false),
            TableColumn(name: "code", type: .text, isNullable: true),
            TableColumn(name: "qty", type: .integer, isNullable: true),
            TableColumn(name: "price", type: .double, isNullable: true),
            TableColumn(name: "owner_id", type: .integer, isNullable: true),
        ],
        indexes: [Index(columns: ["code"])],
        foreignKeys: [ForeignKey(column: "owner_id", references: "ver_owner")])

    static let itemColumns = ["id", "title", "code", "qty", "price", "owner_id"]

    /// The step that creates `ver_owner` and `ver_item`.
    static let create = Migration("001_create") { up in
        up.createTable(owner)
        up.createTable(item)
    } down: { down in
        down.dropTable("ver_item")
        down.dropTable("ver_owner")
    }

    /// The rows `seed` writes into `ver_item`, by column.
    static let itemRows: [[DatabaseValue]] = [
        [.integer(1), .text("a"), .text("1"), .integer(10), .double(1.5), .integer(1)],
        [.integer(2), .text("b"), .text("22"), .null, .double(2), .integer(2)],
        [.integer(3), .text("c"), .null, .integer(30), .null, .null],
    ]

    /// Creates the two tables with `create` and fills them: two owners, three items.
    static func seed(_ db: Database) async throws {
        try await db.migrate([create])
        try await db.withConnection { tx in
            _ = try tx.execute(
                .insert(
                    Insert(
                        table: "ver_owner", columns: ["id", "name"],
                        rows: [[.integer(1), .text("ann")], [.integer(2), .text("bo")]])))
            _ = try tx.execute(.insert(Insert(table: "ver_item", columns: itemColumns, rows: itemRows)))
        }
    }

    /// The rows of a table by id, the listed columns.
    static func rows(_ db: Database, _ table: String, _ columns: [String]) async throws -> [[DatabaseValue]] {
        try await db.withConnection { tx in
            var out: [[DatabaseValue]] = []
            let select = Select(table: table, selection: .columns(columns), order: [Ordering("id")])
            _ = try tx.execute(.select(select)) { r in out.append((0..<r.columnCount).map { r.value(at: $0) }) }
            return out
        }
    }

    /// The live schema.
    static func schema(_ db: Database) async throws -> DatabaseSchema {
        try await db.withConnection { tx in try tx.introspect() }
    }

    /// The rows of `ver_item` with one column left out.
    static func itemRows(without column: String) -> [[DatabaseValue]] {
        guard let p = itemColumns.firstIndex(of: column) else { return itemRows }
        return itemRows.map { row in
            var row = row
            row.remove(at: p)
            return row
        }
    }

    /// Runs one step that is expected to fail with a matching error, and checks the schema and every row of
    /// both tables are exactly as before and the step is not recorded.
    static func expectRefused(
        _ db: Database, _ what: String, _ step: Migration, _ matches: @escaping (StrataError) -> Bool
    ) async throws {
        let before = try await schema(db)
        let items = try await rows(db, "ver_item", itemColumns)
        let owners = try await rows(db, "ver_owner", ["id", "name"])
        try await checkThrows(what, matches) { try await db.migrate([step]) }
        try checkEqual(try await schema(db), before, "\(what): schema as before")
        try checkEqual(try await rows(db, "ver_item", itemColumns), items, "\(what): ver_item rows as before")
        try checkEqual(try await rows(db, "ver_owner", ["id", "name"]), owners, "\(what): ver_owner rows as before")
        let status = try await db.migrationStatus([step])
        try check(status.first?.isApplied == false, "\(what): step not recorded")
    }
}
