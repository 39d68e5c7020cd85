// RendererTests: golden SQL from the shared renderer, with an odd dialect that catches anything hard-coded.
import Foundation
import Testing

@testable import Strata

/// A dialect unlike any real one: backtick quotes, `&n` placeholders, ILIKE, a tiny bind limit.
struct OddDialect: Dialect {
    var name: String { "odd" }
    var identifierQuote: Character { "`" }
    var maxIdentifierLength: Int? { 16 }
    var maxBindParameters: Int { 5 }
    func placeholder(_ index: Int) -> String { "&\(index)" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .ilike }
    func sqlType(_ type: ColumnType) -> String { "T_" + type.rawValue.uppercased() }
    var autoIncrementPrimaryKey: String { "SERIAL KEY" }
    func literal(_ value: Bool) -> String { value ? "YES" : "NO" }
}

@Suite("SQL renderer")
struct RendererTests {
    let odd = OddDialect()

    @Test("SELECT renders placeholders, quotes, ILIKE and NULL ordering from the dialect")
    func select() throws {
        let s = Select(
            table: "user", selection: .columns(["id", "name"]),
            filter: .and([
                .compare(.greater, .column("age"), .value(.integer(3))),
                .like(.column("name"), "a%", caseInsensitive: true),
            ]),
            order: [Ordering("name", .descending)], offset: 7)
        let r = try SQLRenderer.render(.select(s), dialect: odd)
        #expect(
            r.sql == "SELECT `id`, `name` FROM `user` WHERE ((`age` > &1) AND (`name` ILIKE &2 ESCAPE '\\')) "
                + "ORDER BY `name` DESC NULLS LAST OFFSET &3")
        #expect(r.binds == [.integer(3), .text("a%"), .integer(7)])
    }

    @Test("LIMIT binds its value")
    func limitBinds() throws {
        let r = try SQLRenderer.render(.select(Select(table: "t", selection: .columns(["a"]), limit: 5)), dialect: odd)
        #expect(r.sql == "SELECT `a` FROM `t` LIMIT &1")
        #expect(r.binds == [.integer(5)])
    }

    @Test("empty IN is false and empty NOT IN is true, with no parameters")
    func emptyIn() throws {
        let inEmpty = try SQLRenderer.render(
            .delete(Delete(table: "t", filter: .inList(.column("a"), []))), dialect: odd)
        #expect(inEmpty.sql == "DELETE FROM `t` WHERE NO")
        let notIn = try SQLRenderer.render(
            .delete(Delete(table: "t", filter: .inList(.column("a"), [], negated: true))), dialect: odd)
        #expect(notIn.sql == "DELETE FROM `t` WHERE YES")
        #expect(notIn.binds.isEmpty)
    }

    @Test("comparing with NULL becomes IS NULL")
    func nullComparison() throws {
        let r = try SQLRenderer.render(
            .delete(Delete(table: "t", filter: .compare(.notEqual, .column("a"), .value(.null)))),
            dialect: odd)
        #expect(r.sql == "DELETE FROM `t` WHERE (`a` IS NOT NULL)")
    }

    @Test("a quote followed by a combining mark is still doubled")
    func quoteWithCombiningMark() throws {
        let sneaky = "a`\u{301} FROM x; --"
        let quoted = try odd.quote(sneaky)
        #expect(quoted == "`a``\u{301} FROM x; --`")
        #expect(Array(quoted.unicodeScalars).filter { $0 == "`" }.count == 4)
        let dq = try SQLiteLikeDialect().quote("a\"\u{301}b")
        #expect(Array(dq.unicodeScalars) == Array("\"a\"\"\u{301}b\"".unicodeScalars))
    }

    @Test("bad identifiers are typed errors", arguments: ["", "nul\u{0}inside", "much_longer_than_sixteen"])
    func badIdentifier(_ name: String) {
        #expect {
            try SQLRenderer.render(.dropTable(name), dialect: odd)
        } throws: { error in
            if case StrataError.invalidIdentifier = error { return true }
            return false
        }
    }

    @Test("long generated index names are shortened deterministically and stay distinct")
    func shortenedIndexName() throws {
        let a = Index(columns: ["first_col", "second"])
        let b = Index(columns: ["first_col", "third"])
        let ra = try SQLRenderer.render(.createIndex(table: "tbl", a), dialect: odd)
        let rb = try SQLRenderer.render(.createIndex(table: "tbl", b), dialect: odd)
        #expect(ra != rb)
        #expect(ra == (try SQLRenderer.render(.createIndex(table: "tbl", a), dialect: odd)))
        #expect(odd.shortened(a.resolvedName(table: "tbl")).utf8.count <= 16)
    }

    @Test("negative LIMIT or OFFSET is refused by the core before any driver")
    func negativeLimit() {
        #expect(throws: StrataError.invalidQuery("negative limit -1")) {
            try StatementCheck.check(.select(Select(table: "t", selection: .columns(["a"]), limit: -1)))
        }
        #expect(throws: StrataError.invalidQuery("negative offset -2")) {
            try StatementCheck.check(.select(Select(table: "t", selection: .columns(["a"]), offset: -2)))
        }
    }

    @Test("the core refuses a bad shape once, in the order the statement is written, before any driver")
    func sharedRefusals() {
        let dangling = SQLExpression.like(.column("a"), "x\\", caseInsensitive: false)
        #expect(throws: StrataError.invalidQuery("UPDATE without any column to set")) {
            try StatementCheck.check(.update(Update(table: "t", assignments: [], filter: dangling)))
        }
        #expect(throws: StrataError.invalidQuery("SELECT without columns")) {
            try StatementCheck.check(.select(Select(table: "t", selection: .refs([]), filter: dangling, limit: -1)))
        }
        let twice = [
            Join(.inner, table: "u", alias: "j", on: .constant(true)),
            Join(.inner, table: "u", alias: "j", on: .constant(true)),
        ]
        #expect(throws: StrataError.invalidQuery("join alias 'j' is used twice")) {
            try StatementCheck.check(.select(Select(table: "t", selection: .columns(["a"]), joins: twice)))
        }
        #expect(throws: StrataError.invalidQuery("LIKE pattern ends with the escape character \\")) {
            try StatementCheck.check(
                .select(Select(table: "t", selection: .columns(["a"]), filter: dangling, limit: -1)))
        }
        let raw = SQLExpression.unsafeRaw("a = ? OR a LIKE ?", [.text("x"), .text("%\\")])
        #expect(throws: StrataError.invalidQuery("LIKE pattern ends with the escape character \\")) {
            try StatementCheck.check(.delete(Delete(table: "t", filter: raw)))
        }
        let outside = SQLExpression.unsafeRaw("a LIKE ? ESCAPE '#'", [.text("x\\")])  // outside the subset the core reads
        #expect(throws: Never.self) { try StatementCheck.check(.delete(Delete(table: "t", filter: outside))) }
        let multi = Select(table: "u", selection: .columns(["a", "b"]))
        #expect(
            throws: StrataError.invalidQuery(
                "a scalar subquery subquery on u selects 2 columns (a, b); it must select exactly one")
        ) {
            try StatementCheck.check(
                .select(
                    Select(
                        table: "t", selection: .columns(["a"]),
                        filter: .compare(.equal, .column("a"), .scalarSubquery(multi)))))
        }
    }

    @Test("more binds than the dialect allows is a typed error")
    func tooManyBinds() {
        let values = (0..<6).map { DatabaseValue.integer(Int64($0)) }
        #expect(throws: StrataError.tooManyBindings(count: 6, limit: 5)) {
            try SQLRenderer.render(.delete(Delete(table: "t", filter: .inList(.column("a"), values))), dialect: odd)
        }
    }

    @Test("raw fragments bind their values and skip ? inside quotes")
    func rawFragment() throws {
        let r = try SQLRenderer.render(
            .delete(Delete(table: "t", filter: .unsafeRaw("a = ? AND b <> '?' AND c = ?", [.integer(1), .text("x")]))),
            dialect: odd)
        #expect(r.sql == "DELETE FROM `t` WHERE (a = &1 AND b <> '?' AND c = &2)")
        #expect(throws: StrataError.self) {
            try SQLRenderer.render(.delete(Delete(table: "t", filter: .unsafeRaw("a = ?", []))), dialect: odd)
        }
    }

    @Test("CREATE TABLE and ADD COLUMN use dialect types, defaults and foreign keys")
    func ddl() throws {
        let schema = TableSchema(
            name: "pet",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
                TableColumn(name: "name", type: .text, isNullable: false, schemaDefault: .text("it's")),
                TableColumn(name: "owner", type: .integer, isNullable: true),
            ], foreignKeys: [ForeignKey(column: "owner", references: "person", onDelete: .setNull)])
        let create = try SQLRenderer.render(.createTable(schema), dialect: odd)
        #expect(
            create.sql == "CREATE TABLE IF NOT EXISTS `pet` (`id` SERIAL KEY, `name` T_TEXT DEFAULT 'it''s' NOT NULL, "
                + "`owner` T_INTEGER, FOREIGN KEY (`owner`) REFERENCES `person` (`id`) ON DELETE SET NULL)")
        let add = try SQLRenderer.render(
            .addColumn(
                table: "pet",
                TableColumn(
                    name: "age", type: .integer, isNullable: false,
                    backfill: .integer(0))), dialect: odd)
        #expect(add.sql == "ALTER TABLE `pet` ADD COLUMN `age` T_INTEGER DEFAULT 0 NOT NULL")
    }

    @Test("CREATE TABLE of a composite key: key columns NOT NULL, PRIMARY KEY (a, b) before the foreign keys")
    func compositeKeyDDL() throws {
        let schema = TableSchema(
            name: "line",
            columns: [
                TableColumn(name: "o", type: .integer, isNullable: true, isPrimaryKey: true),
                TableColumn(name: "s", type: .text, isNullable: true, isPrimaryKey: true),
                TableColumn(name: "q", type: .integer, isNullable: true),
            ], foreignKeys: [ForeignKey(column: "o", references: "ord", onDelete: .cascade)])
        #expect(schema.primaryKeyIndex == nil && schema.primaryKeyIndexes == [0, 1] && schema.hasCompositeKey)
        #expect(schema.columns.map(\.isNullable) == [false, false, true], "a composite key's columns are NOT NULL")
        let create = try SQLRenderer.render(.createTable(schema), dialect: odd)
        #expect(
            create.sql == "CREATE TABLE IF NOT EXISTS `line` (`o` T_INTEGER NOT NULL, `s` T_TEXT NOT NULL, "
                + "`q` T_INTEGER, PRIMARY KEY (`o`, `s`), FOREIGN KEY (`o`) REFERENCES `ord` (`id`) ON DELETE CASCADE)")
    }
}

