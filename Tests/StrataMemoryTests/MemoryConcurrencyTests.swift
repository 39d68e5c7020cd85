// MemoryConcurrencyTests: several connections on one memory store: committed reads, waiting writers, exact counts.
import Foundation
import Strata
import StrataMemory
import Testing

/// Hands a connection to the thread that runs one statement on it while the test's thread waits.
///
/// `@unchecked Sendable`: the test touches `connection` again only after `done` was signalled, and
/// `outcome` only after that too; the semaphore orders the accesses.
private final class Background: @unchecked Sendable {
    let connection: any DatabaseConnection
    var outcome: Result<Int, any Error>?
    let done = DispatchSemaphore(value: 0)

    init(_ connection: any DatabaseConnection) { self.connection = connection }

    /// Runs `statement` on a new thread.
    func start(_ statement: Statement) {
        Thread.detachNewThread {
            self.outcome = Result { try self.connection.execute(statement) { _ in } }
            self.done.signal()
        }
    }
}

private func insertName(_ name: String) -> Statement {
    .insert(Insert(table: "item", columns: ["name"], rows: [[.text(name)]]))
}

private let otherSchema = TableSchema(
    name: "other", columns: [TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)])

@Suite("Memory concurrency")
struct MemoryConcurrencyTests {
    @Test("another connection reads the committed state while a transaction is open, the new one after COMMIT")
    func readsCommitted() throws {
        let driver = MemoryDriver()
        let a = try driver.connect()
        let b = try driver.connect()
        try run(a, .createTable(itemSchema))
        try run(a, .insert(Insert(table: "item", columns: ["name", "score"], rows: [[.text("kept"), .integer(1)]])))
        try run(a, .begin)
        try run(a, insertName("new"))
        try run(a, .update(Update(table: "item", assignments: [Assignment("score", .integer(2))], filter: nil)))
        try run(a, .createTable(otherSchema))
        try run(a, .savepoint("s"))
        try run(a, insertName("in a savepoint"))
        #expect(try names(a, order: [Ordering("name")]) == ["in a savepoint", "kept", "new"])
        #expect(try fetch(b, "item", ["name", "score"]) == [[.text("kept"), .integer(1)]])
        #expect(try b.columns(of: "other") == nil)
        expectError(.noSuchTable("other")) { _ = try count(b, "other") }
        try run(a, .rollbackToSavepoint("s"))
        try run(a, insertName("after"))
        #expect(try fetch(b, "item", ["name", "score"]) == [[.text("kept"), .integer(1)]], "still the committed rows")
        try run(a, .commit)
        #expect(try names(b, order: [Ordering("name")]) == ["after", "kept", "new"])
        #expect(
            try fetch(b, "item", ["score"], where: .compare(.equal, col("name"), .value(.text("kept")))) == [
                [.integer(2)]
            ])
        #expect(try count(b, "other") == 0)
    }

    @Test("after a rollback, and after a DELETE of every row, the other connection's view follows each transaction")
    func viewPerTransaction() throws {
        let driver = MemoryDriver()
        let a = try driver.connect()
        let b = try driver.connect()
        try run(a, .createTable(itemSchema))
        try run(a, insertName("one"))
        try run(a, .begin)
        try run(a, insertName("rolled back"))
        #expect(try names(b) == ["one"])
        try run(a, .rollback)
        #expect(try names(b) == ["one"])
        try run(a, .begin)
        try run(a, .delete(Delete(table: "item", filter: nil)))
        try run(a, insertName("two"))
        #expect(try names(b) == ["one"], "a fresh view: not the one built in the rolled-back transaction")
        try run(a, .commit)
        #expect(try names(b) == ["two"])
        // Lookups by id and by index range on the committed view.
        try run(a, .createIndex(table: "item", Index(columns: ["score"])))
        try run(
            a,
            .insert(
                Insert(
                    table: "item", columns: ["name", "score"],
                    rows: (1...50).map { [.text("s\($0)"), .integer(Int64($0))] })))
        try run(a, .begin)
        try run(a, .delete(Delete(table: "item", filter: .compare(.greater, col("score"), int(10)))))
        #expect(try count(b, where: .compare(.greater, col("score"), int(40))) == 10)
        #expect(try count(b, where: .compare(.equal, col("id"), int(3))) == 1)
        #expect(try count(a, where: .compare(.greater, col("score"), int(40))) == 0)
        try run(a, .commit)
        #expect(try count(b, where: .compare(.greater, col("score"), int(40))) == 0)
    }

    @Test("a writer waits for another connection's transaction, then runs")
    func writerWaits() throws {
        let driver = MemoryDriver(busyTimeout: 10)
        let a = try driver.connect()
        try run(a, .createTable(itemSchema))
        let b = Background(try driver.connect())
        try run(a, .begin)
        try run(a, insertName("first"))
        b.start(insertName("second"))
        #expect(b.done.wait(timeout: .now() + 0.2) == .timedOut, "the write waits while the transaction is open")
        try run(a, .commit)
        #expect(b.done.wait(timeout: .now() + 10) == .success)
        #expect((try b.outcome?.get()) == 1)
        #expect(try names(a, order: [Ordering("id")]) == ["first", "second"])
    }

    @Test("a writer that waits past the busy timeout throws busy and changes nothing")
    func busyAfterTimeout() throws {
        let driver = MemoryDriver(busyTimeout: 0.15)
        let a = try driver.connect()
        let b = try driver.connect()
        try run(a, .createTable(itemSchema))
        try run(a, .begin)
        try run(a, insertName("held"))
        let start = Date()
        expectError(.busy) { try run(b, insertName("refused")) }
        #expect(Date().timeIntervalSince(start) >= 0.14)
        expectError(.busy) { try run(b, .begin) }
        #expect(try count(b) == 0)
        try run(a, .commit)
        try run(b, insertName("now"))
        #expect(try names(a, order: [Ordering("id")]) == ["held", "now"])
    }

    @Test("a connection that goes away mid-transaction is rolled back and wakes the writers waiting for it")
    func abandonedWakesWriters() throws {
        let driver = MemoryDriver(busyTimeout: 30)
        var a: (any DatabaseConnection)? = try driver.connect()
        let b = Background(try driver.connect())
        try run(b.connection, .createTable(itemSchema))
        if let a {
            try run(a, .begin)
            try run(a, insertName("abandoned"))
        }
        b.start(insertName("waited"))
        #expect(b.done.wait(timeout: .now() + 0.1) == .timedOut)
        let start = Date()
        a = nil
        #expect(b.done.wait(timeout: .now() + 10) == .success)
        #expect(Date().timeIntervalSince(start) < 5, "woken by the end of the transaction, not by the timeout")
        #expect(try names(b.connection) == ["waited"])
    }

    @Test("64 tasks through memory:?pool=8 mixing reads, writes and transactions: no error, exact counts")
    func sixtyFourTasks() async throws {
        let db = try Database.open("memory:?pool=8", drivers: [.memory])
        defer { db.close() }
        try await db.migrate(Note.self)
        var counter = Note(title: "counter", score: 0)
        try await counter.save(on: db)
        guard let counterID = counter.id else { throw StrataError.invalidQuery("no id") }
        let tasks = 64
        let rounds = 10
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<tasks {
                group.addTask {
                    for r in 0..<rounds {
                        var one = Note(title: "one", score: t)
                        try await one.save(on: db)
                        #expect(try await Note.find(one.id ?? -1, on: db)?.score == t)
                        try await db.transaction { tx in
                            // Read-modify-write: exact only if transactions do not interleave.
                            guard var c = try Note.find(counterID, tx) else { throw StrataError.invalidQuery("lost") }
                            c.score = (c.score ?? 0) + 1
                            try c.save(tx)
                            var two = Note(title: "tx", score: r)
                            try two.save(tx)
                        }
                        try await db.transaction { tx in
                            var gone = Note(title: "rolled back")
                            try gone.save(tx)
                            throw Rollback()
                        }
                        #expect(try await Note.query(on: db).where(.like(\.title, "rolled%")).count() == 0)
                        _ = try await Note.query(on: db).where(\.title == "tx").count()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await Note.query(on: db).where(\.title == "one").count() == tasks * rounds)
        #expect(try await Note.query(on: db).where(\.title == "tx").count() == tasks * rounds)
        #expect(try await Note.find(counterID, on: db)?.score == tasks * rounds)
        #expect(try await Note.query(on: db).count() == 2 * tasks * rounds + 1)
    }
}
