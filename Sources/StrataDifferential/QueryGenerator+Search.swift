// QueryGenerator+Search: now and then a generated read matches a full-text query against a text column.
import Strata

extension QueryGenerator {
    /// The share of reads of one table (no joins, grouping, set operation or WITH query) that also match a
    /// full-text query.
    static let searchShare = 0.3

    /// Query words: tokens the edge texts hold once split on spaces (`a`, `ab`, `日本`), their prefixes, words that
    /// normalize into them (`École`, `A`), and words no row holds.
    static let searchWords = ["a", "ab", "abc", "b", "z", "ecole", "École", "日本", "Ω", "ß", "A", "x", "bab", "nothing"]

    /// Makes ``searchShare`` of the reads of one table match a query against one of its text columns, read as a
    /// search document (tokens split on spaces, as Strata stores them; the edge texts are not normalized, so the
    /// backends' byte-exact token comparisons are what is compared): a filter term ANDed to the read's filter,
    /// negated now and then, and sometimes a first ORDER BY term by the query's rank. Drawn from a stream of its
    /// own, so the rest of the run's queries stay what their seed made them. A risky read (one that fails on some
    /// row) stays whole: PostgreSQL orders a WHERE's terms by their cost, so a match beside a failing term lets it
    /// skip the row that fails on SQLite (seed 20261129).
    func search(_ s: inout Select, _ rng: SplitMix64, risky: Bool = false) {
        var seed = rng
        var side = SplitMix64(seed: seed.next() ^ 0x5345_4152_4348_0001)
        guard side.chance(Self.searchShare), !risky, s.joins.isEmpty, s.groupBy.isEmpty, s.having == nil,
            s.compound == nil, s.commonTable == nil, !s.distinct, s.tag != Self.keysetTag,
            let table = world.table(s.table)
        else { return }
        let texts = table.schema.columns.filter { $0.type == .text }
        guard !texts.isEmpty else { return }
        var words: [String] = []
        for n in 0..<(1 + side.below(3)) {
            if n > 0 && side.chance(0.3) { words.append("OR") }
            words.append(side.pick(Self.searchWords) + (side.chance(0.25) ? "*" : ""))
        }
        guard let query = try? SearchQuery(words.joined(separator: " "), model: table.name) else { return }
        let column = SQLExpression.Node.column(side.pick(texts).name)
        let term: SQLExpression.Node = side.chance(0.2) ? .not(.search(column, query)) : .search(column, query)
        s.filter = s.filter.map { .and([$0, SQLExpression(term)]) } ?? SQLExpression(term)
        if side.chance(0.3) {
            s.order.insert(Ordering(expression: SQLExpression(.searchRank(column, query)), .descending), at: 0)
        }
    }
}

extension Select {
    /// Whether the SELECT matches a full-text query in its filter.
    var searches: Bool {
        func has(_ n: SQLExpression.Node) -> Bool {
            switch n {
            case .search: return true
            case .and(let items), .or(let items): return items.contains(where: has)
            case .not(let e): return has(e)
            default: return false
            }
        }
        return filter.map { has($0.node) } ?? false
    }
}
