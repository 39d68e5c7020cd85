// StoreState+SetOperation: UNION, UNION ALL, INTERSECT and EXCEPT evaluated in memory, left to right.
import Strata

extension StoreState {
    /// Runs each branch of `c`, combines their rows left to right (NULL equal to NULL, each distinct row once but
    /// for UNION ALL), then runs `s`'s filter, order, paging and selection over the combined rows.
    mutating func compoundSelect(_ s: Select, _ c: Compound) throws(StrataError) -> Outcome {
        let columns = try columnDefinitions(of: c.first)
        for b in c.branches { try checkNames(of: b) }
        var rows = materialized(try select(c.first))
        for op in c.rest {
            rows = Self.combine(rows, op.kind, materialized(try select(op.select)))
        }
        var table = MemoryTable(derived: s.table, columns: columns, rows: rows)
        var outer = s
        outer.compound = nil
        if outer.needsGrouping { return try groupedSelect(outer, main: table) }
        return try Self.select(outer, from: &table)
    }

    /// Resolves every table and column a branch names before any branch reads a row, as a SQL backend does when
    /// it prepares the statement: a misspelt column in the last branch is `unknownColumn` even when an earlier
    /// branch would fail on a row (found by the generator, seed 11). Joined branches resolve theirs as they run.
    private func checkNames(of s: Select) throws(StrataError) {
        if let inner = s.compound {
            for b in inner.branches { try checkNames(of: b) }
            return
        }
        guard s.joins.isEmpty else { return }
        guard let table = tables[s.table] else { throw .noSuchTable(s.table) }
        let scope = ColumnScope(table)
        if case .columns(let names) = s.selection { _ = try scope.positions(of: names) }
        if let f = s.filter, !f.node.hasSubquery { _ = try CompiledCondition(f.node, scope: scope) }
    }

    /// SQL's set operations over whole rows: `union` keeps the first of equal rows, `intersect` and `except` the
    /// left side's distinct rows found (or not found) on the right, in the left side's order.
    static func combine(_ left: [[DatabaseValue]], _ kind: SetOperator, _ right: [[DatabaseValue]])
        -> [[DatabaseValue]]
    {
        func key(_ row: [DatabaseValue]) -> IndexKey { IndexKey(grouping: row, columns: Array(row.indices)) }
        var seen: Set<IndexKey> = []
        switch kind {
        case .unionAll:
            return left + right
        case .union:
            return (left + right).filter { seen.insert(key($0)).inserted }
        case .intersect, .except:
            let other = Set(right.map(key))
            let keep = kind == .intersect
            return left.filter { row in
                let k = key(row)
                return other.contains(k) == keep && seen.insert(k).inserted
            }
        }
    }

    /// The selected columns' definitions of a branch (or a named SELECT) that lists columns: its table's, or those
    /// of the rows its own compound combines or its own named SELECT returns.
    func columnDefinitions(of s: Select) throws(StrataError) -> [TableColumn] {
        guard case .columns(let names) = s.selection else {
            throw .invalidQuery("branch 1 of a set operation on \(s.table) must select columns")
        }
        let all: [TableColumn]
        if let w = s.commonTable {
            all = try columnDefinitions(of: w.select)
        } else if let inner = s.compound {
            all = try columnDefinitions(of: inner.first)
        } else {
            guard let table = tables[s.table] else { throw .noSuchTable(s.table) }
            all = table.columns
        }
        // The usual named SELECT reads every column in order: the columns as they are, none copied.
        if names.count == all.count, names.indices.allSatisfy({ names[$0] == all[$0].name }) { return all }
        var out: [TableColumn] = []
        for name in names {
            guard let column = all.first(where: { $0.name == name }) else {
                throw .unknownColumn(model: s.table, column: name)
            }
            out.append(column)
        }
        return out
    }

    /// The rows an outcome returns, each cut to its projection.
    func materialized(_ outcome: Outcome) -> [[DatabaseValue]] {
        func project(_ row: [DatabaseValue]) -> [DatabaseValue] {
            guard let p = outcome.projection else { return row }
            return p.map { row[$0] }
        }
        if case .values(let values) = outcome.rows { return values.map { [$0] } }
        return outcome.rows.map(project)
    }
}
