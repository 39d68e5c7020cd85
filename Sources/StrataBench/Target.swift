// Target: the ratio (Strata / baseline, medians of the same run) each workload should stay under.

/// A goal for one workload on one backend.
public struct Target: Sendable, Codable, Hashable {
    /// The ratio must be at most this.
    public var maxRatio: Double?
    /// For the stream: the peak memory growth must stay under this many megabytes.
    public var maxPeakMB: Double?

    /// The goal for a workload on a backend, or nil when the issue sets none.
    public static func of(_ workload: Workload, on backend: Backend) -> Target? {
        switch (backend, workload) {
        case (.sqlite, .insert): return Target(maxRatio: 1.15)
        case (.sqlite, .fetch): return Target(maxRatio: 1.25)
        case (.sqlite, .lookupTx): return Target(maxRatio: 1.3)
        case (.sqlite, .lookupAsync): return Target(maxRatio: 2.0)
        case (.sqlite, .query), (.sqlite, .pageKeyset), (.sqlite, .setUnion), (.sqlite, .cteDescendants),
            (.sqlite, .windowRank), (.sqlite, .jsonPath), (.sqlite, .windowSum), (.sqlite, .search),
            (.sqlite, .assocAggregate), (.postgres, .assocAggregate), (.sqlite, .compositeKey),
            (.sqlite, .explain), (.sqlite, .generated):
            return Target(maxRatio: 1.2)
        case (.sqlite, .groupSum), (.postgres, .groupSum), (.postgres, .search): return Target(maxRatio: 1.2)
        case (.postgres, .insert), (.postgres, .insertAborting), (.sqlite, .insertAborting):
            return Target(maxRatio: 1.15)
        case (.postgres, .fetch): return Target(maxRatio: 1.2)
        case (.postgres, .lookupTx), (.postgres, .lookupAsync): return Target(maxRatio: 1.15)
        case (.postgres, .bulk): return Target(maxRatio: 1.25)
        case (.postgres, .copy): return Target(maxRatio: 1.15)
        // The memory driver's app-test workloads: at least 5× faster than SQLite in memory.
        case (.memory, .insert), (.memory, .fetch), (.memory, .lookupTx), (.memory, .lookupAsync),
            (.memory, .query):
            return Target(maxRatio: 0.2)
        case (.sqlite, .upsert), (.postgres, .upsert): return Target(maxRatio: 1.2)
        case (.sqlite, .inLookup), (.postgres, .inLookup): return Target(maxRatio: 1.3)
        case (_, .stream): return Target(maxPeakMB: 64)
        default: return nil
        }
    }

    /// `≤ 1.15`, `< 64 MB`, or both.
    public var description: String {
        var parts: [String] = []
        if let maxRatio { parts.append("≤ \(Format.ratio(maxRatio))") }
        if let maxPeakMB { parts.append("< \(Int(maxPeakMB)) MB") }
        return parts.joined(separator: ", ")
    }
}
