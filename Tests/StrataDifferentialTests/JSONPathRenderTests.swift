// JSONPathRenderTests: the exact SQL of JSON paths on SQLite and PostgreSQL, the memory driver's answers, the index
// DDL, and the generator's share of reads by a path.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

/// The document of a ``JSONEntry``.
struct JSONEntryPrefs: Codable, Hashable, Sendable, DatabaseValueConvertible {
    var theme: String
    var size: Int
    var tags: [String]
}

@Model(table: "jentry") struct JSONEntry {
    var id: Int64?
    var title: String
    var prefs: JSONEntryPrefs
    static var indexes: [Index] { [.on(json(\JSONEntry.prefs, "size", as: Int.self))] }
}

@Suite("SQL renderer: JSON paths")
struct JSONPathRenderTests {
    /// The statements `body` runs on a memory database holding three entries, rendered for SQLite and PostgreSQL.
    static func rendered(_ body: (Database) async throws -> Void) async throws -> (sqlite: [String], pg: [String]) {
        let driver = LoggingDriver()
        let db = Database(driver: driver)
        try await db.migrate(JSONEntry.self)
        try await db.transaction { tx in
            for (title, theme, size, tags) in [
                ("a", "dark", 12, ["x"]), ("b", "light", 16, []), ("c", "dark", 14, ["y", "z"]),
            ] {
                var e = JSONEntry(title: title, prefs: JSONEntryPrefs(theme: theme, size: size, tags: tags))
                try e.save(tx)
            }
        }
        _ = driver.log.take()
        try await body(db)
        let statements = driver.log.take()
        return (
            try statements.map { try SQLRenderer.render($0, dialect: SQLiteDialect()).sql },
            try statements.map { try SQLRenderer.render($0, dialect: PostgresDialect()).sql }
        )
    }

    static let sqliteTheme =
        #"CASE WHEN json_type("prefs", '$."theme"') = 'text' THEN json_extract("prefs", '$."theme"') END"#
    static let sqliteSize =
        #"CASE WHEN json_type("prefs", '$."size"') = 'integer' AND typeof(json_extract("prefs", '$."size"'))"#
        + #" = 'integer' THEN json_extract("prefs", '$."size"') END"#
    static let pgTheme =
        #"CASE WHEN jsonb_typeof("prefs" -> 'theme') = 'string' THEN ("prefs" ->> 'theme') COLLATE "C" END"#
    static let pgSize =
        #"CASE WHEN jsonb_typeof("prefs" -> 'size') <> 'number' OR ("prefs" ->> 'size') !~ '^-?[0-9]+$' THEN NULL"#
        + #" WHEN ("prefs" ->> 'size')::numeric BETWEEN -9223372036854775808 AND 9223372036854775807 THEN"#
        + #" ("prefs" ->> 'size')::bigint END"#

    @Test("a text path filters and an integer path orders, NULLs last descending on PostgreSQL")
    func filterAndOrder() async throws {
        var titles: [String] = []
        let (sqlite, pg) = try await Self.rendered { db in
            titles = try await JSONEntry.query(on: db).where(json(\.prefs, "theme", as: String.self) == "dark")
                .order(json(\.prefs, "size", as: Int.self), .descending).all().map(\.title)
        }
        #expect(titles == ["c", "a"])
        let columns = #"SELECT "id", "title", "prefs" FROM "jentry""#
        #expect(sqlite == [columns + " WHERE (" + Self.sqliteTheme + " = ?) ORDER BY " + Self.sqliteSize + " DESC"])
        #expect(pg == [columns + " WHERE (" + Self.pgTheme + " = $1) ORDER BY " + Self.pgSize + " DESC NULLS LAST"])
    }

