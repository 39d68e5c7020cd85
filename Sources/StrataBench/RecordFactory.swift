// RecordFactory: the deterministic rows every workload writes.

/// Makes the `k`-th benchmark row (0-based) the same way for Strata and for the raw baselines.
///
/// Strings stay under 16 UTF-8 bytes (Swift stores them inline, as a short name or code would be);
/// doubles are exact binary fractions, so they survive a text round trip (libpq) bit for bit.
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

    static func model(_ k: Int) -> BenchRecord {
        let r = raw(k)
        return BenchRecord(
            id: nil, i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
    }
}
