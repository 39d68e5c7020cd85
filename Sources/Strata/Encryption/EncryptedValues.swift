// EncryptedValues: how the values of `@Encrypted` columns become sealed blobs and back, and which filters reach them.
import Foundation

extension TableColumn {
    /// This column sealed by ``Configuration/encryption`` in `mode`: it stores a blob (the envelope), whatever
    /// the property's type, and keeps no schema default (a default would be stored in clear).
    ///
    /// ```swift
    /// TableColumn(\Patient.ssn, "ssn").encrypted(.deterministic)
    /// ```
    public func encrypted(_ mode: EncryptionMode = .randomized) -> TableColumn {
        var copy = self
        copy.encryption = mode
        copy.type = .blob
        copy.schemaDefault = nil
        copy.backfill = nil
        return copy
    }
}

/// The plaintext bytes of a value: a tag byte, then the value in a fixed form, the same whatever the driver.
enum EncryptedPlaintext {
    static func encode(_ value: DatabaseValue) -> Data {
        var out = Data()
        func int(_ v: UInt64) { withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) } }
        switch value {
        case .null: out.append(0)
        case .bool(let b):
            out.append(1)
            out.append(b ? 1 : 0)
        case .integer(let i):
            out.append(2)
            int(UInt64(bitPattern: i))
        case .double(let d):
            out.append(3)
            int(d.bitPattern)
        case .text(let s):
            out.append(4)
            out.append(contentsOf: Array(s.utf8))
        case .blob(let d):
            out.append(5)
            out.append(d)
        case .date(let d):
            out.append(6)
            int(DatabaseValue.roundedToMicroseconds(d).timeIntervalSince1970.bitPattern)
        case .decimal(let d):
            out.append(7)
            out.append(contentsOf: Array("\(d)".utf8))
        case .uuid(let u):
            out.append(8)
            withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
        case .json(let s):
            out.append(9)
            out.append(contentsOf: Array(s.utf8))
        }
        return out
    }

    static func decode(_ data: Data) -> DatabaseValue? {
        guard let tag = data.first else { return nil }
        let body = Data(data.dropFirst())
        func int() -> UInt64? {
            guard body.count == 8 else { return nil }
            return body.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        switch tag {
        case 0: return .null
        case 1: return body.count == 1 ? .bool(body[body.startIndex] != 0) : nil
        case 2: return int().map { .integer(Int64(bitPattern: $0)) }
        case 3: return int().map { .double(Double(bitPattern: $0)) }
        case 4: return String(bytes: body, encoding: .utf8).map(DatabaseValue.text)
        case 5: return .blob(body)
        case 6: return int().map { .date(Date(timeIntervalSince1970: Double(bitPattern: $0))) }
        case 7: return String(bytes: body, encoding: .utf8).flatMap(DecimalText.parse).map(DatabaseValue.decimal)
        case 8:
            guard body.count == 16 else { return nil }
            let b = Array(body)
            return .uuid(
                UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    )))
        case 9: return String(bytes: body, encoding: .utf8).map(DatabaseValue.json)
        default: return nil
        }
    }
}

extension TableSchema {
    /// The identity column `index` is sealed for, or nil when it is not encrypted.
    func encryptedColumn(_ index: Int, model: String) -> EncryptedColumn? {
        let c = columns[index]
        guard let mode = c.encryption else { return nil }
        return EncryptedColumn(model: model, table: name, column: c.name, mode: mode)
    }

    /// The encrypted column named `name`, or nil.
    func encryptedColumn(named name: String, model: String) -> EncryptedColumn? {
        guard let i = columnNames.firstIndex(of: name) else { return nil }
        return encryptedColumn(i, model: model)
    }

    /// `values` (a model's ``Model/databaseValues``) with each encrypted column's value sealed; NULL stays NULL.
    @usableFromInline
    func sealing(_ values: [DatabaseValue], model: String, _ encryption: (any ColumnEncryption)?) throws(StrataError)
        -> [DatabaseValue]
    {
        var out = values
        for i in storage.encryptedColumns where i < out.count {
            guard let column = encryptedColumn(i, model: model) else { continue }
            out[i] = try Self.seal(out[i], for: column, encryption)
        }
        return out
    }

