// Contender: one side of a comparison (Strata on a database, or a raw C API) running each workload.

/// One side of a comparison. Each workload method builds its inputs first, then times only the work
/// itself, and returns a ``Sample`` whose checksum must match the other side's.
///
/// Contenders are used by one task, one call at a time.
protocol Contender: AnyObject {
    /// The name in tables and messages (`Strata`, `libsqlite3`, …).
    var name: String { get }
    /// Empties the benchmark table (untimed).
    func reset() async throws
    /// Writes rows `0..<count` of ``RecordFactory`` into an empty table (untimed).
    ///
    /// - Returns: the id row 0 got; the others follow it contiguously.
    func seed(_ count: Int) async throws -> Int64
    /// Inserts `count` records one statement each, inside one transaction, reading back each new id.
    func insertOneByOne(_ count: Int) async throws -> Sample
    /// Inserts `count` records the fastest way this side has.
    func bulkInsert(_ count: Int) async throws -> Sample
    /// Reads every row into an array of records.
    func fetchAll() async throws -> Sample
    /// Looks up each id in turn, all inside one read transaction.
    func lookupsInTransaction(_ ids: [Int64]) async throws -> Sample
    /// Looks up each id in turn, each lookup its own call (Strata: an async one-shot call; raw: autocommit).
    func lookupsOneShot(_ ids: [Int64]) async throws -> Sample
    /// Runs `where i1 > t order by d1 limit n` once per threshold, reading the rows into records.
    func filteredQueries(_ thresholds: [Int], limit: Int) async throws -> Sample
    /// Reads every row through a cursor, one record at a time, keeping none.
    func stream() async throws -> Sample
    /// Releases the connection(s).
    func close()
}
