// ConnectionPool+Loop: single reads handed to the pool's statement loop with the next free connection.

extension ConnectionPool {
    /// Runs a lone statement on the caller's thread (``InlineCalls/enter()`` said it may) and gives `lease` back.
    nonisolated(nonsending) private func runInline(_ lease: Lease, _ alone: (Lease) throws -> Int) async throws -> Int {
        let changed: Int
        do {
            defer { InlineCalls.leave() }
            changed = try alone(lease)
        } catch {
            release(lease)
            throw error
        }
        await releaseInline(lease)
        return changed
    }

    /// Runs one read on the pool's ``StatementLoop``, or on the caller's thread when it is the only call in flight.
    ///
    /// A free connection goes to the loop with the statement at once; otherwise the statement queues as a waiter
    /// (first come, first served with every other waiter, with the pool's timeout and cancellation) and the
    /// connection that frees up next is handed to the loop with it, on whichever thread releases it: the caller's
    /// task only wakes when the answer is in.
    ///
    /// - Parameters:
    ///   - prepare: renders the statement for the loop; called once, only when the loop will run it.
    ///   - alone: runs the statement the ordinary way on a connection no other call shares the pool with.
    ///   - onRow: receives the rows, on the caller's thread.
    ///   - observer: times, counts and reports the statement (metrics, slow-statement warnings), when set; a
    ///     statement then takes from its hand-over to the loop until its rows are read (a wait for a connection
    ///     before that is not counted, as on the ordinary path).
    ///   - describe: the statement's SQL and binds, for `observer`'s log lines.
    /// - Throws: what ``acquire()`` throws, the statement's errors, and what `prepare`, `alone` or `onRow` throw.
    nonisolated(nonsending) func runOnLoop(
        _ loop: any StatementLoop, prepare: () throws -> any LoopStatement, alone: (Lease) throws -> Int,
        onRow: (any RowReader) throws -> Void, observer: StatementObserver? = nil,
        describe: () -> (sql: String, binds: [DatabaseValue]) = { ("", []) }
    ) async throws -> Int {
        // A free connection and no other call in flight, unwatched: the statement runs here, on the caller's thread,
        // without entering the loop's path below, whose async frame holds about 27 task allocations (its locals and
        // closures; about 2,000 instructions a one-shot lookup).
        guard !watched, !loop.takesLoneCalls else {
            return try await runOnLoop(
                loop, first: nil, prepare: prepare, alone: alone, onRow: onRow, observer: observer, describe: describe)
        }
        let first = try checkout()
        guard case .use(let lease, alone: true) = first, InlineCalls.enter() else {
            return try await runOnLoop(
                loop, first: first, prepare: prepare, alone: alone, onRow: onRow, observer: observer,
                describe: describe)
        }
        let changed: Int
        do {
            defer { InlineCalls.leave() }
            changed = try alone(lease)
        } catch {
            release(lease)
            throw error
        }
        // releaseInline(_:), written out: one async call (a task allocation) less per call.
        release(lease)
        if InlineCalls.yieldDue() { await Task.yield() }
        return changed
    }

    /// ``runOnLoop(_:prepare:alone:onRow:observer:describe:)`` past its lone fast path; `first`: what the caller's
    /// ``checkout()`` gave, not yet acted on (nil: none was made).
    nonisolated(nonsending) private func runOnLoop(
        _ loop: any StatementLoop, first: Checkout?, prepare: () throws -> any LoopStatement,
        alone: (Lease) throws -> Int, onRow: (any RowReader) throws -> Void, observer: StatementObserver?,
        describe: () -> (sql: String, binds: [DatabaseValue])
    ) async throws -> Int {
        // Timed: a pool wait (as acquire() records it), and the statement for `observer`.
        let waitStart: PoolInstant? = watched ? .now : nil
        var waitNoted = false
        func noteWait(until leased: PoolInstant, queued: Bool) {
            guard let waitStart, !waitNoted else { return }
            waitNoted = true
            noteLease(waitedNanoseconds: leased.nanoseconds(since: waitStart), queued: queued)
        }
        func read(_ outcome: LoopOutcome) throws -> Int? {
            switch outcome {
            case .again: return nil
            case .answered(let answer): return try answer.read(onRow)
            case .timed(let answer, let handedOver, let answered):
                noteWait(until: handedOver, queued: true)  // a queued statement's lease came with its hand-over
                guard let observer else { return try answer.read(onRow) }
                return try observer.run(
                    .select, elapsedNanoseconds: answered.nanoseconds(since: handedOver), describe: describe,
                    onRow: onRow
                ) {
                    try answer.read($0)
                }
            }
        }
        let timed = observer != nil || watched
        var prepared: (any LoopStatement)?
        var deadline: PoolInstant?
        var pending = first
        while true {
            let lease: Lease
            let checkedOut = try pending ?? checkout()
            pending = nil
            switch checkedOut {
            case .use(let idle, let isAlone):
                if waitStart != nil { noteWait(until: .now, queued: false) }
                if isAlone && !loop.takesLoneCalls && InlineCalls.enter() { return try await runInline(idle, alone) }
                lease = idle
            case .open(let isAlone):
                lease = try await connect(alone: isAlone)
                if waitStart != nil { noteWait(until: .now, queued: false) }
                if isAlone && !loop.takesLoneCalls && InlineCalls.enter() { return try await runInline(lease, alone) }
            case .wait:
                let statement = try prepared ?? prepare()
                prepared = statement
                let until = deadline ?? timeout.deadline
                deadline = until
                let outcome = try await queue(until: until, retry: LoopOutcome.again) { c in
                    .statement(
                        QueuedStatement(statement: statement, loop: loop, pool: self, continuation: c, timed: timed))
                }
                if let changed = try read(outcome) { return changed }
                continue
            }
            let statement: any LoopStatement
            do {
                statement = try prepared ?? prepare()
            } catch {
                release(lease)
                throw error
            }
            prepared = statement
            // Throwing only in type, as the queued path's continuation is (a reply holds either, without a closure).
            let outcome = try await withUnsafeThrowingContinuation { (c: UnsafeContinuation<LoopOutcome, any Error>) in
                loop.start(
                    statement, reply: LoopReply(continuation: c, timed: timed),
                    lease: LoopLease(pool: self, lease: lease))
            }
            if let changed = try read(outcome) { return changed }
        }
    }
}

