// Contender: one side of a comparison (Strata on a database, or a raw C API) running each workload.

/// One side of a comparison. Each workload method builds its inputs first, then times only the work
/// itself, and returns a ``Sample`` whose digest must match the other side's.
///
/// The read workloads take `base`, the id of row 0 of the seed on this side: rows are digested with their
/// id relative to it. Contenders are used by one task, one call at a time.
protocol Contender: AnyObject {
    /// The name in tables and messages (`Strata`, `libsqlite3`, …).
    var name: String { get }
    /// Empties the benchmark table (untimed).
    func reset() async throws
    /// Writes rows `0..<count` of ``RecordFactory`` into an empty table (untimed).
    ///
    /// - Returns: the id row 0 got; the others follow it contiguously.
    func seed(_ count: Int) async throws -> Int64
    /// The digest of every row in the table, ids relative to the smallest (untimed): what a write stored.
    func tableDigest() async throws -> Digest
    /// Inserts `count` records one statement each, inside one transaction, reading back each new id.
    func insertOneByOne(_ count: Int) async throws -> Sample
    /// ``insertOneByOne(_:)`` in a transaction where a failed statement aborts it (Strata:
    /// `onFailedStatement: .abortTransaction`); a raw side runs its ``insertOneByOne(_:)``.
    func insertOneByOneAborting(_ count: Int) async throws -> Sample
    /// `insertOneByOne` with three columns sealed (Strata: `@Encrypted`); a raw side inserts in clear.
    func insertEncrypted(_ count: Int) async throws -> Sample
    /// `insertOneByOne` of a model that tracks history (Strata); a raw side inserts without history.
    func insertHistory(_ count: Int) async throws -> Sample
    /// Inserts `count` records the way Strata's `insertAll` does (same statements, same chunk size),
    /// reading back their ids.
    func bulkInsert(_ count: Int) async throws -> Sample
    /// The name of a second, faster bulk floor this side offers (binary COPY), or nil.
    var bulkFloorName: String? { get }
    /// Inserts `count` records through that floor (its sample may have no digest: ids are not returned).
    func bulkInsertFloor(_ count: Int) async throws -> Sample
    /// Writes `count` records without reading ids back (Strata: `Model.load`); no digest (the table is read after).
    func load(_ count: Int) async throws -> Sample
    /// Inserts `count` records through a staging table, reading back their ids (PostgreSQL: COPY into a
    /// temporary table, then `INSERT … SELECT … ORDER BY ord RETURNING id`, as `insertAll` does for large batches).
    func stagedInsert(_ count: Int) async throws -> Sample
    /// Reads every row into an array of records.
    func fetchAll(base: Int64) async throws -> Sample
    /// Makes sure the table `fetch-encrypted` reads holds the `count` seeded records (untimed).
    func prepareEncrypted(_ count: Int) async throws
    /// `fetchAll` of records stored with three columns sealed (Strata), or in clear (a raw C API).
    func fetchEncrypted(base: Int64) async throws -> Sample
    /// Looks up each id in turn, all inside one read transaction.
    func lookupsInTransaction(_ ids: [Int64], base: Int64) async throws -> Sample
    /// Looks up each id in turn, each lookup its own call (Strata: an async one-shot call; raw: autocommit).
    func lookupsOneShot(_ ids: [Int64], base: Int64) async throws -> Sample
    /// Runs `where i1 > t order by d1 limit n` once per threshold, reading the rows into records.
    func filteredQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample
    /// ``filteredQueries(_:limit:base:)``, each query its own call (Strata: an async one-shot call; raw: autocommit).
    func oneShotQueries(_ thresholds: [Int], limit: Int, base: Int64) async throws -> Sample
    /// Reads every row through a cursor, one record at a time, keeping none (the digest is folded in as
    /// rows pass, inside the timed section, on both sides alike).
    func stream(base: Int64) async throws -> Sample
    /// Opens `count` fresh databases one after another, each migrated for four models and given ten statements
    /// (see ``StrataContender/freshDatabases(_:)``).
    func freshDatabases(_ count: Int) async throws -> Sample
    /// Runs ``GroupSum/sql`` once in a read transaction, reading each group's key, count and sum.
    func groupSum() async throws -> Sample
    /// Releases the connection(s).
    func close()
    /// Empties `bench_keyed` and writes the rows ``KeyedBench/seeded(_:)`` lists (untimed).
    func seedKeyed(_ count: Int) async throws
    /// Upserts rows `0..<count` of ``KeyedBench`` on the unique `i1` as `upsertAll` does (same statements, same
    /// rows per statement, one transaction), reading back each row's id: half update seeded rows, half insert.
    func upsert(_ count: Int) async throws -> Sample
    /// The digest of every row of `bench_keyed`, ids relative to the smallest (untimed).
    func keyedDigest() async throws -> Digest
    /// One SELECT of the rows whose id is among `ids`, the ids bound as one array, in one read transaction.
    func inLookup(_ ids: [Int64], base: Int64) async throws -> Sample
    /// Walks the first `rows` rows in 20-row keyset pages ordered by `(i1, id)`, in one read transaction (see
    /// ``PageKeyset``).
    func pageKeyset(rows: Int, base: Int64) async throws -> Sample
    /// Runs ``SetUnion/queries`` UNIONs of two overlapping i1 ranges, each read whole, in one read transaction.
    func setUnion(base: Int64) async throws -> Sample
    /// Runs ``CTEDescendants/walks`` recursive walks down i1 = i2 chains, each row with its depth, in one read
    /// transaction.
    func cteDescendants(base: Int64) async throws -> Sample
    /// Runs ``WindowRank/queries`` queries of a rank within each partition of an i1 range's rows, in one read
    /// transaction.
    func windowRank(base: Int64) async throws -> Sample
    /// Creates and fills the json-path workload's `bench_doc` table unless it is full already (see
    /// ``JSONPathQuery``).
    func prepareDocuments() async throws
    /// Runs ``JSONPathQuery/queries`` range queries on a JSON path, in one read transaction.
    func jsonPathQueries() async throws -> Sample
    /// Runs ``WindowSum/queries`` queries of a running sum within each partition of an i1 range's rows, in one
    /// read transaction.
    func windowSum(base: Int64) async throws -> Sample
    /// Creates and fills the search workload's `bench_article` table unless it is full already (see
    /// ``SearchBench``).
    func prepareArticles() async throws
    /// Runs ``SearchBench/queries`` full-text matches, in one read transaction.
    func searchQueries() async throws -> Sample
    /// Creates and fills the assoc-aggregate workload's `bench_blog` and `bench_post` tables unless they are full
    /// already (see ``AssocAggregate``).
    func prepareBlogs() async throws
    /// Runs ``AssocAggregate/queries`` reads of blogs with their posts' count and sum, in one read transaction.
    func assocAggregates() async throws -> Sample
    /// Creates and fills `bench_line` (the composite-key workload), unless filled.
    func prepareLines() async throws
    /// 5,000 lookups by a two-column key (the composite-key workload).
    func compositeKeyFinds() async throws -> Sample
    /// The plans of a tagged query (the explain workload, see ``ExplainQuery``).
    func explainQueries() async throws -> Sample
    /// Creates `bench_priced` (the generated workload) if needed and empties it.
    func preparePriced() async throws
    /// Saves of a model with a generated column, each value read back (see ``GeneratedInsert``).
    func generatedInserts(_ count: Int) async throws -> Sample
    /// The digest of what `bench_priced` holds, as ``GeneratedInsert/digest(_:)`` reads a run's lines.
    func pricedDigest() async throws -> Digest
}

