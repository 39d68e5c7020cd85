// PostgresLoopThread: one thread of the statement loop, sending statements on its connections and polling them all.
import CPostgres
import Foundation
import Strata
import Synchronization

/// One thread of a ``PostgresStatementLoop``: it sends the statements of its connections, waits on all their sockets
/// in one `poll`, and reads each answer as it comes, the way one `pgbench -j` thread drives its clients.
///
/// While statements queue for a connection (every connection of the pool is busy), it pipelines them in groups: up
/// to ``groupLimit`` statements sent in one write and closed by one Sync, so the server reads them in one go, runs
/// them in one implicit transaction (under READ COMMITTED each still takes its own snapshot; they are single reads)
/// and answers them in one write, and up to ``pipelineDepth`` in flight on one connection. That is most of the
/// server's and the client's cost of a point lookup saved: one system call and one wake-up on each side per group
/// instead of per statement. An error in one statement fails it alone: the server skips the rest of its group, which
/// the loop sends again (``PostgresLoopCounters/resent``). A freed connection takes the next queued statements on
/// this thread at once. Raw SQL (``PostgresLoopStatement/solo``) is pipelined too, but in a group of its own.
///
/// It starts with the first statement and ends after ``idleLimit`` with nothing to do (or at ``stop()``), so an idle
/// pool holds no thread.
///
/// `@unchecked Sendable`: `inbox`, `polling`, `running`, `stopped` and `launches` are read and written only while
/// `lock` is held; `active` and the connections in it only on the loop's thread.
final class PostgresLoopThread: @unchecked Sendable {
    private let lock = NSLock()
    private var inbox: [Job] = []
    /// Whether the loop is (about to be) asleep in `poll`, so that a new job must wake it.
    private var polling = false
    private var running = false
    private var stopped = false
    /// How many times the thread was started.
    private var launches = 0
    /// A pipe whose read end is in every `poll`: a byte written wakes the loop.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// How long the thread waits with nothing to do before it ends.
    static let idleLimit: Int32 = 200

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// What ``PostgresStatementLoop/start(_:reply:lease:)`` hands over: a statement, its reply, the lent connection.
    struct Job {
        let statement: PostgresLoopStatement
        let reply: LoopReply
        let lease: LoopLease
        let connection: PostgresConnection
    }

    /// At most this many statements in flight on one connection (with `prepare=off`, for a pooler: one).
    static let pipelineDepth = 8
    /// At most this many statements in one group: sent in one write, run by the server in one implicit transaction,
    /// answered in one write at its Sync.
    static let groupLimit = 8

