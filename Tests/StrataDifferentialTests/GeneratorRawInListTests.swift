// GeneratorRawInListTests: the query generator produces long IN lists and raw conditions the memory driver parses.
import Strata
import Testing

@testable import StrataDifferential

@Suite("Differential generator: long IN lists and raw conditions")
struct GeneratorRawInListTests {
    /// Whether a node holds an IN list of at least 100 values (bound as one array on SQL backends).
    static func hasLongIn(_ node: SQLExpression.Node) -> Bool {
        switch node {
        case .inList(_, let values, _): return values.count >= 100
        case .and(let items), .or(let items): return items.contains(where: hasLongIn)
        case .not(let e): return hasLongIn(e)
        default: return false
        }
    }

    @Test("long IN lists and raw conditions are generated; every raw one parses back with all its binds")
    func coverage() throws {
        var longIn = 0
        var raw = 0
        var rawLongIn = 0
        for s in GeneratedReads.sample(seed: 3) {
            guard let filter = s.filter else { continue }
            if case .unsafeRaw(let sql, let binds) = filter.node {
                raw += 1
                if binds.count >= 100 { rawLongIn += 1 }
                #expect(throws: Never.self, "\(sql)") { _ = try RawCondition.parse(sql, binds) }
            } else if Self.hasLongIn(filter.node) {
                longIn += 1
            }
        }
        #expect(longIn > 0 && raw > 0, "long IN lists: \(longIn), raw conditions: \(raw)")
    }

    @Test("printing a condition as raw text and parsing it gives the same condition back")
    func roundTrip() throws {
        let node: SQLExpression.Node = .and([
            .compare(.greaterOrEqual, .column("a b"), .value(.integer(3))),
            .or([
                .inList(.column("s"), [.text("x"), .null], negated: true),
                .like(
                    .joinedColumn(table: "j", name: "t\"q"), pattern: "a\\_%", caseInsensitive: false, negated: false),
            ]),
            .not(.between(.column("d"), low: .value(.double(1.5)), high: .value(.date(.distantPast)), negated: true)),
            .isNull(.column("n"), negated: true),
        ])
        let printed = try #require(RawConditionText.print(node))
        #expect(try RawCondition.parse(printed.sql, printed.binds) == node)
        #expect(RawConditionText.print(.like(.column("a"), pattern: "x", caseInsensitive: true, negated: false)) == nil)
    }
}
