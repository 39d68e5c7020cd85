// Workload: the benchmark's workloads, their names on the command line and their sizes.

/// One measured workload. The raw-value names are what `--only` accepts.
public enum Workload: String, CaseIterable, Sendable, Codable {
    /// Peak memory is process-wide, so the stream runs first on every backend (see ``PeakMemory``).
    case stream
    case insert
    /// `insert`, in a transaction begun with `onFailedStatement: .abortTransaction`: no savepoint per write.
    case insertAborting = "insert-aborting"
    /// `insert` of a model whose three text columns are `@Encrypted` (one deterministic): the cost of AES-GCM per
    /// write, beside `insert` (the raw side inserts the same records in clear).
    case insertEncrypted = "insert-encrypted"
    /// `insert` of a model that tracks history: the cost of recording each write in the change history, beside
    /// `insert` (the raw side inserts the same records without history).
    case insertHistory = "insert-history"
    case bulk
    case fetch
    /// `fetch` of the same records from a model whose three text columns are `@Encrypted`: the cost of opening
    /// AES-GCM envelopes per row, beside `fetch` (the raw side reads the records in clear).
    case fetchEncrypted = "fetch-encrypted"
    case lookupTx = "lookup-tx"
    case lookupAsync = "lookup-async"
    case query
    /// `query`'s 1,000 filtered queries, each a one-shot async call (`query(on: db)…all()`), as a server's handler
    /// makes them; the raw side runs them in autocommit.
    case queryAsync = "query-async"
    /// PostgreSQL only: `SELECT pg_sleep(0.001)` from 64 tasks through 8 pooled connections, against pgbench.
    case sleep = "pg-sleep"
    /// PostgreSQL only: point lookups in `pgbench_accounts` from 64 tasks through 8 connections, against
    /// `pgbench -S -M prepared`.
    case pointSelect = "pg-select"
    /// PostgreSQL only: a server's mix from 64 tasks through 8 connections (6 point reads, 2 pages of 20 rows and 2
    /// read-and-update transactions in 10 requests), against the same statements through libpq from 8 threads; with
    /// the process's threads and how late a bystander task and a bystander thread wake meanwhile.
    case serverMix = "pg-server"
    /// `group by s2` with `count(*)` and `sum(i1)` over the seeded table (1,000 groups), in a read transaction.
    case groupSum = "group-sum"
    /// Upsert of 20,000 records on a unique key: half update stored rows, half insert.
    case upsert
    /// One query of the rows whose id is among 100,000 ids (half of them stored).
    case inLookup = "in-lookup"
    /// PostgreSQL only: a bulk load of 1,000,000 records without ids back (`Model.load`, binary COPY), against raw
    /// libpq binary COPY.
    case copy
    /// PostgreSQL only: `insertAll` of 100,000 records with ids back (COPY into a staging table, then
    /// `INSERT … SELECT … RETURNING id`) against the same statements through libpq, and libpq's multi-row
    /// `INSERT … RETURNING id` (what insertAll sent before).
    case copyIds = "copy-ids"
    /// Memory only: what an app's test suite does most, many times over: open a fresh database, migrate four
    /// models, run ten statements, close it.
    case fresh = "fresh-db"
    /// SQLite and memory: 20-row keyset pages ordered by `(i1, id)`, walked through 10,000 rows by their cursors.
    case pageKeyset = "page-keyset"
    /// SQLite and memory: UNIONs of two overlapping i1 ranges (about 750 rows each), read whole.
    case setUnion = "set-union"
    /// SQLite and memory: recursive walks (WITH RECURSIVE) 20 levels down chains of rows linked by i1 = i2.
    case cteDescendants = "cte-descendants"
    /// SQLite and memory: a rank within each of 7 partitions of an i1 range's rows (about 750), as typed tuples.
    case windowRank = "window-rank"
    /// SQLite and memory: ranges of an indexed integer path inside a JSON column (about 150 of 20,000
    /// documents), each row's number and a text path read as typed tuples.
    case jsonPath = "json-path"
    /// SQLite and memory: a running sum within each of 7 partitions of an i1 range's rows (about 750), as tuples.
    case windowSum = "window-sum"
    /// Every backend: full-text matches (two words ORed, and a prefix) over 20,000 search documents (about 180
    /// each), read as (n, title) tuples.
    case search = "search"
    /// Every backend: blogs read with the count and sum of their posts (`all(with:)`: one LEFT JOIN grouped by the
    /// blog), 20 blogs a query.
    case assocAggregate = "assoc-aggregate"
    /// 5,000 lookups of rows keyed by two columns (SQLite and memory).
    case compositeKey = "composite-key"
    /// 200 plans of a tagged query through `explain()` (SQLite).
    case explain = "explain"
    /// 20,000 saves of a model with a stored generated column, each total read back (SQLite and memory).
    case generated = "generated"

