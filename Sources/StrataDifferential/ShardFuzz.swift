// ShardFuzz: random queries on a sharded database, compared with the same queries on one database holding every row.
import Foundation
import Strata

/// A row of the shard fuzzer: a shard key, a unique label (the last ORDER BY term, so pages are total), ties,
/// NULLs, non-ASCII text, doubles and dates.
@Model(table: "sf_row")
public struct SFRow {
    public var id: Int64?
    public var tenant: Int64
    public var label: String
    public var rank: Int
    public var note: String?
    public var score: Double?
    public var at: Date
    public static var indexes: [Index] { [.on(\SFRow.label, unique: true)] }
}

extension SFRow: ShardedModel {
    public static var shardKey: KeyPath<SFRow, Int64> { \.tenant }
}

/// What a shard fuzz run did and found.
public struct ShardFuzzReport: Sendable {
    /// Queries run on both sides.
    public var queries = 0
    /// Queries that read every shard (``QueryBuilder/fanOut()``).
    public var fannedOut = 0
    /// Queries whose WHERE pinned one shard.
    public var pinned = 0
    /// Each query whose answers differ: its number, its description, and both answers.
    public var mismatches: [String] = []
}

/// Runs random queries over ``SFRow`` on a ``ShardedDatabase`` and on one database holding the same rows, and
/// reports every query whose answers differ: the merge of a fanned-out query (ORDER BY, NULL order, code-point text,
/// LIMIT and OFFSET after the merge), the combined aggregates, and the routing of pinned queries.
public enum ShardFuzz {
    /// Fills the shards and `whole` with the same random rows, then compares `queries` random queries.
    ///
    /// - Parameters:
    ///   - shards: the shards' databases (their `sf_row` table is dropped and made again).
    ///   - whole: one database that gets every row.
    ///   - rows: how many rows to insert.
    ///   - queries: how many queries to compare.
    ///   - seed: the seed; the same seed makes the same rows and queries.
    /// - Returns: the report.
    /// - Throws: what setting the databases up throws (a query's error is an answer, compared like rows).
    public static func run(shards: [Database], whole: Database, rows: Int = 200, queries: Int, seed: UInt64)
        async throws -> ShardFuzzReport
    {
        let sharded = try ShardedDatabase(shards: shards)
        for db in shards + [whole] { try await db.dropTables(SFRow.self) }
        try await sharded.migrate(SFRow.self)
        try await whole.migrate(SFRow.self)
        var rng = SplitMix64(seed: seed)
        for var row in makeRows(rows, &rng) {
            var copy = row
            try await row.save(on: sharded)
            try await copy.save(on: whole)
        }
        var report = ShardFuzzReport()
        for n in 0..<max(0, queries) {
            let draw = rng.fork()
            var left = draw
            var right = draw
            let (q1, text, pins) = build(SFRow.query(on: sharded).fanOut(), &left)
            let (q2, _, _) = build(SFRow.query(on: whole), &right)
            let terminal = rng.below(7)
            let a = await answer(terminal) { try await shardedAnswer(q1, terminal) }
            let b = await answer(terminal) { try await wholeAnswer(q2, terminal) }
            report.queries += 1
            if pins { report.pinned += 1 } else { report.fannedOut += 1 }
            if a != b { report.mismatches.append("#\(n) \(text) \(terminalName(terminal)): sharded \(a), whole \(b)") }
        }
        return report
    }

    /// Rows over 40 tenants, with ties in `rank`, NULL notes and scores, and text that sorts by code point.
    static func makeRows(_ count: Int, _ rng: inout SplitMix64) -> [SFRow] {
        let notes: [String?] = [nil, "a", "B", "b", "é", "e\u{301}", "Z", "_", "ab", ""]
        let scores: [Double?] = [nil, 0, -0.5, 1.5, 1e300, -1e300, 2, 2]
        return (0..<max(0, count)).map { i in
            SFRow(
                tenant: Int64(rng.below(40) + 1), label: "L\(String(format: "%05d", rng.below(100_000)))-\(i)",
                rank: rng.below(12) - 3, note: rng.pick(notes), score: rng.pick(scores),
                at: Date(timeIntervalSince1970: Double(rng.below(50)) * 86_400.5))
        }
    }

