// SplitMix64: the small, fast, seeded pseudo-random generator behind every generated schema, row and query.

/// Steele, Lea and Flood's SplitMix64: 64 bits of state, one multiply-xorshift chain per draw.
///
/// The same seed gives the same sequence on every platform, so a divergence is reproduced from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<n` (0 when `n` is not positive).
    public mutating func below(_ n: Int) -> Int {
        n <= 0 ? 0 : Int(next() % UInt64(n))
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < p
    }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }

    /// A seed for a sub-generator, so adding draws in one place does not shift every later batch.
    public mutating func fork() -> SplitMix64 { SplitMix64(seed: next()) }
}
