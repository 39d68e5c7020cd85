// RenderCacheExactnessTests: a SELECT rendered through the render cache is the SQL and binds a fresh rendering gives,
// for thousands of generated SELECTs and statements of their shapes with other values, on SQLite and PostgreSQL.
import Foundation
import Strata
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

@Suite("Render cache: a cached SELECT is exactly a fresh rendering")
struct RenderCacheExactnessTests {
    static func dialect(_ name: String) -> any Dialect {
        name == "sqlite" ? SQLiteDialect() : PostgresDialect()
    }

    /// Renders `select` through `cache` and afresh; a description of the difference, or nil when they agree.
    static func difference(_ select: Select, _ cache: RenderCache, _ dialect: any Dialect) -> String? {
        let fresh = Result { try SQLRenderer.render(.select(select), dialect: dialect) }
        let cached = Result { try cache.render(select, dialect: dialect) }
        switch (fresh, cached) {
        case (.success(let f), .success(let c)):
            if f.sql != c.sql { return "SQL differs:\n  fresh  \(f.sql)\n  cached \(c.sql)" }
            if !RenderCache.same(f.binds, c.binds) { return "binds differ for \(f.sql): \(f.binds) / \(c.binds)" }
            return nil
        case (.failure(let f), .failure(let c)):
            return "\(f)" == "\(c)" ? nil : "errors differ: \(f) / \(c)"
        default:
            return "one side failed: \(fresh) / \(cached)"
        }
    }

    /// Another value that renders alike (the same stand-in): the generator's edge values and a few more.
    static func other(_ v: DatabaseValue, _ rng: inout SplitMix64) -> DatabaseValue {
        let candidates: [DatabaseValue]
        switch v {
        case .null: return .null
        case .bool: candidates = [.bool(true), .bool(false)]
        case .integer: candidates = ([0, 1, -1, .max, .min, 42, -7_000_000_000] as [Int64]).map { .integer($0) }
        case .double:
            let doubles: [Double] = [
                0, -0.0, 1.5, -2.25, .nan, .infinity, -.infinity, 9_007_199_254_740_991, 9_007_199_254_740_992,
                -9_007_199_254_740_994, 1e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
            ]
            candidates = doubles.map { .double($0) }
        case .text:
            candidates = ["", "x", "O'Neil \"q\" ?", "%_\\", "é\u{301}", String(repeating: "ab", count: 200)]
                .map { .text($0) }
        case .blob: candidates = [.blob(Data()), .blob(Data([0, 1, 255]))]
        case .date:
            candidates = ([0, -86_400.5, 1_700_000_000.25] as [Double]).map { .date(Date(timeIntervalSince1970: $0)) }
        case .decimal:
            candidates = ["0", "-12.5", "99999999999999999999.000001"].compactMap { Decimal(string: $0) }
                .map { .decimal($0) }
        case .uuid: candidates = [.uuid(UUID()), .uuid(UUID())]
        case .json: candidates = [.json(""), .json("{\"a\":[1,2]}"), .json("null")]
        }
        let same = candidates.filter { RenderShape.standIn($0) == RenderShape.standIn(v) }
        return same.isEmpty ? v : rng.pick(same)
    }

    /// A SELECT of the same shape as `select` with other values, limits and depths; nil when it is not cached.
    static func variant(of select: Select, _ rng: inout SplitMix64) -> Select? {
        var r = rng.fork()
        defer { _ = rng.next() }
        return RenderShape.map(select, value: { other($0, &r) }, count: { _ in r.below(9) })
    }

