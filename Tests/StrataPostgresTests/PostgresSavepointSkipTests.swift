// PostgresSavepointSkipTests: a write inside a transaction runs in a savepoint of its own by default, and without
// one under onFailedStatement: .abortTransaction, read from the server: the row's xmin is the subtransaction's XID
// or the transaction's own.
import Foundation
import Testing

@testable import Strata
@testable import StrataPostgres

@Model
struct PGSavepointProbe {
    var id: Int64?
    var name: String
}

extension PostgresServerTests {
    @Suite("PostgreSQL savepoints per write, by failed-statement policy")
    struct PostgresSavepointSkipTests {
        /// Whether the row `id` was written by the open transaction itself (not by a subtransaction of it).
        static func writtenByTopLevel(_ id: Int64?, _ tx: Transaction) throws -> Bool {
            let table = try PostgresDialect().quote(PGSavepointProbe.schema.name)
            let rows = try tx.unsafeRawExecute(
                "SELECT xmin::text = (pg_current_xact_id()::text::bigint % 4294967296)::text "
                    + "FROM \(table) WHERE id = ?", [id])
            guard case .bool(let same)? = rows.first?.first else {
                throw StrataError.invalidQuery("no row \(String(describing: id)): \(rows)")
            }
            return same
        }

        @Test("the default runs each write in a savepoint; abort mode runs it in the transaction itself")
        func savepointByPolicy() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_savepoint_skip")
            defer { db.close() }
            try await db.migrate(PGSavepointProbe.self)
            let undo = try await db.transaction { tx -> Bool in
                var probe = PGSavepointProbe(name: "undo")
                try probe.save(tx)
                return try Self.writtenByTopLevel(probe.id, tx)
            }
            #expect(!undo, "the default policy's INSERT ran in a subtransaction (its savepoint)")
            let abort = try await db.transaction(onFailedStatement: .abortTransaction) { tx -> Bool in
                var probe = PGSavepointProbe(name: "abort")
                try probe.save(tx)
                try PGSavepointProbe.query(on: tx).where(\.name == "abort").set(\.name, to: "aborted").update()
                return try Self.writtenByTopLevel(probe.id, tx)
            }
            #expect(abort, "abort mode's INSERT and UPDATE ran in the transaction, no savepoint")
            #expect(try await PGSavepointProbe.query(on: db).order(\.name).all().map(\.name) == ["aborted", "undo"])
            try await PostgresTestServer.dropSchema("strata_savepoint_skip")
        }
    }
}
