// Cases+Search: full-text search by Strata's own tokens, the same rows on every driver (search. cases).
import Foundation
import Strata

extension ConformanceSuite {
    static let searchCases: [ConformanceCase] = [
        ConformanceCase("search.case-and-diacritics-fold-on-both-sides") { db in
            try await seedArticles(
                db, [("a", "Crème Brûlée", "A DESSERT"), ("b", "creme brulee", nil), ("c", "Cremes", "brûlé")])
            try checkEqual(try await slugs(db, "creme"), ["a", "b"], "creme: a whole token, not cremes")
            try checkEqual(try await slugs(db, "CRÈME"), ["a", "b"], "the query folds too")
            try checkEqual(try await slugs(db, "dessert"), ["a"], "the body is searched")
            try checkEqual(try await slugs(db, "Brûlé"), ["c"], "brule is not brulee")
            try checkEqual(try await slugs(db, "ÇREME"), ["a", "b"], "a cedilla is a diacritic")
        },
        ConformanceCase("search.tokens-split-on-punctuation-underscores-apostrophes-hyphens") { db in
            try await seedArticles(
                db,
                [
                    ("a", "e-mail foo_bar", "don't stop"), ("b", "email foobar", "dont"),
                    ("c", "v3.14 x2 alex@example.com", nil),
                ])
            try checkEqual(try await slugs(db, "mail"), ["a"], "a hyphen separates")
            try checkEqual(try await slugs(db, "bar"), ["a"], "an underscore separates")
            try checkEqual(try await slugs(db, "don"), ["a"], "an apostrophe separates")
            try checkEqual(try await slugs(db, "e-mail"), ["a"], "a hyphenated query word needs both tokens")
            try checkEqual(try await slugs(db, "v3 14"), ["c"], "letters and digits stay together; a dot separates")
            try checkEqual(try await slugs(db, "x2"), ["c"], "a letter-digit run is one token")
            try checkEqual(try await slugs(db, "example"), ["c"], "an address is split at @ and .")
            try checkEqual(try await slugs(db, "3"), [], "3 is inside v3, not a token")
        },
        ConformanceCase("search.terms-are-anded-or-between-words-and-prefix-star") { db in
            try await seedArticles(
                db,
                [
                    ("a", "Swift ORM", "migrations"), ("b", "Rust ORM", "migrate"), ("c", "Swift UI", nil),
                    ("d", "Go", "remigrate"),
                ])
            try checkEqual(try await slugs(db, "swift orm"), ["a"], "both words")
            try checkEqual(try await slugs(db, "swift OR rust"), ["a", "b", "c"], "either word")
            try checkEqual(try await slugs(db, "swift OR rust orm"), ["a", "b"], "(swift OR rust) AND orm")
            try checkEqual(try await slugs(db, "migr*"), ["a", "b"], "a prefix of a token, never inside one")
            try checkEqual(try await slugs(db, "migrate"), ["b"], "without *, whole tokens only")
            try checkEqual(try await slugs(db, "swift or"), [], "lower-case or is a word")
            try checkEqual(try await slugs(db, "-- swift !!"), ["a", "c"], "a word of separators adds nothing")
        },
        ConformanceCase("search.non-latin-scripts-and-digits") { db in
            try await seedArticles(
                db,
                [
                    ("a", "日本語のテキスト", "ΣΟΦΊΑ"), ("b", "Москва 2024", nil), ("c", "١٢٣ arabic digits", nil),
                ])
            try checkEqual(try await slugs(db, "日本語のテキスト"), ["a"], "a run of CJK letters is one token")
            try checkEqual(try await slugs(db, "日本*"), ["a"], "its prefix matches")
            try checkEqual(try await slugs(db, "σοφια"), ["a"], "Greek folds case and drops the tonos")
            try checkEqual(try await slugs(db, "МОСКВА"), ["b"], "Cyrillic folds case")
            try checkEqual(try await slugs(db, "2024"), ["b"], "digits are a token")
            try checkEqual(try await slugs(db, "١٢٣"), ["c"], "other scripts' digits too, unchanged")
        },
        ConformanceCase("search.composes-with-filters-and-not") { db in
            try await seedArticles(db, [("a", "swift", nil), ("b", "swift", "orm"), ("c", "rust", "orm")])
            let withSlug = try await ConfSearchArticle.query(on: db).match("swift").where(\.slug != "a").all()
            try checkEqual(withSlug.map(\.slug), ["b"], "match AND another condition")
            let either = try await ConfSearchArticle.query(on: db)
                .where(.match("rust") || \.slug == "a").order(\.id).all()
            try checkEqual(either.map(\.slug), ["a", "c"], "match OR another condition")
            let not = try await ConfSearchArticle.query(on: db).where(!.match("orm")).order(\.id).all()
            try checkEqual(not.map(\.slug), ["a"], "NOT match")
            try checkEqual(try await ConfSearchArticle.query(on: db).match("orm").count(), 2, "count of matches")
        },
        ConformanceCase("search.a-query-of-stop-characters-only-is-a-typed-error") { db in
            try await seedArticles(db, [("a", "swift", nil)])
            for (text, part) in [
                ("--- !!", "query"), ("   ", "query"), ("swift OR", "OR"), ("OR swift", "OR"),
                ("swift OR OR rust", "OR"), ("\"swift orm\"", "query"), ("* swift", "word 1"), ("sw*ft", "word 1"),
                (String(repeating: "x", count: 256), "word 1"),
            ] {
                try await checkThrows("match(\(text.prefix(20)))", { isInvalidSearch($0, part: part) }) {
                    try await ConfSearchArticle.query(on: db).match(text).all()
                }
            }
            try await db.migrate(ConfPlainNote.self)
            try await checkThrows("a model with no searchable columns", { isInvalidSearch($0, part: "searchable") }) {
                try await ConfPlainNote.query(on: db).match("swift").all()
            }
        },
        ConformanceCase("search.the-document-follows-saves-upserts-and-bulk-inserts") { db in
            var rows = try await seedArticles(db, [("a", "old title", "body"), ("b", "other", nil)])
            rows[0].title = "new title"
            try await rows[0].save(on: db)
            try checkEqual(try await slugs(db, "new"), ["a"], "the saved title is searched")
            try checkEqual(try await slugs(db, "old"), [], "the old one no more")
            rows[1].body = "appended"
            try await rows[1].save(on: db)
            try checkEqual(try await slugs(db, "appended"), ["b"], "a changed body rewrites the document")
            var more = [
                ConfSearchArticle(slug: "c", title: "bulk one", body: nil),
                ConfSearchArticle(slug: "d", title: "bulk two"),
            ]
            try await ConfSearchArticle.insertAll(&more, on: db)
            try checkEqual(try await slugs(db, "bulk"), ["c", "d"], "insertAll writes documents")
            var up = [ConfSearchArticle(slug: "c", title: "upserted", body: nil)]
            try await checkThrows("an upsert updating title alone", { isInvalidSearch($0, part: "body") }) {
                try await ConfSearchArticle.upsertAll(&up, on: db, onConflict: [\.slug], do: .update(\.title))
            }
            try await ConfSearchArticle.upsertAll(&up, on: db, onConflict: [\.slug], do: .update(\.title, \.body))
            try checkEqual(try await slugs(db, "upserted"), ["c"], "an upsert's update rewrites the document")
            try checkEqual(try await slugs(db, "bulk"), ["d"], "and drops the old words")
            let read = try await ConfSearchArticle.query(on: db).where(\.slug == "a").all()
            try checkEqual(read.map(\.searchDocument), ["new title body"], "the stored document, normalized")
        },
        ConformanceCase("search.update-set-of-a-searched-column-is-refused-and-changes-nothing") { db in
            try await seedArticles(db, [("a", "swift", nil)])
            try await checkThrows("update(set: title)", { isInvalidSearch($0, part: "title") }) {
                try await ConfSearchArticle.query(on: db).set(\.title, to: "rust").update()
            }
            let document = ConfSearchArticle.columnName(for: \.searchDocument) ?? "?"
            try await checkThrows("update(set: searchDocument)", { isInvalidSearch($0, part: document) }) {
                try await ConfSearchArticle.query(on: db).set(\.searchDocument, to: "rust").update()
            }
            let row = try await ConfSearchArticle.query(on: db).all()
            try checkEqual(row.map(\.title), ["swift"], "the title is unchanged")
            try checkEqual(try await slugs(db, "swift"), ["a"], "the document is unchanged")
        },
        ConformanceCase("search.a-failed-save-leaves-the-model-and-the-database-as-they-were") { db in
            let rows = try await seedArticles(db, [("a", "first", nil), ("b", "second", nil)])
            var clash = rows[1]
            clash.slug = "a"
            clash.title = "clash"
            let before = clash
            try await checkThrows("a unique violation", { if case .uniqueViolation = $0 { true } else { false } }) {
                try await clash.save(on: db)
            }
            try checkEqual(clash.title, before.title, "the model keeps its values")
            try checkEqual(clash.searchDocument, before.searchDocument, "and its document property")
            try checkEqual(try await slugs(db, "clash"), [], "no document was written")
            try checkEqual(try await slugs(db, "second"), ["b"], "the row keeps its document")
        },
        ConformanceCase("search.words-that-are-operators-to-a-backend-are-only-words") { db in
            // FTS5 reads AND, OR, NOT and NEAR as operators and `col:` as a column filter, tsquery reads & | ! <->:
            // Strata quotes every term, so each is a word (or, for the punctuation, a separator) everywhere.
            try await seedArticles(
                db,
                [
                    ("a", "not and near", nil), ("b", "near", "or"), ("c", "title: x & y | z", "!w <-> v"),
                    ("d", "\"quoted\" words", "NEAR(a b)"),
                ])
            try checkEqual(try await slugs(db, "NOT"), ["a"], "NOT is a word")
            try checkEqual(try await slugs(db, "AND near"), ["a"], "AND is a word, and both are needed")
            try checkEqual(try await slugs(db, "NEAR*"), ["a", "b", "d"], "NEAR* is a prefix")
            try checkEqual(try await slugs(db, "or"), ["b"], "a lower-case or is a word")
            try checkEqual(try await slugs(db, "title:x"), ["c"], "a colon separates: title and x")
            try checkEqual(try await slugs(db, "x&y|z"), ["c"], "& and | separate")
            try checkEqual(try await slugs(db, "!w <-> v"), ["c"], "! and <-> are separators")
            try checkEqual(try await slugs(db, "near(a"), ["d"], "a parenthesis separates")
            try checkEqual(try await slugs(db, "quoted"), ["d"], "quotes around a word in a document separate")
            try await checkThrows("a double quote in a query", { isInvalidSearch($0, part: "query") }) {
                try await ConfSearchArticle.query(on: db).match("\"quoted\"").all()
            }
        },
        ConformanceCase("search.rank-counts-the-distinct-terms-a-document-holds") { db in
            try await seedArticles(
                db,
                [
                    ("a", "swift orm swift", nil), ("b", "swift", nil), ("c", "rust orm", "swiftly"), ("d", "go", nil),
                    ("e", "rust", "orm swift"),
                ])
            let ranked = try await ConfSearchArticle.query(on: db).match("swift OR rust OR orm").orderByRank().order(
                \.id
            )
            .all()
            try checkEqual(ranked.map(\.slug), ["e", "a", "c", "b"], "3 terms, then 2 (a before c by id), then 1")
            let prefixed = try await ConfSearchArticle.query(on: db).match("swift* OR go").orderByRank().order(\.id)
                .all()
            try checkEqual(prefixed.map(\.slug), ["a", "b", "c", "d", "e"], "a prefix term counts once, all rank 1")
            try await checkThrows("orderByRank without match", { isInvalidSearch($0, part: "orderByRank") }) {
                try await ConfSearchArticle.query(on: db).orderByRank().all()
            }
        },
    ]
}
