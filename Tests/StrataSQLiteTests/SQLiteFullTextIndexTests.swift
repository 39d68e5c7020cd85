// SQLiteFullTextIndexTests: FTS5 on SQLite: the index automatic migration makes, the SQL a match renders through
// it, FTS5's split of Strata's documents, and the index kept by writes, rollbacks and table rebuilds.
import Foundation
import StrataMemory
import StrataSQLite
import Testing

@testable import Strata

@Model(table: "fts_article")
struct FTSArticle {
    var id: Int64?
    var title: String
    var body: String?
    var n: Int?
    var searchDocument = ""
    static var searchable: SearchableColumns<FTSArticle>? { .init(\.title, \.body, document: \.searchDocument) }
}

@Model(table: "fts_keyed")
struct FTSKeyed {
    var id: String?
    var title: String
    var n: Int?
    var searchDocument = ""
    static var searchable: SearchableColumns<FTSKeyed>? { .init(\.title, document: \.searchDocument) }
}

@Suite("SQLite FTS5 index: rendering")
struct SQLiteFullTextRenderTests {
    static let padded = #"(' ' || "d" || ' ')"#
    static func instr(_ padded: String = padded) -> String { "(instr(" + padded + ", ?) > 0)" }
    static let scan = "((" + instr() + " OR " + instr() + ") AND " + instr() + ")"
    static let indexed = SQLiteDialect(fullTextIndexes: ["t_d_fts"])

    @Test("libsqlite3 here has FTS5, so the dialect indexes search documents")
    func available() {
        #expect(SQLiteDialect().fullTextIndex == .fts5)
    }

