// Fixtures: the one small world of models every conformance case works in.
import Foundation
import Strata

@Model(table: "conf_group")
struct ConfGroup: Equatable {
    var id: Int64?
    var title: String
}

@Model(table: "conf_user")
struct ConfUser: Equatable {
    var id: Int64?
    var name: String
    var email: String
    var active = true
    var age: Int?
    var score: Double?
    var joinedAt = Date()
    var tags: [String] = []
    var groupID: Int64?
    @Transient var draft = "unsaved"

    static var indexes: [Index] { [.on(\ConfUser.email, unique: true)] }
    static var foreignKeys: [ForeignKey] { [.from(\ConfUser.groupID, to: ConfGroup.self)] }
}

@Model(table: "conf_account")
struct ConfAccount: Equatable {
    var id: Int64?
    var name: String
    var email: String
    var nickname: String?

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.name)
        v.uniqueness(\.email)
        v.format(\.email, matches: #/.+@.+/#)
        v.custom(\.name, "prefix") { !$0.hasPrefix("LOL") }
        v.length(\.name, in: 1...20)
    }
}

enum ConfColor: String, Codable, DatabaseValueConvertible { case red, green }
enum ConfLevel: Int, DatabaseValueConvertible { case low = 1, high = 2 }

struct ConfAddress: Codable, Equatable, DatabaseValueConvertible {
    var city: String
    var zip: [Int]
    var flags: [String: Bool]
}

/// A user type stored through the custom-type protocol: money as integer cents.
struct ConfMoney: DatabaseValueConvertible, Comparable {
    var cents: Int64

    init(cents: Int64) { self.cents = cents }

    static var columnType: ColumnType { .integer }
    var databaseValue: DatabaseValue { .integer(cents) }
    init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        guard case .integer(let c) = databaseValue else {
            throw ValueConversionError(databaseValue, expected: ConfMoney.self)
        }
        cents = c
    }

    static func < (a: ConfMoney, b: ConfMoney) -> Bool { a.cents < b.cents }
}

@Model(table: "conf_value")
struct ConfValue: Equatable {
    var id: Int64?
    var flag = false
    var i8: Int8 = 0
    var i16: Int16 = 0
    var i32: Int32 = 0
    var i64: Int64 = 0
    var int = 0
    var u8: UInt8 = 0
    var u32: UInt32 = 0
    var double = 0.0
    var float: Float = 0
    var text = ""
    var data = Data()
    var date = Date(timeIntervalSince1970: 0)
    var decimal: Decimal = 0
    var uuid = UUID()
    var url: URL?
    var color = ConfColor.red
    var level = ConfLevel.low
    var address: ConfAddress?
    var note: String?
    var price = ConfMoney(cents: 0)
    var measure: Double?
}

/// Two views of one table with different types, to provoke type and NULL errors.
@Model(table: "conf_strict")
struct ConfStrict {
    var id: Int64?
    var count: Int
    var label: String
}

@Model(table: "conf_strict")
struct ConfLoose {
    var id: Int64?
    var count: String
    var label: String?
}

/// The first and second version of an evolving model, for additive migration.
@Model(table: "conf_evolve")
struct ConfEvolveV1 {
    var id: Int64?
    var name: String
}

@Model(table: "conf_evolve")
struct ConfEvolveV2 {
    var id: Int64?
    var name: String
    var score = 7
    var note: String?
    var seen = false
}

/// A third version adding a non-optional column without a default: existing rows could not be filled.
@Model(table: "conf_evolve")
struct ConfEvolveV3 {
    var id: Int64?
    var name: String
    var rank: Int
}

/// Reads `conf_evolve` with a non-optional note, to provoke a NULL decoding error.
@Model(table: "conf_evolve")
struct ConfEvolveNote {
    var id: Int64?
    var name: String
    var note: String
}

/// Columns @Model cannot observe (declared together, or with an observer of their own): every update
/// writes them.
@Model(table: "conf_point")
struct ConfPoint {
    var id: Int64?
    var x, y: Int
    var label = "" {
        didSet { edits += 1 }
    }
    var note = ""
    @Transient var edits = 0
}

enum Fixtures {
    /// Every fixture table, children before parents.
    static let tables = [
        "conf_user", "conf_group", "conf_account", "conf_value", "conf_strict", "conf_evolve", "conf_point",
        "conf_haunted", "conf_case", "conf_signup", "conf_note", "conf_post", "conf_audit", "conf_stamped",
        "conf_versioned", "conf_file", "conf_label", "conf_folder", "conf_ghost", "conf_counter",
        "conf_sale", "conf_ledger", "conf_hooked", "conf_number", "conf_secret",
        "conf_shelf_tag", "conf_book", "conf_plate", "conf_shelf", "conf_tag",
        "conf_remark", "conf_article", "conf_photo", "conf_video", "conf_rider", "conf_stable", "conf_coach",
        "conf_hist_note", "strata_history", "strata_history_clock",
        "conf_line_item", "conf_line_item_narrow",
        "conf_visit",
        "conf_profile",
        "conf_search_article", "conf_plain_note",
        "conf_entry", "conf_blog",
        "conf_parcel", "conf_ship_label", "conf_ship_sticker", "conf_stray_parcel", "conf_shipment",
        "conf_ship_leg", "conf_enrollment", "conf_stray_enrollment", "conf_course", "conf_student",
        "conf_squad_seat", "conf_squad", "conf_athlete", "conf_line_note", "conf_order_line", "conf_price",
        "conf_group_member", "conf_cart_item", "conf_cart",
        "drop_child", "drop_parent", "drop_node", "drop_b", "drop_a",
        "strata_migrations",  // automatic migration records what it did there
    ]

    static func reset(_ db: Database) async throws {
        try await db.withConnection { tx in
            for t in associationTables + tables { try tx.dropTable(t) }
        }
    }

    static func migrate(_ db: Database) async throws {
        try await db.migrate(ConfGroup.self, ConfUser.self, ConfAccount.self, ConfValue.self)
    }

    /// Six users whose names sort by code point as listed: `Alex Alice Zoe _under bob émile`.
    static let people: [(name: String, age: Int?, score: Double?, active: Bool)] = [
        ("Alex", 30, 1.5, true), ("Alice", nil, -2.0, false), ("Zoe", 41, 0.0, true),
        ("_under", 30, nil, true), ("bob", 25, nil, true), ("émile", 19, 3.25, false),
    ]

    @discardableResult
    static func seedUsers(_ db: Database) async throws -> [ConfUser] {
        try await migrate(db)
        return try await db.transaction { tx in
            var saved: [ConfUser] = []
            for (n, p) in people.enumerated() {
                var u = ConfUser(
                    name: p.name, email: "user\(n)@x.io", active: p.active, age: p.age, score: p.score,
                    joinedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 60))
                try u.save(tx)
                saved.append(u)
            }
            return saved
        }
    }
}

extension Transaction {
    /// Drops a table if it exists.
    func dropTable(_ name: String) throws { _ = try execute(.dropTable(name)) }
}
