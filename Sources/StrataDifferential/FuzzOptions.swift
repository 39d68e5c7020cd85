// FuzzOptions: what the differential engine generates and how much of it.

/// The knobs of one differential run.
public struct FuzzOptions: Sendable {
    /// The run's seed: the same seed, options and backends give the same schemas, rows and queries.
    public var seed: UInt64
    /// How many generated queries to run (each on every backend, plus the oracles on each).
    public var queries: Int
    /// Queries per generated schema: the schema and its rows are set up once per batch.
    public var queriesPerSchema: Int
    /// Whether text values include the noncharacters U+FFFE and U+FFFF (SQLite's LIKE reads them as U+FFFD).
    public var noncharacters: Bool
    /// Whether to run TLP and NoREC on each backend alone.
    public var oracles: Bool
    /// Whether doubles include ±infinity (MariaDB's DOUBLE cannot store them).
    public var infinities = true
    /// The most integer digits a generated decimal has (38; MariaDB's `DECIMAL(65,30)` holds 35).
    public var decimalIntegerDigits = 38
    /// How many divergences to shrink to a minimal case; the rest are reported as found.
    public var shrinkLimit: Int
    /// How many shrinking attempts one divergence may take.
    public var shrinkBudget: Int

    /// Options; the defaults run 1,000 queries from seed 1 with every oracle on.
    public init(
        seed: UInt64 = 1, queries: Int = 1000, queriesPerSchema: Int = 100, noncharacters: Bool = true,
        oracles: Bool = true, shrinkLimit: Int = 8, shrinkBudget: Int = 400
    ) {
        self.seed = seed
        self.queries = queries
        self.queriesPerSchema = queriesPerSchema
        self.noncharacters = noncharacters
        self.oracles = oracles
        self.shrinkLimit = shrinkLimit
        self.shrinkBudget = shrinkBudget
    }
}
