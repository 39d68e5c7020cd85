// PreparedFuzzTests: the engine's prepared check binds most generated reads into the SQL their first run rendered.
import Foundation
import Strata
import StrataSQLite
import Testing

@testable import StrataDifferential

@Suite("Differential fuzzing: prepared reads")
struct PreparedFuzzTests {
    @Test("generated reads made prepared read alike, and most bind into their remembered SQL on SQLite")
    func mostBindIntoRememberedSQL() throws {
        let backend = try Backend(url: "sqlite::memory:", drivers: [.sqlite])
        let engine = DifferentialEngine(backends: [backend], options: FuzzOptions(seed: 3, queries: 0))
        var rng = SplitMix64(seed: 3)
        let values = EdgeValues(noncharacters: true)
        var prepared = 0
        var bound = 0
        for _ in 0..<8 {
            let world = FuzzWorld.generate(&rng, values: values)
            #expect(engine.setUp(world) == nil)
            let generator = QueryGenerator(world: world, values: values)
            for _ in 0..<40 {
                let select = generator.select(&rng)
                guard let (parameterized, parameters) = DifferentialEngine.parameterized(select, turn: 0) else {
                    continue
                }
                prepared += 1
                let types = world.resultTypes(select)
                let expected = backend.run(.select(select), types: types)
                let plan = PreparedPlan(select: parameterized) { _, _ in }
                let first = backend.runPrepared(plan, values: parameters, types: types)
                let ordered = DifferentialEngine.isTotallyOrdered(select)
                #expect(first.agrees(with: expected, ordered: ordered), "\(ASTText.select(select))")
                guard case .rows = expected else { continue }
                if plan.binds(for: parameters, dialect: "sqlite", schemas: 0, textColumns: 0) != nil { bound += 1 }
                let again = backend.runPrepared(plan, values: parameters, types: types)
                #expect(again.agrees(with: expected, ordered: ordered), "bound again: \(ASTText.select(select))")
            }
        }
        #expect(prepared > 50, "\(prepared) generated reads had values to make parameters")
        #expect(bound * 2 > prepared, "\(bound) of \(prepared) bound into their remembered SQL")
    }
}
