// AggregateRowDecoder: decodes a grouped query's row into a user's Decodable struct, by item key.

/// A `Decoder` over one row of named values. Each property reads the value whose key matches its coding key
/// exactly, or else ignoring case and underscores (`customerID` reads `customer_id`); a property type that is
/// ``DatabaseValueConvertible`` reads the value as a model would.
enum AggregateRowDecoder {
    static func decode<R: Decodable>(_: R.Type, keys: [String], values: [DatabaseValue], model: String) throws -> R {
        try R(from: RowDecoder(keys: keys, values: values, model: model))
    }

    /// The loose form of a key: lowercased, without underscores.
    static func loose(_ key: String) -> String { key.lowercased().replacingOccurrences(of: "_", with: "") }
}

private struct RowDecoder: Decoder {
    let keys: [String]
    let values: [DatabaseValue]
    let model: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer<Key>(row: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StrataError.invalidQuery("a grouped row decodes into a struct with named properties, not an array")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw StrataError.invalidQuery("a grouped row decodes into a struct with named properties, not one value")
    }

    /// The position of the item a coding key names.
    func index(of key: String) -> Int? {
        if let i = keys.firstIndex(of: key) { return i }
        let loose = AggregateRowDecoder.loose(key)
        return keys.firstIndex { AggregateRowDecoder.loose($0) == loose }
    }
}

private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: RowDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row.index(of: key.stringValue) != nil }

    private func value(_ key: Key) throws -> DatabaseValue {
        guard let i = row.index(of: key.stringValue) else {
            throw StrataError.unknownColumn(model: row.model, column: key.stringValue)
        }
        return row.values[i]
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let v = try value(key)
        guard let convertible = T.self as? any DatabaseValueConvertible.Type else {
            throw StrataError.decodingFailed(
                model: row.model, column: key.stringValue, value: v.summary, expected: "\(T.self)")
        }
        do {
            guard let out = try convertible.init(databaseValue: v) as? T else {
                throw ValueConversionError(v, expected: T.self)
            }
            return out
        } catch let error as ValueConversionError {
            throw StrataError.decodingFailed(
                model: row.model, column: key.stringValue, value: v.summary, expected: error.expected)
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw StrataError.invalidQuery("a grouped row has no nested values (\(key.stringValue))")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw StrataError.invalidQuery("a grouped row has no nested values (\(key.stringValue))")
    }

    func superDecoder() throws -> any Decoder { row }
    func superDecoder(forKey key: Key) throws -> any Decoder { row }
}
