// DifferentialFuzzTests: thousands of generated queries on memory, SQLite and PostgreSQL, compared row for row.
import Foundation
import Strata
import Testing

@testable import StrataDifferential

@Suite("Differential fuzzing")
struct DifferentialFuzzTests {
    @Test("generated queries agree on every backend, and TLP and NoREC hold on each (STRATA_FUZZ_QUERIES)")
    func generatedQueriesAgree() async throws {
        let urls = try await FuzzBackends.urls(schema: "strata_fuzz")
        let options = FuzzOptions(seed: FuzzBackends.seed, queries: FuzzBackends.queries)
        let started = Date()
        let (engine, report) = try await runSurvivingRestarts {
            try DifferentialEngine(urls: urls, drivers: FuzzBackends.drivers, options: options)
        }
        print(
            "differential: \(report.summary) on \(report.backends.joined(separator: ", ")); "
                + "\(report.statements) statements in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        if let known = report.knownSummary { print(known) }
        #expect(report.queries >= FuzzBackends.queries)
        #expect(report.statements > report.queries * urls.count, "each query ran on every backend, oracles too")
        let reproduce =
            "reproduce with: STRATA_FUZZ_SEED=\(FuzzBackends.seed) STRATA_FUZZ_QUERIES=\(FuzzBackends.queries) "
            + "pg_virtualenv -t -v 15 swift test --filter StrataDifferentialTests"
        for d in report.divergences { Issue.record(Comment(rawValue: engine.describe(d) + "\n" + reproduce)) }
    }

    @Test("the same seed generates the same worlds and queries")
    func deterministic() {
        func sample(_ seed: UInt64) -> [Select] {
            var rng = SplitMix64(seed: seed)
            let values = EdgeValues(noncharacters: true)
            let world = FuzzWorld.generate(&rng, values: values)
            let generator = QueryGenerator(world: world, values: values)
            return (0..<50).map { _ in generator.select(&rng) }
        }
        #expect(sample(7) == sample(7))
        #expect(sample(7) != sample(8))
    }

    @Test("the generator covers every column type, joins, counts, LIKE, IN () and limits")
    func coverage() {
        var rng = SplitMix64(seed: 1)
        let values = EdgeValues(noncharacters: true)
        var types = Set<ColumnType>()
        var sawJoin = false
        var sawCount = false
        var sawLike = false
        var sawEmptyIn = false
        var sawLimit = false
        for _ in 0..<40 {
            let world = FuzzWorld.generate(&rng, values: values)
            for t in world.tables { types.formUnion(t.schema.columns.map(\.type)) }
            let generator = QueryGenerator(world: world, values: values)
            for _ in 0..<50 {
                let s = generator.select(&rng)
                sawJoin = sawJoin || !s.joins.isEmpty
                sawCount = sawCount || s.selection == .count
                sawLimit = sawLimit || s.limit != nil
                let text = s.filter.map { ASTText.node($0.node) } ?? ""
                sawLike = sawLike || text.contains(".like(")
                sawEmptyIn = sawEmptyIn || text.contains(", [])") || text.contains(", [], negated: true)")
            }
        }
        #expect(types == Set(ColumnType.allCases))
        #expect(sawJoin && sawCount && sawLike && sawEmptyIn && sawLimit)
    }

    @Test("LIKE over a bool column: refused by the core's check with the same typeMismatch on every backend")
    func likeOverBoolRefusedAlike() throws {
        let engine = try DifferentialEngine(
            urls: ["memory:", "sqlite::memory:"], drivers: FuzzBackends.drivers, options: FuzzOptions())
        let world = Self.flagWorld
        let select = Select(
            table: FuzzWorld.parent, selection: .columns(["id", "note"]),
            filter: .and([.isNull(.column("note"), negated: true), .like(.column("flag"), "%")]),
            order: [Ordering("note"), Ordering("id")])
        #expect(engine.setUp(world) == nil)
        #expect(engine.failures(of: select, in: world).isEmpty)
        for b in engine.backends {
            let outcome = b.run(.select(select), types: [.integer, .text])
            guard case .failed(let kind, let message) = outcome else {
                Issue.record("\(b.name) answered \(outcome)")
                continue
            }
            #expect(kind == "typeMismatch")
            #expect(message.contains("flag"), "\(message)")
        }
    }

    @Test("the generator still writes the mistyped predicates of issue 25, and every backend refuses them alike")
    func mistypedShapesAgree() throws {
        let engine = try DifferentialEngine(
            urls: ["memory:", "sqlite::memory:"], drivers: FuzzBackends.drivers, options: FuzzOptions())
        var rng = SplitMix64(seed: 25)
        let values = EdgeValues(noncharacters: true)
        var mistyped = 0
        var refusedAlike = 0
        for _ in 0..<12 {
            let world = FuzzWorld.generate(&rng, values: values)
            #expect(engine.setUp(world) == nil)
            let generator = QueryGenerator(world: world, values: values)
            for _ in 0..<100 {
                let select = generator.select(&rng)
                let f = Features(select, world: world)
                guard f.mistypedComparison || f.likeOverNonText else { continue }
                mistyped += 1
                #expect(engine.failures(of: select, in: world).isEmpty, "\(ASTText.select(select))")
                let kinds = engine.backends.map { b -> String in
                    if case .failed(let kind, _) = b.run(.select(select), types: []) { kind } else { "rows" }
                }
                #expect(kinds[0] != "rows" && Set(kinds).count == 1, "\(kinds)")
                if kinds.allSatisfy({ $0 == "typeMismatch" }) { refusedAlike += 1 }
            }
        }
        #expect(mistyped >= 5, "\(mistyped) mistyped queries in 1,200")
        #expect(refusedAlike * 2 > mistyped, "\(refusedAlike) of \(mistyped) refused as typeMismatch on both")
    }

    /// One table: a nullable bool `flag` and a text `note`, three rows.
    static var flagWorld: FuzzWorld {
        let parent = TableSchema(
            name: FuzzWorld.parent,
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                TableColumn(name: "flag", type: .bool, isNullable: true),
                TableColumn(name: "note", type: .text, isNullable: true),
            ])
        return FuzzWorld(tables: [
            FuzzWorld.Table(
                schema: parent, indexes: [],
                rows: [[.bool(true), .text("a")], [.bool(false), .null], [.null, .text("b")]])
        ])
    }

