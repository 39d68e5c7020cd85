// ColumnEncryption: the hook through which `@Encrypted` columns are sealed on write and opened on read.
import Foundation

/// How an `@Encrypted` column is sealed (see <doc:EncryptedColumns>).
public enum EncryptionMode: String, Sendable, Hashable {
    /// A random nonce per write: equal values give different stored bytes. The column cannot be filtered on.
    case randomized
    /// A nonce derived from the key, the column and the value: equal values give equal stored bytes, so `==`,
    /// IN and a unique index work. Weaker: whoever reads the table sees which rows hold the same value.
    case deterministic
}

/// The column a value is sealed for: its identity is bound to the ciphertext (authenticated data), so a value
/// copied into another column or table does not open.
public struct EncryptedColumn: Sendable, Hashable {
    /// The model's name, for errors.
    public var model: String
    /// The table's name.
    public var table: String { didSet { authenticatedData = Self.authenticatedData(table, column) } }
    /// The column's name.
    public var column: String { didSet { authenticatedData = Self.authenticatedData(table, column) } }
    /// How the column is sealed.
    public var mode: EncryptionMode
    /// The bytes bound as authenticated data: `strata:table.column`, so a value moved elsewhere fails to open. Built
    /// once per column (a schema keeps its columns' values: see `TableSchema.sealedColumns(of:)`), not per value.
    public private(set) var authenticatedData: Data

    /// A column of `table` sealed in `mode`.
    public init(model: String, table: String, column: String, mode: EncryptionMode) {
        self.model = model
        self.table = table
        self.column = column
        self.mode = mode
        authenticatedData = Self.authenticatedData(table, column)
    }

    private static func authenticatedData(_ table: String, _ column: String) -> Data {
        Data("strata:\(table).\(column)".utf8)
    }

    /// The error for this column, with `reason` (which never holds the value).
    public func error(_ reason: String) -> StrataError {
        .encryptedColumn(model: model, column: column, reason: reason)
    }
}

/// Seals and opens the plaintext bytes of encrypted columns; `StrataEncryption.AESGCMKeyring` is the
/// implementation Strata ships. Set it as ``Configuration/encryption``.
///
/// The core turns each value into plaintext bytes the same way on every driver, hands them to ``seal(_:for:)``
/// and stores what it returns as a blob; reading, it hands the blob to ``open(_:for:)``.
public protocol ColumnEncryption: Sendable {
    /// The stored envelope of `plaintext` for `column` (under the newest key).
    ///
    /// - Throws: ``StrataError/encryptedColumn(model:column:reason:)`` when it cannot be sealed.
    func seal(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> Data
    /// The plaintext an envelope holds.
    ///
    /// - Throws: ``StrataError/encryptedColumn(model:column:reason:)`` for an unknown key id, a wrong key, an
    ///   altered envelope or one sealed for another column.
    func open(_ envelope: Data, for column: EncryptedColumn) throws(StrataError) -> Data
    /// Every envelope a deterministic column may hold for `plaintext`: one per key the keyring holds, newest
    /// first, so that an equality filter finds rows written before a key rotation.
    func equalityEnvelopes(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> [Data]
}

/// A database's ``Configuration/encryption`` behind one reference, as every row of a query carries it: a
/// `RowContext` is four words, with a nil reference for models without encrypted columns (the existential it held
/// before made it eight, and cost lookups in a transaction 2.4% of their instructions).
@usableFromInline
final class Keyring: Sendable {
    let encryption: any ColumnEncryption

    init(_ encryption: any ColumnEncryption) { self.encryption = encryption }
}
