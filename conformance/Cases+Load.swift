// Cases+Load: Model.load writes what insertAll writes (every column type), all or nothing, without ids back.
import Foundation
import Strata

enum LoadWorld {
    /// Values of every kind the fixture holds, NULLs, non-ASCII text, sub-second dates and long decimals included.
    static func values(_ n: Int) -> [ConfValue] {
        (0..<n).map(value)
    }

    /// Row `k`: each field set on its own line, so the type checker stays fast.
    static func value(_ k: Int) -> ConfValue {
        var v = ConfValue()
        let even = k % 2 == 0
        v.flag = even
        v.i8 = Int8(truncatingIfNeeded: -k)
        v.i16 = Int16(truncatingIfNeeded: k * 300)
        v.i32 = Int32(truncatingIfNeeded: k * 70_000)
        let big: Int64 = Int64(k) * 1_000_000_007
        v.i64 = k == 1 ? Int64.min : (k == 2 ? Int64.max : big)
        v.int = -k
        v.u8 = UInt8(truncatingIfNeeded: k)
        v.u32 = UInt32(truncatingIfNeeded: k * 40_000)
        v.double = Double(k) / 3
        v.float = Float(k) * 0.25
        v.text = k == 0 ? "" : "ünïcödé \(k) ✓ 𝄞"
        v.data = Data([UInt8(truncatingIfNeeded: k), 0, 255])
        let seconds: Double = 1_700_000_000.123456 + Double(k) * 86_400.5
        v.date = Date(timeIntervalSince1970: seconds)
        let decimal: String = even ? "-12345678901234.5678" : "0.000\(k)"
        v.decimal = Decimal(string: decimal) ?? 0
        let uuid: String = String(format: "00000000-0000-4000-8000-%012d", k)
        v.uuid = UUID(uuidString: uuid) ?? UUID()
        v.url = k % 3 == 0 ? nil : URL(string: "https://example.com/\(k)")
        v.color = even ? .red : .green
        v.level = even ? .low : .high
        let address = ConfAddress(city: "Zürich \(k)", zip: [k, 8000], flags: ["a": even])
        v.address = k % 3 == 1 ? nil : address
        v.note = even ? nil : "note \(k)"
        v.price = ConfMoney(cents: Int64(k) * 199)
        v.measure = k % 4 == 0 ? nil : Double(k) * 1.5
        return v
    }

    /// Every row of `conf_value` by id, ids cleared (to compare what two paths stored).
    static func rows(_ db: Database) async throws -> [ConfValue] {
        try await ConfValue.query(on: db).order(\.id).all().map { row in
            var copy = row
            copy.id = nil
            return copy
        }
    }
}

extension ConformanceSuite {
    static let loadCases: [ConformanceCase] = [
        ConformanceCase("load.stores-what-insertAll-stores") { db in
            try await Fixtures.migrate(db)
            var inserted = LoadWorld.values(12)
            try await ConfValue.insertAll(&inserted, on: db)
            let viaInsert = try await LoadWorld.rows(db)
            _ = try await ConfValue.query(on: db).forceDelete()
            try await ConfValue.load(LoadWorld.values(12), on: db)
            let viaLoad = try await LoadWorld.rows(db)
            try checkEqual(viaLoad.count, 12, "every row loaded")
            for (k, (a, b)) in zip(viaInsert, viaLoad).enumerated() {
                try checkEqual(b, a, "row \(k) read back the same after insertAll and after load")
            }
        },
        ConformanceCase("load.bad-value-keeps-nothing") { db in
            try await Fixtures.migrate(db)
            var kept = ConfValue(text: "kept")
            try await kept.save(on: db)
            var batch = LoadWorld.values(5)
            batch[3].text = "a\0b"
            try await checkThrows("a batch with NUL in row 3", { isInvalidValue($0, "conf_value", "text") }) {
                try await ConfValue.load(batch, on: db)
            }
            try checkEqual(try await ConfValue.query(on: db).count(), 1, "nothing of the batch kept")
            // Inside a transaction the failure is caught and the transaction goes on.
            try await db.transaction { tx in
                do {
                    try ConfValue.load(batch, tx)
                    throw ConformanceFailure(description: "the batch with NUL was loaded")
                } catch let error as StrataError where isInvalidValue(error, "conf_value", "text") {}
                try ConfValue.load(Array(LoadWorld.values(2)), tx)
            }
            try checkEqual(try await ConfValue.query(on: db).count(), 3, "the transaction went on and committed")
        },
        ConformanceCase("load.constraint-violation-keeps-nothing") { db in
            try await Fixtures.migrate(db)
            let users = (0..<4).map { ConfUser(name: "u\($0)", email: $0 == 3 ? "u0@x.io" : "u\($0)@x.io") }
            try await checkThrows(
                "a batch whose row 3 repeats row 0's email",
                {
                    if case .uniqueViolation = $0 { return true }
                    return false
                }
            ) { try await ConfUser.load(users, on: db) }
            try checkEqual(try await ConfUser.query(on: db).count(), 0, "nothing of the batch kept")
            var withID = ConfUser(name: "a", email: "a@x.io")
            withID.id = 7
            try await checkThrows(
                "a model with an id",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await ConfUser.load([withID], on: db) }
        },
    ]
}
