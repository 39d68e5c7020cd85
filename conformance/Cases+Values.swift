// Cases+Values: values no backend stores alike are refused the same way everywhere, and nothing is written.
import Foundation
import Strata

/// A Codable value whose encoding fails when it holds a non-finite number (JSON has none).
struct ConfReading: Codable, Equatable, DatabaseValueConvertible {
    var value: Double
}

@Model(table: "conf_reading")
struct ConfReadingRow: Equatable {
    var id: Int64?
    var label: String
    var reading: ConfReading?
}

/// A model whose text default holds a quote followed by a combining mark (one Swift `Character`).
@Model(table: "conf_motto")
struct ConfMotto: Equatable {
    var id: Int64?
    var label: String
    var motto = "'\u{301} it's a x'\u{301}); DROP TABLE conf_user; --"
}

extension ConformanceSuite {
    /// Whether `error` is `invalidValue` for `table.column`.
    static func isInvalidValue(_ error: StrataError, _ table: String?, _ column: String?) -> Bool {
        if case .invalidValue(table, column, _) = error { return true }
        return false
    }

    static let valueCases: [ConformanceCase] = [
        ConformanceCase("values.nul-in-text-refused") { db in
            try await Fixtures.migrate(db)
            var kept = ConfValue(text: "kept", note: "n")
            try await kept.save(on: db)
            var bad = ConfValue(text: "a\0b")
            try await checkThrows("insert of text with NUL", { isInvalidValue($0, "conf_value", "text") }) {
                try await bad.save(on: db)
            }
            var badNote = ConfValue(note: "\0")
            try await checkThrows("insert of optional text with NUL", { isInvalidValue($0, "conf_value", "note") }) {
                try await badNote.save(on: db)
            }
            try checkEqual(try await ConfValue.query(on: db).count(), 1, "nothing inserted")
            var changed = kept
            changed.text = "x\0"
            try await checkThrows("update to text with NUL", { isInvalidValue($0, "conf_value", "text") }) {
                try await changed.save(on: db)
            }
            try checkEqual(try await ConfValue.find(kept.id ?? -1, on: db)?.text, "kept", "row unchanged")
            try await checkThrows("where text = NUL", { isInvalidValue($0, "conf_value", "text") }) {
                try await ConfValue.query(on: db).where(\.text == "kept\0").count()
            }
            try await checkThrows("IN list with NUL", { isInvalidValue($0, "conf_value", "text") }) {
                try await ConfValue.query(on: db).where(.in(\.text, ["kept", "\0"])).count()
            }
            try await checkThrows("LIKE pattern with NUL", { isInvalidValue($0, "conf_value", "note") }) {
                try await ConfValue.query(on: db).where(\.note ~~ "%\0%").count()
            }
            try await checkThrows("delete where NUL", { isInvalidValue($0, "conf_value", "text") }) {
                try await ConfValue.query(on: db).where(\.text == "\0").delete()
            }
            try await checkThrows("JSON holding NUL", { isInvalidValue($0, "conf_value", "address") }) {
                var v = ConfValue(address: ConfAddress(city: "a\0b", zip: [], flags: [:]))
                try await v.save(on: db)
            }
            try await checkThrows("raw SQL bind with NUL", { isInvalidValue($0, nil, "parameter 2") }) {
                try await db.unsafeRawExecute("SELECT ?, ?", ["ok", "\0"])
            }
            try checkEqual(try await ConfValue.query(on: db).count(), 1, "one row, still")
            try checkEqual(try await ConfValue.find(kept.id ?? -1, on: db), kept, "the kept row, unchanged")
        },
        ConformanceCase("values.date-out-of-range-refused") { db in
            try await Fixtures.migrate(db)
            let bad: [(Double, String)] = [
                (.nan, "NaN"), (.infinity, "+infinity"), (-.infinity, "-infinity"),
                (1e13, "year 318,857"), (-1e13, "year -314,912"),
                (253_402_300_800, "year 10000"), (-62_135_596_801, "year 0"),
            ]
            for (t, what) in bad {
                var v = ConfValue(date: Date(timeIntervalSince1970: t))
                try await checkThrows("insert of a date at \(what)", { isInvalidValue($0, "conf_value", "date") }) {
                    try await v.save(on: db)
                }
                try await checkThrows("where date = \(what)", { isInvalidValue($0, "conf_value", "date") }) {
                    try await ConfValue.query(on: db).where(\.date == Date(timeIntervalSince1970: t)).count()
                }
            }
            try checkEqual(try await ConfValue.query(on: db).count(), 0, "nothing inserted")
            let badDefault = TableSchema(
                name: "conf_bad_default",
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                    TableColumn(
                        name: "at", type: .date, isNullable: false,
                        schemaDefault: .date(Date(timeIntervalSince1970: .infinity))),
                ])
            try await checkThrows("a date default out of range", { isInvalidValue($0, "conf_bad_default", "at") }) {
                try await db.withConnection { tx in try tx.migrate(badDefault, policy: .automatic) }
            }
            try checkEqual(
                try await db.withConnection { tx in try tx.columns(of: "conf_bad_default") }, nil, "no table created")
            // The ends of the range round-trip on every driver.
            try await roundTrip(db, ConfValue(date: Date(timeIntervalSince1970: -62_135_596_800)), "0001-01-01")
            try await roundTrip(db, ConfValue(date: Date(timeIntervalSince1970: 253_402_300_799)), "9999-12-31")
        },
        ConformanceCase("values.codable-encoding-failure") { db in
            try await db.dropTables(ConfReadingRow.self)
            try await db.migrate(ConfReadingRow.self)
            var fine = ConfReadingRow(label: "fine", reading: ConfReading(value: 1.5))
            try await fine.save(on: db)
            for value in [Double.nan, .infinity] {
                var broken = ConfReadingRow(label: "broken", reading: ConfReading(value: value))
                try await checkThrows(
                    "insert of a Codable holding \(value)", { isInvalidValue($0, "conf_reading", "reading") }
                ) { try await broken.save(on: db) }
                var changed = fine
                changed.reading = ConfReading(value: value)
                try await checkThrows(
                    "update to a Codable holding \(value)", { isInvalidValue($0, "conf_reading", "reading") }
                ) { try await changed.save(on: db) }
            }
            try checkEqual(try await ConfReadingRow.query(on: db).count(), 1, "nothing inserted")
            try checkEqual(try await ConfReadingRow.find(fine.id ?? -1, on: db), fine, "row unchanged, not NULL")
            try await db.dropTables(ConfReadingRow.self)
        },
        ConformanceCase("values.default-with-combining-quote") { db in
            try await Fixtures.migrate(db)
            try await db.dropTables(ConfMotto.self)
            try await db.migrate(ConfMotto.self)
            let expected = ConfMotto(label: "").motto
            let taken = try await db.withConnection { tx in
                // An INSERT that leaves `motto` out, so the row takes the schema's DEFAULT.
                try tx.execute(.insert(Insert(table: "conf_motto", columns: ["label"], rows: [[.text("a")]])))
            }
            try checkEqual(taken, 1, "one row inserted")
            let rows = try await ConfMotto.query(on: db).all()
            try checkEqual(rows.map(\.motto), [expected], "the default read back exactly")
            try checkEqual(try await ConfUser.query(on: db).count(), 0, "conf_user still there, empty")
            try await db.dropTables(ConfMotto.self)
        },
    ]
}