    @Test("a match reads the FTS5 index by rowid, then confirms with the scan; binds(of:) lists the same values")
    func select() throws {
        let q = try SearchQuery("a OR b c*", model: "M")
        let s = Select(table: "t", selection: .columns(["id"]), filter: SQLExpression(.search(.column("d"), q)))
        let r = try SQLRenderer.render(.select(s), dialect: Self.indexed)
        #expect(
            r.sql == #"SELECT "id" FROM "t" WHERE ("t"."rowid" IN (SELECT "rowid" FROM "t_d_fts" WHERE "#
                + #""t_d_fts" MATCH ?)"#
                + " AND " + Self.scan + ")")
        #expect(r.binds == [#"("a" OR "b") AND "c"*"#, " a ", " b ", " c"].map { .text($0) })
        #expect(SQLRenderer.binds(of: .select(s), dialect: Self.indexed) == r.binds)
        let plain = try SQLRenderer.render(.select(s), dialect: SQLiteDialect())
        #expect(plain.sql == #"SELECT "id" FROM "t" WHERE "# + Self.scan, "no index known: the scan alone")
        #expect(plain.binds == [" a ", " b ", " c"].map { .text($0) })
    }

    @Test("only a match ANDed at the top of WHERE reads the index: under NOT or OR it is the scan, NULL-exact")
    func positions() throws {
        let q = try SearchQuery("a", model: "M")
        let match = SQLExpression.Node.search(.column("d"), q)
        let index = #"("t"."rowid" IN (SELECT "rowid" FROM "t_d_fts" WHERE "t_d_fts" MATCH ?) AND "#
        func render(_ filter: SQLExpression.Node) throws -> RenderedSQL {
            let s = Select(
                table: "t", selection: .columns(["id"]), filter: SQLExpression(filter),
                order: [Ordering(expression: SQLExpression(.searchRank(.column("d"), q)), .descending)])
            let r = try SQLRenderer.render(.select(s), dialect: Self.indexed)
            #expect(SQLRenderer.binds(of: .select(s), dialect: Self.indexed) == r.binds)
            return r
        }
        let rank = " ORDER BY (CASE WHEN instr(" + Self.padded + ", ?) > 0 THEN 1 ELSE 0 END) DESC"
        let positive = SQLExpression.Node.compare(.greater, .column("id"), .value(.integer(0)))
        let top = try render(.and([match, positive]))
        let topSQL: String = #"SELECT "id" FROM "t" WHERE ("# + index + Self.instr() + #") AND ("id" > ?))"# + rank
        #expect(top.sql == topSQL)
        let topBinds: [DatabaseValue] = [.text(#""a""#), .text(" a "), .integer(0), .text(" a ")]
        #expect(top.binds == topBinds)
        let not = try render(.not(match))
        let notSQL: String = #"SELECT "id" FROM "t" WHERE (NOT "# + Self.instr() + ")" + rank
        #expect(not.sql == notSQL)
        let notBinds: [DatabaseValue] = [.text(" a "), .text(" a ")]
        #expect(not.binds == notBinds)
        let either = try render(.or([match, .isNull(.column("d"), negated: false)]))
        #expect(!either.sql.contains("MATCH"), "\(either.sql)")
        let nested = try render(.and([.and([match]), .not(match)]))
        #expect(nested.sql.components(separatedBy: "MATCH").count == 3, "the same match at the top and under NOT")
    }

    @Test("DELETE and UPDATE filter through the index of their own table")
    func writes() throws {
        let q = try SearchQuery("a", model: "M")
        let filter = SQLExpression(.search(.column("d"), q))
        let index = #"("t"."rowid" IN (SELECT "rowid" FROM "t_d_fts" WHERE "t_d_fts" MATCH ?) AND "#
        let delete = Statement.delete(Delete(table: "t", filter: filter))
        let r = try SQLRenderer.render(delete, dialect: Self.indexed)
        #expect(r.sql == #"DELETE FROM "t" WHERE "# + index + Self.instr() + ")")
        #expect(SQLRenderer.binds(of: delete, dialect: Self.indexed) == r.binds)
        let update = Statement.update(
            Update(table: "t", assignments: [Assignment("n", .integer(1))], filter: filter))
        let u = try SQLRenderer.render(update, dialect: Self.indexed)
        #expect(u.sql == #"UPDATE "t" SET "n" = ? WHERE "# + index + Self.instr() + ")")
        #expect(u.binds == [.integer(1), .text(#""a""#), .text(" a ")])
        #expect(SQLRenderer.binds(of: update, dialect: Self.indexed) == u.binds)
    }

    @Test("a joined query qualifies the rowid; a joined table's column scans, as its index is not the query's")
    func joins() throws {
        let q = try SearchQuery("a", model: "M")
        let on = SQLExpression.compare(.equal, .column("id"), .column("t_id", table: "j"))
        let join = Join(.inner, table: "t", alias: "j", on: on)
        let main = Select(
            table: "t", selection: .columns(["id"]), joins: [join], filter: SQLExpression(.search(.column("d"), q)))
        let r = try SQLRenderer.render(.select(main), dialect: Self.indexed)
        #expect(
            r.sql == #"SELECT "t"."id" FROM "t" INNER JOIN "t" AS "j" ON ("t"."id" = "j"."t_id") "#
                + #"WHERE ("t"."rowid" IN "#
                + #"(SELECT "rowid" FROM "t_d_fts" WHERE "t_d_fts" MATCH ?) AND "#
                + Self.instr(#"(' ' || "t"."d" || ' ')"#) + ")")
        let joined = Select(
            table: "t", selection: .columns(["id"]), joins: [join],
            filter: SQLExpression(.search(.joinedColumn(table: "j", name: "d"), q)))
        let j = try SQLRenderer.render(.select(joined), dialect: Self.indexed)
        #expect(!j.sql.contains("MATCH"), "\(j.sql)")
        #expect(SQLRenderer.binds(of: .select(joined), dialect: Self.indexed) == j.binds)
    }

    @Test("each term is an FTS5 string: a double quote doubled, a prefix's star after it, groups parenthesized")
    func strings() throws {
        #expect(SQLRenderer.fts5String(SearchQuery.Term(token: #"a"b"#, isPrefix: false)) == #""a""b""#)
        #expect(SQLRenderer.fts5String(SearchQuery.Term(token: "\"", isPrefix: true)) == "\"\"\"\"*")
        #expect(SQLRenderer.fts5String(SearchQuery.Term(token: "near", isPrefix: true)) == #""near"*"#)
        let q = try SearchQuery("NOT OR AND near* e-mail", model: "M")
        #expect(SQLRenderer.fts5Text(q) == #"("not" OR "and") AND "near"* AND ("e" AND "mail")"#)
    }

    @Test("the index DDL: an external-content FTS5 table with the ascii tokenizer and three triggers")
    func ddl() throws {
        let sql = try SQLRenderer.searchIndexSQL(table: "recipe", column: "doc", dialect: SQLiteDialect())
        let delete =
            #"INSERT INTO "recipe_doc_fts" ("recipe_doc_fts", "rowid", "doc") VALUES ('delete', "#
            + #"old."rowid", old."doc");"#
        let insert = #"INSERT INTO "recipe_doc_fts" ("rowid", "doc") VALUES (new."rowid", new."doc");"#
        #expect(
            sql == [
                #"CREATE VIRTUAL TABLE IF NOT EXISTS "recipe_doc_fts" USING fts5("doc", content='recipe', "#
                    + "tokenize='ascii', detail='none', columnsize=0)",
                #"CREATE TRIGGER IF NOT EXISTS "recipe_doc_fts_insert" AFTER INSERT ON "recipe" BEGIN "# + insert
                    + " END",
                #"CREATE TRIGGER IF NOT EXISTS "recipe_doc_fts_delete" AFTER DELETE ON "recipe" BEGIN "# + delete
                    + " END",
                #"CREATE TRIGGER IF NOT EXISTS "recipe_doc_fts_update" AFTER UPDATE ON "recipe" WHEN old."rowid" IS "#
                    + #"NOT new."rowid" OR old."doc" IS NOT new."doc" BEGIN "# + delete + " " + insert + " END",
            ])
        #expect(
            try SQLRenderer.fullTextIndexFillSQL(table: "recipe", column: "doc", dialect: SQLiteDialect())
                == #"INSERT INTO "recipe_doc_fts" ("recipe_doc_fts") VALUES ('rebuild')"#)
        let quoted = try SQLRenderer.searchIndexSQL(table: "it's", column: "doc", dialect: SQLiteDialect())
        #expect(quoted[0].contains("content='it''s'"), "a quote in the table name is doubled")
        #expect(try SQLRenderer.searchIndexSQL(table: "recipe", column: "doc", dialect: LikeOnlyDialect()).isEmpty)
    }
}

/// A dialect with no full-text index and the LIKE spelling.
private struct LikeOnlyDialect: Dialect {
    var name: String { "like-only" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { "TEXT" }
    var autoIncrementPrimaryKey: String { "SERIAL" }
}

@Suite("SQLite FTS5 index: a real database")
struct SQLiteFullTextIndexTests {
    static func open() throws -> (Database, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fts-\(UUID()).sqlite").path
        return (try Database.open("sqlite:" + path, drivers: [.sqlite]), path)
    }

    static func close(_ db: Database, _ path: String) {
        db.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static let index = "fts_article_search_document_fts"

    /// The ids of the articles matching `text`.
    static func ids(_ db: Database, _ text: String) async throws -> [Int64] {
        try await FTSArticle.query(on: db).match(text).order(\.id).all().compactMap(\.id)
    }

    /// FTS5's own check of the index against the table's documents (it throws on a difference).
    static func integrityCheck(_ db: Database, _ index: String = index) async throws {
        _ = try await db.unsafeRawExecute("INSERT INTO \(index) (\(index)) VALUES ('integrity-check')")
    }

    /// The names of the main database's schema objects of one type.
    static func names(_ db: Database, _ type: String) async throws -> Set<String> {
        Set(
            try await db.unsafeRawExecute("SELECT name FROM sqlite_schema WHERE type = ?", [type]).compactMap {
                if case .text(let t) = $0.first { t } else { nil }
            })
    }

    /// The texts FTS5 has to split: the article's table of tricky inputs, and more scripts and marks.
    static let tricky = [
        "Crème Brûlée", "ΣΟΦΊΑ", "e-mail", "foo_bar", "don't", "v3.14", "3.14", "alex@example.com", "½", "ギ",
        "日本語のテキスト", "١٢٣", "हिन्दी नमस्ते", "한국어 텍스트", "İstanbul", "straße STRASSE", "x² H₂O", "ﬁne ligature",
        "emoji 🙂 text", "tab\tand\nnewline", "A\u{301}B Å", "Ǆungla", "ＦＵＬＬ width", "ʼapostrophe modifier",
        "Ⅻ roman", "a\u{200D}b zero-width joiner", "AND OR NOT NEAR", "quo\"ted",
    ]

    @Test("FTS5's ascii tokenizer makes exactly Strata's tokens of every document: the same terms in as many rows")
    func tokenizerAgrees() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        try await db.migrate(FTSArticle.self)
        var documents: [String] = []
        for (k, text) in Self.tricky.enumerated() {
            var a = FTSArticle(title: text, body: k % 2 == 0 ? nil : Self.tricky[(k + 5) % Self.tricky.count])
            try await a.save(on: db)
            documents.append(SearchText.document([a.title, a.body]))
        }
        var expected: [String: Int64] = [:]
        for document in documents {
            for token in Set(document.split(separator: " ").map(String.init)) { expected[token, default: 0] += 1 }
        }
        _ = try await db.unsafeRawExecute(
            "CREATE VIRTUAL TABLE temp.fts_vocab USING fts5vocab(main, '\(Self.index)', 'row')")
        var found: [String: Int64] = [:]
        for row in try await db.unsafeRawExecute("SELECT term, doc FROM temp.fts_vocab") {
            guard case .text(let term) = row[0], case .integer(let count) = row[1] else { continue }
            found[term] = count
        }
        #expect(found == expected)
        #expect(expected.count > 40, "the inputs make many tokens: \(expected.count)")
        try await Self.integrityCheck(db)
    }

    @Test("migrate creates the index and its triggers; a second plans nothing; introspection and inspect skip them")
    func migrateAndIntrospect() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        try await db.migrate(FTSArticle.self)
        try await db.migrate(FTSArticle.self)
        let triggers = try await Self.names(db, "trigger")
        #expect(triggers == Set(["insert", "delete", "update"].map { Self.index + "_" + $0 }))
        let pending = try await db.withConnection { tx in try tx.plan([FTSArticle.self]) }
        #expect(pending.changes.isEmpty, "\(pending.changes)")
        let schema = try await db.withConnection { tx in try tx.introspect() }
        #expect(schema.tables.map(\.name).sorted() == ["fts_article", "strata_migrations"], "no FTS5 nor shadow table")
        let live = try await db.withConnection { tx in try tx.connection.liveTables() }
        #expect(live == ["fts_article", "strata_migrations"])
        let source = try await db.withConnection { tx in try ModelSource.inspect(tx) }
        #expect(!source.contains("_fts"), "\(source)")
        #expect(source.contains("fts_article"))
    }

    @Test("a match is a lookup in the FTS5 index (EXPLAIN), and finds what the memory driver finds")
    func matchesLikeMemory() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        let memory = try Database.open("memory:", drivers: [.memory])
        defer { memory.close() }
        for d in [db, memory] {
            try await d.migrate(FTSArticle.self)
            for (k, text) in Self.tricky.enumerated() {
                var a = FTSArticle(title: text, body: "row\(k) swift orm\(k % 3) migrations")
                try await a.save(on: d)
            }
        }
        let queries = [
            "swift", "orm1", "orm*", "migr*", "swift OR rust", "row1*", "row1", "creme brulee", "e-mail", "日本*",
            "σοφια", "हिन्दी", "and OR near", "NOT", "quo*", "ted", "x2", "h2o", "fine", "strasse", "ß*", "nothing",
            "row2 OR orm2 swift", "full*",
        ]
        for text in queries {
            let sqlite = try await Self.ids(db, text)
            let expected = try await FTSArticle.query(on: memory).match(text).order(\.id).all().compactMap(\.id)
            #expect(sqlite == expected, "\(text)")
            let rankedSQLite = try await FTSArticle.query(on: db).match(text).orderByRank().order(\.id).all()
            let rankedMemory = try await FTSArticle.query(on: memory).match(text).orderByRank().order(\.id).all()
            #expect(rankedSQLite.map(\.id) == rankedMemory.map(\.id), "\(text), by rank")
        }
        #expect(try await Self.ids(db, "swift").count == Self.tricky.count)
        let plan = try await db.withConnection { tx in
            let select = try FTSArticle.query(on: tx).match("swift").selectStatement()
            return try (tx.connection as? any SQLConnection)?.explain(select)
        }
        #expect(plan?.contains { $0.contains("VIRTUAL TABLE") } == true, "\(plan ?? [])")
        #expect(plan?.contains { $0.contains("USING INTEGER PRIMARY KEY") } == true, "\(plan ?? [])")
    }

    @Test("saves, deletes, upserts, bulk inserts and a rolled-back transaction keep the index exact")
    func writesKeepIndex() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        try await db.migrate(FTSArticle.self)
        var a = FTSArticle(title: "alpha", body: "common")
        var b = FTSArticle(title: "beta", body: "common")
        try await a.save(on: db)
        try await b.save(on: db)
        a.title = "gamma"
        try await a.save(on: db)
        #expect(try await Self.ids(db, "alpha") == [])
        #expect(try await Self.ids(db, "gamma") == [a.id].compactMap { $0 })
        a.n = 5  // a save that does not touch the document
        try await a.save(on: db)
        #expect(try await Self.ids(db, "gamma common") == [a.id].compactMap { $0 })
        try await b.delete(on: db)
        #expect(try await Self.ids(db, "beta OR common") == [a.id].compactMap { $0 })
        var bulk = (0..<50).map { FTSArticle(title: "bulk\($0)", body: "many") }
        try await FTSArticle.insertAll(&bulk, on: db)
        #expect(try await Self.ids(db, "many").count == 50)
        #expect(try await Self.ids(db, "bulk4*").count == 11)
        do {
            try await db.transaction { tx in
                var c = FTSArticle(title: "delta", body: nil)
                try c.save(tx)
                var first = try #require(try FTSArticle.query(on: tx).match("gamma").all().first)
                first.title = "epsilon"
                try first.save(tx)
                #expect(try FTSArticle.query(on: tx).match("delta OR epsilon").count() == 2, "seen inside")
                throw Rollback()
            }
        } catch is Rollback {}
        #expect(try await Self.ids(db, "delta OR epsilon") == [], "rolled back with the rows")
        #expect(try await Self.ids(db, "gamma") == [a.id].compactMap { $0 })
        _ = try await FTSArticle.query(on: db).where(\.title == "bulk7").delete()
        #expect(try await Self.ids(db, "bulk7") == [])
        try await Self.integrityCheck(db)
    }

    @Test("a table rebuild (a retyped column) keeps the index and its triggers: old and new rows are found")
    func rebuildKeepsIndex() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        try await db.migrate(FTSArticle.self)
        var old = FTSArticle(title: "before rebuild", body: nil, n: 7)
        try await old.save(on: db)
        var gone = FTSArticle(title: "deleted first", body: nil)
        try await gone.save(on: db)
        try await gone.delete(on: db)
        try await db.migrate([
            Migration("fts-rebuild") { $0.alterColumn("n", in: "fts_article", to: .text, nullable: true) }
        ])
        #expect(
            try await Self.names(db, "trigger") == Set(["insert", "delete", "update"].map { Self.index + "_" + $0 }))
        _ = try await db.unsafeRawExecute(
            "INSERT INTO fts_article (title, search_document) VALUES ('x', 'after rebuild')")
        // Counted, not read: the retyped column no longer reads as the model's Int.
        func count(_ text: String) async throws -> Int { try await FTSArticle.query(on: db).match(text).count() }
        #expect(try await count("rebuild") == 2, "the old row and the new one")
        #expect(try await count("before") == 1)
        #expect(try await count("deleted") == 0)
        _ = try await db.unsafeRawExecute("UPDATE fts_article SET search_document = 'renamed' WHERE id = ?", [old.id])
        #expect(try await count("renamed") == 1)
        #expect(try await count("before") == 0)
        try await Self.integrityCheck(db)
    }

    @Test("a text key: the index reads the implicit rowid, through writes and a rebuild that renumbers it")
    func textKey() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        try await db.migrate(FTSKeyed.self)
        for (key, title) in [("k1", "swift orm"), ("k2", "rust orm"), ("k3", "go")] {
            var m = FTSKeyed(id: key, title: title)
            try await m.save(on: db)
        }
        func keys(_ text: String) async throws -> [String] {
            try await FTSKeyed.query(on: db).match(text).order(\.id).all().compactMap(\.id)
        }
        #expect(try await keys("orm") == ["k1", "k2"])
        let k1 = try #require(try await FTSKeyed.query(on: db).where(\.id == "k1").first())
        try await k1.delete(on: db)  // a gap in the rowids, which a rebuild's copy closes
        #expect(try await keys("orm") == ["k2"])
        try await db.migrate([Migration("fts-key") { $0.alterColumn("n", in: "fts_keyed", to: .text, nullable: true) }])
        var k4 = FTSKeyed(id: "k4", title: "orm again")
        try await k4.save(on: db)
        #expect(try await keys("orm") == ["k2", "k4"])
        #expect(try await keys("go") == ["k3"])
        try await Self.integrityCheck(db, "fts_keyed_search_document_fts")
    }

    @Test("a connection sees an index another connection created, and stops reading one whose triggers are gone")
    func otherConnection() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        let other = try Database.open("sqlite:" + path, drivers: [.sqlite])
        defer { other.close() }
        try await db.migrate(FTSArticle.self)
        var a = FTSArticle(title: "shared row", body: nil)
        try await a.save(on: db)
        func plan(_ d: Database) async throws -> [String] {
            try await d.withConnection { tx in
                let select = try FTSArticle.query(on: tx).match("shared").selectStatement()
                return try (tx.connection as? any SQLConnection)?.explain(select) ?? []
            }
        }
        #expect(try await plan(other).contains { $0.contains("VIRTUAL TABLE") }, "the index db made")
        _ = try await db.unsafeRawExecute("DROP TRIGGER \(Self.index)_update")
        #expect(try await !plan(other).contains { $0.contains("VIRTUAL TABLE") }, "a trigger gone: the scan")
        #expect(try await FTSArticle.query(on: other).match("shared").count() == 1)
        _ = try await other.unsafeRawExecute(
            "UPDATE fts_article SET search_document = 'moved row' WHERE id = ?", [a.id])  // past the index
        #expect(try await FTSArticle.query(on: other).match("moved").count() == 1, "the scan sees it")
        try await db.migrate(FTSArticle.self)
        #expect(try await plan(other).contains { $0.contains("VIRTUAL TABLE") }, "the trigger back: the index")
        #expect(try await FTSArticle.query(on: other).match("moved").count() == 1, "refilled: the index has it")
        #expect(try await FTSArticle.query(on: other).match("shared").count() == 0)
        try await Self.integrityCheck(db)
    }

    @Test("rows written before the index existed are indexed when migrate creates it; a dropped table scans")
    func fillAndDrop() async throws {
        let (db, path) = try Self.open()
        defer { Self.close(db, path) }
        try await db.migrate(FTSArticle.self)
        var a = FTSArticle(title: "early row", body: nil)
        try await a.save(on: db)
        for trigger in ["insert", "delete", "update"] {
            _ = try await db.unsafeRawExecute("DROP TRIGGER \(Self.index)_\(trigger)")
        }
        _ = try await db.unsafeRawExecute("DROP TABLE \(Self.index)")
        var b = FTSArticle(title: "scanned row", body: nil)
        try await b.save(on: db)
        #expect(try await Self.ids(db, "row").count == 2, "no index: the scan")
        try await db.migrate(FTSArticle.self)
        #expect(try await Self.ids(db, "row") == [a.id, b.id].compactMap { $0 }, "both filled into the new index")
        try await Self.integrityCheck(db)
        _ = try await db.unsafeRawExecute("DROP TABLE fts_article")
        try await db.migrate(FTSArticle.self)
        #expect(try await Self.ids(db, "row") == [], "the index left from the dropped table was emptied")
        var c = FTSArticle(title: "fresh row", body: nil)
        try await c.save(on: db)
        #expect(try await Self.ids(db, "row") == [c.id].compactMap { $0 })
        try await Self.integrityCheck(db)
    }
}
