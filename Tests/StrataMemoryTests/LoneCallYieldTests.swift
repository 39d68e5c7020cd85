// LoneCallYieldTests: loops of calls that never suspend, one per cooperative thread, still let other tasks run.
import Foundation
import Strata
import StrataMemory
import Synchronization
import Testing

/// A flag one task raises and others poll. Sendable: an atomic.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func raise() { value.store(true, ordering: .releasing) }
    var isRaised: Bool { value.load(ordering: .acquiring) }
}

/// A count tasks bump. Sendable: an atomic.
private final class Count: Sendable {
    private let value = Atomic<Int>(0)
    func add() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

@Suite("Lone calls yield")
struct LoneCallYieldTests {
    @Test(
        "a loop of calls per cooperative thread on the memory driver (none suspends) still lets another task run",
        .timeLimit(.minutes(3)))
    func loopsLetOtherTasksRun() async throws {
        // One looping task per cooperative thread (one per core), each on a memory database of its own: one
        // connection each, so no call waits for a connection, no other connection shares the store (its calls
        // then cannot block, and run on the caller's thread), and no call suspends. Without the yield every 64th such
        // call makes, the loops would hold every cooperative thread until their last call, and this task would not
        // run to stop them: a clean-clone CI run hung so, in the service-lifecycle drain test (a memory and a
        // SQLite database's callers looping, one on each of the 2 cooperative threads).
        let loopers = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let databases = try (0..<loopers).map { _ in try Database.open("memory:", drivers: [.memory]) }
        defer { for db in databases { db.close() } }
        let stop = Flag()
        let calls = Count()
        let bound = 1_000_000  // calls per loop: seconds on this machine, long after this task's next turn
        async let stoppedByTheFlag: [Bool] = withThrowingTaskGroup(of: Bool.self) { group in
            for db in databases {
                group.addTask {
                    for _ in 0..<bound {
                        if stop.isRaised { return true }
                        try await db.withConnection { _ in }
                        calls.add()
                    }
                    return stop.isRaised
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // This task needs a cooperative thread back after each sleep, while the loops run: it stops them once they
        // have made 100 calls. Counted in calls, not seconds, so a busy machine only makes it slower.
        for _ in 0..<24_000 where calls.count < 100 {  // at most 2 minutes of sleeps
            try await Task.sleep(for: .milliseconds(5))
        }
        stop.raise()
        let outcomes = try await stoppedByTheFlag
        #expect(
            outcomes == Array(repeating: true, count: loopers),
            "every loop stopped when this task raised the flag, none after its \(bound) calls: \(outcomes)")
    }
}
