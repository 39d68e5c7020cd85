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

/// The encrypted columns' identities of one model, cached in its schema (see `TableSchema.sealedColumns(of:)`).
struct SealedColumns: Sendable {
    let model: ObjectIdentifier
    let columns: [EncryptedColumn?]
}

/// The plaintext bytes of a value: a tag byte, then the value in a fixed form, the same whatever the driver.
enum EncryptedPlaintext {
    static func encode(_ value: DatabaseValue) -> Data {
        func tagged(_ tag: UInt8, _ v: UInt64) -> Data {
            var out = Data(count: 9)
            out[0] = tag
            out.withUnsafeMutableBytes { $0.storeBytes(of: v.bigEndian, toByteOffset: 1, as: UInt64.self) }
            return out
        }
        func tagged(_ tag: UInt8, _ text: String) -> Data {
            var text = text
            return text.withUTF8 { utf8 in
                var out = Data(capacity: 1 + utf8.count)
                out.append(tag)
                out.append(utf8)
                return out
            }
        }
        switch value {
        case .null: return Data([0])
        case .bool(let b): return Data([1, b ? 1 : 0])
        case .integer(let i): return tagged(2, UInt64(bitPattern: i))
        case .double(let d): return tagged(3, d.bitPattern)
        case .text(let s): return tagged(4, s)
        case .blob(let d):
            var out = Data(capacity: 1 + d.count)
            out.append(5)
            out.append(d)
            return out
        case .date(let d): return tagged(6, DatabaseValue.roundedToMicroseconds(d).timeIntervalSince1970.bitPattern)
        case .decimal(let d): return tagged(7, "\(d)")
        case .uuid(let u):
            var out = Data(capacity: 17)
            out.append(8)
            withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
            return out
        case .json(let s): return tagged(9, s)
        }
    }

    static func decode(_ data: Data) -> DatabaseValue? {
        guard let tag = data.first else { return nil }
        let body = data.dropFirst()  // no copy: a slice of `data`
        func int() -> UInt64? {
            guard body.count == 8 else { return nil }
            return body.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        func text() -> String? { String(validating: body, as: UTF8.self) }
        switch tag {
        case 0: return .null
        case 1: return body.count == 1 ? .bool(body[body.startIndex] != 0) : nil
        case 2: return int().map { .integer(Int64(bitPattern: $0)) }
        case 3: return int().map { .double(Double(bitPattern: $0)) }
        case 4: return text().map(DatabaseValue.text)
        case 5: return .blob(Data(body))
        case 6: return int().map { .date(Date(timeIntervalSince1970: Double(bitPattern: $0))) }
        case 7: return text().flatMap(DecimalText.parse).map(DatabaseValue.decimal)
        case 8:
            guard body.count == 16 else { return nil }
            let b = Array(body)
            return .uuid(
                UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    )))
        case 9: return text().map(DatabaseValue.json)
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

    /// The identity of each column as `model` seals it, by column index (nil: not encrypted): built once per
    /// schema and model (the model's name and each column's authenticated data), not once per value.
    func sealedColumns(of model: any Model.Type) -> [EncryptedColumn?] {
        let id = ObjectIdentifier(model)
        if let cached = storage.sealedColumns.withLock({ $0 }), cached.model == id { return cached.columns }
        let name = model.modelName
        let columns = self.columns.indices.map { encryptedColumn($0, model: name) }
        storage.sealedColumns.withLock { $0 = SealedColumns(model: id, columns: columns) }
        return columns
    }

    /// `values` (a model's ``Model/databaseValues``) with each encrypted column's value sealed; NULL stays NULL.
    @usableFromInline
    func sealing(_ values: [DatabaseValue], model: any Model.Type, _ encryption: (any ColumnEncryption)?)
        throws(StrataError) -> [DatabaseValue]
    {
        var out = values
        let sealed = sealedColumns(of: model)
        for i in storage.encryptedColumns where i < out.count && i < sealed.count {
            guard let column = sealed[i] else { continue }
            out[i] = try Self.seal(out[i], for: column, encryption)
        }
        return out
    }

    /// Throws when this schema has encrypted columns and there is no keyring to seal them with.
    @usableFromInline
    func checkKeyring(model: any Model.Type, _ encryption: (any ColumnEncryption)?) throws(StrataError) {
        guard encryption == nil, let i = storage.encryptedColumns.first,
            let column = encryptedColumn(i, model: model.modelName)
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

    /// Appends ``storedValues(_:)-(Transaction)`` to `values`: straight from the model's properties
    /// (``Model/appendDatabaseValues(to:)``) when it has no search document to fill in and no column to seal.
    @inlinable
    func appendStoredValues(to values: inout [DatabaseValue], _ tx: Transaction) throws(StrataError) {
        guard Self.searchable == nil, !Self.schema.storage.hasEncryptedColumns else {
            return values.append(contentsOf: try storedValues(tx))
        }
        appendDatabaseValues(to: &values)
    }

    /// The model's ``databaseValues`` with encrypted columns sealed by `encryption`.
    @inlinable
    func storedValues(_ encryption: (any ColumnEncryption)?) throws(StrataError) -> [DatabaseValue] {
        let schema = Self.schema
        let values = try Self.fillingSearchDocument(databaseValues)
        guard schema.storage.hasEncryptedColumns else { return values }
        return try schema.sealing(values, model: Self.self, encryption)
    }

    /// Throws ``StrataError/encryptedColumn(model:column:reason:)`` when the model has encrypted columns and the
    /// database no keyring, before anything is written or changed.
    @inlinable
    static func checkKeyring(_ tx: Transaction) throws(StrataError) {
        let schema = Self.schema
        guard schema.storage.hasEncryptedColumns else { return }
        try schema.checkKeyring(model: Self.self, tx.database.configuration.encryption)
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
        let sealed = context.modelType.schema.sealedColumns(of: context.modelType)
        guard column < sealed.count, let target = sealed[column] else { return try decode(column) }
        let value = try TableSchema.open(reader.value(at: index), for: target, context.keyring?.encryption)
        do {
            return try T(databaseValue: value)
        } catch {
            throw StrataError.decodingFailed(
                model: target.model, column: target.column, value: "(encrypted)", expected: error.expected)
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