/// The double-quote dialect default, to test escaping with `"`.
struct SQLiteLikeDialect: Dialect {
    var name: String { "dq" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .limitMinusOne }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { "ANY" }
    var autoIncrementPrimaryKey: String { "INTEGER PRIMARY KEY" }
}

@Suite("SQL renderer: joins")
struct JoinRendererTests {
    @Test("joins qualify main-table columns and alias joined tables, even a table joined to itself")
    func selfJoin() throws {
        let s = Select(
            table: "user", selection: .refs([ColumnRef("id"), ColumnRef("name", table: "j1")]),
            joins: [
                Join(
                    .left, table: "user", alias: "j1",
                    on: .compare(.equal, .column("manager_id"), .column("id", table: "j1")))
            ],
            filter: .compare(.equal, .column("name", table: "j1"), .value(.text("Ann"))),
            order: [Ordering("name"), Ordering("name", .descending, table: "j1")])
        let r = try SQLRenderer.render(.select(s), dialect: SQLiteLikeDialect())
        #expect(
            r.sql
                == #"SELECT "user"."id", "j1"."name" FROM "user" LEFT JOIN "user" AS "j1" ON ("user"."manager_id" = "j1"."id") "#
                + #"WHERE ("j1"."name" = ?) ORDER BY "user"."name" ASC NULLS FIRST, "j1"."name" DESC NULLS LAST"#)
    }

