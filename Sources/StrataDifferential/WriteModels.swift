// WriteModels: the models the write-program tester drives: every lifecycle feature, callbacks that can throw, and a
// history-tracked model with encrypted columns.
import Foundation
import Strata
import StrataEncryption
import Synchronization

/// A fault a callback of ``WPAccount`` injects: `willSave` refuses a balance of 13, `didSave` (after the write,
/// so the write must be undone) a balance of 666.
public enum InjectedFault: Error, Sendable {
    case willSave, didSave
}

/// An account: a unique code, a version, timestamps, soft delete and callbacks that throw on chosen balances.
@Model(table: "wp_account")
public struct WPAccount: Codable {
    public var id: Int64?
    public var code: String
    public var balance: Int64
    @Version public var version: Int64 = 0
    @CreatedAt public var createdAt = Date(timeIntervalSince1970: 0)
    @UpdatedAt public var updatedAt: Date?
    @DeletedAt public var deletedAt: Date?
    public static var indexes: [Index] { [.on(\WPAccount.code, unique: true)] }

    public mutating func willSave(_ tx: Transaction) throws {
        if balance == WPAccount.refusedBeforeWrite { throw InjectedFault.willSave }
        if WPAccount.simulatedBusy.withLock({ $0.contains(ObjectIdentifier(tx.database)) }) { throw StrataError.busy }
    }

    public func didSave(_ tx: Transaction) throws {
        if balance == WPAccount.refusedAfterWrite { throw InjectedFault.didSave }
    }

    /// The balance `willSave` refuses.
    static let refusedBeforeWrite: Int64 = 13
    /// The balance `didSave` refuses, after the row was written.
    static let refusedAfterWrite: Int64 = 666
    /// The databases where no second connection can hold the write lock (an in-memory database) and a
    /// ``WriteStep/busySave(handle:by:)`` is under way: a save's write there fails as it would waiting for one.
    /// Per database, so runners of other tests in the same process are not made busy.
    static let simulatedBusy = Mutex<Set<ObjectIdentifier>>([])
}

/// An entry of an account: a foreign key (no action on delete, so deleting a referenced account fails), a
/// generated column the database computes and `save` reads back, and a time the database fills (a database
/// default).
@Model(table: "wp_entry")
public struct WPEntry {
    public var id: Int64?
    public var accountID: Int64
    public var amount: Int64
    @Generated public var doubled: Int64 = 0
    @Column(default: .now) public var postedAt: Date?
    public static var foreignKeys: [ForeignKey] { [.from(\WPEntry.accountID, to: WPAccount.self)] }
    public static var generatedColumns: [GeneratedColumn<WPEntry>] {
        [GeneratedColumn(\WPEntry.doubled, as: \WPEntry.amount * 2)]
    }
}

/// `wp_entry` read through a generated column its property's type cannot always hold: an entry whose amount is 64 or
/// more doubles to a value an `Int8` cannot hold, so its save inserts the row and then fails to read it back, and
/// must leave neither the row nor a changed model (``WriteStep/entry(handle:amount:)`` with an amount of 100 or more).
@Model(table: "wp_entry")
public struct WPEntryNarrow {
    public var id: Int64?
    public var accountID: Int64
    public var amount: Int8
    @Generated public var doubled: Int8 = 0
    @Column(default: .now) public var postedAt: Date?
    public static var foreignKeys: [ForeignKey] { [.from(\WPEntryNarrow.accountID, to: WPAccount.self)] }
    public static var generatedColumns: [GeneratedColumn<WPEntryNarrow>] {
        [GeneratedColumn(\WPEntryNarrow.doubled, as: \WPEntryNarrow.amount * 2)]
    }
}

