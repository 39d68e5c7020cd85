// SearchRenderTests: the exact SQL of full-text search on SQLite and PostgreSQL, the memory driver's answers, and
// the generator's share of reads that search.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

@Model(table: "sarticle") struct SearchArticle {
    var id: Int64?
    var title: String
    var body: String?
    var searchDocument: String = ""
    static var searchable: SearchableColumns<SearchArticle>? { .init(\.title, \.body, document: \.searchDocument) }
}

@Suite("SQL renderer: full-text search")
struct SearchRenderTests {
    /// The statements `body` runs on a memory database holding three articles, rendered for SQLite and
    /// PostgreSQL, with their binds.
    static func rendered(_ body: (Database) async throws -> Void) async throws -> (
        sqlite: [RenderedSQL], pg: [RenderedSQL]
    ) {
        let driver = LoggingDriver()
        let db = Database(driver: driver)
        try await db.migrate(SearchArticle.self)
        try await db.transaction { tx in
            for (title, body) in [("Swift ORM", "Migrations"), ("Rust", "an ORM"), ("Crème brûlée", nil)] {
                var a = SearchArticle(title: title, body: body)
                try a.save(tx)
            }
        }
        _ = driver.log.take()
        try await body(db)
        let statements = driver.log.take()
        return (
            try statements.map { try SQLRenderer.render($0, dialect: SQLiteDialect()) },
            try statements.map { try SQLRenderer.render($0, dialect: PostgresDialect()) }
        )
    }

    static let columns = #"SELECT "id", "title", "body", "search_document" FROM "sarticle""#
    static let padded = #"(' ' || "search_document" || ' ')"#
    static let vector = #"array_to_tsvector(array_remove(string_to_array("search_document", ' '), ''))"#

    @Test("OR inside a clause, AND between clauses, a prefix: LIKE per term on SQLite, one tsquery on PostgreSQL")
    func match() async throws {
        var titles: [String] = []
        let (sqlite, pg) = try await Self.rendered { db in
            titles = try await SearchArticle.query(on: db).match("Swift OR rust orm*").order(\.id).all().map(\.title)
        }
        #expect(titles == ["Swift ORM", "Rust"])
        let instr = "(instr(" + Self.padded + ", ?) > 0)"
        #expect(
            sqlite.map(\.sql) == [
                Self.columns + " WHERE ((" + instr + " OR " + instr + ") AND " + instr + #") ORDER BY "id" ASC"#
            ])
        #expect(sqlite.map(\.binds) == [[.text(" swift "), .text(" rust "), .text(" orm")]])
        #expect(
            pg.map(\.sql) == [
                Self.columns + " WHERE (" + Self.vector + #" @@ CAST($1 AS tsquery)) ORDER BY "id" ASC"#
            ])
        #expect(pg.map(\.binds) == [[.text("( 'swift' | 'rust' ) & 'orm':*")]])
    }

    @Test("the rank is the same sum of CASE terms on every dialect, one per distinct term")
    func rank() async throws {
        var titles: [String] = []
        let (sqlite, pg) = try await Self.rendered { db in
            titles = try await SearchArticle.query(on: db).match("orm OR swift OR orm").orderByRank().order(\.id)
                .all().map(\.title)
        }
        #expect(titles == ["Swift ORM", "Rust"])
        let term = "CASE WHEN instr(" + Self.padded + ", ?) > 0 THEN 1 ELSE 0 END"
        let rank = "(" + term + " + " + term + ")"
        let instr = "(instr(" + Self.padded + ", ?) > 0)"
        #expect(
            sqlite.map(\.sql) == [
                Self.columns + " WHERE (" + instr + " OR " + instr + " OR " + instr + ") ORDER BY " + rank
                    + #" DESC, "id" ASC"#
            ])
        #expect(
            sqlite.map(\.binds) == [
                [.text(" orm "), .text(" swift "), .text(" orm "), .text(" orm "), .text(" swift ")]
            ]
        )
        let pgTerm = "CASE WHEN " + Self.padded + #" LIKE $2 ESCAPE '\' THEN 1 ELSE 0 END"#
        #expect(
            pg.map(\.sql) == [
                Self.columns + " WHERE (" + Self.vector + " @@ CAST($1 AS tsquery)) ORDER BY (" + pgTerm + " + "
                    + pgTerm.replacingOccurrences(of: "$2", with: "$3") + #") DESC NULLS LAST, "id" ASC"#
            ])
        #expect(pg.map(\.binds) == [[.text("'orm' | 'swift' | 'orm'"), .text("% orm %"), .text("% swift %")]])
    }

    @Test("the default syntax: a LIKE per term over the padded document, the rank's terms alike")
    func defaultSyntax() throws {
        let q = try SearchQuery("a OR b c*", model: "M")
        let s = Select(
            table: "t", selection: .columns(["id"]), filter: SQLExpression(.search(.column("d"), q)),
            order: [Ordering(expression: SQLExpression(.searchRank(.column("d"), q)), .descending)])
        let r = try SQLRenderer.render(.select(s), dialect: LikeSearchDialect())
        let padded = #"(' ' || "d" || ' ')"#
        let like = "(" + padded + #" LIKE ? ESCAPE '\')"#
        let term = "CASE WHEN " + padded + #" LIKE ? ESCAPE '\' THEN 1 ELSE 0 END"#
        #expect(
            r.sql == #"SELECT "id" FROM "t" WHERE (("# + like + " OR " + like + ") AND " + like + ") ORDER BY ("
                + [term, term, term].joined(separator: " + ") + ") DESC NULLS LAST")
        #expect(r.binds == ["% a %", "% b %", "% c%", "% a %", "% b %", "% c%"].map { .text($0) })
    }

    @Test("the bind list the renderer's cache reuses matches the rendered one")
    func binds() throws {
        let q = try SearchQuery("a OR b c*", model: "M")
        let s = Select(
            table: "t", selection: .columns(["id"]), filter: SQLExpression(.search(.column("d"), q)),
            order: [Ordering(expression: SQLExpression(.searchRank(.column("d"), q)), .descending)])
        for dialect in [SQLiteDialect() as any Dialect, PostgresDialect(), LikeSearchDialect()] {
            let r = try SQLRenderer.render(.select(s), dialect: dialect)
            #expect(SQLRenderer.binds(of: .select(s), dialect: dialect) == r.binds)
        }
    }
}

