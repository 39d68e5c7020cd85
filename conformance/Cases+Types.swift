// Cases+Types: every supported Swift type round-trips exactly, edge values included.
import Foundation
import Strata

extension ConformanceSuite {
    static func roundTrip(_ db: Database, _ value: ConfValue, _ what: String) async throws {
        var v = value
        try await v.save(on: db)
        let back = try await ConfValue.find(v.id ?? -1, on: db)
        try checkEqual(back, v, what)
    }

    /// Whether `error` is a `typeMismatch` naming `table` and `column`.
    static func isTypeMismatch(_ table: String, _ column: String) -> (StrataError) -> Bool {
        { if case .typeMismatch(table, column, _) = $0 { true } else { false } }
    }

    /// Where the driver's DOUBLE columns cannot hold ±infinity (``Dialect/storesNonFiniteDoubles`` false, MariaDB),
    /// runs `refused` (which checks that writing one is refused, typed, and leaves nothing written), then reports
    /// the case unsupported; elsewhere (the memory driver, SQLite, PostgreSQL) returns and the case goes on.
    static func refuseInfinitiesWhereNotStored(_ db: Database, _ refused: () async throws -> Void) async throws {
        let stores = try await db.withConnection { tx in tx.dialect?.storesNonFiniteDoubles ?? true }
        if stores { return }
        try await refused()
        throw StrataError.unsupported(feature: "±infinity in a DOUBLE column", driver: db.driverName)
    }

