// WriteProgramTests: the write-program tester agrees with its reference on memory and SQLite, and shrinks and prints.
import Foundation
import StrataDifferential
import StrataMemory
import StrataSQLite
import Testing

@Suite("Write programs")
struct WriteProgramTests {
    @Test("100 seeded programs on memory and SQLite match the reference after every step")
    func seededPrograms() async throws {
        // On a thread of its own: a synchronous run must not hold a cooperative thread the rest of the suite needs.
        let outcome = await onOwnThread { () -> (failure: String?, steps: Int) in
            do {
                let runner = try WriteRunner(urls: ["memory:", "sqlite::memory:"], drivers: [.memory, .sqlite])
                var rng = SplitMix64(seed: 20_261_127)
                var generator = WriteProgramGenerator()
                for n in 0..<100 {
                    var programRNG = rng.fork()
                    let program = generator.program(length: 20 + programRNG.below(41), &programRNG)
                    if let failure = try runner.check(program) {
                        return ("program \(n): \(try runner.shrink(failure))", runner.steps)
                    }
                }
                return (nil, runner.steps)
            } catch {
                return ("\(error)", 0)
            }
        }
        #expect(outcome.failure == nil, "\(outcome.failure ?? "")")
        #expect(outcome.steps > 2_000, "the programs ran: \(outcome.steps) steps")
    }

    @Test("each injected fault ends as the reference says on memory and a SQLite file (real lock, real cancellation)")
    func injectedFaults() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wp-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let failure = await onOwnThread { () -> String? in
            do {
                let runner = try WriteRunner(urls: ["memory:", "sqlite:\(file)"], drivers: [.memory, .sqlite])
                let programs: [[WriteStep]] = [
                    // busy: the other connection's BEGIN IMMEDIATE (SQLite), willSave (memory); then saved.
                    [.create(code: "a", balance: 1), .busySave(handle: 0, by: 2), .saveAgain(handle: 0)],
                    [.busySave(handle: 0, by: 2), .create(code: "a", balance: 1), .busySave(handle: 0, by: 5)],
                    [.create(code: "a", balance: 1), .cancelledSave(handle: 0, by: 3), .saveAgain(handle: 0)],
                    [
                        .rawTransaction([.create(code: "a", balance: 1)], end: .rollback),
                        .create(code: "b", balance: 2),
                        .saveAgain(handle: 0),
                    ],
                    [.rawTransaction([.create(code: "a", balance: 1)], end: .leaveOpen), .adjust(handle: 0, by: 1)],
                    [
                        .rawTransaction(
                            [.create(code: "a", balance: 1), .rawMisuse(statement: "SAVEPOINT x")], end: .commit)
                    ],
                    [.transaction([.rawMisuse(statement: "COMMIT"), .create(code: "a", balance: 1)], end: .commit)],
                    [.retried([.create(code: "a", balance: 1)], failures: 2), .adjust(handle: 1, by: 4)],
                    [.retried([.create(code: "a", balance: 1)], failures: 3), .saveAgain(handle: 0)],
                    [
                        .create(code: "a", balance: 1), .connectionLost([.adjust(handle: 0, by: 1)]),
                        .saveAgain(handle: 0),
                    ],
                ]
                for (n, program) in programs.enumerated() {
                    if let f = try runner.check(program) { return "program \(n): \(f)" }
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(failure == nil, "\(failure ?? "")")
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
