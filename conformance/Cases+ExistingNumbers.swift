// Cases+ExistingNumbers: numbers stored as text read, but a query comparing, ordering or aggregating them is refused.
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

/// A line of an amount (`ex_amount`), for joins and subqueries over the amount stored as text.
@Model(table: "ex_line")
struct ExLine {
    var id: Int64?
    @Column("amount_id") var amountID: Int64
    var note: String
}

extension ConformanceSuite {
    /// Whether `error` refuses `table` for exactly `columns`, each problem naming the column and the use.
    static func refusesNumbersAsText(_ error: StrataError, table: String, columns: [String], naming: String? = nil)
        -> Bool
    {
        guard case .schemaMismatch(table, let problems) = error, problems.count == columns.count else { return false }
        return zip(problems, columns).allSatisfy { problem, column in
            problem.hasPrefix("column \(column) (stores text: ") && problem.contains("compare as text")
                && naming.map { problem.contains($0) } ?? true
        }
    }

    /// Three amounts another tool stored as text, read through `ExAmount` (a Decimal).
    static func amountsAsText(_ db: Database) async throws -> [String] {
        try await ExistingFixtures.reset(db)
        try await db.migrate(ExAmountText.self)
        let stored = ["2.98", "10", "9"]
        for text in stored {
            var a = ExAmountText(amount: text)
            try await a.save(on: db)
        }
        return stored
    }

    static let numbersExistingCases: [ConformanceCase] = [
        ConformanceCase("existing.decimal-over-text-reads-but-never-compares-as-text") { db in
            // Text compares as text ('2.98' >= '10' on SQLite; an operator error on PostgreSQL): each query that
            // compares, orders or aggregates the column is refused before it runs; plain reads go through.
            let stored = try await amountsAsText(db)
            let refused = { (e: StrataError) in
                refusesNumbersAsText(e, table: "ex_amount", columns: ["amount"], naming: "model ExAmount")
            }
            let ten = Decimal(10)
            let q = ExAmount.query(on: db)
            try await checkThrows("where >=", refused) { try await q.where(\.amount >= ten).all() }
            try await checkThrows("where ==", refused) { try await q.where(\.amount == ten).count() }
            try await checkThrows("in:", refused) { try await q.where(\.amount, in: [ten]).count() }
            try await checkThrows("between", refused) { try await q.where(\.amount, between: 0...ten).all() }
            try await checkThrows("order", refused) { try await q.order(\.amount).all() }
            try await checkThrows("min", refused) { try await q.min(\.amount) }
            try await checkThrows("max", refused) { try await q.max(\.amount) }
            try await checkThrows("sum", refused) { try await q.sum(\.amount) }
            try await checkThrows("distinct", refused) { try await q.only(\.amount).distinct().all() }
            try await checkThrows("update", refused) {
                try await q.where(\.amount < ten).set(\.amount, to: Decimal(0)).update()
            }
            try await checkThrows("delete", refused) { try await q.where(\.amount < ten).delete() }
            try await db.withConnection { tx in
                try checkThrowsSync("on a transaction", refused) {
                    try ExAmount.query(on: tx).where(\.amount > ten).count()
                }
            }
            // Reads that compare nothing numeric go through, exactly.
            let read = try await q.order(\.id).all().map(\.amount)
            try checkEqual(read, stored.map(ExistingFixtures.decimal), "all() reads the text exactly")
            try checkEqual(try await q.values(\.amount).count, 3, "values")
            try checkEqual(try await q.count(), 3, "count")
            let first = try await q.order(\.id).first()
            try checkEqual(
                try await q.where(\.id == (first?.id ?? -1)).first()?.amount, ExistingFixtures.decimal("2.98"),
                "by id")
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
                { refusesNumbersAsText($0, table: "ex_count", columns: ["pieces", "ratio"]) }
            ) { try await ExCount.query(on: db).where(\.pieces > 9 || \.ratio < 0.3).all() }
            try await checkThrows("integer text does not read as Int64", ExistingFixtures.decodingFailed("pieces")) {
                try await ExCount.query(on: db).all()
            }
            try checkEqual(try await ExCountText.query(on: db).count(), 2, "nothing lost")
            try await db.withConnection { tx in try tx.dropTable("ex_count") }
        },
        ConformanceCase("existing.number-over-text-is-refused-through-joins-and-subqueries") { db in
            _ = try await amountsAsText(db)
            try await db.withConnection { tx in try tx.dropTable("ex_line") }
            try await db.migrate(ExLine.self)
            let ids = try await ExAmountText.query(on: db).order(\.id).all().compactMap(\.id)
            for id in ids {
                var line = ExLine(amountID: id, note: "line \(id)")
                try await line.save(on: db)
            }
            let joined = { (e: StrataError) in
                refusesNumbersAsText(e, table: "ex_amount", columns: ["amount"], naming: "the query")
            }
            let ten = Decimal(10)
            try await checkThrows("a joined column compared with a number", joined) {
                try await ExLine.query(on: db).join(ExAmount.self, on: \.amountID, equals: \.id)
                    .where(ExAmount.self, \.amount >= ten).all()
            }
            try await checkThrows("a subquery comparing it with a number", joined) {
                try await ExLine.query(on: db)
                    .where(\.amountID, in: ExAmount.query(on: db).where(\.amount >= ten).only(\.id)).all()
            }
            try checkEqual(
                try await ExLine.query(on: db).join(ExAmount.self, on: \.amountID, equals: \.id).count(), 3,
                "a join that compares no amount goes through")
            try checkEqual(try await ExLine.query(on: db).count(), 3, "nothing lost")
            try await db.withConnection { tx in try tx.dropTable("ex_line") }
        },
        ConformanceCase("existing.number-check-follows-the-schema-strata-changes") { db in
            // Numbers stored as numbers compare numerically; when the table is recreated with text, the same model
            // is refused (the check is not remembered across schema changes), and accepted again after.
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmount.self)
            let amounts = ["2.98", "10", "9"].map(ExistingFixtures.decimal)
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
            _ = try await amountsAsText(db)
            try await checkThrows(
                "the recreated text column",
                { refusesNumbersAsText($0, table: "ex_amount", columns: ["amount"]) }
            ) { try await ExAmount.query(on: db).where(\.amount >= ten).count() }
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmount.self)
            var a = ExAmount(amount: ten)
            try await a.save(on: db)
            try checkEqual(try await ExAmount.query(on: db).where(\.amount >= ten).count(), 1, "accepted again")
        },
    ]
}
