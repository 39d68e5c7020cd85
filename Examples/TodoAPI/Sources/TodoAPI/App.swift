// App: the application: the database from a URL, the routes, and the database's lifecycle tied to the server's.
import Hummingbird
import Logging
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import StrataServiceLifecycle

/// Opens the database `url` names (`memory:`, `sqlite:todo.sqlite`, `postgres://…`) and creates its table.
public func openDatabase(_ url: String) async throws -> Database {
    let db = try Database.open(url, drivers: [.memory, .sqlite, .postgres])
    try await db.migrate(Todo.self)
    return db
}

/// The todo API on `db`, listening on `host:port` (port 0: any free one, reported to `onServerRunning`).
///
/// The database runs as a service of the application: on SIGTERM or SIGINT the server stops taking requests,
/// answers those in flight, and then the database lets its own calls in flight end and closes.
public func buildApplication(
    db: Database, host: String = "127.0.0.1", port: Int = 8080, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router()
    router.add(middleware: DatabaseLoggerMiddleware())
    router.add(middleware: StrataErrorMiddleware())
    TodoController(db: db).addRoutes(to: router.group("todos"))
    return Application(
        router: router,
        configuration: .init(address: .hostname(host, port: port), serverName: "todo-api"),
        services: [DatabaseService(db, gracePeriod: .seconds(10))],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
        logger: logger)
}
