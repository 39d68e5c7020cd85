// StatementTypeCheckTests: the core's type check of conditions (issue 25): which types compare, what is named,
// what is not typed, and how the known schemas follow CREATE TABLE, ADD COLUMN and DROP TABLE.
import Foundation
import Strata
import Testing

@Suite("StatementCheck: types of compared columns")
struct StatementTypeCheckTests {
    static let item = TableSchema(
        name: "item",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
            TableColumn(name: "n", type: .integer, isNullable: true),
            TableColumn(name: "x", type: .double, isNullable: true),
            TableColumn(name: "d", type: .decimal, isNullable: true),
            TableColumn(name: "s", type: .text, isNullable: true),
            TableColumn(name: "b", type: .bool, isNullable: true),
            TableColumn(name: "at", type: .date, isNullable: true),
            TableColumn(name: "u", type: .uuid, isNullable: true),
            TableColumn(name: "j", type: .json, isNullable: true),
            TableColumn(name: "blob", type: .blob, isNullable: true),
        ])

    static func schemas() -> KnownSchemas {
        let k = KnownSchemas()
        k.record(.createTable(item))
        return k
    }

    static func count(_ filter: SQLExpression, joins: [Join] = []) -> Statement {
        .select(Select(table: "item", selection: .count, joins: joins, filter: filter))
    }

    /// Expects `statement` to be refused with a typeMismatch naming `table` and `column`.
    static func expectMismatch(
        _ statement: Statement, _ schemas: KnownSchemas, _ table: String, _ column: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try StatementCheck.check(statement, schemas: schemas)
            Issue.record("\(statement) passed", sourceLocation: sourceLocation)
        } catch {
            guard case .typeMismatch(table, column, _) = error else {
                Issue.record("\(error)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    @Test("the same type and the three number types compare; every other pair is typeMismatch naming the column")
    func pairs() throws {
        let schemas = Self.schemas()
        let values: [ColumnType: DatabaseValue] = [
            .integer: .integer(1), .double: .double(1.5), .decimal: .decimal(2), .text: .text("a"),
            .bool: .bool(true), .date: .date(.init(timeIntervalSince1970: 0)), .uuid: .uuid(.init()),
            .json: .json("{}"), .blob: .blob(Data([1])),
        ]
        let columns: [ColumnType: String] = [
            .integer: "n", .double: "x", .decimal: "d", .text: "s", .bool: "b", .date: "at", .uuid: "u", .json: "j",
            .blob: "blob",
        ]
        var refused = 0
        for (type, name) in columns {
            for (kind, value) in values {
                let statement = Self.count(.compare(.equal, .column(name), .value(value)))
                let numbers: Set<ColumnType> = [.integer, .double, .decimal]
                if type == kind || (numbers.contains(type) && numbers.contains(kind)) {
                    #expect(throws: Never.self) { try StatementCheck.check(statement, schemas: schemas) }
                    #expect(StatementCheck.comparable(type, kind))
                } else {
                    refused += 1
                    #expect(!StatementCheck.comparable(type, kind))
                    Self.expectMismatch(statement, schemas, "item", name)
                }
            }
            // NULL compares with every type.
            #expect(throws: Never.self) {
                try StatementCheck.check(Self.count(.inList(.column(name), [.null])), schemas: schemas)
            }
        }
        #expect(refused == 9 * 9 - 9 - 6)
    }

    @Test("IN, BETWEEN, a value first, column to column, LIKE, joins, subqueries, UPDATE and DELETE are typed")
    func shapes() throws {
        let schemas = Self.schemas()
        func refused(_ s: Statement, _ column: String, sourceLocation: SourceLocation = #_sourceLocation) {
            Self.expectMismatch(s, schemas, "item", column, sourceLocation: sourceLocation)
        }
        refused(Self.count(.inList(.column("n"), [.integer(1), .text("2")], negated: true)), "n")
        refused(Self.count(.between(.column("s"), .value(.text("a")), .value(.integer(9)))), "s")
        refused(Self.count(.compare(.less, .value(.bool(true)), .column("x"))), "x")
        refused(Self.count(.compare(.less, .column("at"), .column("s"))), "at")
        refused(Self.count(.like(.column("n"), "1%")), "n")
        refused(Self.count(.or([.constant(true), .like(.column("j"), "%", caseInsensitive: true)])), "j")
        let join = Join(
            .left, table: "item", alias: "other", on: .compare(.equal, .column("u", table: "other"), .column("s")))
        refused(Self.count(.constant(true), joins: [join]), "u")
        let inner = Select(table: "item", selection: .columns(["id"]), filter: .like(.column("b"), "1"))
        refused(Self.count(.inSubquery(.column("id"), inner)), "b")
        refused(
            .update(
                Update(
                    table: "item", assignments: [Assignment("s", .text("a"))],
                    filter: .compare(.equal, .column("b"), .value(.integer(1))))), "b")
        refused(.delete(Delete(table: "item", filter: .compare(.equal, .column("d"), .value(.text("1"))))), "d")
        // Not typed: a computed operand, a raw condition, a table Strata did not create.
        #expect(throws: Never.self) {
            try StatementCheck.check(
                Self.count(.compare(.equal, .arithmetic(.add, .column("s"), .value(.integer(1))), .value(.integer(1)))),
                schemas: schemas)
            try StatementCheck.check(Self.count(.unsafeRaw("s = ?", [.integer(1)])), schemas: schemas)
            try StatementCheck.check(
                .select(Select(table: "other", selection: .count, filter: .like(.column("n"), "%"))), schemas: schemas)
            try StatementCheck.check(Self.count(.like(.column("s"), "a%")), schemas: schemas)
        }
    }

    @Test("the known schemas follow ADD COLUMN and DROP TABLE; forgetting them leaves conditions untyped")
    func knownSchemasFollowTheSchema() throws {
        let schemas = Self.schemas()
        let added = Self.count(.compare(.equal, .column("late"), .value(.text("a"))))
        #expect(throws: Never.self) { try StatementCheck.check(added, schemas: schemas) }
        schemas.record(.addColumn(table: "item", TableColumn(name: "late", type: .integer, isNullable: true)))
        Self.expectMismatch(added, schemas, "item", "late")
        schemas.record(.dropTable("item"))
        #expect(throws: Never.self) { try StatementCheck.check(added, schemas: schemas) }
        schemas.record(.createTable(Self.item))
        schemas.forgetAll()
        #expect(throws: Never.self) { try StatementCheck.check(Self.count(.like(.column("n"), "%")), schemas: schemas) }
    }
}
