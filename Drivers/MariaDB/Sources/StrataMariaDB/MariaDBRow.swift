// MariaDBRow: the current row of a binary-protocol result read unbuffered, through one MYSQL_BIND per column.
import CMariaDB
import Foundation
import Strata

/// The current row of a statement's result, read unbuffered off the socket. Each column is fetched as the Strata
/// value its MariaDB type maps to; a value longer than its column's buffer is read again into a grown one
/// (``refetchTruncated(_:)``).
final class MariaDBRow: RowReader {
    /// How a column is read.
    enum Kind: Equatable {
        case integer(unsigned: Bool)
        /// A DECIMAL with no fraction digits (SUM of integers) reads as an integer when it fits.
        case wholeDecimal
        case decimal
        case double
        case date
        case text
        case blob
    }

    private let binds: UnsafeMutablePointer<MYSQL_BIND>
    private let kinds: [Kind]
    private let isNull: UnsafeMutablePointer<my_bool>
    private let lengths: UnsafeMutablePointer<UInt>
    private let errors: UnsafeMutablePointer<my_bool>
    /// Each column's buffer size in bytes (the buffer is `binds[i].buffer`).
    private let sizes: UnsafeMutablePointer<Int>
    let columnCount: Int

    /// A reader for the columns of `stmt`'s result as they read now (see ``reads(_:)``); ``bind(to:)`` binds its
    /// buffers to each result. The storage is fixed (constant pointers), so reading a value costs no
    /// exclusivity check.
    init(_ stmt: StatementHandle) throws {
        let count = Int(mysql_stmt_field_count(stmt))
        guard let fields = stmt.pointee.fields else {
            throw StrataError.database(code: 0, message: "a result without fields")
        }
        columnCount = count
        let n = max(count, 1)
        binds = .allocate(capacity: n)
        binds.initialize(repeating: MYSQL_BIND(), count: n)
        isNull = .allocate(capacity: n)
        isNull.initialize(repeating: 0, count: n)
        lengths = .allocate(capacity: n)
        lengths.initialize(repeating: 0, count: n)
        errors = .allocate(capacity: n)
        errors.initialize(repeating: 0, count: n)
        sizes = .allocate(capacity: n)
        sizes.initialize(repeating: 0, count: n)
        kinds = (0..<count).map { Self.kind(of: fields[$0]) }
        for i in 0..<count {
            var b = MYSQL_BIND()
            switch kinds[i] {
            case .integer(let unsigned):
                b.buffer_type = MYSQL_TYPE_LONGLONG
                b.is_unsigned = unsigned ? 1 : 0
                sizes[i] = 8
            case .double:
                b.buffer_type = MYSQL_TYPE_DOUBLE
                sizes[i] = 8
            case .date:
                b.buffer_type = MYSQL_TYPE_DATETIME
                sizes[i] = MemoryLayout<MYSQL_TIME>.size
            case .wholeDecimal, .decimal, .text, .blob:
                b.buffer_type = MYSQL_TYPE_STRING
                sizes[i] = 64
            }
            b.buffer = .allocate(byteCount: sizes[i], alignment: 8)
            b.buffer_length = UInt(sizes[i])
            b.is_null = isNull + i
            b.length = lengths + i
            b.error = errors + i
            binds[i] = b
        }
    }

    deinit {
        for i in 0..<columnCount { binds[i].buffer.deallocate() }
        binds.deinitialize(count: max(columnCount, 1))
        binds.deallocate()
        isNull.deallocate()
        lengths.deallocate()
        errors.deallocate()
        sizes.deallocate()
    }

    /// Whether `stmt`'s result has the columns this reader reads, each of the same kind (a prepared statement's
    /// result may change with the table it reads, which the server prepares again).
    func reads(_ stmt: StatementHandle) -> Bool {
        guard Int(mysql_stmt_field_count(stmt)) == columnCount, let fields = stmt.pointee.fields else { return false }
        for i in 0..<columnCount where Self.kind(of: fields[i]) != kinds[i] { return false }
        return true
    }

    /// Binds the buffers to `stmt`'s result (the buffers kept their sizes from the last result).
    func bind(to stmt: StatementHandle) throws {
        if mysql_stmt_bind_result(stmt, binds) != 0 { throw Self.failure(stmt) }
    }

