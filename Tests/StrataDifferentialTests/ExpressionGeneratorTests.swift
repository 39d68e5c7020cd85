// ExpressionGeneratorTests: the generator produces arithmetic, text functions, subqueries and computed writes.
import Foundation
import Strata
import Testing

@testable import StrataDifferential

@Suite("Differential fuzzing: expressions and subqueries")
struct ExpressionGeneratorTests {
    @Test("the generator covers arithmetic (safe and risky), ||, lower/upper, COALESCE, subqueries and computed SET")
    func coverage() {
        var rng = SplitMix64(seed: 1)
        let values = EdgeValues(noncharacters: true)
        var seen = Set<String>()
        for _ in 0..<40 {
            let world = FuzzWorld.generate(&rng, values: values)
            let generator = QueryGenerator(world: world, values: values)
            for _ in 0..<50 {
                let s = generator.select(&rng)
                let text = ASTText.select(s)
                for marker in [
                    ".arithmetic(.remainder", ".arithmetic(.divide", ".concat(", ".lower(", ".upper(", ".coalesce(",
                    ".inSubquery(", ".scalarSubquery(", "Ordering(expression:",
                ] where text.contains(marker) {
                    seen.insert(marker)
                }
                if s.filter.map({ ASTText.node($0.node).hasPrefix(".compare(") }) == true, s.limit == nil,
                    s.joins.isEmpty, text.contains(".value(.integer(0))")
                {
                    seen.insert("risky")
                }
            }
            for _ in 0..<20 where ASTText.write(generator.write(&rng)).contains("expression:") {
                seen.insert("computed SET")
            }
        }
        #expect(
            seen == [
                ".arithmetic(.remainder", ".arithmetic(.divide", ".concat(", ".lower(", ".upper(", ".coalesce(",
                ".inSubquery(", ".scalarSubquery(", "Ordering(expression:", "risky", "computed SET",
            ])
    }

    @Test("a computed value's AST prints as the Swift that builds it, and shrinks to its operands")
    func printsAndShrinks() {
        let n = SQLExpression.Node.arithmetic(.add, .column("a"), .value(.integer(2)))
        #expect(ASTText.node(n) == #".arithmetic(.add, .column("a"), .value(.integer(2)))"#)
        let shrunk = DifferentialEngine.simpler(.compare(.equal, n, .value(.integer(3))))
        #expect(shrunk.contains(.compare(.equal, .column("a"), .value(.integer(3)))))
        let sub = SQLExpression.Node.scalarSubquery(Select(table: "t", selection: .columns(["x"])))
        #expect(ASTText.node(sub) == #".scalarSubquery(Select(table: "t", selection: .columns(["x"])))"#)
    }
}
