// Cases+Existing: reading tables other tools wrote: decimals stored as doubles or text, dates in other forms.
import Foundation
import Strata

/// A price as Django and Rails write a `decimal` on SQLite: a double.
@Model(table: "ex_price")
struct ExPriceDouble {
    var id: Int64?
    var label: String
    var price: Double
}

/// The same table mapped as the app means it: a `Decimal`.
@Model(table: "ex_price")
struct ExPrice {
    var id: Int64?
    var label: String
    var price: Decimal
}

/// An amount stored as text by another tool.
@Model(table: "ex_amount")
struct ExAmountText {
    var id: Int64?
    var amount: String
}

@Model(table: "ex_amount")
struct ExAmount {
    var id: Int64?
    var amount: Decimal
}

/// One date in each storage form other tools use, declared on the columns.
@Model(table: "ex_event")
struct ExEvent {
    var id: Int64?
    var name: String
    @Column(dateFormat: .iso8601) var iso: Date
    @Column("iso_ms", dateFormat: .iso8601WithFraction) var isoMs: Date
    @Column(dateFormat: .sqlDateTime) var plain: Date
    @Column(dateFormat: .unixSeconds) var unix: Date
    @Column("unix_ms", dateFormat: .unixMilliseconds) var unixMs: Date
    @Column(dateFormat: .julianDay) var julian: Date
    @Column("seen_at", dateFormat: .unixSeconds) var seenAt: Date?
}

/// The same table as raw stored values, to write foreign forms and read what Strata stored.
@Model(table: "ex_event")
struct ExEventRaw {
    var id: Int64?
    var name: String
    var iso: String
    @Column("iso_ms") var isoMs: String
    var plain: String
    var unix: Int64
    @Column("unix_ms") var unixMs: Int64
    var julian: Double
    @Column("seen_at") var seenAt: Int64?
}

enum ExistingFixtures {
    static let tables = ["ex_price", "ex_amount", "ex_event", "ex_missing", "ex_note"]

    static func reset(_ db: Database) async throws {
        try await db.withConnection { tx in for t in tables { try tx.dropTable(t) } }
    }

    /// 2009-01-01 10:00:00.250 UTC.
    static let newYear = Date(timeIntervalSince1970: 1_230_804_000.25)

    static func event(_ name: String, _ date: Date, seen: Date? = nil) -> ExEvent {
        ExEvent(
            name: name, iso: date, isoMs: date, plain: date, unix: date, unixMs: date, julian: date, seenAt: seen)
    }

    /// Rows written as another tool writes them: three hours of 2009-01-01, one row per hour from 10:00.
    static func seedForeignEvents(_ db: Database) async throws {
        try await reset(db)
        try await db.migrate(ExEvent.self)
        for hour in 0..<3 {
            let h = String(10 + hour)
            let seconds = Int64(1_230_804_000 + hour * 3600)
            var raw = ExEventRaw(
                name: "h\(h)", iso: "2009-01-01T\(h):00:00Z", isoMs: "2009-01-01T\(h):00:00.000Z",
                plain: "2009-01-01 \(h):00:00", unix: seconds, unixMs: seconds * 1000,
                julian: Double(seconds) / 86_400 + 2_440_587.5, seenAt: nil)
            try await raw.save(on: db)
        }
    }

    static func hour(_ h: Int) -> Date { Date(timeIntervalSince1970: Double(1_230_804_000 + (h - 10) * 3600)) }

    /// The decimal a literal spells (the cases' expectations, built apart from the code under test).
    static func decimal(_ text: String) -> Decimal {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }

    static func decodingFailed(_ column: String) -> (StrataError) -> Bool {
        { if case .decodingFailed(_, column, _, _) = $0 { true } else { false } }
    }
}

extension ConformanceSuite {
    static let existingCases: [ConformanceCase] =
        decimalExistingCases + dateExistingCases + mappingExistingCases + numbersExistingCases
}
