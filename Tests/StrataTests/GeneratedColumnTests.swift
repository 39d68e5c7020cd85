// GeneratedColumnTests: a generated column's DDL in the odd dialect, its write lists and its declaration errors.
import Foundation
import Testing

@testable import Strata

@Model
struct GenItem {
    var id: Int64?
    var price: Int64
    var quantity: Int64
    @Generated var total: Int64 = 0
    var note: String?
    static var generatedColumns: [GeneratedColumn<GenItem>] { [GeneratedColumn(\.total, as: \.price * \.quantity)] }
}

@Model
struct GenBad {
    var id: Int64?
    var price: Int64
    @Generated var fromKey: Int64 = 0
    var plain: Int64 = 0
    static var generatedColumns: [GeneratedColumn<GenBad>] {
        [GeneratedColumn(\.fromKey, as: \.price + 1), GeneratedColumn(\.plain, as: \.price * 2)]
    }
}

@Model
struct GenOverKey {
    var id: Int64?
    @Generated var twice: Int64? = nil
    static var generatedColumns: [GeneratedColumn<GenOverKey>] { [GeneratedColumn(\.twice, as: coalesce(\.id, 0) * 2)] }
}

@Suite("Generated columns: schema, DDL and write lists")
struct GeneratedColumnTests {
    let odd = OddDialect()

    @Test("@Generated marks the column and drops its default; the model's expression arrives at migration")
    func macroMarks() throws {
        let total = try #require(GenItem.schema.column(named: "total"))
        #expect(total.isGenerated && total.generation == nil && total.schemaDefault == nil)
        #expect(GenItem.schema.generatedColumnIndexes == [3])
        let migrated = try Transaction.migrationSchema(GenItem.self)
        let expression = try #require(migrated.column(named: "total")?.generation)
        #expect(expression == .arithmetic(.multiply, .column("price"), .column("quantity")))
    }

    @Test("inserts and upserts name every column but the key and the generated ones")
    func writeLists() {
        let schema = GenItem.schema
        #expect(schema.insertColumnNames == ["price", "quantity", "note"])
        #expect(schema.writtenColumnNames(includingKey: true) == ["id", "price", "quantity", "note"])
        let values: [DatabaseValue] = [.null, .integer(2), .integer(3), .integer(0), .text("n")]
        #expect(schema.writtenValues(values, includingKey: false) == [.integer(2), .integer(3), .text("n")])
        #expect(schema.writtenValues(values, includingKey: true) == [.null, .integer(2), .integer(3), .text("n")])
    }

    @Test("CREATE TABLE writes GENERATED ALWAYS AS (…) STORED with literals, never binds")
    func createTable() throws {
        var schema = try Transaction.migrationSchema(GenItem.self)
        schema.columns[4] = schema.columns[4].generated(
            as: .arithmetic(.add, .column("price"), .value(.integer(5))))
        schema.columns[4].isNullable = true
        let r = try SQLRenderer.render(.createTable(schema), dialect: odd)
        #expect(
            r.sql
                == "CREATE TABLE IF NOT EXISTS `gen_item` (`id` SERIAL KEY, `price` T_INTEGER NOT NULL, "
                + "`quantity` T_INTEGER NOT NULL, `total` T_INTEGER NOT NULL GENERATED ALWAYS AS "
                + "((`price` * `quantity`)) STORED, `note` T_TEXT GENERATED ALWAYS AS ((`price` + 5)) STORED)")
        #expect(r.binds.isEmpty)
        #expect(SQLRenderer.binds(of: .createTable(schema), dialect: odd).isEmpty)
    }

    @Test("a save reads the computed columns back by a template SELECT of those columns by key, deleted rows too")
    func readBackStatement() throws {
        guard case .select(let s) = GenItem.readBackStatement(7) else {
            Issue.record("the read-back is a SELECT")
            return
        }
        #expect(s.table == "gen_item")
        #expect(s.selection == .columns(["total"]))
        #expect(s.filter == .compare(.equal, .column("id"), .value(.integer(7))))
        #expect(GenItem.schema.storage.readsBackByTemplate)
        #expect(GenItem.schema.storage.readBackLayout == [-1, -1, -1, 0, -1])
        #expect(StatementTemplate(GenItem.self, .readBackByKey, table: "gen_item").isRead)
        #expect(!StatementTemplate(GenItem.self, .insertReturningKey, table: "gen_item").isRead)
    }

    @Test("a generated column without its expression is refused when rendered, naming it")
    func missingExpression() {
        #expect(
            throws: StrataError.generatedColumn(
                model: "gen_item", column: "total",
                reason: "has no expression (declare it in the model's generatedColumns)")
        ) {
            try SQLRenderer.render(.createTable(GenItem.schema), dialect: odd)
        }
    }

    @Test("declaration errors name the model and the column")
    func declarationErrors() {
        #expect(
            throws: StrataError.generatedColumn(
                model: "GenBad", column: "plain", reason: "has an expression but is not marked @Generated")
        ) {
            try Transaction.migrationSchema(GenBad.self)
        }
        #expect(throws: StrataError.self) { try Transaction.migrationSchema(GenOverKey.self) }
        do {
            _ = try Transaction.migrationSchema(GenOverKey.self)
        } catch {
            guard case .generatedColumn(model: "GenOverKey", column: "twice", let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("primary key"))
        }
    }
}
