// Cases+Query: every predicate of the typed builder gives the same rows on every driver.
import Strata

extension ConformanceSuite {
    /// The names of matching users, sorted by code point, for order-free comparisons.
    static func names(_ q: QueryBuilder<ConfUser, Database>) async throws -> [String] {
        try await q.order(\.name).all().map(\.name)
    }

    static let queryCases: [ConformanceCase] = [
        ConformanceCase("where.equal-and-not-equal") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await names(ConfUser.query(on: db).where(\.name == "Zoe")), ["Zoe"], "==")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.age != 30)), ["Zoe", "bob", "émile"],
                "!= excludes NULL ages")
        },
        ConformanceCase("where.comparisons") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await names(ConfUser.query(on: db).where(\.age < 25)), ["émile"], "<")
            try checkEqual(try await names(ConfUser.query(on: db).where(\.age <= 25)), ["bob", "émile"], "<=")
            try checkEqual(try await names(ConfUser.query(on: db).where(\.age > 30)), ["Zoe"], ">")
            try checkEqual(try await names(ConfUser.query(on: db).where(\.age >= 30)), ["Alex", "Zoe", "_under"], ">=")
            try checkEqual(try await names(ConfUser.query(on: db).where(\.score < 0.0)), ["Alice"], "< on Double")
        },
        ConformanceCase("where.in-and-not-in") { db in
            let users = try await Fixtures.seedUsers(db)
            let ids = [users[0].id, users[2].id].compactMap { $0 }
            try checkEqual(try await names(ConfUser.query(on: db).where(\.id, in: ids)), ["Alex", "Zoe"], "in ids")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.age, notIn: [30, 41])), ["bob", "émile"],
                "not in skips NULL ages")
        },
        ConformanceCase("where.in-empty-matches-nothing") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await ConfUser.query(on: db).where(\.name, in: []).count(), 0, "in []")
        },
        ConformanceCase("where.not-in-empty-matches-everything") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await ConfUser.query(on: db).where(\.age, notIn: []).count(), 6, "not in [] (NULLs too)")
        },
        ConformanceCase("where.not-in-with-null-matches-nothing") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await ConfUser.query(on: db).where(\.age, notIn: [25, nil]).count(), 0,
                "NOT IN (25, NULL) is never true")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.age, in: [25, nil])), ["bob"], "IN (25, NULL)")
        },
        ConformanceCase("where.like-case-sensitive") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await names(ConfUser.query(on: db).where(\.name ~~ "Al%")), ["Alex", "Alice"], "Al%")
            try checkEqual(try await names(ConfUser.query(on: db).where(\.name ~~ "al%")), [], "al% does not match Al")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name !~~ "%e%")),
                ["Zoe", "_under", "bob"].filter { !$0.contains("e") },
                "not like")
        },
        ConformanceCase("where.like-case-insensitive-ascii") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name, like: "AL%", caseInsensitive: true)),
                ["Alex", "Alice"], "ASCII folds")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name, like: "É%", caseInsensitive: true)), [],
                "non-ASCII does not fold")
        },
        ConformanceCase("where.like-escapes") { db in
            try await Fixtures.seedUsers(db)
            var odd = ConfUser(name: "50%_off\\", email: "odd@x.io")
            try await odd.save(on: db)
            try checkEqual(
                try await names(ConfUser.query(on: db).where(.contains(\.name, "%_"))), ["50%_off\\"],
                "contains treats % and _ literally")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(.contains(\.name, "\\"))), ["50%_off\\"],
                "backslash literal")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name ~~ "\\_%")), ["_under"], "escaped _ in a pattern")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(.hasPrefix(\.name, "_"))), ["_under"], "prefix _")
        },
        ConformanceCase("where.like-underscore-is-one-character") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name ~~ "_mile")), ["émile"], "é is one character")
            try checkEqual(try await names(ConfUser.query(on: db).where(\.name ~~ "b_")), [], "_ needs exactly one")
        },
        ConformanceCase("where.between") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.age, between: 25...30)), ["Alex", "_under", "bob"],
                "inclusive bounds")
        },
        ConformanceCase("where.is-null") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await names(ConfUser.query(on: db).where(\.age == nil)), ["Alice"], "== nil")
            try checkEqual(try await ConfUser.query(on: db).where(\.score != nil).count(), 4, "!= nil")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(.isNull(\.score))), ["_under", "bob"], "isNull")
        },
        ConformanceCase("where.and-or-not") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.active == true && \.age == 30)),
                ["Alex", "_under"], "and")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name == "Zoe" || \.age == 19)),
                ["Zoe", "émile"], "or")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(!(\.active == true))), ["Alice", "émile"], "not")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.active == true).where(\.age > 26)),
                ["Alex", "Zoe", "_under"], "chained where is AND")
        },
        ConformanceCase("where.null-is-unknown") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(
                try await names(ConfUser.query(on: db).where(!(\.age == 30))), ["Zoe", "bob", "émile"],
                "NOT (NULL = 30) is not true")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.age == 30 || \.score > 3.0)),
                ["Alex", "_under", "émile"], "NULL OR true is true")
        },
        ConformanceCase("where.text-is-compared-by-bytes") { db in
            try await Fixtures.migrate(db)
            var nfc = ConfUser(name: "caf\u{E9}", email: "nfc@x.io")
            var nfd = ConfUser(name: "cafe\u{301}", email: "nfd@x.io")
            try await nfc.save(on: db)
            try await nfd.save(on: db)
            try checkEqual(
                try await ConfUser.query(on: db).where(\.name == "caf\u{E9}").all().map(\.email), ["nfc@x.io"],
                "precomposed é matches only itself")
            let back = try await ConfUser.find(nfd.id ?? -1, on: db)
            try check(
                back.map { Array($0.name.unicodeScalars) == Array("cafe\u{301}".unicodeScalars) } ?? false,
                "decomposed form kept scalar for scalar")
        },
        ConformanceCase("where.transient-key-path-is-typed-error") { db in
            try await Fixtures.migrate(db)
            try await checkThrows(
                "filter on @Transient",
                {
                    if case .unknownColumn(model: "ConfUser", _) = $0 { return true }
                    return false
                }
            ) { try await ConfUser.query(on: db).where(\.draft == "x").all() }
        },
        ConformanceCase("where.unsafe-raw") { db in
            try await Fixtures.seedUsers(db)
            let rows = try await ConfUser.query(on: db).where(unsafeRaw: "\"age\" > ? AND \"name\" <> ?", 20, "Zoe")
                .order(\.name).all()
            try checkEqual(rows.map(\.name), ["Alex", "_under", "bob"], "raw fragment with bound values")
        },
        ConformanceCase("select.count-exists-first") { db in
            try await Fixtures.seedUsers(db)
            try checkEqual(try await ConfUser.query(on: db).count(), 6, "count")
            try checkEqual(try await ConfUser.query(on: db).where(\.active == true).count(), 4, "filtered count")
            try checkEqual(
                try await ConfUser.query(on: db).order(\.name).limit(2).offset(5).count(), 1,
                "count honours limit/offset")
            try check(try await ConfUser.query(on: db).where(\.name == "bob").exists(), "exists")
            try check(!(try await ConfUser.query(on: db).where(\.name == "nobody").exists()), "not exists")
            try checkEqual(try await ConfUser.query(on: db).order(\.name, .descending).first()?.name, "émile", "first")
            try checkEqual(try await ConfUser.query(on: db).where(\.name == "nobody").first(), nil, "first of none")
        },
        ConformanceCase("select.only-and-except") { db in
            try await Fixtures.seedUsers(db)
            let partial = try await ConfUser.query(on: db).where(\.name == "Alex").only(\.id, \.name, \.email).first()
            try checkEqual(partial?.name, "Alex", "selected column read")
            try checkEqual(partial?.age, nil, "unselected optional is nil")
            try checkEqual(partial?.active, true, "unselected column with a default takes it")
            let without = try await ConfUser.query(on: db).where(\.name == "Alice").except(\.tags, \.score).first()
            try checkEqual(without?.score, nil, "excepted column not read")
            try checkEqual(without?.active, false, "other columns read")
            try await checkThrows(
                "required column not selected",
                {
                    $0 == .columnNotSelected(model: "ConfUser", column: "email")
                }
            ) { try await ConfUser.query(on: db).only(\.id, \.name).all() }
        },
        ConformanceCase("select.values-of-one-column") { db in
            try await Fixtures.seedUsers(db)
            let ages = try await ConfUser.query(on: db).where(\.active == true).order(\.age).values(\.age)
            try checkEqual(ages, [25, 30, 30, 41], "plucked values in order")
        },
    ]
}
