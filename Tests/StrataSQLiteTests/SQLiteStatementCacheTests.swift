// SQLiteStatementCacheTests: a full statement cache never finalizes a statement that is still in use.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "cache_item")
struct CacheItem {
    var id: Int64?
    var label: String
}

/// 30 columns, so a full insertAll chunk (the templated path) is 32766 / 30 = 1092 rows.
@Model(table: "cache_wide")
struct CacheWide {
    var id: Int64?
    var c0: Int = 0
    var c1: Int = 1
    var c2: Int = 2
    var c3: Int = 3
    var c4: Int = 4
    var c5: Int = 5
    var c6: Int = 6
    var c7: Int = 7
    var c8: Int = 8
    var c9: Int = 9
    var c10: Int = 10
    var c11: Int = 11
    var c12: Int = 12
    var c13: Int = 13
    var c14: Int = 14
    var c15: Int = 15
    var c16: Int = 16
    var c17: Int = 17
    var c18: Int = 18
    var c19: Int = 19
    var c20: Int = 20
    var c21: Int = 21
    var c22: Int = 22
    var c23: Int = 23
    var c24: Int = 24
    var c25: Int = 25
    var c26: Int = 26
    var c27: Int = 27
    var c28: Int = 28
    var c29: Int = 29
}

@Suite("SQLite statement cache")
struct SQLiteStatementCacheTests {
    /// Each way a statement is held while another is prepared.
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case insertAll, insertAllFullChunk, queryInsideForEach, templates
        var testDescription: String { rawValue }
    }

    /// Fills the cache with `count` distinct statements (each its own SQL text).
    private func fill(_ tx: Transaction, _ count: Int) throws {
        for k in 0..<count { _ = try tx.unsafeRawExecute("SELECT \(k) + ?", [k]) }
    }

    private func exercise(_ path: Path, _ tx: Transaction) throws {
        switch path {
        case .insertAll:
            var models = (0..<3).map { CacheItem(label: "bulk \($0)") }
            try CacheItem.insertAll(&models, tx)
            for m in models { #expect(try CacheItem.find(m.id ?? -1, tx)?.label == m.label) }
        case .insertAllFullChunk:
            var models = (0..<1092).map { CacheWide(c0: -$0) }
            try CacheWide.insertAll(&models, tx)
            let sample = try CacheWide.find(models[700].id ?? -1, tx)
            #expect(sample?.c0 == -700)
        case .queryInsideForEach:
            var seen = 0
            try CacheItem.query(on: tx).forEach { outer in
                seen += 1
                var inner = [CacheWide(c0: seen), CacheWide(c0: -seen)]
                try CacheWide.insertAll(&inner, tx)
                #expect(try CacheWide.query(on: tx).where(\.c0 == -seen).first()?.id == inner[1].id)
                #expect(try CacheItem.find(outer.id ?? -1, tx)?.label == outer.label)
            }
            #expect(seen == 2)
        case .templates:
            var item = CacheItem(label: "template")
            try item.save(tx)
            item.label = "template, updated"
            try item.save(tx)
            #expect(try CacheItem.find(item.id ?? -1, tx)?.label == "template, updated")
        }
    }

    /// The columns the nested reads of `nestedReads` filter on, one per level: each level's SELECT is its own SQL.
    private static var levelColumns: [KeyPath<CacheWide, Int>] {
        [\.c0, \.c1, \.c2, \.c3, \.c4, \.c5, \.c6, \.c7, \.c8, \.c9, \.c10, \.c11]
    }

    /// Reads one row at each of `levelColumns.count - level` levels, each inside the row callback of the one above;
    /// the innermost saves, finds and fills the cache past its capacity. Returns the rows the innermost level saw.
    private func nestedReads(_ tx: Transaction, level: Int) throws -> Int {
        guard level < Self.levelColumns.count else {
            var item = CacheItem(label: "deep")
            try item.save(tx)
            try fill(tx, 520)
            #expect(try CacheItem.find(item.id ?? -1, tx)?.label == "deep")
            return 1
        }
        var seen = 0
        try CacheWide.query(on: tx).where(Self.levelColumns[level] >= 0).limit(1).forEach { _ in
            seen += try nestedReads(tx, level: level + 1)
        }
        return seen
    }

    @Test("statements held twelve deep (past the held stack's first slots) survive a cache that evicts under them")
    func deeplyNestedStatements() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)?pool=1", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(CacheItem.self, CacheWide.self)
        try await db.transaction { tx in
            var rows = [CacheWide(), CacheWide()]
            try CacheWide.insertAll(&rows, tx)
        }
        for _ in 0..<3 {
            let seen = try await db.transaction { tx in try nestedReads(tx, level: 0) }
            #expect(seen == 1)
        }
        // The stack unwound: a loop of finds and saves afterwards runs on the templates as before.
        try await db.transaction { tx in
            for k in 0..<20 {
                var item = CacheItem(label: "after \(k)")
                try item.save(tx)
                #expect(try CacheItem.find(item.id ?? -1, tx)?.label == "after \(k)")
            }
        }
        let count = try await db.unsafeRawExecute("SELECT count(*) FROM cache_item")
        #expect(count == [[.integer(23)]])
    }

    @Test(
        "with the cache filled to every count around its capacity, statements in use are not finalized",
        arguments: Path.allCases)
    func fullCache(_ path: Path) async throws {
        // The capacity is 512; setting up and each path prepare a few statements of their own, so sweeping
        // the fill from 440 to 520 makes every one of the path's prepares, in some round, the one that evicts.
        for extra in 440...520 {
            let file = TemporarySQLiteFile()
            let db = try Database.open("sqlite:\(file.path)?pool=1", drivers: [.sqlite])
            try await db.migrate(CacheItem.self, CacheWide.self)
            try await db.transaction { tx in
                var seed = [CacheItem(label: "seed 1"), CacheItem(label: "seed 2")]
                try CacheItem.insertAll(&seed, tx)
            }
            try await db.withConnection { tx in try fill(tx, extra) }
            if path == .queryInsideForEach {
                try await db.transaction { tx in try exercise(path, tx) }
            } else {
                try await db.withConnection { tx in try exercise(path, tx) }
            }
            db.close()
        }
    }
}
