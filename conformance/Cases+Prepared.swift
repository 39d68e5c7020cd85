// Cases+Prepared: a prepared query reads what the same query built with its values reads, and is refused alike.
import Foundation
import Strata

extension ConformanceSuite {
    /// The names of users, in the order read.
    private static func names(_ users: [ConfUser]) -> [String] { users.map(\.name) }

    static let preparedCases: [ConformanceCase] = [
        ConformanceCase("prepared.reads-what-the-built-query-reads") { db in
            // Each value is run twice: the first run of a kind renders the query, the runs after it bind the
            // values into that SQL. Both read what the query built with the value reads.
            try await Fixtures.seedUsers(db)
            let minimum = QueryParameter<Int>("minimum")
            try await db.withConnection { tx in
                let oldest = try ConfUser.query(on: tx).where(\.age >= minimum).order(\.name).prepared()
                try checkEqual(oldest.parameterNames, ["minimum"], "the parameter names")
                for m in [30, 19, 41, 99, 30, Int.min, 25] {
                    let built = names(try ConfUser.query(on: tx).where(\.age >= m).order(\.name).all())
                    let counted = try ConfUser.query(on: tx).where(\.age >= m).order(\.name).count()
                    for run in 1...2 {
                        try checkEqual(
                            names(try oldest.binding(minimum, to: m).all()), built, "age >= \(m), run \(run)")
                        try checkEqual(
                            try oldest.binding(minimum, to: m).count(), counted, "count of age >= \(m), run \(run)")
                    }
                }
                try checkEqual(
                    names(try oldest.binding(minimum, to: 30).all()), ["Alex", "Zoe", "_under"], "age >= 30")
            }
            // On the database: each run takes a connection of its own.
            let onDatabase = try ConfUser.query(on: db).where(\.age < minimum).order(\.name).prepared()
            try checkEqual(names(try await onDatabase.binding(minimum, to: 26).all()), ["bob", "émile"], "age < 26")
            try checkEqual(names(try await onDatabase.binding(minimum, to: 20).all()), ["émile"], "age < 20")
            try checkEqual(try await onDatabase.binding(minimum, to: 31).first()?.name, "Alex", "first with age < 31")
            try checkEqual(try await onDatabase.binding(minimum, to: 31).count(), 4, "count of age < 31")
            let paged = try ConfUser.query(on: db).where(\.age < minimum).limit(1).offset(1).prepared()
            try checkEqual(
                try await paged.binding(minimum, to: 31).count(),
                try await ConfUser.query(on: db).where(\.age < 31).limit(1).offset(1).count(),
                "a count with a limit and an offset counts as the builder's does")
            let distinct = try ConfUser.query(on: db).where(\.age < minimum).distinct().prepared()
            try await checkThrows("count() of a distinct query", { isInvalidQuery($0, naming: "distinct()") }) {
                try await distinct.binding(minimum, to: 31).count()
            }
            try checkEqual(try await distinct.binding(minimum, to: 31).all().count, 4, "its rows are read")
        },
        ConformanceCase("prepared.parameters-of-every-comparison-and-kind") { db in
            // Text (code-point order), doubles, dates and an optional column, under each operator, against the
            // built query; one parameter in two conditions takes one value.
            try await Fixtures.seedUsers(db)
            let name = QueryParameter<String>("name")
            let score = QueryParameter<Double>("score")
            let since = QueryParameter<Date>("since")
            let age = QueryParameter<Int>("age")
            try await db.withConnection { tx in
                let texts: [(QueryBuilder<ConfUser, Transaction>, Condition<ConfUser>, Condition<ConfUser>)] = [
                    (ConfUser.query(on: tx), \.name == name, \.name == "Zoe"),
                    (ConfUser.query(on: tx), \.name != name, \.name != "Zoe"),
                    (ConfUser.query(on: tx), \.name < name, \.name < "Zoe"),
                    (ConfUser.query(on: tx), \.name <= name, \.name <= "Zoe"),
                    (ConfUser.query(on: tx), \.name > name, \.name > "Zoe"),
                    (ConfUser.query(on: tx), \.name >= name, \.name >= "Zoe"),
                ]
                for (k, (query, withParameter, withValue)) in texts.enumerated() {
                    let prepared = try query.where(withParameter).order(\.name).prepared()
                    let built = names(try ConfUser.query(on: tx).where(withValue).order(\.name).all())
                    try checkEqual(
                        names(try prepared.binding(name, to: "Zoe").all()), built, "text comparison \(k)")
                }
                let scored = try ConfUser.query(on: tx).where(\.score > score).order(\.name).prepared()
                for s: Double in [-2.5, 0.0, 1.5, 1e300] {
                    let built = names(try ConfUser.query(on: tx).where(\.score > s).order(\.name).all())
                    try checkEqual(names(try scored.binding(score, to: s).all()), built, "score > \(s)")
                }
                let joined = try ConfUser.query(on: tx).where(\.joinedAt >= since).order(\.name).prepared()
                for n in [0.0, 120, 300, 1e6] {
                    let d = Date(timeIntervalSince1970: 1_700_000_000 + n)
                    let built = names(try ConfUser.query(on: tx).where(\.joinedAt >= d).order(\.name).all())
                    try checkEqual(names(try joined.binding(since, to: d).all()), built, "joinedAt >= epoch + \(n)")
                }
                let exactly = try ConfUser.query(on: tx).where(\.age >= age).where(\.age <= age).order(\.name)
                    .prepared()
                try checkEqual(names(try exactly.binding(age, to: 30).all()), ["Alex", "_under"], "age == 30 twice")
                let either = try ConfUser.query(on: tx).where(\.age == age || \.name == name).order(\.name).prepared()
                try checkEqual(
                    names(try either.binding(age, to: 41).binding(name, to: "bob").all()), ["Zoe", "bob"],
                    "two parameters")
                try checkEqual(either.parameterNames, ["age", "name"], "the names in the order used")
            }
        },
        ConformanceCase("prepared.unbound-parameter-refused") { db in
            // A parameter without a value, one the query does not name, NULL, and a parameter in a query run
            // unprepared: each refused as invalidQuery naming the parameter, before anything reaches the database.
            try await Fixtures.seedUsers(db)
            let minimum = QueryParameter<Int>("minimum")
            let other = QueryParameter<Int>("other")
            let maybe = QueryParameter<Int64?>("maybe")
            let prepared = try ConfUser.query(on: db).where(\.age >= minimum).prepared()
            try await checkThrows("a run with no value", { isInvalidQuery($0, naming: "\"minimum\"", "no value") }) {
                try await prepared.all()
            }
            try await checkThrows("a parameter the query does not name", { isInvalidQuery($0, naming: "\"other\"") }) {
                try await prepared.binding(other, to: 1).all()
            }
            let nullable = try ConfUser.query(on: db).where(\.groupID == maybe).prepared()
            try await checkThrows("NULL bound", { isInvalidQuery($0, naming: "\"maybe\"", "NULL") }) {
                try await nullable.binding(maybe, to: nil).all()
            }
            try await checkThrows("the query run unprepared", { isInvalidQuery($0, naming: "\"minimum\"") }) {
                try await ConfUser.query(on: db).where(\.age >= minimum).all()
            }
            try await checkThrows("its count run unprepared", { isInvalidQuery($0, naming: "\"minimum\"") }) {
                try await ConfUser.query(on: db).where(\.age >= minimum).count()
            }
            try await checkThrows("an update filtered by it", { isInvalidQuery($0, naming: "\"minimum\"") }) {
                try await ConfUser.query(on: db).where(\.age >= minimum).set(\.name, to: "x").update()
            }
            try checkEqual(
                try await ConfUser.query(on: db).where(\.name == "x").count(), 0, "the update changed nothing")
            try checkEqual(try await prepared.binding(minimum, to: 41).all().count, 1, "bound, it runs")
        },
        ConformanceCase("prepared.explain-shows-the-built-query-plan") { db in
            try await Fixtures.seedUsers(db)
            let email = QueryParameter<String>("email")
            try await db.withConnection { tx in
                let prepared = try ConfUser.query(on: tx).tagged("conformance.prepared").where(\.email == email)
                    .prepared()
                for run in 1...3 {
                    let plan = try prepared.binding(email, to: "user\(run)@x.io").explain()
                    let built = try ConfUser.query(on: tx).tagged("conformance.prepared")
                        .where(\.email == "user\(run)@x.io").explain()
                    try checkEqual(plan, built, "the plan, run \(run)")
                    try check(plan.contains("conf_user_email_key"), "the plan names the unique index: \(plan)")
                }
            }
        },
        ConformanceCase("prepared.first-reads-the-first-row") { db in
            try await Fixtures.seedUsers(db)
            let minimum = QueryParameter<Int>("minimum")
            try await db.withConnection { tx in
                let oldest = try ConfUser.query(on: tx).where(\.age >= minimum).order(\.age, .descending)
                    .order(\.name).prepared()
                try checkEqual(try oldest.binding(minimum, to: 20).first()?.name, "Zoe", "the oldest")
                try checkEqual(try oldest.binding(minimum, to: 50).first()?.name, nil, "none that old")
                try checkEqual(
                    names(try oldest.binding(minimum, to: 20).all()), ["Zoe", "Alex", "_under", "bob"],
                    "all() after first() still reads every row")
                let none = try ConfUser.query(on: tx).where(\.age >= minimum).limit(0).prepared()
                try checkEqual(try none.binding(minimum, to: 0).first()?.name, nil, "a limit of 0 reads none")
            }
        },
        VersionedFixtures.case("prepared.follows-schema-changes") { db in
            // A prepared query run after a migration changed its table reads, or is refused, as the query built
            // then would be: its SQL is checked again once the known tables change.
            try await VersionedFixtures.seed(db)
            let least = QueryParameter<Int>("least")
            let stocked = try VerItem.query(on: db).where(\.qty >= least).order(\.id).prepared()
            try checkEqual(try await stocked.binding(least, to: 10).all().map(\.id), [1, 3], "qty >= 10")
            try await db.migrate([
                Migration("003_note") { $0.addColumn("note", .text, nullable: true, to: "ver_item") }
            ])
            try checkEqual(
                try await stocked.binding(least, to: 20).all().map(\.id), [3], "qty >= 20 after a column was added")
            try await db.migrate([VersionedFixtures.qtyAsText])
            let built = await outcome { try await VerItem.query(on: db).where(\.qty >= 10).order(\.id).all().map(\.id) }
            let prepared = await outcome { try await stocked.binding(least, to: 10).all().map(\.id) }
            switch (built, prepared) {
            case (.failure(let b as StrataError), .failure(let p as StrataError)):
                try checkEqual("\(p)", "\(b)", "the prepared query is refused as the built one is")
            default:
                throw ConformanceFailure(
                    description: "qty made text: the built query gave \(built), the prepared one \(prepared)")
            }
        },
    ]
}

/// What an async body ended with: its value or its error.
private func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
