// RecordFactory: the deterministic rows every workload writes (the root bench's, so the figures compare).

/// Makes the `k`-th row (0-based) the same way for Strata and for raw libmariadb.
///
/// Strings stay under 16 UTF-8 bytes; doubles are exact binary fractions, so they round-trip bit for bit.
enum RecordFactory {
    /// `i1` spreads over `0..<i1Range`, so a filter `i1 > t` selects a known share of rows at any scale.
    static let i1Range = 100_003

    static func raw(_ k: Int) -> RawRecord {
        RawRecord(
            id: nil,
            i1: (k &* 7_919) % i1Range,
            i2: k,
            i3: k % 1_000 - 500,
            d1: Double((k &* 104_729) % 1_000_000) / 16,
            d2: Double(k) * 0.25,
            d3: -Double(k % 977) / 4,
            s1: "name-\(k)",
            s2: "city-\(k % 1_000)",
            s3: "tag-\(k % 7)")
    }

    /// Row `k` as seeded before the upsert (every other row): other values under the same key.
    static func seededKeyed(_ k: Int) -> RawRecord {
        var r = raw(k)
        r.i2 = -k
        r.s1 = "old-\(k)"
        return r
    }
}
