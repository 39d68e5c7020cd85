// Cases+Ordering: ORDER BY, NULL placement, code-point string order, LIMIT and OFFSET.
import Strata

extension ConformanceSuite {
    static let orderingCases: [ConformanceCase] = [
        ConformanceCase("order.several-columns") { db in
            try await Fixtures.seedUsers(db)
            let rows = try await ConfUser.query(on: db).where(\.age != nil).order(\.age, .descending).order(\.name)
                .all()
            try checkEqual(rows.map(\.name), ["Zoe", "Alex", "_under", "bob", "émile"], "age desc, then name")
        },
        ConformanceCase("order.nulls-first-ascending") { db in
            try await Fixtures.seedUsers(db)
            let rows = try await ConfUser.query(on: db).order(\.score).order(\.name).all()
            try checkEqual(rows.map(\.name), ["_under", "bob", "Alice", "Zoe", "Alex", "émile"], "NULL scores first")
        },
        ConformanceCase("order.nulls-last-descending") { db in
            try await Fixtures.seedUsers(db)
            let rows = try await ConfUser.query(on: db).order(\.score, .descending).order(\.name).all()
            try checkEqual(rows.map(\.name), ["émile", "Alex", "Zoe", "Alice", "_under", "bob"], "NULL scores last")
        },
        ConformanceCase("order.strings-by-code-point") { db in
            try await Fixtures.seedUsers(db)
            let rows = try await ConfUser.query(on: db).order(\.name, .descending).all()
            try checkEqual(
                rows.map(\.name), ["émile", "bob", "_under", "Zoe", "Alice", "Alex"], "binary order, descending")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name < "a")), ["Alex", "Alice", "Zoe", "_under"],
                "'Z' and '_' sort before 'a'")
        },
        ConformanceCase("limit-and-offset") { db in
            try await Fixtures.seedUsers(db)
            let page = try await ConfUser.query(on: db).order(\.name).limit(2).offset(1).all()
            try checkEqual(page.map(\.name), ["Alice", "Zoe"], "second page of two")
            try checkEqual(try await ConfUser.query(on: db).order(\.name).limit(0).all().count, 0, "limit 0")
        },
        ConformanceCase("offset-without-limit") { db in
            try await Fixtures.seedUsers(db)
            let rest = try await ConfUser.query(on: db).order(\.name).offset(4).all()
            try checkEqual(rest.map(\.name), ["bob", "émile"], "offset alone")
        },
        ConformanceCase("limit-negative-is-typed-error") { db in
            try await Fixtures.seedUsers(db)
            try await checkThrows(
                "negative limit",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await ConfUser.query(on: db).limit(-1).all() }
            try await checkThrows(
                "negative offset",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await ConfUser.query(on: db).offset(-3).all() }
        },
    ]
}
