// todo-api: serves the todo API; DATABASE_URL picks the database (default: memory:), PORT the port (default 8080).
import Foundation
import Hummingbird
import Logging
import TodoAPI

let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "todo-api")
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
let db = try await openDatabase(environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "memory:")
let app = buildApplication(db: db, port: environment["PORT"].flatMap(Int.init) ?? 8080, logger: logger)
try await app.runService()
