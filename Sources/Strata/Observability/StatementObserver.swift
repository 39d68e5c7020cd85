// StatementObserver: logs and measures each statement and connection event of one database, at no cost when off.
import Foundation
import Logging
import Metrics

/// What one database reports about its work, through its configuration's logger and metrics factory.
///
/// When neither the logger's level nor a slow-statement threshold nor a metrics backend asks for anything,
/// ``isActive`` is false and a statement costs one branch more than without it.
final class StatementObserver: Sendable {
    let logger: Logger
    /// Whether every statement is logged (the logger is at `.debug` or below): each then needs its SQL described.
    let logsStatements: Bool
    private let logsTransactionControl: Bool
    private let logBinds: Bool
    /// In nanoseconds.
    private let slowThreshold: Int64?
    let metrics: StrataMetrics?
    /// Whether statements must be timed at all.
    let isActive: Bool
    /// The driver's name, added to every logger's metadata as `db.system`.
    private let driverName: String

    init(configuration: Configuration, driverName: String) {
        var logger = configuration.logger
        logger[metadataKey: "db.system"] = .string(driverName)
        self.logger = logger
        self.driverName = driverName
        logsStatements = logger.logLevel <= .debug
        logsTransactionControl = logger.logLevel <= .trace
        logBinds = configuration.logBoundValues
        slowThreshold = configuration.slowStatementThreshold.flatMap { seconds in
            seconds.isFinite && seconds >= 0 ? Int64(min(seconds, 1e9) * 1e9) : nil
        }
        let factory = configuration.metricsFactory ?? MetricsSystem.factory
        metrics = factory is NOOPMetricsHandler ? nil : StrataMetrics(factory: factory, driver: driverName)
        isActive = logsStatements || slowThreshold != nil || metrics != nil
    }

    /// `base` logging to `logger` instead (a caller's, see ``Database/withLogger(_:operation:)``): the same
    /// threshold, bound-value policy and metrics; `logger`'s level decides which statements are logged.
    init(_ base: StatementObserver, logger: Logger) {
        var logger = logger
        logger[metadataKey: "db.system"] = .string(base.driverName)
        self.logger = logger
        driverName = base.driverName
        logsStatements = logger.logLevel <= .debug
        logsTransactionControl = logger.logLevel <= .trace
        logBinds = base.logBinds
        slowThreshold = base.slowThreshold
        metrics = base.metrics
        isActive = logsStatements || slowThreshold != nil || metrics != nil
    }

    /// Runs one statement through `body`, timing it and counting the rows it hands to `onRow`; then logs it
    /// and records its metrics. `describe` renders its SQL and binds, and runs only when a log needs them.
    ///
    /// `elapsedNanoseconds`: the time the statement took before `body` (the statement loop's, from the statement's
    /// hand-over to its answer, when `body` only reads the rows); its duration is that plus `body`'s.
    ///
    /// The hot paths (``Transaction``'s statements) call ``start(elapsedNanoseconds:)``, ``finished(_:start:returned:changed:describe:)``
    /// and ``failed(_:start:error:describe:)`` themselves, counting rows in the closure they hand the driver: here
    /// `onRow` must be wrapped by `withoutActuallyEscaping`, which allocates.
    func run(
        _ kind: StatementKind, elapsedNanoseconds before: Int64 = 0,
        describe: () -> (sql: String, binds: [DatabaseValue]),
        onRow: (any RowReader) throws -> Void, _ body: ((any RowReader) throws -> Void) throws -> Int
    ) throws -> Int {
        var returned = 0
        let start = start(elapsedNanoseconds: before)
        let changed: Int
        do {
            changed = try withoutActuallyEscaping(onRow) { onRow in
                try body { row in
                    returned &+= 1
                    try onRow(row)
                }
            }
        } catch {
            failed(kind, start: start, error: error, describe: describe)
            throw error
        }
        finished(kind, start: start, returned: returned, changed: changed, describe: describe)
        return changed
    }

