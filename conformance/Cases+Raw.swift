// Cases+Raw: raw SQL conditions in the common subset give the same rows on every driver (memory parses them).
import Strata

extension ConformanceSuite {
    static func rawNames(_ db: Database, _ sql: String, _ binds: any DatabaseValueConvertible...) async throws
        -> [String]
    {
        try await ConfUser.query(on: db).where(Condition.unsafeRaw(sql, binds)).order(\.name).all().map(\.name)
    }

    static let rawCases: [ConformanceCase] = [
        ConformanceCase("raw.comparisons") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await rawNames(db, "age >= ? AND age < ?", 25, 41), ["Alex", "_under", "bob"], ">= <")
            try checkEqual(try await rawNames(db, "score <> 0"), ["Alex", "Alice", "émile"], "<> skips NULL")
            try checkEqual(try await rawNames(db, "age != 30"), ["Zoe", "bob", "émile"], "!=")
            try checkEqual(try await rawNames(db, "? < age", 40), ["Zoe"], "value on the left")
            try checkEqual(try await rawNames(db, "age <= 19 OR age > 40"), ["Zoe", "émile"], "<= and >")
        },
        ConformanceCase("raw.and-or-not-parentheses") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await rawNames(db, "NOT (age = 30 OR age IS NULL) AND active"), ["Zoe", "bob"],
                "NOT over a parenthesised OR, a bare boolean column")
            try checkEqual(
                try await rawNames(db, "(name = 'bob' OR name = 'Zoe') AND NOT active = FALSE"), ["Zoe", "bob"],
                "precedence: NOT binds looser than =")
            try checkEqual(
                try await rawNames(db, "name = 'bob' OR name = 'Zoe' AND age > 100"), ["bob"], "AND before OR")
        },
        ConformanceCase("raw.in-and-not-in") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await rawNames(db, "age IN (25, 30, ?)", 41), ["Alex", "Zoe", "_under", "bob"], "IN")
            try checkEqual(try await rawNames(db, "age NOT IN (?, 30)", 25), ["Zoe", "émile"], "NOT IN skips NULL")
            try checkEqual(try await rawNames(db, "name IN ('Alex', ?)", "bob"), ["Alex", "bob"], "IN of text")
            try checkEqual(try await rawNames(db, "age NOT IN (25, NULL)"), [], "NOT IN with NULL is never true")
            try checkEqual(try await rawNames(db, "age IN (25, NULL)"), ["bob"], "IN with NULL")
        },
        ConformanceCase("raw.like") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await rawNames(db, "name LIKE 'Al%'"), ["Alex", "Alice"], "LIKE literal")
            try checkEqual(try await rawNames(db, "name LIKE ?", "al%"), [], "LIKE is case-sensitive")
            try checkEqual(try await rawNames(db, "name NOT LIKE ?", "%e%"), ["bob"], "NOT LIKE")
            try checkEqual(try await rawNames(db, "name LIKE '_ob'"), ["bob"], "_ is one character")
            try checkEqual(try await rawNames(db, "email LIKE ? ESCAPE '\\'", "user\\_%"), [], "escaped _ is literal")
        },
        ConformanceCase("raw.between") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await rawNames(db, "age BETWEEN ? AND ?", 20, 30), ["Alex", "_under", "bob"], "BETWEEN")
            try checkEqual(
                try await rawNames(db, "score NOT BETWEEN -1 AND 2"), ["Alice", "émile"],
                "NOT BETWEEN, negative literal")
            try checkEqual(
                try await rawNames(db, "age BETWEEN 20 AND 30 AND active = ?", false), [], "BETWEEN inside AND")
        },
        ConformanceCase("raw.is-null-and-is-not-null") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await rawNames(db, "score IS NULL"), ["_under", "bob"], "IS NULL")
            try checkEqual(
                try await rawNames(db, "age IS NOT NULL AND score IS NOT NULL"), ["Alex", "Zoe", "émile"],
                "IS NOT NULL")
        },
        ConformanceCase("raw.names-and-literals") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await rawNames(db, "\"name\" = 'Zoe' OR NAME = 'bob'"), ["Zoe", "bob"],
                "quoted name, and a bare one folded to lower case")
            try checkEqual(
                try await rawNames(db, "score > 1.4 AND score < 3.3e0"), ["Alex", "émile"], "decimal literals")
            try checkEqual(try await rawNames(db, "'it''s' <> name").count, 6, "a quote doubled in a literal")
            try checkEqual(try await rawNames(db, "active = TRUE").count, 4, "TRUE")
            try checkEqual(try await rawNames(db, "active = false"), ["Alice", "émile"], "false, any case")
            try checkEqual(try await rawNames(db, "name = 'émile'"), ["émile"], "non-ASCII literal")
        },
        ConformanceCase("raw.comparison-with-null-is-unknown") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await rawNames(db, "age = NULL"), [], "= NULL")
            try checkEqual(try await rawNames(db, "NOT (age = NULL)"), [], "NOT (= NULL)")
            try checkEqual(try await rawNames(db, "age <> ?", Int?.none), [], "<> a NULL bind")
        },
        ConformanceCase("raw.with-typed-conditions-update-and-delete") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await ConfUser.query(on: db).where(\.active == true).where(unsafeRaw: "age > ?", 26).order(\.name)
                    .all().map(\.name), ["Alex", "Zoe", "_under"], "AND with a typed condition")
            let gone = try await ConfUser.query(on: db).where(unsafeRaw: "age < ? OR name = ?", 26, "Zoe").delete()
            try checkEqual(gone, 3, "DELETE with a raw filter")
            try checkEqual(try await names(ConfUser.query(on: db)), ["Alex", "Alice", "_under"], "the others stay")
        },
        ConformanceCase("raw.bind-count-mismatch-is-invalid") { db in
            try await Fixtures.seedUsers(db)
            try await checkThrows(
                "one bind for two ?",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await rawNames(db, "age > ? AND age < ?", 1) }
            try await checkThrows(
                "two binds for one ?",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await rawNames(db, "age > ?", 1, 2) }
        },
        ConformanceCase("raw.outside-the-subset-names-the-token-where-unsupported") { db in
            try await Fixtures.seedUsers(db)
            // SQL backends run any SQL; the memory driver runs the subset and names the first token outside it.
            for (sql, token) in [("lower(name) = ?", "lower"), ("age + 1 > ?", "+"), ("name || 'x' = ?", "||")] {
                do {
                    let rows = try await rawNames(
                        db, sql, sql.hasPrefix("lower") ? "alex" : sql.hasPrefix("age") ? 40 : "bobx")
                    try checkEqual(rows.count, 1, "\(sql) on a SQL backend")
                } catch StrataError.unsupported(let feature, let driver) {
                    try check(feature.contains("'\(token)'") && driver == "memory", "\(sql): \(feature) on \(driver)")
                }
            }
        },
    ]
}
