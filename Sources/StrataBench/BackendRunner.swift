// BackendRunner: runs the chosen workloads on one backend, alternating Strata and baseline runs.

/// Which side of a comparison a run belongs to.
public enum Side: String, CaseIterable, Sendable, Codable {
    /// Strata.
    case strata
    /// The raw C API (or, for the memory driver, Strata on SQLite in memory).
    case raw
    /// The raw side's second bulk floor (binary COPY on PostgreSQL, the single-row INSERT loop on SQLite).
    case floor
}

/// Runs every chosen workload on one pair of contenders and collects the medians.
struct BackendRunner {
    let backend: Backend
    let pair: ContenderPair
    let options: BenchOptions
    let sizes: WorkloadSizes
    let log: (String) -> Void

    /// The workloads in the order they run: the stream first (see ``PeakMemory``), then the writes,
    /// then the reads, which share one seeded table.
    static let order: [Workload] = [
        .stream, .insert, .insertAborting, .insertEncrypted, .insertHistory, .bulk, .upsert, .fetch, .fetchEncrypted,
        .lookupTx, .lookupAsync, .query, .queryAsync, .groupSum, .inLookup, .pageKeyset, .setUnion, .cteDescendants,
        .windowRank, .copy, .copyIds, .fresh,
        .jsonPath,
        .windowSum,
        .search,
        .assocAggregate,
        .compositeKey,
        .explain,
        .generated,
    ]

    func run() async throws -> [WorkloadResult] {
        var results: [WorkloadResult] = []
        let chosen = Set(options.workloads)
        var seededForReads = false
        for w in Self.order where chosen.contains(w) && w.runs(on: backend) {
            if w.isRead {
                if !seededForReads {
                    try await seed(sizes.fetch)
                    seededForReads = true
                }
            } else {
                seededForReads = false
                if w == .stream { try await seed(sizes.stream) }
            }
            let arms = self.arms(w)
            let samples = try await measure(w, arms)
            if w == .stream { try await resetBoth() }
            if w == .fresh { logPerDatabase(samples) }
            results.append(
                Summary.result(
                    w, backend: backend, sizes: sizes, runs: options.runs(for: w), strata: samples[.strata] ?? [],
                    baseline: samples[.raw] ?? [], floor: samples[.floor] ?? [],
                    floorName: arms.contains { $0.side == .floor } ? floorName(w) : nil))
        }
        try await resetBoth()
        return results
    }

    /// Runs `side` once, instrumented (under callgrind: the `--once` child of `--instructions`), after the
    /// same preparation and one warm-up run.
    func once(_ w: Workload, side: Side) async throws -> Sample {
        guard !w.isThroughput, let arm = arms(w).first(where: { $0.side == side }) else {
            throw BenchError("\(w.rawValue) has no \(side.rawValue) side on \(backend.rawValue)")
        }
        try await seed(w == .stream ? sizes.stream : w.isRead ? sizes.fetch : 0)
        try await arm.before(arm.contender)
        _ = try await arm.body(arm.contender)
        try await arm.before(arm.contender)
        Instrumentation.arm()
        let sample = try await arm.body(arm.contender)
        try await resetBoth()
        return sample
    }

    /// One side's way of running a workload.
    struct Arm {
        let side: Side
        let contender: Contender
        /// Untimed preparation before each run (emptying the table for a write).
        let before: (Contender) async throws -> Void
        let body: (Contender) async throws -> Sample
    }

