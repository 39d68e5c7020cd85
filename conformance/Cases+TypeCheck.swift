// Cases+TypeCheck: comparisons across types and LIKE over a column that is not text are refused by the core's
// statement check, naming the table and the column; a decimal sum past 38 digits in HAVING fails (issue 25).
import Foundation
import Strata

extension ConformanceSuite {
    /// Runs an AST-built statement on one connection, as the query builder's callers cannot write it.
    static func runAST(_ db: Database, _ statement: Statement) async throws -> Int {
        try await db.withConnection { tx in
            var rows = 0
            _ = try tx.execute(statement) { _ in rows += 1 }
            return rows
        }
    }

    /// `SELECT COUNT(*) FROM conf_number WHERE filter`, built as an AST.
    static func countNumbers(_ filter: SQLExpression) -> Statement {
        .select(Select(table: "conf_number", selection: .count, filter: filter))
    }

    /// Whether `error` is an arithmetic error for a decimal past 38 significant digits.
    static func isDecimalPastLimit(_ e: StrataError) -> Bool {
        if case .arithmeticError(_, let reason) = e { reason.contains("38 significant digits") } else { false }
    }

    static let typeCheckCases: [ConformanceCase] = [
        ConformanceCase("compare.across-types-refused") { db in
            // SQLite and memory compared storage classes and answered rows; PostgreSQL refused (issue 25).
            try await numbers(db, [ConfNumber(n: 1, x: 1.5, amount: 2, s: "1"), ConfNumber(n: 2, s: "b")])
            let text = isTypeMismatch("conf_number", "s")
            try await checkThrows("text column = integer", text) {
                try await runAST(db, countNumbers(.compare(.equal, .column("s"), .value(.integer(1)))))
            }
            try await checkThrows("integer value < text column (value first)", text) {
                try await runAST(db, countNumbers(.compare(.less, .value(.integer(1)), .column("s"))))
            }
            try await checkThrows("integer column IN (text)", isTypeMismatch("conf_number", "n")) {
                try await runAST(db, countNumbers(.inList(.column("n"), [.null, .text("1")])))
            }
            try await checkThrows("decimal column BETWEEN texts", isTypeMismatch("conf_number", "amount")) {
                try await runAST(db, countNumbers(.between(.column("amount"), .value(.text("a")), .value(.text("z")))))
            }
            try await checkThrows("text column > integer column", text) {
                try await runAST(db, countNumbers(.compare(.greater, .column("s"), .column("n"))))
            }
            try await checkThrows("double column = bool", isTypeMismatch("conf_number", "x")) {
                try await runAST(db, countNumbers(.not(.compare(.equal, .column("x"), .value(.bool(true))))))
            }
            try await checkThrows("in a subquery, over its own table", text) {
                let inner = Select(
                    table: "conf_number", selection: .columns(["id"]),
                    filter: .compare(.equal, .column("s"), .value(.date(Date(timeIntervalSince1970: 0)))))
                return try await runAST(db, countNumbers(.inSubquery(.column("id"), inner, negated: false)))
            }
            try await checkThrows("through the query builder's Condition", text) {
                try await ConfNumber.query(on: db).where(Condition(.compare(.equal, .column("s"), .value(.integer(1)))))
                    .count()
            }
            // A refused write changes nothing.
            try await checkThrows("a DELETE whose WHERE compares across types", text) {
                try await ConfNumber.query(on: db).where(Condition(.compare(.equal, .column("s"), .value(.integer(1)))))
                    .delete()
            }
            try await checkThrows("an UPDATE whose WHERE compares across types", isTypeMismatch("conf_number", "n")) {
                try await ConfNumber.query(on: db).where(Condition(.inList(.column("n"), [.text("1")])))
                    .set(\.s, to: "changed").update()
            }
            let after = try await ConfNumber.query(on: db).order(\.id).all()
            try checkEqual(after.map(\.s), ["1", "b"], "nothing deleted or changed")
            // Numbers compare with numbers, any column with NULL, a column with its own type.
            try checkEqual(
                try await runAST(
                    db,
                    countNumbers(
                        .and([
                            .compare(.equal, .column("n"), .value(.decimal(1))),
                            .compare(.less, .column("x"), .value(.integer(2))),
                            .compare(.lessOrEqual, .column("amount"), .column("x")),
                            .inList(.column("s"), [.null, .text("1")]),
                        ]))), 1, "integer = decimal, double < integer, decimal <= double, text IN (NULL, text)")
        },
        ConformanceCase("like.non-text-column-refused") { db in
            // SQLite matched the value's text; PostgreSQL and memory refused (issue 25).
            try await numbers(db, [ConfNumber(n: 12, s: "12"), ConfNumber(n: 3, s: "3")])
            try await checkThrows("integer LIKE", isTypeMismatch("conf_number", "n")) {
                try await runAST(db, countNumbers(.like(.column("n"), "1%")))
            }
            try await checkThrows("decimal NOT ILIKE", isTypeMismatch("conf_number", "amount")) {
                try await runAST(db, countNumbers(.like(.column("amount"), "%", caseInsensitive: true, negated: true)))
            }
            try await checkThrows("a joined double column", isTypeMismatch("conf_number", "x")) {
                let s = Select(
                    table: "conf_number", selection: .count,
                    joins: [Join(.inner, table: "conf_number", alias: "j", on: .like(.column("x", table: "j"), "1%"))])
                return try await runAST(db, .select(s))
            }
            try checkEqual(try await runAST(db, countNumbers(.like(.column("s"), "1%"))), 1, "text LIKE still matches")
            try checkEqual(try await ConfNumber.query(on: db).where(\.s, like: "%").count(), 2, "typed LIKE")
        },
        ConformanceCase("sum.decimal-wide-in-having") { db in
            // PostgreSQL compared its exact numeric, SQLite compared NaN, memory left the group out (issue 25).
            let wide = dec("123456789012345678901234567890")
            let fraction = dec("12345678901234567890.1234567891")
            try await numbers(
                db,
                [ConfNumber(amount: wide, s: "a"), ConfNumber(amount: fraction, s: "a"), ConfNumber(amount: 1, s: "b")])
            let groups = ConfNumber.query(on: db).group(by: \.s)
            try await checkThrows("HAVING sum > 0 over a 40-digit sum", isDecimalPastLimit) {
                try await groups.having(.sum(\.amount) > dec("0")).select(.column(\.s))
            }
            try await checkThrows("HAVING sum IS NULL: the wide group is read too", isDecimalPastLimit) {
                try await groups.having(.sum(\.amount) == nil).select(.column(\.s))
            }
            try await checkThrows("HAVING count > 1 OR sum < 0: read in every group", isDecimalPastLimit) {
                try await groups.having(.count() > 5 || .sum(\.amount) < dec("0")).select(.column(\.s))
            }
            try await checkThrows("selected, as before", isDecimalPastLimit) {
                try await groups.select(.column(\.s), .sum(\.amount))
            }
            // Within 38 digits the condition is answered: 29 significant digits.
            _ = try await ConfNumber.query(on: db).where(\.s == "a").set(\.amount, to: fraction).update()
            let rows = try await groups.having(.sum(\.amount) > dec("2")).order(\.s).select(
                .column(\.s), .sum(\.amount))
            try checkEqual(rows.map(\.0), ["a"], "the group above 2")
            try checkEqual(rows.map(\.1), [Optional(dec("24691357802469135780.2469135782"))], "its exact sum")
        },
    ]
}
