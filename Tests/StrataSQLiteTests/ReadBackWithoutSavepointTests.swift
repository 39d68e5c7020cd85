// ReadBackWithoutSavepointTests: which saves read back without a savepoint inside a transaction (every read-back
// property holds any value of its column), and that a read-back statement failing on that path commits nothing.
import Foundation
import StrataMemory
import StrataSQLite
import Testing

@testable import Strata

@Model(table: "free_read_back_line")
struct FreeReadBackLine {
    var id: Int64?
    var sku: String
    var price: Int64
    var quantity: Int64
    @Generated var total: Int64 = 0
    static var generatedColumns: [GeneratedColumn<FreeReadBackLine>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity)]
    }
    static var indexes: [Index] { [.on(\FreeReadBackLine.sku, unique: true)] }
}

@Model(table: "free_read_back_optional")
struct FreeReadBackOptional {
    var id: Int64?
    var price: Int64
    var quantity: Int64
    var note: String
    @Generated var total: Int64? = nil
    @Generated var label: String? = nil
    static var generatedColumns: [GeneratedColumn<FreeReadBackOptional>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity), GeneratedColumn(\.label, as: upper(\.note))]
    }
}

@Model(table: "free_read_back_narrow")
struct FreeReadBackNarrow {
    var id: Int64?
    var price: Int8
    var quantity: Int8
    @Generated var total: Int8 = 0
    static var generatedColumns: [GeneratedColumn<FreeReadBackNarrow>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity)]
    }
}

@Model(table: "free_read_back_visit")
struct FreeReadBackVisit {
    var id: Int64?
    var path: String
    @Column(default: .now) var seenAt: Date?
}

/// The table ``FreeReadBackMissing`` writes, migrated without the generated column that model reads back.
@Model(table: "free_read_back_plain")
struct FreeReadBackPlain {
    var id: Int64?
    var sku: String
    var price: Int64
    var quantity: Int64
}

/// The same table as ``FreeReadBackPlain`` with a generated column the live table lacks: its INSERT succeeds, and its
/// read-back SELECT fails in the database (no such column), a statement failure after the write.
@Model(table: "free_read_back_plain")
struct FreeReadBackMissing {
    var id: Int64?
    var sku: String
    var price: Int64
    var quantity: Int64
    @Generated var total: Int64 = 0
    static var generatedColumns: [GeneratedColumn<FreeReadBackMissing>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity)]
    }
}

@Suite("a save's read-back without a savepoint where it cannot fail on its values")
struct ReadBackWithoutSavepointTests {
    static func open(_ driver: String) throws -> Database {
        driver == "sqlite"
            ? try Database.open("sqlite::memory:", drivers: [.sqlite])
            : try Database.open("memory:", drivers: [.memory])
    }

