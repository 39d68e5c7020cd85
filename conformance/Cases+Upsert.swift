// Cases+Upsert: insert-or-update and insert-or-keep on a declared unique index, with the id of the row written or kept.
import Foundation
import Strata

@Model(table: "conf_sku")
struct ConfSku: Equatable {
    var id: Int64?
    var code: String
    var region: String
    var name: String
    var stock = 0
    var barcode: String?

    static var indexes: [Index] {
        [
            .on(\ConfSku.code, unique: true), .on(\ConfSku.region, \ConfSku.name, unique: true),
            .on(\ConfSku.barcode, unique: true), .on(\ConfSku.stock),
        ]
    }

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.name)
        v.uniqueness(\.code)  // the conflict handles it: upsert skips rules that read the database
    }
}

@Model(table: "conf_tally")
struct ConfTally {
    var id: Int64?
    var key: String
    var count = 0
    @CreatedAt var createdAt = Date(timeIntervalSince1970: 0)
    @UpdatedAt var updatedAt: Date?
    @Version var version: Int64 = 0

    static var indexes: [Index] { [.on(\ConfTally.key, unique: true)] }
}

enum UpsertWorld {
    /// Fresh `conf_sku` and `conf_tally` tables (dropped first: the suite's reset does not know them).
    static func reset(_ db: Database) async throws {
        try await db.withConnection { tx in
            try tx.dropTable("conf_sku")
            try tx.dropTable("conf_tally")
        }
        try await db.migrate(ConfSku.self, ConfTally.self)
    }

    static func sku(_ code: String, _ name: String, region: String = "eu", stock: Int = 0) -> ConfSku {
        ConfSku(code: code, region: region, name: name, stock: stock)
    }

    /// Every row as `code:name:stock`, by code.
    static func rows(_ db: Database) async throws -> [String] {
        try await ConfSku.query(on: db).order(\.code).all().map { "\($0.code):\($0.name):\($0.stock)" }
    }
}