    @Test("a joined column outside a join is a typed error, from the core before any driver")
    func joinedColumnOutsideJoin() {
        #expect(throws: StrataError.invalidQuery("column j1.a of a joined table outside a join")) {
            try StatementCheck.check(
                .delete(Delete(table: "t", filter: .compare(.equal, .column("a", table: "j1"), .value(.null)))))
        }
    }
}

@Suite("SQL renderer: binds without SQL")
struct BindsWithoutSQLTests {
    static let filter: SQLExpression = .and([
        .compare(.greater, .column("a"), .value(.integer(1))),
        .or([.like(.column("b"), "x%", caseInsensitive: true), .not(.isNull(.column("c")))]),
        .inList(.column("d"), [.text("p"), .text("q")]), .inList(.column("e"), []),
        .between(.column("f"), .value(.double(1.5)), .value(.double(2.5))),
        .unsafeRaw("g = ? OR h = ?", [.bool(true), .null]),
        .compare(.equal, .column("i", table: "j1"), .value(.text("z"))),
    ])

    static let joins = [
        Join(.inner, table: "u", alias: "j1", on: .compare(.equal, .column("a"), .column("b", table: "j1")))
    ]

    static let statements: [Statement] = [
        .select(
            Select(
                table: "t", selection: .columns(["a"]),
                joins: [Join(.left, table: "u", alias: "j1", on: .compare(.equal, .column("a"), .value(.integer(9))))],
                filter: filter, order: [Ordering("a")], limit: 10, offset: 5)),
        .select(Select(table: "t", selection: .count, joins: joins, filter: filter)),
        .select(Select(table: "t", selection: .count, joins: joins, filter: filter, limit: 3)),
        .select(Select(table: "t", selection: .columns(["a"]), offset: 2)),
        .insert(
            Insert(
                table: "t", columns: ["a", "b"], rows: [[.integer(1), .text("x")], [.integer(2), .null]],
                returning: "id")),
        .update(
            Update(
                table: "t", assignments: [Assignment("a", .integer(3)), Assignment("b", .null)],
                filter: .compare(.equal, .column("id"), .value(.integer(4))))),
        .delete(Delete(table: "t", filter: .inList(.column("a"), [.integer(1), .integer(2)], negated: true))),
    ]

    @Test("binds(of:) matches the renderer's binds for every statement kind", arguments: statements.indices)
    func matchesRenderer(_ index: Int) throws {
        let statement = Self.statements[index]
        let rendered = try SQLRenderer.render(statement, dialect: SQLiteLikeDialect())
        #expect(SQLRenderer.binds(of: statement) == rendered.binds)
    }
}