/// A read queued for a connection: when the pool hands it one, the statement goes to the loop on that connection,
/// and the waiting task resumes with the answer.
final class QueuedStatement: Sendable {
    let statement: any LoopStatement
    let loop: any StatementLoop
    let pool: ConnectionPool
    let continuation: UnsafeContinuation<LoopOutcome, any Error>
    /// Whether the statement is timed from its hand-over (see ``LoopReply``).
    let timed: Bool

    init(
        statement: any LoopStatement, loop: any StatementLoop, pool: ConnectionPool,
        continuation: UnsafeContinuation<LoopOutcome, any Error>, timed: Bool
    ) {
        self.statement = statement
        self.loop = loop
        self.pool = pool
        self.continuation = continuation
        self.timed = timed
    }

    /// Starts the statement on `lease` (the pool counts it in use), or has the task try again when there is none.
    func handed(_ lease: Lease?) {
        guard let lease else {
            continuation.resume(returning: .again)
            return
        }
        loop.start(statement, reply: reply, lease: LoopLease(pool: pool, lease: lease))
    }

    /// Resumes the waiting task with the statement's outcome (made as the statement is handed over: its time starts).
    var reply: LoopReply { LoopReply(continuation: continuation, timed: timed) }
}

/// A connection lent to a ``StatementLoop`` by the pool, until the loop gives it back with ``release()``.
///
/// `@unchecked Sendable`: the pool hands a connection to one holder at a time; the loop is its only user between
/// ``StatementLoop/start(_:reply:lease:)`` and ``release()``, which it calls once.
package final class LoopLease: @unchecked Sendable {
    private let pool: ConnectionPool
    private let lease: Lease

    init(pool: ConnectionPool, lease: Lease) {
        self.pool = pool
        self.lease = lease
    }

    /// The connection the loop sends statements on.
    package var connection: any DatabaseConnection { lease.connection }

    /// The next statement waiting in the pool's queue, taken out of it (``PoolStateMachine/takeStatement()``), for the
    /// loop to send on this connection behind the ones in flight; nil when the queue's head is not a statement.
    package func next() -> (statement: any LoopStatement, reply: LoopReply)? {
        guard let queued = pool.takeQueuedStatement() else { return nil }
        return (queued.statement, queued.reply)
    }

    /// Gives the connection back to the pool (which may hand it to the next waiter at once, on this thread).
    package func release() { pool.release(lease) }
}

/// Where a statement's outcome goes: the task waiting for it.
package struct LoopReply: Sendable {
    let continuation: UnsafeContinuation<LoopOutcome, any Error>
    /// When the statement was handed to the loop, for a timed one (an observed database's); nil: not timed, no clock
    /// read.
    let handedOver: PoolInstant?

    init(continuation: UnsafeContinuation<LoopOutcome, any Error>, timed: Bool) {
        self.continuation = continuation
        handedOver = timed ? .now : nil
    }

    /// Resumes the task with `outcome` (a timed statement's answer as ``LoopOutcome/timed(_:handedOver:answered:)``); called once.
    package func callAsFunction(_ outcome: LoopOutcome) {
        guard let handedOver, case .answered(let answer) = outcome else {
            return continuation.resume(returning: outcome)
        }
        continuation.resume(returning: .timed(answer, handedOver: handedOver, answered: .now))
    }
}
