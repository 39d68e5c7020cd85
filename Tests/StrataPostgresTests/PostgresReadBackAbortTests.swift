// PostgresReadBackAbortTests: a save whose read-back cannot fail on its values runs in the caller's transaction with
// no savepoint of its own; when its read-back statement fails after the write anyway, nothing it wrote commits.
import Foundation
import Testing

@testable import Strata
@testable import StrataPostgres

/// The table ``PGReadBackMissing`` writes, migrated without the generated column that model reads back.
@Model(table: "pg_read_back_plain")
struct PGReadBackPlain {
    var id: Int64?
    var sku: String
    var price: Int64
    var quantity: Int64
}

/// The same table with a generated column the live table lacks: its INSERT succeeds and its read-back SELECT fails on
/// the server (column does not exist), a statement failure after the write.
@Model(table: "pg_read_back_plain")
struct PGReadBackMissing {
    var id: Int64?
    var sku: String
    var price: Int64
    var quantity: Int64
    @Generated var total: Int64 = 0
    static var generatedColumns: [GeneratedColumn<PGReadBackMissing>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity)]
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL: a read-back that fails after its write, without a savepoint")
    struct PostgresReadBackAbortTests {
        @Test("the failed read-back statement aborts the transaction: the closure's rows roll back")
        func failedReadBackCommitsNothing() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_read_back_abort")
            defer { db.close() }
            try await db.migrate(PGReadBackPlain.self)
            #expect(PGReadBackMissing.schema.storage.readBackTotality == .totalWhereGeneratedColumnsAreNotNull)
            var ended: (any Error)?
            do {
                try await db.transaction { tx in
                    var kept = PGReadBackPlain(sku: "before", price: 1, quantity: 1)
                    try kept.save(tx)
                    var missing = PGReadBackMissing(sku: "lost", price: 2, quantity: 3)
                    #expect(throws: StrataError.self, "the read-back SELECT of a column the table lacks fails") {
                        try missing.save(tx)
                    }
                    #expect(missing.id == nil, "the failed save left the model new")
                    #expect(throws: StrataError.self, "every later statement is refused") {
                        try PGReadBackPlain.query(on: tx).count()
                    }
                }
            } catch {
                ended = error
            }
            #expect(ended.map { "\($0)".contains("read-back failed") } == true, "the transaction threw at its end")
            #expect(try await PGReadBackPlain.query(on: db).count() == 0, "neither row committed")
            try await PostgresTestServer.dropSchema("strata_read_back_abort")
        }
    }
}
