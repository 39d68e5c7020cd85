// DatabaseValueConvertible: how a Swift type becomes a DatabaseValue and back.
import Foundation

/// A type that can be stored in one column.
///
/// Strata's built-in types conform already. A custom type converts itself to and from a primitive
/// value; an enum with a raw value or any `Codable` type only has to declare the conformance:
///
/// ```swift
/// enum Role: String, DatabaseValueConvertible { case admin, member }   // stored as its raw value
/// struct Address: Codable, DatabaseValueConvertible { var city: String } // stored as JSON
/// ```
public protocol DatabaseValueConvertible {
    /// The column type a migration creates for this type.
    static var columnType: ColumnType { get }
    /// Whether NULL is a valid value (true only for `Optional`).
    static var isNullable: Bool { get }
    /// The value to store.
    var databaseValue: DatabaseValue { get }
    /// Reads the type back from what a driver returned.
    ///
    /// - Throws: ``ValueConversionError`` when the value does not fit.
    init(databaseValue: DatabaseValue) throws(ValueConversionError)
    /// Reads the value straight from a row when the stored type is the expected one, or returns nil to
    /// take the general path through ``DatabaseValueConvertible/init(databaseValue:)`` (the default).
    static func read(from reader: any RowReader, at index: Int) -> Self?
}

extension DatabaseValueConvertible {
    /// False: a non-optional type never holds NULL.
    public static var isNullable: Bool { false }
    /// Nil: the value always takes the general path through `init(databaseValue:)`.
    ///
    /// - Parameters:
    ///   - reader: the current row.
    ///   - index: the column's position, from 0.
    /// - Returns: nil.
    public static func read(from reader: any RowReader, at index: Int) -> Self? { nil }
}

/// Why a stored value could not become the requested Swift type.
public struct ValueConversionError: Error, Sendable, Hashable {
    /// The value that did not fit.
    public var value: DatabaseValue
    /// The Swift type that was asked for.
    public var expected: String

    /// The error for a value that does not fit a type.
    ///
    /// - Parameters:
    ///   - value: the stored value.
    ///   - expected: the Swift type that was asked for.
    public init(_ value: DatabaseValue, expected: Any.Type) {
        self.value = value
        self.expected = String(describing: expected)
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// The wrapped type's column type, nullable.
    public static var columnType: ColumnType { Wrapped.columnType }
    /// True: nil is stored as NULL.
    public static var isNullable: Bool { true }
    /// The wrapped type's fast path; NULL and everything else take the general path.
    @inlinable public static func read(from reader: any RowReader, at index: Int) -> Self? {
        Wrapped.read(from: reader, at: index).map { .some($0) }
    }
    /// The wrapped value's database value, or ``DatabaseValue/null`` for nil.
    @inlinable public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    /// Nil for NULL, else the wrapped type read from the value.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` when a non-NULL value does not fit the wrapped type.
    @inlinable public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        if case .null = databaseValue {
            self = .none
        } else {
            self = .some(try Wrapped(databaseValue: databaseValue))
        }
    }
}

extension Bool: DatabaseValueConvertible {
    /// Stored as ``ColumnType/bool``.
    public static var columnType: ColumnType { .bool }
    /// The integer 0 or 1 at `index` as false or true, read without a ``DatabaseValue`` in between (SQLite's
    /// storage); nil for anything else, which takes the general path (a driver's own boolean, or an error).
    ///
    /// - Parameters:
    ///   - reader: the current row.
    ///   - index: the column's position, from 0.
    /// - Returns: the bool, or nil.
    @inlinable public static func read(from reader: any RowReader, at index: Int) -> Bool? {
        switch reader.int64(at: index) {
        case 0?: return false
        case 1?: return true
        default: return nil
        }
    }
    /// The value as ``DatabaseValue/bool(_:)``.
    @inlinable public var databaseValue: DatabaseValue { .bool(self) }
    /// Reads a bool, or the integer 0 or 1 that SQLite stores.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for any other value.
    @inlinable public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .bool(let b): self = b
        case .integer(0): self = false
        case .integer(1): self = true
        default: throw ValueConversionError(databaseValue, expected: Bool.self)
        }
    }
}

