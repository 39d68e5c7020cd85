// StrataMetrics: the metrics one database records through swift-metrics, made once when it opens.
import Metrics
import Synchronization

/// The counters, timers and gauge of one database. Labels and dimensions:
///
/// - `strata_statements_total` and `strata_statement_duration` by `kind` (``StatementKind``) and `driver`;
/// - `strata_errors_total` by `error` (``StrataError/caseName``, or `other`) and `driver`;
/// - `strata_pool_wait_duration` (every lease, zero when a connection was free) and
///   `strata_pool_connections_in_use` (a gauge) by `driver`.
final class StrataMetrics: Sendable {
    /// By ``StatementKind/ordinal``: an index, where a dictionary keyed by the kind hashed its name per statement.
    private let statements: [Counter]
    private let durations: [Metrics.Timer]
    private let factory: any MetricsFactory
    private let driver: String
    private let errors = Mutex<[String: Counter]>([:])
    let poolWait: Metrics.Timer
    let inUse: Gauge

    init(factory: any MetricsFactory, driver: String) {
        self.factory = factory
        self.driver = driver
        let kinds = StatementKind.allCases
        assert(kinds.enumerated().allSatisfy { $0.offset == $0.element.ordinal }, "ordinals follow allCases")
        statements = kinds.map { kind in
            Counter(
                label: "strata_statements_total", dimensions: [("kind", kind.rawValue), ("driver", driver)],
                factory: factory)
        }
        durations = kinds.map { kind in
            Metrics.Timer(
                label: "strata_statement_duration", dimensions: [("kind", kind.rawValue), ("driver", driver)],
                factory: factory)
        }
        poolWait = Metrics.Timer(label: "strata_pool_wait_duration", dimensions: [("driver", driver)], factory: factory)
        inUse = Gauge(label: "strata_pool_connections_in_use", dimensions: [("driver", driver)], factory: factory)
    }

    func record(_ kind: StatementKind, nanoseconds: Int64) {
        statements[kind.ordinal].increment()
        durations[kind.ordinal].recordNanoseconds(nanoseconds)
    }

    func failed(_ error: any Error) {
        let name = (error as? StrataError)?.caseName ?? "other"
        let counter = errors.withLock { made in
            if let counter = made[name] { return counter }
            let counter = Counter(
                label: "strata_errors_total", dimensions: [("error", name), ("driver", driver)], factory: factory)
            made[name] = counter
            return counter
        }
        counter.increment()
    }
}

extension Duration {
    /// Whole nanoseconds, saturating.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : whole &+ attoseconds / 1_000_000_000
    }
}
