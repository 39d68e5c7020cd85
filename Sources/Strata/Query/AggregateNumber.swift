// AggregateNumber: exact conversions between Decimal, Int64 and Double for aggregate results.
import Foundation

/// Conversions that never wrap or trap: a decimal becomes an Int64 only when it is one exactly.
package enum AggregateNumber {
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The decimal as an Int64, or nil when it has a fraction or lies outside Int64.
    package static func int64(exactly d: Decimal) -> Int64? {
        guard !d.isNaN else { return nil }
        // The shortest text of an integral decimal is its digits, which `Int64(_:)` reads exactly or refuses.
        return Int64(d.description)
    }

    /// The nearest double to a decimal (through its shortest text, which `Double(String)` rounds correctly).
    package static func double(_ d: Decimal) -> Double {
        Double(d.description) ?? NSDecimalNumber(decimal: d).doubleValue
    }

    /// A decimal from its text (`12.50`, `-3`), in the POSIX locale.
    package static func decimal(_ s: String) -> Decimal? { Decimal(string: s, locale: posix) }
}

/// Aggregate results of two backends made comparable: each aggregate normalized to the type every driver
/// agrees on (``Aggregate/normalize(_:model:)``), an average rounded to 12 significant digits (PostgreSQL
/// divides in numeric, SQLite and memory in doubles). A value that does not normalize is left as it is.
package enum AggregateRows {
    package static func normalized(_ rows: [[DatabaseValue]], of statement: Statement) -> [[DatabaseValue]] {
        guard case .select(let s) = statement, case .items(let items) = s.selection else { return rows }
        return rows.map { row in
            row.enumerated().map { i, v in
                guard i < items.count, let a = items[i].aggregateRule,
                    let n = try? a.normalize(v, model: s.table)
                else { return v }
                if a.function == .avg, case .double(let d) = n {
                    return .double(Double(String(format: "%.12g", d)) ?? d)
                }
                return n
            }
        }
    }
}
