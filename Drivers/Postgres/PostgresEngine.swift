// PostgresEngine: which server speaks PostgreSQL's protocol (PostgreSQL, Citus, CockroachDB, YugabyteDB), as
// detected at connect time or pinned by the URL, and what Strata adapts for each.
import Strata

/// The engine behind a `postgres://` URL: PostgreSQL itself, or a scale-out engine that speaks its protocol.
///
/// Each connection detects it once, in the statement that sets its session up: `version()` names CockroachDB
/// (`CockroachDB CCL v24.1…`) and YugabyteDB (`PostgreSQL 11.2-YB-2.20…`), and a Citus coordinator has the
/// `citus.version` setting. The URL's `engine` parameter pins it instead (`?engine=cockroachdb`; also `citus`,
/// `yugabytedb`, `postgres`), and no detection result overrides it.
///
/// ```swift
/// let db = try Database.open("postgres://root@crdb:26257/shop?engine=cockroachdb", drivers: [.postgres])
/// ```
///
/// What Strata does differently on each (see the PostgreSQL article's scale-out section):
/// ``hasAdvisoryLocks``, ``hasTemporaryTables``, ``retriesSerializationFailures``, ``hasListenNotify``,
/// ``commitsEachDDL`` and ``conflictTargetNeedsDistributionColumn``.
public struct PostgresEngine: Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Sendable, Hashable {
        case postgres, citus, cockroachdb, yugabytedb
    }

    private let code: Code

    /// PostgreSQL itself (the default).
    public static let postgres = PostgresEngine(code: .postgres)
    /// Citus: PostgreSQL with the `citus` extension, tables distributed by a column.
    public static let citus = PostgresEngine(code: .citus)
    /// CockroachDB: its own engine behind PostgreSQL's protocol, SERIALIZABLE by default.
    public static let cockroachDB = PostgresEngine(code: .cockroachdb)
    /// YugabyteDB's YSQL: PostgreSQL's query layer over a distributed store.
    public static let yugabyteDB = PostgresEngine(code: .yugabytedb)

    /// The name the URL's `engine` parameter takes: `postgres`, `citus`, `cockroachdb` or `yugabytedb`.
    public var description: String { code.rawValue }

    /// The engine the URL's `engine` parameter names, or nil for any other text.
    ///
    /// - Parameter name: `postgres`, `citus`, `cockroachdb` or `yugabytedb`.
    public init?(name: String) {
        guard let code = Code(rawValue: name) else { return nil }
        self.code = code
    }

    private init(code: Code) { self.code = code }

    /// The engine a server reports: its `version()` text and its `citus.version` setting (nil when unset).
    ///
    /// - Parameters:
    ///   - version: what `SELECT version()` returned.
    ///   - citusVersion: what `current_setting('citus.version', true)` returned.
    public init(version: String, citusVersion: String?) {
        if version.hasPrefix("CockroachDB") {
            code = .cockroachdb
        } else if version.contains("-YB-") {
            code = .yugabytedb
        } else if let citusVersion, !citusVersion.isEmpty {
            code = .citus
        } else {
            code = .postgres
        }
    }

    /// Whether `pg_advisory_xact_lock` exists; false on CockroachDB, where a migration step holds a lease row in
    /// `strata_migration_lock` instead.
    public var hasAdvisoryLocks: Bool { code != .cockroachdb }

    /// Whether a transaction may create a temporary table; false on CockroachDB (experimental and off by
    /// default there), where a large `insertAll` takes multi-row INSERTs instead of a COPY staging table.
    public var hasTemporaryTables: Bool { code != .cockroachdb }

    /// Whether the transaction entries without a `retry:` argument retry a serialization failure by default
    /// (``defaultRetry``); true on CockroachDB, whose every transaction is SERIALIZABLE.
    public var retriesSerializationFailures: Bool { code == .cockroachdb }

    /// The retry policy of the transaction entries that are given none: 5 attempts on CockroachDB
    /// (5 ms, doubling up to 500 ms between them), ``RetryPolicy/never`` elsewhere.
    public var defaultRetry: RetryPolicy { retriesSerializationFailures ? .attempts(5) : .never }

    /// Whether `LISTEN`/`NOTIFY` exist; false on CockroachDB and YugabyteDB (early access only from v2025.2.3):
    /// no change trigger is installed and no `LISTEN` is sent, so observation hears this `Database`'s own
    /// commits only.
    public var hasListenNotify: Bool { code != .cockroachdb && code != .yugabytedb }

    /// Whether a transaction may hold one DDL statement only; true on CockroachDB, where each DDL statement of a
    /// migration commits the transaction it runs in and a new one begins (the dialect's `transactionalDDL` is
    /// false, so a failed versioned step undoes the DDL that ran before it, as on MariaDB).
    public var commitsEachDDL: Bool { code == .cockroachdb }

    /// Whether an upsert's conflict target must include the table's distribution column; true on Citus, where
    /// the column is read from `citus_tables` and an upsert without it is refused before it is sent.
    public var conflictTargetNeedsDistributionColumn: Bool { code == .citus }
}
