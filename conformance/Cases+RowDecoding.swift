// Cases+RowDecoding: typed tuples and Decodable rows read straight from the driver's row keep every decoding rule.
import Foundation
import Strata

/// A sale as a `Decodable` row: `soldAt` reads the item keyed `sold_at` (case and underscores ignored).
struct ConfSaleRow: Decodable, Equatable {
    var id: Int64?
    var region: String?
    var quantity: Int
    var price: Decimal
    var weight: Double?
    var soldAt: Date
    var flag: Bool
}

/// A row whose `count` is read as an `Int` from a column another model stored text in.
struct ConfStrictRow: Decodable {
    var count: Int
}

extension ConformanceSuite {
    /// Whether `error` is a decoding failure of `model`'s `column` whose value summary holds `value`.
    static func failsDecoding(_ model: String, _ column: String, holding value: String) -> (StrataError) -> Bool {
        {
            guard case .decodingFailed(model, column, let summary, _) = $0 else { return false }
            return summary.contains(value)
        }
    }

    static let rowDecodingCases: [ConformanceCase] = [
        ConformanceCase("decoding.tuple-and-decodable-rows-read-what-models-read", tupleAndDecodableRowsReadAsModels),
        ConformanceCase(
            "decoding.tuple-and-decodable-rows-refuse-text-numbers-and-null-naming-the-item",
            tupleAndDecodableRowsRefuseBadValues),
    ]

    /// Every plain type through a tuple and a `Decodable` row gives what the models give.
    @Sendable static func tupleAndDecodableRowsReadAsModels(_ db: Database) async throws {
        try await seedSales(db)
        let sales: [ConfSale] = try await ConfSale.query(on: db).order(\.id).all()
        let q = ConfSale.query(on: db).order(\.id)
        let first: [(Int64?, String?, Int, Decimal)] = try await q.select(
            .column(\.id), .column(\.region), .column(\.quantity), .column(\.price))
        let second: [(Double?, Date, Int64, Bool)] = try await q.select(
            .column(\.weight), .column(\.soldAt), .column(\.big), .column(\.flag))
        try checkEqual(first.count, sales.count, "one tuple per sale")
        try checkEqual(second.count, sales.count, "one tuple per sale")
        for (n, s) in sales.enumerated() {
            let what = "sale \(text(s.id))"
            try checkEqual(first[n].0, s.id, "id of " + what)
            try checkEqual(first[n].1, s.region, "region of " + what)
            try checkEqual(first[n].2, s.quantity, "quantity of " + what)
            try checkEqual(first[n].3, s.price, "price of " + what)
            try checkEqual(second[n].0, s.weight, "weight of " + what)
            try checkEqual(second[n].1, s.soldAt, "soldAt of " + what)
            try checkEqual(second[n].2, s.big, "big of " + what)
            try checkEqual(second[n].3, s.flag, "flag of " + what)
        }
        let rows: [ConfSaleRow] = try await q.select(
            as: ConfSaleRow.self, .column(\.id), .column(\.region), .column(\.quantity), .column(\.price),
            .column(\.weight), .column(\.soldAt), .column(\.flag))
        var expected: [ConfSaleRow] = []
        for s in sales {
            expected.append(
                ConfSaleRow(
                    id: s.id, region: s.region, quantity: s.quantity, price: s.price, weight: s.weight,
                    soldAt: s.soldAt, flag: s.flag))
        }
        try checkEqual(rows, expected, "Decodable rows")
        let totals: [(Int, Int64?)] = try await ConfSale.query(on: db).where(\.region == nil).select(
            .count(), .sum(\.quantity))
        try checkEqual(totals.count, 1, "one row")
        try checkEqual(totals[0].0, 2, "count of the sales without a region")
        try checkEqual(totals[0].1, 5, "sum of their quantities")
    }

    /// A number stored as text and a NULL read into a non-optional are refused, naming the model and the item.
    @Sendable static func tupleAndDecodableRowsRefuseBadValues(_ db: Database) async throws {
        try await db.migrate(ConfLoose.self)
        var row = ConfLoose(count: "12", label: nil)
        try await row.save(on: db)
        let strict = ConfStrict.query(on: db)
        let countAsText = failsDecoding("ConfStrict", "count", holding: "12")
        try await checkThrows("integer text as an Int in a tuple", countAsText) {
            let rows: [(Int64?, Int)] = try await strict.select(.column(\.id), .column(\.count))
            return rows.count
        }
        try await checkThrows("NULL as a String in a tuple", failsDecoding("ConfStrict", "label", holding: "NULL")) {
            let rows: [String] = try await strict.select(.column(\.label))
            return rows.count
        }
        try await checkThrows("integer text as an Int in a Decodable row", countAsText) {
            let rows: [ConfStrictRow] = try await strict.select(as: ConfStrictRow.self, .column(\.count))
            return rows.count
        }
        let kept: [(String, String?)] = try await ConfLoose.query(on: db).select(.column(\.count), .column(\.label))
        try checkEqual(kept.count, 1, "the row is still there")
        try checkEqual(kept.first?.0, "12", "its text is unchanged")
        try checkEqual(kept.first?.1 == nil, true, "its label is still NULL")
    }
}
