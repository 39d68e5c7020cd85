// StoreState+CommonTable: a named SELECT (WITH, maybe RECURSIVE) evaluated in memory, its rows read by the outer.
import Strata

extension StoreState {
    /// Runs the named SELECT of `w` (a recursive one to its fixpoint), then `s`'s filter, grouping, order, paging
    /// and selection over its rows, read under `s`'s table name.
    mutating func commonTableSelect(_ s: Select, _ w: CommonTable) throws(StrataError) -> Outcome {
        var columns = try namedColumns(w)
        let rows: [[DatabaseValue]]
        var walkTable: MemoryTable?
        if let r = w.recursion, let step = w.boundedStep {
            columns.append(TableColumn(name: r.depthColumn, type: .integer, isNullable: false))
            let walked = try walk(w, r, step: step, columns: columns)
            rows = walked.rows
            // The walk's table lends its columns' positions (not hashed again).
            walkTable = walked.table
        } else {
            rows = materialized(try select(w.select))
        }
        var table =
            walkTable.map { MemoryTable(renaming: $0, as: s.table, rows: rows) }
            ?? MemoryTable(derived: s.table, columns: columns, rows: rows)
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
        throws(StrataError) -> (rows: [[DatabaseValue]], table: MemoryTable?)
    {
        func key(_ row: [DatabaseValue]) -> IndexKey { IndexKey(grouping: row, columns: Array(row.indices)) }
        var seen: Set<IndexKey> = []
        var level = materialized(try select(w.select)).map { $0 + [.integer(0)] }
        if r.distinct { level = level.filter { seen.insert(key($0)).inserted } }
        var all = level
        var depth = 0
        var state = self  // the walk's rows so far are a table only while the step runs
        // The walk's table, made once: it takes each level's rows, and its columns' positions stay.
        var walkTable: MemoryTable?
        // The step compiled once for every level, when it has the usual shape (see ``WalkStep``), and the step's
        // table, read out of the tables once (a copy out of the dictionary retains every field), which the planned
        // levels only read; in a class, so that reading it at each level retains one reference.
        var planned: PlannedWalk?
        while !level.isEmpty && depth < r.maxDepth {
            depth += 1
            if depth == 1 {
                let walked = MemoryTable(derived: w.name, columns: columns, rows: level)
                walkTable = walked
                if let m = state.tables.index(forKey: step.table) {
                    var main = state.tables.values[m]
                    if let plan = Self.walkStep(
                        step, main: main, walk: walked, kept: &state.walkSteps, generation: state.schemaGeneration)
                    {
                        // The lookups read the column's ordered entries (built once, kept by the store: see below).
                        if !main.canLookUp(column: plan.equality.left) {
                            state.tables.values[m].prepareOrderedEntries(forColumn: plan.equality.left)
                            main = state.tables.values[m]
                        }
                        planned = PlannedWalk(step: plan, main: main)
                    }
                }
            }
            if let p = planned, let rows = p.step.rows(main: p.main, level: level, depth: Int64(depth)) {
                level = rows
            } else if var walked = state.tables.removeValue(forKey: w.name) ?? walkTable {
                planned = nil  // the step runs as a statement from here on
                walked.replaceDerivedRows(level)
                state.tables[w.name] = walked
                level = materialized(try state.select(step)).map { $0 + [.integer(Int64(depth))] }
            }
            if r.distinct { level = level.filter { seen.insert(key($0)).inserted } }
            all += level
        }
        walkSteps = state.walkSteps
        // The step's table keeps the ordered entries its lookups built (its rows are as they were), so the next
        // walk over it finds them: the steps only read. The walk's copy of the store is let go first, so the
        // store's tables are changed in place, not copied.
        if step.table != w.name, let read = state.tables[step.table], tables[step.table] != nil {
            state = StoreState()
            tables[step.table] = read
        }
        return (all, walkTable)
    }
}

extension StoreState {
    /// The plan of a walk's step (see ``WalkStep``), made once for the step and the schema and kept with the last few:
    /// a test or an app walks with the same statement again and again, and making the plan cost more than its levels.
    /// The walk's rows' columns (their names and types, from the named SELECT) are part of the key: the same step
    /// may join walks of other columns.
    static func walkStep(
        _ step: Select, main: MemoryTable, walk: MemoryTable, kept: inout [KeptWalkStep],
        generation: UInt64
    ) -> WalkStep? {
        for k in kept.indices where kept[k].generation == generation {
            if kept[k].fits(walk.columns) && kept[k].step == step { return kept[k].plan }
        }
        guard let plan = WalkStep(step, main: main, walk: walk) else { return nil }
        if kept.count >= 4 { kept.removeFirst() }
        kept.append(
            KeptWalkStep(
                step: step, walkColumns: walk.columns.map { ($0.name, $0.type) }, plan: plan, generation: generation))
        return plan
    }
}

/// A walk step's plan, the step and the walk's columns it was made for, and the schema generation it holds for.
struct KeptWalkStep: Sendable {
    let step: Select
    let walkColumns: [(name: String, type: ColumnType)]
    let plan: WalkStep
    let generation: UInt64

    /// Whether `columns` are the walk's columns the plan was made for, by name and type.
    func fits(_ columns: [TableColumn]) -> Bool {
        guard columns.count == walkColumns.count else { return false }
        for k in columns.indices {
            if columns[k].name != walkColumns[k].name || columns[k].type != walkColumns[k].type { return false }
        }
        return true
    }
}

/// A walk's planned step and the table it looks rows up in (see ``StoreState/walkStep(_:main:walk:kept:generation:)``).
final class PlannedWalk {
    let step: WalkStep
    let main: MemoryTable

    init(step: WalkStep, main: MemoryTable) {
        self.step = step
        self.main = main
    }
}
