// MemoryDriverTests: the memory driver's SQL semantics, driven through Statements and through the core.
import Foundation
import Strata
import StrataMemory
import Testing

// MARK: - Fixtures

/// Foundation has an `SQLExpression` too.
typealias Expr = Strata.SQLExpression

/// A hand-written model (no macro in this test target).
struct Note: Model, Equatable {
    var id: Int64?
    var title: String
    var score: Int?

    static let schema = TableSchema(
        name: "note",
        columns: [
            TableColumn(\Note.id, "id", primaryKey: true), TableColumn(\Note.title, "title"),
            TableColumn(\Note.score, "score"),
        ])

    static func columnName(for keyPath: PartialKeyPath<Note>) -> String? {
        switch keyPath {
        case \Note.id: "id"
        case \Note.title: "title"
        case \Note.score: "score"
        default: nil
        }
    }

    init(id: Int64? = nil, title: String, score: Int? = nil) {
        self.id = id
        self.title = title
        self.score = score
    }

    init(row: Row) throws {
        id = try row.decode(0)
        title = try row.decode(1)
        score = try row.decode(2)
    }

    var databaseValues: [DatabaseValue] { [id.databaseValue, title.databaseValue, score.databaseValue] }
}

/// `item(id pk, name text not null, score integer null, price double null, flag bool not null default false)`.
let itemSchema = TableSchema(
    name: "item",
    columns: [
        TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
        TableColumn(name: "name", type: .text, isNullable: false),
        TableColumn(name: "score", type: .integer, isNullable: true),
        TableColumn(name: "price", type: .double, isNullable: true),
        TableColumn(name: "flag", type: .bool, isNullable: false, schemaDefault: .bool(false)),
    ])

/// A fresh connection with an `item` table holding `(name, score)` rows.
func makeItems(_ rows: [(String, Int64?)] = []) throws -> any DatabaseConnection {
    let c = try MemoryDriver().connect()
    _ = try c.execute(.createTable(itemSchema)) { _ in }
    if !rows.isEmpty {
        let values: [[DatabaseValue]] = rows.map { [.text($0.0), $0.1.map(DatabaseValue.integer) ?? .null] }
        _ = try c.execute(.insert(Insert(table: "item", columns: ["name", "score"], rows: values))) { _ in }
    }
    return c
}

@discardableResult
func run(_ c: any DatabaseConnection, _ s: Statement) throws -> Int { try c.execute(s) { _ in } }

/// The rows of a SELECT as value arrays.
func fetch(
    _ c: any DatabaseConnection, _ table: String = "item", _ columns: [String] = ["name"], where filter: Expr? = nil,
    order: [Ordering] = [], limit: Int? = nil, offset: Int? = nil
) throws -> [[DatabaseValue]] {
    var out: [[DatabaseValue]] = []
    let select = Select(
        table: table, selection: .columns(columns), filter: filter, order: order, limit: limit, offset: offset)
    _ = try c.execute(.select(select)) { r in out.append((0..<r.columnCount).map { r.value(at: $0) }) }
    return out
}

/// The `name` of each selected item.
func names(
    _ c: any DatabaseConnection, where filter: Expr? = nil, order: [Ordering] = [], limit: Int? = nil,
    offset: Int? = nil
) throws -> [String] {
    try fetch(c, where: filter, order: order, limit: limit, offset: offset).map { row in
        if case .text(let s) = row[0] { return s }
        return "?"
    }
}

func count(
    _ c: any DatabaseConnection, _ table: String = "item", where filter: Expr? = nil, limit: Int? = nil,
    offset: Int? = nil
) throws -> Int64 {
    var n: Int64 = -1
    _ = try c.execute(.select(Select(table: table, selection: .count, filter: filter, limit: limit, offset: offset))) {
        r in
        if case .integer(let v) = r.value(at: 0) { n = v }
    }
    return n
}

func col(_ name: String) -> Expr { .column(name) }
func int(_ v: Int64) -> Expr { .value(.integer(v)) }