    @Test("nested keys and indexes, doubles and bools, selected as items; keys are quoted literals")
    func selectItems() async throws {
        var rows: [(String, String?, Double?, Bool?)] = []
        let (sqlite, pg) = try await Self.rendered { db in
            rows = try await JSONEntry.query(on: db).order(\.id).select(
                .column(\.title), .json(\.prefs, "tags", 1, as: String.self), .json(\.prefs, "size", as: Double.self),
                .json(\.prefs, "it's", as: Bool.self))
        }
        #expect(rows.map(\.0) == ["a", "b", "c"])
        #expect(rows.map(\.1) == [nil, nil, "z"])
        #expect(rows.map(\.2) == [12, 16, 14])
        #expect(rows.map(\.3) == [nil, nil, nil])
        #expect(
            sqlite == [
                #"SELECT "title", CASE WHEN json_type("prefs", '$."tags"[1]') = 'text' THEN json_extract("prefs","#
                    + #" '$."tags"[1]') END, CASE WHEN json_type("prefs", '$."size"') IN ('integer', 'real') THEN"#
                    + #" CAST(json_extract("prefs", '$."size"') AS REAL) END, CASE WHEN"#
                    + #" json_type("prefs", '$."it''s"') IN ('true', 'false') THEN json_extract("prefs", '$."it''s"')"#
                    + #" END FROM "jentry" ORDER BY "id" ASC"#
            ])
        #expect(
            pg == [
                #"SELECT "title", CASE WHEN jsonb_typeof("prefs" -> 'tags') = 'array' THEN CASE WHEN"#
                    + #" jsonb_typeof("prefs" -> 'tags' -> 1) = 'string' THEN ("prefs" -> 'tags'"#
                    + #" ->> 1) COLLATE "C" END END, CASE WHEN jsonb_typeof("prefs" -> 'size') = 'number' THEN ("prefs""#
                    + #" ->> 'size')::double precision END, CASE WHEN jsonb_typeof("prefs" -> 'it''s') = 'boolean'"#
                    + #" THEN"#
                    + #" ("prefs" ->> 'it''s')::boolean END FROM "jentry" ORDER BY "id" ASC"#
            ])
    }

    @Test("an index on a path holds the whole typed read, NULLS FIRST on PostgreSQL")
    func indexDDL() throws {
        let index = Index.on(json(\JSONEntry.prefs, "size", as: Int.self))
        #expect(index.resolvedName(table: "jentry") == "jentry_prefs_size_idx")
        let statement = Statement.createIndex(table: "jentry", index)
        try StatementCheck.check(statement)
        #expect(
            try SQLRenderer.render(statement, dialect: SQLiteDialect()).sql
                == #"CREATE INDEX IF NOT EXISTS "jentry_prefs_size_idx" ON "jentry" (("# + Self.sqliteSize + "))")
        #expect(
            try SQLRenderer.render(statement, dialect: PostgresDialect()).sql
                == #"CREATE INDEX IF NOT EXISTS "jentry_prefs_size_idx" ON "jentry" (("# + Self.pgSize
                + ") NULLS FIRST)")
        var unique = index
        unique.isUnique = true
        #expect(throws: StrataError.invalidQuery("index jentry_prefs_size_key: a unique index on a JSON path")) {
            try StatementCheck.check(.createIndex(table: "jentry", unique))
        }
        let bad = Index.on(json(\JSONEntry.title, "x", as: Int.self))
        #expect(throws: StrataError.self) { try StatementCheck.check(.createIndex(table: "jentry", bad)) }
    }

    @Test("the core refuses a bad path before any driver, naming the part")
    func refusals() throws {
        func check(_ path: JSONPath) throws {
            try StatementCheck.check(
                .select(Select(table: "t", selection: .count, filter: .isNull(.jsonPath(.column("doc"), path)))))
        }
        #expect(throws: StrataError.invalidQuery("JSON path on doc has no step")) { try check(JSONPath([], as: .text)) }
        #expect(throws: StrataError.invalidQuery("JSON path doc.a[-2]: index -2 at step 2 is negative")) {
            try check(JSONPath(["a", -2], as: .integer))
        }
        #expect(throws: StrataError.invalidQuery("JSON path doc.: step 1 is an empty key")) {
            try check(JSONPath([""], as: .bool))
        }
        #expect(throws: StrataError.self) { try check(JSONPath(["a\"b"], as: .text)) }
        #expect(throws: StrataError.self) { try check(JSONPath(["a\u{0}b"], as: .text)) }
        #expect(throws: StrataError.invalidQuery("a JSON path ($.a as text) reads a column, not a computed value")) {
            try StatementCheck.check(
                .select(
                    Select(
                        table: "t", selection: .count,
                        filter: .isNull(.jsonPath(.value(.json("{}")), JSONPath(["a"], as: .text))))))
        }
    }
}

@Suite("Differential generator: JSON paths")
struct JSONPathGeneratorTests {
    @Test("a share of generated reads filter, order or select by a path, every type drawn")
    func share() {
        var withPath = 0
        var total = 0
        var types: Set<JSONPath.ValueType> = []
        for s in GeneratedReads.sample(seed: 11) {
            total += 1
            guard s.readsJSONPath else { continue }
            withPath += 1
            #expect(s.joins.isEmpty && s.groupBy.isEmpty && s.compound == nil)
            func collect(_ n: SQLExpression.Node) {
                switch n {
                case .jsonPath(_, let p): types.insert(p.type)
                case .and(let items): items.forEach(collect)
                case .compare(_, let l, _), .isNull(let l, _): collect(l)
                default: break
                }
            }
            s.filter.map { collect($0.node) }
            s.order.forEach { $0.expression.map { collect($0.node) } }
            if case .items(let items) = s.selection {
                for case .expression(let e) in items { collect(e.node) }
            }
        }
        let share = Double(withPath) / Double(total)
        #expect(share > 0.02 && share < 0.2, "JSON paths: \(withPath) of \(total)")
        #expect(types == [.text, .integer, .double, .bool])
        print("JSON paths: \(withPath) of \(total) generated reads")
    }
}
