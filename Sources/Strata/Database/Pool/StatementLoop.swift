// StatementLoop: how a driver runs single reads for many tasks from one thread, with no thread per statement.

/// A driver's event loop for single statements: one thread sends statements on many connections and waits on all
/// their sockets at once, so a read from one of many concurrent tasks costs no thread of its own, no thread hop to
/// start it and no wake-up per statement while the connections are busy (see ``Database/read(_:)``'s fast path).
///
/// The core hands it a statement prepared on the caller's thread (``prepare(template:binds:statement:)``) and a
/// leased connection; the loop sends the statement, reads the answer and calls back on its own thread; the caller
/// then reads the rows on its own thread (``LoopAnswer/read(_:)``).
package protocol StatementLoop: AnyObject, Sendable {
    /// The statement rendered (or the template's SQL found) and its values converted, on the caller's thread.
    ///
    /// - Throws: rendering errors and value errors, before anything is sent.
    func prepare(template: StatementTemplate?, binds: [DatabaseValue], statement: () throws -> Statement) throws
        -> any LoopStatement

    /// Raw SQL that reads (a plain `SELECT`, see ``Database/unsafeRawExecute(_:_:)``) made ready for the loop: its `?`
    /// markers rewritten and its values converted, on the caller's thread.
    /// The loop sends it in a group of its own, closed by its own Sync, so that it runs in an implicit transaction of
    /// its own, as it would alone: a function it calls may write.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` when the markers and values differ in number, value errors.
    func prepareRaw(_ sql: String, binds: [DatabaseValue]) throws -> any LoopStatement

    /// Sends `statement` on the lent connection from the loop's thread and calls `reply` there once it is answered
    /// (or failed). The loop may send more statements on the same connection behind it (``LoopLease/next()``) and
    /// gives the connection back with ``LoopLease/release()`` when none is left in flight.
    func start(_ statement: any LoopStatement, reply: LoopReply, lease: LoopLease)

    /// Whether a call alone (no other call of the pool holds a connection) goes through the loop too, rather than
    /// running on the caller's thread.
    var takesLoneCalls: Bool { get }

    /// Lets the loop finish the statements it was given, then end its thread.
    func stop()
}

/// A statement ready for a ``StatementLoop``: driver-specific, opaque to the core. A class, so that handing it along
/// copies a reference (no existential box).
package protocol LoopStatement: AnyObject, Sendable {}

/// A statement's answer, read on the caller's thread (a class, as ``LoopStatement`` is).
package protocol LoopAnswer: AnyObject, Sendable {
    /// Hands the rows to `onRow` and returns the number of rows changed, or throws the statement's error.
    func read(_ onRow: (any RowReader) throws -> Void) throws -> Int
}

/// How a loop's statement ended.
package enum LoopOutcome: Sendable {
    /// The server answered (rows, or an error to throw).
    case answered(any LoopAnswer)
    /// The server answered a timed statement (an observed database's): when it was handed to the loop with a
    /// connection, and when its answer came.
    case timed(any LoopAnswer, handedOver: PoolInstant, answered: PoolInstant)
    /// Nothing ran: the pool freed a slot instead of handing over a connection; the caller tries again.
    case again
}

/// A driver with a ``StatementLoop``; the pool makes one per pool (see ``ConnectionPool``).
package protocol StatementLoopDriver: Driver {
    /// A loop for a pool of `capacity` connections, or nil when the driver's options turn it off.
    func makeStatementLoop(capacity: Int) -> (any StatementLoop)?
}