    /// A random query: maybe a WHERE (pinning a tenant or not), up to three ORDER BY terms then the label, maybe
    /// LIMIT and OFFSET; its description; whether it pins one tenant.
    static func build<E>(_ base: QueryBuilder<SFRow, E>, _ rng: inout SplitMix64)
        -> (QueryBuilder<SFRow, E>, String, Bool)
    {
        var q = base
        var parts: [String] = []
        var pins = false
        switch rng.below(6) {
        case 0:
            let tenant = Int64(rng.below(42))
            q = q.where(\.tenant == tenant)
            parts.append("where tenant = \(tenant)")
            pins = true
        case 1:
            let rank = rng.below(10) - 3
            q = q.where(\.rank < rank)
            parts.append("where rank < \(rank)")
        case 2:
            q = q.where(\.note == nil || \.note >= "b")
            parts.append("where note is null or note >= 'b'")
        case 3:
            let low = rng.pick([-1e300, 0, 1.5])
            q = q.where(\.score > low)
            parts.append("where score > \(low)")
        default: break
        }
        for _ in 0..<rng.below(4) {
            let descending = rng.chance(0.5)
            let direction: Ordering.Direction = descending ? .descending : .ascending
            let column = rng.below(5)
            switch column {
            case 0: q = q.order(\.note, direction)
            case 1: q = q.order(\.rank, direction)
            case 2: q = q.order(\.score, direction)
            case 3: q = q.order(\.at, direction)
            default: q = q.order(\.tenant, direction)
            }
            parts.append("order \(["note", "rank", "score", "at", "tenant"][column])\(descending ? " desc" : "")")
        }
        let descending = rng.chance(0.5)
        q = q.order(\.label, descending ? .descending : .ascending)
        parts.append("order label\(descending ? " desc" : "")")
        if rng.chance(0.6) {
            let limit = rng.below(40)
            q = q.limit(limit)
            parts.append("limit \(limit)")
        }
        if rng.chance(0.5) {
            let offset = rng.below(220)
            q = q.offset(offset)
            parts.append("offset \(offset)")
        }
        return (q, parts.joined(separator: ", "), pins)
    }

    private static func terminalName(_ terminal: Int) -> String {
        ["all", "first", "count", "sum(rank)", "min(note)", "max(score)", "exists"][terminal]
    }

    /// An answer as text: the labels, or the aggregate, or the error's case.
    private static func answer(_ terminal: Int, _ body: () async throws -> String) async -> String {
        do {
            return try await body()
        } catch let error as StrataError {
            return "error \(error.caseName)"
        } catch {
            return "error \(error)"
        }
    }

    private static func shardedAnswer(_ q: QueryBuilder<SFRow, ShardedQuery>, _ terminal: Int) async throws -> String {
        switch terminal {
        case 0: return try await q.all().map(\.label).description
        case 1: return String(describing: try await q.first()?.label)
        case 2: return String(try await q.count())
        case 3: return String(describing: try await q.sum(\.rank))
        case 4: return String(describing: try await q.min(\.note))
        case 5: return String(describing: try await q.max(\.score))
        default: return String(try await q.exists())
        }
    }

    private static func wholeAnswer(_ q: QueryBuilder<SFRow, Database>, _ terminal: Int) async throws -> String {
        switch terminal {
        case 0: return try await q.all().map(\.label).description
        case 1: return String(describing: try await q.first()?.label)
        case 2: return String(try await q.count())
        case 3: return String(describing: try await q.sum(\.rank))
        case 4: return String(describing: try await q.min(\.note))
        case 5: return String(describing: try await q.max(\.score))
        default: return String(try await q.exists())
        }
    }
}
