// IntegerListText: the raw sides' long-IN array text (`[1,2]`, `{1,2}`), written digit by digit as C would.

/// The text of a list of ids as one array value, built the way a C program builds it: one buffer of the worst-case
/// size (20 characters and a comma an id), each id's digits written in place, no string per id.
enum IntegerListText {
    /// Runs `body` with `open` id `,` id … `close` (e.g. `[1,2,3]`); the bytes are valid only inside `body`.
    static func withText<T>(
        _ ids: [Int64], open: UInt8, close: UInt8, _ body: (UnsafeBufferPointer<UInt8>) throws -> T
    ) rethrows -> T {
        let out = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: ids.count * 21 + 2)
        defer { out.deallocate() }
        var at = 0
        out[at] = open
        at += 1
        for (n, id) in ids.enumerated() {
            if n > 0 {
                out[at] = UInt8(ascii: ",")
                at += 1
            }
            if id < 0 {
                out[at] = UInt8(ascii: "-")
                at += 1
            }
            var m = id.magnitude
            var digits = 1
            var probe = m
            while probe >= 10 {
                probe /= 10
                digits += 1
            }
            at += digits
            var k = at
            repeat {
                k -= 1
                out[k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
                m /= 10
            } while m > 0
        }
        out[at] = close
        at += 1
        return try body(UnsafeBufferPointer(rebasing: out[..<at]))
    }
}
