// Cases+Numbers: numbers at their edges (issue 24): decimal expressions, NaN, overflow, avg, decimal digits.
import Foundation
import Strata

@Model(table: "conf_number")
struct ConfNumber {
    var id: Int64?
    var n: Int64 = 0
    var x: Double = 0
    var y: Double = 0
    var optDec: Decimal?
    var optDec2: Decimal?
    var amount = Decimal(0)
    var s = ""
}

extension ConformanceSuite {
    static func numbers(_ db: Database, _ rows: [ConfNumber]) async throws {
        try await db.migrate(ConfNumber.self)
        var rows = rows
        try await ConfNumber.insertAll(&rows, on: db)
    }

    static func dec(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0 }

    static func isArithmeticError(_ e: StrataError) -> Bool {
        if case .arithmeticError = e { true } else { false }
    }

    static let numberCases: [ConformanceCase] = [
        ConformanceCase("numbers.decimal-expressions-compare-as-numbers") { db in
            // SQLite compared COALESCE over decimal text as text ('2.98' < '10' is false), in reads and writes.
            try await numbers(
                db,
                [
                    ConfNumber(optDec: nil, amount: dec("1")), ConfNumber(optDec: dec("10"), amount: 2),
                    ConfNumber(optDec: dec("9.5"), amount: 3),
                ])
            let below = ConfNumber.query(on: db).where(coalesce(\.optDec, dec("2.98")) < dec("10"))
            try checkEqual(try await below.count(), 2, "coalesce(optDec, 2.98) < 10")
            try checkEqual(
                try await ConfNumber.query(on: db).where(coalesce(\.optDec, dec("2.98")) == dec("10.00"))
                    .count(), 1, "coalesce(optDec, 2.98) = 10.00")
            try checkEqual(
                try await ConfNumber.query(on: db).where(
                    Condition(
                        .between(
                            .coalesce([.column("opt_dec"), .value(.decimal(dec("2.98")))]),
                            .value(.decimal(dec("3"))), .value(.decimal(dec("10")))))
                ).count(), 2, "coalesce BETWEEN 3 AND 10")
            try checkEqual(
                try await ConfNumber.query(on: db).where(
                    Condition(.inList(.coalesce([.column("opt_dec"), .value(.decimal(1))]), [.decimal(dec("9.50"))]))
                ).count(), 1, "coalesce IN (9.50)")
            try checkEqual(try await below.delete(), 2, "delete with the same predicate")
            try checkEqual(try await ConfNumber.query(on: db).count(), 1, "one row left")
        },
        ConformanceCase("numbers.coalesce-over-decimal-columns-compares-and-sorts-as-numbers") { db in
            // A COALESCE over decimal columns only (no decimal value in sight) compared and sorted as text on
            // SQLite: "10" < "9.5", and amount 2 < coalesce(10) was false.
            try await numbers(
                db,
                [
                    ConfNumber(optDec: nil, amount: 1, s: "a"), ConfNumber(optDec: 10, amount: 2, s: "b"),
                    ConfNumber(optDec: dec("9.5"), amount: 3, s: "c"), ConfNumber(optDec: nil, amount: 20, s: "d"),
                ])
            let sorted = try await ConfNumber.query(on: db).order(coalesce(\.optDec, \.amount)).all()
            try checkEqual(sorted.map(\.s), ["a", "c", "b", "d"], "order by coalesce(optDec, amount)")
            let descending = try await ConfNumber.query(on: db).order(coalesce(\.optDec, \.amount), .descending).all()
            try checkEqual(descending.map(\.s), ["d", "b", "c", "a"], "descending")
            // optDec2 is NULL on every row: the left side is the amount.
            let below = ConfNumber.query(on: db).where(coalesce(\.optDec2, \.amount) < coalesce(\.optDec, \.amount))
            try checkEqual(try await below.order(\.s).all().map(\.s), ["b", "c"], "coalesce < coalesce")
            try checkEqual(try await below.delete(), 2, "delete with the same predicate")
            try checkEqual(try await ConfNumber.query(on: db).order(\.s).all().map(\.s), ["a", "d"], "rows left")
        },
        ConformanceCase("numbers.nan-from-expressions-and-aggregates-is-null") { db in
            // inf - inf, inf / inf: SQLite turned NaN into NULL, memory and PostgreSQL kept NaN.
            try await refuseInfinitiesWhereNotStored(db) {
                // No DOUBLE holds ±infinity there, so no expression meets one: writing one is refused.
                try await db.migrate(ConfNumber.self)
                var rows = [ConfNumber(x: .infinity, y: -.infinity, s: "a"), ConfNumber(x: 0.2, y: 1, s: "b")]
                try await checkThrows("inserting ±infinity", isTypeMismatch("conf_number", "x")) {
                    try await ConfNumber.insertAll(&rows, on: db)
                }
                try checkEqual(rows.map(\.id), [nil, nil], "no ids handed out")
                try checkEqual(try await ConfNumber.query(on: db).count(), 0, "nothing written")
                var finite = ConfNumber(x: 0.2, y: 1, s: "b")
                try await finite.save(on: db)
                try await checkThrows("setting -infinity", isTypeMismatch("conf_number", "x")) {
                    try await ConfNumber.query(on: db).where(\.s == "b").set(\.x, to: -.infinity).update()
                }
                try checkEqual(try await ConfNumber.query(on: db).values(\.x), [0.2], "the row unchanged")
            }
            try await numbers(
                db, [ConfNumber(x: .infinity, y: -.infinity, s: "a"), ConfNumber(x: 0.2, y: 1, s: "b")])
            try checkEqual(try await ConfNumber.query(on: db).where(\.x / \.x > 0).count(), 1, "x / x > 0")
            let yMinusY = try (\ConfNumber.y - \ConfNumber.y).expression
            try checkEqual(
                try await ConfNumber.query(on: db).where(Condition(.isNull(yMinusY))).count(), 1, "y - y IS NULL")
            try checkEqual(
                try await ConfNumber.query(on: db).where(coalesce(\.optDec, dec("0")) == dec("0"))
                    .where(Condition(.isNull(.arithmetic(.multiply, .column("x"), .value(.double(0)))))).count(), 1,
                "inf * 0 IS NULL")
            try checkEqual(try await ConfNumber.query(on: db).avg(\.x), .infinity, "avg over {inf, 0.2}")
            _ = try await ConfNumber.query(on: db).where(\.s == "b").set(\.x, to: -.infinity).update()
            try checkEqual(try await ConfNumber.query(on: db).avg(\.x), nil, "avg over {inf, -inf} is nil")
            try checkEqual(try await ConfNumber.query(on: db).sum(\.x), nil, "sum over {inf, -inf} is nil")
            try await checkThrows("x = x - x", { if case .notNullViolation = $0 { true } else { false } }) {
                try await ConfNumber.query(on: db).where(\.s == "a").update(set: \.x, to: \.x - \.x)
            }
            try checkEqual(try await ConfNumber.query(on: db).where(\.x == .infinity).count(), 1, "row unchanged")
        },
        ConformanceCase("numbers.integer-sum-overflow-in-a-dropped-group-answers") { db in
            // SQLite's SUM failed the whole query for a group HAVING drops; memory and PostgreSQL answered.
            try await numbers(
                db, [ConfNumber(n: .max, s: "big"), ConfNumber(n: .max, s: "big"), ConfNumber(n: 1, s: "small")])
            let rows = try await ConfNumber.query(on: db).group(by: \.s).having(.count() < 2)
                .select(.column(\.s), .sum(\.n))
            try checkEqual(rows.map(\.0), ["small"], "the small group")
            try checkEqual(rows.map(\.1), [1], "its sum")
            try await checkThrows("sum of the big group", isArithmeticError) {
                try await ConfNumber.query(on: db).group(by: \.s).select(.column(\.s), .sum(\.n))
            }
            try await checkThrows("having on the big group's sum", isArithmeticError) {
                try await ConfNumber.query(on: db).group(by: \.s).having(.sum(\.n) > 0).select(.column(\.s))
            }
            // A running total may pass Int64 mid-way: only the exact total must fit.
            _ = try await ConfNumber.query(on: db).where(\.n == 1).set(\.n, to: -.max).update()
            try checkEqual(try await ConfNumber.query(on: db).sum(\.n), .max, "max + max - max")
        },
        ConformanceCase("numbers.avg-of-large-doubles-answers") { db in
            // PostgreSQL's avg(float8) also sums squares, which overflowed near 1e300.
            try await numbers(db, [ConfNumber(x: 1e300), ConfNumber(x: 2e299)])
            try checkEqual(try await ConfNumber.query(on: db).avg(\.x), (1e300 + 2e299) / 2, "avg near 1e300")
            _ = try await ConfNumber.query(on: db).set(\.x, to: 1.5e308).update()
            try await checkThrows("sum past Double.greatestFiniteMagnitude", isArithmeticError) {
                try await ConfNumber.query(on: db).sum(\.x)
            }
            try await checkThrows("avg past Double.greatestFiniteMagnitude", isArithmeticError) {
                try await ConfNumber.query(on: db).avg(\.x)
            }
        },
        ConformanceCase("numbers.double-sum-overflow-fails-even-in-a-dropped-group") { db in
            // PostgreSQL checks every float8 addition as it accumulates, for every group; memory summed only the
            // groups HAVING kept.
            try await numbers(
                db, [ConfNumber(x: 1.5e308, s: "big"), ConfNumber(x: 1.5e308, s: "big"), ConfNumber(x: 1, s: "small")])
            try await checkThrows("a group HAVING drops", isArithmeticError) {
                try await ConfNumber.query(on: db).group(by: \.s).having(.count() < 2).select(.column(\.s), .sum(\.x))
            }
            let small = try await ConfNumber.query(on: db).where(\.s == "small").group(by: \.s)
                .select(.column(\.s), .avg(\.x))
            try checkEqual(small.map(\.1), [1.0], "the small group alone")
        },
        ConformanceCase("numbers.avg-is-the-exact-sum-over-the-count") { db in
            // SQLite summed integers in doubles (…248 instead of …249) and decimals with rounding.
            try await numbers(
                db,
                [9_007_199_254_740_993, 1, 1, 1].map { ConfNumber(n: $0, amount: dec("0.1")) })
            try checkEqual(try await ConfNumber.query(on: db).avg(\.n), 2_251_799_813_685_249.0, "avg past 2^53")
            _ = try await ConfNumber.query(on: db).where(\.n == 1).set(\.amount, to: dec("0.2")).update()
            // The exact sum 0.7 read as the nearest double, then divided by the count: rounded twice, no more.
            try checkEqual(try await ConfNumber.query(on: db).avg(\.amount), 0.7 / 4, "avg of decimals")
            _ = try await ConfNumber.query(on: db).set(\.n, to: .max).update()
            try checkEqual(try await ConfNumber.query(on: db).avg(\.n), Double(Int64.max), "avg past Int64 sums")
        },
        ConformanceCase("numbers.decimal-past-38-digits-is-typed-error") { db in
            // PostgreSQL's numeric summed exactly, Foundation's Decimal rounded to 38 digits.
            try await numbers(
                db,
                [
                    ConfNumber(amount: dec("123456789012345678901234567890")),
                    ConfNumber(amount: dec("12345678901234567890.1234567891")),
                ])
            try await checkThrows("sum with 40 significant digits", isArithmeticError) {
                try await ConfNumber.query(on: db).sum(\.amount)
            }
            _ = try await ConfNumber.query(on: db).set(\.amount, to: dec("12345678901234567890.123456789")).update()
            try checkEqual(
                try await ConfNumber.query(on: db).sum(\.amount), dec("24691357802469135780.246913578"),
                "29 digits are exact")
        },
        ConformanceCase("numbers.decimal-sum-may-pass-38-digits-on-the-way") { db in
            // Only the total is held to 38 digits, as a running integer sum may pass Int64: memory and SQLite failed
            // on the partial sum x - 10^29 (49 digits), PostgreSQL's numeric answered x (fuzz seed 1981972441).
            let x = dec("52323863884.3797783103250637441")
            let big = dec("123456789012345678901234567890")
            try await numbers(
                db,
                [
                    ConfNumber(amount: x, s: "a"), ConfNumber(amount: -big, s: "a"), ConfNumber(amount: big, s: "a"),
                    ConfNumber(amount: dec("0.5"), s: "b"),
                ])
            let a = ConfNumber.query(on: db).where(\.s == "a")
            try checkEqual(try await a.sum(\.amount), x, "x - 10^29 + 10^29")
            try checkEqual(try await a.avg(\.amount), (Double("52323863884.3797783103250637441") ?? 0) / 3, "its avg")
            let rows = try await ConfNumber.query(on: db).group(by: \.s).having(.sum(\.amount) > dec("1"))
                .select(.column(\.s), .sum(\.amount))
            try checkEqual(rows.map(\.0), ["a"], "HAVING reads the total, not the partial sum")
            try checkEqual(rows.map(\.1), [x], "the group's sum")
            // A total past 38 digits is still an error, however it was reached.
            _ = try await ConfNumber.query(on: db).where(\.amount == big).set(\.amount, to: dec("0.1")).update()
            try await checkThrows("x - 10^29 + 0.1: 49 digits", isArithmeticError) {
                try await a.sum(\.amount)
            }
        },
        ConformanceCase("numbers.integer-and-double-compare-as-doubles") { db in
            // (Int64.max - 0.0) = Int64.max: PostgreSQL compares as doubles; memory compared exactly.
            try await numbers(db, [ConfNumber(n: .max, x: 0)])
            let difference = SQLExpression.arithmetic(.subtract, .column("n"), .column("x"))
            try checkEqual(
                try await ConfNumber.query(on: db).where(
                    Condition(.compare(.equal, difference, .value(.integer(.max))))
                ).count(), 1, "(n - x) = Int64.max")
            try checkEqual(
                try await ConfNumber.query(on: db).where(
                    Condition(.compare(.less, difference, .value(.integer(.max))))
                ).count(), 0, "(n - x) < Int64.max")
        },
        ConformanceCase("numbers.raw-like-dangling-escape-is-an-error") { db in
            // A raw condition whose LIKE pattern ends in the escape: refused by the core before any driver.
            try await numbers(db, [ConfNumber(s: "a\\")])
            try await checkThrows("raw LIKE 'a\\'", { if case .invalidQuery = $0 { true } else { false } }) {
                try await ConfNumber.query(on: db).where(unsafeRaw: "s LIKE ? ESCAPE '\\'", "a\\").count()
            }
        },
    ]
}
