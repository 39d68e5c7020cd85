// QueryGenerator+Window: now and then a generated read selects a window function beside its columns.
import Strata

extension QueryGenerator {
    /// The share of reads of plain columns (no joins, grouping, row lock, set operation or WITH query) that also
    /// select a window function.
    static let windowShare = 0.15

    /// Makes ``windowShare`` of the reads of plain columns (about 7 % of all generated reads) select their columns
    /// and one window function: `ROW_NUMBER`, `RANK`, `DENSE_RANK`, a running aggregate (`SUM`, `AVG`, `COUNT`,
    /// `MIN`, `MAX`: see `runningAggregate`), or `LAG`/`LEAD` of a column by 0 to 3 rows with
    /// a default of the column's type or none, partitioned by zero to two columns and ordered by zero to two (JSON
    /// left out: it has no order shared by every backend), each way up. Only what is determined is compared:
    /// `ROW_NUMBER`, `LAG` and `LEAD` end their order with the key, so every row's value is the same on every
    /// backend; `RANK` and `DENSE_RANK` depend only on the values. The read keeps its filter, order, limit
    /// and offset (a limit only under a total order). Drawn from a stream of its own, so the rest of the run's
    /// queries stay what their seed made them.
    func window(_ s: inout Select, _ rng: SplitMix64) {
        var seed = rng
        var side = SplitMix64(seed: seed.next() ^ 0x0057_1D0F_0057_1D0F)
        guard side.chance(Self.windowShare), s.joins.isEmpty, s.groupBy.isEmpty, s.having == nil, s.lock == nil,
            s.compound == nil, s.commonTable == nil, !s.distinct, case .columns(let names) = s.selection,
            let table = world.table(s.table)
        else { return }
        let orderable = table.schema.columns.filter { $0.type != .json }
        guard !orderable.isEmpty else { return }
        let function = side.pick(WindowFunction.Function.allCases)
        var partition: [ColumnRef] = []
        for _ in 0..<side.below(3) {
            let c = ColumnRef(side.pick(orderable).name)
            if !partition.contains(c) { partition.append(c) }
        }
        var order: [Ordering] = []
        for _ in 0..<side.below(3) {
            let c = side.pick(orderable)
            var o = Ordering(c.name, side.chance(0.5) ? .ascending : .descending)
            o.isNeverNull = !c.isNullable || c.isPrimaryKey
            o.isText = c.type == .text
            order.append(o)
        }
        // A keyset page keeps its limit: its window numbers rows instead of aggregating them.
        var w = WindowFunction(
            function.aggregate != nil && s.tag == Self.keysetTag ? .rowNumber : function, partition: partition,
            order: order)
        if let aggregate = w.function.aggregate {
            runningAggregate(&w, aggregate, &s, orderable, &side)
            s.selection = .items(names.map { .column(ColumnRef($0)) } + [.window(w)])
            return
        }
        if function == .lag || function == .lead {
            let c = side.pick(orderable)
            w.argument = ColumnRef(c.name)
            w.offset = side.below(4)
            if side.chance(0.5) { w.defaultValue = values.value(c.type, &side) }
        }
        if w.function == .rowNumber || function == .lag || function == .lead {
            var key = Ordering("id")
            key.isNeverNull = true
            w.order.append(key)
        }
        guard side.chance(Self.topShare), function != .lag, function != .lead, s.tag != Self.keysetTag else {
            s.selection = .items(names.map { .column(ColumnRef($0)) } + [.window(w)])
            return
        }
        // The top rows of each partition: every column and the window named in a WITH query, the read's filter
        // moved into it, and the outer read keeping the rows whose value is at most 0 to 3.
        let all = table.schema.columns.map { SelectItem.column(ColumnRef($0.name)) }
        var named = CommonTable(Self.windowTableName, Select(table: s.table, selection: .items(all + [.window(w)])))
        named.select.filter = s.filter
        named.windowColumn = Self.windowColumnName
        s.commonTable = named
        s.filter = .compare(.lessOrEqual, .column(Self.windowColumnName), .value(.integer(Int64(side.below(4)))))
    }

    /// A running aggregate (about a third of the windows): `SUM` or `AVG` of a numeric column, `COUNT(*)` or of
    /// a column, `MIN` or `MAX` of a column that orders alike everywhere. Its order ends with the key, so each
    /// row's frame is the same rows on every backend; only a sum or average of integers or decimals (exact, so
    /// the order of addition is moot) may go without an order, over the whole partition. The read loses its limit
    /// and offset (a keyset page, which needs its limit, gets a row number instead): a backend may stop computing at
    /// the limit, before a later row's overflow.
    private func runningAggregate(
        _ w: inout WindowFunction, _ aggregate: Aggregate.Function, _ s: inout Select, _ columns: [TableColumn],
        _ side: inout SplitMix64
    ) {
        let candidates = columns.filter { c in
            Aggregate(aggregate, ColumnRef(c.name), type: c.type).typeProblem == nil
        }
        if let c = candidates.isEmpty || (aggregate == .count && side.chance(0.3)) ? nil : side.pick(candidates) {
            w.argument = ColumnRef(c.name)
            w.argumentType = c.type
        } else {
            w.function = .count
        }
        let exact = w.argumentType != .double || w.function == .count || w.function == .min || w.function == .max
        if !(exact && w.order.isEmpty && side.chance(0.3)) {
            var key = Ordering("id")
            key.isNeverNull = true
            w.order.append(key)
        }
        s.limit = nil
        s.offset = nil
    }

    /// The share of generated windows (ranking functions) read through a WITH query and filtered by their value.
    static let topShare = 0.3
    /// The name of the WITH query a filtered window is read through (no table of a ``FuzzWorld`` has it).
    static let windowTableName = "fuzz_top"
    /// The name of its window column.
    static let windowColumnName = "fuzz_rank"
}

extension Select {
    /// The window function the SELECT computes, in its items or in its WITH query's (a filtered window), if any.
    var generatedWindow: WindowFunction? { windows.first ?? commonTable?.select.windows.first }
}