    /// Reads again each value of the current row that was longer than its column's buffer (the fetch wrote only
    /// the start of it, and its whole length), into a buffer grown to fit, and binds the grown buffers for the rows
    /// after it. Nothing is read again when every value fit, the usual case once the buffers have grown.
    func refetchTruncated(_ stmt: StatementHandle) throws {
        var grown = false
        for i in 0..<columnCount where isNull[i] == 0 && Int(lengths[i]) > sizes[i] {
            switch kinds[i] {
            case .wholeDecimal, .decimal, .text, .blob: break
            case .integer, .double, .date: continue  // a fixed-size value always fits
            }
            let needed = max(Int(lengths[i]), 2 * sizes[i])
            binds[i].buffer.deallocate()
            sizes[i] = needed
            binds[i].buffer = .allocate(byteCount: needed, alignment: 8)
            binds[i].buffer_length = UInt(needed)
            if mysql_stmt_fetch_column(stmt, binds + i, UInt32(i), 0) != 0 { throw Self.failure(stmt) }
            grown = true
        }
        if grown { try bind(to: stmt) }
    }

    private static func failure(_ stmt: StatementHandle) -> StrataError {
        StrataError.database(code: Int(mysql_stmt_errno(stmt)), message: String(cString: mysql_stmt_error(stmt)))
    }

    private static func kind(of field: MYSQL_FIELD) -> Kind {
        let unsigned = field.flags & UInt32(UNSIGNED_FLAG) != 0
        switch field.type {
        case MYSQL_TYPE_TINY, MYSQL_TYPE_SHORT, MYSQL_TYPE_LONG, MYSQL_TYPE_INT24, MYSQL_TYPE_LONGLONG,
            MYSQL_TYPE_YEAR:
            return .integer(unsigned: unsigned)
        case MYSQL_TYPE_FLOAT, MYSQL_TYPE_DOUBLE: return .double
        case MYSQL_TYPE_DECIMAL, MYSQL_TYPE_NEWDECIMAL: return field.decimals == 0 ? .wholeDecimal : .decimal
        case MYSQL_TYPE_DATETIME, MYSQL_TYPE_TIMESTAMP, MYSQL_TYPE_DATE, MYSQL_TYPE_NEWDATE: return .date
        default:
            // charset 63 is `binary`: BLOB, VARBINARY and BINARY columns hold bytes, not text.
            return field.charsetnr == 63 && field.type != MYSQL_TYPE_NULL ? .blob : .text
        }
    }

    private func bytes(at index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: binds[index].buffer, count: Int(lengths[index]))
    }

    func int64(at index: Int) -> Int64? {
        guard index < columnCount, isNull[index] == 0 else { return nil }
        switch kinds[index] {
        case .integer(let unsigned):
            let v = binds[index].buffer.load(as: Int64.self)
            return unsigned && v < 0 ? nil : v
        case .wholeDecimal:
            return Int64(String(decoding: bytes(at: index), as: UTF8.self))
        default: return nil
        }
    }

    func double(at index: Int) -> Double? {
        guard index < columnCount, isNull[index] == 0, case .double = kinds[index] else { return nil }
        return binds[index].buffer.load(as: Double.self)
    }

    func string(at index: Int) -> String? {
        guard index < columnCount, isNull[index] == 0, case .text = kinds[index] else { return nil }
        return String(decoding: bytes(at: index), as: UTF8.self)
    }

    func value(at index: Int) -> DatabaseValue {
        guard index < columnCount, isNull[index] == 0 else { return .null }
        switch kinds[index] {
        case .integer(let unsigned):
            let v = binds[index].buffer.load(as: Int64.self)
            if unsigned && v < 0 { return .decimal(Decimal(UInt64(bitPattern: v))) }
            return .integer(v)
        case .double: return .double(binds[index].buffer.load(as: Double.self))
        case .date: return .date(MariaDBTime.date(of: binds[index].buffer.load(as: MYSQL_TIME.self)))
        case .text: return .text(String(decoding: bytes(at: index), as: UTF8.self))
        case .blob: return .blob(Data(bytes(at: index)))
        case .wholeDecimal:
            let text = String(decoding: bytes(at: index), as: UTF8.self)
            if let v = Int64(text) { return .integer(v) }
            if DecimalDigits.count(text) > DecimalDigits.limit { return .decimal(.nan) }
            return DecimalText.parse(text).map { .decimal($0) } ?? .text(text)
        case .decimal:
            let text = String(decoding: bytes(at: index), as: UTF8.self)
            if DecimalDigits.count(text) > DecimalDigits.limit { return .decimal(.nan) }
            return DecimalText.parse(text).map { .decimal($0) } ?? .text(text)
        }
    }
}
