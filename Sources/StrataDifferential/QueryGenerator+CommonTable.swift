// QueryGenerator+CommonTable: now and then a generated read runs over the rows of a named query (WITH).
import Strata

extension QueryGenerator {
    /// The share of reads without joins, grouping or a row lock that read a named query's rows.
    static let commonTableShare = 0.15

    /// The name generated WITH queries go by (no table of a ``FuzzWorld`` has it).
    static let commonTableName = "fuzz_with"

    /// Makes ``commonTableShare`` of the reads without joins, grouping or a row lock (about 10 % of all generated
    /// reads) read a named query of every column of their table: the read's filter (and its set operation, when
    /// it has one) moves into the named query, and now and then the outer read gets a filter of its own. The
    /// read keeps its selection, order, limit and offset, which then apply to the named rows. Drawn from a stream
    /// of its own, so the rest of the run's queries stay what their seed made them.
    ///
    /// A risky read (its filter fails on some row) gets no outer filter, as a set operation's does.
    func commonTable(_ s: inout Select, _ rng: SplitMix64, risky: Bool = false) {
        var seed = rng
        var side = SplitMix64(seed: seed.next() ^ 0x00C7_E0C7_E0C7_E0C7)
        guard side.chance(Self.commonTableShare), s.joins.isEmpty, s.groupBy.isEmpty, s.having == nil,
            s.lock == nil, s.commonTable == nil, s.tag != Self.keysetTag, let table = world.table(s.table)
        else { return }
        if case .items = s.selection { return }
        let scope = table.schema.columns.map { ScopedColumn(alias: nil, table: table.name, column: $0) }
        var named = Select(table: s.table, selection: .columns(table.schema.columns.map(\.name)), filter: s.filter)
        named.compound = s.compound
        s.compound = nil
        s.commonTable = CommonTable(Self.commonTableName, named)
        if side.chance(Self.recursiveShare) { recursive(&s, table, &side) }
        s.filter = side.chance(0.3) && !risky ? predicate(scope, depth: 1, &side) : nil
    }

    /// The share of generated WITH queries that are recursive walks.
    static let recursiveShare = 0.4

    /// Makes the named query of `s` a recursive walk of its table: the named query is the base case, the step
    /// finds the rows whose column equals a column of the same type of a row found one level before (JSON and
    /// decimal columns left out: their equality is not pinned), down to a depth of 0 to 2 (at most 18³ rows);
    /// now and then with `distinct` (UNION), unless the table has a JSON column (PostgreSQL has no json equality).
    func recursive(_ s: inout Select, _ table: FuzzWorld.Table, _ side: inout SplitMix64) {
        guard let w = s.commonTable else { return }
        let comparable = table.schema.columns.filter { $0.type != .json && $0.type != .decimal }
        guard !comparable.isEmpty else { return }
        let link = side.pick(comparable)
        let key = side.pick(comparable.filter { $0.type == link.type })
        let name = Self.commonTableName
        let on = SQLExpression.compare(.equal, .column(link.name), .column(key.name, table: name))
        let step = Select(
            table: s.table, selection: w.select.selection, joins: [Join(.inner, table: name, alias: name, on: on)])
        let distinct = side.chance(0.3) && !table.schema.columns.contains { $0.type == .json }
        s.commonTable = CommonTable(
            name, base: w.select, step: step, recursion: Recursion(maxDepth: side.below(3), distinct: distinct))
    }
}
