// Cases+UpsertOwnKey: upsert of models whose key the app gives (String) or Strata generates (UUID), on the key
// itself or on another unique index.
import Foundation
import Strata

/// A String-keyed model with a unique slug.
@Model(table: "conf_keyed_label")
struct ConfKeyedLabel {
    var id: String?
    var slug: String
    var text: String
    var uses = 0

    static var indexes: [Index] { [.on(\ConfKeyedLabel.slug, unique: true)] }
}

/// A String-keyed model whose writes the change history records.
@Model(table: "conf_keyed_hist_label")
struct ConfKeyedHistLabel {
    var id: String?
    var text: String
    static let tracksHistory = true
}

/// A UUID-keyed model: a nil key is generated on upsert as on save.
@Model(table: "conf_keyed_medal")
struct ConfKeyedMedal {
    var id: UUID?
    var name: String
}

enum OwnKeyWorld {
    static func reset(_ db: Database) async throws {
        try await db.withConnection { tx in
            try tx.dropTable("conf_keyed_label")
            try tx.dropTable("conf_keyed_medal")
            try tx.dropTable("conf_keyed_hist_label")
        }
        try await db.migrate(ConfKeyedLabel.self, ConfKeyedMedal.self, ConfKeyedHistLabel.self)
    }

    /// Every label as `id:slug:text:uses`, by id.
    static func labels(_ db: Database) async throws -> [String] {
        try await ConfKeyedLabel.query(on: db).order(\.id).all().map {
            "\($0.id ?? "nil"):\($0.slug):\($0.text):\($0.uses)"
        }
    }
}