extension Int64: DatabaseValueConvertible {
    /// Stored as ``ColumnType/integer``.
    public static var columnType: ColumnType { .integer }
    /// The integer at `index`, read without a ``DatabaseValue`` in between, or nil for anything else.
    ///
    /// - Parameters:
    ///   - reader: the current row.
    ///   - index: the column's position, from 0.
    /// - Returns: the integer, or nil.
    @inlinable public static func read(from reader: any RowReader, at index: Int) -> Int64? {
        reader.int64(at: index)
    }
    /// The value as ``DatabaseValue/integer(_:)``.
    @inlinable public var databaseValue: DatabaseValue { .integer(self) }
    /// Reads an integer.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for any other value.
    @inlinable public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        guard case .integer(let i) = databaseValue else {
            throw ValueConversionError(databaseValue, expected: Int64.self)
        }
        self = i
    }
}

/// Fixed-width integers other than Int64 are stored as INTEGER and checked for range on the way back.
public protocol DatabaseInteger: FixedWidthInteger, DatabaseValueConvertible {}

extension DatabaseInteger {
    /// Stored as ``ColumnType/integer``.
    public static var columnType: ColumnType { .integer }
    /// The integer at `index` when it fits the type, read without a ``DatabaseValue`` in between; otherwise nil.
    ///
    /// - Parameters:
    ///   - reader: the current row.
    ///   - index: the column's position, from 0.
    /// - Returns: the integer, or nil.
    @inlinable public static func read(from reader: any RowReader, at index: Int) -> Self? {
        reader.int64(at: index).flatMap { Self(exactly: $0) }
    }
    /// ``DatabaseValue/integer(_:)`` of the value widened to Int64.
    @inlinable public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    /// Reads an integer that fits the type exactly.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for another kind of value or an integer out of the type's range.
    @inlinable public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        guard case .integer(let i) = databaseValue, let v = Self(exactly: i) else {
            throw ValueConversionError(databaseValue, expected: Self.self)
        }
        self = v
    }
}

extension Int: DatabaseInteger {}
extension Int8: DatabaseInteger {}
extension Int16: DatabaseInteger {}
extension Int32: DatabaseInteger {}
extension UInt8: DatabaseInteger {}
extension UInt16: DatabaseInteger {}
extension UInt32: DatabaseInteger {}

extension Double: DatabaseValueConvertible {
    /// Stored as ``ColumnType/double``.
    public static var columnType: ColumnType { .double }
    /// The double at `index`, read without a ``DatabaseValue`` in between, or nil for anything else.
    ///
    /// - Parameters:
    ///   - reader: the current row.
    ///   - index: the column's position, from 0.
    /// - Returns: the double, or nil.
    @inlinable public static func read(from reader: any RowReader, at index: Int) -> Double? {
        reader.double(at: index)
    }
    /// `-0.0` is stored as `0.0` and NaN as NULL on every driver, because SQLite cannot keep either.
    @inlinable public var databaseValue: DatabaseValue {
        if isNaN { return .null }
        return .double(self == 0 ? 0 : self)
    }
    /// Reads a double, or an integer converted to the nearest double.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for any other value.
    @inlinable public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .double(let d): self = d
        case .integer(let i): self = Double(i)
        default: throw ValueConversionError(databaseValue, expected: Double.self)
        }
    }
}

extension Float: DatabaseValueConvertible {
    /// Stored as ``ColumnType/double``: a float is stored as a double.
    public static var columnType: ColumnType { .double }
    /// The double at `index` rounded to the nearest float, read without a ``DatabaseValue`` in between, or nil for
    /// anything else (an integer takes the general path).
    ///
    /// - Parameters:
    ///   - reader: the current row.
    ///   - index: the column's position, from 0.
    /// - Returns: the float, or nil.
    @inlinable public static func read(from reader: any RowReader, at index: Int) -> Float? {
        reader.double(at: index).map { Float($0) }
    }
    /// The value widened to a double (NaN as NULL, `-0.0` as `0.0`).
    public var databaseValue: DatabaseValue { Double(self).databaseValue }
    /// Reads a double (or an integer) and rounds it to the nearest float.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for any other value.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        self = Float(try Double(databaseValue: databaseValue))
    }
}

