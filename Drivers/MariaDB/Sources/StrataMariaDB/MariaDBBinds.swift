// MariaDBBinds: a prepared statement's parameters, MYSQL_BINDs over buffers kept from one execution to the next.
import CMariaDB
import Foundation
import Strata

/// The parameters of one prepared statement, reused by every execution: ``set(_:)`` writes the values into the
/// buffers bound last time, so libmariadb's copy of the binds (`mysql_stmt_bind_param`) stays valid and is made
/// again only when a value's type changes or a text outgrows its buffer (``needsBinding``).
///
/// A number or date is written into its slot's fixed 8-byte-aligned area; a text, decimal or blob into the slot's
/// byte buffer, which grows (and is bound again) as needed; NULL through the slot's null flag, keeping the type.
final class MariaDBBinds {
    /// The binds, `count` of them.
    private var binds: UnsafeMutablePointer<MYSQL_BIND>
    private(set) var count = 0
    /// Each slot's fixed area (a number or a `MYSQL_TIME`), `fixedSize` bytes apart.
    private var fixed: UnsafeMutableRawPointer
    private var lengths: UnsafeMutablePointer<UInt>
    private var nulls: UnsafeMutablePointer<my_bool>
    /// Each slot's byte buffer and its capacity (nil and 0 until a text needs one).
    private var bytes: [UnsafeMutableRawPointer?] = []
    private var capacities: [Int] = []
    /// Whether the binds changed since libmariadb last copied them: the caller binds them (`bind(to:)`) first.
    private(set) var needsBinding = true

    private static let fixedSize = (MemoryLayout<MYSQL_TIME>.size + 7) / 8 * 8

    init() {
        binds = .allocate(capacity: 1)
        binds.initialize(to: MYSQL_BIND())
        fixed = .allocate(byteCount: Self.fixedSize, alignment: 8)
        lengths = .allocate(capacity: 1)
        lengths.initialize(to: 0)
        nulls = .allocate(capacity: 1)
        nulls.initialize(to: 0)
    }

    deinit {
        release()
    }

    private func release() {
        binds.deinitialize(count: max(count, 1))
        binds.deallocate()
        fixed.deallocate()
        lengths.deallocate()
        nulls.deallocate()
        for buffer in bytes { buffer?.deallocate() }
    }

    /// Makes room for `n` slots, all unbound (a statement's parameter count never changes, so this runs once).
    private func resize(_ n: Int) {
        release()
        count = n
        binds = .allocate(capacity: max(n, 1))
        binds.initialize(repeating: MYSQL_BIND(), count: max(n, 1))
        fixed = .allocate(byteCount: Self.fixedSize * max(n, 1), alignment: 8)
        lengths = .allocate(capacity: max(n, 1))
        lengths.initialize(repeating: 0, count: max(n, 1))
        nulls = .allocate(capacity: max(n, 1))
        nulls.initialize(repeating: 0, count: max(n, 1))
        bytes = Array(repeating: nil, count: n)
        capacities = Array(repeating: 0, count: n)
        for i in 0..<n {
            binds[i].is_null = nulls + i
            binds[i].length = lengths + i
        }
        needsBinding = true
    }

    /// Writes `values` into the buffers; ``needsBinding`` tells whether libmariadb must copy the binds again.
    func set(_ values: [DatabaseValue]) {
        if values.count != count { resize(values.count) }
        for i in values.indices {
            switch values[i] {
            case .null:
                nulls[i] = 1
                if binds[i].buffer == nil { type(i, MYSQL_TYPE_NULL) }
            case .bool(let v): number(Int64(v ? 1 : 0), MYSQL_TYPE_LONGLONG, at: i)
            case .integer(let v): number(v, MYSQL_TYPE_LONGLONG, at: i)
            case .double(let v): number(v, MYSQL_TYPE_DOUBLE, at: i)
            case .date(let d): number(MariaDBTime.time(of: d), MYSQL_TYPE_DATETIME, at: i)
            case .text(var s), .json(var s): s.withUTF8 { text(UnsafeRawBufferPointer($0), MYSQL_TYPE_STRING, at: i) }
            case .decimal(let d):
                var s = d.description
                s.withUTF8 { text(UnsafeRawBufferPointer($0), MYSQL_TYPE_NEWDECIMAL, at: i) }
            case .uuid(let u):
                var s = u.uuidString.lowercased()
                s.withUTF8 { text(UnsafeRawBufferPointer($0), MYSQL_TYPE_STRING, at: i) }
            case .blob(let data): data.withUnsafeBytes { text($0, MYSQL_TYPE_BLOB, at: i) }
            }
        }
    }

    /// Binds the values to `stmt` when they changed shape; nonzero when libmariadb refuses them.
    func bind(to stmt: StatementHandle) -> Int32 {
        guard needsBinding else { return 0 }
        let rc = Int32(mysql_stmt_bind_param(stmt, binds))
        needsBinding = rc != 0
        return rc
    }

    /// Marks that libmariadb must copy the binds again (a fresh statement handle has none).
    func unbind() { needsBinding = true }

    private func type(_ i: Int, _ type: enum_field_types) {
        if binds[i].buffer_type != type {
            binds[i].buffer_type = type
            needsBinding = true
        }
    }

    private func number<T>(_ value: T, _ type: enum_field_types, at i: Int) {
        let slot = fixed + i * Self.fixedSize
        slot.storeBytes(of: value, as: T.self)
        nulls[i] = 0
        lengths[i] = UInt(MemoryLayout<T>.size)
        if binds[i].buffer != slot || binds[i].buffer_type != type {
            binds[i].buffer = slot
            binds[i].buffer_length = UInt(MemoryLayout<T>.size)
            binds[i].buffer_type = type
            needsBinding = true
        }
    }

    private func text(_ value: UnsafeRawBufferPointer, _ type: enum_field_types, at i: Int) {
        if value.count > capacities[i] || bytes[i] == nil {
            bytes[i]?.deallocate()
            // One byte at least, so that an empty text is bound as '' and not as NULL; room to grow.
            let capacity = max(value.count, 16)
            bytes[i] = .allocate(byteCount: capacity, alignment: 8)
            capacities[i] = capacity
        }
        guard let buffer = bytes[i] else { return }
        if let base = value.baseAddress, value.count > 0 { buffer.copyMemory(from: base, byteCount: value.count) }
        nulls[i] = 0
        lengths[i] = UInt(value.count)
        if binds[i].buffer != buffer || binds[i].buffer_type != type {
            binds[i].buffer = buffer
            binds[i].buffer_length = UInt(capacities[i])
            binds[i].buffer_type = type
            needsBinding = true
        }
    }
}
