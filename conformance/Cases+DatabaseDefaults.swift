// Cases+DatabaseDefaults: a column the database fills when an insert leaves it nil (`@Column(default: .now)`).
import Foundation
import Strata

/// A visit whose time the database records.
@Model(table: "conf_visit")
struct ConfVisit: Equatable {
    var id: Int64?
    var path: String
    @Column(default: .now) var seenAt: Date?
    static var indexes: [Index] { [.on(\ConfVisit.path, unique: true)] }
}

/// The same table before the time was recorded.
@Model(table: "conf_visit")
struct ConfVisitV1 {
    var id: Int64?
    var path: String
    static var indexes: [Index] { [.on(\ConfVisitV1.path, unique: true)] }
}

/// The time column without its default.
@Model(table: "conf_visit")
struct ConfVisitPlain {
    var id: Int64?
    var path: String
    var seenAt: Date?
    static var indexes: [Index] { [.on(\ConfVisitPlain.path, unique: true)] }
}

/// `.now` on a column that is not a date.
@Model(table: "conf_visit")
struct ConfVisitMistyped {
    var id: Int64?
    var path: String
    @Column(default: .now) var hits: Int64?
}

enum DefaultNow {
    /// A time every driver stores exactly (whole milliseconds).
    static let given = Date(timeIntervalSince1970: 1_700_000_000.25)

    /// Whether `date` lies within the call that wrote it, give or take the clocks' two seconds.
    static func within(_ date: Date?, _ before: Date, _ after: Date) -> Bool {
        guard let date else { return false }
        return date >= before.addingTimeInterval(-2) && date <= after.addingTimeInterval(2)
    }

    static func isUnique(_ e: StrataError) -> Bool {
        if case .uniqueViolation = e { return true }
        return false
    }
}

