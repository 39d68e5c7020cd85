// WindowValues: each row's value of a window function (ranking, offset, running aggregate), in memory.
import Strata

/// Splits the rows a SELECT matched into a window's partitions, sorts each by the window's order (NULLs first
/// ascending, last descending, ties in scan order, as ``RowSort`` sorts ORDER BY), and numbers them or reads the
/// argument of the row `offset` places before or after.
enum WindowValues {
    /// The value of `w` for each row index in `matched`.
    static func compute(_ w: WindowFunction, matched: [Int], rows: [[DatabaseValue]], scope: ColumnScope, table: String)
        throws(StrataError) -> [Int: DatabaseValue]
    {
        let partitions = try GroupEvaluator(scope: scope, rows: rows, table: table).groups(matched, by: w.partition)
        var terms: [RowSort.Term] = []
        for o in w.order {
            terms.append((try scope.position(of: o.column, in: o.table), o.direction == .descending))
        }
        let argument = try w.argument.map { c throws(StrataError) in try scope.position(of: c.name, in: c.table) }
        var out: [Int: DatabaseValue] = [:]
        out.reserveCapacity(matched.count)
        for partition in partitions {
            let sorted = RowSort.sort(partition, of: rows, by: terms, keeping: nil)
            if let a = w.aggregate {
                let type = w.argumentType ?? argument.map { scope.type(at: $0) }
                try running(
                    a, sorted, rows: rows, argument: argument, type: type, wholePartition: w.order.isEmpty,
                    expression: table + "." + w.summary, into: &out)
                continue
            }
            var rank = 1
            var dense = 1
            for (n, i) in sorted.enumerated() {
                if n > 0 && !peers(rows[sorted[n - 1]], rows[i], terms) {
                    rank = n + 1
                    dense += 1
                }
                switch w.function {
                case .rowNumber: out[i] = .integer(Int64(n + 1))
                case .rank: out[i] = .integer(Int64(rank))
                case .denseRank: out[i] = .integer(Int64(dense))
                case .sum, .avg, .count, .min, .max: break  // computed above
                case .lag, .lead:
                    let j = w.function == .lag ? n - w.offset : n + w.offset
                    guard let argument, sorted.indices.contains(j) else {
                        // A bound default: -0.0 is bound as 0.0 on every driver.
                        if case .double(let d) = w.defaultValue, d == 0 {
                            out[i] = .double(0)
                        } else {
                            out[i] = w.defaultValue
                        }
                        continue
                    }
                    out[i] = rows[sorted[j]][argument]
                }
            }
        }
        return out
    }

    /// A running aggregate over one sorted partition: each row's value is the aggregate of the rows up to it
    /// (the frame `ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`), or of the whole partition without an order.
    private static func running(
        _ a: Aggregate, _ sorted: [Int], rows: [[DatabaseValue]], argument: Int?, type: ColumnType?,
        wholePartition: Bool, expression: String, into out: inout [Int: DatabaseValue]
    ) throws(StrataError) {
        var count = 0
        var best: DatabaseValue?
        var sum: AggregateSum?
        if a.function == .sum || a.function == .avg {
            sum = AggregateSum(type: type ?? .double, expression: expression)
        }
        func value() throws(StrataError) -> DatabaseValue {
            switch a.function {
            case .count: return .integer(Int64(count))
            case .min, .max: return best ?? .null
            case .sum, .avg:
                guard count > 0, let sum else { return .null }
                return try sum.result(average: a.function == .avg)
            }
        }
        for i in sorted {
            let v = argument.map { rows[i][$0] } ?? .integer(1)  // COUNT(*) counts every row
            if !v.isNull {
                count += 1
                switch a.function {
                case .count: break
                case .min: if best.map({ ValueOrder.compare(v, $0) < 0 }) ?? true { best = v }
                case .max: if best.map({ ValueOrder.compare(v, $0) > 0 }) ?? true { best = v }
                case .sum, .avg: try sum?.add(v)
                }
            }
            if !wholePartition { out[i] = try value() }
        }
        if wholePartition {
            let v = try value()
            for i in sorted { out[i] = v }
        }
    }

    /// Whether two rows are equal on every order term (NULL equal to NULL), so rank them alike.
    private static func peers(_ a: [DatabaseValue], _ b: [DatabaseValue], _ terms: [RowSort.Term]) -> Bool {
        terms.allSatisfy { ValueOrder.compare(a[$0.column], b[$0.column]) == 0 }
    }
}