    /// What the workload does, at full scale.
    public var summary: String {
        switch self {
        case .insert: return "insert 20,000 records one by one in one transaction"
        case .insertAborting:
            return "insert 20,000 records one by one in one transaction begun with onFailedStatement: "
                + ".abortTransaction (no savepoint per write; the raw side is the same as insert's)"
        case .insertEncrypted:
            return "insert 20,000 records one by one in one transaction, s1 (deterministic), s2 and s3 @Encrypted "
                + "(AES-256-GCM); the raw side is the same as insert's, in clear"
        case .insertHistory:
            return "insert 20,000 records one by one in one transaction into a model with tracksHistory (one "
                + "strata_history row per write); the raw side is the same as insert's, without history"
        case .fetch: return "fetch 100,000 rows into model values"
        case .fetchEncrypted:
            return "fetch 100,000 rows into model values, s1 (deterministic), s2 and s3 @Encrypted (AES-256-GCM) "
                + "opened; the raw side is the same as fetch's, in clear"
        case .lookupTx: return "5,000 lookups by id inside one transaction"
        case .lookupAsync: return "5,000 lookups by id as one-shot async calls"
        case .query:
            return "1,000 runs of where i1 > ? order by d1 limit 100 (200–300 rows match), in one read transaction"
        case .queryAsync:
            return "1,000 runs of where i1 > ? order by d1 limit 100 (200–300 rows match), each a one-shot async call"
        case .bulk: return "bulk insert of 100,000 records"
        case .stream: return "stream 1,000,000 rows through a cursor"
        case .sleep:
            return
                "SELECT pg_sleep(0.001) from 64 tasks through pool=8, vs pgbench -n -f sleep.sql -c 8 -j 2 (statements/s)"
        case .pointSelect:
            return "pgbench_accounts lookups by aid from 64 tasks through pool=8, vs pgbench -S -c 8 -j 2 -M prepared"
        case .serverMix:
            return "a server's mix (60% lookups by aid, 20% 20-row pages, 20% read-for-update-and-update transactions) "
                + "on pgbench_accounts from 64 tasks through pool=8, vs the same statements through libpq from 8 threads"
        case .groupSum: return "group 100,000 rows by s2 (1,000 groups): count(*) and sum(i1), ordered by s2"
        case .upsert:
            return "upsert 20,000 records on a unique key (10,000 stored are updated, 10,000 inserted), ids read back"
        case .inLookup:
            return "one query of the rows whose id is among 100,000 ids (50,000 stored), ids bound as one array"
        case .copy:
            return "bulk load of 1,000,000 records without ids back (Model.load: binary COPY) vs libpq binary COPY"
        case .copyIds:
            return "insertAll of 100,000 records with ids back (COPY into a staging table, INSERT … SELECT … "
                + "RETURNING) vs the same through libpq, and vs libpq multi-row INSERT … RETURNING"
        case .fresh:
            return "1,000 fresh databases, each opened, migrated for 4 models, given 10 one-shot statements and closed"
        case .cteDescendants:
            return "50 recursive walks, each 20 levels down a chain of rows linked by i1 = the last row's i2 (i1 "
                + "indexed), each row read with its depth, in one read transaction"
        case .jsonPath:
            return "50 range queries on an indexed integer path inside a JSON column (about 150 of 20,000 documents "
                + "each), read as (n, theme path) tuples, in one read transaction"
        case .windowRank:
            return "50 queries of the RANK of each row of an i1 range (about 750 of 100,000 rows) within its s3 "
                + "partition (7) by i3 descending, read as (id, rank) tuples, in one read transaction"
        case .windowSum:
            return "50 queries of the running SUM of i3 over each row of an i1 range (about 750 of 100,000 rows) "
                + "within its s3 partition (7) by id, read as (id, sum) tuples, in one read transaction"
        case .setUnion:
            return "50 UNIONs of two overlapping i1 ranges (about 750 of 100,000 rows each), in one read transaction"
        case .pageKeyset:
            return
                "20-row keyset pages by (i1, id) walked through 10,000 rows by their cursors, in one read transaction"
        case .search:
            return "50 full-text matches (two words ORed and a prefix: about 180 of 20,000 search documents each), "
                + "read as (n, title) tuples, in one read transaction"
        case .assocAggregate:
            return "50 queries of 20 blogs each with the count and sum of their posts (1,000 blogs, 18,000 posts), "
                + "one LEFT JOIN grouped by the blog, read as (blog, count, sum) tuples, in one read transaction"
        case .compositeKey:
            return "5,000 lookups by a two-column primary key (10,000 order lines, one in ten absent), each read into "
                + "its model, in one read transaction"
        case .explain:
            return "200 plans (explain()) of a query tagged bench.page (where i1 > ? order by d1 limit 20), prepared "
                + "once and bound per plan, each read as text, in one read transaction"
        case .generated:
            return "save 20,000 models one by one in one transaction, each with a stored generated column (price * "
                + "quantity) read back after its INSERT"
        }
    }