    @Test("totality by the read-back properties' types and their columns' nullability, worked out once per schema")
    func totality() throws {
        #expect(FreeReadBackLine.schema.storage.readBackTotality == .totalWhereGeneratedColumnsAreNotNull)
        #expect(FreeReadBackOptional.schema.storage.readBackTotality == .total)
        #expect(FreeReadBackNarrow.schema.storage.readBackTotality == .partial, "300 does not fit an Int8")
        #expect(FreeReadBackVisit.schema.storage.readBackTotality == .partial, "a date is parsed")
        #expect(FreeReadBackPlain.schema.storage.readBackTotality == .partial, "nothing is read back")
        let product = try (\FreeReadBackLine.price * \FreeReadBackLine.quantity).expression
        var nullable = TableColumn(\FreeReadBackLine.total, "total").generated(as: product)
        nullable.isNullable = true
        #expect(
            ReadBackTotality.of([0], in: [nullable], byTemplate: true) == .partial,
            "a non-optional property of a nullable column reads NULL")
        let optional = TableColumn(\FreeReadBackOptional.total, "total").generated(as: product)
        #expect(ReadBackTotality.of([0], in: [optional], byTemplate: true) == .total)
        #expect(ReadBackTotality.of([0], in: [optional], byTemplate: false) == .partial, "read through the whole row")
        var retyped = optional
        retyped.type = .text
        #expect(ReadBackTotality.of([0], in: [retyped], byTemplate: true) == .partial, "not the property's column type")
        let untyped = TableColumn(name: "total", type: .integer, isNullable: true).generated(as: product)
        #expect(ReadBackTotality.of([0], in: [untyped], byTemplate: true) == .partial, "no property type known")
    }

    @Test(
        "inside a transaction a total read-back runs two statements a save; a narrow one four",
        arguments: [
            "sqlite", "memory",
        ])
    func statementsPerSave(_ driver: String) async throws {
        let db = try Self.open(driver)
        defer { db.close() }
        try await db.migrate(FreeReadBackLine.self, FreeReadBackOptional.self, FreeReadBackNarrow.self)
        func statements(_ body: @escaping (Transaction) throws -> Void) async throws -> Int {
            let before = db.statementCount
            try await db.transaction { tx in try body(tx) }
            return db.statementCount - before - 2  // BEGIN and COMMIT
        }
        var totals: [Int64] = []
        let line = try await statements { tx in
            var line = FreeReadBackLine(sku: "a", price: 2, quantity: 3)
            try line.save(tx)
            totals.append(line.total)
        }
        #expect(line == 2, "INSERT and the read-back SELECT")
        let optional = try await statements { tx in
            var line = FreeReadBackOptional(price: 2, quantity: 5, note: "ab")
            try line.save(tx)
            totals.append(line.total ?? -1)
            totals.append(line.label == "AB" ? 1 : -1)
        }
        #expect(optional == 2)
        let narrow = try await statements { tx in
            var line = FreeReadBackNarrow(price: 2, quantity: 3)
            try line.save(tx)
            totals.append(Int64(line.total))
        }
        #expect(narrow == 4, "SAVEPOINT, INSERT, SELECT, RELEASE")
        #expect(totals == [6, 10, 1, 6], "each save read its values back")
        let before = db.statementCount
        var alone = FreeReadBackLine(sku: "b", price: 1, quantity: 1)
        try await alone.save(on: db)
        #expect(
            db.statementCount - before == 4, "in autocommit the write and its read-back are a transaction of their own")
    }

    @Test(
        "a write refused on the path without a savepoint leaves the transaction going on",
        arguments: [
            "sqlite", "memory",
        ])
    func refusedWriteGoesOn(_ driver: String) async throws {
        let db = try Self.open(driver)
        defer { db.close() }
        try await db.migrate(FreeReadBackLine.self)
        try await db.transaction { tx in
            var first = FreeReadBackLine(sku: "a", price: 2, quantity: 3)
            try first.save(tx)
            var duplicate = FreeReadBackLine(sku: "a", price: 4, quantity: 4)
            #expect(throws: StrataError.self) { try duplicate.save(tx) }
            #expect(duplicate.id == nil && duplicate.total == 0, "the refused save left the model as it was")
            var second = FreeReadBackLine(sku: "b", price: 5, quantity: 5)
            try second.save(tx)
        }
        let rows = try await FreeReadBackLine.query(on: db).order(\.sku).all()
        #expect(rows.map(\.sku) == ["a", "b"] && rows.map(\.total) == [6, 25])
    }

    @Test(
        "a read-back statement that fails after the write aborts the transaction: nothing it wrote commits",
        arguments: [
            "sqlite", "memory",
        ])
    func failedReadBackStatementCommitsNothing(_ driver: String) async throws {
        let db = try Self.open(driver)
        defer { db.close() }
        try await db.migrate(FreeReadBackPlain.self)
        #expect(FreeReadBackMissing.schema.storage.readBackTotality == .totalWhereGeneratedColumnsAreNotNull)
        var ended: (any Error)?
        do {
            try await db.transaction { tx in
                var kept = FreeReadBackPlain(sku: "before", price: 1, quantity: 1)
                try kept.save(tx)
                var missing = FreeReadBackMissing(sku: "lost", price: 2, quantity: 3)
                #expect(throws: StrataError.self, "the read-back SELECT of a column the table lacks fails") {
                    try missing.save(tx)
                }
                #expect(missing.id == nil && missing.total == 0, "the failed save left the model as it was")
                #expect(throws: StrataError.self, "every later statement is refused") {
                    try FreeReadBackPlain.query(on: tx).count()
                }
            }
        } catch {
            ended = error
        }
        #expect(
            ended.map { "\($0)".contains("read-back failed") } == true,
            "the closure returned, yet the transaction rolled back and threw, naming the cause")
        #expect(try await FreeReadBackPlain.query(on: db).count() == 0, "neither row committed")
        var after = FreeReadBackPlain(sku: "after", price: 1, quantity: 1)
        try await after.save(on: db)
        #expect(try await FreeReadBackPlain.query(on: db).count() == 1, "the database goes on")
    }

    @Test("a savepoint around the failed save rolls back alone, and the transaction goes on")
    func savepointAroundTheFailureRollsBack() async throws {
        let db = try Self.open("sqlite")
        defer { db.close() }
        try await db.migrate(FreeReadBackPlain.self)
        try await db.transaction { tx in
            var kept = FreeReadBackPlain(sku: "kept", price: 1, quantity: 1)
            try kept.save(tx)
            do {
                try tx.savepoint { tx in
                    var missing = FreeReadBackMissing(sku: "lost", price: 2, quantity: 3)
                    do { try missing.save(tx) } catch {}  // caught inside: the savepoint still rolls back
                }
                Issue.record("the savepoint around the aborted save returned")
            } catch {}
            var next = FreeReadBackPlain(sku: "next", price: 1, quantity: 1)
            try next.save(tx)
        }
        #expect(try await FreeReadBackPlain.query(on: db).order(\.sku).all().map(\.sku) == ["kept", "next"])
    }

    @Test("in a transaction raw SQL began, the failed read-back refuses COMMIT and leaves ROLLBACK to it")
    func rawTransactionRollsBack() async throws {
        let db = try Self.open("sqlite")
        defer { db.close() }
        try await db.migrate(FreeReadBackPlain.self)
        try await db.withConnection { tx in
            try tx.unsafeRawExecute("BEGIN")
            var kept = FreeReadBackPlain(sku: "kept", price: 1, quantity: 1)
            try kept.save(tx)
            var missing = FreeReadBackMissing(sku: "lost", price: 2, quantity: 3)
            #expect(throws: StrataError.self) { try missing.save(tx) }
            #expect(throws: StrataError.self, "COMMIT is refused") { try tx.unsafeRawExecute("COMMIT") }
            try tx.unsafeRawExecute("ROLLBACK")
            var next = FreeReadBackPlain(sku: "next", price: 1, quantity: 1)
            try next.save(tx)
        }
        #expect(try await FreeReadBackPlain.query(on: db).all().map(\.sku) == ["next"])
    }
}
