// QueryGenerator+SetOperation: now and then a generated read runs over a UNION, UNION ALL, INTERSECT or EXCEPT.
import Strata

extension QueryGenerator {
    /// The share of reads without joins that read a set operation's combined rows.
    static let setOperationShare = 0.12

    /// Makes ``setOperationShare`` of the reads without joins, grouping or a row lock (about 8 % of all generated
    /// reads) read the combined rows of two or three SELECTs of every column of their table: the read's own filter
    /// goes to the first branch, each other branch gets one of its own, the operators are drawn from all four (so
    /// an INTERSECT after another operator comes up), and now and then a filter of the combined rows is added. The
    /// read keeps its selection, order, limit and offset, which then apply to the combined rows. Drawn from a
    /// stream of its own, so the rest of the run's queries stay what their seed made them.
    ///
    /// A risky read (its filter fails on some row) gets no filter of the combined rows: PostgreSQL pushes such a
    /// filter down into the branches and may skip the failing row, which SQLite and the memory driver evaluate
    /// (seed 7 found it: `x / 1e300` underflowing in a branch, `x IS NULL` over the combined rows).
    func setOperation(_ s: inout Select, _ rng: SplitMix64, risky: Bool = false) {
        var seed = rng
        var side = SplitMix64(seed: seed.next() ^ 0x5E70_5E70_5E70_5E70)
        guard side.chance(Self.setOperationShare), s.joins.isEmpty, s.groupBy.isEmpty, s.having == nil,
            s.lock == nil, s.compound == nil, s.tag != Self.keysetTag, let table = world.table(s.table)
        else { return }
        if case .items = s.selection { return }
        let scope = table.schema.columns.map { ScopedColumn(alias: nil, table: table.name, column: $0) }
        let all = table.schema.columns.map(\.name)
        let first = Select(table: s.table, selection: .columns(all), filter: s.filter)
        var rest: [SetOperation] = []
        for _ in 0..<(1 + (side.chance(0.3) ? 1 : 0)) {
            let filter = side.chance(0.9) ? predicate(scope, depth: 2, &side) : nil
            let branch = Select(table: s.table, selection: .columns(all), filter: filter)
            rest.append(SetOperation(side.pick(SetOperator.allCases), branch))
        }
        s.compound = Compound(first, rest)
        s.filter = side.chance(0.25) && !risky ? predicate(scope, depth: 1, &side) : nil
    }
}