extension ConformanceSuite {
    static let databaseDefaultCases: [ConformanceCase] = [
        ConformanceCase("generated.default-now-fills-a-nil-and-reads-it-back") { db in
            try await db.migrate(ConfVisit.self)
            let before = Date()
            var visit = ConfVisit(path: "/a")
            try await visit.save(on: db)
            let after = Date()
            try check(
                DefaultNow.within(visit.seenAt, before, after),
                "save reads the time of the insert back: \(String(describing: visit.seenAt)), not in \(before)…\(after)"
            )
            try checkEqual(try await ConfVisit.find(try unwrap(visit.id), on: db), visit, "the row holds it")
            var given = ConfVisit(path: "/b", seenAt: DefaultNow.given)
            try await given.save(on: db)
            try checkEqual(given.seenAt, DefaultNow.given, "a value the model holds is written as given")
            try checkEqual(
                try await ConfVisit.find(try unwrap(given.id), on: db)?.seenAt, DefaultNow.given, "and stored")
        },
        ConformanceCase("generated.default-now-one-time-per-statement-insert-all-and-upsert") { db in
            try await db.migrate(ConfVisit.self)
            var many = [ConfVisit(path: "/1"), ConfVisit(path: "/2"), ConfVisit(path: "/3", seenAt: DefaultNow.given)]
            try await ConfVisit.insertAll(&many, on: db)
            let times = many.map(\.seenAt)
            try check(times[0] != nil && times[0] == times[1], "one statement's rows share its time: \(times)")
            try checkEqual(times[2], DefaultNow.given, "a given time is kept")
            try checkEqual(try await ConfVisit.query(on: db).order(\.path).all(), many, "the rows hold what was read")
            var up = ConfVisit(path: "/4")
            try await up.upsert(on: db, onConflict: \ConfVisit.path)
            try check(up.seenAt != nil, "an upsert that inserts fills it")
            try checkEqual(try await ConfVisit.find(try unwrap(up.id), on: db), up, "and reads it back")
        },
        ConformanceCase("generated.default-now-only-on-insert") { db in
            try await db.migrate(ConfVisit.self)
            var visit = ConfVisit(path: "/u")
            try await visit.save(on: db)
            let first = try unwrap(visit.seenAt, "the inserted time")
            visit.path = "/u2"
            try await visit.save(on: db)
            try checkEqual(visit.seenAt, first, "an update leaves the time alone")
            visit.seenAt = nil
            try await visit.save(on: db)
            try checkEqual(
                try await ConfVisit.find(try unwrap(visit.id), on: db)?.seenAt, nil,
                "an update writes the nil it is given: the default fills inserts only")
        },
        ConformanceCase("generated.default-now-fills-the-rows-of-a-table-it-is-added-to") { db in
            try await db.migrate(ConfVisitV1.self)
            var old = [ConfVisitV1(path: "/x"), ConfVisitV1(path: "/y")]
            try await ConfVisitV1.insertAll(&old, on: db)
            let before = Date()
            // A migration step, which SQLite needs for a rebuild (it cannot add a column whose default is an
            // expression); automatic migration adds it in place elsewhere.
            let column = try unwrap(ConfVisit.schema.column(named: "seen_at"))
            let add = Migration("001_visit_time") { up in up.change(.addColumn(table: "conf_visit", column)) }
            _ = try await db.migrate([add])
            let after = Date()
            let rows = try await ConfVisit.query(on: db).order(\.path).all()
            try checkEqual(rows.map(\.path), ["/x", "/y"], "the rows are kept")
            try check(
                rows.allSatisfy { DefaultNow.within($0.seenAt, before, after) },
                "existing rows take the time of the migration: \(rows.map(\.seenAt))")
            var next = ConfVisit(path: "/z")
            try await next.save(on: db)
            try check(next.seenAt != nil, "a new row is filled too")
        },
        ConformanceCase("generated.default-now-planned-when-missing-and-matched-after") { db in
            try await db.migrate(ConfVisit.self)
            let same = try await db.withConnection { tx in try tx.plan([ConfVisit.self]) }
            try checkEqual(same.changes.map(\.description), [], "introspection reads the default the model declares")
            try await db.withConnection { tx in try tx.dropTable("conf_visit") }
            try await db.migrate(ConfVisitPlain.self)
            let missing = try await db.withConnection { tx in try tx.plan([ConfVisit.self]) }
            try checkEqual(
                missing.changes.map(\.description), ["set default of conf_visit.seen_at to CURRENT_TIMESTAMP"],
                "the missing default is one planned change")
            let step = Migration("002_visit_time_default") { up in
                up.change(.setDatabaseDefault(table: "conf_visit", column: "seen_at", to: .now))
            }
            _ = try await db.migrate([step])
            let after = try await db.withConnection { tx in try tx.plan([ConfVisit.self]) }
            try checkEqual(after.changes.map(\.description), [], "and once applied, none")
            var visit = ConfVisit(path: "/p")
            try await visit.save(on: db)
            try check(visit.seenAt != nil, "the default now fills inserts")
        },
        ConformanceCase("generated.default-now-failed-insert-leaves-model-and-table") { db in
            try await db.migrate(ConfVisit.self)
            var first = ConfVisit(path: "/dup")
            try await first.save(on: db)
            var second = ConfVisit(path: "/dup")
            let before = second
            try await checkThrows("a duplicate path", DefaultNow.isUnique) { try await second.save(on: db) }
            try checkEqual(second, before, "the failed insert left the model as it was: no id, no time")
            var batch = [ConfVisit(path: "/n1"), ConfVisit(path: "/dup")]
            let beforeBatch = batch
            try await checkThrows("a batch with a duplicate", DefaultNow.isUnique) {
                try await ConfVisit.insertAll(&batch, on: db)
            }
            try checkEqual(batch, beforeBatch, "the failed insertAll left every model as it was")
            try checkEqual(try await ConfVisit.query(on: db).count(), 1, "and wrote no row")
        },
        ConformanceCase("generated.default-now-failed-upsert-and-load-leave-models-and-table") { db in
            try await db.migrate(ConfVisit.self)
            var stored = ConfVisit(path: "/dup")
            try await stored.save(on: db)
            var batch = [ConfVisit(path: "/r"), ConfVisit(path: "/r")]
            let before = batch
            try await checkThrows(
                "an upsert batch updating one path twice", { isInvalidQuery($0, naming: "ConfVisit", "same path") }
            ) {
                try await ConfVisit.upsertAll(&batch, on: db, onConflict: [\ConfVisit.path])
            }
            try checkEqual(batch, before, "the refused upsertAll left every model as it was: no id, no time")
            let load = [ConfVisit(path: "/l1"), ConfVisit(path: "/dup")]
            try await checkThrows("a load with a duplicate path", DefaultNow.isUnique) {
                try await ConfVisit.load(load, on: db)
            }
            try checkEqual(
                try await ConfVisit.query(on: db).all(), [stored], "neither wrote a row; the stored one is as it was")
        },
        ConformanceCase("generated.default-now-on-a-non-date-column-is-refused") { db in
            try await checkThrows(
                "a .now default on an integer column",
                {
                    if case .invalidValue(table: "ConfVisitMistyped", column: "hits", _) = $0 { return true }
                    return false
                }
            ) { try await db.migrate(ConfVisitMistyped.self) }
            try checkEqual(
                try await db.withConnection { tx in try tx.columns(of: "conf_visit") }, nil, "no table was created")
        },
    ]
}
