// TodoAPITests: the todo API started on a loopback port and driven over HTTP with async-http-client, on the database
// TODO_DATABASE_URL names (memory: by default; CI also runs them on PostgreSQL).
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Strata
import Synchronization
import Testing

@testable import TodoAPI

@Suite("todo API over HTTP", .serialized)
struct TodoAPITests {
    @Test("create answers 201 with the todo's columns only, and the list pages through them")
    func createAndPage() async throws {
        try await withServer { api in
            for n in 1...5 {
                let (status, json) = try await api.send(.POST, "/todos", ["title": "task \(n)"])
                #expect(status == .created)
                #expect((json as? [String: Any]).map { Set($0.keys) } == ["id", "title", "done", "version"])
            }
            let (status, json) = try await api.send(.GET, "/todos?page=2&per=2")
            #expect(status == .ok)
            let page = json as? [String: Any]
            let items = page?["items"] as? [[String: Any]]
            #expect(items?.compactMap { $0["title"] as? String } == ["task 3", "task 4"])
            #expect(page?["total"] as? Int == 5)
            #expect(page?["page"] as? Int == 2 && page?["per"] as? Int == 2)
            let (_, last) = try await api.send(.GET, "/todos?page=3&per=2")
            #expect(((last as? [String: Any])?["items"] as? [Any])?.count == 1)
            #expect(try await api.send(.GET, "/todos?per=0").status == .badRequest)
        }
    }

    @Test("a todo that fails validation is 422 with each failed field as JSON, and nothing is stored")
    func validationIs422() async throws {
        try await withServer { api in
            let (blank, json) = try await api.send(.POST, "/todos", ["title": ""])
            #expect(blank == .unprocessableEntity)
            let body = json as? [String: Any]
            #expect(body?["error"] as? String == "validation failed")
            let fields = body?["fields"] as? [[String: Any]]
            #expect(fields?.first?["field"] as? String == "title")
            #expect(fields?.first?["rule"] as? String == "presence")
            #expect(fields?.first?["message"] as? String == "can't be blank")
            let (long, longJSON) = try await api.send(.POST, "/todos", ["title": String(repeating: "x", count: 201)])
            #expect(long == .unprocessableEntity)
            let rules = ((longJSON as? [String: Any])?["fields"] as? [[String: Any]])?.compactMap {
                $0["rule"] as? String
            }
            #expect(rules == ["length"])
            let (_, list) = try await api.send(.GET, "/todos")
            #expect((list as? [String: Any])?["total"] as? Int == 0)
        }
    }

    @Test("an update carrying the version it read succeeds once; the same version again is 409")
    func staleUpdateIs409() async throws {
        try await withServer { api in
            let (_, created) = try await api.send(.POST, "/todos", ["title": "write the docs"])
            let id = try #require((created as? [String: Any])?["id"] as? Int)
            let (first, updated) = try await api.send(.PATCH, "/todos/\(id)", ["done": true, "version": 0])
            #expect(first == .ok)
            #expect((updated as? [String: Any])?["version"] as? Int == 1)
            let (second, conflict) = try await api.send(
                .PATCH, "/todos/\(id)", ["title": "overwrite", "version": 0])
            #expect(second == .conflict)
            #expect(((conflict as? [String: Any])?["error"] as? String)?.contains("changed since you read it") == true)
            let (_, current) = try await api.send(.GET, "/todos/\(id)")
            let todo = current as? [String: Any]
            #expect(todo?["title"] as? String == "write the docs", "the stale update wrote nothing")
            #expect(todo?["done"] as? Bool == true && todo?["version"] as? Int == 1)
            #expect(try await api.send(.PATCH, "/todos/999999", ["version": 0]).status == .notFound)
        }
    }

    @Test("delete answers 204, then the todo is 404")
    func deleteThen404() async throws {
        try await withServer { api in
            let (_, created) = try await api.send(.POST, "/todos", ["title": "short-lived"])
            let id = try #require((created as? [String: Any])?["id"] as? Int)
            #expect(try await api.send(.DELETE, "/todos/\(id)").status == .noContent)
            #expect(try await api.send(.GET, "/todos/\(id)").status == .notFound)
            #expect(try await api.send(.DELETE, "/todos/\(id)").status == .notFound)
        }
    }

    @Test("each statement line carries its request's hb.request.id; shutdown closes the database")
    func statementLinesCarryTheRequestID() async throws {
        let logs = CapturedLines()
        var logger = Logger(label: "todo-api") { _ in CapturingHandler(lines: logs) }
        logger.logLevel = .debug
        let db = try await withServer(logger: logger) { api in
            _ = try await api.send(.POST, "/todos", ["title": "traced"])
            _ = try await api.send(.GET, "/todos")
        }
        let statements = logs.all.filter { $0.message == "statement" }
        #expect(statements.count >= 3, "the insert, the page and its count (\(statements.count))")
        #expect(statements.allSatisfy { $0.metadata["hb.request.id"] != nil })
        #expect(Set(statements.compactMap { $0.metadata["hb.request.id"] }).count == 2, "two requests, two ids")
        #expect(db.isClosed, "the database closed with the server")
    }
}

/// The server under test: an HTTP client and its base URL.
struct API {
    let client: HTTPClient
    let base: String

    /// Sends `body` as JSON; returns the status and the decoded JSON answer (nil when there is none).
    func send(_ method: HTTPMethod, _ path: String, _ body: [String: any Sendable]? = nil) async throws
        -> (status: HTTPResponseStatus, json: Any?)
    {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let data = Data(bytes.readableBytesView)
        return (response.status, data.isEmpty ? nil : try JSONSerialization.jsonObject(with: data))
    }
}

/// Starts the app on a free loopback port in a ServiceGroup, on an empty todo table, runs `body` against it, then
/// shuts the group down gracefully; returns the database (closed by then).
@discardableResult
func withServer(
    logger: Logger = Logger(label: "todo-api") { _ in SwiftLogNoOpLogHandler() }, _ body: (API) async throws -> Void
) async throws -> Database {
    let url = ProcessInfo.processInfo.environment["TODO_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "memory:"
    let db = try await openDatabase(url)
    _ = try await Todo.query(on: db).delete()
    let port = Mutex<Int?>(nil)
    let app = buildApplication(db: db, port: 0, logger: logger) { bound in port.withLock { $0 = bound } }
    let group = ServiceGroup(services: [app], logger: logger)
    let running = Task { try await group.run() }
    let until = ContinuousClock.now + .seconds(60)
    while port.withLock({ $0 }) == nil && ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(5)) }
    let bound = try #require(port.withLock { $0 }, "the server started")
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        try await body(API(client: client, base: "http://127.0.0.1:\(bound)"))
    } catch {
        try await client.shutdown()
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        throw error
    }
    try await client.shutdown()
    await group.triggerGracefulShutdown()
    try await running.value
    return db
}

/// Log lines kept for a test, metadata as text.
final class CapturedLines: Sendable {
    struct Line: Sendable {
        var message: String
        var metadata: [String: String]
    }

    private let lines = Mutex<[Line]>([])
    var all: [Line] { lines.withLock { $0 } }
    func append(_ line: Line) { lines.withLock { $0.append(line) } }
}

struct CapturingHandler: LogHandler {
    let lines: CapturedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append(.init(message: event.message.description, metadata: merged.mapValues { "\($0)" }))
    }
}
