// Fixtures+Aggregates: the sales table the aggregate, group and distinct cases run over.
import Foundation
import Strata

/// One sale: a nullable region to group by, integer, decimal, double and date columns to aggregate.
@Model(table: "conf_sale")
struct ConfSale {
    var id: Int64?
    var region: String?
    var product: String
    var quantity: Int
    var price: Decimal
    var weight: Double?
    var soldAt: Date
    var big: Int64 = 0
    var flag = false
    var sku = ConfSKU(code: "A1")
}

/// A code stored as text that (wrongly) declares itself summable: `sum` must refuse it before any SQL.
struct ConfSKU: DatabaseValueConvertible, SummableColumn {
    typealias Sum = Int64
    var code: String
    static var columnType: ColumnType { .text }
    var databaseValue: DatabaseValue { .text(code) }
    init(code: String) { self.code = code }
    init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        guard case .text(let s) = databaseValue else {
            throw ValueConversionError(databaseValue, expected: ConfSKU.self)
        }
        code = s
    }
}

extension ConfMoney: SummableColumn {
    typealias Sum = Int64
}

extension ConformanceSuite {
    /// The instant the first sale was made; each next one is 10 s later.
    static let firstSale = Date(timeIntervalSince1970: 1_700_000_000)

    /// Seven sales over regions north (2), south (2), east (1) and none (2):
    ///
    /// | region | product | quantity | price | weight |
    /// |---|---|---|---|---|
    /// | north | apple | 3 | 1.10 | 0.5 |
    /// | north | pear | 5 | 2.25 | nil |
    /// | south | apple | 2 | 1.10 | 1.5 |
    /// | nil | fig | 4 | 0.10 | 2.0 |
    /// | nil | apple | 1 | 0.20 | nil |
    /// | south | kiwi | 7 | 12345678901234567.89 | 3.25 |
    /// | east | pear | 6 | 0.30 | 0.25 |
    static func seedSales(_ db: Database) async throws {
        try await db.migrate(ConfSale.self)
        let rows: [(String?, String, Int, String, Double?)] = [
            ("north", "apple", 3, "1.10", 0.5), ("north", "pear", 5, "2.25", nil), ("south", "apple", 2, "1.10", 1.5),
            (nil, "fig", 4, "0.10", 2.0), (nil, "apple", 1, "0.20", nil),
            ("south", "kiwi", 7, "12345678901234567.89", 3.25), ("east", "pear", 6, "0.30", 0.25),
        ]
        try await db.transaction { tx in
            for (n, r) in rows.enumerated() {
                var sale = ConfSale(
                    region: r.0, product: r.1, quantity: r.2, price: decimal(r.3), weight: r.4,
                    soldAt: firstSale.addingTimeInterval(Double(n) * 10))
                try sale.save(tx)
            }
        }
    }

    static func decimal(_ text: String) -> Decimal {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0
    }

    /// An optional as text, `nil` spelt out.
    static func text<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "nil" }
}
