// StoreState+CommonTable: a named SELECT (WITH, maybe RECURSIVE) evaluated in memory, its rows read by the outer.
import Strata

extension StoreState {
    /// Runs the named SELECT of `w` (a recursive one to its fixpoint), then `s`'s filter, grouping, order, paging
    /// and selection over its rows, read under `s`'s table name.
    mutating func commonTableSelect(_ s: Select, _ w: CommonTable) throws(StrataError) -> Outcome {
        var columns = try namedColumns(w)
        let rows: [[DatabaseValue]]
        if let r = w.recursion, let step = w.boundedStep {
            columns.append(TableColumn(name: r.depthColumn, type: .integer, isNullable: false))
            rows = try walk(w, r, step: step, columns: columns)
        } else {
            rows = materialized(try select(w.select))
        }
        var table = MemoryTable(derived: s.table, columns: columns, rows: rows)
        var outer = s
        outer.commonTable = nil
        if outer.needsGrouping { return try groupedSelect(outer, main: table) }
        return try Self.select(outer, from: &table)
    }

    /// The named rows' columns: the named SELECT's, and, with a window column, the window's value last (an integer,
    /// or the type of the column LAG or LEAD reads).
    private func namedColumns(_ w: CommonTable) throws(StrataError) -> [TableColumn] {
        guard let windowColumn = w.windowColumn, let names = w.columns, case .items(let items) = w.select.selection,
            case .window(let window)? = items.last
        else { return try columnDefinitions(of: w.select) }
        var plain = w.select
        plain.selection = .columns(Array(names.dropLast()))
        var out = try columnDefinitions(of: plain)
        var type = ColumnType.integer
        if let c = window.argument {
            plain.selection = .columns([c.name])
            type = try columnDefinitions(of: plain)[0].type
        }
        out.append(TableColumn(name: windowColumn, type: type, isNullable: true))
        return out
    }

    /// A recursive walk, level by level as SQLite and PostgreSQL run one: the base case's rows at depth 0, then the
    /// step's rows from the rows found last (read under the walk's name), one level deeper each time, until a level
    /// finds no new row or the depth bound is reached; with `distinct`, a row equal to one found before (depth
    /// included) is dropped, as `UNION` does. At most `maxDepth + 1` levels, so a cycle ends at the bound.
    private mutating func walk(_ w: CommonTable, _ r: Recursion, step: Select, columns: [TableColumn])
        throws(StrataError) -> [[DatabaseValue]]
    {
        func key(_ row: [DatabaseValue]) -> IndexKey { IndexKey(grouping: row, columns: Array(row.indices)) }
        var seen: Set<IndexKey> = []
        var level = materialized(try select(w.select)).map { $0 + [.integer(0)] }
        if r.distinct { level = level.filter { seen.insert(key($0)).inserted } }
        var all = level
        var depth = 0
        var state = self  // the walk's rows so far are a table only while the step runs
        while !level.isEmpty && depth < r.maxDepth {
            depth += 1
            // The walk's table is made once and takes each level's rows: its columns' positions stay.
            if var walked = state.tables.removeValue(forKey: w.name), depth > 1 {
                walked.replaceDerivedRows(level)
                state.tables[w.name] = walked
            } else {
                state.tables[w.name] = MemoryTable(derived: w.name, columns: columns, rows: level)
            }
            level = materialized(try state.select(step)).map { $0 + [.integer(Int64(depth))] }
            if r.distinct { level = level.filter { seen.insert(key($0)).inserted } }
            all += level
        }
        // The step's table keeps the ordered entries its lookups built (its rows are as they were), so the next
        // walk over it finds them: the steps only read.
        if step.table != w.name, let read = state.tables[step.table], tables[step.table] != nil {
            tables[step.table] = read
        }
        return all
    }
}