    private func arms(_ w: Workload) -> [Arm] {
        let pairSides: [(Side, Contender)] = [(.strata, pair.strata), (.raw, pair.baseline)]
        let ids = (0..<sizes.lookups).map { Int64(($0 &* 7_919 &+ 13) % sizes.fetch) }
        let range = RecordFactory.i1Range
        // Each threshold keeps 0.2 to 0.3 % of the rows (200 to 300 of 100,000): the index narrows the scan,
        // the limit of 100 still cuts, and the database's own work stays small enough for Strata's to show.
        let thresholds = (0..<sizes.queries).map { range - range / 500 - ($0 &* 37) % (range / 1_000) }
        let limit = sizes.queryLimit
        let empty: (Contender) async throws -> Void = { try await pair.fixture(for: $0).reset() }
        let nothing: (Contender) async throws -> Void = { _ in }
        var arms: [Arm] = pairSides.map { side, c in
            let base = { c === pair.strata ? bases.strata : bases.baseline }
            switch w {
            case .insert:
                return Arm(side: side, contender: c, before: empty) { try await $0.insertOneByOne(sizes.insert) }
            case .insertAborting:
                return Arm(side: side, contender: c, before: empty) {
                    try await $0.insertOneByOneAborting(sizes.insert)
                }
            case .insertEncrypted:
                return Arm(side: side, contender: c, before: empty) { try await $0.insertEncrypted(sizes.insert) }
            case .insertHistory:
                return Arm(side: side, contender: c, before: empty) { try await $0.insertHistory(sizes.insert) }
            case .bulk: return Arm(side: side, contender: c, before: empty) { try await $0.bulkInsert(sizes.bulk) }
            case .stream: return Arm(side: side, contender: c, before: nothing) { try await $0.stream(base: base()) }
            case .fetch: return Arm(side: side, contender: c, before: nothing) { try await $0.fetchAll(base: base()) }
            case .fetchEncrypted:
                return Arm(side: side, contender: c, before: { try await $0.prepareEncrypted(sizes.fetch) }) {
                    try await $0.fetchEncrypted(base: base())
                }
            case .lookupTx:
                return Arm(side: side, contender: c, before: nothing) {
                    try await $0.lookupsInTransaction(ids.map { base() + $0 }, base: base())
                }
            case .lookupAsync:
                return Arm(side: side, contender: c, before: nothing) {
                    try await $0.lookupsOneShot(ids.map { base() + $0 }, base: base())
                }
            case .groupSum: return Arm(side: side, contender: c, before: nothing) { try await $0.groupSum() }
            case .upsert:
                return Arm(
                    side: side, contender: c, before: { try await pair.fixture(for: $0).seedKeyed(sizes.upsert) }
                ) {
                    try await $0.upsert(sizes.upsert)
                }
            case .inLookup:
                // Every other id of twice the table's span: half are stored rows, half are not.
                let keys = (0..<sizes.inList).map { Int64($0 * 2 % max(1, 2 * sizes.fetch)) }
                return Arm(side: side, contender: c, before: nothing) {
                    try await $0.inLookup(keys.map { base() + $0 }, base: base())
                }
            case .copy:  // the stream's size (1M): Strata's load against the raw side's binary COPY
                return Arm(side: side, contender: c, before: empty) {
                    side == .strata ? try await $0.load(sizes.stream) : try await $0.bulkInsertFloor(sizes.stream)
                }
            case .copyIds:  // the bulk size: insertAll against libpq sending the same staging-table statements
                return Arm(side: side, contender: c, before: empty) {
                    side == .strata ? try await $0.bulkInsert(sizes.bulk) : try await $0.stagedInsert(sizes.bulk)
                }
            case .fresh:
                return Arm(side: side, contender: c, before: nothing) { try await $0.freshDatabases(sizes.fresh) }
            case .pageKeyset:
                return Arm(side: side, contender: c, before: nothing) {
                    try await $0.pageKeyset(rows: PageKeyset.rows(tableSize: sizes.fetch), base: base())
                }
            case .setUnion:
                return Arm(side: side, contender: c, before: nothing) { try await $0.setUnion(base: base()) }
            case .cteDescendants:
                return Arm(side: side, contender: c, before: nothing) { try await $0.cteDescendants(base: base()) }
            case .windowRank:
                return Arm(side: side, contender: c, before: nothing) { try await $0.windowRank(base: base()) }
            case .jsonPath:
                // Its own table, filled through Strata (once: the raw side reads the same file on SQLite).
                let fill: (Contender) async throws -> Void = {
                    try await (pair.sharedStore ? pair.strata : $0).prepareDocuments()
                }
                return Arm(side: side, contender: c, before: fill) { try await $0.jsonPathQueries() }
            case .windowSum:
                return Arm(side: side, contender: c, before: nothing) { try await $0.windowSum(base: base()) }
            case .search:
                // Its own table, filled through Strata (once: the raw side reads the same file on SQLite).
                let fill: (Contender) async throws -> Void = {
                    try await (pair.sharedStore ? pair.strata : $0).prepareArticles()
                }
                return Arm(side: side, contender: c, before: fill) { try await $0.searchQueries() }
            case .assocAggregate:
                // Its own tables, filled through Strata (once: the raw side reads the same file on SQLite).
                let fill: (Contender) async throws -> Void = {
                    try await (pair.sharedStore ? pair.strata : $0).prepareBlogs()
                }
                return Arm(side: side, contender: c, before: fill) { try await $0.assocAggregates() }
            case .compositeKey:
                // Its own table, filled through Strata (once: the raw side reads the same file on SQLite).
                let fill: (Contender) async throws -> Void = {
                    try await (pair.sharedStore ? pair.strata : $0).prepareLines()
                }
                return Arm(side: side, contender: c, before: fill) { try await $0.compositeKeyFinds() }
            case .explain:
                return Arm(side: side, contender: c, before: nothing) { try await $0.explainQueries() }
            case .generated:
                // Its own table, emptied through Strata before each run (on the raw side's file too, on SQLite).
                let fill: (Contender) async throws -> Void = {
                    try await (pair.sharedStore ? pair.strata : $0).preparePriced()
                }
                return Arm(side: side, contender: c, before: fill) { try await $0.generatedInserts(sizes.insert) }
            case .queryAsync:
                return Arm(side: side, contender: c, before: nothing) {
                    try await $0.oneShotQueries(thresholds, limit: limit, base: base())
                }
            // The filtered queries; the throughput workloads never come here (see ThroughputRunner).
            case .query, .sleep, .pointSelect, .serverMix:
                return Arm(side: side, contender: c, before: nothing) {
                    try await $0.filteredQueries(thresholds, limit: limit, base: base())
                }
            }
        }
        if w == .bulk, pair.baseline.bulkFloorName != nil {
            arms.append(
                Arm(side: .floor, contender: pair.baseline, before: empty) { try await $0.bulkInsertFloor(sizes.bulk) })
        }
        if w == .copyIds {  // the floor here is what insertAll sent before: multi-row INSERT … RETURNING
            arms.append(
                Arm(side: .floor, contender: pair.baseline, before: empty) { try await $0.bulkInsert(sizes.bulk) })
        }
        return arms
    }