    /// When a statement starts, for ``finished(_:start:returned:changed:describe:)`` or
    /// ``failed(_:start:error:describe:)``: `elapsedNanoseconds` earlier than now.
    @inline(__always)
    func start(elapsedNanoseconds before: Int64 = 0) -> Int64 { MonotonicClock.now() &- before }

    /// Records and logs a statement begun at `start` (``start(elapsedNanoseconds:)``) that failed with `error`.
    func failed(
        _ kind: StatementKind, start: Int64, error: any Error, describe: () -> (sql: String, binds: [DatabaseValue])
    ) {
        let elapsed = MonotonicClock.now() &- start
        metrics?.record(kind, nanoseconds: elapsed)
        metrics?.failed(error)
        guard logsStatements else { return }
        var metadata = self.metadata(kind, nanoseconds: elapsed, describe: describe)
        metadata["db.error"] = .string("\(error)")
        logger.debug("statement failed", metadata: metadata)
    }

    /// Records a statement begun at `start` (``start(elapsedNanoseconds:)``) that returned `returned` rows and
    /// changed `changed`, and logs it when the logger's level or the slow threshold asks.
    func finished(
        _ kind: StatementKind, start: Int64, returned: Int, changed: Int,
        describe: () -> (sql: String, binds: [DatabaseValue])
    ) {
        let elapsed = MonotonicClock.now() &- start
        metrics?.record(kind, nanoseconds: elapsed)
        let slow = slowThreshold.map { elapsed >= $0 } ?? false
        let logged = kind == .transaction ? logsTransactionControl : logsStatements
        guard slow || logged else { return }
        var metadata = self.metadata(kind, nanoseconds: elapsed, describe: describe)
        metadata["db.rows_returned"] = .stringConvertible(returned)
        metadata["db.rows_changed"] = .stringConvertible(changed)
        if slow {
            logger.warning("slow statement", metadata: metadata)
        } else if kind == .transaction {
            logger.trace("statement", metadata: metadata)
        } else {
            logger.debug("statement", metadata: metadata)
        }
    }

    /// Counts a failure that happened before a statement reached the driver (a refused value, a closed handle).
    func failedBeforeRunning(_ error: any Error) {
        metrics?.failed(error)
    }

    private func metadata(
        _ kind: StatementKind, nanoseconds: Int64, describe: () -> (sql: String, binds: [DatabaseValue])
    ) -> Logger.Metadata {
        let (sql, binds) = describe()
        let milliseconds = Double(nanoseconds) / 1e6
        var metadata: Logger.Metadata = [
            "db.statement": .string(sql),
            "db.operation": .string(kind.rawValue),
            "db.duration_ms": .string(threeDecimals(milliseconds)),
        ]
        if let tag = QueryTag.leading(sql) { metadata["db.tag"] = .string(tag) }
        if logBinds {
            metadata["db.binds"] = .string(binds.map(Self.show).joined(separator: ", "))
        } else if !binds.isEmpty {
            metadata["db.binds"] = .string("\(binds.count) redacted (set Configuration.logBoundValues to show them)")
        }
        return metadata
    }

    /// A bound value as a log shows it when the user asked for values.
    private static func show(_ value: DatabaseValue) -> String {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        switch value {
        case .null: return "NULL"
        case .bool(let b): return b ? "TRUE" : "FALSE"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .text(let s), .json(let s): return quoted(s)
        case .blob(let d): return "<\(d.count) bytes>"
        case .date(let d): return quoted(DateText.format(d))
        case .decimal(let d): return "\(d)"
        case .uuid(let u): return quoted(u.uuidString)
        }
    }
}

/// A non-negative number with three decimals, without Foundation's formatter.
private func threeDecimals(_ value: Double) -> String {
    let thousandths = Int64((max(0, min(value, 1e12)) * 1000).rounded())
    let fraction = String(thousandths % 1000)
    return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
}
