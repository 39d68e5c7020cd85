// Cases+ExistingDates: dates stored in other tools' forms, declared per column, read, bound and ordered alike.
import Foundation
import Strata

extension ConformanceSuite {
    static let dateExistingCases: [ConformanceCase] = [
        ConformanceCase("existing.date-formats-store-each-form") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExEvent.self)
            var e = ExistingFixtures.event("e", ExistingFixtures.newYear, seen: ExistingFixtures.newYear)
            try await e.save(on: db)
            guard let raw = try await ExEventRaw.query(on: db).first() else {
                throw ConformanceFailure(description: "no row")
            }
            try checkEqual(raw.iso, "2009-01-01T10:00:00Z", "iso8601")
            try checkEqual(raw.isoMs, "2009-01-01T10:00:00.250Z", "iso8601WithFraction")
            try checkEqual(raw.plain, "2009-01-01 10:00:00", "sqlDateTime")
            try checkEqual(raw.unix, 1_230_804_000, "unixSeconds")
            try checkEqual(raw.unixMs, 1_230_804_000_250, "unixMilliseconds")
            try check(abs(raw.julian - 2_454_832.916_669_560_2) < 1e-8, "julianDay, got \(raw.julian)")
            try checkEqual(raw.seenAt, 1_230_804_000, "optional unixSeconds")
        },
        ConformanceCase("existing.date-formats-read-back") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExEvent.self)
            let d = ExistingFixtures.newYear
            var e = ExistingFixtures.event("e", d)
            try await e.save(on: db)
            guard let back = try await ExEvent.query(on: db).first() else {
                throw ConformanceFailure(description: "no row")
            }
            let whole = Date(timeIntervalSince1970: 1_230_804_000)
            try checkEqual(back.iso, whole, "iso8601 keeps whole seconds")
            try checkEqual(back.isoMs, d, "iso8601WithFraction keeps milliseconds")
            try checkEqual(back.plain, whole, "sqlDateTime keeps whole seconds")
            try checkEqual(back.unix, whole, "unixSeconds keeps whole seconds")
            try checkEqual(back.unixMs, d, "unixMilliseconds keeps milliseconds")
            try checkEqual(back.julian, d, "julianDay keeps milliseconds")
            try checkEqual(back.seenAt, nil, "NULL reads as nil")
        },
        ConformanceCase("existing.date-milliseconds-are-not-seconds") { db in
            try await ExistingFixtures.seedForeignEvents(db)
            let first = try await ExEvent.query(on: db).order(\.id).first()
            try checkEqual(first?.unixMs, ExistingFixtures.hour(10), "Unix milliseconds read as milliseconds")
            try checkEqual(first?.unix, ExistingFixtures.hour(10), "Unix seconds read as seconds")
            try checkEqual(first?.julian, ExistingFixtures.hour(10), "julian day")
            try checkEqual(first?.plain, ExistingFixtures.hour(10), "YYYY-MM-DD HH:MM:SS")
        },
        ConformanceCase("existing.date-offsets-are-read-as-instants") { db in
            try await ExistingFixtures.seedForeignEvents(db)
            _ = try await ExEventRaw.query(on: db).where(\.name == "h10")
                .set(\.iso, to: "2009-01-01T12:00:00+02:00").set(\.isoMs, to: "2009-01-01T04:30:00.5-05:30")
                .set(\.plain, to: "2009-01-01 10:00").update()
            let e = try await ExEvent.query(on: db).where(\.name == "h10").first()
            try checkEqual(e?.iso, ExistingFixtures.hour(10), "+02:00")
            try checkEqual(e?.isoMs, ExistingFixtures.hour(10).addingTimeInterval(0.5), "-05:30 with a fraction")
            try checkEqual(e?.plain, ExistingFixtures.hour(10), "no seconds")
        },
        ConformanceCase("existing.date-equality-binds-the-column-form") { db in
            try await ExistingFixtures.seedForeignEvents(db)
            let d = ExistingFixtures.hour(11)
            let q = ExEvent.query(on: db)
            try checkEqual(try await q.where(\.iso == d).all().map(\.name), ["h11"], "iso8601")
            try checkEqual(try await q.where(\.isoMs == d).all().map(\.name), ["h11"], "iso8601WithFraction")
            try checkEqual(try await q.where(\.plain == d).all().map(\.name), ["h11"], "sqlDateTime")
            try checkEqual(try await q.where(\.unix == d).all().map(\.name), ["h11"], "unixSeconds")
            try checkEqual(try await q.where(\.unixMs == d).all().map(\.name), ["h11"], "unixMilliseconds")
            try checkEqual(try await q.where(\.julian == d).all().map(\.name), ["h11"], "julianDay")
        },
        ConformanceCase("existing.date-between-is-chronological") { db in
            try await ExistingFixtures.seedForeignEvents(db)
            let range = ExistingFixtures.hour(10).addingTimeInterval(1)...ExistingFixtures.hour(12)
            let q = ExEvent.query(on: db).order(\.id)
            try checkEqual(try await q.where(\.iso, between: range).all().map(\.name), ["h11", "h12"], "iso8601")
            try checkEqual(try await q.where(\.plain, between: range).all().map(\.name), ["h11", "h12"], "sqlDateTime")
            try checkEqual(try await q.where(\.unixMs, between: range).all().map(\.name), ["h11", "h12"], "ms")
            try checkEqual(try await q.where(\.julian, between: range).all().map(\.name), ["h11", "h12"], "julian")
        },
        ConformanceCase("existing.date-comparisons-are-chronological") { db in
            try await ExistingFixtures.seedForeignEvents(db)
            let d = ExistingFixtures.hour(11)
            let q = ExEvent.query(on: db).order(\.id)
            try checkEqual(try await q.where(\.isoMs > d).all().map(\.name), ["h12"], "iso8601WithFraction >")
            try checkEqual(try await q.where(\.plain <= d).all().map(\.name), ["h10", "h11"], "sqlDateTime <=")
            try checkEqual(try await q.where(\.unix != d).all().map(\.name), ["h10", "h12"], "unixSeconds <>")
            try checkEqual(
                try await q.where(\.iso, in: [d, ExistingFixtures.hour(12)]).all().map(\.name), ["h11", "h12"],
                "iso8601 IN")
        },
        ConformanceCase("existing.date-ordering-is-chronological") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExEvent.self)
            let dates = [
                Date(timeIntervalSince1970: 2_000_000_000.5), Date(timeIntervalSince1970: -86_400 * 365),
                Date(timeIntervalSince1970: 999_999_999.999), Date(timeIntervalSince1970: 0),
            ]
            for (n, d) in dates.enumerated() {
                var e = ExistingFixtures.event("e\(n)", d)
                try await e.save(on: db)
            }
            let expected = ["e1", "e3", "e2", "e0"]
            let q = ExEvent.query(on: db)
            try checkEqual(try await q.order(\.iso).all().map(\.name), expected, "by iso8601")
            try checkEqual(try await q.order(\.isoMs).all().map(\.name), expected, "by iso8601WithFraction")
            try checkEqual(try await q.order(\.plain).all().map(\.name), expected, "by sqlDateTime")
            try checkEqual(try await q.order(\.unix).all().map(\.name), expected, "by unixSeconds")
            try checkEqual(try await q.order(\.unixMs).all().map(\.name), expected, "by unixMilliseconds")
            try checkEqual(
                try await q.order(\.julian, .descending).all().map(\.name), Array(expected.reversed()), "julian")
        },
        ConformanceCase("existing.date-bulk-update-writes-the-column-form") { db in
            try await ExistingFixtures.seedForeignEvents(db)
            let d = ExistingFixtures.newYear.addingTimeInterval(86_400)
            let n = try await ExEvent.query(on: db).where(\.name == "h12").set(\.unixMs, to: d).set(\.iso, to: d)
                .set(\.seenAt, to: d).update()
            try checkEqual(n, 1, "one row updated")
            let raw = try await ExEventRaw.query(on: db).where(\.name == "h12").first()
            try checkEqual(raw?.unixMs, 1_230_890_400_250, "milliseconds")
            try checkEqual(raw?.iso, "2009-01-02T10:00:00Z", "iso8601")
            try checkEqual(raw?.seenAt, 1_230_890_400, "optional seconds")
        },
        ConformanceCase("existing.date-optional-format-matches-nil") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExEvent.self)
            var a = ExistingFixtures.event("a", ExistingFixtures.newYear)
            var b = ExistingFixtures.event("b", ExistingFixtures.newYear, seen: ExistingFixtures.hour(12))
            try await a.save(on: db)
            try await b.save(on: db)
            try checkEqual(try await ExEvent.query(on: db).where(\.seenAt == nil).all().map(\.name), ["a"], "== nil")
            try checkEqual(
                try await ExEvent.query(on: db).where(\.seenAt == ExistingFixtures.hour(12)).all().map(\.name), ["b"],
                "== date")
        },
        ConformanceCase("existing.date-not-a-date-names-the-column") { db in
            try await ExistingFixtures.seedForeignEvents(db)
            _ = try await ExEventRaw.query(on: db).where(\.name == "h11").set(\.plain, to: "yesterday").update()
            try await checkThrows("'yesterday' as a date", ExistingFixtures.decodingFailed("plain")) {
                try await ExEvent.query(on: db).all()
            }
            try checkEqual(try await ExEvent.query(on: db).where(\.name != "h11").count(), 2, "other rows still read")
            try checkEqual(try await ExEventRaw.query(on: db).count(), 3, "nothing lost")
        },
    ]
}