    /// The short label used in tables and the chart, with the counts actually run.
    public func label(_ sizes: WorkloadSizes) -> String {
        switch self {
        case .insert: return "insert \(Self.count(sizes.insert)) one by one"
        case .insertAborting: return "insert \(Self.count(sizes.insert)) one by one, abortTransaction"
        case .insertEncrypted: return "insert \(Self.count(sizes.insert)) one by one, 3 columns encrypted"
        case .insertHistory: return "insert \(Self.count(sizes.insert)) one by one, history on"
        case .fetch: return "fetch \(Self.count(sizes.fetch)) rows"
        case .fetchEncrypted: return "fetch \(Self.count(sizes.fetch)) rows, 3 columns encrypted"
        case .lookupTx: return "\(Self.count(sizes.lookups)) lookups in a tx"
        case .lookupAsync: return "\(Self.count(sizes.lookups)) one-shot async lookups"
        case .query: return "\(Self.count(sizes.queries)) filtered queries"
        case .queryAsync: return "\(Self.count(sizes.queries)) one-shot async queries"
        case .bulk: return "bulk insert \(Self.count(sizes.bulk))"
        case .stream: return "stream \(Self.count(sizes.stream)) rows"
        case .sleep: return "1 ms statement, 64 tasks, pool=8"
        case .pointSelect: return "point lookups, 64 tasks, pool=8"
        case .serverMix: return "server mix, 64 tasks, pool=8"
        case .groupSum: return "group-by-sum over \(Self.count(sizes.fetch)) rows"
        case .upsert: return "upsert \(Self.count(sizes.upsert))"
        case .inLookup: return "IN of \(Self.count(sizes.inList)) ids"
        case .copy: return "COPY load \(Self.count(sizes.stream))"
        case .copyIds: return "COPY staged insert \(Self.count(sizes.bulk))"
        case .fresh: return "\(Self.count(sizes.fresh)) fresh dbs: migrate 4, 10 statements"
        case .setUnion: return "\(SetUnion.queries) unions of two i1 ranges"
        case .cteDescendants: return "\(CTEDescendants.walks) recursive walks of \(CTEDescendants.levels) levels"
        case .windowRank: return "\(WindowRank.queries) ranked i1 ranges"
        case .jsonPath: return "\(JSONPathQuery.queries) JSON path ranges"
        case .windowSum: return "\(WindowSum.queries) running sums over i1 ranges"
        case .pageKeyset: return "keyset pages of 20 over \(Self.count(PageKeyset.rows(tableSize: sizes.fetch))) rows"
        case .search: return "\(SearchBench.queries) full-text matches"
        case .assocAggregate: return "\(AssocAggregate.queries) association counts and sums"
        case .compositeKey: return "\(Self.count(CompositeKeyFind.lookups)) lookups by a two-column key"
        case .explain: return "\(ExplainQuery.explains) plans of a tagged query"
        case .generated: return "save \(Self.count(sizes.insert)), generated column read back"
        }
    }

    /// How many of what one timed section does (inserts, rows, lookups, queries), for figures per operation such as
    /// allocations; nil where the section is one statement or its count depends on the data.
    func operations(_ sizes: WorkloadSizes) -> (count: Int, unit: String)? {
        switch self {
        case .insert, .insertAborting, .insertEncrypted, .insertHistory: return (sizes.insert, "insert")
        case .upsert: return (sizes.upsert, "row")
        case .fetch, .fetchEncrypted: return (sizes.fetch, "row")
        case .stream: return (sizes.stream, "row")
        case .bulk: return (sizes.bulk, "row")
        case .lookupTx, .lookupAsync: return (sizes.lookups, "lookup")
        case .query, .queryAsync: return (sizes.queries, "query")
        case .inLookup: return (sizes.inList, "id")
        case .fresh: return (sizes.fresh, "db")
        case .setUnion: return (SetUnion.queries, "query")
        case .cteDescendants: return (CTEDescendants.walks, "walk")
        case .windowRank: return (WindowRank.queries, "query")
        case .jsonPath: return (JSONPathQuery.queries, "query")
        case .windowSum: return (WindowSum.queries, "query")
        case .search: return (SearchBench.queries, "query")
        case .assocAggregate: return (AssocAggregate.queries, "query")
        case .compositeKey: return (CompositeKeyFind.lookups, "lookup")
        case .explain: return (ExplainQuery.explains, "plan")
        case .generated: return (sizes.insert, "insert")
        case .groupSum, .pageKeyset, .sleep, .pointSelect, .serverMix, .copy, .copyIds: return nil
        }
    }