    @Test(
        "a real divergence is found and shrunk to a minimal case: LIKE over a bool on a backend without the type check")
    func findsAndShrinks() throws {
        let engine = try DifferentialEngine(
            urls: ["memory:", "sqlite::memory:"], drivers: FuzzBackends.drivers, options: FuzzOptions())
        // SQLite without the core's check matches the bool's text; memory refuses LIKE over a bool itself.
        engine.backends[1].checksTypes = false
        let world = Self.flagWorld
        let select = Select(
            table: FuzzWorld.parent, selection: .columns(["id", "note"]),
            filter: .and([.isNull(.column("note"), negated: true), .like(.column("flag"), "%")]),
            order: [Ordering("note"), Ordering("id")])
        #expect(engine.setUp(world) == nil)
        let failures = engine.failures(of: select, in: world)
        #expect(failures.map(\.0).contains(.backends), "memory refuses LIKE over a bool, SQLite answers")
        var d = Divergence(
            check: .backends, seed: 0, batch: 0, query: 0, world: world, select: select,
            details: failures.first?.1 ?? "")
        engine.shrink(&d)
        let minimal = try #require(d.minimalSelect)
        #expect(minimal.filter.map { ASTText.node($0.node) } == #".like(.column("flag"), "")"#)
        #expect(minimal.order.isEmpty)
        #expect((d.minimalWorld?.tables.first?.rows.count ?? 0) == 1, "one row is enough")
        #expect(KnownDivergence.classify(d) == nil, "no divergence is known any more")
        let text = engine.describe(d)
        #expect(text.contains("SQL on sqlite"))
        #expect(text.contains("AST: Select("))
    }

