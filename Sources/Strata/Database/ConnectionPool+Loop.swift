// ConnectionPool+Loop: single reads handed to the pool's statement loop with the next free connection.

extension ConnectionPool {
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
    /// - Throws: what ``acquire()`` throws, the statement's errors, and what `prepare`, `alone` or `onRow` throw.
    nonisolated(nonsending) func runOnLoop(
        _ loop: any StatementLoop, prepare: () throws -> any LoopStatement, alone: (Lease) throws -> Int,
        onRow: (any RowReader) throws -> Void
    ) async throws -> Int {
        var prepared: (any LoopStatement)?
        var deadline: ContinuousClock.Instant?
        while true {
            let lease: Lease
            switch nextStep() {
            case .closed: throw StrataError.connectionFailed("the database is closed")
            case .use(let idle, let isAlone):
                guard idle.connection.isUsable else {
                    discardDead(idle)
                    continue
                }
                if isAlone {
                    defer { release(idle) }
                    return try alone(idle)
                }
                lease = idle
            case .connect(let isAlone):
                do {
                    lease = try await connect(alone: isAlone)
                } catch {
                    connectFailed()
                    throw error
                }
                if isAlone {
                    defer { release(lease) }
                    return try alone(lease)
                }
            case .wait:
                let statement = try prepared ?? prepare()
                prepared = statement
                let until = deadline ?? timeout.deadline
                deadline = until
                let outcome = try await queue(until: until, retry: LoopOutcome.again) { c in
                    .statement(QueuedStatement(statement: statement, loop: loop, pool: self, continuation: c))
                }
                if case .answered(let answer) = outcome { return try answer.read(onRow) }
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
            let outcome = await withUnsafeContinuation { (c: UnsafeContinuation<LoopOutcome, Never>) in
                loop.start(statement, on: LoopConnection(connection: lease.connection)) { outcome in
                    self.release(lease)
                    c.resume(returning: outcome)
                }
            }
            if case .answered(let answer) = outcome { return try answer.read(onRow) }
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

    init(
        statement: any LoopStatement, loop: any StatementLoop, pool: ConnectionPool,
        continuation: UnsafeContinuation<LoopOutcome, any Error>
    ) {
        self.statement = statement
        self.loop = loop
        self.pool = pool
        self.continuation = continuation
    }

    /// Starts the statement on `lease` (the pool counts it in use), or has the task try again when there is none.
    func handed(_ lease: Lease?) {
        guard let lease else {
            continuation.resume(returning: .again)
            return
        }
        let pool = self.pool
        let continuation = self.continuation
        loop.start(statement, on: LoopConnection(connection: lease.connection)) { outcome in
            pool.release(lease)
            continuation.resume(returning: outcome)
        }
    }
}
