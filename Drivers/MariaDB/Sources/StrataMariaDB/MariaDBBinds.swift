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
/// The storage is fixed at the statement's parameter count (constant pointers, so writing a value costs no
/// exclusivity check).
final class MariaDBBinds {
    let count: Int
    private let binds: UnsafeMutablePointer<MYSQL_BIND>
    /// Each slot's fixed area (a number or a `MYSQL_TIME`), `fixedSize` bytes apart.
    private let fixed: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<UInt>
    private let nulls: UnsafeMutablePointer<my_bool>
    /// Each slot's byte buffer and its capacity (nil and 0 until a text needs one).
    private let bytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let capacities: UnsafeMutablePointer<Int>
    /// Whether the binds changed since libmariadb last copied them: the caller binds them (`bind(to:)`) first.
    private(set) var needsBinding = true

    private static let fixedSize = (MemoryLayout<MYSQL_TIME>.size + 7) / 8 * 8

    /// Slots for `count` parameters, all unbound.
    init(count: Int) {
        self.count = count
        let n = max(count, 1)
        binds = .allocate(capacity: n)
        binds.initialize(repeating: MYSQL_BIND(), count: n)
        fixed = .allocate(byteCount: Self.fixedSize * n, alignment: 8)
        lengths = .allocate(capacity: n)
        lengths.initialize(repeating: 0, count: n)
        nulls = .allocate(capacity: n)
        nulls.initialize(repeating: 0, count: n)
        bytes = .allocate(capacity: n)
        bytes.initialize(repeating: nil, count: n)
        capacities = .allocate(capacity: n)
        capacities.initialize(repeating: 0, count: n)
        for i in 0..<count {
            binds[i].is_null = nulls + i
            binds[i].length = lengths + i
        }
    }

    deinit {
        let n = max(count, 1)
        binds.deinitialize(count: n)
        binds.deallocate()
        fixed.deallocate()
        lengths.deallocate()
        nulls.deallocate()
        for i in 0..<count { bytes[i]?.deallocate() }
        bytes.deinitialize(count: n)
        bytes.deallocate()
        capacities.deallocate()
    }

    /// Writes `values` (``count`` of them) into the buffers; ``needsBinding`` tells whether libmariadb must copy
    /// the binds again.
    func set(_ values: [DatabaseValue]) {
        var changed = false
        for i in 0..<min(values.count, count) {
            switch values[i] {
            case .null:
                nulls[i] = 1
                if binds[i].buffer == nil && binds[i].buffer_type != MYSQL_TYPE_NULL {
                    binds[i].buffer_type = MYSQL_TYPE_NULL
                    changed = true
                }
            case .bool(let v): changed = number(Int64(v ? 1 : 0), MYSQL_TYPE_LONGLONG, at: i) || changed
            case .integer(let v): changed = number(v, MYSQL_TYPE_LONGLONG, at: i) || changed
            // -0.0 is bound as 0.0, as every driver binds it.
            case .double(let v): changed = number(v == 0 ? 0 : v, MYSQL_TYPE_DOUBLE, at: i) || changed
            case .date(let d): changed = number(MariaDBTime.time(of: d), MYSQL_TYPE_DATETIME, at: i) || changed
            case .text(var s), .json(var s):
                changed = s.withUTF8 { text(UnsafeRawBufferPointer($0), MYSQL_TYPE_STRING, at: i) } || changed
            case .decimal(let d):
                var s = d.description
                changed = s.withUTF8 { text(UnsafeRawBufferPointer($0), MYSQL_TYPE_NEWDECIMAL, at: i) } || changed
            case .uuid(let u):
                var s = u.uuidString.lowercased()
                changed = s.withUTF8 { text(UnsafeRawBufferPointer($0), MYSQL_TYPE_STRING, at: i) } || changed
            case .blob(let data): changed = data.withUnsafeBytes { text($0, MYSQL_TYPE_BLOB, at: i) } || changed
            }
        }
        if changed { needsBinding = true }
    }

    /// Binds the values to `stmt` when they changed shape; nonzero when libmariadb refuses them.
    func bind(to stmt: StatementHandle) -> Int32 {
        guard needsBinding else { return 0 }
        let rc = Int32(mysql_stmt_bind_param(stmt, binds))
        needsBinding = rc != 0
        return rc
    }

    /// Writes a fixed-size value into slot `i`; whether the bind changed.
    private func number<T>(_ value: T, _ type: enum_field_types, at i: Int) -> Bool {
        let slot = fixed + i * Self.fixedSize
        slot.storeBytes(of: value, as: T.self)
        nulls[i] = 0
        lengths[i] = UInt(MemoryLayout<T>.size)
        guard binds[i].buffer != slot || binds[i].buffer_type != type else { return false }
        binds[i].buffer = slot
        binds[i].buffer_length = UInt(MemoryLayout<T>.size)
        binds[i].buffer_type = type
        return true
    }

    /// Writes bytes into slot `i`'s buffer, growing it as needed; whether the bind changed.
    private func text(_ value: UnsafeRawBufferPointer, _ type: enum_field_types, at i: Int) -> Bool {
        if value.count > capacities[i] || bytes[i] == nil {
            bytes[i]?.deallocate()
            // One byte at least, so that an empty text is bound as '' and not as NULL; room to grow.
            let capacity = max(value.count, 16)
            bytes[i] = .allocate(byteCount: capacity, alignment: 8)
            capacities[i] = capacity
        }
        guard let buffer = bytes[i] else { return false }
        if let base = value.baseAddress, value.count > 0 { buffer.copyMemory(from: base, byteCount: value.count) }
        nulls[i] = 0
        lengths[i] = UInt(value.count)
        guard binds[i].buffer != buffer || binds[i].buffer_type != type else { return false }
        binds[i].buffer = buffer
        binds[i].buffer_length = UInt(capacities[i])
        binds[i].buffer_type = type
        return true
    }
}
