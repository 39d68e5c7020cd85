// MariaDBBinds: a statement's values as MYSQL_BIND parameters, with buffers that live as long as the binds.
import CMariaDB
import Foundation
import Strata

/// The parameters of one execution. Keep it alive (`withExtendedLifetime`) until `mysql_stmt_execute` returns:
/// libmariadb reads the buffers then.
final class MariaDBBinds {
    private let binds: UnsafeMutablePointer<MYSQL_BIND>
    private let count: Int
    private var buffers: [UnsafeMutableRawPointer] = []

    init(_ values: [DatabaseValue]) {
        count = values.count
        binds = .allocate(capacity: max(count, 1))
        for (i, value) in values.enumerated() {
            var b = MYSQL_BIND()
            switch value {
            case .null:
                b.buffer_type = MYSQL_TYPE_NULL
            case .bool(let v): fixed(Int64(v ? 1 : 0), MYSQL_TYPE_LONGLONG, into: &b)
            case .integer(let v): fixed(v, MYSQL_TYPE_LONGLONG, into: &b)
            case .double(let v): fixed(v, MYSQL_TYPE_DOUBLE, into: &b)
            case .date(let d): fixed(MariaDBTime.time(of: d), MYSQL_TYPE_DATETIME, into: &b)
            case .text(let s), .json(let s): bytes(Array(s.utf8), MYSQL_TYPE_STRING, into: &b)
            case .decimal(let d): bytes(Array(d.description.utf8), MYSQL_TYPE_NEWDECIMAL, into: &b)
            case .uuid(let u): bytes(Array(u.uuidString.lowercased().utf8), MYSQL_TYPE_STRING, into: &b)
            case .blob(let data): bytes([UInt8](data), MYSQL_TYPE_BLOB, into: &b)
            }
            (binds + i).initialize(to: b)
        }
    }

    deinit {
        binds.deinitialize(count: count)
        binds.deallocate()
        for buffer in buffers { buffer.deallocate() }
    }

    /// Binds the values to `stmt`; nonzero when libmariadb refuses them.
    func bind(to stmt: StatementHandle) -> Int32 {
        Int32(mysql_stmt_bind_param(stmt, binds))
    }

    private func fixed<T>(_ value: T, _ type: enum_field_types, into b: inout MYSQL_BIND) {
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        buffer.initializeMemory(as: T.self, repeating: value, count: 1)
        buffers.append(buffer)
        b.buffer = buffer
        b.buffer_length = UInt(MemoryLayout<T>.size)
        b.buffer_type = type
    }

    private func bytes(_ bytes: [UInt8], _ type: enum_field_types, into b: inout MYSQL_BIND) {
        // One byte at least, so that an empty text is bound as '' and not as NULL.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { buffer.copyMemory(from: base, byteCount: raw.count) }
        }
        buffers.append(buffer)
        let length = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        length.initialize(to: UInt(bytes.count))
        buffers.append(UnsafeMutableRawPointer(length))
        b.buffer = buffer
        b.buffer_length = UInt(bytes.count)
        b.length = length
        b.buffer_type = type
    }
}