extension String: DatabaseValueConvertible {
    /// Stored as ``ColumnType/text``.
    public static var columnType: ColumnType { .text }
    /// The text at `index`, read without a ``DatabaseValue`` in between, or nil for anything else.
    ///
    /// - Parameters:
    ///   - reader: the current row.
    ///   - index: the column's position, from 0.
    /// - Returns: the text, or nil.
    @inlinable public static func read(from reader: any RowReader, at index: Int) -> String? {
        reader.string(at: index)
    }
    /// The value as ``DatabaseValue/text(_:)``.
    @inlinable public var databaseValue: DatabaseValue { .text(self) }
    /// Reads text.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for any other value.
    @inlinable public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        guard case .text(let s) = databaseValue else {
            throw ValueConversionError(databaseValue, expected: String.self)
        }
        self = s
    }
}

extension Data: DatabaseValueConvertible {
    /// Stored as ``ColumnType/blob``.
    public static var columnType: ColumnType { .blob }
    /// The value as ``DatabaseValue/blob(_:)``.
    public var databaseValue: DatabaseValue { .blob(self) }
    /// Reads a blob.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for any other value.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        guard case .blob(let d) = databaseValue else { throw ValueConversionError(databaseValue, expected: Data.self) }
        self = d
    }
}

extension Date: DatabaseValueConvertible {
    /// Stored as ``ColumnType/date``.
    public static var columnType: ColumnType { .date }
    /// ``DatabaseValue/date(_:)``, rounded to the microsecond as every backend stores it.
    public var databaseValue: DatabaseValue { .date(DatabaseValue.roundedToMicroseconds(self)) }
    /// Reads a date, ISO 8601 text, or seconds since 1970 as an integer or a double.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for text that is no date, or any other value.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .date(let d): self = d
        case .text(let s):
            guard let d = DateText.parse(s) else { throw ValueConversionError(databaseValue, expected: Date.self) }
            self = d
        case .double(let t): self = Date(timeIntervalSince1970: t)
        case .integer(let t): self = Date(timeIntervalSince1970: Double(t))
        default: throw ValueConversionError(databaseValue, expected: Date.self)
        }
    }
}

extension Decimal: DatabaseValueConvertible {
    /// Stored as ``ColumnType/decimal``.
    public static var columnType: ColumnType { .decimal }
    /// The value as ``DatabaseValue/decimal(_:)``.
    public var databaseValue: DatabaseValue { .decimal(self) }
    /// Reads a decimal, decimal text, an integer, or a double as the shortest decimal that round-trips to it.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for text that is no number, a non-finite double, or any other value.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .decimal(let d): self = d
        case .text(let s):
            guard let d = DecimalText.parse(s) else {
                throw ValueConversionError(databaseValue, expected: Decimal.self)
            }
            self = d
        case .integer(let i): self = Decimal(i)
        case .double(let x):
            guard let d = DecimalText.decimal(from: x) else {
                throw ValueConversionError(databaseValue, expected: Decimal.self)
            }
            self = d
        default: throw ValueConversionError(databaseValue, expected: Decimal.self)
        }
    }
}

extension UUID: DatabaseValueConvertible {
    /// Stored as ``ColumnType/uuid``.
    public static var columnType: ColumnType { .uuid }
    /// The value as ``DatabaseValue/uuid(_:)``.
    public var databaseValue: DatabaseValue { .uuid(self) }
    /// Reads a UUID, its text form, or its 16 bytes.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for text that is no UUID, a blob of another length, or any other value.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .uuid(let u): self = u
        case .text(let s):
            guard let u = UUID(uuidString: s) else { throw ValueConversionError(databaseValue, expected: UUID.self) }
            self = u
        case .blob(let d) where d.count == 16:
            let b = [UInt8](d)
            self = UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
                ))
        default: throw ValueConversionError(databaseValue, expected: UUID.self)
        }
    }
}

extension URL: DatabaseValueConvertible {
    /// Stored as ``ColumnType/text``: a URL is stored as its absolute string.
    public static var columnType: ColumnType { .text }
    /// ``DatabaseValue/text(_:)`` of the URL's absolute string.
    public var databaseValue: DatabaseValue { .text(absoluteString) }
    /// Reads text that parses as a URL.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` for text that is no URL, or any other value.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        guard case .text(let s) = databaseValue, let u = URL(string: s) else {
            throw ValueConversionError(databaseValue, expected: URL.self)
        }
        self = u
    }
}