/// A dialect with the default search syntax, one LIKE per term.
struct LikeSearchDialect: Dialect {
    var name: String { "like-search" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .ilike }
    func sqlType(_ type: ColumnType) -> String { "T" }
    var autoIncrementPrimaryKey: String { "SERIAL" }
}

@Suite("Differential generator: full-text search")
struct SearchGeneratorTests {
    @Test("the world's text columns get FTS5 indexes on SQLite: a match reads them and agrees with memory")
    func indexedWorld() throws {
        let engine = try DifferentialEngine(
            urls: ["memory:", "sqlite::memory:"], drivers: FuzzBackends.drivers, options: FuzzOptions())
        let parent = TableSchema(
            name: FuzzWorld.parent,
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                TableColumn(name: "note", type: .text, isNullable: true),
            ])
        let texts = ["a ab", "AB b", nil, "", "ab-c  ab", "日本 a"]
        let world = FuzzWorld(tables: [
            FuzzWorld.Table(schema: parent, indexes: [], rows: texts.map { [$0.map { .text($0) } ?? .null] })
        ])
        #expect(engine.setUp(world) == nil)
        for text in ["ab", "a OR b", "ab*", "日本*", "a ab"] {
            let query = try SearchQuery(text, model: FuzzWorld.parent)
            let match = SQLExpression.Node.search(.column("note"), query)
            for filter in [match, .not(match), .and([match, .isNull(.column("note"), negated: true)])] {
                let select = Select(
                    table: FuzzWorld.parent, selection: .columns(["id"]), filter: SQLExpression(filter),
                    order: [Ordering("id")])
                let sql = try #require(engine.backends[1].sql(.select(select)))
                if case .not = filter {
                    #expect(!sql.contains("MATCH"), "under NOT, the scan alone: \(sql)")
                } else {
                    #expect(sql.contains(#""fz_parent_note_fts" MATCH"#), "\(sql)")
                }
                #expect(engine.failures(of: select, in: world).isEmpty, "\(text): \(sql)")
            }
        }
    }

    @Test("a share of generated reads match a query, some ordered by rank")
    func share() {
        var searching = 0
        var ranked = 0
        var total = 0
        for s in GeneratedReads.sample(seed: 13) {
            total += 1
            guard s.searches else { continue }
            searching += 1
            #expect(s.joins.isEmpty && s.groupBy.isEmpty && s.compound == nil)
            if s.order.contains(where: {
                if case .searchRank? = $0.expression?.node { true } else { false }
            }) {
                ranked += 1
            }
        }
        let share = Double(searching) / Double(total)
        #expect(share > 0.02 && share < 0.2, "full-text search: \(searching) of \(total)")
        #expect(ranked > 0 && ranked < searching)
        print("full-text search: \(searching) of \(total) generated reads, \(ranked) ordered by rank")
    }
}
