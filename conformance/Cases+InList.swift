// Cases+InList: IN lists of any length (bound as one array on SQL backends) answer as short ones do, on every driver.
import Foundation
import Strata

extension ConformanceSuite {
    /// Checks that a long IN / NOT IN list over `kp` selects the same rows as the short list of its matching values
    /// and as Swift's own comparison, `filler` (values no row holds) making it long.
    static func checkLongIn<V: DatabaseValueConvertible>(
        _ db: Database, _ rows: [ConfValue], _ kp: KeyPath<ConfValue, V>, filler: [V], _ what: String
    ) async throws {
        let wanted = stride(from: 0, to: rows.count, by: 2).map { rows[$0][keyPath: kp] }
        let long = filler.prefix(filler.count / 2) + wanted + filler.suffix(filler.count - filler.count / 2)
        try check(long.count >= 120, "\(what): the list is long")
        // SQL's `=`: NULL equals nothing, text compares code point by code point ("é" is not "e\u{301}").
        func equal(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
            switch (a, b) {
            case (.null, _), (_, .null): return false
            case (.text(let x), .text(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
            default: return a == b
            }
        }
        let listValues = long.map(\.databaseValue)
        let hasNull = listValues.contains { $0.isNull }
        let expected = rows.filter { r in listValues.contains { equal(r[keyPath: kp].databaseValue, $0) } }
        let others = rows.filter { r in
            !hasNull && !r[keyPath: kp].databaseValue.isNull
                && !listValues.contains { equal(r[keyPath: kp].databaseValue, $0) }
        }
        let byLong = try await ConfValue.query(on: db).where(kp, in: Array(long)).order(\.id).values(\.id)
        let byShort = try await ConfValue.query(on: db).where(kp, in: wanted).order(\.id).values(\.id)
        try checkEqual(byLong.compactMap { $0 }, expected.compactMap(\.id), "\(what): long IN")
        try checkEqual(byShort.compactMap { $0 }, expected.compactMap(\.id), "\(what): short IN")
        let notLong = try await ConfValue.query(on: db).where(kp, notIn: Array(long)).order(\.id).values(\.id)
        try checkEqual(notLong.compactMap { $0 }, others.compactMap(\.id), "\(what): long NOT IN")
    }

    static let inListCases: [ConformanceCase] = [
        ConformanceCase("in-list.100k-ids") { db in
            let users = try await Fixtures.seedUsers(db)
            let ids = users.compactMap(\.id)
            let far = (1...100_000).map { Int64(1_000_000 + $0) }
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.id, in: far + [ids[2]] + far.prefix(10))), ["Zoe"],
                "IN of 100,011 ids")
            try checkEqual(
                try await ConfUser.query(on: db).where(\.id, in: ids + far).count(), 6, "every user among 100,006 ids")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.id, notIn: far + [ids[0], ids[1]])),
                ["Zoe", "_under", "bob", "émile"], "NOT IN of 100,002 ids")
        },
        ConformanceCase("in-list.long-with-null-keeps-three-valued-logic") { db in
            try await Fixtures.seedUsers(db)
            let filler: [Int?] = (1_000..<1_200).map { $0 }
            try checkEqual(
                try await ConfUser.query(on: db).where(\.age, notIn: filler + [25, nil]).count(), 0,
                "NOT IN (…, 25, NULL) is never true")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.age, in: filler + [nil, 25])), ["bob"],
                "IN (…, NULL, 25) matches 25 only")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.age, notIn: filler + [30])), ["Zoe", "bob", "émile"],
                "long NOT IN skips NULL ages")
            try checkEqual(
                try await ConfUser.query(on: db).where(\.age, in: [Int?](repeating: nil, count: 150)).count(), 0,
                "a list of NULLs matches nothing")
        },
        ConformanceCase("in-list.long-lists-compare-like-short-ones") { db in
            try await Fixtures.migrate(db)
            let base = Date(timeIntervalSince1970: 1_700_000_000)
            let texts = [
                "", "a", "A", "a,b", "{x}", "\"q\"", "back\\slash", "NULL", "é", "e\u{301}", "🦊", "tab\tnew\nline",
            ]
            let doubles = [
                0.0, -2.5, 0.1, 1e300, Double.leastNonzeroMagnitude, 1.0 / 3, -0.0, 123456789.125, 7, 8, 9, 10,
            ]
            var rows: [ConfValue] = []
            for n in 0..<12 {
                var v = ConfValue()
                v.flag = n % 3 == 0
                v.i8 = Int8(n * 21 - 128)
                v.int = n * 1_000_003 - 5
                v.i64 = n % 2 == 0 ? Int64.max - Int64(n) : Int64.min + Int64(n)
                v.double = doubles[n]
                v.text = texts[n]
                v.date = base.addingTimeInterval(Double(n) * 0.000_001 + Double(n * n) * 86_400)
                v.decimal = Decimal(string: "\(n)2345678901234567.8\(n)") ?? 0
                v.uuid = UUID()
                v.note = n % 4 == 0 ? nil : "note\(n % 3)"
                v.color = n % 2 == 0 ? .red : .green
                rows.append(v)
            }
            try await ConfValue.insertAll(&rows, on: db)
            let n = 150
            try await checkLongIn(
                db, rows, \.i8,
                filler: (0..<n).compactMap { Int8(exactly: $0 - 75) }.filter { v in !rows.contains { $0.i8 == v } },
                "Int8")
            try await checkLongIn(db, rows, \.int, filler: (0..<n).map { 7 + $0 * 13 }, "Int")
            try await checkLongIn(db, rows, \.i64, filler: (0..<Int64(n)).map { $0 * 1_000 }, "Int64 extremes")
            try await checkLongIn(db, rows, \.double, filler: (0..<n).map { Double($0) + 0.5 }, "Double")
            try await checkLongIn(db, rows, \.text, filler: (0..<n).map { "filler \"\($0)\" {,}" }, "String")
            try await checkLongIn(
                db, rows, \.date, filler: (0..<n).map { base.addingTimeInterval(Double($0) * 0.5 + 0.25) }, "Date")
            try await checkLongIn(
                db, rows, \.decimal, filler: (0..<n).map { Decimal($0) / 7 }, "Decimal")
            try await checkLongIn(db, rows, \.uuid, filler: (0..<n).map { _ in UUID() }, "UUID")
            try await checkLongIn(db, rows, \.flag, filler: [Bool](repeating: true, count: n), "Bool")
            try await checkLongIn(db, rows, \.note, filler: (0..<n).map { "other\($0)" }, "optional String with NULL")
            try await checkLongIn(db, rows, \.color, filler: [ConfColor](repeating: .red, count: n), "enum")
        },
        ConformanceCase("in-list.eager-loading-70k-owners-in-two-statements") { db in
            try await Fixtures.migrateAssociations(db)
            var teams = (0..<70_000).map { ConfTeam(title: "t\($0)") }
            try await ConfTeam.insertAll(&teams, on: db)
            try await db.transaction { tx in
                for k in [0, 33_000, 69_999] {
                    var m = ConfMember(name: "m\(k)", confTeamID: teams[k].id)
                    try m.save(tx)
                }
            }
            let before = db.statementCount
            let loaded = try await ConfTeam.query(on: db).including(ConfTeam.members).all()
            try checkEqual(db.statementCount - before, 2, "teams, then members by 70,000 keys in one statement")
            try checkEqual(loaded.count, 70_000, "teams")
            let named = try loaded.filter { !(try $0.loaded(ConfTeam.members)).isEmpty }
                .map { try "\($0.title):\($0.loaded(ConfTeam.members).map(\.name))" }.sorted()
            try checkEqual(named, ["t0:[\"m0\"]", "t33000:[\"m33000\"]", "t69999:[\"m69999\"]"], "members attached")
        },
        ConformanceCase("in-list.long-list-in-update-and-delete") { db in
            let users = try await Fixtures.seedUsers(db)
            let far = (1...50_000).map { Int64(2_000_000 + $0) }
            let gone = try await ConfUser.query(on: db).where(\.id, in: far + [users[0].id ?? 0, users[5].id ?? 0])
                .delete()
            try checkEqual(gone, 2, "deleted by a long IN")
            try checkEqual(
                try await names(ConfUser.query(on: db)), ["Alice", "Zoe", "_under", "bob"], "the others stay")
        },
    ]
}
