// Blocking: runs async Strata calls from libFuzzer's synchronous entry point.
import Dispatch

/// A result box the task fills before it signals; read only after the semaphore is waited on.
private final class Box<T>: @unchecked Sendable {
    // Written once by the task before `done.signal()`, read once after `done.wait()`: the semaphore
    // orders the two accesses, so there is no concurrent access.
    var result: Result<T, any Error>?
}

/// Runs `body` on the concurrency pool and waits for it on the calling (non-cooperative) thread.
public func blocking<T>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let box = Box<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return box.result ?? .failure(CancellationError())
}

/// Stops the fuzzer with a message libFuzzer records as a crash (with the input that caused it).
public func fuzzFailure(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError("FUZZ INVARIANT: \(message)", file: file, line: line)
}
