// Cases+ExistingDecimals: decimals other tools stored as doubles or text read exactly, or fail with the column.
import Foundation
import Strata

extension ConformanceSuite {
    static let decimalExistingCases: [ConformanceCase] = [
        ConformanceCase("existing.decimal-stored-as-double-reads-shortest") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExPriceDouble.self)
            let doubles = [0.99, 19.99, 0.1, -3.3, 1_234_567.89, 1e-7, 0]
            for (n, d) in doubles.enumerated() {
                var p = ExPriceDouble(label: "p\(n)", price: d)
                try await p.save(on: db)
            }
            let read = try await ExPrice.query(on: db).order(\.id).all().map(\.price)
            let expected = ["0.99", "19.99", "0.1", "-3.3", "1234567.89", "0.0000001", "0"].map(
                ExistingFixtures.decimal)
            try checkEqual(read, expected, "each double reads as its shortest decimal")
        },
        ConformanceCase("existing.decimal-stored-as-double-compares") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExPriceDouble.self)
            for (n, d) in [0.99, 1.98, 19.99, 0.1].enumerated() {
                var p = ExPriceDouble(label: "p\(n)", price: d)
                try await p.save(on: db)
            }
            let q = ExPrice.query(on: db)
            try checkEqual(try await q.where(\.price == ExistingFixtures.decimal("0.99")).count(), 1, "= 0.99")
            try checkEqual(try await q.where(\.price >= Decimal(10)).count(), 1, ">= 10")
            try checkEqual(
                try await q.where(\.price < ExistingFixtures.decimal("1.98")).order(\.price).all().map(\.label),
                ["p3", "p0"],
                "< 1.98, ordered")
        },
        ConformanceCase("existing.decimal-text-with-comma-is-refused") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmountText.self)
            var a = ExAmountText(amount: "0,99")
            try await a.save(on: db)
            try await checkThrows("'0,99' as a Decimal", ExistingFixtures.decodingFailed("amount")) {
                try await ExAmount.query(on: db).all()
            }
            try checkEqual(try await ExAmountText.query(on: db).count(), 1, "nothing lost")
        },
        ConformanceCase("existing.decimal-text-with-unit-is-refused") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmountText.self)
            for text in ["0.99 EUR", " 1", "1.", "", "0x10", "1e"] {
                var a = ExAmountText(amount: text)
                try await a.save(on: db)
                try await checkThrows("'\(text)' as a Decimal", ExistingFixtures.decodingFailed("amount")) {
                    try await ExAmount.query(on: db).where(\.id == (a.id ?? -1)).all()
                }
            }
            try checkEqual(try await ExAmountText.query(on: db).count(), 6, "nothing lost")
        },
        ConformanceCase("existing.decimal-text-plain-numbers-read-exactly") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmountText.self)
            let texts = ["-12.50", "+3", "12345678901234567.89", "1e-7", "2.5E+3"]
            for text in texts {
                var a = ExAmountText(amount: text)
                try await a.save(on: db)
            }
            let read = try await ExAmount.query(on: db).order(\.id).all().map(\.amount)
            let expected = ["-12.5", "3", "12345678901234567.89", "0.0000001", "2500"].map(ExistingFixtures.decimal)
            try checkEqual(read, expected, "plain decimal text reads exactly")
        },
    ]
}
