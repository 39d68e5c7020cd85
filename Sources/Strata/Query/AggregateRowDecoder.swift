// AggregateRowDecoder: decodes a grouped query's row into a user's Decodable struct, by item key.

/// A `Decoder` over one row of named values, read straight from the driver's row. Each property reads the value
/// whose key matches its coding key exactly, or else ignoring case and underscores (`customerID` reads
/// `customer_id`); a property type that is ``DatabaseValueConvertible`` reads the value as a model would: its
/// type's fast read, else the item's normalization and `init(databaseValue:)`.
enum AggregateRowDecoder {
    static func decode<R: Decodable>(_: R.Type, row: any RowReader, items: SelectedItems) throws -> R {
        try R(from: RowDecoder(reader: row, items: items))
    }

    /// The loose form of a key: lowercased, without underscores.
    static func loose(_ key: String) -> String { key.lowercased().replacingOccurrences(of: "_", with: "") }
}

extension SelectedItems {
    /// The position of the item a coding key names: an exact key, else the first key equal ignoring case and
    /// underscores. A key matched loosely (or not at all) is remembered, so each row of the query costs one lookup,
    /// not a lowercased copy of every key.
    func position(ofKey key: String) -> Int? {
        if let i = keys.firstIndex(of: key) { return i }
        if let known = loosePositions[key] { return known < 0 ? nil : known }
        let loose = AggregateRowDecoder.loose(key)
        let found = keys.firstIndex { AggregateRowDecoder.loose($0) == loose }
        loosePositions[key] = found ?? -1
        return found
    }

    /// Item `i` of the current row as the driver returned it, normalized by the item's aggregate rule.
    func normalizedValue(_ row: any RowReader, at i: Int) throws(StrataError) -> DatabaseValue {
        let v = row.value(at: i)
        guard let rule = rules[i] else { return v }
        return try rule.normalize(v, model: model)
    }
}

private struct RowDecoder: Decoder {
    let reader: any RowReader
    let items: SelectedItems
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
}

private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: RowDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.items.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row.items.position(ofKey: key.stringValue) != nil }

    private func position(_ key: Key) throws -> Int {
        guard let i = row.items.position(ofKey: key.stringValue) else {
            throw StrataError.unknownColumn(model: row.items.model, column: key.stringValue)
        }
        return i
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try row.items.normalizedValue(row.reader, at: try position(key)).isNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let i = try position(key)
        guard let convertible = T.self as? any DatabaseValueConvertible.Type else {
            let v = try row.items.normalizedValue(row.reader, at: i)
            throw StrataError.decodingFailed(
                model: row.items.model, column: key.stringValue, value: v.summary, expected: "\(T.self)")
        }
        let value = try read(convertible, at: i, key: key.stringValue)
        guard let out = value as? T else {
            let v = try row.items.normalizedValue(row.reader, at: i)
            throw StrataError.decodingFailed(
                model: row.items.model, column: key.stringValue, value: v.summary, expected: "\(T.self)")
        }
        return out
    }

    /// Item `i` as `C`: its fast read from the driver's row, else the normalized value through `init(databaseValue:)`;
    /// a failure names the coding key.
    private func read<C: DatabaseValueConvertible>(_: C.Type, at i: Int, key: String) throws -> C {
        if let v = C.read(from: row.reader, at: i) { return v }
        let v = try row.items.normalizedValue(row.reader, at: i)
        do {
            return try C(databaseValue: v)
        } catch {
            throw StrataError.decodingFailed(
                model: row.items.model, column: key, value: v.summary, expected: error.expected)
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