    @Test(
        "6,000 generated SELECTs and two same-shape variants of each: through one cache, SQL and binds as rendered afresh",
        arguments: ["sqlite", "postgres"])
    func generatedReads(dialectName: String) {
        let dialect = Self.dialect(dialectName)
        let cache = RenderCache(capacity: 100_000)
        var rng = SplitMix64(seed: 2026)
        var statements = 0
        var cacheable = 0
        var failures: [String] = []
        for seed: UInt64 in [11, 12, 13] {
            for select in GeneratedReads.sample(seed: seed) {
                var batch = [select]
                if let a = Self.variant(of: select, &rng), let b = Self.variant(of: select, &rng) {
                    batch += [a, b]
                    cacheable += 1
                }
                for s in batch {
                    statements += 1
                    if let d = Self.difference(s, cache, dialect), failures.count < 5 { failures.append(d) }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(statements >= 6_000)
        // Most generated reads are cached (no full-text match, no IN list of 100 values or more), and their
        // variants hit: at least one hit per cacheable read.
        #expect(cacheable * 10 >= statements / 3 * 8, "only \(cacheable) of \(statements / 3) reads cacheable")
        #expect(cache.hits >= cacheable, "\(cache.hits) hits for \(cacheable) cacheable reads")
    }

    @Test("sameKey answers as the keys compare, for generated SELECTs, their variants and their neighbours")
    func sameKeyIsKeyEquality() {
        var rng = SplitMix64(seed: 4711)
        var pairs = 0
        var same = 0
        var failures: [String] = []
        func expectAgree(_ x: Select, _ y: Select) {
            pairs += 1
            let keys = RenderShape.key(of: x).map { $0 == RenderShape.key(of: y) } ?? false
            let side = RenderShape.sameKey(x, y)
            if side { same += 1 }
            if side != keys, failures.count < 5 { failures.append("sameKey \(side), keys \(keys):\n  \(x)\n  \(y)") }
        }
        for seed: UInt64 in [31, 32] {
            let reads = GeneratedReads.sample(seed: seed)
            for (n, select) in reads.enumerated() {
                var variants = [Self.variant(of: select, &rng), Self.variant(of: select, &rng)].compactMap { $0 }
                // Other signs of every count, and LIKE patterns ending in a lone escape: other keys.
                variants += [
                    RenderShape.map(select, value: { $0 }, count: { -$0 - 1 }),
                    RenderShape.map(select, value: { if case .text = $0 { .text("a\\") } else { $0 } }, count: { $0 }),
                ].compactMap { $0 }
                let neighbour = reads[(n + 1) % reads.count]
                for x in [select] + variants {
                    expectAgree(select, x)
                    expectAgree(x, select)
                    expectAgree(x, neighbour)
                }
                expectAgree(select, select)
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(pairs > 10_000)
        // Not vacuous: most pairs of a statement and its variants share a key.
        #expect(same * 3 > pairs, "\(same) of \(pairs) pairs share a key")
    }

    @Test("a small cache is emptied when full and still renders every statement as afresh", arguments: ["sqlite"])
    func smallCache(dialectName: String) {
        let dialect = Self.dialect(dialectName)
        let cache = RenderCache(capacity: 16)
        var rng = SplitMix64(seed: 7)
        var failures: [String] = []
        for select in GeneratedReads.sample(seed: 21) {
            for s in [select] + [Self.variant(of: select, &rng)].compactMap({ $0 }) {
                if let d = Self.difference(s, cache, dialect), failures.count < 5 { failures.append(d) }
                #expect(cache.count <= 16)
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(cache.hits > 0)
    }

    @Test(
        "transaction control statements are rendered once, each by its kind and name, as afresh",
        arguments: ["sqlite", "postgres"])
    func controls(dialectName: String) throws {
        let dialect = Self.dialect(dialectName)
        let cache = RenderCache()
        let statements: [Statement] = [
            .begin, .commit, .rollback, .savepoint("strata_sp_1"), .releaseSavepoint("strata_sp_1"),
            .rollbackToSavepoint("strata_sp_1"), .savepoint("strata_sp_2"), .releaseSavepoint("strata_sp_2"),
        ]
        for round in 0..<3 {
            for statement in statements {
                let cached = try #require(try cache.control(statement, dialect: dialect), "\(statement)")
                let fresh = try SQLRenderer.render(statement, dialect: dialect)
                #expect(cached.sql == fresh.sql, "round \(round): \(statement)")
                #expect(cached.binds.isEmpty)
            }
        }
        let select = Select(table: "t", selection: .columns(["a"]))
        #expect(try cache.control(.select(select), dialect: dialect) == nil, "a SELECT is not a control")
        #expect(try cache.control(.dropTable("t"), dialect: dialect) == nil)
    }

    @Test("what changes the SQL is in the key: IN-list length, NULL, LIMIT, a wide double; values are not")
    func keys() throws {
        let t = "t"
        func key(_ filter: SQLExpression, limit: Int? = nil) -> Select? {
            RenderShape.key(of: Select(table: t, selection: .columns(["a"]), filter: filter, limit: limit))
        }
        let a = SQLExpression.column("a")
        let (one, two, three) = (DatabaseValue.integer(1), DatabaseValue.integer(2), DatabaseValue.integer(3))
        #expect(key(.compare(.equal, a, .value(one))) == key(.compare(.equal, a, .value(two))))
        #expect(key(.inList(a, [one, two])) != key(.inList(a, [one, two, three])))
        #expect(key(.inList(a, (0..<100).map { .integer(Int64($0)) })) == nil)
        #expect(key(.compare(.less, a, .value(.null))) != key(.compare(.less, a, .value(one))))
        #expect(key(.compare(.less, a, .value(.text("x")))) != key(.compare(.less, a, .value(one))))
        #expect(key(.constant(true), limit: 3) == key(.constant(true), limit: 30))
        #expect(key(.constant(true), limit: 3) != key(.constant(true)))
        #expect(key(.compare(.less, a, .value(.double(1)))) != key(.compare(.less, a, .value(.double(1e300)))))
        #expect(key(.compare(.less, a, .value(.double(1)))) == key(.compare(.less, a, .value(.double(.nan)))))
        // What the statement check reads of a value is in the key too: a count's sign, a pattern's lone escape.
        #expect(key(.constant(true), limit: 3) != key(.constant(true), limit: -3))
        #expect(key(.constant(true), limit: -3) == key(.constant(true), limit: -1))
        #expect(key(.like(a, "x%", caseInsensitive: false)) == key(.like(a, "%y\\_", caseInsensitive: false)))
        #expect(key(.like(a, "x%", caseInsensitive: false)) != key(.like(a, "x\\", caseInsensitive: false)))
        let search = try SearchQuery("x", model: "T")
        #expect(key(SQLExpression(.search(a.node, search))) == nil)
    }

    @Test("a SQLite connection renders a query once and runs it again with other values from the cache")
    func sqliteConnectionHits() throws {
        let connection = try #require(try SQLiteDriver(path: ":memory:").connect() as? SQLiteConnection)
        _ = try connection.executeRaw("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER)", []) { _ in }
        _ = try connection.executeRaw("INSERT INTO t (a) VALUES (1), (2), (3)", []) { _ in }
        var found: [Int64] = []
        for bound: Int64 in [1, 2, 3] {
            let filter = SQLExpression.compare(.greater, .column("a"), .value(.integer(bound)))
            let s = Select(table: "t", selection: .columns(["a"]), filter: filter)
            _ = try connection.execute(.select(s)) { found.append($0.int64(at: 0) ?? -1) }
        }
        #expect(found == [2, 3, 3])
        #expect(connection.renderCache?.hits == 2)
        #expect(connection.renderCache?.count == 1)
    }
}
