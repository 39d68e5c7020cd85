// PageKeyset: the keyset-page workload: 20-row pages ordered by (i1, id), walked from the start by their cursors.
import CSQLite
import Strata

/// The pages' SQL, the same text on both sides: Strata's keyset condition for `order(\.i1).order(\.id)`, and the
/// limit one row past the page (the extra row tells whether another page follows).
enum PageKeyset {
    /// Rows per page.
    static let pageSize = 20
    /// The rows walked: 10,000, or the whole table when it is smaller.
    static func rows(tableSize: Int) -> Int { min(10_000, tableSize) }

    static let first = "\(BenchSQL.selectAll) ORDER BY i1 ASC, id ASC LIMIT ?"
    static let next =
        "\(BenchSQL.selectAll) WHERE ((i1 > ?) OR ((i1 = ?) AND (id > ?))) ORDER BY i1 ASC, id ASC LIMIT ?"
}

extension StrataContender {
    /// Walks the pages with `page(after:limit:)`, each page's cursor feeding the next, in one read transaction.
    func pageKeyset(rows: Int, base: Int64) async throws -> Sample {
        var found: [BenchRecord] = []
        found.reserveCapacity(rows)
        return try await timedAsync(
            {
                try await db.transaction { tx in
                    var cursor: PageCursor?
                    for _ in 0..<(rows + PageKeyset.pageSize - 1) / PageKeyset.pageSize {
                        let page = try BenchRecord.query(on: tx).order(\.i1).order(\.id)
                            .page(after: cursor, limit: PageKeyset.pageSize)
                        found += page.items
                        guard let next = page.nextCursor else { break }
                        cursor = next
                    }
                }
            }, digest: { Digests.of(found, base: base) })
    }
}

extension SQLiteRawContender {
    /// The same pages through libsqlite3: both statements prepared once, the last row's `(i1, id)` bound as the
    /// next page's position, `LIMIT 21` read and the 21st row dropped, as Strata does.
    func pageKeyset(rows: Int, base: Int64) async throws -> Sample {
        let first = try db.statement(PageKeyset.first)
        let next = try db.statement(PageKeyset.next)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var found: [RawRecord] = []
        found.reserveCapacity(rows)
        let size = PageKeyset.pageSize
        return try timed(
            {
                try db.stepDone(begin)
                var last: RawRecord?
                for _ in 0..<(rows + size - 1) / size {
                    let s: OpaquePointer
                    if let last {
                        s = next
                        sqlite3_bind_int64(s, 1, Int64(last.i1))
                        sqlite3_bind_int64(s, 2, Int64(last.i1))
                        sqlite3_bind_int64(s, 3, last.id ?? 0)
                        sqlite3_bind_int64(s, 4, Int64(size + 1))
                    } else {
                        s = first
                        sqlite3_bind_int64(s, 1, Int64(size + 1))
                    }
                    var page: [RawRecord] = []
                    while sqlite3_step(s) == SQLITE_ROW { page.append(RawSQLite.record(s)) }
                    sqlite3_reset(s)
                    let more = page.count > size
                    found += page.prefix(size)
                    guard more else { break }
                    last = page[size - 1]
                }
                try db.stepDone(commit)
            }, digest: { Digests.of(found, base: base) })
    }
}
