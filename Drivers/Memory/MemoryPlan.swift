// MemoryPlan: the memory driver's answer to explain(): the primary key, index or scan a SELECT reads through.
import Strata

extension MemoryTable {
    /// The plan of a SELECT on this table, in SQLite's words: `SEARCH t USING PRIMARY KEY (id=?)`, `SEARCH t USING
    /// INDEX name (column)` for a term the index's first column answers, else `SCAN t`; then `SORT (…)` when the
    /// SELECT orders its rows (the memory driver sorts what it found).
    ///
    /// It names what ``candidateSlots(_:inOrder:)`` reads for such a term: an index range is read only while it
    /// holds no more than an eighth of the rows, and scanned past beyond that, so the line says which index the
    /// search starts from, not how many rows it visits.
    func plan(for select: Select) -> [String] {
        var lines: [String] = []
        var terms: [SQLExpression.Node] = []
        if let node = select.filter?.node {
            if case .and(let items) = node { terms = items } else { terms = [node] }
        }
        let access =
            terms.lazy.compactMap { primaryKeyAccess($0) }.first
            ?? terms.lazy.compactMap { indexAccess($0) }.first
            ?? terms.lazy.compactMap { pathAccess($0) }.first
        lines.append(access.map { "SEARCH \(name) USING \($0)" } ?? "SCAN \(name)")
        for join in select.joins { lines.append("SCAN \(join.table) AS \(join.alias) (nested loop)") }
        if !select.order.isEmpty {
            let terms = select.order.map { o in
                (o.aggregate != nil || o.expression != nil ? "expression" : o.column)
                    + (o.direction == .ascending ? " ASC" : " DESC")
            }
            lines.append("SORT (\(terms.joined(separator: ", ")))")
        }
        return lines
    }

    /// `PRIMARY KEY (id=?)` when the term is equality or IN on the integer primary key.
    private func primaryKeyAccess(_ term: SQLExpression.Node) -> String? {
        guard let pk = primaryKey, let (column, op) = Self.keyTerm(term), column == columns[pk].name else {
            return nil
        }
        return op == "=" ? "PRIMARY KEY (\(column)=?)" : nil
    }

    /// `INDEX name (column)` for the first index whose first column the term bounds.
    private func indexAccess(_ term: SQLExpression.Node) -> String? {
        guard let (column, op) = Self.keyTerm(term), let c = columns.firstIndex(where: { $0.name == column }) else {
            return nil
        }
        if op == "=", let unique = indexes.first(where: { $0.isUnique && $0.columns == [c] }) {
            return "UNIQUE INDEX \(unique.name) (\(column)=?)"
        }
        guard let index = indexes.first(where: { $0.columns.first == c }) else { return nil }
        return "INDEX \(index.name) (\(column)\(op)?)"
    }

    /// `INDEX name (<expr>>?)` for the index on the JSON path a term compares with a value, as SQLite words a
    /// search of an index on an expression.
    private func pathAccess(_ term: SQLExpression.Node) -> String? {
        let bounded: (path: SQLExpression.Node, op: String)
        switch term {
        case .compare(let op, let e, .value), .compare(let op, .value, let e):
            guard op != .notEqual else { return nil }
            bounded = (e, op == .equal ? "=" : op == .less || op == .lessOrEqual ? "<" : ">")
        case .between(let e, .value, .value, negated: false):
            bounded = (e, ">")
        default:
            return nil
        }
        guard case .jsonPath(.column(let c), let path) = bounded.path,
            let index = pathIndexes.first(where: { columns[$0.column].name == c && $0.path == path })
        else { return nil }
        return "INDEX \(index.name) (<expr>\(bounded.op)?)"
    }

    /// The column a term bounds and how (`=`, `<`, `>`, …), when an index could answer it.
    private static func keyTerm(_ term: SQLExpression.Node) -> (String, String)? {
        switch term {
        case .compare(let op, .column(let c), .value), .compare(let op, .value, .column(let c)):
            return op == .notEqual ? nil : (c, op == .equal ? "=" : op == .less || op == .lessOrEqual ? "<" : ">")
        case .inList(.column(let c), _, negated: false): return (c, "=")
        case .between(.column(let c), .value, .value, negated: false): return (c, ">")
        default: return nil
        }
    }
}