    static let typeCases: [ConformanceCase] = [
        ConformanceCase("types.bool") { db in
            try await Fixtures.migrate(db)
            try await roundTrip(db, ConfValue(flag: true), "true")
            try await roundTrip(db, ConfValue(flag: false), "false")
            try checkEqual(try await ConfValue.query(on: db).where(\.flag == true).count(), 1, "filter on Bool")
        },
        ConformanceCase("types.integers-at-their-limits") { db in
            try await Fixtures.migrate(db)
            try await roundTrip(
                db, ConfValue(i8: .min, i16: .min, i32: .min, i64: .min, int: .min, u8: .max, u32: .max), "minimums")
            try await roundTrip(
                db, ConfValue(i8: .max, i16: .max, i32: .max, i64: .max, int: .max, u8: 0, u32: 0), "maximums")
            let sorted = try await ConfValue.query(on: db).order(\.i64).values(\.i64)
            try checkEqual(sorted, [Int64.min, Int64.max], "Int64 extremes order")
        },
        ConformanceCase("types.floating-point") { db in
            try await Fixtures.migrate(db)
            try await roundTrip(
                db, ConfValue(double: .greatestFiniteMagnitude, float: .greatestFiniteMagnitude), "largest")
            try await roundTrip(db, ConfValue(double: -1.5e-300, float: 1.1), "tiny and inexact float")
            try await roundTrip(db, ConfValue(double: 0.1 + 0.2), "0.1 + 0.2 exactly")
        },
        ConformanceCase("types.strings") { db in
            try await Fixtures.migrate(db)
            try await roundTrip(db, ConfValue(text: ""), "empty string")
            try await roundTrip(
                db, ConfValue(text: "👩‍👩‍👧 e\u{301} 中文 \u{10FFFF} 'quote' \"dq\""), "emoji, combining marks, quotes")
            try await roundTrip(db, ConfValue(note: ""), "empty string is not NULL")
            try checkEqual(try await ConfValue.query(on: db).where(\.note == "").count(), 1, "'' matches ''")
            try checkEqual(try await ConfValue.query(on: db).where(\.note == nil).count(), 2, "NULLs stay NULL")
        },
        ConformanceCase("types.data") { db in
            try await Fixtures.migrate(db)
            try await roundTrip(db, ConfValue(data: Data()), "empty data")
            try await roundTrip(db, ConfValue(data: Data([0, 255, 0, 1])), "bytes with NUL")
            var big = Data(count: 10_000_000)
            for i in stride(from: 0, to: big.count, by: 4093) { big[i] = UInt8(truncatingIfNeeded: i) }
            try await roundTrip(db, ConfValue(data: big), "10 MB")
        },
        ConformanceCase("types.date-microseconds") { db in
            try await Fixtures.migrate(db)
            let d = Date(timeIntervalSince1970: 1_234_567_890.123456)
            var v = ConfValue(date: d)
            try await v.save(on: db)
            let back = try await ConfValue.find(v.id ?? -1, on: db)
            try check(
                abs((back?.date.timeIntervalSince1970 ?? 0) - 1_234_567_890.123456) < 0.000_001,
                "microseconds kept: \(String(describing: back?.date.timeIntervalSince1970))")
            try await roundTrip(db, ConfValue(date: Date(timeIntervalSince1970: -86_400 * 365 * 30)), "before 1970")
            var later = ConfValue(date: d.addingTimeInterval(0.000_002))
            try await later.save(on: db)
            try checkEqual(try await ConfValue.query(on: db).where(\.date > d).count(), 1, "compares chronologically")
        },
        ConformanceCase("types.decimal-exact") { db in
            try await Fixtures.migrate(db)
            let big = Decimal(string: "12345678901234567.89") ?? 0
            try await roundTrip(db, ConfValue(decimal: big), "18+ significant digits")
            try await roundTrip(db, ConfValue(decimal: Decimal(string: "-0.000000001") ?? 0), "small negative")
            try checkEqual(try await ConfValue.query(on: db).where(\.decimal == big).count(), 1, "equality on Decimal")
        },
        ConformanceCase("types.double-special-values") { db in
            try await Fixtures.migrate(db)
            var negativeZero = ConfValue(double: -0.0)
            try await negativeZero.save(on: db)
            let zero = try await ConfValue.find(negativeZero.id ?? -1, on: db)?.double
            try checkEqual(zero, 0.0, "-0.0 reads back as zero")
            try checkEqual(zero?.sign, .plus, "-0.0 is stored as +0.0 on every driver")
            var nanOptional = ConfValue(measure: .nan)
            try await nanOptional.save(on: db)
            try checkEqual(
                try await ConfValue.find(nanOptional.id ?? -1, on: db)?.measure, nil, "NaN is stored as NULL")
            var nanRequired = ConfValue(double: .nan)
            try await checkThrows(
                "NaN into a NOT NULL column",
                {
                    if case .notNullViolation(table: "conf_value", column: "double") = $0 { return true }
                    return false
                }
            ) { try await nanRequired.save(on: db) }
            try await refuseInfinitiesWhereNotStored(db) {
                var infinite = ConfValue(double: .infinity, measure: -.infinity)
                try await checkThrows("±infinity where a DOUBLE holds none", isTypeMismatch("conf_value", "double")) {
                    try await infinite.save(on: db)
                }
                try checkEqual(infinite.id, nil, "the model keeps no id")
                try checkEqual(try await ConfValue.query(on: db).count(), 2, "nothing written")
            }
            try await roundTrip(db, ConfValue(double: .infinity, measure: -.infinity), "infinities")
            let ordered = try await ConfValue.query(on: db).where(\.measure != nil).order(\.double).values(\.double)
            try checkEqual(ordered, [.infinity], "ordering with infinities")
        },
        ConformanceCase("types.decimal-order-and-30-digits") { db in
            try await Fixtures.migrate(db)
            let thirty = Decimal(string: "123456789012345678901234567.891") ?? 0
            try await roundTrip(db, ConfValue(decimal: thirty), "30 significant digits")
            for text in ["9.5", "10", "-2.25", "0.001", "1.50"] {
                var v = ConfValue(decimal: Decimal(string: text) ?? 0)
                try await v.save(on: db)
            }
            let ordered = try await ConfValue.query(on: db).order(\.decimal).values(\.decimal).map(\.description)
            try checkEqual(
                ordered, ["-2.25", "0.001", "1.5", "9.5", "10", "123456789012345678901234567.891"],
                "numeric order, not text order")
            try checkEqual(
                try await ConfValue.query(on: db).where(\.decimal > Decimal(9)).count(), 3, "numeric comparison")
            try checkEqual(
                try await ConfValue.query(on: db).where(\.decimal == Decimal(string: "1.5") ?? 0).count(), 1,
                "1.50 equals 1.5")
        },
        ConformanceCase("types.custom-type") { db in
            try await Fixtures.migrate(db)
            for cents: Int64 in [500, 1999, 250] {
                var v = ConfValue(price: ConfMoney(cents: cents))
                try await v.save(on: db)
            }
            let cheap = try await ConfValue.query(on: db).where(\.price < ConfMoney(cents: 1000)).order(\.price).values(
                \.price)
            try checkEqual(cheap.map(\.cents), [250, 500], "filter and order through a custom type")
        },
        ConformanceCase("types.uuid-and-url") { db in
            try await Fixtures.migrate(db)
            let id = UUID()
            try await roundTrip(
                db, ConfValue(uuid: id, url: URL(string: "https://example.com/a?b=c#d")), "uuid and url")
            try checkEqual(try await ConfValue.query(on: db).where(\.uuid == id).count(), 1, "filter on UUID")
        },
        ConformanceCase("types.enums-with-raw-values") { db in
            try await Fixtures.migrate(db)
            try await roundTrip(db, ConfValue(color: .green, level: .high), "String and Int raw values")
            try checkEqual(try await ConfValue.query(on: db).where(\.color == .green).count(), 1, "filter on enum")
        },
        ConformanceCase("types.codable-as-json") { db in
            try await Fixtures.migrate(db)
            let address = ConfAddress(city: "Zürich", zip: [8000, 8001], flags: ["b": true, "a": false])
            try await roundTrip(db, ConfValue(address: address), "nested Codable")
            try await roundTrip(db, ConfValue(address: nil), "nil Codable is NULL")
            try checkEqual(try await ConfValue.query(on: db).where(\.address == nil).count(), 1, "NULL JSON filter")
        },
    ]
}