extension Contender {
    var bulkFloorName: String? { nil }

    func pageKeyset(rows: Int, base: Int64) async throws -> Sample {
        throw BenchError("\(name) has no keyset pages")
    }

    func setUnion(base: Int64) async throws -> Sample {
        throw BenchError("\(name) has no set operations")
    }

    func cteDescendants(base: Int64) async throws -> Sample {
        throw BenchError("\(name) has no recursive walks")
    }

    func windowRank(base: Int64) async throws -> Sample {
        throw BenchError("\(name) has no window functions")
    }

    func prepareDocuments() async throws {
        throw BenchError("\(name) cannot fill bench_doc")
    }

    func jsonPathQueries() async throws -> Sample {
        throw BenchError("\(name) has no JSON paths")
    }

    func windowSum(base: Int64) async throws -> Sample {
        throw BenchError("\(name) has no window functions")
    }

    func prepareArticles() async throws {
        throw BenchError("\(name) cannot fill bench_article")
    }

    func searchQueries() async throws -> Sample {
        throw BenchError("\(name) has no full-text search")
    }

    func prepareBlogs() async throws {
        throw BenchError("\(name) cannot fill bench_blog")
    }

    func assocAggregates() async throws -> Sample {
        throw BenchError("\(name) has no association aggregates")
    }

