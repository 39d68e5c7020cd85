// Cases+Pages: keyset and numbered pages, explain() and query tags, the same on every driver.
import Foundation
import Strata

extension ConformanceSuite {
    /// Walks every keyset page of `query` (`limit` rows each), passing each cursor through its text as a client
    /// would; stops after `maxPages` so a cursor that never advances fails instead of looping.
    static func walkPages(
        _ query: QueryBuilder<ConfUser, Database>, limit: Int, maxPages: Int = 50,
        between: (Int) async throws -> Void = { _ in }
    ) async throws -> [[ConfUser]] {
        var pages: [[ConfUser]] = []
        var cursor: PageCursor?
        for n in 0..<maxPages {
            let page = try await query.page(after: cursor, limit: limit)
            pages.append(page.items)
            guard let next = page.nextCursor else { return pages }
            try check(page.items.count == limit, "a page with a next cursor is full (page \(n))")
            cursor = PageCursor(next.description)
            try check(cursor == next, "a cursor survives its text")
            try await between(n)
        }
        throw ConformanceFailure(description: "the pages did not end after \(maxPages) pages")
    }

    static let pageCases: [ConformanceCase] = [
        ConformanceCase("page.keyset-walks-every-row-once-in-order") { db in
            try await Fixtures.seedUsers(db)
            // age is optional (two NULLs), descending puts them last; name breaks ties; id ends the order.
            let query = ConfUser.query(on: db).order(\.age, .descending).order(\.name).order(\.id)
            let all = try await query.all().map(\.name)
            for limit in 1...4 {
                let pages = try await walkPages(query, limit: limit)
                try checkEqual(pages.flatMap { $0 }.map(\.name), all, "pages of \(limit) read the ordered rows")
            }
        },
        ConformanceCase("page.keyset-nullable-ascending-nulls-first") { db in
            try await Fixtures.seedUsers(db)
            let query = ConfUser.query(on: db).order(\.score).order(\.id, .descending)
            let all = try await query.all().map(\.name)
            try checkEqual(Array(all.prefix(2)).sorted(), ["_under", "bob"], "NULL scores come first ascending")
            let pages = try await walkPages(query, limit: 1)
            try checkEqual(pages.flatMap { $0 }.map(\.name), all, "pages of 1 read the ordered rows")
            try checkEqual(pages.count, all.count, "one page per row and no empty last page")
        },
        ConformanceCase("page.keyset-with-a-filter-and-text-by-code-point") { db in
            try await Fixtures.seedUsers(db)
            let query = ConfUser.query(on: db).where(\.active == true).order(\.name, .descending).order(\.id)
            let pages = try await walkPages(query, limit: 2)
            try checkEqual(
                pages.flatMap { $0 }.map(\.name), ["bob", "_under", "Zoe", "Alex"],
                "active users by name descending, by code point")
        },
        ConformanceCase("page.keyset-stable-under-concurrent-inserts") { db in
            try await Fixtures.migrate(db)
            try await db.transaction { tx in
                for n in 0..<10 {
                    var u = ConfUser(name: String(format: "m%02d", n * 2), email: "m\(n)@x.io")
                    try u.save(tx)
                }
            }
            let query = ConfUser.query(on: db).order(\.name).order(\.id)
            let pages = try await walkPages(query, limit: 3) { n in
                // Between pages another connection inserts a row before the cursor and one far after it.
                var early = ConfUser(name: "a\(n)", email: "a\(n)@x.io")
                try await early.save(on: db)
                var late = ConfUser(name: "z\(n)", email: "z\(n)@x.io")
                try await late.save(on: db)
            }
            let names = pages.flatMap { $0 }.map(\.name)
            try checkEqual(names.count, Set(names).count, "no row is read twice")
            let original = (0..<10).map { String(format: "m%02d", $0 * 2) }
            try checkEqual(names.filter { $0.hasPrefix("m") }, original, "no original row is skipped")
            try check(names.filter { $0.hasPrefix("a") }.isEmpty, "rows inserted before the cursor are not read")
            try check(names.filter { $0.hasPrefix("z") }.count >= 3, "rows inserted after the cursor are read")
            try checkEqual(names, names.sorted(), "the walk stays in order")
        },
        ConformanceCase("page.keyset-order-must-end-in-the-primary-key") { db in
            try await Fixtures.seedUsers(db)
            let isOrder: (StrataError) -> Bool = {
                if case .invalidArgument("order", let reason) = $0 { return reason.contains("ConfUser") }
                return false
            }
            try await checkThrows("an order ending in name", isOrder) {
                try await ConfUser.query(on: db).order(\.name).page(after: nil, limit: 2)
            }
            try await checkThrows("no order", isOrder) { try await ConfUser.query(on: db).page(after: nil, limit: 2) }
            try await checkThrows("a limit of 0", { if case .invalidArgument("limit", _) = $0 { true } else { false } })
            {
                try await ConfUser.query(on: db).order(\.id).page(after: nil, limit: 0)
            }
            let first = try await ConfUser.query(on: db).order(\.name).order(\.id).page(after: nil, limit: 2)
            try await checkThrows(
                "a cursor of another order", { if case .invalidArgument("cursor", _) = $0 { true } else { false } }
            ) {
                try await ConfUser.query(on: db).order(\.email).order(\.id).page(after: first.nextCursor, limit: 2)
            }
            try check(PageCursor("not a cursor") == nil, "text that is no cursor reads as nil")
        },
        ConformanceCase("page.numbered-with-total-in-one-call") { db in
            try await Fixtures.seedUsers(db)
            let query = ConfUser.query(on: db).where(\.active == true).order(\.name).order(\.id)
            let all = try await query.all().map(\.name)
            let second = try await query.page(number: 2, size: 3)
            try checkEqual(second.items.map(\.name), Array(all.dropFirst(3)), "page 2 of 3 rows")
            try checkEqual(second.total, 4, "the total counts the whole filter")
            try checkEqual(second.pageCount, 2, "4 rows fill 2 pages of 3")
            let past = try await query.page(number: 9, size: 3)
            try checkEqual(past.items.count, 0, "a page past the end is empty")
            try checkEqual(past.total, 4, "and still tells the total")
            let inside = try await db.transaction { tx in
                try ConfUser.query(on: tx).order(\.id).page(number: 1, size: 4)
            }
            try checkEqual(inside.total, 6, "inside a transaction too")
            try checkEqual(inside.items.count, 4, "a full first page")
            try await checkThrows("page 0", { if case .invalidArgument("number", _) = $0 { true } else { false } }) {
                try await query.page(number: 0, size: 3)
            }
            try await checkThrows("size 0", { if case .invalidArgument("size", _) = $0 { true } else { false } }) {
                try await query.page(number: 1, size: 0)
            }
        },
        ConformanceCase("explain.names-the-index-of-an-indexed-filter") { db in
            try await Fixtures.seedUsers(db)
            let indexed = try await ConfUser.query(on: db).where(\.email == "user1@x.io").explain()
            try check(!indexed.isEmpty, "the plan is not empty")
            try check(indexed.contains("conf_user_email_key"), "the plan names the unique index: \(indexed)")
            let scan = try await ConfUser.query(on: db).where(\.name == "Zoe").order(\.name).explain()
            try check(!scan.isEmpty, "a plan without an index is not empty either")
            try check(!scan.contains("conf_user_email_key"), "a filter on name uses no email index: \(scan)")
            try await checkThrows(
                "a bad tag refused before the plan", { if case .invalidArgument("tag", _) = $0 { true } else { false } }
            ) {
                try await ConfUser.query(on: db).tagged("x */").explain()
            }
        },
        ConformanceCase("explain.repeated-shapes-are-checked-each-time") { db in
            // explain() shares the statement check and the rendering of the shape the connection ran or explained
            // last (the render cache's memo): what the check reads of a value still refuses, and a tag is still
            // checked, as on a fresh connection, on every driver.
            try await Fixtures.seedUsers(db)
            func plan(_ tx: Transaction, _ pattern: String, limit: Int, tag: String = "conformance.plan") throws
                -> String
            {
                try ConfUser.query(on: tx).tagged(tag).where(\.name ~~ pattern).limit(limit).explain()
            }
            let badTag: (StrataError) -> Bool = { if case .invalidArgument("tag", _) = $0 { true } else { false } }
            try await db.withConnection { tx in
                let rows = try ConfUser.query(on: tx).tagged("conformance.plan").where(\.name ~~ "A%").limit(10)
                    .all()
                try checkEqual(rows.count, 2, "the query whose shape is explained next")
                for pattern in ["A%", "Z%"] {
                    try check(!(try plan(tx, pattern, limit: 10)).isEmpty, "a plan: \(pattern)")
                }
                try checkThrowsSync(
                    "the same shape with a lone escape",
                    { $0 == .invalidQuery("LIKE pattern ends with the escape character \\") }
                ) { try plan(tx, "A\\", limit: 10) }
                try checkThrowsSync("the same shape with a negative limit", { isInvalidQuery($0, naming: "-1") }) {
                    try plan(tx, "A%", limit: -1)
                }
                // The comment's end is refused by its bytes, a combining mark after it or not; so is a C1 control.
                for tag in ["x */\u{301} DELETE", "next\u{85}line"] {
                    try checkThrowsSync("the tag \(tag.debugDescription)", badTag) {
                        try plan(tx, "A%", limit: 10, tag: tag)
                    }
                }
                try check(!(try plan(tx, "A%", limit: 2, tag: "no\u{A0}break")).isEmpty, "a plan after the refusals")
            }
            try checkEqual(try await ConfUser.query(on: db).count(), 6, "nothing was written")
        },
        ConformanceCase("tag.carried-into-the-statement-log") { db in
            try await Fixtures.seedUsers(db)
            let logs = CapturedLogs()
            let logged = try await observed(db) { $0.logger = logs.logger(level: .debug) }
            defer { logged.close() }
            let found = try await ConfUser.query(on: logged).tagged("conformance.tag-log").where(\.age == 30).count()
            try checkEqual(found, 2, "the tagged query answers as without a tag")
            let tagged = logs.records.filter { $0.metadata["db.tag"] == "conformance.tag-log" }
            try checkEqual(tagged.count, 1, "one statement log carries the tag")
            try check(
                tagged.first?.metadata["db.statement"]?.hasPrefix("/* conformance.tag-log */ SELECT") == true,
                "the SQL starts with the tag as a comment: \(tagged.first?.metadata["db.statement"] ?? "none")")
            let site = try await ConfUser.query(on: logged).taggedWithCallSite().all()
            try checkEqual(site.count, 6, "a call-site tag reads every row")
            try check(
                logs.records.contains {
                    $0.metadata["db.tag"]?.hasPrefix("StrataConformance/Cases+Pages.swift:") == true
                },
                "the call-site tag names this file")
        },
        ConformanceCase("tag.refuses-what-could-end-the-comment") { db in
            try await Fixtures.seedUsers(db)
            for bad in [
                "a */ DELETE FROM conf_user; /*", "/* nested", "", "two\nlines", "nul\u{0}",
                String(repeating: "x", count: 201),
            ] {
                try await checkThrows(
                    "the tag \(bad.debugDescription)",
                    { if case .invalidArgument("tag", _) = $0 { true } else { false } }
                ) {
                    try await ConfUser.query(on: db).tagged(bad).all()
                }
            }
            try checkEqual(try await ConfUser.query(on: db).count(), 6, "no refused tag ran anything")
            let fine = try await ConfUser.query(on: db).tagged("ok * / -- 'quoted' \"é\"").count()
            try checkEqual(fine, 6, "stars, slashes apart, dashes and quotes are fine in a tag")
        },
    ]
}
