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
            var big = Data(count: 1 << 20)
            for i in stride(from: 0, to: big.count, by: 4093) { big[i] = UInt8(truncatingIfNeeded: i) }
            try await roundTrip(db, ConfValue(data: big), "1 MiB")
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
