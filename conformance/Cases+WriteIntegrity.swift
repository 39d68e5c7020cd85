// Cases+WriteIntegrity: a write that throws, or whose transaction rolls back, leaves models and rows as they were.
import Foundation
import Strata

@Model(table: "conf_ledger")
struct ConfLedger: Codable, Hashable {
    var id: Int64?
    var code: String
    var amount: Int64 = 0
    @CreatedAt var createdAt = Date(timeIntervalSince1970: 0)
    @UpdatedAt var updatedAt: Date?
    @Version var version: Int64 = 0
    static var indexes: [Index] { [.on(\ConfLedger.code, unique: true)] }
}

/// A model whose after-callbacks throw for names starting with "fail".
@Model(table: "conf_hooked")
struct ConfHooked {
    var id: Int64?
    var name: String
    struct Refused: Error {}
    func didCreate(_ tx: Transaction) throws { if name.hasPrefix("fail") { throw Refused() } }
    func didUpdate(_ tx: Transaction) throws { if name.hasPrefix("fail") { throw Refused() } }
}

extension ConformanceSuite {
    static let writeIntegrityCases: [ConformanceCase] = [
        ConformanceCase("write.failed-save-leaves-the-model-as-it-was") { db in
            try await db.migrate(ConfLedger.self)
            var a = ConfLedger(code: "a")
            try await a.save(on: db)
            var b = ConfLedger(code: "b")
            try await b.save(on: db)
            // In a caller's transaction (save(on:) works on a copy of its own).
            var mine = try await db.withConnection { tx -> ConfLedger in
                guard var mine = try ConfLedger.find(a.id ?? -1, tx) else {
                    throw ConformanceFailure(description: "the row is found")
                }
                let before = (mine.version, mine.updatedAt, mine.createdAt)
                mine.code = "b"
                try checkThrowsSync(
                    "a save hitting a unique index", { if case .uniqueViolation = $0 { true } else { false } }
                ) {
                    try mine.save(tx)
                }
                try checkEqual(mine.version, before.0, "the version is the one read, not one ahead")
                try checkEqual(mine.updatedAt, before.1, "updatedAt is not stamped")
                try checkEqual(mine.createdAt, before.2, "createdAt is as read")
                try check(mine.hasChanges, "the assignment is still marked to be written")
                return mine
            }
            // Another writer saves the row: the stale model's next save must be refused, not overwrite it.
            guard var theirs = try await ConfLedger.find(a.id ?? -1, on: db) else {
                throw ConformanceFailure(description: "the row is found again")
            }
            theirs.amount = 7
            try await theirs.save(on: db)
            mine.code = "a2"
            try await checkThrows("the stale model's next save", { if case .staleRecord = $0 { true } else { false } })
            {
                try await mine.save(on: db)
            }
            let stored = try await ConfLedger.find(a.id ?? -1, on: db)
            try checkEqual(stored?.amount, 7, "the other writer's value is kept")
            try checkEqual(stored?.code, "a", "and the stale code was not written")
        },
        ConformanceCase("write.failed-callback-save-in-a-transaction-can-be-saved-again") { db in
            try await db.migrate(ConfHooked.self)
            let names = try await db.transaction { tx -> [String] in
                var h = ConfHooked(name: "fail-create")
                do {
                    try h.save(tx)
                    throw ConformanceFailure(description: "didCreate throwing fails the save")
                } catch is ConfHooked.Refused {}
                try checkEqual(h.id, nil, "the failed insert gave the model no id")
                h.name = "created"
                try h.save(tx)
                try check(h.id != nil, "the second save inserted the row")
                h.name = "fail-update"
                do {
                    try h.save(tx)
                    throw ConformanceFailure(description: "didUpdate throwing fails the save")
                } catch is ConfHooked.Refused {}
                try check(h.hasChanges, "the failed update left the name marked changed")
                h.name = "updated"
                try h.save(tx)
                return try ConfHooked.query(on: tx).all().map(\.name)
            }
            try checkEqual(names, ["updated"], "both fixed saves wrote, the failed ones nothing")
            try checkEqual(try await ConfHooked.query(on: db).all().map(\.name), ["updated"], "after the commit")
        },
        ConformanceCase("write.rolled-back-insert-makes-the-model-new-again") { db in
            try await db.migrate(ConfLedger.self)
            let outcome = try await db.withConnection { tx -> (Int64?, Int64?, [String]) in
                var first = ConfLedger(code: "first")
                try tx.savepoint { tx in  // at depth 0: a whole transaction
                    try first.save(tx)
                    throw Rollback()
                }
                // On SQLite and memory the next insert may take the same id; the first model must not update it.
                var other = ConfLedger(code: "other", amount: 5)
                try other.save(tx)
                first.amount = 1
                try first.save(tx)
                try checkThrowsSync(
                    "deleting a model whose insert was undone", { $0 == .notPersisted(model: "ConfLedger") }
                ) {
                    var inner = ConfLedger(code: "inner")
                    try tx.savepoint { tx in
                        try inner.save(tx)
                        throw Rollback()
                    }
                    try inner.delete(tx)
                }
                return (first.id, other.id, try ConfLedger.query(on: tx).order(\.code).all().map(\.code))
            }
            try check(outcome.0 != nil && outcome.0 != outcome.1, "the first model got a row of its own")
            try checkEqual(outcome.2, ["first", "other"], "the other writer's row is untouched")
            let other = try await ConfLedger.query(on: db).where(\.code == "other").first()
            try checkEqual(other?.amount, 5, "and keeps its amount")
        },
        ConformanceCase("write.rolled-back-insert-all-inserts-again") { db in
            try await db.migrate(ConfLedger.self)
            let ids = try await db.withConnection { tx -> ([Int64?], [Int64?], [Int64?]) in
                var batch = [ConfLedger(code: "x"), ConfLedger(code: "y")]
                try tx.savepoint { tx in  // at depth 0: a whole transaction
                    try ConfLedger.insertAll(&batch, tx)
                    throw Rollback()
                }
                let undone = batch.map(\.id)
                var other = [ConfLedger(code: "other", amount: 5)]
                try ConfLedger.insertAll(&other, tx)
                try ConfLedger.insertAll(&batch, tx)  // new again: inserted under new ids
                return (undone, other.map(\.id), batch.map(\.id))
            }
            try check(ids.0.allSatisfy { $0 != nil }, "the undone insertAll gave the models ids")
            try check(
                ids.2.allSatisfy { $0 != nil && $0 != ids.1[0] } && Set(ids.2).count == 2,
                "inserted again, each model has a row of its own")
            let rows = try await ConfLedger.query(on: db).order(\.code).all()
            try checkEqual(rows.map(\.code), ["other", "x", "y"], "three rows")
            try checkEqual(rows.map(\.amount), [5, 0, 0], "the other row untouched")
        },
        ConformanceCase("write.model-read-in-a-rolled-back-scope-is-not-written-by-its-id") { db in
            // Found by strata fuzz-writes: a row inserted and read in a savepoint that rolled back; SQLite and memory
            // give its id to the next row, which the stale model must never update.
            try await db.migrate(ConfLedger.self)
            let amounts = try await db.withConnection { tx -> [Int64] in
                var read: ConfLedger?
                try tx.savepoint { tx in
                    var a = ConfLedger(code: "a")
                    try a.save(tx)
                    read = try ConfLedger.query(on: tx).where(\.code == "a").first()
                    throw Rollback()
                }
                var b = ConfLedger(code: "b")
                try b.save(tx)
                guard var stale = read else { throw ConformanceFailure(description: "the row was read") }
                stale.amount = 5
                let readUndone = { (e: StrataError) in if case .staleRecord(_, _, -1) = e { true } else { false } }
                try checkThrowsSync("saving the model read in the rolled-back scope", readUndone) { try stale.save(tx) }
                try checkThrowsSync("deleting it", readUndone) { try stale.delete(tx) }
                try checkThrowsSync("reloading it by its id", readUndone) { try stale.reload(tx) }
                return try ConfLedger.query(on: tx).all().map(\.amount)
            }
            try checkEqual(amounts, [0], "the other row is untouched")
        },
        ConformanceCase("write.rolled-back-update-is-written-again") { db in
            try await db.migrate(ConfLedger.self)
            var row = ConfLedger(code: "row")
            try await row.save(on: db)
            let saved = try await db.withConnection { tx -> ConfLedger in
                var r = row
                try tx.savepoint { tx in
                    r.amount = 9
                    try r.save(tx)
                    throw Rollback()
                }
                try r.save(tx)  // nothing newly assigned, but the rolled-back write is written again
                return r
            }
            try checkEqual(saved.version, 1, "one update counted, the undone one forgotten")
            let stored = try await ConfLedger.find(row.id ?? -1, on: db)
            try checkEqual(stored?.amount, 9, "the amount the model holds is stored")
            try checkEqual(stored?.version, 1, "at the version the model holds")
        },
        ConformanceCase("write.decoded-model-is-checked-against-its-version") { db in
            try await db.migrate(ConfLedger.self)
            var original = ConfLedger(code: "doc")
            try await original.save(on: db)
            let created = original.createdAt
            let staleBody = try JSONEncoder().encode(original)  // version 0
            original.amount = 1
            try await original.save(on: db)  // version 1
            var stale = try JSONDecoder().decode(ConfLedger.self, from: staleBody)
            stale.amount = 100
            try await checkThrows(
                "saving a decoded body at an old version",
                { if case .staleRecord(_, _, 0) = $0 { true } else { false } }
            ) {
                try await stale.save(on: db)
            }
            try checkEqual(stale.version, 0, "the refused model keeps its version")
            var current = try JSONDecoder().decode(ConfLedger.self, from: try JSONEncoder().encode(original))
            current.createdAt = Date(timeIntervalSince1970: 86_400)
            current.amount = 2
            try await current.save(on: db)
            try checkEqual(current.version, 2, "a body at the row's version saves and moves it on")
            let stored = try await ConfLedger.find(original.id ?? -1, on: db)
            try checkEqual(stored?.amount, 2, "its values are stored")
            try checkEqual(stored?.createdAt, created, "the creation time is never rewritten by an update")
            try checkEqual(stored?.version, 2, "the row's version")
            var fresh = ConfLedger(id: 99, code: "new")
            try await fresh.save(on: db)
            try check(
                fresh.createdAt > Date(timeIntervalSince1970: 0), "a decoded model with no row is inserted and stamped")
        },
        ConformanceCase("write.failed-insertAll-keeps-nothing") { db in
            try await db.migrate(ConfLedger.self)
            // More rows than one statement binds (and than PostgreSQL's staging threshold), the last a duplicate.
            var batch = (0..<7_000).map { ConfLedger(code: "c\($0)") }
            batch.append(ConfLedger(code: "c0"))
            try await db.withConnection { tx in
                try checkThrowsSync("a duplicate at the end", { if case .uniqueViolation = $0 { true } else { false } })
                {
                    try ConfLedger.insertAll(&batch, tx)
                }
            }
            try check(batch.allSatisfy { $0.id == nil }, "no model got an id")
            try checkEqual(try await ConfLedger.query(on: db).count(), 0, "no row was kept")
            var upserts = (0..<7_000).map { ConfLedger(code: "u\($0)") } + [ConfLedger(code: "u1", amount: -1)]
            try await checkThrows(
                "an upsert batch updating one key twice", { if case .invalidQuery = $0 { true } else { false } }
            ) {
                try await ConfLedger.upsertAll(&upserts, on: db, onConflict: [\.code])
            }
            try check(upserts.allSatisfy { $0.id == nil && $0.updatedAt == nil }, "no upserted model changed")
        },
        ConformanceCase("write.bulk-loads-notify-observers") { db in
            try await Fixtures.migrate(db)
            var values = ConfGroup.query(on: db).order(\.title).observe().makeAsyncIterator()
            try checkEqual(try await values.next()?.count, 0, "the initial value")
            try await ConfGroup.load([ConfGroup(title: "l1"), ConfGroup(title: "l2")], on: db)
            try checkEqual(try await values.next()?.count, 2, "a load is announced (COPY on PostgreSQL)")
            var many = (0..<1_500).map { ConfGroup(title: "g\($0)") }
            try await ConfGroup.insertAll(&many, on: db)
            try checkEqual(try await values.next()?.count, 1_502, "a staged insertAll is announced")
        },
        ConformanceCase("model.built-in-code-equals-its-fetched-twin") { db in
            try await db.migrate(ConfLedger.self)
            var saved = ConfLedger(code: "twin", amount: 3)
            try await saved.save(on: db)
            guard let fetched = try await ConfLedger.find(saved.id ?? -1, on: db) else {
                throw ConformanceFailure(description: "the row is found")
            }
            let built = ConfLedger(
                id: fetched.id, code: "twin", amount: 3, createdAt: fetched.createdAt, updatedAt: fetched.updatedAt,
                version: fetched.version)
            try checkEqual(built, fetched, "a model built in code equals its fetched twin")
            try checkEqual(built.hashValue, fetched.hashValue, "and hashes the same")
            try checkEqual(saved, fetched, "the saved model equals the fetched one")
            let json = String(decoding: try JSONEncoder().encode(fetched), as: UTF8.self)
            try check(!json.contains("_persistence"), "the persistence state is not part of the JSON: \(json)")
        },
        ConformanceCase("write.raw-begin-left-open-is-rolled-back") { db in
            try await Fixtures.migrate(db)
            struct Abort: Error {}
            do {
                try await db.withConnection { tx in
                    try tx.unsafeRawExecute("BEGIN")
                    var g = ConfGroup(title: "inside")
                    try g.save(tx)
                    throw Abort()
                }
            } catch is Abort {}
            try await checkThrows(
                "a call returning with its raw BEGIN open", { if case .transactionMisuse = $0 { true } else { false } }
            ) {
                try await db.withConnection { tx in
                    try tx.unsafeRawExecute("BEGIN")
                    var g = ConfGroup(title: "inside too")
                    try g.save(tx)
                }
            }
            var after = ConfGroup(title: "after")
            try await after.save(on: db)
            let seen = try await db.withConnection { tx in try ConfGroup.query(on: tx).all().map(\.title) }
            try checkEqual(seen, ["after"], "the next call's save runs in autocommit; the stray writes are gone")
        },
        ConformanceCase("write.raw-transaction-rolled-back-makes-the-model-new-again") { db in
            // A model saved inside a raw BEGIN … ROLLBACK kept its id, which the next insert reused on SQLite and
            // memory: its next save then rewrote that other row.
            try await Fixtures.migrate(db)
            var g = ConfGroup(title: "rolled back")
            try await db.withConnection { tx in
                try tx.unsafeRawExecute("BEGIN")
                try g.save(tx)
                try tx.unsafeRawExecute("ROLLBACK")
            }
            var other = ConfGroup(title: "other")
            try await other.save(on: db)
            g.title = "saved again"
            try await g.save(on: db)
            try check(g.id != other.id, "the model took a new id, not the other row's")
            let titles = try await ConfGroup.query(on: db).order(\.title).all().map(\.title)
            try checkEqual(titles, ["other", "saved again"], "both rows, the other one untouched")
            struct Abort: Error {}
            var left = ConfGroup(title: "left open")
            do {
                try await db.withConnection { tx in
                    try tx.unsafeRawExecute("BEGIN")
                    try left.save(tx)
                    throw Abort()
                }
            } catch is Abort {}
            try await left.save(on: db)
            try checkEqual(
                try await ConfGroup.query(on: db).count(), 3, "the insert rolled back with the call ran again")
        },
        ConformanceCase("write.raw-transaction-committed-keeps-the-model") { db in
            try await Fixtures.migrate(db)
            var g = ConfGroup(title: "committed")
            try await db.withConnection { tx in
                try tx.unsafeRawExecute("BEGIN")
                try g.save(tx)
                try tx.savepoint { tx in
                    var inner = ConfGroup(title: "inner")
                    try inner.save(tx)
                    throw Rollback()
                }
                try tx.unsafeRawExecute("COMMIT")
            }
            g.title = "renamed"
            try await g.save(on: db)
            try checkEqual(try await ConfGroup.query(on: db).all().map(\.title), ["renamed"], "one row, updated")
        },
        ConformanceCase("write.raw-transaction-control-strata-cannot-follow-is-refused") { db in
            try await Fixtures.migrate(db)
            let misuse: (StrataError) -> Bool = { if case .transactionMisuse = $0 { true } else { false } }
            try await checkThrows("a raw SAVEPOINT", misuse) {
                try await db.withConnection { tx in try tx.unsafeRawExecute("SAVEPOINT mine") }
            }
            try await db.transaction { tx in
                var g = ConfGroup(title: "kept")
                try g.save(tx)
                try checkThrowsSync("a raw COMMIT inside db.transaction", misuse) { try tx.unsafeRawExecute("COMMIT") }
                try checkThrowsSync("a raw ROLLBACK inside db.transaction", misuse) {
                    try tx.unsafeRawExecute("  -- comment\n rollback")
                }
                try checkThrowsSync("a raw BEGIN inside db.transaction", misuse) { try tx.unsafeRawExecute("BEGIN") }
            }
            try checkEqual(try await ConfGroup.query(on: db).all().map(\.title), ["kept"], "the transaction committed")
        },
    ]
}
