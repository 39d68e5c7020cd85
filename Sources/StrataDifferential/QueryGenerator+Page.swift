// QueryGenerator+Page: now and then a generated read is a keyset page, after a row of the world, in its order.
import Strata

extension QueryGenerator {
    /// The tag a generated keyset page carries (tests count the share of pages by it).
    static let keysetTag = "fuzz.keyset-page"

    /// Makes 15 % of the reads that can be one (about 4 % of all generated reads) a keyset page: a read of one
    /// table whose order is total (its plain column terms end in `id`) gets the condition `KeysetCondition` writes
    /// for the position of one of the table's rows (an `id` that may be missing, so some positions fall between
    /// rows), a page limit of 1…6 and the tag ``keysetTag``. Drawn from a copy of `rng`, so the rest of the run's
    /// queries stay what their seed made them.
    ///
    /// A numbered page needs nothing of its own here: it is a count and a read with a limit and an offset over a
    /// total order, which the generator makes already.
    func keysetPage(_ s: inout Select, _ rng: SplitMix64) {
        var side = rng
        _ = side.below(2)  // past the draw `lock(_:_:)` makes from the same state, so the two do not go together
        guard side.chance(0.15), s.joins.isEmpty, s.groupBy.isEmpty, !s.distinct, let last = s.order.last,
            last.column == "id", last.table == nil,
            s.order.allSatisfy({ $0.expression == nil && $0.aggregate == nil && $0.table == nil }),
            let table = world.table(s.table), !table.rows.isEmpty
        else { return }
        let row = side.pick(table.rows)
        let names = table.schema.insertColumnNames
        let values = s.order.map { o -> DatabaseValue in
            if let i = names.firstIndex(of: o.column) { return row[i] }
            return .integer(Int64(side.below(table.rows.count + 2)))
        }
        let after = KeysetCondition.after(s.order, values)
        s.filter = s.filter.map { .and([$0, after]) } ?? after
        s.limit = 1 + side.below(6)
        s.offset = nil
        s.tag = Self.keysetTag  // a comment on the SQL drivers, so every run of a page also carries a tag
    }
}
