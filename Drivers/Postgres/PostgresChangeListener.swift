// PostgresChangeListener: LISTEN strata_changes on a connection of its own, reporting other processes' commits.
import CPostgres
import Foundation
import Strata
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The backend process ids of one driver's own connections, so that their commits (which the database
/// announces itself) are not reported again when their NOTIFY comes back.
final class OwnBackends: Sendable {
    private let pids = Mutex<Set<Int32>>([])

    func add(_ pid: Int32) { _ = pids.withLock { $0.insert(pid) } }
    func remove(_ pid: Int32) { _ = pids.withLock { $0.remove(pid) } }
    func contains(_ pid: Int32) -> Bool { pids.withLock { $0.contains(pid) } }
}

/// Listens on a dedicated connection and thread: waits on the socket (never spinning), reads each
/// notification of channel `strata_changes` (its payload is the table's name) and calls `onChange` for those
/// sent by other backends. A lost connection is reopened after a second, until ``stop()``.
final class PostgresChangeListener: ChangeListener {
    static let channel = "strata_changes"

    private struct State {
        var stopped = false
        var listening = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let options: PostgresConnectionOptions
    private let own: OwnBackends
    private let onChange: @Sendable (String) -> Void

    init(options: PostgresConnectionOptions, own: OwnBackends, onChange: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.own = own
        self.onChange = onChange
        let thread = Thread { [self] in run() }
        thread.name = "strata listen"
        thread.start()
    }

    func ready() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.listening || s.stopped { return true }
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
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    /// Marks the subscription active (or given up) and wakes whoever waits for it.
    private func setListening(_ on: Bool) {
        let waiters = state.withLock { s in
            s.listening = on
            defer { if on { s.waiters = [] } }
            return on ? s.waiters : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The thread's loop: connect and LISTEN, wait for notifications, reconnect after a failure.
    private func run() {
        var failures = 0
        while !stopped {
            guard let session = try? PostgresConnector.openSession(options) else {
                failures += 1
                if failures == 3 { setListening(true) }  // do not hold observers back forever; retry on
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            let connection = session.connection
            defer { PQfinish(connection) }
            guard session.engine.hasListenNotify else {  // an engine without LISTEN: never sent, nothing heard
                setListening(true)
                return
            }
            let result = PQexec(connection, "LISTEN " + Self.channel)
            let ok = PQresultStatus(result) == PGRES_COMMAND_OK
            PQclear(result)
            guard ok else {
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            failures = 0
            setListening(true)
            listen(on: connection)
            setListening(false)
        }
    }

    /// Waits on the socket in slices of 100 ms (to notice ``stop()``) until the connection breaks or stops.
    private func listen(on connection: OpaquePointer) {
        let socket = PQsocket(connection)
        guard socket >= 0 else { return }
        while !stopped {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            guard PQconsumeInput(connection) == 1 else { return }
            while let notification = PQnotifies(connection) {
                let pid = notification.pointee.be_pid
                let table = notification.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(notification)
                if !own.contains(pid) && !table.isEmpty { onChange(table) }
            }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }
}
