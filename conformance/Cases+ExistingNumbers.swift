// Cases+ExistingNumbers: number properties over columns that store text are refused before any query, on every path.
import Foundation
import Strata

/// Counts and ratios another tool stored as text.
@Model(table: "ex_count")
struct ExCountText {
    var id: Int64?
    var pieces: String
    var ratio: String
}

/// The same table read as numbers.
@Model(table: "ex_count")
struct ExCount {
    var id: Int64?
    var pieces: Int64
    var ratio: Double
}

extension ConformanceSuite {
    /// Whether `error` refuses `table` for exactly `columns`, each problem naming the model's property.
    static func refusesNumbersAsText(_ error: StrataError, table: String, model: String, columns: [String]) -> Bool {
        guard case .schemaMismatch(table, let problems) = error, problems.count == columns.count else { return false }
        return zip(problems, columns).allSatisfy { problem, column in
            problem.hasPrefix("column \(column) (declared ") && problem.contains("model \(model) reads it as a")
                && problem.contains("compare as text")
        }
    }

    static let numbersExistingCases: [ConformanceCase] = [
        ConformanceCase("existing.decimal-over-text-is-refused-by-every-query-without-migrate") { db in
            // Text compares as text ('2.98' >= '10' on SQLite; an operator error on PostgreSQL): every query shape
            // on the Decimal model is refused before it runs, whether or not the app called migrate.
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmountText.self)
            let stored = ["2.98", "10", "9"]
            for text in stored {
                var a = ExAmountText(amount: text)
                try await a.save(on: db)
            }
            let refused = { (e: StrataError) in
                refusesNumbersAsText(e, table: "ex_amount", model: "ExAmount", columns: ["amount"])
            }
            let ten = Decimal(10)
            try await checkThrows("where >=", refused) { try await ExAmount.query(on: db).where(\.amount >= ten).all() }
            try await checkThrows("order", refused) { try await ExAmount.query(on: db).order(\.amount).all() }
            try await checkThrows("min", refused) { try await ExAmount.query(on: db).min(\.amount) }
            try await checkThrows("max", refused) { try await ExAmount.query(on: db).max(\.amount) }
            try await checkThrows("in:", refused) {
                try await ExAmount.query(on: db).where(\.amount, in: [ten]).count()
            }
            try await checkThrows("values", refused) { try await ExAmount.query(on: db).values(\.amount) }
            try await checkThrows("update", refused) {
                try await ExAmount.query(on: db).where(\.amount < ten).set(\.amount, to: Decimal(0)).update()
            }
            try await checkThrows("delete", refused) {
                try await ExAmount.query(on: db).where(\.amount < ten).delete()
            }
            try await db.withConnection { tx in
                try checkThrowsSync("on a transaction", refused) { try ExAmount.query(on: tx).count() }
            }
            let kept = try await ExAmountText.query(on: db).order(\.id).all().map(\.amount)
            try checkEqual(kept, stored, "nothing written or lost")
        },
        ConformanceCase("existing.integer-and-double-over-text-are-refused-naming-each-column") { db in
            try await db.withConnection { tx in try tx.dropTable("ex_count") }
            try await db.migrate(ExCountText.self)
            for (pieces, ratio) in [("9", "0.5"), ("10", "0.25")] {
                var c = ExCountText(pieces: pieces, ratio: ratio)
                try await c.save(on: db)
            }
            try await checkThrows(
                "Int64 and Double over text",
                { refusesNumbersAsText($0, table: "ex_count", model: "ExCount", columns: ["pieces", "ratio"]) }
            ) { try await ExCount.query(on: db).where(\.pieces > 9).all() }
            try checkEqual(try await ExCountText.query(on: db).count(), 2, "nothing lost")
            try await db.withConnection { tx in try tx.dropTable("ex_count") }
        },
        ConformanceCase("existing.number-check-follows-the-schema-strata-changes") { db in
            // Numbers stored as numbers compare numerically; when the table is recreated with text, the same model
            // is refused (the check is not remembered across schema changes), and accepted again after.
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmount.self)
            let amounts = ["2.98", "10", "9"].compactMap {
                Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))
            }
            for amount in amounts {
                var a = ExAmount(amount: amount)
                try await a.save(on: db)
            }
            let ten = Decimal(10)
            try checkEqual(
                try await ExAmount.query(on: db).where(\.amount >= ten).count(), amounts.filter { $0 >= ten }.count,
                ">= 10 over decimals")
            try checkEqual(
                try await ExAmount.query(on: db).order(\.amount).all().map(\.amount), amounts.sorted(), "order")
            try checkEqual(try await ExAmount.query(on: db).max(\.amount), amounts.max(), "max")
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmountText.self)
            var text = ExAmountText(amount: "10")
            try await text.save(on: db)
            try await checkThrows(
                "the recreated text column",
                { refusesNumbersAsText($0, table: "ex_amount", model: "ExAmount", columns: ["amount"]) }
            ) { try await ExAmount.query(on: db).count() }
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmount.self)
            try checkEqual(try await ExAmount.query(on: db).count(), 0, "accepted again over numbers")
        },
    ]
}
