// BenchMetrics: a swift-metrics backend as cheap as a real one (an atomic add per sample), for `bench --observed`.
import Metrics
import Synchronization

/// Counts and sums every sample with relaxed atomics, as Prometheus-style backends do, and keeps nothing else: what a
/// bootstrapped backend costs the code that records, without the cost of exporting.
final class BenchMetrics: MetricsFactory {
    /// Every sample recorded, across all metrics (read after a run, to check the backend was used).
    let samples = Atomic<Int>(0)

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Handler(self) }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        Handler(self)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Handler(self) }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    private final class Handler: CounterHandler, RecorderHandler, TimerHandler {
        private let owner: BenchMetrics
        private let count = Atomic<Int64>(0)
        private let sum = Atomic<Int64>(0)

        init(_ owner: BenchMetrics) { self.owner = owner }

        private func add(_ value: Int64) {
            count.add(1, ordering: .relaxed)
            sum.wrappingAdd(value, ordering: .relaxed)
            owner.samples.add(1, ordering: .relaxed)
        }

        func increment(by amount: Int64) { add(amount) }
        func reset() {}
        func record(_ value: Int64) { add(value) }
        func record(_ value: Double) { add(Int64(value.rounded())) }
        func recordNanoseconds(_ duration: Int64) { add(duration) }
    }
}