    /// Throws when this schema has encrypted columns and there is no keyring to seal them with.
    @usableFromInline
    func checkKeyring(model: String, _ encryption: (any ColumnEncryption)?) throws(StrataError) {
        guard encryption == nil, let i = storage.encryptedColumns.first, let column = encryptedColumn(i, model: model)
        else { return }
        throw column.error(Self.noKeyring)
    }

    static let noKeyring = "no keyring: open the database with Configuration.encryption set"

    static func seal(_ value: DatabaseValue, for column: EncryptedColumn, _ encryption: (any ColumnEncryption)?)
        throws(StrataError) -> DatabaseValue
    {
        if value.isNull { return .null }
        guard let encryption else { throw column.error(noKeyring) }
        return .blob(try encryption.seal(EncryptedPlaintext.encode(value), for: column))
    }

    static func open(_ stored: DatabaseValue, for column: EncryptedColumn, _ encryption: (any ColumnEncryption)?)
        throws(StrataError) -> DatabaseValue
    {
        if stored.isNull { return .null }
        guard let encryption else { throw column.error(noKeyring) }
        guard case .blob(let envelope) = stored else { throw column.error("the stored value is not an envelope") }
        guard let value = EncryptedPlaintext.decode(try encryption.open(envelope, for: column)) else {
            throw column.error("the opened envelope holds no value Strata wrote")
        }
        return value
    }
}

extension Model {
    /// The model's ``databaseValues`` as stored: encrypted columns sealed with the database's keyring.
    @inlinable
    func storedValues(_ tx: Transaction) throws(StrataError) -> [DatabaseValue] {
        try storedValues(Self.schema.storage.hasEncryptedColumns ? tx.database.configuration.encryption : nil)
    }

    /// The model's ``databaseValues`` with encrypted columns sealed by `encryption`.
    @inlinable
    func storedValues(_ encryption: (any ColumnEncryption)?) throws(StrataError) -> [DatabaseValue] {
        let schema = Self.schema
        guard schema.storage.hasEncryptedColumns else { return databaseValues }
        return try schema.sealing(databaseValues, model: Self.modelName, encryption)
    }

    /// Throws ``StrataError/encryptedColumn(model:column:reason:)`` when the model has encrypted columns and the
    /// database no keyring, before anything is written or changed.
    @inlinable
    static func checkKeyring(_ tx: Transaction) throws(StrataError) {
        let schema = Self.schema
        guard schema.storage.hasEncryptedColumns else { return }
        try schema.checkKeyring(model: modelName, tx.database.configuration.encryption)
    }
}

extension Row {
    /// Reads model column `column`, stored sealed (an `@Encrypted` property), as `T`.
    ///
    /// - Throws: ``StrataError/encryptedColumn(model:column:reason:)`` when the envelope does not open (no
    ///   keyring, unknown key, altered bytes, another column's value),
    ///   ``StrataError/decodingFailed(model:column:value:expected:)`` when the value inside does not fit `T`.
    public func decode<T: DatabaseValueConvertible>(_ column: Int, encrypted: EncryptionMode) throws(StrataError) -> T {
        guard let index = context.resultIndex(column) else { return try decode(column) }
        let model = String(describing: context.modelType)
        guard let target = context.modelType.schema.encryptedColumn(column, model: model) else {
            return try decode(column)
        }
        let value = try TableSchema.open(reader.value(at: index), for: target, context.keyring?.encryption)
        do {
            return try T(databaseValue: value)
        } catch {
            throw StrataError.decodingFailed(
                model: model, column: target.column, value: "(encrypted)", expected: error.expected)
        }
    }

    /// Reads sealed model column `column`, or returns `default` when the query did not select it.
    public func decode<T: DatabaseValueConvertible>(
        _ column: Int, encrypted: EncryptionMode, default: @autoclosure () -> T
    ) throws(StrataError) -> T {
        guard context.resultIndex(column) != nil else { return `default`() }
        return try decode(column, encrypted: encrypted)
    }
}