extension ConformanceSuite {
    static let upsertOwnKeyCases: [ConformanceCase] = [
        ConformanceCase("history.app-keyed-upsert-records-its-key") { db in
            try await OwnKeyWorld.reset(db)
            let before = try await db.historyToken()
            var a = ConfKeyedHistLabel(id: "k1", text: "one")
            try await a.upsert(on: db, onConflict: \.id)
            var b = ConfKeyedHistLabel(id: "k1", text: "uno")
            try await b.upsert(on: db, onConflict: \.id)
            var kept = ConfKeyedHistLabel(id: "k1", text: "ein")
            try await kept.upsert(on: db, onConflict: \.id, do: .nothing)
            var fresh = ConfKeyedHistLabel(id: "k2", text: "two")
            try await fresh.upsert(on: db, onConflict: \.id, do: .nothing)
            let page = try await db.changes(since: before)
            try checkEqual(
                page.changes.map(HistoryWorld.line), ["upsert:k1:id,text", "upsert:k1:id,text", "insert:k2:id,text"],
                "each upsert that wrote a row, by its key; a kept row records nothing")
            try checkEqual(Set(page.changes.map(\.token)).count, 3, "one transaction each")
        },
        ConformanceCase("history.an-aborted-transaction-records-nothing") { db in
            try await OwnKeyWorld.reset(db)
            var first = ConfKeyedHistLabel(id: "k1", text: "one")
            try await first.save(on: db)
            let before = try await db.historyToken()
            do {
                try await db.transaction(onFailedStatement: .abortTransaction) { tx in
                    var other = ConfKeyedHistLabel(id: "k2", text: "two")
                    try other.upsert(tx, onConflict: \.id)
                    var dup = [ConfKeyedHistLabel(id: "k1", text: "again")]
                    do { try ConfKeyedHistLabel.insertAll(&dup, tx) } catch StrataError.uniqueViolation {}
                }
            } catch {}
            let page = try await db.changes(since: before)
            try checkEqual(page.changes.map(HistoryWorld.line), [], "the aborted transaction's upsert is not recorded")
            try checkEqual(try await ConfKeyedHistLabel.query(on: db).count(), 1, "and its row is gone")
        },
        ConformanceCase("upsert.own-key-on-the-key-inserts-then-updates") { db in
            try await OwnKeyWorld.reset(db)
            var a = ConfKeyedLabel(id: "k1", slug: "red", text: "Red")
            try await a.upsert(on: db, onConflict: \.id)
            try checkEqual(a.id, "k1", "the key stays the model's")
            var b = ConfKeyedLabel(id: "k1", slug: "crimson", text: "Crimson", uses: 4)
            try await b.upsert(on: db, onConflict: \.id)
            try checkEqual(try await OwnKeyWorld.labels(db), ["k1:crimson:Crimson:4"], "every column updated")
            var batch = [
                ConfKeyedLabel(id: "k1", slug: "scarlet", text: "Scarlet"),
                ConfKeyedLabel(id: "k2", slug: "b", text: "B"),
            ]
            try await ConfKeyedLabel.upsertAll(&batch, on: db, onConflict: [\.id])
            try checkEqual(batch.map(\.id), ["k1", "k2"], "keys in order")
            try checkEqual(
                try await OwnKeyWorld.labels(db), ["k1:scarlet:Scarlet:0", "k2:b:B:0"], "one updated, one inserted")
        },
        ConformanceCase("upsert.own-key-nothing-keeps-the-row") { db in
            try await OwnKeyWorld.reset(db)
            var a = ConfKeyedLabel(id: "k1", slug: "red", text: "Red")
            try await a.save(on: db)
            var again = ConfKeyedLabel(id: "k1", slug: "blue", text: "Blue")
            try await again.upsert(on: db, onConflict: \.id, do: .nothing)
            try checkEqual(again.id, "k1", "the kept row's key")
            try checkEqual(try await OwnKeyWorld.labels(db), ["k1:red:Red:0"], "row untouched")
        },
        ConformanceCase("upsert.own-key-on-another-index-takes-the-stored-key") { db in
            try await OwnKeyWorld.reset(db)
            var a = ConfKeyedLabel(id: "k1", slug: "red", text: "Red")
            try await a.save(on: db)
            var other = ConfKeyedLabel(id: "k9", slug: "red", text: "Rouge", uses: 2)
            try await other.upsert(on: db, onConflict: \.slug)
            try checkEqual(other.id, "k1", "an update never rewrites the stored key; the model takes it")
            try checkEqual(try await OwnKeyWorld.labels(db), ["k1:red:Rouge:2"], "no row k9")
        },
        ConformanceCase("upsert.own-key-conflict-on-the-key-while-targeting-another-index") { db in
            try await OwnKeyWorld.reset(db)
            var a = ConfKeyedLabel(id: "k1", slug: "red", text: "Red")
            try await a.save(on: db)
            var clash = ConfKeyedLabel(id: "k1", slug: "blue", text: "Blue")
            try await checkThrows(
                "unique violation on the key",
                {
                    guard case .uniqueViolation(let table, _) = $0 else { return false }
                    return table == "conf_keyed_label"
                }
            ) { try await clash.upsert(on: db, onConflict: \.slug) }
            try checkEqual(clash.id, "k1", "the model as it was")
            try checkEqual(try await OwnKeyWorld.labels(db), ["k1:red:Red:0"], "nothing written")
        },
        ConformanceCase("upsert.uuid-key-generated-then-the-target") { db in
            try await OwnKeyWorld.reset(db)
            var badge = ConfKeyedMedal(name: "gold")
            try await badge.upsert(on: db, onConflict: \.id)
            guard let id = badge.id else {
                throw ConformanceFailure(description: "upsert gave the UUID-keyed model no key")
            }
            var again = ConfKeyedMedal(id: id, name: "platinum")
            try await again.upsert(on: db, onConflict: \.id)
            let all = try await ConfKeyedMedal.query(on: db).all()
            try checkEqual(all.map(\.id), [id], "one row, the generated key")
            try checkEqual(all.map(\.name), ["platinum"], "updated on the key")
        },
        ConformanceCase("upsert.string-key-nil-is-refused") { db in
            try await OwnKeyWorld.reset(db)
            var a = ConfKeyedLabel(slug: "red", text: "Red")
            try await checkThrows(
                "nil String key",
                {
                    guard case .invalidValue(let table, let column, _) = $0 else { return false }
                    return table == "conf_keyed_label" && column == "id"
                }
            ) { try await a.upsert(on: db, onConflict: \.slug) }
            try checkEqual(a.id, nil, "the model as it was")
            try checkEqual(try await ConfKeyedLabel.query(on: db).count(), 0, "nothing written")
        },
        ConformanceCase("upsert.own-key-target-must-be-the-key-or-a-unique-index") { db in
            try await OwnKeyWorld.reset(db)
            var a = ConfKeyedLabel(id: "k1", slug: "red", text: "Red")
            try await checkThrows(
                "target not unique",
                {
                    guard case .invalidQuery(let m) = $0 else { return false }
                    return m.contains("ConfKeyedLabel(text)") && m.contains("primary key")
                }
            ) { try await a.upsert(on: db, onConflict: \.text) }
            try checkEqual(try await ConfKeyedLabel.query(on: db).count(), 0, "nothing written")
        },
        ConformanceCase("upsert.own-key-rolled-back-with-its-transaction") { db in
            // An upsert's insert undone by a rollback: the key Strata generated is forgotten (the next upsert
            // generates another, never naming a row someone else may now own), the key the app gave stays.
            try await OwnKeyWorld.reset(db)
            let outcome = try await db.withConnection { tx -> (UUID?, UUID?, String?, Int, Int) in
                var medal = ConfKeyedMedal(name: "gold")
                var label = ConfKeyedLabel(id: "k1", slug: "red", text: "Red")
                var undoneKey: UUID?
                try tx.savepoint { tx in  // at depth 0: a whole transaction
                    try medal.upsert(tx, onConflict: \.id)
                    try label.upsert(tx, onConflict: \.slug)
                    undoneKey = medal.id
                    throw Rollback()
                }
                let medalsAfterRollback = try ConfKeyedMedal.query(on: tx).count()
                let labelsAfterRollback = try ConfKeyedLabel.query(on: tx).count()
                try medal.upsert(tx, onConflict: \.id)
                try label.upsert(tx, onConflict: \.slug)
                return (undoneKey, medal.id, label.id, medalsAfterRollback, labelsAfterRollback)
            }
            try checkEqual(outcome.3 + outcome.4, 0, "the rollback undid both rows")
            try check(outcome.0 != nil && outcome.1 != nil, "both upserts gave the medal a key")
            try check(outcome.0 != outcome.1, "the upsert after the rollback generated a new key")
            try checkEqual(outcome.2, "k1", "the key the app gave stays")
            let medals = try await ConfKeyedMedal.query(on: db).all()
            try checkEqual(medals.map(\.id), [outcome.1], "one medal, under the new key")
            try checkEqual(try await OwnKeyWorld.labels(db), ["k1:red:Red:0"], "one label, inserted again")
        },
    ]
}
