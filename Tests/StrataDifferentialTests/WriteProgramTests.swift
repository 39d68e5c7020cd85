// WriteProgramTests: the write-program tester agrees with its reference on memory and SQLite, and shrinks and prints.
import Foundation
import StrataDifferential
import StrataMemory
import StrataSQLite
import Testing

@Suite("Write programs")
struct WriteProgramTests {
    @Test("200 seeded programs on memory and SQLite match the reference after every step")
    func seededPrograms() throws {
        let runner = try WriteRunner(urls: ["memory:", "sqlite::memory:"], drivers: [.memory, .sqlite])
        var rng = SplitMix64(seed: 20_261_127)
        var generator = WriteProgramGenerator()
        for n in 0..<200 {
            var programRNG = rng.fork()
            let program = generator.program(length: 20 + programRNG.below(41), &programRNG)
            if let failure = try runner.check(program) {
                Issue.record("program \(n): \(try runner.shrink(failure))")
                return
            }
        }
        #expect(runner.steps > 4_000, "the programs ran: \(runner.steps) steps")
    }

    @Test("a program prints as Swift, nested scopes indented")
    func swiftText() {
        let step = WriteStep.transaction(
            [.create(code: "a", balance: 1), .savepoint([.adjust(handle: 0, by: 2)], rollback: true)], end: .commit)
        #expect(
            step.swift()
                == """
                try db.transaction { tx in
                    var h = WPAccount(code: "a", balance: 1); try h.save(tx)  // new handle
                    try tx.savepoint { tx in
                        handles[0].balance += 2; try handles[0].save(tx)
                        throw Rollback()
                    }
                }  // commits
                """)
    }
}