    func prepareLines() async throws {
        throw BenchError("\(name) cannot fill bench_line")
    }

    func compositeKeyFinds() async throws -> Sample {
        throw BenchError("\(name) has no composite keys")
    }

    func explainQueries() async throws -> Sample {
        throw BenchError("\(name) has no explain()")
    }

    func preparePriced() async throws {
        throw BenchError("\(name) cannot fill bench_priced")
    }

    func generatedInserts(_ count: Int) async throws -> Sample {
        throw BenchError("\(name) has no generated columns")
    }

    func pricedDigest() async throws -> Digest {
        throw BenchError("\(name) cannot read bench_priced")
    }

    func bulkInsertFloor(_ count: Int) async throws -> Sample {
        throw BenchError("\(name) has no second bulk floor")
    }

    func load(_ count: Int) async throws -> Sample {
        throw BenchError("\(name) has no load")
    }

    func stagedInsert(_ count: Int) async throws -> Sample {
        throw BenchError("\(name) has no staged insert")
    }

    func freshDatabases(_ count: Int) async throws -> Sample {
        throw BenchError("\(name) has no fresh databases")
    }
}

/// Digests of the records a side handled, ids relative to `base`.
enum Digests {
    static func of(_ rows: [RawRecord], base: Int64) -> Digest {
        var d = Digest()
        for r in rows { d.add(r, base: base) }
        return d
    }

    static func of(_ rows: [BenchRecord], base: Int64) -> Digest {
        var d = Digest()
        for r in rows { d.add(r, base: base) }
        return d
    }

    /// Written rows: ids relative to the first row's (rows are written in order, so it is the smallest).
    static func written(_ rows: [RawRecord]) -> Digest { of(rows, base: rows.first?.id ?? 0) }
    static func written(_ rows: [BenchRecord]) -> Digest { of(rows, base: rows.first?.id ?? 0) }
}

extension Contender {
    /// A raw C API has one kind of transaction: the plain insert.
    func insertOneByOneAborting(_ count: Int) async throws -> Sample { try await insertOneByOne(count) }
    /// A raw C API inserts the same records in clear: the baseline encryption's cost is read against.
    func insertEncrypted(_ count: Int) async throws -> Sample { try await insertOneByOne(count) }
    /// A raw C API reads the seeded records in clear: the baseline opening's cost is read against.
    func prepareEncrypted(_ count: Int) async throws {}
    /// A raw C API reads the seeded records in clear (``fetchAll(base:)``).
    func fetchEncrypted(base: Int64) async throws -> Sample { try await fetchAll(base: base) }
    /// A raw C API inserts the same records without history: the baseline history's cost is read against.
    func insertHistory(_ count: Int) async throws -> Sample { try await insertOneByOne(count) }
}
