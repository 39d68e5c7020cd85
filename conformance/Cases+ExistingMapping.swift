// Cases+ExistingMapping: with migration off, models are checked against the live schema, every mismatch at once.
import Foundation
import Strata

/// A model whose table nobody created.
@Model(table: "ex_missing")
struct ExMissing {
    var id: Int64?
    var name: String
}

@Model(table: "ex_note")
struct ExNoteOptional {
    var id: Int64?
    var note: String?
}

/// The same table, read as if the column could never be NULL.
@Model(table: "ex_note")
struct ExNote {
    var id: Int64?
    var note: String
}

extension ConformanceSuite {
    static let mappingExistingCases: [ConformanceCase] = [
        ConformanceCase("existing.checked-mapping-reports-every-mismatch-at-once") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmountText.self, ExPriceDouble.self)
            try await checkThrows(
                "two mismatched tables",
                {
                    guard case .schemaMismatches(let all) = $0 else { return false }
                    return all.map(\.table) == ["ex_amount", "ex_missing"]
                        && all[0].problems.count == 1 && all[0].problems[0].hasPrefix("column amount")
                        && all[1].problems == ["the table"]
                }
            ) {
                try await db.withConnection { tx in
                    try tx.migrate([ExAmount.self, ExPrice.self, ExMissing.self], policy: .disabled)
                }
            }
            try await db.withConnection { tx in
                try check(try tx.columns(of: "ex_missing") == nil, "nothing created")
                try checkEqual(try tx.columns(of: "ex_amount"), ["id", "amount"], "nothing changed")
            }
        },
        ConformanceCase("existing.decimal-over-text-is-refused-up-front") { db in
            // Text compares as text ('2.98' >= '10'), so a Decimal property over it would answer wrong rows.
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExAmountText.self)
            for text in ["2.98", "10", "9"] {
                var a = ExAmountText(amount: text)
                try await a.save(on: db)
            }
            try await checkThrows(
                "Decimal over a text column",
                {
                    guard case .schemaMismatch("ex_amount", let problems) = $0 else { return false }
                    return problems.count == 1 && problems[0].contains("compare as text")
                }
            ) {
                try await db.withConnection { tx in try tx.migrate([ExAmount.self], policy: .disabled) }
            }
            try checkEqual(try await ExAmountText.query(on: db).count(), 3, "nothing lost")
        },
        ConformanceCase("existing.checked-mapping-refuses-nullable-behind-non-optional") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExNoteOptional.self)
            try await checkThrows(
                "a nullable column behind a non-optional property",
                {
                    guard case .schemaMismatch("ex_note", let problems) = $0 else { return false }
                    return problems == ["column note (allows NULL, but the property is not optional)"]
                }
            ) {
                try await db.withConnection { tx in try tx.migrate([ExNote.self], policy: .disabled) }
            }
        },
        ConformanceCase("existing.checked-mapping-accepts-compatible-models") { db in
            try await ExistingFixtures.reset(db)
            try await db.migrate(ExEvent.self, ExPriceDouble.self, ExNoteOptional.self)
            try await db.withConnection { tx in
                try tx.migrate([ExEvent.self, ExEventRaw.self, ExPrice.self, ExNoteOptional.self], policy: .disabled)
            }
            try checkEqual(try await ExEvent.query(on: db).count(), 0, "the tables are usable")
        },
    ]
}