/// Asserts that `body` throws exactly `expected`.
func expectError(_ expected: StrataError, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void)
{
    do {
        try body()
        Issue.record("expected \(expected), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StrataError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

// MARK: - Tests

@Suite("Memory driver")
struct MemoryDriverTests {
    @Test("ids start at 1, follow the largest ever inserted, and are never reused")
    func autoIDs() throws {
        let c = try makeItems()
        var returned: [DatabaseValue] = []
        let n = try c.execute(
            .insert(Insert(table: "item", columns: ["name"], rows: [[.text("a")], [.text("b")]], returning: "id"))
        ) {
            returned.append($0.value(at: 0))
        }
        #expect(n == 2)
        #expect(returned == [.integer(1), .integer(2)])
        try run(c, .insert(Insert(table: "item", columns: ["id", "name"], rows: [[.integer(10), .text("x")]])))
        try run(c, .delete(Delete(table: "item", filter: .compare(.equal, col("id"), int(10)))))
        returned = []
        _ = try c.execute(.insert(Insert(table: "item", columns: ["name"], rows: [[.text("c")]], returning: "id"))) {
            returned.append($0.value(at: 0))
        }
        #expect(returned == [.integer(11)])
        expectError(.uniqueViolation(table: "item", columns: ["id"])) {
            try run(c, .insert(Insert(table: "item", columns: ["id", "name"], rows: [[.integer(1), .text("dup")]])))
        }
        #expect(try count(c) == 3)
    }

    @Test("a unique violation in a multi-row insert or update changes nothing")
    func uniqueAllOrNothing() throws {
        let c = try makeItems([("a", 1), ("b", 2)])
        try run(c, .createIndex(table: "item", Index(columns: ["name"], unique: true)))
        expectError(.uniqueViolation(table: "item", columns: ["name"])) {
            try run(
                c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("c")], [.text("d")], [.text("a")]])))
        }
        #expect(try names(c) == ["a", "b"])
        expectError(.uniqueViolation(table: "item", columns: ["name"])) {
            try run(c, .update(Update(table: "item", assignments: [Assignment("name", .text("z"))], filter: nil)))
        }
        #expect(try names(c) == ["a", "b"])
        // The failed insert burned no ids.
        var ids: [DatabaseValue] = []
        _ = try c.execute(.insert(Insert(table: "item", columns: ["name"], rows: [[.text("c")]], returning: "id"))) {
            ids.append($0.value(at: 0))
        }
        #expect(ids == [.integer(3)])
    }

    @Test("a unique index over duplicates is refused and not created; NULLs never collide")
    func uniqueIndexCreation() throws {
        let c = try makeItems([("a", 1), ("b", 1), ("c", nil), ("d", nil)])
        expectError(.uniqueViolation(table: "item", columns: ["score"])) {
            try run(c, .createIndex(table: "item", Index(columns: ["score"], unique: true)))
        }
        try run(c, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text("e"), .integer(1)]])))
        try run(c, .delete(Delete(table: "item", filter: .compare(.equal, col("name"), .value(.text("a"))))))
        try run(c, .delete(Delete(table: "item", filter: .compare(.equal, col("name"), .value(.text("e"))))))
        try run(c, .createIndex(table: "item", Index(columns: ["score"], unique: true)))
        try run(c, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text("f"), .null]])))
        #expect(try count(c, where: .isNull(col("score"))) == 3)
    }

    @Test("text compares by UTF-8 bytes: NFC and NFD spellings of é are different values")
    func nfcVersusNFD() throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        let c = try makeItems([(nfc, 1)])
        try run(c, .createIndex(table: "item", Index(columns: ["name"], unique: true)))
        try run(c, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text(nfd), .integer(2)]])))
        let matched = try fetch(c, "item", ["score"], where: .compare(.equal, col("name"), .value(.text(nfd))))
        #expect(matched == [[.integer(2)]])
        #expect(try count(c, where: .compare(.less, col("name"), .value(.text(nfc)))) == 1)  // "e" (0x65) < "é" (0xC3…)
    }

    @Test("lookups by primary key and unique index stay right after many deletes compact the table")
    func lookupsAfterCompaction() throws {
        let c = try makeItems((1...100).map { ("n\($0)", Int64($0)) })
        try run(c, .createIndex(table: "item", Index(columns: ["name"], unique: true)))
        for id in 1...100 where id % 5 != 0 {
            try run(c, .delete(Delete(table: "item", filter: .compare(.equal, col("id"), int(Int64(id))))))
        }
        #expect(try count(c) == 20)
        #expect(try names(c, limit: 3) == ["n5", "n10", "n15"])
        #expect(try names(c, where: .compare(.equal, col("id"), int(95))) == ["n95"])
        #expect(try names(c, where: .compare(.equal, col("id"), int(94))).isEmpty)
        #expect(
            try names(
                c,
                where: .and([
                    .compare(.equal, col("name"), .value(.text("n50"))), .compare(.notEqual, col("id"), int(1)),
                ])) == ["n50"])
        #expect(
            try names(
                c,
                where: .and([
                    .compare(.equal, col("name"), .value(.text("n50"))), .compare(.notEqual, col("id"), int(50)),
                ])
            ).isEmpty)
        #expect(try names(c, where: .inList(col("id"), [.integer(100), .integer(4), .integer(5)])) == ["n5", "n100"])
        expectError(.uniqueViolation(table: "item", columns: ["name"])) {
            try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("n60")]])))
        }
        var ids: [DatabaseValue] = []
        _ = try c.execute(.insert(Insert(table: "item", columns: ["name"], rows: [[.text("n1")]], returning: "id"))) {
            ids.append($0.value(at: 0))
        }
        #expect(ids == [.integer(101)])
    }

    @Test("comparisons with NULL are unknown; NOT, AND and OR follow Kleene logic")
    func threeValuedLogic() throws {
        let c = try makeItems([("five", 5), ("six", 6), ("none", nil)])
        #expect(try names(c, where: .compare(.notEqual, col("score"), int(5))) == ["six"])
        #expect(try names(c, where: .not(.compare(.equal, col("score"), int(5)))) == ["six"])
        #expect(
            try names(c, where: .or([.compare(.greater, col("score"), int(5)), .constant(true)])) == [
                "five", "six", "none",
            ])
        #expect(
            try names(c, where: .not(.and([.compare(.greater, col("score"), int(5)), .constant(false)]))) == [
                "five", "six", "none",
            ])
        #expect(
            try names(c, where: .not(.or([.compare(.greater, col("score"), int(5)), .constant(false)]))) == ["five"])
        #expect(try names(c, where: .isNull(col("score"))) == ["none"])
        #expect(try names(c, where: .isNull(col("score"), negated: true)) == ["five", "six"])
        #expect(try names(c, where: .between(col("score"), int(5), int(5))) == ["five"])
        #expect(try names(c, where: .between(col("score"), int(5), int(5), negated: true)) == ["six"])
    }

    @Test("IN and NOT IN with NULLs, and empty lists")
    func inLists() throws {
        let c = try makeItems([("one", 1), ("two", 2), ("none", nil)])
        #expect(try names(c, where: .inList(col("score"), [.integer(1), .null])) == ["one"])
        #expect(try names(c, where: .inList(col("score"), [.integer(2), .null], negated: true)).isEmpty)
        #expect(try names(c, where: .inList(col("score"), [.integer(2)], negated: true)) == ["one"])
        #expect(try names(c, where: .inList(col("score"), [])).isEmpty)
        #expect(try names(c, where: .inList(col("score"), [], negated: true)) == ["one", "two", "none"])
        let many = (2...40).map { DatabaseValue.integer(Int64($0)) }
        #expect(try names(c, where: .inList(col("score"), many)) == ["two"])
        #expect(try names(c, where: .inList(col("id"), [.integer(3), .integer(1), .integer(99)])) == ["one", "none"])
    }

    @Test("LIKE: % and _ over Unicode scalars, backslash escapes, case-sensitive")
    func likeEscapes() throws {
        let c = try makeItems([
            ("a_c", 1), ("abc", 2), ("50%", 3), ("caf\u{E9}", 4), ("cafe\u{301}", 5), ("a\\b", 6), ("", 7),
        ])
        // Scores, not names: Swift's `==` would call the two spellings of "café" equal.
        func like(_ p: String, not: Bool = false) throws -> [Int64] {
            try fetch(c, "item", ["score"], where: .like(col("name"), p, negated: not)).map { row in
                if case .integer(let i) = row[0] { return i }
                return -1
            }
        }
        #expect(try like("a\\_c") == [1])
        #expect(try like("a_c") == [1, 2])
        #expect(try like("%\\%") == [3])
        #expect(try like("caf_") == [4])
        #expect(try like("caf__") == [5])
        #expect(try like("a\\\\b") == [6])
        #expect(try like("%") == [1, 2, 3, 4, 5, 6, 7])
        #expect(try like("ABC").isEmpty)
        #expect(try like("a%", not: true) == [3, 4, 5, 7])
        // A trailing lone escape is refused by the core before any driver sees the statement (PostgreSQL raises an
        // error for it); the driver itself matches nothing with it.
        #expect(throws: StrataError.invalidQuery("LIKE pattern ends with the escape character \\")) {
            try StatementCheck.check(.delete(Delete(table: "item", filter: .like(col("name"), "abc\\"))))
        }
        #expect(try like("abc\\").isEmpty)
    }

    @Test("case-insensitive LIKE folds ASCII letters only; long patterns do not backtrack exponentially")
    func likeCaseAndComplexity() throws {
        let c = try makeItems([("ÉCOLE", 1), ("Abc", 2), ("école", 3), (String(repeating: "a", count: 3000), 4)])
        #expect(
            try names(c, where: .like(col("name"), "a%", caseInsensitive: true)) == [
                "Abc", String(repeating: "a", count: 3000),
            ])
        #expect(try names(c, where: .like(col("name"), "é%", caseInsensitive: true)) == ["école"])
        #expect(try names(c, where: .like(col("name"), "%cole", caseInsensitive: true)) == ["ÉCOLE", "école"])
        #expect(try names(c, where: .like(col("name"), "%a%a%a%a%a%a%a%a%a%a%b")).isEmpty)
        #expect(try count(c, where: .like(col("name"), "%a%a%a%a%a%a%a%a%a%a%")) == 1)
    }

    @Test("ORDER BY: NULLs first ascending and last descending, code point order, stable ties")
    func ordering() throws {
        let c = try makeItems([("b", 2), ("é", nil), ("a", 1), ("B", 2), ("_", nil), ("Z", 1)])
        #expect(try names(c, order: [Ordering("score")]) == ["é", "_", "a", "Z", "b", "B"])
        #expect(try names(c, order: [Ordering("score", .descending)]) == ["b", "B", "a", "Z", "é", "_"])
        #expect(try names(c, order: [Ordering("name")]) == ["B", "Z", "_", "a", "b", "é"])
        #expect(
            try names(c, order: [Ordering("score", .descending), Ordering("name", .descending)]) == [
                "b", "B", "a", "Z", "é", "_",
            ])
        #expect(try names(c, order: [Ordering("score"), Ordering("name")], limit: 3, offset: 1) == ["é", "Z", "a"])
    }

    @Test("LIMIT, OFFSET and COUNT respect each other and the filter")
    func limitOffsetCount() throws {
        let c = try makeItems((1...10).map { ("n\($0)", Int64($0)) })
        #expect(try names(c, limit: 3) == ["n1", "n2", "n3"])
        #expect(try names(c, limit: 2, offset: 8) == ["n9", "n10"])
        #expect(try names(c, offset: 9) == ["n10"])
        #expect(try names(c, limit: 0).isEmpty)
        #expect(try count(c) == 10)
        #expect(try count(c, where: .compare(.greater, col("score"), int(3))) == 7)
        #expect(try count(c, where: .compare(.greater, col("score"), int(3)), limit: 5) == 5)
        #expect(try count(c, where: .compare(.greater, col("score"), int(3)), limit: 5, offset: 4) == 3)
        #expect(try count(c, offset: 20) == 0)
    }

    @Test("UPDATE returns rows matched and DELETE rows deleted")
    func updateDeleteCounts() throws {
        let c = try makeItems([("a", 1), ("b", 1), ("c", 2)])
        let updated = try run(
            c,
            .update(
                Update(
                    table: "item", assignments: [Assignment("score", .integer(1))],
                    filter: .compare(.equal, col("score"), int(1)))))
        #expect(updated == 2)
        #expect(
            try run(
                c,
                .update(
                    Update(
                        table: "item", assignments: [Assignment("score", .integer(9))],
                        filter: .compare(.equal, col("id"), int(3))))) == 1)
        #expect(try fetch(c, "item", ["score"], where: .compare(.equal, col("id"), int(3))) == [[.integer(9)]])
        #expect(
            try run(
                c,
                .update(
                    Update(
                        table: "item", assignments: [Assignment("score", .integer(0))],
                        filter: .compare(.equal, col("id"), int(42))))) == 0)
        #expect(try run(c, .delete(Delete(table: "item", filter: .compare(.less, col("score"), int(5))))) == 2)
        #expect(try run(c, .delete(Delete(table: "item", filter: nil))) == 1)
        #expect(try count(c) == 0)
    }

    @Test("NOT NULL: explicit NULL and omitted columns without default are refused; defaults fill in")
    func notNull() throws {
        let c = try makeItems()
        expectError(.notNullViolation(table: "item", column: "name")) {
            try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.null]])))
        }
        expectError(.notNullViolation(table: "item", column: "name")) {
            try run(c, .insert(Insert(table: "item", columns: ["score"], rows: [[.integer(1)]])))
        }
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("x")]])))
        #expect(try fetch(c, "item", ["id", "flag", "score"]) == [[.integer(1), .bool(false), .null]])
        expectError(.notNullViolation(table: "item", column: "name")) {
            try run(c, .update(Update(table: "item", assignments: [Assignment("name", .null)], filter: nil)))
        }
        #expect(try names(c) == ["x"])
    }

    @Test("values are type-checked and normalized per column type, like PostgreSQL")
    func typeChecks() throws {
        let c = try MemoryDriver().connect()
        try run(
            c,
            .createTable(
                TableSchema(
                    name: "t",
                    columns: [
                        TableColumn(name: "i", type: .integer, isNullable: true),
                        TableColumn(name: "d", type: .double, isNullable: true),
                        TableColumn(name: "m", type: .decimal, isNullable: true),
                        TableColumn(name: "j", type: .json, isNullable: true),
                        TableColumn(name: "at", type: .date, isNullable: true),
                        TableColumn(name: "b", type: .bool, isNullable: true),
                    ])))
        expectError(.typeMismatch(table: "t", column: "i", detail: "expected integer, got text")) {
            try run(c, .insert(Insert(table: "t", columns: ["i"], rows: [[.text("42")]])))
        }
        expectError(.typeMismatch(table: "t", column: "b", detail: "expected bool, got integer")) {
            try run(c, .insert(Insert(table: "t", columns: ["b"], rows: [[.integer(1)]])))
        }
        expectError(.typeMismatch(table: "t", column: "j", detail: "invalid JSON text")) {
            try run(c, .insert(Insert(table: "t", columns: ["j"], rows: [[.text("{\"a\": ")]])))
        }
        let when = Date(timeIntervalSince1970: 1_700_000_000.123_456_789)
        try run(
            c,
            .insert(
                Insert(
                    table: "t", columns: ["i", "d", "m", "j", "at", "b"],
                    rows: [
                        [
                            .integer(.max), .integer(3), .integer(7), .text("{\"a\": [1, 2.5e3, \"x\"]}"), .date(when),
                            .bool(true),
                        ]
                    ])))
        let row = try fetch(c, "t", ["i", "d", "m", "j", "at", "b"])
        #expect(
            row == [
                [
                    .integer(.max), .double(3), .decimal(7), .json("{\"a\": [1, 2.5e3, \"x\"]}"),
                    .date(DatabaseValue.roundedToMicroseconds(when)), .bool(true),
                ]
            ])
        #expect(try count(c, "t", where: .compare(.equal, col("d"), int(3))) == 1)  // numbers compare across kinds
        expectError(.typeMismatch(table: "t", column: "d", detail: "expected double, got text")) {
            try run(
                c, .update(Update(table: "t", assignments: [Assignment("d", .text("1"))], filter: .constant(false))))
        }
    }

    @Test("unknown tables and columns are typed errors, even on empty tables")
    func unknownNames() throws {
        let c = try makeItems()
        expectError(.noSuchTable("nope")) { _ = try fetch(c, "nope") }
        expectError(.unknownColumn(model: "item", column: "nope")) { _ = try fetch(c, "item", ["nope"]) }
        expectError(.unknownColumn(model: "item", column: "nope")) {
            _ = try names(c, where: .compare(.equal, col("nope"), int(1)))
        }
        expectError(.unknownColumn(model: "item", column: "nope")) { _ = try names(c, order: [Ordering("nope")]) }
        expectError(.unknownColumn(model: "item", column: "nope")) {
            try run(c, .insert(Insert(table: "item", columns: ["nope"], rows: [[.integer(1)]])))
        }
        #expect(try c.columns(of: "item") == ["id", "name", "score", "price", "flag"])
        #expect(try c.columns(of: "nope") == nil)
    }

    @Test("a raw statement is unsupported; a raw condition runs when parsed, else names its first odd token")
    func rawSQLUnsupported() throws {
        let c = try makeItems([("a", 1), ("b", 2)])
        expectError(.unsupported(feature: "raw SQL", driver: "memory")) {
            _ = try c.executeRaw("SELECT 1", []) { _ in }
        }
        #expect(try names(c, where: .unsafeRaw("score > ?", [.integer(1)])) == ["b"])
        expectError(.unsupported(feature: "raw SQL token 'abs'", driver: "memory")) {
            _ = try names(c, where: .unsafeRaw("abs(score) > ?", [.integer(0)]))
        }
        expectError(.unknownColumn(model: "item", column: "nope")) {
            _ = try names(c, where: .unsafeRaw("nope = 1", []))
        }
    }

    @Test("ROLLBACK TO SAVEPOINT restores rows, indexes and id counters exactly, and keeps the savepoint")
    func savepointRollback() throws {
        let c = try makeItems([("a", 1), ("b", 2)])
        try run(c, .begin)
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("c")]])))
        try run(c, .savepoint("sp"))
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("d")], [.text("e")]])))
        try run(c, .update(Update(table: "item", assignments: [Assignment("score", .integer(7))], filter: nil)))
        try run(c, .delete(Delete(table: "item", filter: .compare(.equal, col("name"), .value(.text("a"))))))
        try run(c, .createIndex(table: "item", Index(columns: ["name"], unique: true)))
        try run(c, .addColumn(table: "item", TableColumn(name: "extra", type: .text, isNullable: true)))
        try run(c, .rollbackToSavepoint("sp"))
        #expect(
            try fetch(c, "item", ["id", "name", "score"]) == [
                [.integer(1), .text("a"), .integer(1)], [.integer(2), .text("b"), .integer(2)],
                [.integer(3), .text("c"), .null],
            ])
        #expect(try c.columns(of: "item") == ["id", "name", "score", "price", "flag"])
        // The unique index is gone and the id counter is back at 3.
        var ids: [DatabaseValue] = []
        _ = try c.execute(.insert(Insert(table: "item", columns: ["name"], rows: [[.text("a")]], returning: "id"))) {
            ids.append($0.value(at: 0))
        }
        #expect(ids == [.integer(4)])
        // The savepoint is still there.
        try run(c, .rollbackToSavepoint("sp"))
        try run(c, .releaseSavepoint("sp"))
        expectError(.transactionMisuse("no such savepoint: sp")) { try run(c, .releaseSavepoint("sp")) }
        try run(c, .commit)
        #expect(try names(c) == ["a", "b", "c"])
    }

    @Test("ROLLBACK undoes schema changes too; a failed statement leaves the transaction usable")
    func transactionRollback() throws {
        let c = try makeItems([("a", 1)])
        try run(c, .begin)
        expectError(.transactionMisuse("BEGIN inside a transaction")) { try run(c, .begin) }
        try run(
            c,
            .createTable(
                TableSchema(
                    name: "other",
                    columns: [TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)])))
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("b")]])))
        try run(c, .dropTable("item"))
        try run(c, .rollback)
        #expect(try c.columns(of: "other") == nil)
        #expect(try names(c) == ["a"])

        try run(c, .begin)
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("b")]])))
        expectError(.uniqueViolation(table: "item", columns: ["id"])) {
            try run(
                c,
                .insert(
                    Insert(
                        table: "item", columns: ["id", "name"],
                        rows: [[.integer(3), .text("c")], [.integer(1), .text("x")]])))
        }
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("c")]])))
        try run(c, .commit)
        #expect(
            try fetch(c, "item", ["id", "name"]) == [
                [.integer(1), .text("a")], [.integer(2), .text("b")], [.integer(3), .text("c")],
            ])
        expectError(.transactionMisuse("COMMIT without a transaction")) { try run(c, .commit) }
    }

    @Test("ADD COLUMN backfills rows; NOT NULL without backfill only on an empty table")
    func addColumn() throws {
        let c = try makeItems([("a", 1)])
        try run(
            c,
            .addColumn(
                table: "item", TableColumn(name: "rank", type: .integer, isNullable: false, backfill: .integer(5))))
        try run(c, .addColumn(table: "item", TableColumn(name: "note", type: .text, isNullable: true)))
        expectError(.notNullViolation(table: "item", column: "must")) {
            try run(c, .addColumn(table: "item", TableColumn(name: "must", type: .text, isNullable: false)))
        }
        #expect(try c.columns(of: "item") == ["id", "name", "score", "price", "flag", "rank", "note"])
        try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("b")]])))
        #expect(
            try fetch(c, "item", ["name", "rank", "note"]) == [
                [.text("a"), .integer(5), .null], [.text("b"), .integer(5), .null],
            ])

        let empty = try makeItems()
        try run(empty, .addColumn(table: "item", TableColumn(name: "must", type: .text, isNullable: false)))
        #expect(try empty.columns(of: "item")?.last == "must")
    }

    @Test("CREATE TABLE and CREATE INDEX are IF NOT EXISTS; DROP TABLE is IF EXISTS")
    func ddlIdempotence() throws {
        let c = try makeItems([("a", 1)])
        try run(c, .createTable(itemSchema))
        #expect(try count(c) == 1)
        try run(c, .createIndex(table: "item", Index(columns: ["name"], unique: true)))
        try run(c, .createIndex(table: "item", Index(columns: ["name"], unique: true)))
        try run(c, .dropTable("item"))
        try run(c, .dropTable("item"))
        #expect(try c.columns(of: "item") == nil)
        expectError(.invalidQuery("primary key id must be an integer, a UUID or text")) {
            // The core's check, which every Transaction runs before the statement reaches this driver.
            try StatementCheck.check(
                .createTable(
                    TableSchema(
                        name: "bad",
                        columns: [TableColumn(name: "id", type: .double, isNullable: false, isPrimaryKey: true)])))
        }
    }

    @Test("named stores are shared between drivers; unnamed stores are private")
    func namedStores() throws {
        let name = "shared-\(UUID().uuidString)"
        let a = try MemoryDriver(storeName: name).connect()
        try run(a, .createTable(itemSchema))
        let b = try MemoryDriver(storeName: name).connect()
        #expect(try b.columns(of: "item") != nil)
        #expect(try MemoryDriver().connect().columns(of: "item") == nil)
        // While a holds a transaction, b reads what is committed (see MemoryConcurrencyTests).
        try run(a, .begin)
        try run(a, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("uncommitted")]])))
        #expect(try count(b) == 0)
        try run(a, .commit)
        #expect(try count(b) == 1)
    }

    @Test("a row callback may run statements on the same connection")
    func reentrantRowCallback() throws {
        let c = try makeItems([("a", 1), ("b", 2)])
        var inner: [Int64] = []
        _ = try c.execute(.select(Select(table: "item", selection: .columns(["id"])))) { _ in
            inner.append(try count(c))
            try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("x")]])))
        }
        #expect(inner == [2, 3])
    }

    @Test("foreign keys: orphans refused, NO ACTION blocks, CASCADE and SET NULL apply, checks run at statement end")
    func foreignKeys() throws {
        let c = try MemoryDriver().connect()
        func table(_ name: String, _ target: String, _ action: ForeignKey.Action) -> TableSchema {
            TableSchema(
                name: name,
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                    TableColumn(name: "ref", type: .integer, isNullable: true),
                ],
                foreignKeys: [ForeignKey(column: "ref", references: target, onDelete: action)])
        }
        func refs(_ name: String) throws -> [DatabaseValue] { try fetch(c, name, ["ref"]).map { $0[0] } }
        try run(
            c,
            .createTable(
                TableSchema(
                    name: "parent",
                    columns: [TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)])))
        for (name, action) in [("child", ForeignKey.Action.cascade), ("keep", .noAction), ("loose", .setNull)] {
            try run(c, .createTable(table(name, "parent", action)))
        }
        try run(
            c, .insert(Insert(table: "parent", columns: ["id"], rows: [[.integer(1)], [.integer(2)], [.integer(3)]])))
        expectError(.foreignKeyViolation(table: "child")) {
            try run(c, .insert(Insert(table: "child", columns: ["ref"], rows: [[.integer(1)], [.integer(99)]])))
        }
        #expect(try count(c, "child") == 0)
        try run(c, .insert(Insert(table: "child", columns: ["ref"], rows: [[.integer(1)], [.integer(2)], [.null]])))
        try run(c, .insert(Insert(table: "keep", columns: ["ref"], rows: [[.integer(3)]])))
        try run(c, .insert(Insert(table: "loose", columns: ["ref"], rows: [[.integer(1)], [.integer(2)]])))
        expectError(.foreignKeyViolation(table: "keep")) {
            try run(c, .delete(Delete(table: "parent", filter: .compare(.greater, col("id"), int(1)))))
        }
        #expect(try count(c, "parent") == 3)
        #expect(try refs("child") == [.integer(1), .integer(2), .null])
        #expect(try run(c, .delete(Delete(table: "parent", filter: .compare(.equal, col("id"), int(1))))) == 1)
        #expect(try refs("child") == [.integer(2), .null])
        #expect(try refs("loose") == [.null, .integer(2)])
        expectError(.foreignKeyViolation(table: "keep")) {
            try run(
                c,
                .update(
                    Update(
                        table: "parent", assignments: [Assignment("id", .integer(30))],
                        filter: .compare(.equal, col("id"), int(3)))))
        }
        // Dropping a table others reference is refused, as PostgreSQL refuses it (SQLite would delete its rows
        // first, cascading into child's and loose's): nothing changes.
        do {
            _ = try run(c, .dropTable("parent"))
            Issue.record("a table other tables reference was dropped")
        } catch StrataError.invalidQuery(let text) {
            #expect(text.hasPrefix("cannot drop table parent: table "))
        }
        #expect(try count(c, "parent") == 2)
        #expect(try refs("child") == [.integer(2), .null])
        // A self-reference may point forward within one statement, and a whole cycle may be deleted at once.
        try run(c, .createTable(table("node", "node", .noAction)))
        try run(
            c,
            .insert(
                Insert(
                    table: "node", columns: ["id", "ref"],
                    rows: [[.integer(1), .integer(2)], [.integer(2), .integer(1)]])))
        expectError(.foreignKeyViolation(table: "node")) {
            try run(c, .delete(Delete(table: "node", filter: .compare(.equal, col("id"), int(1)))))
        }
        #expect(try run(c, .delete(Delete(table: "node", filter: nil))) == 2)
    }

    @Test("INNER, LEFT, RIGHT and FULL joins, with filters and order on joined columns")
    func joins() throws {
        let c = try MemoryDriver().connect()
        let id = TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)
        try run(
            c,
            .createTable(
                TableSchema(name: "grp", columns: [id, TableColumn(name: "title", type: .text, isNullable: false)])))
        try run(
            c,
            .createTable(
                TableSchema(
                    name: "usr",
                    columns: [
                        id, TableColumn(name: "name", type: .text, isNullable: false),
                        TableColumn(name: "grp_id", type: .integer, isNullable: true),
                    ])))
        try run(c, .insert(Insert(table: "grp", columns: ["title"], rows: [[.text("A")], [.text("B")], [.text("C")]])))
        try run(
            c,
            .insert(
                Insert(
                    table: "usr", columns: ["name", "grp_id"],
                    rows: [
                        [.text("u1"), .integer(1)], [.text("u2"), .integer(1)], [.text("u3"), .integer(2)],
                        [.text("u4"), .null],
                    ])))
        func joined(_ kind: Join.Kind, where filter: Expr? = nil, order: [Ordering] = []) throws -> [[DatabaseValue]] {
            let join = Join(
                kind, table: "grp", alias: "g", on: .compare(.equal, col("grp_id"), .column("id", table: "g")))
            var out: [[DatabaseValue]] = []
            let select = Select(
                table: "usr", selection: .refs([ColumnRef("name"), ColumnRef("title", table: "g")]), joins: [join],
                filter: filter, order: order)
            _ = try c.execute(.select(select)) { r in out.append([r.value(at: 0), r.value(at: 1)]) }
            return out
        }
        let inner: [[DatabaseValue]] = [
            [.text("u1"), .text("A")], [.text("u2"), .text("A")], [.text("u3"), .text("B")],
        ]
        #expect(try joined(.inner) == inner)
        #expect(try joined(.left) == inner + [[.text("u4"), .null]])
        #expect(try joined(.right) == inner + [[.null, .text("C")]])
        #expect(try joined(.full) == inner + [[.text("u4"), .null], [.null, .text("C")]])
        #expect(try joined(.left, where: .isNull(.column("title", table: "g"))) == [[.text("u4"), .null]])
        #expect(
            try joined(.full, order: [Ordering("title", .descending, table: "g"), Ordering("name", .descending)])
                == [
                    [.null, .text("C")], [.text("u3"), .text("B")], [.text("u2"), .text("A")],
                    [.text("u1"), .text("A")], [.text("u4"), .null],
                ])
        // Refused by the core before any driver sees the query.
        expectError(.invalidQuery("join alias 'usr' is the main table's name")) {
            let join = Join(.inner, table: "grp", alias: "usr", on: .constant(true))
            try StatementCheck.check(.select(Select(table: "usr", selection: .columns(["name"]), joins: [join])))
        }
        expectError(.invalidQuery("column g.title of a joined table outside a join")) {
            try StatementCheck.check(
                .delete(
                    Delete(table: "usr", filter: .compare(.equal, .column("title", table: "g"), .value(.text("A"))))))
        }
    }

    @Test("models save, query and roll back through the core")
    func throughTheCore() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        try await db.migrate(Note.self)
        var a = Note(title: "alpha", score: 3)
        try await a.save(on: db)
        #expect(a.id == 1)
        a.score = 4
        try await a.save(on: db)
        try await db.transaction { tx in
            var b = Note(title: "beta")
            try b.save(tx)
            try tx.savepoint { tx in
                var c = Note(title: "gamma", score: 9)
                try c.save(tx)
                throw Rollback()
            }
        }
        let all = try await Note.query(on: db).order(\.score, .descending).all()
        #expect(all == [Note(id: 1, title: "alpha", score: 4), Note(id: 2, title: "beta", score: nil)])
        #expect(try await Note.find(1, on: db)?.title == "alpha")
        #expect(try await Note.query(on: db).where(.like(\.title, "%ta")).count() == 1)
        await #expect(throws: StrataError.self) {
            try await db.transaction { tx in
                var d = Note(title: "delta")
                try d.save(tx)
                _ = try tx.execute(
                    .insert(Insert(table: "note", columns: ["id", "title"], rows: [[.integer(1), .text("dup")]])))
            }
        }
        #expect(try await Note.query(on: db).count() == 2)
        await #expect(throws: StrataError.unsupported(feature: "raw SQL", driver: "memory")) {
            try await db.unsafeRawExecute("SELECT 1")
        }
    }
}
