// DatabaseService: a database as a swift-service-lifecycle service: it closes gracefully when its group shuts down.
import ServiceLifecycle
import Strata

/// A `Database` run by a `ServiceGroup`: on the group's graceful shutdown it refuses new calls, lets the calls in
/// flight end within a grace period, and closes (see `Database.close(gracePeriod:)`).
///
/// ```swift
/// let db = try Database.fromEnvironment(fallback: "sqlite:app.sqlite")
/// let app = Application(router: router)  // Hummingbird 2
/// let group = ServiceGroup(
///     configuration: .init(
///         services: [DatabaseService(db), app],  // the database first: it shuts down after the server
///         gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// A group shuts its services down in the reverse of their order, each after the one behind it has returned; list
/// the database before the services that use it, so that it closes only once the server has answered its last
/// request. When the group is cancelled instead (a cancellation signal, a service that failed), the database
/// closes at once: calls running then end normally, calls waiting for a connection are refused.
public struct DatabaseService: Service {
    /// The database this service closes.
    public let database: Database
    /// How long the calls in flight at shutdown may take to end before the database closes anyway.
    public var gracePeriod: Duration

    /// A service that closes `database` on graceful shutdown, waiting up to `gracePeriod` for its calls in flight.
    public init(_ database: Database, gracePeriod: Duration = .seconds(10)) {
        self.database = database
        self.gracePeriod = gracePeriod
    }

    /// Waits for the group's graceful shutdown, then closes the database gracefully; on cancellation, at once.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            database.close()
            throw error
        }
        await database.close(gracePeriod: gracePeriod)
    }
}
