// Cases+Transactions: all or nothing, savepoints that roll back alone, errors that leave a transaction usable.
import Foundation
import Strata

extension ConformanceSuite {
    static let transactionCases: [ConformanceCase] = [
        ConformanceCase("transaction.commits") { db in
            try await Fixtures.migrate(db)
            try await db.transaction { tx in
                var a = ConfGroup(title: "a")
                var b = ConfGroup(title: "b")
                try a.save(tx)
                try b.save(tx)
            }
            try checkEqual(try await ConfGroup.query(on: db).count(), 2, "both rows committed")
        },
        ConformanceCase("transaction.rolls-back-on-error") { db in
            try await Fixtures.migrate(db)
            struct Boom: Error {}
            do {
                try await db.transaction { tx in
                    var a = ConfGroup(title: "a")
                    try a.save(tx)
                    throw Boom()
                }
                throw ConformanceFailure(description: "the error was swallowed")
            } catch is Boom {}
            try checkEqual(try await ConfGroup.query(on: db).count(), 0, "nothing committed")
        },
        ConformanceCase("transaction.rollback-is-quiet") { db in
            try await Fixtures.migrate(db)
            try await db.transaction { tx in
                var a = ConfGroup(title: "a")
                try a.save(tx)
                throw Rollback()
            }
            try checkEqual(try await ConfGroup.query(on: db).count(), 0, "rolled back")
            do {
                _ = try await db.transaction { tx -> Int in
                    var a = ConfGroup(title: "a")
                    try a.save(tx)
                    throw Rollback()
                }
                throw ConformanceFailure(description: "a value-returning body cannot swallow Rollback")
            } catch is Rollback {}
        },
        ConformanceCase("transaction.savepoint-rolls-back-alone") { db in
            try await Fixtures.migrate(db)
            try await db.transaction { tx in
                var keep = ConfGroup(title: "keep")
                try keep.save(tx)
                try tx.savepoint { sp in
                    var drop = ConfGroup(title: "drop")
                    try drop.save(sp)
                    throw Rollback()
                }
                var after = ConfGroup(title: "after")
                try after.save(tx)
            }
            let titles = try await ConfGroup.query(on: db).order(\.title).all().map(\.title)
            try checkEqual(titles, ["after", "keep"], "savepoint undone alone")
        },
        ConformanceCase("transaction.nested-savepoints") { db in
            try await Fixtures.migrate(db)
            try await db.transaction { tx in
                var l1 = ConfGroup(title: "level1")
                try l1.save(tx)
                try tx.savepoint { sp in
                    var l2 = ConfGroup(title: "level2")
                    try l2.save(sp)
                    try sp.savepoint { sp2 in
                        var l3 = ConfGroup(title: "level3")
                        try l3.save(sp2)
                        throw Rollback()
                    }
                    try sp.savepoint { sp2 in
                        var l3b = ConfGroup(title: "level3b")
                        try l3b.save(sp2)
                    }
                }
            }
            let titles = try await ConfGroup.query(on: db).order(\.title).all().map(\.title)
            try checkEqual(titles, ["level1", "level2", "level3b"], "only the rolled-back level is gone")
        },
        ConformanceCase("transaction.error-leaves-it-usable") { db in
            try await Fixtures.migrate(db)
            try await db.transaction { tx in
                var a = ConfUser(name: "a", email: "dup@x.io")
                try a.save(tx)
                var b = ConfUser(name: "b", email: "dup@x.io")
                do {
                    try b.save(tx)
                    throw ConformanceFailure(description: "duplicate accepted")
                } catch StrataError.uniqueViolation {}
                var c = ConfUser(name: "c", email: "c@x.io")
                try c.save(tx)
            }
            let names = try await ConfUser.query(on: db).order(\.name).all().map(\.name)
            try checkEqual(names, ["a", "c"], "rows before and after the caught error committed")
        },
        ConformanceCase("transaction.handle-is-scoped") { db in
            try await Fixtures.migrate(db)
            let escaped = try await db.transaction { tx in ObjectIdentifierBox(tx) }
            try checkThrowsSync(
                "use after scope",
                {
                    if case .transactionMisuse = $0 { return true }
                    return false
                }
            ) { try ConfGroup.query(on: escaped.tx).count() }
        },
        ConformanceCase("transaction.isolated-until-commit") { db in
            // Another connection reads while the transaction is open: it sees the last committed state,
            // neither the new row nor the changed one; after COMMIT it sees both.
            try await Fixtures.migrate(db)
            var before = ConfGroup(title: "before")
            try await before.save(on: db)
            let committed = before
            let many = try await Siblings.open(db, connections: 2)
            defer { many.close() }
            let written = Signal()
            let readerDone = DispatchSemaphore(value: 0)
            let writer = Siblings.onOwnThread {
                defer { written.fire() }
                try await many.transaction { tx in
                    var inside = ConfGroup(title: "inside")
                    try inside.save(tx)
                    var changed = committed
                    changed.title = "changed"
                    try changed.save(tx)
                    let titles = try ConfGroup.query(on: tx).order(\.title).all().map(\.title)
                    try checkEqual(titles, ["changed", "inside"], "visible inside the transaction")
                    written.fire()
                    let read = readerDone.wait(timeout: .now() + 120)
                    try check(read == .success, "the other connection never read")
                }
            }
            // The reader runs on a thread of its own too, so a busy cooperative pool (a whole test run at once)
            // cannot keep it from reading while the writer waits.
            let reader = Siblings.onOwnThread { () async -> Result<[String], any Error> in
                await written.wait()
                defer { readerDone.signal() }
                do {
                    return .success(try await ConfGroup.query(on: many).order(\.title).all().map(\.title))
                } catch {
                    return .failure(error)
                }
            }
            let seen = try await reader.value
            try await writer.value
            try checkEqual(try seen.get(), ["before"], "another connection sees the last committed state meanwhile")
            for reader in [db, many] {
                let titles = try await ConfGroup.query(on: reader).order(\.title).all().map(\.title)
                try checkEqual(titles, ["changed", "inside"], "visible to every connection after commit")
            }
        },
    ]
}

/// Carries a transaction handle out of its scope, to prove it is then refused.
/// `@unchecked Sendable`: the handle is only used again on the same task, after its scope ended.
private final class ObjectIdentifierBox: @unchecked Sendable {
    let tx: Transaction
    init(_ tx: Transaction) { self.tx = tx }
}