    /// The fresh-database workload's figure that matters: microseconds per database, the median of each side.
    private func logPerDatabase(_ samples: [Side: [Sample]]) {
        let per = { (side: Side) -> String in
            let ms = Summary.median((samples[side] ?? []).map(\.milliseconds))
            return Format.fixed(ms * 1_000 / Double(sizes.fresh), 1)
        }
        log("  fresh-db: \(per(.strata)) µs per database on \(backend.rawValue), \(per(.raw)) µs on the baseline")
    }

    /// The name of the floor arm's work in tables and messages.
    private func floorName(_ w: Workload) -> String? {
        w == .copyIds ? "multi-row INSERT … RETURNING" : pair.baseline.bulkFloorName
    }

    /// The id of row 0 on each side (ids of a seed are contiguous from it).
    private final class Bases {
        var strata: Int64 = 1
        var baseline: Int64 = 1
    }
    private let bases = Bases()

    private func resetBoth() async throws {
        try await pair.fixture(for: pair.strata).reset()
        if !pair.sharedStore { try await pair.fixture(for: pair.baseline).reset() }
    }

    /// Empties the table(s) and, when `count > 0`, seeds `count` rows.
    private func seed(_ count: Int) async throws {
        try await resetBoth()
        guard count > 0 else { return }
        let clock = ContinuousClock()
        let start = clock.now
        bases.baseline = try await pair.fixture(for: pair.baseline).seed(count)
        bases.strata = pair.sharedStore ? bases.baseline : try await pair.fixture(for: pair.strata).seed(count)
        log("  seeded \(count) rows in \(Format.duration(start.duration(to: clock.now)))")
    }

    /// Runs every arm `runs` times, rotating which goes first; checks every digest (a write's against the
    /// table it left, read back untimed) and fails the run on the first mismatch.
    private func measure(_ w: Workload, _ arms: [Arm]) async throws -> [Side: [Sample]] {
        let runs = options.runs(for: w)
        log("  \(w.rawValue): \(runs) runs per side…")
        if w.isRead || w.readsOwnTable {
            for arm in arms {
                try await arm.before(arm.contender)
                _ = try await arm.body(arm.contender)
            }
        }
        var samples: [Side: [Sample]] = [:]
        for i in 0..<runs {
            for k in arms.indices {
                let arm = arms[(i + k) % arms.count]
                try await arm.before(arm.contender)
                var sample = try await self.sample(w, arm)
                if !w.isRead && !w.readsOwnTable {  // these digest what they read; the table is not theirs
                    // insert-encrypted's and insert-history's Strata sides write their own tables (bench_secret,
                    // bench_tracked), which only they can open.
                    let fixture =
                        w == .insertEncrypted || w == .insertHistory ? arm.contender : pair.fixture(for: arm.contender)
                    let stored =
                        try await w == .upsert
                        ? fixture.keyedDigest() : w == .generated ? fixture.pricedDigest() : fixture.tableDigest()
                    if let reported = sample.checksum {
                        try ChecksumCheck.verify(
                            "\(backend.rawValue) \(w.rawValue)",
                            [("what \(name(arm)) reported writing", reported), ("what the table holds", stored)])
                    }
                    sample.checksum = stored
                }
                samples[arm.side, default: []].append(sample)
            }
        }
        let digests = arms.flatMap { arm in (samples[arm.side] ?? []).map { (name(arm), $0.checksum ?? Digest()) } }
        try ChecksumCheck.verify("\(backend.rawValue) \(w.rawValue)", digests)
        return samples
    }

    private func name(_ arm: Arm) -> String {
        switch arm.side {
        case .strata: return pair.strata.name
        case .raw: return pair.baseline.name
        case .floor: return pair.baseline.name + " " + (floorName(.bulk) ?? "floor")
        }
    }

    /// One run; the stream's also reads the peak memory it reached.
    private func sample(_ w: Workload, _ arm: Arm) async throws -> Sample {
        guard w == .stream else { return try await arm.body(arm.contender) }
        let (s, reading) = try await PeakMemory.measure { try await arm.body(arm.contender) }
        var sample = s
        sample.peakGrowth = reading?.growth
        sample.peakResident = reading?.peak
        return sample
    }
}
