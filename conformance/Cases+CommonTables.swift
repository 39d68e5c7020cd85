// Cases+CommonTables: queries that read the rows of a named query (WITH), the same on every driver.
import Foundation
import Strata

extension ConformanceSuite {
    static let commonTableCases: [ConformanceCase] = [
        ConformanceCase("cte.with-query-filtered-ordered-and-paged") { db in
            try await Fixtures.seedUsers(db)
            let active = ConfUser.query(on: db).where(\.active == true)
            let named = ConfUser.query(on: db).with("active_users", active)
            try checkEqual(
                try await named.where(\.age >= 30).order(\.name).values(\.name), ["Alex", "Zoe", "_under"],
                "a where, then an order by code point, over the named rows")
            try checkEqual(
                try await named.order(\.name, .descending).limit(2).offset(1).values(\.name), ["_under", "Zoe"],
                "LIMIT and OFFSET page the named rows")
            try checkEqual(try await named.count(), 4, "COUNT counts the named rows")
            let users = try await named.where(\.name == "Zoe").all()
            try checkEqual(users.map(\.age), [41], "whole models decode from the named rows")
            try checkEqual(users.first?.tags, [], "JSON columns too")
        },
        ConformanceCase("cte.with-query-inside-an-in-subquery") { db in
            try await Fixtures.seedUsers(db)
            let thirty = ConfUser.query(on: db).with("thirty", ConfUser.query(on: db).where(\.age == 30))
            try checkEqual(
                try await ConfUser.query(on: db).where(\.id, in: thirty.select(\.id)).order(\.name).values(\.name),
                ["Alex", "_under"], "IN reads the ids of the named rows")
            try checkEqual(
                try await ConfUser.query(on: db).where(\.id, notIn: thirty.select(\.id)).count(), 4,
                "NOT IN the named rows' ids")
        },
        ConformanceCase("cte.with-query-of-distinct-rows-or-a-set-operation") { db in
            try await Fixtures.seedUsers(db)
            let ages = ConfUser.query(on: db).only(\.age).distinct()
            try checkEqual(
                try await ConfUser.query(on: db).with("ages", ages).order(\.age).values(\.age), [nil, 19, 25, 30, 41],
                "the named rows of a DISTINCT query, its only(…) columns read")
            let thirty = ConfUser.query(on: db).where(\.age == 30)
            let bob = ConfUser.query(on: db).where(\.name == "bob")
            try checkEqual(
                try await ConfUser.query(on: db).with("picked", thirty.union(bob)).order(\.name).values(\.name),
                ["Alex", "_under", "bob"], "the named rows of a UNION")
        },
        ConformanceCase("cte.with-query-refusals-name-the-part") { db in
            try await Fixtures.seedUsers(db)
            let names = ConfUser.query(on: db).only(\.name)
            try await checkThrows(
                "a WITH query named as the table it reads", { isInvalidQuery($0, naming: "WITH query conf_user") }
            ) {
                try await ConfUser.query(on: db).with("conf_user", names).values(\.name)
            }
            try await checkThrows(
                "a column the WITH query does not select", { isInvalidQuery($0, naming: "WITH query n", "email") }
            ) {
                try await ConfUser.query(on: db).with("n", names).values(\.email)
            }
            try await checkThrows(
                "a WITH query read by a set operation", { isInvalidQuery($0, naming: "branch 1", "WITH query") }
            ) {
                try await ConfUser.query(on: db).with("n", names).union(names).values(\.name)
            }
        },
    ]
}
