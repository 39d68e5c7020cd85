// CheckBeforeDriverTests: a statement the core's one check refuses never reaches a driver, memory or SQLite.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Synchronization
import Testing

/// A real driver's connections, each statement they are handed counted on its way through.
struct ReachCountingDriver: Driver {
    let base: any Driver
    let seen = ReachLog()
    var name: String { base.name }
    var maxConnections: Int { 1 }
    func connect() throws -> any DatabaseConnection { ReachCountingConnection(base: try base.connect(), seen: seen) }
}

/// The statements a driver was handed, in order.
final class ReachLog: Sendable {
    private let statements = Mutex<[Statement]>([])
    func append(_ s: Statement) { statements.withLock { $0.append(s) } }
    var all: [Statement] { statements.withLock { $0 } }
}

final class ReachCountingConnection: DatabaseConnection {
    let base: any DatabaseConnection
    let seen: ReachLog
    init(base: any DatabaseConnection, seen: ReachLog) {
        self.base = base
        self.seen = seen
    }
    func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        seen.append(statement)
        return try base.execute(statement, onRow: onRow)
    }
    func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int {
        try base.executeRaw(sql, binds, onRow: onRow)
    }
    func columns(of table: String) throws -> [String]? { try base.columns(of: table) }
    var isBroken: Bool { base.isBroken }
    var isInTransaction: Bool { base.isInTransaction }
    var maxBindParameters: Int { base.maxBindParameters }
    var maxInListValues: Int { base.maxInListValues }
    func isolation(serving requested: IsolationLevel) -> IsolationLevel? { base.isolation(serving: requested) }
    func liveColumns(of table: String) throws -> [LiveColumn]? { try base.liveColumns(of: table) }
    func liveTables() throws -> [String] { try base.liveTables() }
    func liveForeignKeys(of table: String) throws -> [LiveForeignKey] { try base.liveForeignKeys(of: table) }
}

@Suite("The core's one check runs before any driver")
struct CheckBeforeDriverTests {
    static let table = TableSchema(
        name: "reach",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
            TableColumn(name: "name", type: .text, isNullable: false),
        ])

    /// One refused statement of each rule, with the error every driver gives for it.
    static let refused: [(Statement, StrataError)] = {
        let dangling = SQLExpression.like(.column("name"), "x\\", caseInsensitive: false)
        let pair = Select(table: "reach", selection: .columns(["id", "name"]))
        let noSet = OnConflict(target: ["name"], action: .update(set: [], increment: []))
        let realKey = TableColumn(name: "id", type: .double, isNullable: true, isPrimaryKey: true)
        let name = TableColumn(name: "name", type: .text, isNullable: false)
        return [
            (
                .select(Select(table: "reach", selection: .columns(["id"]), limit: -1)),
                .invalidQuery("negative limit -1")
            ),
            (
                .select(Select(table: "reach", selection: .columns(["id"]), offset: -4)),
                .invalidQuery("negative offset -4")
            ),
            (
                .delete(Delete(table: "reach", filter: dangling)),
                .invalidQuery("LIKE pattern ends with the escape character \\")
            ),
            (
                .select(
                    Select(
                        table: "reach", selection: .columns(["id"]),
                        filter: .compare(.equal, .column("id"), .scalarSubquery(pair)))),
                .invalidQuery(
                    "a scalar subquery subquery on reach selects 2 columns (id, name); it must select exactly one")
            ),
            (
                .update(Update(table: "reach", assignments: [], filter: dangling)),
                .invalidQuery("UPDATE without any column to set")
            ),
            (.insert(Insert(table: "reach", columns: ["name"], rows: [])), .invalidQuery("INSERT without rows")),
            (
                .insert(Insert(table: "reach", columns: ["name"], rows: [[.text("a")], []])),
                .invalidQuery("INSERT row has 0 values for 1 columns")
            ),
            (
                .insert(Insert(table: "reach", columns: ["name"], rows: [[.text("a")]], onConflict: noSet)),
                .invalidQuery("ON CONFLICT DO UPDATE on reach sets no column")
            ),
            (
                .createTable(TableSchema(name: "bad", columns: [realKey])),
                .invalidQuery("primary key id must be an integer, a UUID or text")
            ),
            (
                .createTable(TableSchema(name: "bad", columns: [name, name])),
                .invalidQuery("duplicate column name: name")
            ),
            (
                .addColumn(
                    table: "reach", TableColumn(name: "k", type: .integer, isNullable: true, isPrimaryKey: true)),
                .invalidQuery("cannot add a PRIMARY KEY column")
            ),
            (
                .delete(Delete(table: "reach", filter: .isNull(.column("name", table: "j1")))),
                .invalidQuery("column j1.name of a joined table outside a join")
            ),
            (
                .createIndex(table: "reach", Index(columns: [])),
                .invalidQuery("index reach_idx has no columns")
            ),
        ]
    }()

    static func drivers() -> [any Driver] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("check-reach-\(UUID()).sqlite").path
        return [MemoryDriver(), SQLiteDriver(path: path)]
    }

    @Test("each refused statement throws its error and the driver is handed none of them", arguments: [0, 1])
    func refusedNeverReaches(driver n: Int) async throws {
        let counting = ReachCountingDriver(base: Self.drivers()[n])
        let db = Database(driver: counting)
        defer { db.close() }
        try await db.transaction { tx in _ = try tx.execute(.createTable(Self.table)) }
        let before = counting.seen.all.count
        for (statement, expected) in Self.refused {
            await #expect(throws: expected, "\(counting.name): \(statement)") {
                try await db.transaction { tx in _ = try tx.execute(statement) }
            }
        }
        let handed = counting.seen.all.dropFirst(before)
        for (statement, _) in Self.refused {
            #expect(!handed.contains(statement), "\(counting.name) was handed \(statement)")
        }
        // A statement the check lets through is handed to the driver, and counted.
        let fine = Statement.insert(Insert(table: "reach", columns: ["name"], rows: [[.text("a")]]))
        let count = counting.seen.all.count
        try await db.transaction { tx in _ = try tx.execute(fine) }
        #expect(counting.seen.all.dropFirst(count).contains(fine))
    }
}
