// TextParams: libpq text parameters written back to back into one reusable buffer, as C code would.

/// NUL-terminated parameter texts in one byte buffer, plus the pointer array libpq takes (reused, not
/// reallocated per statement).
///
/// Its storage is `@exclusivity(unchecked)`: one thread uses it at a time, and a runtime access check on each append
/// (about 1,600 instructions an insert of nine values) is work the C baseline would not do.
final class TextParams {
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    @exclusivity(unchecked) private var offsets: [Int] = []
    @exclusivity(unchecked) private var pointers = UnsafeMutableBufferPointer<UnsafePointer<CChar>?>.allocate(
        capacity: 16)

    init() {}

    deinit { pointers.deallocate() }

    var count: Int { offsets.count }

    /// Forgets the values, keeping the storage.
    func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
    }

    func append(_ value: Int) { append(text: String(value)) }
    func append(_ value: Int64) { append(text: String(value)) }
    /// Swift's shortest round-trip spelling, which PostgreSQL reads back to the same double.
    func append(_ value: Double) { append(text: value.description) }

    func append(text: String) {
        offsets.append(bytes.count)
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// The nine non-id columns of a record, in ``BenchSQL/insertColumns`` order.
    func append(_ r: RawRecord) {
        append(r.i1)
        append(r.i2)
        append(r.i3)
        append(r.d1)
        append(r.d2)
        append(r.d3)
        append(text: r.s1)
        append(text: r.s2)
        append(text: r.s3)
    }

    /// Calls `body` with the array of value pointers, valid during the call.
    func withValues<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        if pointers.count < offsets.count {
            pointers.deallocate()
            pointers = .allocate(capacity: offsets.count * 2)
        }
        let values = pointers
        return bytes.withUnsafeBytes { raw in
            for (i, o) in offsets.enumerated() {
                values[i] = raw.baseAddress.map { ($0 + o).assumingMemoryBound(to: CChar.self) }
            }
            return body(UnsafePointer(values.baseAddress))
        }
    }
}
