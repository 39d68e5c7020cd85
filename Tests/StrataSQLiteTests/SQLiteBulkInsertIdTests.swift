// SQLiteBulkInsertIdTests: insertAll's ids on SQLite are the keys SQLite gave those rows, never a guess.
import Foundation
import Strata
import StrataSQLite
import Synchronization
import Testing

@Model(table: "bulk_id_item")
struct BulkIdItem {
    var id: Int64?
    var writer: Int
    var n: Int
    var label: String
}

/// A stop flag and a progress count shared by the racing tasks.
private final class RaceState: Sendable {
    let stop = Atomic<Bool>(false)
    let singles = Atomic<Int>(0)
}

@Suite("SQLite insertAll ids")
struct SQLiteBulkInsertIdTests {
    /// Models whose id does not read back their own row (every column compared), as `id: stored ≠ expected`.
    private func mismatches(_ models: [BulkIdItem], in db: Database) async throws -> [String] {
        var stored: [Int64: BulkIdItem] = [:]
        for row in try await BulkIdItem.query(on: db).all() { stored[row.id ?? -1] = row }
        var wrong: [String] = []
        for m in models {
            guard let id = m.id, let row = stored[id] else {
                wrong.append("\(m.id.map(String.init) ?? "nil"): missing ≠ \(m.label)")
                continue
            }
            if row.writer != m.writer || row.n != m.n || row.label != m.label {
                wrong.append("\(id): \(row.label) ≠ \(m.label)")
            }
        }
        return wrong
    }

    @Test("insertAll on an autocommit connection gets its own rows' ids while another connection inserts rows")
    func racingWriter() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)?pool=2", drivers: [.sqlite])
        try await db.migrate(BulkIdItem.self)
        let race = RaceState()
        let singles = Task {
            var saved: [BulkIdItem] = []
            var n = 0
            while !race.stop.load(ordering: .relaxed) {
                var item = BulkIdItem(writer: 1, n: n, label: "single \(n)")
                try await item.save(on: db)
                saved.append(item)
                n += 1
                race.singles.store(n, ordering: .relaxed)
            }
            return saved
        }
        var bulk: [BulkIdItem] = []
        do {
            for round in 0..<300 {
                // Each round starts only once the other writer has moved on, so the two keep overlapping even
                // when other tests hold the cooperative threads.
                let seen = race.singles.load(ordering: .relaxed)
                let deadline = ContinuousClock.now + .seconds(10)
                while race.singles.load(ordering: .relaxed) == seen && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .microseconds(50))
                }
                let batch = (0..<8).map { BulkIdItem(writer: 2, n: round * 8 + $0, label: "bulk \(round).\($0)") }
                let inserted = try await db.withConnection { tx in
                    var models = batch
                    try BulkIdItem.insertAll(&models, tx)
                    return models
                }
                bulk += inserted
            }
        } catch {
            race.stop.store(true, ordering: .relaxed)
            _ = try? await singles.value
            throw error
        }
        race.stop.store(true, ordering: .relaxed)
        let single = try await singles.value
        #expect(single.count > 0)
        let wrong = try await mismatches(bulk + single, in: db)
        #expect(
            wrong.isEmpty, "\(wrong.count) of \(bulk.count + single.count) ids name another row: \(wrong.prefix(5))")
        #expect(try await BulkIdItem.query(on: db).count() == bulk.count + single.count)
    }

    @Test("a trigger that inserts into the same table does not shift insertAll's ids")
    func triggerInsertsBetweenRows() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.migrate(BulkIdItem.self)
        try await db.unsafeRawExecute(
            """
            CREATE TRIGGER bulk_echo AFTER INSERT ON bulk_id_item WHEN NEW.writer = 2 BEGIN
              INSERT INTO bulk_id_item (writer, n, label) VALUES (3, NEW.n, 'echo ' || NEW.label);
            END
            """)
        for useTransaction in [false, true] {
            var models = (0..<5).map { BulkIdItem(writer: 2, n: $0, label: "row \(useTransaction) \($0)") }
            if useTransaction {
                var copy = models
                try await db.transaction { tx in try BulkIdItem.insertAll(&copy, tx) }
                models = copy
            } else {
                models = try await db.withConnection { tx in
                    var copy = models
                    try BulkIdItem.insertAll(&copy, tx)
                    return copy
                }
            }
            let wrong = try await mismatches(models, in: db)
            #expect(wrong.isEmpty, "ids name other rows: \(wrong)")
        }
        #expect(try await BulkIdItem.query(on: db).where(\.writer == 3).count() == 10)
    }

    @Test("next to the largest key (where SQLite picks random rowids) each model still gets its own row's id")
    func randomRowids() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.migrate(BulkIdItem.self)
        try await db.unsafeRawExecute(
            "INSERT INTO bulk_id_item (id, writer, n, label) VALUES (?, 0, 0, 'near max')", [Int64.max - 1])
        for round in 0..<4 {
            var models = (0..<6).map { BulkIdItem(writer: 2, n: $0, label: "random \(round).\($0)") }
            try await BulkIdItem.insertAll(&models, on: db)
            let wrong = try await mismatches(models, in: db)
            #expect(wrong.isEmpty, "ids name other rows: \(wrong)")
        }
        #expect(try await BulkIdItem.query(on: db).count() == 25)
    }

    @Test("an AUTOINCREMENT table whose sequence is past its largest key gets the keys SQLite assigned")
    func autoincrementSequence() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.unsafeRawExecute(
            "CREATE TABLE bulk_id_item (id INTEGER PRIMARY KEY AUTOINCREMENT, writer INTEGER NOT NULL, "
                + "n INTEGER NOT NULL, label TEXT NOT NULL)")
        var first = (0..<4).map { BulkIdItem(writer: 1, n: $0, label: "first \($0)") }
        try await BulkIdItem.insertAll(&first, on: db)
        // Deleting the largest keys leaves sqlite_sequence ahead: new keys continue after it, not after max.
        try await db.unsafeRawExecute("DELETE FROM bulk_id_item WHERE id > 2")
        var second = (0..<4).map { BulkIdItem(writer: 2, n: $0, label: "second \($0)") }
        try await BulkIdItem.insertAll(&second, on: db)
        let wrong = try await mismatches(Array(first.prefix(2)) + second, in: db)
        #expect(wrong.isEmpty, "ids name other rows: \(wrong)")
        #expect(second.compactMap(\.id) == [5, 6, 7, 8])
    }

    @Test("a table-level ON CONFLICT IGNORE that skips a row is an error, not ids for the wrong rows")
    func ignoredRow() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.unsafeRawExecute(
            "CREATE TABLE bulk_id_item (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, "
                + "n INTEGER NOT NULL, label TEXT NOT NULL UNIQUE ON CONFLICT IGNORE)")
        var models = ["a", "b", "a", "c"].map { BulkIdItem(writer: 1, n: 0, label: $0) }
        await #expect(throws: StrataError.self) {
            try await db.withConnection { tx in try BulkIdItem.insertAll(&models, tx) }
        }
        // The autocommit call rolled its rows back: nothing half-written.
        #expect(try await BulkIdItem.query(on: db).count() == 0)
    }
}
