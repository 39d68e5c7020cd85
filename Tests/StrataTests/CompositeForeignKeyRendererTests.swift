// CompositeForeignKeyRendererTests: the DDL of a foreign key of several columns (to a composite key), from the
// shared renderer with the odd dialect: in CREATE TABLE and in ADD CONSTRAINT, columns in the given order.
import Testing

@testable import Strata

@Suite("SQL renderer: foreign keys of several columns")
struct CompositeForeignKeyRendererTests {
    let odd = OddDialect()
    let key = ForeignKey(
        columns: ["shop", "number"], references: "ship", columns: ["shop_id", "no"], onDelete: .cascade)

    @Test("CREATE TABLE lists every column of the key and of the referenced key, typed as keys")
    func createTable() throws {
        let schema = TableSchema(
            name: "parcel",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                TableColumn(name: "shop", type: .integer, isNullable: false),
                TableColumn(name: "number", type: .text, isNullable: true),
            ], foreignKeys: [key])
        #expect(
            try SQLRenderer.render(.createTable(schema), dialect: odd).sql
                == "CREATE TABLE IF NOT EXISTS `parcel` (`id` SERIAL KEY, `shop` T_INTEGER NOT NULL, `number` T_TEXT, "
                + "FOREIGN KEY (`shop`, `number`) REFERENCES `ship` (`shop_id`, `no`) ON DELETE CASCADE)")
    }

    @Test("ADD CONSTRAINT names the key by its first column and lists them all; a one-column key is as before")
    func addConstraint() throws {
        let add = try SQLRenderer.statements(for: .addForeignKey(table: "parcel", key), dialect: odd)
        #expect(
            add
                == [
                    "ALTER TABLE `parcel` ADD CONSTRAINT `parcel_shop_fkey` FOREIGN KEY (`shop`, `number`) "
                        + "REFERENCES `ship` (`shop_id`, `no`) ON DELETE CASCADE"
                ])
        #expect(
            try SQLRenderer.foreignKeyClause(ForeignKey(column: "owner", references: "person"), dialect: odd)
                == "FOREIGN KEY (`owner`) REFERENCES `person` (`id`) ON DELETE NO ACTION")
        #expect(key.column == "shop" && key.referencedColumn == "shop_id" && key.isComposite)
        #expect(SchemaChange.addForeignKey(table: "parcel", key).description.contains("(shop, number)"))
    }

    @Test("a name the dialect cannot quote is refused in any column of the key")
    func badName() throws {
        let bad = ForeignKey(columns: ["shop", "a\u{0}b"], references: "ship", columns: ["x", "y"])
        #expect(throws: StrataError.self) { try SQLRenderer.foreignKeyClause(bad, dialect: odd) }
    }
}
