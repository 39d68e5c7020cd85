// ExplainSyntax: how a dialect asks its backend for a query's plan, and where the plan's text comes back.

/// The statement that shows a query's plan: a prefix written before the SELECT, and the result column that holds
/// each line of the plan.
///
/// SQLite: `EXPLAIN QUERY PLAN SELECT …`, rows of `(id, parent, notused, detail)`, the text in column 3;
/// PostgreSQL: `EXPLAIN SELECT …`, one text column per line.
public struct ExplainSyntax: Sendable, Hashable {
    /// The words written before the SELECT (`EXPLAIN QUERY PLAN`).
    public var prefix: String
    /// The 0-based result column that holds one line of the plan.
    public var detailColumn: Int

    /// A syntax that writes `prefix` before the SELECT and reads each line from column `detailColumn`.
    ///
    /// - Parameters:
    ///   - prefix: the words before the SELECT.
    ///   - detailColumn: the result column holding each line's text.
    public init(prefix: String, detailColumn: Int) {
        self.prefix = prefix
        self.detailColumn = detailColumn
    }
}

extension ExplainSyntax {
    /// One line of a plan: the row's detail column as text (the value's summary where the backend hands back
    /// another type), or nil for a row without that column.
    package func line(of row: any RowReader) -> String? {
        guard detailColumn < row.columnCount else { return nil }
        return row.string(at: detailColumn) ?? row.value(at: detailColumn).summary
    }
}

/// A plan's lines joined by newlines, each appended as it is read (no array of lines to make, join and free).
package struct PlanText {
    /// The lines so far.
    package private(set) var text = ""
    private var first = true

    package init() {}

    package mutating func append(_ line: String) {
        if first {
            text = line
            first = false
        } else {
            text += "\n"
            text += line
        }
    }
}
