// Cases+Semantics: rows of SEMANTICS.md that no other group pins: quoted identifiers, placeholders, bind limits, ids.
import Foundation
import Strata

extension ConformanceSuite {
    static let semanticsCases: [ConformanceCase] = [
        ConformanceCase("where.unsafe-raw-misspelt-quoted-column-is-an-error") { db in
            // SQLite's double-quoted-string misfeature would read "nosuchcol" as the string 'nosuchcol', so the
            // condition would be true for every row; Strata turns it off, and every driver names the column.
            try await Fixtures.seedUsers(db)
            try await checkThrows(
                "a misspelt quoted column",
                {
                    if case .unknownColumn(_, let column) = $0 { return column == "nosuchcol" }
                    return false
                }
            ) { try await ConfUser.query(on: db).where(unsafeRaw: "\"nosuchcol\" = ?", "nosuchcol").all() }
            try checkEqual(try await ConfUser.query(on: db).count(), 6, "the rows are all still there")
        },
        ConformanceCase("values.placeholder-lookalikes-are-data") { db in
            // Each dialect has its own placeholder syntax (`?`, `?NNN`, `:name`, `@name`, `$1`); values that look
            // like any of them are bound, stored and matched as plain text.
            try await Fixtures.migrate(db)
            let texts = [
                "?", "?1", "?NNN", "$1", "$2 and ?", ":name", "@name", "$name", "'?'", "\"$1\"", "-- ?", "/* ? */",
            ]
            for (n, text) in texts.enumerated() {
                var user = ConfUser(name: text, email: "p\(n)@x.io")
                try await user.save(on: db)
            }
            for text in texts {
                let found = try await ConfUser.query(on: db).where(\.name == text).all().map(\.name)
                try checkEqual(found, [text], "where name == \(text)")
            }
            let either = try await ConfUser.query(on: db).where(\.name == "$2 and ?" || \.name == "?1").order(\.name)
                .all().map(\.name)
            try checkEqual(either, ["$2 and ?", "?1"], "two lookalikes in one statement keep their order of binds")
            let within = try await ConfUser.query(on: db).where(.contains(\.name, "?")).count()
            try checkEqual(within, texts.filter { $0.contains("?") }.count, "contains ?")
        },
        ConformanceCase("insert-all.beyond-the-bind-limit") { db in
            // 10,000 rows of 8 columns bind 80,000 values: past SQLite's 32,766 and PostgreSQL's 65,535, so the
            // dialect must split the statement; the ids still come back in row order.
            try await Fixtures.migrate(db)
            let count = 10_000
            var users = (0..<count).map { ConfUser(name: "bulk\($0)", email: "bulk\($0)@x.io", age: $0 % 90) }
            try await ConfUser.insertAll(&users, on: db)
            let ids = users.compactMap(\.id)
            try checkEqual(ids.count, count, "every row has an id")
            try check(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "ids increase in row order")
            try checkEqual(try await ConfUser.query(on: db).count(), count, "every row stored")
            for n in [0, 4_095, 4_096, 8_191, 8_192, count - 1] {
                let stored = try await ConfUser.find(ids[n], on: db)
                try checkEqual(stored?.name, "bulk\(n)", "row \(n) under its own id")
                try checkEqual(stored?.age, n % 90, "row \(n)'s age")
            }
        },
        ConformanceCase("save.new-id-exceeds-stored-ids") { db in
            // SQLite may reuse the id of a deleted last row or of a rolled-back insert, PostgreSQL never does: the
            // pinned rule is only that a new id is unused and greater than every stored one.
            try await Fixtures.migrate(db)
            var saved: [ConfGroup] = []
            for title in ["a", "b", "c"] {
                var group = ConfGroup(title: title)
                try await group.save(on: db)
                saved.append(group)
            }
            _ = try await saved[2].delete(on: db)
            var d = ConfGroup(title: "d")
            try await d.save(on: db)
            try check((d.id ?? .min) > (saved[1].id ?? .max), "after deleting the last row, a new id exceeds b's")
            struct Abort: Error {}
            do {
                try await db.transaction { tx in
                    var e = ConfGroup(title: "e")
                    try e.save(tx)
                    throw Abort()
                }
            } catch is Abort {}
            var f = ConfGroup(title: "f")
            try await f.save(on: db)
            try check((f.id ?? .min) > (d.id ?? .max), "after a rolled-back insert, a new id exceeds d's")
            let titles = try await ConfGroup.query(on: db).order(\.id).all().map(\.title)
            try checkEqual(titles, ["a", "b", "d", "f"], "the rolled-back row is gone and ids order the rest")
        },
        ConformanceCase("foreign-key.enforced-on-every-new-connection") { db in
            // SQLite enforces foreign keys only where `PRAGMA foreign_keys = ON` ran: every connection the driver
            // opens must refuse an orphan, not just the first one. Three are open at once, so they are three.
            try await Fixtures.migrate(db)
            let connections = try (0..<3).map { _ in try db.driver.connect() }
            for (n, connection) in connections.enumerated() {
                let orphan = Insert(
                    table: "conf_user", columns: ["name", "email", "active", "joined_at", "tags", "group_id"],
                    rows: [
                        [
                            .text("o\(n)"), .text("o\(n)@x.io"), .bool(true), .date(Date()), .json("[]"),
                            .integer(900_000 + Int64(n)),
                        ]
                    ])
                do {
                    _ = try connection.execute(.insert(orphan)) { _ in }
                    throw ConformanceFailure(description: "connection \(n) stored an orphan")
                } catch StrataError.foreignKeyViolation {
                } catch StrataError.noSuchTable {
                    // The table the case migrated is missing: `sqlite::memory:` opens a new, empty database per connection.
                    throw StrataError.unsupported(
                        feature: "a second connection to the same database", driver: db.driverName)
                }
            }
            try checkEqual(try await ConfUser.query(on: db).count(), 0, "no orphan stored")
        },
        ConformanceCase("where.dates-compare-chronologically") { db in
            // Dates are compared as instants on every driver: before 1970, around it by a microsecond, fractions
            // against whole seconds, and far from today.
            try await Fixtures.migrate(db)
            let instants: [(String, Double)] = [
                ("year-1", -62_135_596_800), ("1900", -2_208_988_800), ("epoch-1us", -0.000_001), ("epoch", 0),
                ("epoch+1us", 0.000_001), ("epoch+0.5", 0.5), ("epoch+1", 1), ("2038", 2_147_483_648),
                ("9999", 253_402_300_799),
            ]
            for (label, seconds) in instants.reversed() {
                var value = ConfValue()
                value.text = label
                value.date = Date(timeIntervalSince1970: seconds)
                try await value.save(on: db)
            }
            let ordered = try await ConfValue.query(on: db).order(\.date).all().map(\.text)
            try checkEqual(ordered, instants.map(\.0), "ordered by instant")
            let before = try await ConfValue.query(on: db).where(\.date < Date(timeIntervalSince1970: 0)).count()
            try checkEqual(before, 3, "before the epoch")
            let around = try await ConfValue.query(on: db)
                .where(.between(\.date, Date(timeIntervalSince1970: -0.000_001)...Date(timeIntervalSince1970: 0.5)))
                .order(\.date).all().map(\.text)
            try checkEqual(around, ["epoch-1us", "epoch", "epoch+1us", "epoch+0.5"], "between at microseconds")
            let exact = try await ConfValue.query(on: db).where(\.date == Date(timeIntervalSince1970: 0.000_001))
                .all().map(\.text)
            try checkEqual(exact, ["epoch+1us"], "equal to the microsecond")
        },
    ]
}
