// SQLiteChangeListener: reads PRAGMA data_version at an interval, so observers hear other processes' commits.
import CSQLite
import Dispatch
import Foundation
import Strata
import Synchronization

/// Reads `PRAGMA data_version` every `interval` seconds on a connection and thread of its own, while anything
/// is observed, and reports a change when another connection has committed to the file since the last read.
///
/// SQLite does not say which tables a commit wrote, so a change is reported as nil: every observer looks again.
/// `data_version` moves on a commit by any other connection, this process's pooled ones included (whose commits
/// the database has announced already), so a process that writes while it observes may fetch an observed query
/// once more per interval than it needs. Nothing is read faster than the interval.
final class SQLiteChangeListener: ChangeListener {
    private struct State {
        var stopped = false
        var ready = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Signalled by ``stop()``: the thread waits on it between reads, so it ends at once, not at the next tick.
    private let stopSignal = DispatchSemaphore(value: 0)
    private let path: String
    private let interval: Double
    private let timeout: Double
    private let onChange: @Sendable (Set<String>?) -> Void

    init(path: String, interval: Double, timeout: Double, onChange: @escaping @Sendable (Set<String>?) -> Void) {
        self.path = path
        self.interval = interval
        self.timeout = timeout
        self.onChange = onChange
        let thread = Thread { [self] in run() }
        thread.name = "strata data_version"
        thread.start()
    }

    func ready() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.ready || s.stopped { return true }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    func stop() {
        let waiters = state.withLock { s in
            s.stopped = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
        stopSignal.signal()
    }

    /// Marks the first version read (or given up on), and wakes whoever waits for it.
    private func setReady() {
        let waiters = state.withLock { s in
            s.ready = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The thread's loop: open the connection, read the version, compare it with the last one, wait.
    private func run() {
        var reader: VersionReader?
        var last: Int64?
        var failures = 0
        defer { reader?.close() }
        while !state.withLock({ $0.stopped }) {
            if reader == nil { reader = VersionReader(path: path, timeout: timeout) }
            if let version = reader?.read() {
                if let last, version != last { onChange(nil) }
                last = version
                failures = 0
                setReady()
            } else {
                // Busy past the timeout, or the file is gone: try again next time; after 3 misses, do not hold
                // observers back (their first fetch still runs).
                failures += 1
                if failures == 3 { setReady() }
            }
            if stopSignal.wait(timeout: .now() + .nanoseconds(Int(interval * 1e9))) == .success { break }
        }
    }
}

/// A read-only use of one connection: its prepared `PRAGMA data_version`.
private struct VersionReader {
    let handle: OpaquePointer
    let statement: OpaquePointer

    init?(path: String, timeout: Double) {
        var db: OpaquePointer?
        // The listener only reads, but a WAL file's reader needs to write the shared-memory index: READWRITE.
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db
        else {
            if let db { sqlite3_close_v2(db) }
            return nil
        }
        sqlite3_busy_timeout(db, Int32(max(0, timeout) * 1000))
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &stmt, nil) == SQLITE_OK, let stmt else {
            sqlite3_close_v2(db)
            return nil
        }
        handle = db
        statement = stmt
    }

    /// The file's data version as this connection sees it, or nil when the read failed.
    func read() -> Int64? {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }

    func close() {
        sqlite3_finalize(statement)
        sqlite3_close_v2(handle)
    }
}
