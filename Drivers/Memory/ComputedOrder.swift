// ComputedOrder: ORDER BY computed values: each matched row gets its sort keys appended, past the scope's columns.
import Strata

/// The ORDER BY terms that are expressions (`views * 2`), compiled once per statement.
///
/// Only the rows that passed the filter are computed, as the SQL backends do: a row the filter drops never
/// raises a division by zero from the ORDER BY.
struct ComputedOrder {
    /// Each expression term's index in the ORDER BY, and its compiled value.
    private let terms: [(index: Int, value: ComputedValue)]
    /// Where the appended keys start: the scope's width.
    private let width: Int

    /// Nil when no term is an expression.
    init?(_ order: [Ordering], scope: borrowing ColumnScope) throws(StrataError) {
        var terms: [(Int, ComputedValue)] = []
        for (k, o) in order.enumerated() {
            if let e = o.expression { terms.append((k, try ComputedValue(e.node, scope: scope))) }
        }
        if terms.isEmpty { return nil }
        self.terms = terms
        width = scope.width
    }

    /// The position of ORDER BY term `k`'s key in an extended row, or nil when that term is a plain column.
    func position(of k: Int) -> Int? {
        terms.firstIndex { $0.index == k }.map { width + $0 }
    }

    /// `rows` with each matched row's keys appended (the other rows are left as they are).
    func extend(_ rows: [[DatabaseValue]], _ matched: [Int]) throws(StrataError) -> [[DatabaseValue]] {
        var out = rows
        for i in matched {
            var row = rows[i]
            row.reserveCapacity(row.count + terms.count)
            for t in terms { row.append(try t.value.value(rows[i])) }
            out[i] = row
        }
        return out
    }
}
