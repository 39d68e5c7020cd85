// Database+CallerLogger: the statements of a task's calls logged to the caller's logger (a request's, with its id).
import Logging
import Synchronization

extension Database {
    /// The logger bound by ``withLogger(_:isolation:operation:)`` for the calling task; nil outside one.
    @TaskLocal static var callerLogger: Logger?

    /// Set once any task has entered ``withLogger(_:isolation:operation:)``: until then a call reads one atomic flag,
    /// not the task-local, so an app that never binds a logger pays nothing for the feature.
    private static let callerLoggersUsed = Atomic<Bool>(false)

    /// Runs `operation` with `logger` as the logger of every database call it makes (and its child tasks make):
    /// their statement lines, slow-statement warnings and failures go to `logger`, with its metadata (a request
    /// id, say) and `db.system`, instead of to ``Configuration/logger``.
    ///
    /// `logger`'s level decides what is logged, as ``Configuration/logger``'s does: statements at `.debug`,
    /// transaction control at `.trace`, a statement slower than ``Configuration/slowStatementThreshold`` at
    /// `.warning`. Bound values are shown only with ``Configuration/logBoundValues``; metrics are unchanged.
    /// Pool and connection events still go to the database's logger.
    ///
    /// In a Hummingbird 2 app, one middleware gives every request's statements its `hb.request.id`:
    ///
    /// ```swift
    /// struct DatabaseLoggerMiddleware<Context: RequestContext>: RouterMiddleware {
    ///     func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
    ///         async throws -> Response
    ///     {
    ///         try await Database.withLogger(context.logger) { try await next(request, context) }
    ///     }
    /// }
    /// ```
    ///
    /// In a Vapor 4 app, the same with `req.logger` (it carries `request-id`):
    ///
    /// ```swift
    /// struct DatabaseLoggerMiddleware: AsyncMiddleware {
    ///     func respond(to req: Request, chainingTo next: any AsyncResponder) async throws -> Response {
    ///         try await Database.withLogger(req.logger) { try await next.respond(to: req) }
    ///     }
    /// }
    /// ```
    ///
    /// A task started with `Task.detached` does not inherit the logger; an unstructured `Task { }` does.
    public static func withLogger<T>(
        _ logger: Logger, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> T
    ) async rethrows -> T {
        callerLoggersUsed.store(true, ordering: .relaxed)
        return try await $callerLogger.withValue(logger, operation: operation, isolation: isolation)
    }

    /// The observer for a call the current task starts now: one logging to its ``withLogger(_:isolation:operation:)``
    /// logger, or nil (the database's own) outside one. Read in the caller's task, before the call leaves it.
    ///
    /// Also nil when neither would report anything (the caller's logger above `.debug`, no threshold, no metrics), so
    /// that a request logger at `.info` keeps calls on the fast path with nothing allocated.
    var callerObserver: StatementObserver? {
        guard Self.callerLoggersUsed.load(ordering: .relaxed), let logger = Self.callerLogger else { return nil }
        let base = (owner ?? self).observer
        guard base.isActive || logger.logLevel <= .debug else { return nil }
        return StatementObserver(base, logger: logger)
    }

    /// Whether the current task's ``withLogger(_:isolation:operation:)`` logger logs statements (is at `.debug` or
    /// below).
    static var callerLogsStatements: Bool {
        guard callerLoggersUsed.load(ordering: .relaxed), let logger = callerLogger else { return false }
        return logger.logLevel <= .debug
    }
}
