// PageRenderTests: the exact SQL of keyset pages (NULL-aware, per direction) and query tags on SQLite and
// PostgreSQL, and the tags the renderer refuses.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

@Model(table: "entry") struct PageEntry {
    var id: Int64?
    var title: String
    var rank: Int64?
}

@Suite("SQL renderer: keyset pages and query tags")
struct PageRenderTests {
    /// The SELECTs `body` runs on a memory database holding three entries, rendered for SQLite and PostgreSQL.
    static func rendered(_ body: (Database) async throws -> Void) async throws -> (sqlite: [String], pg: [String]) {
        let driver = LoggingDriver()
        let db = Database(driver: driver)
        try await db.migrate(PageEntry.self)
        try await db.transaction { tx in
            for (title, rank) in [("b", nil), ("a", 2), ("c", 1)] as [(String, Int64?)] {
                var e = PageEntry(title: title, rank: rank)
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

    @Test("pages after a value and after NULL of a nullable column sorted descending, then text, then the key")
    func keysetDescendingNullable() async throws {
        var pages: [Page<PageEntry>] = []
        let (sqlite, pg) = try await Self.rendered { db in
            let query = PageEntry.query(on: db).order(\.rank, .descending).order(\.title).order(\.id)
            var cursor: PageCursor?
            for _ in 0..<3 {
                let page = try await query.page(after: cursor, limit: 1)
                pages.append(page)
                cursor = page.nextCursor
            }
        }
        #expect(pages.map { $0.items.map(\.title) } == [["a"], ["c"], ["b"]])
        #expect(pages.map { $0.nextCursor == nil } == [false, false, true])
        let columns = "SELECT \"id\", \"title\", \"rank\" FROM \"entry\""
        #expect(
            sqlite == [
                columns + " ORDER BY \"rank\" DESC, \"title\" ASC, \"id\" ASC LIMIT ?",
                columns
                    + " WHERE ((\"rank\" < ?) OR (\"rank\" IS NULL) OR ((\"rank\" = ?) AND (\"title\" > ?))"
                    + " OR ((\"rank\" = ?) AND (\"title\" = ?) AND (\"id\" > ?)))"
                    + " ORDER BY \"rank\" DESC, \"title\" ASC, \"id\" ASC LIMIT ?",
                columns
                    + " WHERE ((\"rank\" < ?) OR (\"rank\" IS NULL) OR ((\"rank\" = ?) AND (\"title\" > ?))"
                    + " OR ((\"rank\" = ?) AND (\"title\" = ?) AND (\"id\" > ?)))"
                    + " ORDER BY \"rank\" DESC, \"title\" ASC, \"id\" ASC LIMIT ?",
            ])
        #expect(
            pg == [
                columns + " ORDER BY \"rank\" DESC NULLS LAST, \"title\" COLLATE \"C\" ASC, \"id\" ASC LIMIT $1",
                columns
                    + " WHERE ((\"rank\" < $1) OR (\"rank\" IS NULL)"
                    + " OR ((\"rank\" = $2) AND (\"title\" COLLATE \"C\" > $3))"
                    + " OR ((\"rank\" = $4) AND (\"title\" = $5) AND (\"id\" > $6)))"
                    + " ORDER BY \"rank\" DESC NULLS LAST, \"title\" COLLATE \"C\" ASC, \"id\" ASC LIMIT $7",
                columns
                    + " WHERE ((\"rank\" < $1) OR (\"rank\" IS NULL)"
                    + " OR ((\"rank\" = $2) AND (\"title\" COLLATE \"C\" > $3))"
                    + " OR ((\"rank\" = $4) AND (\"title\" = $5) AND (\"id\" > $6)))"
                    + " ORDER BY \"rank\" DESC NULLS LAST, \"title\" COLLATE \"C\" ASC, \"id\" ASC LIMIT $7",
            ])
    }

    @Test("after NULL ascending come the non-NULL values; after a NULL descending, only the NULL rows")
    func keysetAfterNull() async throws {
        var pages: [Page<PageEntry>] = []
        let (sqlite, _) = try await Self.rendered { db in
            let query = PageEntry.query(on: db).order(\.rank).order(\.id)
            pages.append(try await query.page(after: nil, limit: 1))
            pages.append(try await query.page(after: pages[0].nextCursor, limit: 5))
            let down = PageEntry.query(on: db).order(\.rank, .descending).order(\.id, .descending)
            let walked = try await down.page(after: nil, limit: 2)
            pages.append(try await down.page(after: walked.nextCursor, limit: 5))
        }
        #expect(pages.map { $0.items.map(\.title) } == [["b"], ["c", "a"], ["b"]])
        let columns = "SELECT \"id\", \"title\", \"rank\" FROM \"entry\""
        #expect(
            sqlite[1] == columns + " WHERE ((\"rank\" IS NOT NULL) OR ((\"rank\" IS NULL) AND (\"id\" > ?)))"
                + " ORDER BY \"rank\" ASC, \"id\" ASC LIMIT ?")
        #expect(
            sqlite[3] == columns
                + " WHERE ((\"rank\" < ?) OR (\"rank\" IS NULL) OR ((\"rank\" = ?) AND (\"id\" < ?)))"
                + " ORDER BY \"rank\" DESC, \"id\" DESC LIMIT ?")
    }

    @Test("a tag is a leading comment on both dialects, and the renderer refuses one that could end it")
    func tags() async throws {
        let (sqlite, pg) = try await Self.rendered { db in
            _ = try await PageEntry.query(on: db).tagged("feed.recent").order(\.id, .descending).limit(2).all()
        }
        #expect(
            sqlite == [
                "/* feed.recent */ SELECT \"id\", \"title\", \"rank\" FROM \"entry\" ORDER BY \"id\" DESC LIMIT ?"
            ])
        #expect(
            pg == ["/* feed.recent */ SELECT \"id\", \"title\", \"rank\" FROM \"entry\" ORDER BY \"id\" DESC LIMIT $1"])
        for bad in ["x */ DROP TABLE entry; --", "/*", "", "a\nb", String(repeating: "é", count: 101)] {
            var s = Select(table: "entry", selection: .columns(["id"]))
            s.tag = bad
            #expect(throws: StrataError.self) { try SQLRenderer.render(.select(s), dialect: SQLiteDialect()) }
            #expect {
                try QueryTag.check(bad)
            } throws: { error in
                if case StrataError.invalidArgument("tag", _) = error { return true }
                return false
            }
        }
    }

    @Test("a cursor survives its text and Codable; garbage is no cursor")
    func cursorText() async throws {
        var first: Page<PageEntry>?
        _ = try await Self.rendered { db in
            first = try await PageEntry.query(on: db).order(\.title).order(\.id).page(after: nil, limit: 1)
        }
        let cursor = try #require(first?.nextCursor)
        #expect(PageCursor(cursor.description) == cursor)
        #expect(!cursor.description.contains("=") && !cursor.description.contains("/"))
        let json = try JSONEncoder().encode([cursor])
        #expect(try JSONDecoder().decode([PageCursor].self, from: json) == [cursor])
        #expect(PageCursor("") == nil && PageCursor("!!!") == nil && PageCursor("e30") == nil)
    }
}

@Suite("Differential generator: keyset pages")
struct KeysetGeneratorTests {
    @Test("a share of generated reads are keyset pages, each ordered to the key with a page limit")
    func share() {
        var pages = 0
        var total = 0
        for s in GeneratedReads.sample(seed: 3) {
            total += 1
            guard s.tag == QueryGenerator.keysetTag else { continue }
            pages += 1
            #expect(s.order.last?.column == "id" && s.joins.isEmpty && s.offset == nil)
            #expect((1...6).contains(s.limit ?? 0))
            #expect(s.filter != nil)
        }
        let share = Double(pages) / Double(total)
        #expect(share > 0.03 && share < 0.1, "keyset pages: \(pages) of \(total)")
        print("keyset pages: \(pages) of \(total) generated reads")
    }
}
