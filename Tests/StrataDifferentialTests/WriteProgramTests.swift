// WriteProgramTests: the write-program tester agrees with its reference on memory and SQLite, and shrinks and prints.
import Foundation
import StrataMemory
import StrataSQLite
import Testing

@testable import StrataDifferential

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

    @Test("composite-key line steps (save, upsert, edit, refused rekey, delete) end as the reference says")
    func lineSteps() async throws {
        let failure = await onOwnThread { () -> String? in
            do {
                let runner = try WriteRunner(urls: ["memory:", "sqlite::memory:"], drivers: [.memory, .sqlite])
                let programs: [[WriteStep]] = [
                    [
                        .lineSave(order: 1, sku: "x", qty: 2), .lineSave(order: 2, sku: "x", qty: 3),
                        .lineSave(order: 1, sku: "y", qty: 4), .lineSave(order: 1, sku: "x", qty: 5),
                        .lineEdit(order: 1, sku: "x", by: 1), .lineEdit(order: 2, sku: "z", by: 1),
                        .lineRekey(order: 1, sku: "y", to: "z"), .lineRekey(order: 1, sku: "y", to: "y"),
                        .lineRekey(order: 2, sku: "y", to: "x"), .lineDelete(order: 2, sku: "x"),
                    ],
                    [
                        .lineUpsert(order: 1, sku: "x", qty: 1, keep: false),
                        .lineUpsert(order: 1, sku: "x", qty: 9, keep: true),
                        .lineUpsert(order: 1, sku: "x", qty: 7, keep: false),
                        .lineUpsert(order: 1, sku: "y", qty: 3, keep: true),
                    ],
                    [
                        .lineSave(order: 1, sku: "x", qty: 1),
                        .transaction(
                            [
                                .lineEdit(order: 1, sku: "x", by: 4),
                                .savepoint([.lineDelete(order: 1, sku: "x")], rollback: true),
                                .lineSave(order: 2, sku: "y", qty: 6),
                            ], end: .rollback),
                        .transaction(
                            [.lineSave(order: 2, sku: "z", qty: 1), .lineRekey(order: 2, sku: "z", to: "x")],
                            end: .commit),
                        .abortingTransaction(
                            [.lineRekey(order: 1, sku: "x", to: "y"), .lineEdit(order: 1, sku: "x", by: 1)],
                            end: .commit),
                    ],
                ]
                for (n, program) in programs.enumerated() {
                    if let f = try runner.check(program) { return "program \(n): \(f)" }
                }
                var reference = WriteReference()
                let outcomes = programs[0].flatMap { reference.apply($0) }
                guard outcomes.filter({ $0 == .invalid }).count == 2 else { return "rekeys not refused: \(outcomes)" }
                return reference.snapshot.lines == ["1 x 6", "1 y 4"] ? nil : "lines \(reference.snapshot.lines)"
            } catch {
                return "\(error)"
            }
        }
        #expect(failure == nil, "\(failure ?? "")")
    }

    @Test("marks on a composite-key line (two-column foreign key) end as the reference says on memory and SQLite")
    func lineMarkSteps() async throws {
        let failure = await onOwnThread { () -> String? in
            do {
                let runner = try WriteRunner(urls: ["memory:", "sqlite::memory:"], drivers: [.memory, .sqlite])
                let programs: [[WriteStep]] = [
                    [
                        .lineMark(order: 1, sku: "x"), .lineSave(order: 1, sku: "x", qty: 2),
                        .lineSave(order: 2, sku: "y", qty: 1), .lineMark(order: 1, sku: "x"),
                        .lineMark(order: 1, sku: "x"), .lineMark(order: 2, sku: "x"), .lineMark(order: 2, sku: "y"),
                        .lineDelete(order: 1, sku: "x"),
                    ],
                    [
                        .lineSave(order: 1, sku: "x", qty: 1),
                        .transaction(
                            [.lineMark(order: 1, sku: "x"), .lineMark(order: 1, sku: "y")], end: .commit),
                        .savepoint([.lineDelete(order: 1, sku: "x")], rollback: true),
                        .abortingTransaction(
                            [.lineMark(order: 2, sku: "z"), .lineMark(order: 1, sku: "x")], end: .commit),
                    ],
                ]
                for (n, program) in programs.enumerated() {
                    if let f = try runner.check(program) { return "program \(n): \(f)" }
                }
                var reference = WriteReference()
                let outcomes = programs[0].flatMap { reference.apply($0) }
                guard outcomes.filter({ $0 == .foreignKey }).count == 2 else {
                    return "marks of no line not refused: \(outcomes)"
                }
                return reference.snapshot.marks == ["2 y"] ? nil : "marks \(reference.snapshot.marks)"
            } catch {
                return "\(error)"
            }
        }
        #expect(failure == nil, "\(failure ?? "")")
    }

    @Test(
        "history, encrypted-column, key-rotation and note-upsert steps end as the reference says on memory and SQLite")
    func historySteps() async throws {
        let failure = await onOwnThread { () -> String? in
            do {
                let runner = try WriteRunner(urls: ["memory:", "sqlite::memory:"], drivers: [.memory, .sqlite])
                let programs: [[WriteStep]] = [
                    // One transaction per autocommit write, pages of 1, a prune of all but the last read.
                    [
                        .noteSave(key: "n0", n: 1, tag: "red", secret: "s"),
                        .noteSave(key: "n0", n: 2, tag: "blue", secret: nil),
                        .noteEdit(key: "n0", by: 3, retag: "red"),
                        .noteInsertAll(keys: ["n1", "n2"], tag: "red", load: false),
                        .readHistory(limit: 1),
                        .noteFind(tag: "red"),
                        .noteUpdateWhere(tag: "red", n: 9, retag: nil),
                        .noteDeleteWhere(tag: "red"),
                        .readHistory(limit: 2),
                        .pruneHistory(keep: 1),
                        .readHistory(limit: 3),
                    ],
                    // Rolled back, failed and committed transactions: only the committed one, whole.
                    [
                        .transaction([.noteSave(key: "n0", n: 1, tag: "red", secret: "s")], end: .rollback),
                        .transaction(
                            [
                                .noteSave(key: "n1", n: 1, tag: "red", secret: "s"),
                                .savepoint([.noteDelete(key: "n1")], rollback: true),
                                .noteInsertAll(keys: ["n1", "n2"], tag: "blue", load: true),
                                .noteUpdateWhere(tag: "red", n: 0, retag: "green"),
                            ], end: .commit),
                        .transaction([.noteDelete(key: "n1")], end: .fail),
                        .noteFind(tag: "green"),
                        .readHistory(limit: 4),
                    ],
                    // Key rotations between writes: later writes seal under the newest key (the snapshot shows
                    // each envelope's key), older envelopes open, equality finds values sealed under either key;
                    // upserts on the note's own key update, keep or insert.
                    [
                        .noteSave(key: "n0", n: 1, tag: "red", secret: "s"),
                        .rotateKey,
                        .noteSave(key: "n1", n: 2, tag: "red", secret: nil),
                        .noteFind(tag: "red"),
                        .noteEdit(key: "n0", by: 1, retag: nil),
                        .noteUpdateWhere(tag: "red", n: 5, retag: nil),
                        .rotateKey,
                        .noteEdit(key: "n0", by: 1, retag: "red"),
                        .noteUpsert(key: "n1", n: 3, tag: "blue", secret: "t", keep: false),
                        .noteUpsert(key: "n2", n: 4, tag: "red", secret: nil, keep: true),
                        .noteUpsert(key: "n0", n: 9, tag: "green", secret: nil, keep: true),
                        .transaction(
                            [.noteUpsert(key: "n3", n: 1, tag: "red", secret: "x", keep: false)], end: .rollback),
                        .noteFind(tag: "red"),
                        .noteDeleteWhere(tag: "red"),
                        .readHistory(limit: 2),
                    ],
                    // Note steps in transactions a failed statement aborts: an insertAll of a stored key aborts the
                    // transaction (or the savepoint it ran in); nothing of an aborted transaction is recorded.
                    [
                        .noteSave(key: "n0", n: 1, tag: "red", secret: "s"),
                        .abortingTransaction(
                            [
                                .noteSave(key: "n1", n: 1, tag: "blue", secret: nil),
                                .noteInsertAll(keys: ["n0"], tag: "red", load: false),
                                .noteFind(tag: "red"),
                                .noteUpsert(key: "n2", n: 1, tag: "red", secret: nil, keep: false),
                            ], end: .commit),
                        .abortingTransaction(
                            [
                                .noteUpsert(key: "n3", n: 1, tag: "red", secret: "y", keep: false),
                                .savepoint([.noteInsertAll(keys: ["n3"], tag: "red", load: true)], rollback: false),
                                .noteEdit(key: "n3", by: 1, retag: nil),
                            ], end: .commit),
                        .noteFind(tag: "red"),
                        .readHistory(limit: 4),
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

    @Test("the generator gives history and encrypted columns a share of the steps, and ends reading the history")
    func historyShare() {
        var rng = SplitMix64(seed: 7)
        var generator = WriteProgramGenerator()
        var total = (steps: 0, history: 0)
        for _ in 0..<200 {
            let program = generator.program(length: 40, &rng)
            #expect(program.last.map { if case .readHistory = $0 { true } else { false } } == true)
            let counted = WriteStep.census(program)
            total = (total.steps + counted.steps, total.history + counted.history)
        }
        let share = Double(total.history) / Double(total.steps)
        #expect(share > 0.1 && share < 0.3, "share \(share)")
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
