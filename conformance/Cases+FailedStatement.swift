// Cases+FailedStatement: what a failed statement does to its transaction, under each FailedStatementPolicy.
import Foundation
import Strata

/// A model no case migrates: reading it fails in the driver.
@Model(table: "conf_never_migrated")
struct ConfNeverMigrated {
    var id: Int64?
    var name: String
}

extension ConformanceSuite {
    /// Whether `error` is the refusal of a statement in a transaction a failure aborted.
    static func isAborted(_ error: any Error) -> Bool {
        if case StrataError.transactionMisuse(let reason) = error { return reason.contains("aborted") }
        return false
    }

    static let failedStatementCases: [ConformanceCase] = [
        ConformanceCase("transaction.abort-mode-a-failed-statement-aborts-the-transaction") { db in
            try await Fixtures.migrate(db)
            var a = ConfUser(name: "a", email: "dup@x.io")
            var b = ConfUser(name: "b", email: "dup@x.io")
            var refused = false
            do {
                try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                    try checkEqual(tx.onFailedStatement, .abortTransaction, "the policy is the transaction's")
                    try a.save(tx)
                    do {
                        try b.save(tx)
                        throw ConformanceFailure(description: "duplicate accepted")
                    } catch StrataError.uniqueViolation {}
                    var c = ConfUser(name: "c", email: "c@x.io")
                    do {
                        try c.save(tx)
                    } catch let e where isAborted(e) {
                        refused = true
                    }
                    try check(c.id == nil, "the refused save left its model new")
                }
                throw ConformanceFailure(description: "an aborted transaction returned as if it committed")
            } catch let e where isAborted(e) {}
            try check(refused, "the statement after the failure was refused")
            try check(b.id == nil, "the failed save left its model new")
            try checkEqual(try await ConfUser.query(on: db).count(), 0, "nothing committed")
            try await a.save(on: db)  // its insert was rolled back: the model is new again, and inserts
            try checkEqual(try await ConfUser.query(on: db).count(), 1, "the model saved before the failure inserts")
            try await ConfUser.query(on: db).delete()
            // The next transaction on the pool is the default kind again.
            try await db.transaction { tx in
                try checkEqual(tx.onFailedStatement, .undoStatement, "the default comes back")
                var d = ConfUser(name: "d", email: "dup@x.io")
                try d.save(tx)
                var e = ConfUser(name: "e", email: "dup@x.io")
                do { try e.save(tx) } catch StrataError.uniqueViolation {}
                var f = ConfUser(name: "f", email: "f@x.io")
                try f.save(tx)
            }
            try checkEqual(
                try await ConfUser.query(on: db).order(\.name).all().map(\.name), ["d", "f"],
                "a default transaction after it undoes the failed statement alone")
        },
        ConformanceCase("transaction.abort-mode-commits-when-nothing-fails") { db in
            try await Fixtures.migrate(db)
            let ids = try db.writeSync(onFailedStatement: .abortTransaction) { tx -> [Int64?] in
                var users = (0..<5).map { ConfUser(name: "u\($0)", email: "u\($0)@x.io") }
                for i in users.indices { try users[i].save(tx) }
                try ConfUser.query(on: tx).where(\.name == "u0").set(\.age, to: 7).update()
                return users.map(\.id)
            }
            try check(ids.allSatisfy { $0 != nil }, "every insert has its id")
            try checkEqual(try await ConfUser.query(on: db).count(), 5, "all committed")
            try checkEqual(try await ConfUser.query(on: db).where(\.age == 7).count(), 1, "the update committed")
        },
        ConformanceCase("transaction.abort-mode-rolls-back-only-the-savepoint-the-failure-was-in") { db in
            try await Fixtures.migrate(db)
            try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                var keep = ConfUser(name: "keep", email: "dup@x.io")
                try keep.save(tx)
                var inner = ConfUser(name: "inner", email: "inner@x.io")
                do {
                    try tx.savepoint { sp in
                        try inner.save(sp)
                        var dup = ConfUser(name: "dup", email: "dup@x.io")
                        do { try dup.save(sp) } catch StrataError.uniqueViolation {}  // caught: still aborts
                    }
                    throw ConformanceFailure(description: "an aborted savepoint returned as if it was released")
                } catch let e where isAborted(e) {}
                var after = ConfUser(name: "after", email: "after@x.io")
                try after.save(tx)  // the transaction around the savepoint goes on
                try inner.save(tx)  // its insert was rolled back with the savepoint: it inserts again
            }
            try checkEqual(
                try await ConfUser.query(on: db).order(\.name).all().map(\.name), ["after", "inner", "keep"],
                "the savepoint was undone alone")
        },
        ConformanceCase("transaction.abort-mode-a-write-call-that-throws-after-a-statement-aborts") { db in
            try await db.migrate(ConfHooked.self)
            var ok = ConfHooked(name: "ok")
            var failing = ConfHooked(name: "fail-after-insert")
            do {
                try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                    try ok.save(tx)
                    do {
                        try failing.save(tx)  // didCreate throws after its INSERT ran
                        throw ConformanceFailure(description: "didCreate throwing fails the save")
                    } catch is ConfHooked.Refused {}
                    try check(failing.id == nil, "the failed save left its model new")
                    _ = try ConfHooked.query(on: tx).count()  // refused
                    throw ConformanceFailure(description: "a read ran in an aborted transaction")
                }
            } catch let e where isAborted(e) {}
            try checkEqual(try await ConfHooked.query(on: db).count(), 0, "nothing committed, the INSERT included")
            try await ok.save(on: db)  // new again: it inserts
            try checkEqual(try await ConfHooked.query(on: db).count(), 1, "the model saved before the failure inserts")
        },
        ConformanceCase("transaction.abort-mode-a-failed-read-aborts-too") { db in
            try await Fixtures.migrate(db)
            do {
                try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                    var a = ConfUser(name: "a", email: "a@x.io")
                    try a.save(tx)
                    do {
                        _ = try ConfNeverMigrated.query(on: tx).count()
                        throw ConformanceFailure(description: "a missing table was read")
                    } catch StrataError.noSuchTable {}
                }
                throw ConformanceFailure(description: "an aborted transaction returned as if it committed")
            } catch let e where isAborted(e) {}
            try checkEqual(try await ConfUser.query(on: db).count(), 0, "nothing committed")
        },
        ConformanceCase("transaction.abort-mode-refusals-before-any-driver-abort-nothing") { db in
            try await Fixtures.migrate(db)
            try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                var a = ConfUser(name: "a", email: "a@x.io")
                try a.save(tx)
                var bad = ConfUser(name: "nul\u{0}name", email: "b@x.io")
                do {
                    try bad.save(tx)
                    throw ConformanceFailure(description: "text holding NUL was stored")
                } catch StrataError.invalidValue {}
                do {
                    _ = try ConfUser.query(on: tx).limit(-1).all()
                    throw ConformanceFailure(description: "a negative limit ran")
                } catch StrataError.invalidQuery {}
                var c = ConfUser(name: "c", email: "c@x.io")
                try c.save(tx)
            }
            try checkEqual(
                try await ConfUser.query(on: db).order(\.name).all().map(\.name), ["a", "c"],
                "refused before running, the values aborted nothing")
        },
        ConformanceCase("transaction.abort-mode-bulk-writes-that-fail-leave-models-and-rows-as-they-were") { db in
            // insertAll, upsertAll and load each fail in a driver (a unique index) after a statement ran in the
            // transaction: the models keep the values they had, the transaction aborts, and nothing of it commits.
            try await UpsertWorld.reset(db)
            var kept = UpsertWorld.sku("k", "kept", region: "eu")
            try await kept.save(on: db)
            let conflicting = [UpsertWorld.sku("a", "a"), UpsertWorld.sku("b", "kept", region: "eu")]
            /// Runs the write `name` of `conflicting`, catching its unique violation: the models it leaves.
            func write(_ name: String, _ tx: Transaction) throws -> [ConfSku] {
                var models = conflicting
                do {
                    switch name {
                    case "insertAll": try ConfSku.insertAll(&models, tx)
                    // The conflict is on (region, name), not on the target.
                    case "upsertAll": try ConfSku.upsertAll(&models, tx, onConflict: [\.code])
                    default: try ConfSku.load(models, tx)
                    }
                } catch StrataError.uniqueViolation {}
                return models
            }
            for name in ["insertAll", "upsertAll", "load"] {
                var after: [ConfSku] = []
                var refused = false
                do {
                    try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                        var first = UpsertWorld.sku("f-\(name)", "first")
                        try first.save(tx)
                        after = try write(name, tx)
                        do {
                            _ = try ConfSku.query(on: tx).count()
                        } catch let e where isAborted(e) {
                            refused = true
                        }
                    }
                    throw ConformanceFailure(description: "\(name): an aborted transaction returned as if it committed")
                } catch let e where isAborted(e) {}
                try check(refused, "\(name): the statement after the failure was refused")
                try checkEqual(after, conflicting, "\(name): the models are as they were")
                try checkEqual(
                    try await UpsertWorld.rows(db), ["k:kept:0"], "\(name): nothing of the transaction committed")
            }
        },
    ]
}