/// An order line keyed by two columns (a composite key): saved by its key (update where it exists, else insert),
/// upserted on it, and refused when a stored line's key column is assigned.
@Model(table: "wp_line", primaryKey: ["orderNo", "sku"])
public struct WPLine {
    public var orderNo: Int64
    public var sku: String
    public var qty: Int64
    /// The line's marks, destroyed with it; their two-column foreign key refuses a mark of no line.
    public static let marks = hasMany(WPLineMark.self, keys: \.orderNo, \.sku, onDelete: .destroy)
}

/// A mark on an order line, by a foreign key of two columns to the line's composite key.
@Model(table: "wp_line_mark")
public struct WPLineMark {
    public var id: Int64?
    public var orderNo: Int64
    public var sku: String
    public static let line = belongsTo(WPLine.self, keys: \.orderNo, \.sku)
}

/// A note whose writes the change history records, with a deterministic encrypted tag (equality filters reach it)
/// and a randomized encrypted secret. Its key is set by the program, so the history's keys are the same text on
/// every backend.
@Model(table: "wp_note")
public struct WPNote {
    public var id: String?
    public var n: Int64
    @Encrypted(.deterministic) public var tag: String
    @Encrypted public var secret: String?
    public static let tracksHistory = true

    /// The keyring every write-program database seals with: two fixed test keys (a rotation: the last seals, an
    /// equality filter searches under both), and one more for each ``WriteStep/rotateKey`` the program ran,
    /// `wp-rot1`, `wp-rot2`…, the newest last. Test keys, not secrets.
    static func keyring(rotations: Int = 0) throws -> any ColumnEncryption {
        try AESGCMKeyring(
            [
                AESGCMKeyring.Key(id: "wp-old", bytes: Data(repeating: 0x5a, count: 32)),
                AESGCMKeyring.Key(id: "wp-new", bytes: Data((0..<32).map { UInt8($0) })),
            ]
                + (0..<rotations).map { r in
                    try AESGCMKeyring.Key(id: newestKey(rotations: r + 1), bytes: Data(repeating: UInt8(r), count: 32))
                })
    }

    /// The id of the key that seals after `rotations` rotations.
    static func newestKey(rotations: Int) -> String { rotations == 0 ? "wp-new" : "wp-rot\(rotations)" }
}

/// ``WPNote``'s table read without opening its envelopes: which key sealed each value (the envelope's header names
/// it: a version byte, the id's length, the id).
@Model(table: "wp_note")
struct WPNoteSealed {
    var id: String?
    var n: Int64
    var tag: Data
    var secret: Data?

    /// The id of the key that sealed `envelope`.
    static func keyID(_ envelope: Data?) -> String {
        guard let envelope else { return "nil" }
        let bytes = [UInt8](envelope)
        guard bytes.count >= 2, bytes.count >= 2 + Int(bytes[1]) else { return "?" }
        return String(decoding: bytes[2..<(2 + Int(bytes[1]))], as: UTF8.self)
    }

    /// `key tagKey secretKey`, as ``WriteSnapshot/sealed`` shows it.
    var text: String { "\(id ?? "nil") \(Self.keyID(tag)) \(Self.keyID(secret))" }
}

/// A keyring whose keys can be replaced while databases use it: key rotation for a private in-memory SQLite
/// database, which cannot be reopened (``WriteStep/rotateKey``).
final class WPRotatingKeyring: ColumnEncryption {
    private let current: Mutex<any ColumnEncryption>

    init(_ keyring: any ColumnEncryption) { current = Mutex(keyring) }

    func replace(with keyring: any ColumnEncryption) { current.withLock { $0 = keyring } }

    private var keyring: any ColumnEncryption { current.withLock { $0 } }

    func seal(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> Data {
        try keyring.seal(plaintext, for: column)
    }

    func open(_ envelope: Data, for column: EncryptedColumn) throws(StrataError) -> Data {
        try keyring.open(envelope, for: column)
    }

    func equalityEnvelopes(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> [Data] {
        try keyring.equalityEnvelopes(plaintext, for: column)
    }
}