extension ConformanceSuite {
    static let upsertCases: [ConformanceCase] = [
        ConformanceCase("upsert.inserts-a-new-row") { db in
            try await UpsertWorld.reset(db)
            var a = UpsertWorld.sku("A1", "apple", stock: 3)
            try await a.upsert(on: db, onConflict: \.code)
            try check(a.id != nil, "the inserted row's id is handed back")
            try checkEqual(try await ConfSku.find(a.id ?? -1, on: db)?.name, "apple", "row stored")
            try checkEqual(try await ConfSku.query(on: db).count(), 1, "one row")
        },
        ConformanceCase("upsert.updates-the-conflicting-row-and-keeps-its-id") { db in
            try await UpsertWorld.reset(db)
            var first = UpsertWorld.sku("A1", "apple", stock: 3)
            try await first.save(on: db)
            var again = UpsertWorld.sku("A1", "apricot", stock: 9)
            try await again.upsert(on: db, onConflict: \.code)
            try checkEqual(again.id, first.id, "the updated row's id")
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apricot:9"], "every column updated, no new row")
        },
        ConformanceCase("upsert.updates-only-the-listed-columns") { db in
            try await UpsertWorld.reset(db)
            var first = UpsertWorld.sku("A1", "apple", stock: 3)
            try await first.save(on: db)
            var again = UpsertWorld.sku("A1", "apricot", stock: 9)
            try await again.upsert(on: db, onConflict: \.code, do: .update(\.stock))
            try checkEqual(again.id, first.id, "id of the updated row")
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apple:9"], "stock updated, name kept")
        },
        ConformanceCase("upsert.nothing-keeps-the-row-and-hands-back-its-id") { db in
            try await UpsertWorld.reset(db)
            var first = UpsertWorld.sku("A1", "apple", stock: 3)
            try await first.save(on: db)
            var again = UpsertWorld.sku("A1", "apricot", stock: 9)
            try await again.upsert(on: db, onConflict: \.code, do: .nothing)
            try checkEqual(again.id, first.id, "DO NOTHING returns no row; the kept row's id is read back")
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apple:3"], "row untouched")
            var fresh = UpsertWorld.sku("B2", "banana")
            try await fresh.upsert(on: db, onConflict: \.code, do: .nothing)
            try check(fresh.id != nil && fresh.id != first.id, "a new row is inserted and its id handed back")
        },
        ConformanceCase("upsert.all-maps-ids-to-models-in-order") { db in
            try await UpsertWorld.reset(db)
            var stored = [UpsertWorld.sku("B", "b0"), UpsertWorld.sku("D", "d0")]
            try await ConfSku.insertAll(&stored, on: db)
            var batch = ["A", "B", "C", "D", "E"].map { UpsertWorld.sku($0, $0.lowercased() + "1", stock: 1) }
            try await ConfSku.upsertAll(&batch, on: db, onConflict: [\.code])
            try checkEqual(batch[1].id, stored[0].id, "B keeps its id")
            try checkEqual(batch[3].id, stored[1].id, "D keeps its id")
            for m in batch {
                try checkEqual(try await ConfSku.find(m.id ?? -1, on: db)?.code, m.code, "id of \(m.code) is its row's")
            }
            try checkEqual(
                try await UpsertWorld.rows(db), ["A:a1:1", "B:b1:1", "C:c1:1", "D:d1:1", "E:e1:1"], "all written")
        },
        ConformanceCase("upsert.all-nothing-maps-kept-and-inserted-ids") { db in
            try await UpsertWorld.reset(db)
            var stored = [UpsertWorld.sku("B", "b0"), UpsertWorld.sku("D", "d0")]
            try await ConfSku.insertAll(&stored, on: db)
            var batch = ["A", "B", "C", "D", "E"].map { UpsertWorld.sku($0, $0.lowercased() + "1") }
            batch[2].barcode = nil
            try await ConfSku.upsertAll(&batch, on: db, onConflict: [\.code], do: .nothing)
            try checkEqual(batch[1].id, stored[0].id, "kept B")
            try checkEqual(batch[3].id, stored[1].id, "kept D")
            for m in batch {
                try checkEqual(try await ConfSku.find(m.id ?? -1, on: db)?.code, m.code, "id of \(m.code) is its row's")
            }
            try checkEqual(
                try await UpsertWorld.rows(db), ["A:a1:0", "B:b0:0", "C:c1:0", "D:d0:0", "E:e1:0"],
                "kept rows untouched")
        },
        ConformanceCase("upsert.composite-unique-key") { db in
            try await UpsertWorld.reset(db)
            var first = UpsertWorld.sku("A1", "apple", region: "eu", stock: 1)
            try await first.save(on: db)
            var other = UpsertWorld.sku("A2", "apple", region: "us", stock: 2)
            try await other.upsert(on: db, onConflict: \.region, \.name)
            try check(other.id != first.id, "another region is another row")
            var same = UpsertWorld.sku("A1", "apple", region: "eu", stock: 5)
            try await same.upsert(on: db, onConflict: \.name, \.region, do: .update(\.stock))
            try checkEqual(same.id, first.id, "target columns in any order")
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apple:5", "A2:apple:2"], "composite conflict updated")
        },
        ConformanceCase("upsert.target-must-be-a-declared-unique-index") { db in
            try await UpsertWorld.reset(db)
            var a = UpsertWorld.sku("A1", "apple")
            try await a.save(on: db)
            for (what, target) in [
                ("non-unique index", [\ConfSku.stock]), ("no index", [\ConfSku.name]),
                ("part of a composite index", [\ConfSku.region]), ("primary key", [\ConfSku.id]),
            ] as [(String, [PartialKeyPath<ConfSku>])] {
                var b = UpsertWorld.sku("B1", "banana")
                try await checkThrows(
                    what,
                    {
                        guard case .invalidQuery(let m) = $0 else { return false }
                        return m.contains("ConfSku(") && m.contains("unique index")
                    }
                ) {
                    var batch = [b]
                    try await ConfSku.upsertAll(&batch, on: db, onConflict: target)
                }
                try checkEqual(b.id, nil, "\(what): no id")
                b.name = "x"
            }
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apple:0"], "nothing written")
        },
        ConformanceCase("upsert.null-key-never-conflicts") { db in
            try await UpsertWorld.reset(db)
            var a = UpsertWorld.sku("A1", "apple")
            try await a.upsert(on: db, onConflict: \.barcode)
            var b = UpsertWorld.sku("B1", "banana")
            try await b.upsert(on: db, onConflict: \.barcode, do: .nothing)
            try check(a.id != nil && b.id != nil && a.id != b.id, "two NULL barcodes are two rows")
            var c = UpsertWorld.sku("C1", "cherry")
            c.barcode = "123"
            var d = UpsertWorld.sku("D1", "date")
            d.barcode = "123"
            try await c.upsert(on: db, onConflict: \.barcode)
            try await d.upsert(on: db, onConflict: \.barcode)
            try checkEqual(d.id, c.id, "equal barcodes conflict")
            try checkEqual(
                try await UpsertWorld.rows(db), ["A1:apple:0", "B1:banana:0", "D1:date:0"], "C1 became D1 by barcode")
        },
        ConformanceCase("upsert.conflict-on-another-unique-index-is-a-unique-violation") { db in
            try await UpsertWorld.reset(db)
            var a = UpsertWorld.sku("A1", "apple", region: "eu")
            try await a.save(on: db)
            var b = UpsertWorld.sku("B1", "apple", region: "eu")
            try await checkThrows(
                "region+name taken by another code",
                {
                    if case .uniqueViolation = $0 { return true }
                    return false
                }
            ) { try await b.upsert(on: db, onConflict: \.code) }
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apple:0"], "nothing written")
        },
        ConformanceCase("upsert.repeated-key-in-one-batch") { db in
            try await UpsertWorld.reset(db)
            let twice = [UpsertWorld.sku("A1", "apple"), UpsertWorld.sku("A1", "apricot")]
            try await checkThrows(
                "update the same key twice",
                {
                    guard case .invalidQuery(let m) = $0 else { return false }
                    return m.contains("ConfSku") && m.contains("code")
                }
            ) {
                var copy = twice
                try await ConfSku.upsertAll(&copy, on: db, onConflict: [\.code])
            }
            try checkEqual(try await ConfSku.query(on: db).count(), 0, "nothing written")
            var kept = twice
            try await ConfSku.upsertAll(&kept, on: db, onConflict: [\.code], do: .nothing)
            try checkEqual(kept[0].id, kept[1].id, "with DO NOTHING the second is the first's row")
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apple:0"], "the first one written")
        },
        ConformanceCase("upsert.repeated-key-compared-by-bytes") { db in
            try await UpsertWorld.reset(db)
            // "é" composed and decomposed: one String to Swift, two keys to every database's unique index.
            var two = [UpsertWorld.sku("caf\u{E9}", "composed"), UpsertWorld.sku("cafe\u{301}", "decomposed")]
            try await ConfSku.upsertAll(&two, on: db, onConflict: [\.code])
            try check(two[0].id != nil && two[1].id != nil && two[0].id != two[1].id, "two rows, two ids")
            try checkEqual(try await ConfSku.query(on: db).count(), 2, "both written")
            var twice = [UpsertWorld.sku("cafe\u{301}", "again"), UpsertWorld.sku("cafe\u{301}", "twice")]
            try await checkThrows(
                "the same bytes twice",
                {
                    guard case .invalidQuery(let m) = $0 else { return false }
                    return m.contains("ConfSku") && m.contains("code")
                }
            ) { try await ConfSku.upsertAll(&twice, on: db, onConflict: [\.code]) }
            try check(twice.allSatisfy { $0.id == nil }, "the refused models keep no id")
            let names = try await ConfSku.query(on: db).order(\.name).all().map(\.name)
            try checkEqual(names, ["composed", "decomposed"], "nothing written")
        },
        ConformanceCase("upsert.batches-of-other-sizes") { db in
            try await UpsertWorld.reset(db)
            // A connection that renders each batch size once must still bind each batch's own values.
            var three = [
                UpsertWorld.sku("A1", "apple", stock: 1), UpsertWorld.sku("B1", "banana", stock: 2),
                UpsertWorld.sku("C1", "cherry", stock: 3),
            ]
            try await ConfSku.upsertAll(&three, on: db, onConflict: [\.code])
            var two = [UpsertWorld.sku("B1", "blueberry", stock: 20), UpsertWorld.sku("D1", "date", stock: 4)]
            try await ConfSku.upsertAll(&two, on: db, onConflict: [\.code])
            try checkEqual(two[0].id, three[1].id, "a batch of two: the updated row's id")
            var again = [
                UpsertWorld.sku("A1", "apricot", stock: 10), UpsertWorld.sku("D1", "durian", stock: 40),
                UpsertWorld.sku("E1", "elder", stock: 5),
            ]
            try await ConfSku.upsertAll(&again, on: db, onConflict: [\.code])
            try checkEqual(again[0].id, three[0].id, "a batch of three again: A1's id")
            try checkEqual(again[1].id, two[1].id, "a batch of three again: D1's id")
            try check(again[2].id != nil && !(three + two).contains { $0.id == again[2].id }, "E1 is a new row")
            let written = ["A1:apricot:10", "B1:blueberry:20", "C1:cherry:3", "D1:durian:40", "E1:elder:5"]
            try checkEqual(try await UpsertWorld.rows(db), written, "every batch's own values")
            // A batch of a size that ran before fails on another unique index ("eu", "apricot" is A1's): nothing is
            // written and neither model changes.
            var failing = [UpsertWorld.sku("F1", "fig", stock: 6), UpsertWorld.sku("G1", "apricot", stock: 7)]
            try await checkThrows(
                "another unique index",
                {
                    if case .uniqueViolation = $0 { return true }
                    return false
                }
            ) { try await ConfSku.upsertAll(&failing, on: db, onConflict: [\.code]) }
            try check(failing.allSatisfy { $0.id == nil }, "the models keep no id")
            try checkEqual(try await UpsertWorld.rows(db), written, "nothing written")
        },
        ConformanceCase("upsert.stamps-and-version") { db in
            try await UpsertWorld.reset(db)
            var first = ConfTally(key: "k", count: 1)
            try await first.save(on: db)
            let stored = try await ConfTally.find(first.id ?? -1, on: db)
            try await Task.sleep(nanoseconds: 2_000_000)
            var again = ConfTally(key: "k", count: 5)
            try await again.upsert(on: db, onConflict: \.key)
            try checkEqual(again.id, first.id, "same row")
            let row = try await ConfTally.find(first.id ?? -1, on: db)
            try checkEqual(row?.count, 5, "count updated")
            try checkEqual(row?.createdAt, stored?.createdAt, "an updated row keeps its createdAt")
            try check((row?.updatedAt ?? .distantPast) > (stored?.updatedAt ?? .distantFuture), "updatedAt moves on")
            try checkEqual(row?.version, (stored?.version ?? -9) + 1, "version incremented")
            var kept = ConfTally(key: "k", count: 99)
            try await kept.upsert(on: db, onConflict: \.key, do: .nothing)
            let unchanged = try await ConfTally.find(first.id ?? -1, on: db)
            try checkEqual(unchanged?.count, 5, "kept row untouched")
            try checkEqual(unchanged?.version, row?.version, "a kept row's version stays")
            var fresh = ConfTally(key: "n", count: 1)
            try await fresh.upsert(on: db, onConflict: \.key)
            let inserted = try await ConfTally.find(fresh.id ?? -1, on: db)
            try checkEqual(inserted?.version, 0, "an inserted row's version is the model's")
            try checkEqual(inserted?.createdAt, fresh.createdAt, "an inserted row gets createdAt")
        },
        ConformanceCase("upsert.validation-runs-and-writes-nothing") { db in
            try await UpsertWorld.reset(db)
            var blank = UpsertWorld.sku("A1", "")
            try await checkThrows(
                "presence",
                {
                    guard case .validationFailed(let errors) = $0 else { return false }
                    return errors.contains { $0.field == "name" }
                }
            ) { try await blank.upsert(on: db, onConflict: \.code) }
            try checkEqual(try await ConfSku.query(on: db).count(), 0, "nothing written")
            var first = UpsertWorld.sku("A1", "apple")
            try await first.save(on: db)
            var same = UpsertWorld.sku("A1", "apricot")
            try await same.upsert(on: db, onConflict: \.code)
            try checkEqual(same.id, first.id, "the uniqueness rule does not stop an upsert of the same code")
        },
        ConformanceCase("upsert.model-with-an-id-is-refused") { db in
            try await UpsertWorld.reset(db)
            var a = UpsertWorld.sku("A1", "apple")
            try await a.save(on: db)
            try await checkThrows(
                "model with id",
                {
                    guard case .invalidQuery(let m) = $0 else { return false }
                    return m.contains("ConfSku")
                }
            ) { try await a.upsert(on: db, onConflict: \.code) }
        },
        ConformanceCase("upsert.all-large-batch-crosses-statements") { db in
            try await UpsertWorld.reset(db)
            var first = (0..<7_000).map { UpsertWorld.sku(String(format: "C%05d", $0 * 2), "n\($0 * 2)") }
            try await ConfSku.insertAll(&first, on: db)
            var batch = (0..<14_000).map { UpsertWorld.sku(String(format: "C%05d", $0), "m\($0)", stock: $0) }
            try await ConfSku.upsertAll(&batch, on: db, onConflict: [\.code])
            try checkEqual(try await ConfSku.query(on: db).count(), 14_000, "7,000 updated, 7,000 inserted")
            for k in [0, 1, 6_999, 7_000, 13_998, 13_999] {
                if k % 2 == 0 { try checkEqual(batch[k].id, first[k / 2].id, "row \(k) kept its id") }
                let row = try await ConfSku.find(batch[k].id ?? -1, on: db)
                try checkEqual(row?.code, batch[k].code, "id of \(k)")
                try checkEqual(row?.stock, k, "stock of \(k)")
            }
            try checkEqual(Set(batch.compactMap(\.id)).count, 14_000, "14,000 distinct ids")
        },
        ConformanceCase("upsert.rolls-back-with-its-transaction") { db in
            try await UpsertWorld.reset(db)
            var a = UpsertWorld.sku("A1", "apple")
            try await a.save(on: db)
            struct Abort: Error {}
            do {
                try await db.transaction { tx in
                    var b = UpsertWorld.sku("A1", "apricot")
                    try b.upsert(tx, onConflict: \.code)
                    var c = UpsertWorld.sku("C1", "cherry")
                    try c.upsert(tx, onConflict: \.code)
                    throw Abort()
                }
            } catch is Abort {}
            try checkEqual(try await UpsertWorld.rows(db), ["A1:apple:0"], "update and insert rolled back")
        },
        ConformanceCase("upsert.rolled-back-upsert-makes-the-model-new-again") { db in
            // The id an undone upsert assigned may be the next insert's on SQLite and memory: the model drops it, so
            // upserting it again inserts a row of its own and never touches the other writer's.
            try await UpsertWorld.reset(db)
            let ids = try await db.withConnection { tx -> (Int64?, Int64?, Int64?, Int64?) in
                var c = UpsertWorld.sku("C1", "cherry")
                var d = UpsertWorld.sku("D1", "date")
                try tx.savepoint { tx in  // at depth 0: a whole transaction
                    try c.upsert(tx, onConflict: \.code)
                    try d.upsert(tx, onConflict: \.code)
                    throw Rollback()
                }
                let undone = c.id
                var others = [UpsertWorld.sku("O1", "orange", stock: 5), UpsertWorld.sku("P1", "pear", stock: 6)]
                try ConfSku.insertAll(&others, tx)
                try c.upsert(tx, onConflict: \.code)
                try d.save(tx)  // by the undone id, it would update another writer's row
                return (undone, others[0].id, c.id, d.id)
            }
            try check(ids.0 != nil, "the undone upsert gave the model an id")
            try check(ids.2 != nil && ids.2 != ids.1, "upserted again, the model has a row of its own")
            try check(ids.3 != nil && ids.3 != ids.1 && ids.3 != ids.2, "saved, the other model too")
            try checkEqual(
                try await UpsertWorld.rows(db), ["C1:cherry:0", "D1:date:0", "O1:orange:5", "P1:pear:6"],
                "the other rows untouched")
        },
    ]
}
