// BackendRunner: runs the chosen workloads on one backend, alternating Strata and baseline runs.

/// Runs every chosen workload on one pair of contenders and collects the medians.
struct BackendRunner {
    let backend: Backend
    let pair: ContenderPair
    let options: BenchOptions
    let sizes: WorkloadSizes
    let log: (String) -> Void

    /// The workloads in the order they run: the stream first (see ``PeakMemory``), then the writes,
    /// then the reads, which share one seeded table.
    func run() async throws -> [WorkloadResult] {
        var results: [WorkloadResult] = []
        let chosen = Set(options.workloads)
        let order: [Workload] = [.stream, .insert, .bulk, .fetch, .lookupTx, .lookupAsync, .query]
        var seededForReads = false
        for w in order where chosen.contains(w) {
            switch w {
            case .stream:
                try await seed(sizes.stream)
                results.append(try await measure(w) { try await $0.stream() })
                try await resetBoth()
            case .insert, .bulk:
                let n = w == .insert ? sizes.insert : sizes.bulk
                seededForReads = false
                results.append(
                    try await measure(w, before: { try await pair.fixture(for: $0).reset() }) { c in
                        w == .insert ? try await c.insertOneByOne(n) : try await c.bulkInsert(n)
                    })
            case .fetch, .lookupTx, .lookupAsync, .query:
                if !seededForReads {
                    try await resetBoth()
                    try await seed(sizes.fetch)
                    seededForReads = true
                }
                results.append(try await measureRead(w))
            }
        }
        try await resetBoth()
        return results
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

    private func seed(_ count: Int) async throws {
        try await resetBoth()
        let clock = ContinuousClock()
        let start = clock.now
        bases.baseline = try await pair.fixture(for: pair.baseline).seed(count)
        bases.strata = pair.sharedStore ? bases.baseline : try await pair.fixture(for: pair.strata).seed(count)
        log("  seeded \(count) rows in \(Format.duration(start.duration(to: clock.now)))")
    }

    private func measureRead(_ w: Workload) async throws -> WorkloadResult {
        let n = sizes.fetch
        let offsets = (0..<sizes.lookups).map { Int64(($0 &* 7_919 &+ 13) % n) }
        let range = RecordFactory.i1Range
        // Each threshold keeps 0.2 to 0.3 % of the rows (200 to 300 of 100,000): the index narrows the scan,
        // the limit of 100 still cuts, and the database's own work stays small enough for Strata's to show.
        let thresholds = (0..<sizes.queries).map { range - range / 500 - ($0 &* 37) % (range / 1_000) }
        let limit = sizes.queryLimit
        return try await measure(w, warmUp: true) { c in
            let base = c === pair.strata ? bases.strata : bases.baseline
            switch w {
            case .fetch: return try await c.fetchAll()
            case .lookupTx: return try await c.lookupsInTransaction(offsets.map { base + $0 })
            case .lookupAsync: return try await c.lookupsOneShot(offsets.map { base + $0 })
            default: return try await c.filteredQueries(thresholds, limit: limit)
            }
        }
    }

    /// Runs `body` on both sides `runs` times, alternating which goes first, and summarizes.
    private func measure(
        _ w: Workload, warmUp: Bool = false, before: (Contender) async throws -> Void = { _ in },
        _ body: (Contender) async throws -> Sample
    ) async throws -> WorkloadResult {
        let runs = options.runs(for: w)
        log("  \(w.rawValue): \(runs) runs per side…")
        if warmUp {
            _ = try await body(pair.strata)
            _ = try await body(pair.baseline)
        }
        var strata: [Sample] = []
        var baseline: [Sample] = []
        for i in 0..<runs {
            let sides = i % 2 == 0 ? [pair.strata, pair.baseline] : [pair.baseline, pair.strata]
            for side in sides {
                try await before(side)
                let sample = try await sample(w, side, body)
                if side === pair.strata { strata.append(sample) } else { baseline.append(sample) }
            }
        }
        return Summary.result(w, backend: backend, sizes: sizes, runs: runs, strata: strata, baseline: baseline)
    }

    /// One run; the stream's also reads the peak memory it reached.
    private func sample(_ w: Workload, _ side: Contender, _ body: (Contender) async throws -> Sample)
        async throws -> Sample
    {
        guard w == .stream else { return try await body(side) }
        let (s, reading) = try await PeakMemory.measure { try await body(side) }
        var sample = s
        sample.peakGrowth = reading?.growth
        sample.peakResident = reading?.peak
        return sample
    }
}