// MARK: - Raw-value enums and Codable values

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    /// The raw value's column type: the enum is stored as its raw value.
    public static var columnType: ColumnType { RawValue.columnType }
    /// The raw value's database value.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
    /// The case whose raw value is stored.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` when the value is no raw value, or no case has it.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        self = try Self.fromRawValue(databaseValue)
    }

    /// The case whose raw value is stored, or a conversion error.
    static func fromRawValue(_ databaseValue: DatabaseValue) throws(ValueConversionError) -> Self {
        guard let v = Self(rawValue: try RawValue(databaseValue: databaseValue)) else {
            throw ValueConversionError(databaseValue, expected: Self.self)
        }
        return v
    }
}

/// The JSON coding every backend shares: sorted keys, so equal values are equal text.
enum JSONColumn {
    /// The value to store for `value`: its JSON text, or, when encoding fails, a marker (text starting with
    /// NUL, which no JSON encoder writes) that ``ValueCheck`` refuses with
    /// ``StrataError/invalidValue(table:column:reason:)`` naming the table and column, so nothing is written.
    static func encode<T: Encodable>(_ value: T) -> DatabaseValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            return .json(failureMarker + "encoding \(T.self) as JSON failed: " + describe(error))
        }
        return .json(String(decoding: data, as: UTF8.self))
    }

    private static let failureMarker = "\0"

    /// The reason an encoding failed, when `json` is the marker ``encode(_:)`` returns for a failure.
    static func failure(in json: String) -> String? {
        json.hasPrefix(failureMarker) ? String(json.dropFirst(failureMarker.count)) : nil
    }

    /// Whether JSON text holds NUL, raw (the failure marker) or escaped as `\u0000`, which PostgreSQL's
    /// `jsonb` cannot store.
    static func holdsNUL(_ json: String) -> Bool {
        if let found = json.utf8.withContiguousStorageIfAvailable(scanForNUL) { return found }
        return Array(json.utf8).withUnsafeBufferPointer(scanForNUL)
    }

    private static func scanForNUL(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let backslash = UInt8(ascii: "\\")
        let zero = UInt8(ascii: "0")
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == 0 { return true }
            if c == backslash {
                if i + 5 < b.count, b[i + 1] == UInt8(ascii: "u"), b[i + 2] == zero, b[i + 3] == zero,
                    b[i + 4] == zero, b[i + 5] == zero
                {
                    return true
                }
                i += 2  // skip the escaped character, so `\\u0000` (a backslash, then text) is not NUL
            } else {
                i += 1
            }
        }
        return false
    }

    /// What went wrong, without the value itself (descriptions never show stored values).
    private static func describe(_ error: any Error) -> String {
        guard let e = error as? EncodingError, case .invalidValue(_, let context) = e else {
            return String(describing: type(of: error))
        }
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return (path.isEmpty ? "" : "at '\(path)': ") + context.debugDescription
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: DatabaseValue) throws(ValueConversionError) -> T {
        let data: Data
        switch value {
        case .json(let s), .text(let s): data = Data(s.utf8)
        case .blob(let d): data = d
        default: throw ValueConversionError(value, expected: T.self)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw ValueConversionError(value, expected: T.self)
        }
    }
}

extension DatabaseValueConvertible where Self: Codable {
    /// Stored as ``ColumnType/json``: the value is stored as JSON text.
    public static var columnType: ColumnType { .json }
    /// ``DatabaseValue/json(_:)``: the value encoded as JSON with sorted keys.
    public var databaseValue: DatabaseValue { JSONColumn.encode(self) }
    /// Decodes the value from JSON text.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` when it is not JSON text that decodes as the type.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        self = try JSONColumn.decode(Self.self, from: databaseValue)
    }
}

extension DatabaseValueConvertible where Self: Codable & RawRepresentable, RawValue: DatabaseValueConvertible {
    // Spelled out again so a Codable enum with a raw value stores its raw value, not JSON.
    /// The raw value's column type: a `Codable` enum with a raw value is stored as its raw value, not as JSON.
    public static var columnType: ColumnType { RawValue.columnType }
    /// The raw value's database value.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
    /// The case whose raw value is stored.
    ///
    /// - Parameter databaseValue: the value a driver returned.
    /// - Throws: ``ValueConversionError`` when the value is no raw value, or no case has it.
    public init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        self = try Self.fromRawValue(databaseValue)
    }
}

extension Array: DatabaseValueConvertible where Element: Codable {}
extension Dictionary: DatabaseValueConvertible where Key: Codable, Value: Codable {}
extension Set: DatabaseValueConvertible where Element: Codable {}
