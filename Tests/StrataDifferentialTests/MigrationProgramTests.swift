// MigrationProgramTests: the migration-program tester finds memory and SQLite alike over seeded programs, finds a
// difference it is shown, and shrinks it.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@testable import StrataDifferential

@Suite("Migration programs")
struct MigrationProgramTests {
    @Test("120 seeded programs on memory and a SQLite file agree after every step, and make every kind of change")
    func seededPrograms() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mp-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let outcome = await onOwnThread { () -> (failure: String?, steps: Int, census: [String: (Int, Int)]) in
            do {
                let runner = try MigrationRunner(urls: ["memory:", "sqlite:\(file)"], drivers: [.memory, .sqlite])
                defer { runner.close() }
                var rng = SplitMix64(seed: 20_261_130)
                var generator = MigrationProgramGenerator(types: runner.typesReadBack)
                for n in 0..<120 {
                    var programRNG = rng.fork()
                    let length = 5 + programRNG.below(21)
                    if let failure = try runner.run(length: length, generator: &generator, &programRNG) {
                        return ("program \(n): \(try runner.shrink(failure))", runner.steps, [:])
                    }
                }
                return (nil, runner.steps, runner.census.mapValues { ($0.ran, $0.refused) })
            } catch {
                return ("\(error)", 0, [:])
            }
        }
        #expect(outcome.failure == nil, "\(outcome.failure ?? "")")
        #expect(outcome.steps > 1_200, "the programs ran: \(outcome.steps) steps")
        let kinds = [
            "createTable", "dropTable", "renameTable", "addColumn", "dropColumn", "renameColumn", "alterColumn",
            "setDefault", "addIndex", "dropIndex", "addForeignKey", "dropForeignKey", "insert", "revert",
        ]
        for kind in kinds {
            let (ran, refused) = outcome.census[kind] ?? (0, 0)
            #expect(ran > refused, "\(kind): \(ran) ran, \(refused) refused: some must pass")
            if kind != "dropForeignKey" { #expect(refused > 0, "\(kind): none refused in \(ran)") }
        }
        // Writes through the model whose table the steps change, and transforms inside steps: some pass, some fail.
        for kind in ["MPItem save", "MPItem adjust", "MPTag upsert", "MPItem fetch", "transform update"] {
            let (ran, refused) = outcome.census[kind] ?? (0, 0)
            #expect(ran > refused, "\(kind): \(ran) ran, \(refused) refused: some must pass")
            if kind == "MPItem save" || kind == "transform update" {
                #expect(refused > 0, "\(kind): none refused in \(ran)")
            }
        }
        for kind in [
            "MPItem delete", "MPTag insertAll", "MPTag save", "MPTag load", "MPItem bulk update",
            "transform MPItem saves",
        ] {
            #expect((outcome.census[kind]?.0 ?? 0) > 0, "\(kind) ran")
        }
        let thrown = outcome.census["transform throws"] ?? (0, 0)
        #expect(thrown.0 > 0 && thrown.1 == thrown.0, "a transform that throws fails its step: \(thrown)")
    }

    @Test("SQLite's date column, read back as text, is found and shrunk: its DEFAULT '-7' is refused only on memory")
    func findsAndShrinks() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mp-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let outcome = await onOwnThread {
            () -> (found: MigrationDivergence?, shrunk: MigrationDivergence?, types: [ColumnType]) in
            do {
                let runner = try MigrationRunner(urls: ["memory:", "sqlite:\(file)"], drivers: [.memory, .sqlite])
                defer { runner.close() }
                let key = TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true)
                let create = SchemaChange.createTable(
                    TableSchema(
                        name: "mp_t1",
                        columns: [key, TableColumn(name: "c1", type: .date, isNullable: true)]))
                let program: [MigrationProgramStep] = [
                    .migrate(name: "m001", changes: [create], down: nil),
                    .insert(table: "mp_t1", columns: ["id"], values: [.integer(1)]),
                    .migrate(
                        name: "m002",
                        changes: [
                            .addColumn(table: "mp_t1", TableColumn(name: "c2", type: .integer, isNullable: true))
                        ],
                        down: nil),
                    .migrate(
                        name: "m003", changes: [.setDefault(table: "mp_t1", column: "c1", to: .text("-7"))], down: nil),
                    .insert(table: "mp_t1", columns: ["id"], values: [.integer(2)]),
                ]
                let found = try runner.check(program)
                return (found, try found.map { try runner.shrink($0) }, runner.typesReadBack)
            } catch {
                Issue.record("\(error)")
                return (nil, nil, [])
            }
        }
        #expect(outcome.found?.step == 3, "\(String(describing: outcome.found))")
        #expect(outcome.found?.details.contains("typeMismatch") == true, "\(String(describing: outcome.found))")
        #expect(outcome.shrunk?.program.count == 2, "create and the DEFAULT: \(String(describing: outcome.shrunk))")
        #expect(!outcome.types.contains(.date), "date is left out where SQLite reads it back as text")
        #expect(outcome.types.contains(.integer) && outcome.types.contains(.decimal) && outcome.types.contains(.bool))
    }

    @Test("one seed makes one program written ahead")
    func deterministic() {
        func program(_ seed: UInt64) -> [String] {
            var rng = SplitMix64(seed: seed)
            var generator = MigrationProgramGenerator()
            return generator.program(length: 40, &rng).map(\.description)
        }
        #expect(program(7) == program(7))
        #expect(program(7) != program(8))
    }

    @Test("a program written step by step is the same on every run of its seed")
    func deterministicLive() async throws {
        let outcome = await onOwnThread { () -> (first: [String], second: [String], error: String?) in
            do {
                var runs: [[String]] = []
                for _ in 0..<2 {
                    let runner = try MigrationRunner(
                        urls: ["memory:", "sqlite::memory:"], drivers: [.memory, .sqlite])
                    defer { runner.close() }
                    var rng = SplitMix64(seed: 11)
                    var generator = MigrationProgramGenerator(types: runner.typesReadBack)
                    var written: [String] = []
                    for _ in 0..<5 {
                        var programRNG = rng.fork()
                        _ = try runner.run(length: 12, generator: &generator, &programRNG)
                        written.append(runner.lastProgram.map(\.description).joined(separator: "\n"))
                    }
                    runs.append(written)
                }
                return (runs[0], runs[1], nil)
            } catch {
                return ([], [], "\(error)")
            }
        }
        #expect(outcome.error == nil, "\(outcome.error ?? "")")
        #expect(outcome.first == outcome.second)
        #expect(outcome.first.count == 5 && outcome.first.allSatisfy { !$0.isEmpty })
    }
}