    /// Queues `job`, starting the thread or waking it as needed.
    func start(_ job: Job) {
        lock.lock()
        inbox.append(job)
        let wake = polling
        polling = false
        let launch = !running
        running = true
        if launch { launches += 1 }
        lock.unlock()
        if launch {
            let thread = Thread { [self] in run() }
            thread.name = "strata postgres loop"
            thread.stackSize = 1 << 20
            thread.start()
        } else if wake {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    /// How many times the thread was started, and whether it runs now (for tests of the idle limit).
    var activity: (launches: Int, running: Bool) {
        lock.lock()
        defer { lock.unlock() }
        return (launches, running)
    }

    func stop() {
        lock.lock()
        stopped = true
        let wake = polling
        lock.unlock()
        if wake {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The loop's thread

    /// A statement in flight.
    ///
    /// ``Entry`` and ``Pipe`` live on the loop's thread alone, and each access to their state is one expression, never
    /// left open across a call that could reach it again: unchecked for exclusivity (the dynamic check cost about 16
    /// accesses and 900 instructions a statement).
    private final class Entry {
        let statement: PostgresLoopStatement
        let reply: LoopReply
        /// When the server must have answered; set once the statement is the oldest in flight on its connection
        /// (the server runs a connection's statements one after another, so a later one's time starts then).
        @exclusivity(unchecked) var deadline: PoolInstant?
        /// The statement's name while its PREPARE is in flight ahead of it.
        @exclusivity(unchecked) var preparing: String?
        @exclusivity(unchecked) var results = PostgresResults()
        @exclusivity(unchecked) var changed = 0
        @exclusivity(unchecked) var failure: PostgresFailure?
        /// The PREPARE's failure, which is the statement's error (the statement itself then fails for want of it).
        @exclusivity(unchecked) var prepareFailure: PostgresFailure?
        /// Whether it was sent again after a stale cached plan.
        @exclusivity(unchecked) var replanned = false
        /// Whether a Sync follows it (the last statement of its group).
        @exclusivity(unchecked) var endsGroup = false
        /// Whether the command being read (its PREPARE, then the statement) has reported a result yet.
        @exclusivity(unchecked) var reported = false
        /// Whether the server skipped the command for an earlier error in the group.
        @exclusivity(unchecked) var aborted = false
        /// Whether its results are in and the group's Sync is next.
        @exclusivity(unchecked) var awaitingSync = false

        init(_ statement: PostgresLoopStatement, reply: LoopReply) {
            self.statement = statement
            self.reply = reply
        }
    }

    /// A lent connection and the statements in flight on it, oldest first.
    private final class Pipe {
        let connection: PostgresConnection
        let lease: LoopLease
        @exclusivity(unchecked) var entries: [Entry] = []
        /// The limit on ``entries``: ``pipelineDepth``, or 1 for unnamed statements (a pooler in front).
        let depth: Int
        /// The limit on the statements of one group (sent together under one Sync): ``groupLimit``, or 1.
        let groupLimit: Int

        init(connection: PostgresConnection, lease: LoopLease) {
            self.connection = connection
            self.lease = lease
            let named = connection.usesNamedStatements
            depth = named ? PostgresLoopThread.pipelineDepth : 1
            groupLimit = named ? PostgresLoopThread.groupLimit : 1
        }
    }

    /// What a pass of the loop finished: replies to send, and connections to give back first.
    private struct Finished {
        var replies: [(LoopReply, LoopOutcome)] = []
        var released: [LoopLease] = []

        /// Gives the connections back (so that the next waiters get them at once), then resumes the tasks.
        mutating func deliver() {
            for lease in released { lease.release() }
            for (reply, outcome) in replies { reply(outcome) }
            released.removeAll(keepingCapacity: true)
            replies.removeAll(keepingCapacity: true)
        }
    }

    private func run() {
        var pipes: [Pipe] = []
        var jobs: [Job] = []
        var fds: [pollfd] = []
        var finished = Finished()
        // The pipes kept after a pass, swapped with `pipes`: no array is made per pass.
        var kept: [Pipe] = []
        var idleSince: PoolInstant?
        while true {
            lock.lock()
            polling = false
            swap(&jobs, &inbox)
            if jobs.isEmpty && pipes.isEmpty {
                let now = PoolInstant.now
                let since = idleSince ?? now
                idleSince = since
                if stopped || now.nanoseconds(since: since) >= Int64(Self.idleLimit) * 1_000_000 {
                    running = false
                    lock.unlock()
                    return
                }
            }
            if !jobs.isEmpty {
                lock.unlock()
                idleSince = nil
                for job in jobs { open(job, into: &pipes, finished: &finished) }
                jobs.removeAll(keepingCapacity: true)
                finished.deliver()
                continue
            }
            polling = true
            lock.unlock()

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for pipe in pipes {
                fds.append(pollfd(fd: PQsocket(pipe.connection.handle), events: Int16(POLLIN), revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), timeout(pipes))
            if n < 0 && errno != EINTR { Thread.sleep(forTimeInterval: 0.001) }  // never spin on a persistent error
            if fds[0].revents != 0 {
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { drain in
                    while read(wakeRead, drain.baseAddress, drain.count) > 0 {}
                }
            }
            let now = PoolInstant.now
            for (i, pipe) in pipes.enumerated() {
                if n > 0 && fds[i + 1].revents != 0 { receive(pipe, finished: &finished) }
                if let first = pipe.entries.first?.deadline, first <= now, !pipe.entries.isEmpty {
                    fail(pipe, with: timedOut(pipe.connection), finished: &finished)
                }
                if keep(pipe, finished: &finished) { kept.append(pipe) }
            }
            swap(&pipes, &kept)
            kept.removeAll(keepingCapacity: true)  // holds no pipe given up: its connection may close
            finished.deliver()
        }
    }

    /// Milliseconds `poll` may sleep: until the nearest deadline, or the idle limit with nothing in flight.
    private func timeout(_ pipes: [Pipe]) -> Int32 {
        guard !pipes.isEmpty else { return Self.idleLimit }
        guard let nearest = pipes.lazy.compactMap({ $0.entries.first?.deadline }).min() else { return -1 }
        let milliseconds = nearest.nanoseconds(since: .now) / 1_000_000
        return Int32(clamping: max(0, min(milliseconds, 60_000) + 1))
    }

    /// Starts a lent connection's first statement (a connection the loop already holds never comes back here).
    private func open(_ job: Job, into pipes: inout [Pipe], finished: inout Finished) {
        let pipe = Pipe(connection: job.connection, lease: job.lease)
        let handle = pipe.connection.handle
        guard !pipe.connection.isBroken, PQstatus(handle) == CONNECTION_OK else {
            pipe.connection.isBroken = true
            finished.replies.append(
                (
                    job.reply,
                    .answered(PostgresLoopAnswer(error: .connectionLost("the connection to the server is closed")))
                ))
            finished.released.append(job.lease)
            return
        }
        // Room for new prepared statements: DEALLOCATE cannot run in pipeline mode, where a full cache sends unnamed.
        _ = pipe.connection.checkSchemaEpoch()
        if pipe.connection.cacheIsFull { pipe.connection.evictAll() }
        guard PQenterPipelineMode(handle) == 1 else {
            finished.replies.append((job.reply, .answered(PostgresLoopAnswer(error: lost(pipe.connection)))))
            finished.released.append(job.lease)
            return
        }
        send(Entry(job.statement, reply: job.reply), on: pipe, endsGroup: true, finished: &finished)
        if keep(pipe, finished: &finished) { pipes.append(pipe) }
    }

    /// Tops the pipe up from the pool's queue, the statements waiting now sent as one group; when nothing is left in
    /// flight, leaves pipeline mode and gives the connection back. Returns whether the loop keeps the pipe.
    private func keep(_ pipe: Pipe, finished: inout Finished) -> Bool {
        var group: [Entry] = []
        while pipe.entries.count < pipe.depth, !pipe.connection.isBroken {
            while pipe.entries.count + group.count < pipe.depth, group.count < pipe.groupLimit,
                let (statement, reply) = pipe.lease.next()
            {
                guard let statement = statement as? PostgresLoopStatement else {
                    finished.replies.append(
                        (reply, .answered(PostgresLoopAnswer(error: .connectionFailed("not a PostgreSQL statement")))))
                    continue
                }
                group.append(Entry(statement, reply: reply))
            }
            if group.isEmpty { break }
            for (i, entry) in group.enumerated() {
                // A solo statement (raw SQL) has a Sync of its own: the one before it ends its group, and it ends its.
                let last = i == group.count - 1 || entry.statement.solo || group[i + 1].statement.solo
                send(entry, on: pipe, endsGroup: last, finished: &finished)
            }
            group.removeAll(keepingCapacity: true)
        }
        startClock(pipe)
        guard pipe.entries.isEmpty else { return true }
        if !pipe.connection.isBroken && PQexitPipelineMode(pipe.connection.handle) != 1 {
            pipe.connection.isBroken = true  // the ordinary path cannot use it in pipeline mode: the pool drops it
        }
        finished.released.append(pipe.lease)
        return false
    }

    /// Sends an entry's statement (its PREPARE first when the connection has not prepared it) at the end of the pipe;
    /// `endsGroup`: a Sync follows, which ends the group's implicit transaction and flushes what libpq holds.
    private func send(_ entry: Entry, on pipe: Pipe, endsGroup: Bool, finished: inout Finished) {
        PostgresLoopCounters.statements.add(1, ordering: .relaxed)
        if !pipe.entries.isEmpty { PostgresLoopCounters.pipelined.add(1, ordering: .relaxed) }
        let connection = pipe.connection
        let handle = connection.handle
        let statement = entry.statement
        entry.deadline = nil
        entry.endsGroup = endsGroup
        let key = statement.key
        var sent: Int32 = 1
        var name: String?
        if connection.usesNamedStatements, connection.checkSchemaEpoch() {
            // One lookup of the key (hashed and compared once), where two asked the same.
            name = connection.cache[key]
        }
        if connection.usesNamedStatements, name != nil || !connection.cacheIsFull {
            if name == nil {
                let fresh = connection.newStatementName()
                sent = connection.sendPrepare(key, name: fresh)
                entry.preparing = fresh
                name = fresh
            }
        }
        if sent == 1 { sent = connection.sendStatement(key, binds: statement.binds, name: name) }
        if sent == 1 && endsGroup {
            PostgresLoopCounters.groups.add(1, ordering: .relaxed)
            sent = PQpipelineSync(handle)
        }
        pipe.entries.append(entry)
        if sent != 1 { fail(pipe, with: lost(connection), finished: &finished) }
    }

    /// Starts the clock of the oldest statement in flight, once: the server runs its group's statements one after
    /// another before it answers any (it flushes at the Sync), so it has a call's time for each of them.
    private func startClock(_ pipe: Pipe) {
        guard let first = pipe.entries.first, first.deadline == nil, let limit = pipe.connection.callTimeout else {
            return
        }
        var statements = 0
        for entry in pipe.entries {
            statements += 1
            if entry.endsGroup { break }
        }
        let (total, overflow) = limit.nanoseconds.multipliedReportingOverflow(by: Int64(statements))
        first.deadline = PoolInstant.now.adding(nanoseconds: overflow ? .max : total)
    }

    /// Reads what arrived on a pipe and finishes each statement whose answer is whole, in order.
    ///
    /// libpq reports each command (a PREPARE, a statement) as its results and then one nil, and a Sync as one
    /// `PGRES_PIPELINE_SYNC` result. After an error the server skips the rest of the group: each of its commands
    /// reports `PGRES_PIPELINE_ABORTED`, and those statements are sent again, as a group of their own.
    private func receive(_ pipe: Pipe, finished: inout Finished) {
        let connection = pipe.connection
        let handle = connection.handle
        if PQconsumeInput(handle) == 0 {
            fail(pipe, with: lost(connection), finished: &finished)
            return
        }
        var idle = false
        while PQisBusy(handle) == 0, let entry = pipe.entries.first {
            guard let result = PQgetResult(handle) else {
                guard entry.reported else {
                    // Not the end of a command that reported: nothing more to read for now.
                    if idle { break }
                    idle = true
                    continue
                }
                idle = false
                entry.reported = false
                if let name = entry.preparing {
                    entry.preparing = nil
                    if let failure = entry.failure {
                        entry.prepareFailure = failure
                        entry.failure = nil
                    } else if !entry.aborted {
                        connection.cache[entry.statement.key] = name
                    }
                    entry.aborted = false  // the statement itself reports next
                    continue
                }
                if entry.endsGroup {
                    entry.awaitingSync = true
                } else {
                    finish(pipe, finished: &finished)
                }
                continue
            }
            idle = false
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_SYNC:
                PQclear(result)
                guard entry.awaitingSync else {
                    // A Sync where none was sent: the answers are out of step, and nothing on this connection can be
                    // trusted (never seen; this ends the statements with an error instead of waiting forever).
                    fail(
                        pipe, with: .connectionLost("the server's answers were out of step with the statements sent"),
                        finished: &finished)
                    return
                }
                finish(pipe, finished: &finished)
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                entry.reported = true
                if entry.preparing != nil || entry.failure != nil {
                    PQclear(result)
                } else {
                    entry.changed = PostgresConnection.changedRows(result)
                    entry.results.append(result)
                }
            case PGRES_PIPELINE_ABORTED:
                entry.reported = true
                entry.aborted = true
                PQclear(result)
            default:
                entry.reported = true
                if entry.failure == nil { entry.failure = PostgresFailure(result: result, connection: handle) }
                PQclear(result)
            }
        }
        if PQstatus(handle) != CONNECTION_OK { fail(pipe, with: lost(connection), finished: &finished) }
    }

    /// Finishes the oldest statement of a pipe, whose answer is whole: its reply, or sent again (after a stale plan,
    /// or when an error in its group kept it from running).
    private func finish(_ pipe: Pipe, finished: inout Finished) {
        let entry = pipe.entries.removeFirst()
        let connection = pipe.connection
        entry.awaitingSync = false
        if entry.prepareFailure == nil, entry.failure == nil, entry.aborted {
            // Skipped for an earlier statement's error in its group: it never ran, so it runs now, alone.
            PostgresLoopCounters.resent.add(1, ordering: .relaxed)
            entry.aborted = false
            entry.results.clear()
            send(entry, on: pipe, endsGroup: true, finished: &finished)
        } else if entry.prepareFailure == nil, let failure = entry.failure, failure.isStalePlan, !entry.replanned {
            // A table changed under the cached plan: prepared afresh and sent again on this connection, once,
            // as the ordinary path does (its results so far are dropped: a stale plan fails before any row).
            PostgresLoopCounters.replans.add(1, ordering: .relaxed)
            connection.forgetPrepared(entry.statement.key)
            entry.replanned = true
            entry.failure = nil
            entry.results.clear()
            send(entry, on: pipe, endsGroup: true, finished: &finished)
        } else {
            finished.replies.append((entry.reply, outcome(of: entry, on: connection)))
        }
        startClock(pipe)
    }

    /// A finished statement's outcome.
    private func outcome(of entry: Entry, on connection: PostgresConnection) -> LoopOutcome {
        let shape = entry.statement.shape
        if let failure = entry.prepareFailure ?? entry.failure {
            entry.results.clear()
            // Stale again after a new PREPARE.
            if failure.isStalePlan { connection.forgetPrepared(entry.statement.key) }
            return .answered(PostgresLoopAnswer(error: connection.fail(failure, shape)))
        }
        let answer = PostgresLoopAnswer(results: entry.results, changed: entry.changed)
        entry.results = PostgresResults()  // the answer frees them
        return .answered(answer)
    }

    /// Ends every statement in flight on a pipe with `error`; its connection is broken (the pool drops it).
    private func fail(_ pipe: Pipe, with error: StrataError, finished: inout Finished) {
        pipe.connection.isBroken = true
        for entry in pipe.entries {
            entry.results.clear()
            finished.replies.append((entry.reply, .answered(PostgresLoopAnswer(error: error))))
        }
        pipe.entries.removeAll()
    }

    /// The error for a connection libpq could not send on or read from, which is marked broken.
    private func lost(_ connection: PostgresConnection) -> StrataError {
        connection.isBroken = true
        return .connectionLost(PostgresConnector.tidy(String(cString: PQerrorMessage(connection.handle))))
    }

    /// The error for a statement that outlived its deadline.
    private func timedOut(_ connection: PostgresConnection) -> StrataError {
        let limit = connection.callTimeout.map { "\($0)" } ?? "the deadline"
        return .connectionLost(
            "no answer from the server within \(limit) (statement_timeout plus "
                + "\(PostgresConnectionOptions.answerGrace) ms): it is frozen or the network is down; "
                + "the connection was discarded")
    }
}