    @Test("TLP and NoREC can be expressed in the AST and hold on every backend for a sample of predicates")
    func oraclesRun() async throws {
        let urls = try await FuzzBackends.urls(schema: "strata_fuzz_oracles")
        let (engine, report) = try await runSurvivingRestarts {
            try DifferentialEngine(
                urls: urls, drivers: FuzzBackends.drivers, options: FuzzOptions(seed: 99, queries: 300))
        }
        #expect(report.divergences.isEmpty, "\(report.divergences.map(engine.describe))")
        // Each query with a filter runs 3 TLP parts, the unfiltered base and 2 NoREC queries on each backend.
        #expect(report.statements > 300 * urls.count * 3)
    }

    @Test("outcomes compare doubles bit for bit and text scalar for scalar")
    func exactComparison() {
        let a = QueryOutcome.rows([[CanonicalValue(.double(-0.0), type: .double)]], changes: 0)
        let b = QueryOutcome.rows([[CanonicalValue(.double(0.0), type: .double)]], changes: 0)
        #expect(!a.agrees(with: b, ordered: true))
        let e1 = QueryOutcome.rows([[CanonicalValue(.text("é"), type: .text)]], changes: 0)
        let e2 = QueryOutcome.rows([[CanonicalValue(.text("e\u{301}"), type: .text)]], changes: 0)
        #expect(!e1.agrees(with: e2, ordered: true))
        let sqliteBool = CanonicalValue(.integer(1), type: .bool)
        #expect(sqliteBool == CanonicalValue(.bool(true), type: .bool), "SQLite's 1 is memory's true")
        let x = QueryOutcome.failed(kind: "typeMismatch", message: "one")
        #expect(x.agrees(with: .failed(kind: "typeMismatch", message: "two"), ordered: true))
        #expect(!x.agrees(with: .failed(kind: "invalidQuery", message: "one"), ordered: true))
    }
}

/// Runs a long synchronous fuzz run on a thread of its own and waits for it, so that it never holds one of Swift's
/// cooperative threads (one per core) for minutes while the rest of the test run needs them.
///
/// `nonisolated(unsafe)`: the closure and its captures are used by the new thread only while the caller waits.
func onOwnThread<T>(_ body: @escaping () -> T) async -> T {
    nonisolated(unsafe) let work = body
    let result: UnsafeResult<T> = await withCheckedContinuation { c in
        let thread = Thread { c.resume(returning: UnsafeResult(value: work())) }
        thread.stackSize = 16 << 20
        thread.start()
    }
    return result.value
}

/// A result handed from the fuzz thread to the waiting caller. `@unchecked Sendable`: written once by the thread
/// before the continuation resumes, read once after.
private struct UnsafeResult<T>: @unchecked Sendable {
    let value: T
}

/// Runs a fuzz engine on a thread of its own. A run cut short by a lost connection (the server-control tests of
/// this process stop servers of their own and close only their own database's connections, but a lost connection
/// is not a divergence) is repeated whole on fresh connections, at most twice, each time after waiting (at most
/// 30 s) for the server to accept connections again. Divergences of the last run are what the caller reports.
private func runSurvivingRestarts(
    _ make: () throws -> DifferentialEngine
) async throws -> (DifferentialEngine, FuzzReport) {
    var engine = try make()
    var report = await onOwnThread { [engine] in engine.run() }
    for _ in 0..<2 where report.divergences.contains(where: { engine.describe($0).contains("connectionLost") }) {
        print("differential: a connection was lost; running the seed again")
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                engine = try make()
                break
            } catch StrataError.connectionFailed where Date() < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        report = await onOwnThread { [engine] in engine.run() }
    }
    return (engine, report)
}