    /// `20k`, `1M`, `250`.
    static func count(_ n: Int) -> String {
        if n >= 1_000_000, n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
        if n >= 1_000, n % 1_000 == 0 { return "\(n / 1_000)k" }
        return "\(n)"
    }

    /// Whether the workload is large enough to run fewer times (see ``BenchOptions/iterations``).
    var isLarge: Bool { self == .bulk || self == .stream || self == .copy || self == .copyIds }

    /// Whether the workload reads a table of its own (fresh databases, json-path's documents): warmed up first, its
    /// digest what it read.
    var readsOwnTable: Bool {
        self == .fresh || self == .jsonPath || self == .search || self == .assocAggregate || self == .compositeKey
    }

    /// Whether the workload reads the seeded table (and is warmed up first).
    var isRead: Bool {
        [
            .fetch, .fetchEncrypted, .lookupTx, .lookupAsync, .query, .queryAsync, .groupSum, .inLookup, .pageKeyset,
            .setUnion, .cteDescendants, .windowRank, .windowSum, .explain,
        ].contains(self)
    }

    /// Whether the workload runs on `backend`: COPY on PostgreSQL only, fresh databases on the memory driver only
    /// (against fresh `sqlite::memory:` databases).
    func runs(on backend: Backend) -> Bool {
        switch self {
        case .copy, .copyIds, .serverMix: return backend == .postgres
        case .fresh: return backend == .memory
        case .pageKeyset, .setUnion, .cteDescendants, .windowRank, .jsonPath, .windowSum, .compositeKey, .generated:
            return backend != .postgres
        // Each backend's plan is its own text: only SQLite's is compared with the raw C API's.
        case .explain: return backend == .sqlite
        default: return true
        }
    }

    /// Whether the workload measures statements (or requests) per second from 64 tasks (PostgreSQL only): against
    /// pgbench, or (``serverMix``) against libpq from 8 threads.
    public var isThroughput: Bool { self == .sleep || self == .pointSelect || self == .serverMix }
}

/// The counts behind the workloads, divided by `--scale` (never below 1).
public struct WorkloadSizes: Sendable, Codable {
    /// Records inserted one by one (20,000).
    public var insert: Int
    /// Rows in the table the reads run on (100,000).
    public var fetch: Int
    /// Lookups by id per run (5,000).
    public var lookups: Int
    /// Filtered queries per run (1,000).
    public var queries: Int
    /// Records in the bulk insert (100,000).
    public var bulk: Int
    /// Rows streamed (1,000,000).
    public var stream: Int
    /// Rows a filtered query returns at most.
    public var queryLimit: Int
    /// Records upserted per run (20,000).
    public var upsert: Int
    /// Ids in the IN lookup (100,000).
    public var inList: Int
    /// Fresh databases opened per run (1,000).
    public var fresh: Int

    /// The full-size counts divided by `scale`.
    public init(scale: Int) {
        let s = max(1, scale)
        insert = max(1, 20_000 / s)
        fetch = max(1, 100_000 / s)
        lookups = max(1, 5_000 / s)
        queries = max(1, 1_000 / s)
        bulk = max(1, 100_000 / s)
        stream = max(1, 1_000_000 / s)
        queryLimit = 100
        upsert = max(2, 20_000 / s)
        inList = max(1, 100_000 / s)
        fresh = max(1, 1_000 / s)
    }

    /// Decodes the sizes a report recorded; a report written before a workload existed lacks its count, which is
    /// then the count at the report's scale (found from the rows it fetched), so that a committed report stays
    /// readable as workloads are added.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fetch = try c.decode(Int.self, forKey: .fetch)
        let scaled = WorkloadSizes(scale: max(1, 100_000 / max(1, fetch)))
        insert = try c.decodeIfPresent(Int.self, forKey: .insert) ?? scaled.insert
        lookups = try c.decodeIfPresent(Int.self, forKey: .lookups) ?? scaled.lookups
        queries = try c.decodeIfPresent(Int.self, forKey: .queries) ?? scaled.queries
        bulk = try c.decodeIfPresent(Int.self, forKey: .bulk) ?? scaled.bulk
        stream = try c.decodeIfPresent(Int.self, forKey: .stream) ?? scaled.stream
        queryLimit = try c.decodeIfPresent(Int.self, forKey: .queryLimit) ?? scaled.queryLimit
        upsert = try c.decodeIfPresent(Int.self, forKey: .upsert) ?? scaled.upsert
        inList = try c.decodeIfPresent(Int.self, forKey: .inList) ?? scaled.inList
        fresh = try c.decodeIfPresent(Int.self, forKey: .fresh) ?? scaled.fresh
    }
}
