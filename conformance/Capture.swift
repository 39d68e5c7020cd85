// Capture: a log handler and a metrics factory that keep what they receive, for the observability cases.
import Logging
import Metrics
import Synchronization

/// Log records kept in memory, in the order they were logged.
package final class CapturedLogs: Sendable {
    package struct Record: Sendable {
        package var level: Logger.Level
        package var message: String
        package var metadata: [String: String]
    }

    private let store = Mutex<[Record]>([])

    package init() {}

    package var records: [Record] { store.withLock { $0 } }

    /// A logger at `level` whose records land here.
    package func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "strata.conformance") { _ in CapturingLogHandler(store: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ record: Record) { store.withLock { $0.append(record) } }
}

/// Keeps every record in a ``CapturedLogs``, with metadata flattened to text.
struct CapturingLogHandler: LogHandler {
    let store: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        store.append(
            CapturedLogs.Record(
                level: event.level, message: event.message.description,
                metadata: merged.mapValues { "\($0)" }))
    }
}

/// Metrics kept in memory: counter totals, timer and recorder samples, by label and dimensions.
package final class CapturedMetrics: MetricsFactory {
    private let store = Mutex<[String: [Int64]]>([:])

    package init() {}

    /// The key of a metric: its label, then its dimensions sorted, as `label{a=1,b=2}`.
    package static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        label + "{" + dimensions.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Every sample (counter increments, recorded values, nanoseconds) of one metric.
    package func samples(_ label: String, _ dimensions: [(String, String)]) -> [Int64] {
        store.withLock { $0[Self.key(label, dimensions)] ?? [] }
    }

    /// A counter's total.
    package func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        samples(label, dimensions).reduce(0, +)
    }

    fileprivate func add(_ key: String, _ value: Int64) { store.withLock { $0[key, default: []].append(value) } }

    package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        Sample(self, Self.key(label, dimensions))
    }
    package func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        Sample(self, Self.key(label, dimensions))
    }
    package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        Sample(self, Self.key(label, dimensions))
    }
    package func destroyCounter(_ handler: any CounterHandler) {}
    package func destroyMeter(_ handler: any MeterHandler) {}
    package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    package func destroyRecorder(_ handler: any RecorderHandler) {}
    package func destroyTimer(_ handler: any TimerHandler) {}

    /// One metric's handler: every call appends a sample.
    private final class Sample: CounterHandler, RecorderHandler, TimerHandler {
        let owner: CapturedMetrics
        let key: String
        init(_ owner: CapturedMetrics, _ key: String) {
            self.owner = owner
            self.key = key
        }
        func increment(by amount: Int64) { owner.add(key, amount) }
        func reset() {}
        func record(_ value: Int64) { owner.add(key, value) }
        func record(_ value: Double) { owner.add(key, Int64(value.rounded())) }
        func recordNanoseconds(_ duration: Int64) { owner.add(key, duration) }
    }
}
