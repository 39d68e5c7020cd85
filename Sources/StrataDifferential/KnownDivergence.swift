// KnownDivergence: divergences the generator still produces on purpose, named, and reported apart from new ones.
import Strata

/// A divergence that is understood and tracked elsewhere: the run counts it under its name instead of failing.
///
/// It is never skipped: the generator keeps producing it, and each run reports how often it was seen.
public struct KnownDivergence: Sendable, Hashable {
    /// A short name, like a conformance case's (`compare.across-types`).
    public var name: String
    /// What differs, and where it is being fixed.
    public var reason: String
    /// The date (`YYYY-MM-DD`) by which it is to be fixed, and how.
    public var fixBy: String
    let matches: @Sendable (Divergence) -> Bool

    public static func == (a: KnownDivergence, b: KnownDivergence) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Every known divergence: none now. The last three (`compare.across-types`, `like.non-text-column`,
    /// `sum.decimal-past-38-digits-in-having`) were fixed by issue 25: the core's statement check refuses the
    /// first two with the schema's column types, and a decimal sum past 38 digits in HAVING is an arithmetic error
    /// on every driver; the generator still writes them, and every backend must answer them alike.
    public static let all: [KnownDivergence] = []

    /// The known divergence `d` is, if any.
    static func classify(_ d: Divergence) -> KnownDivergence? { all.first { $0.matches(d) } }
}

/// What a query and its world contain: the mistyped predicates the core's check refuses, which the generator
/// does not send as raw text (the core does not type raw conditions).
struct Features {
    var mistypedComparison = false
    var likeOverNonText = false

    init(_ s: Select, world: FuzzWorld) {
        var mistyped = false
        var likeNonText = false
        func type(_ n: SQLExpression.Node) -> ColumnType? {
            let (alias, name): (String?, String)
            switch n {
            case .column(let c): (alias, name) = (nil, c)
            case .joinedColumn(let t, let c): (alias, name) = (t, c)
            default: return nil
            }
            let table = alias.flatMap { a in s.joins.first { $0.alias == a }?.table } ?? s.table
            guard let t = world.table(table), let i = t.schema.index(of: name) else { return nil }
            return t.schema.columns[i].type
        }
        func clash(_ column: SQLExpression.Node, _ values: [DatabaseValue]) {
            guard let t = type(column) else { return }
            for v in values {
                if let k = v.columnType, k != t, !QueryGenerator.compatible(k, t) { mistyped = true }
            }
        }
        func walk(_ n: SQLExpression.Node) {
            switch n {
            case .like(let e, _, _, _):
                if let t = type(e), t != .text { likeNonText = true }
                walk(e)
            case .and(let items), .or(let items): items.forEach(walk)
            case .not(let e), .isNull(let e, _): walk(e)
            case .inList(let e, let values, _):
                clash(e, values)
                walk(e)
            case .compare(_, let l, let r):
                if case .value(let v) = r { clash(l, [v]) }
                if case .value(let v) = l { clash(r, [v]) }
                if let a = type(l), let b = type(r), a != b, !QueryGenerator.compatible(a, b) { mistyped = true }
                walk(l)
                walk(r)
            case .between(let e, let l, let h, _):
                if case .value(let v) = l { clash(e, [v]) }
                if case .value(let v) = h { clash(e, [v]) }
                walk(e)
                walk(l)
                walk(h)
            case .column, .joinedColumn, .value, .constant, .unsafeRaw, .parameter: break
            case .arithmetic(_, let l, let r), .concat(let l, let r):
                walk(l)
                walk(r)
            case .caseMapped(let e, _), .typed(let e, _), .jsonPath(let e, _), .search(let e, _), .searchRank(let e, _):
                walk(e)
            case .coalesce(let items): items.forEach(walk)
            case .inSubquery(let e, let inner, _):
                walk(e)
                nested(inner)
            case .scalarSubquery(let inner), .correlatedExists(let inner, _, _): nested(inner)
            }
        }
        /// A subquery's own filter, over its own table.
        func nested(_ inner: Select) {
            let f = Features(inner, world: world)
            mistyped = mistyped || f.mistypedComparison
            likeNonText = likeNonText || f.likeOverNonText
        }
        if let f = s.filter { walk(f.node) }
        s.joins.forEach { walk($0.on.node) }
        s.compound?.branches.forEach(nested)  // a set operation's branches, each over its own table
        if let w = s.commonTable { nested(w.select) }  // a named query, over its own table
        mistypedComparison = mistyped
        likeOverNonText = likeNonText
    }
}
