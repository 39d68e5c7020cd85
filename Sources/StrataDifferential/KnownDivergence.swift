// KnownDivergence: divergences the generator still produces on purpose, named, and reported apart from new ones.
import Strata

/// A divergence that is understood and tracked elsewhere: the run counts it under its name instead of failing.
///
/// It is never skipped: the generator keeps producing it, and each run reports how often it was seen.
public struct KnownDivergence: Sendable, Hashable {
    /// A short name, like a conformance case's (`like.sqlite-noncharacters`).
    public var name: String
    /// What differs, and where it is being fixed.
    public var reason: String
    let matches: @Sendable (Divergence) -> Bool

    public static func == (a: KnownDivergence, b: KnownDivergence) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Every known divergence.
    public static let all: [KnownDivergence] = [
        KnownDivergence(
            name: "like.sqlite-noncharacters",
            reason:
                "SQLite's LIKE reads U+FFFE/U+FFFF as U+FFFD, so it matches extra rows (issue 11; being fixed in the SQLite LIKE work)",
            matches: { d in
                guard let s = d.shownSelect else { return false }
                return Features(s, world: d.shownWorld).likeOverNoncharacters
            })
    ]

    /// The known divergence `d` is, if any.
    static func classify(_ d: Divergence) -> KnownDivergence? { all.first { $0.matches(d) } }
}

/// What a query and its world contain, for recognizing known divergences.
struct Features {
    var likeOverNoncharacters = false

    init(_ s: Select, world: FuzzWorld) {
        var likes = false
        var patternNonchar = false
        func walk(_ n: SQLExpression.Node) {
            switch n {
            case .like(let e, let p, _, _):
                likes = true
                if Self.hasNoncharacter(p) { patternNonchar = true }
                walk(e)
            case .and(let items), .or(let items): items.forEach(walk)
            case .not(let e), .isNull(let e, _), .inList(let e, _, _): walk(e)
            case .compare(_, let l, let r):
                walk(l)
                walk(r)
            case .between(let e, let l, let h, _):
                walk(e)
                walk(l)
                walk(h)
            case .column, .joinedColumn, .value, .constant, .unsafeRaw: break
            }
        }
        if let f = s.filter { walk(f.node) }
        s.joins.forEach { walk($0.on.node) }
        let dataNonchar = world.tables.contains { t in
            t.rows.contains { row in
                row.contains { if case .text(let s) = $0 { Self.hasNoncharacter(s) } else { false } }
            }
        }
        likeOverNoncharacters = likes && (patternNonchar || dataNonchar)
    }

    static func hasNoncharacter(_ s: String) -> Bool {
        s.unicodeScalars.contains { $0.value == 0xFFFE || $0.value == 0xFFFF }
    }
}
