// ArrayInList: a long IN list bound as one array value (`= ANY($1)`, `json_each(?)`) instead of one parameter each.
import Foundation

/// How a dialect binds a long `IN` list as one value, so 100,000 ids take one parameter, not 100,000
/// (past the bind limit: SQLite 32,766, PostgreSQL 65,535) and the statement's text is the same for any length.
public enum InListArray: Sendable, Hashable {
    /// `x = ANY(CAST($1 AS type[]))` (`x <> ALL(…)` for NOT IN), the array in PostgreSQL's text form, its element
    /// type from ``Dialect/arrayElementType(_:)``.
    case anyArray
    /// `x IN (SELECT value FROM json_each(?))`, the values as one JSON array (SQLite's JSON1, built in since 3.38).
    case jsonEach
    /// `x IN (SELECT "v" FROM JSON_TABLE(?, '$[*]' COLUMNS ("v" type PATH '$')) AS "strata_in_list")`: the values as
    /// one JSON array (MariaDB 10.6+, MySQL 8), each read as ``Dialect/arrayElementType(_:)``.
    case jsonTable
}

/// The rendering of one long IN list as a single bound array: `open`, the bind, `close`.
///
/// The list must hold values of one kind (NULLs aside) that the array form carries exactly: integers, finite
/// doubles, text, booleans, dates, decimals and UUIDs. Anything else (blobs, JSON, non-finite doubles, a mix of
/// kinds, a short list) keeps one parameter per value. Semantics are those of `IN (…)`: a NULL in the list
/// makes a non-matching row unknown (so `NOT IN (2, NULL)` matches nothing), as the scalar form does.
struct ArrayInList {
    /// Lists shorter than this keep `IN (?, ?, …)`: their SQL stays the familiar one.
    static let minimumCount = 100

    let open: String
    let value: DatabaseValue
    let close: String

    init?(_ values: [DatabaseValue], negated: Bool, dialect: any Dialect) {
        guard values.count >= Self.minimumCount, let style = dialect.inListArray else { return nil }
        // One pass learns the kind and, for integers, the array text's length: the text is then written in one more.
        let scan = values.withUnsafeBufferPointer(Self.scan(_:))
        guard let kind = scan.kind else { return nil }
        switch style {
        case .anyArray:
            guard let element = dialect.arrayElementType(kind) else { return nil }
            open = negated ? " <> ALL(CAST(" : " = ANY(CAST("
            value = .text(Self.postgresArray(values, scan))
            close = " AS " + element + "[]))"
        case .jsonEach:
            guard let json = Self.jsonArray(values, scan) else { return nil }
            open = negated ? " NOT IN (SELECT value FROM json_each(" : " IN (SELECT value FROM json_each("
            value = .text(json)
            close = "))"
        case .jsonTable:
            guard let element = dialect.arrayElementType(kind), let json = Self.jsonArray(values, scan),
                let v = try? dialect.quote("v"), let alias = try? dialect.quote("strata_in_list")
            else { return nil }
            open = (negated ? " NOT IN (SELECT " : " IN (SELECT ") + v + " FROM JSON_TABLE("
            value = .text(json)
            close = ", '$[*]' COLUMNS (" + v + " " + element + " PATH '$')) AS " + alias + ")"
        }
    }

    /// What one pass over a list learns: the kind its non-NULL values share, and for a list of integers (and NULLs)
    /// the characters their digits and signs take and the number of NULLs, from which the integer array's writer
    /// knows its text's length without a pass of its own.
    struct Scan {
        /// The column type every non-NULL value belongs to, or nil for a mix, no value, or a kind not carried.
        var kind: ColumnType?
        /// With ``kind`` `.integer`: the characters of every integer as `String(i)` spells it.
        var digits = 0
        /// The NULLs in the list.
        var nulls = 0
    }

    /// The column type every non-NULL value belongs to, or nil for a mix, no value, or a kind not carried.
    static func kind(of values: [DatabaseValue]) -> ColumnType? {
        values.withUnsafeBufferPointer(scan(_:)).kind
    }

    /// ``Scan`` of `values`, each read in place (a loop over the array copied each value out and destroyed it).
    private static func scan(_ values: UnsafeBufferPointer<DatabaseValue>) -> Scan {
        var scan = Scan()
        // Integers and NULLs (a list of keys) take a loop of their own, one test a value; the first value of another
        // kind goes on in the general loop, the integers before it noted as the list's kind so far.
        var i = values.startIndex
        integers: while i < values.endIndex {
            // Every case named: a `default` made the switch copy each value out (about 11 instructions a value).
            switch values[i] {
            case .integer(let v): scan.digits &+= decimalLength(v)
            case .null: scan.nulls &+= 1
            case .bool, .double, .text, .blob, .date, .decimal, .uuid, .json: break integers
            }
            i &+= 1
        }
        // Every integer has a digit, so digits count only when one was seen.
        if scan.digits > 0 { scan.kind = .integer }
        while i < values.endIndex {
            defer { i &+= 1 }
            let k: ColumnType
            switch values[i] {
            case .null:
                scan.nulls &+= 1
                continue
            case .integer(let v):
                scan.digits &+= decimalLength(v)
                k = .integer
            case .double(let d):
                guard d.isFinite else { return Scan() }
                k = .double
            case .text: k = .text
            case .bool: k = .bool
            case .date: k = .date
            case .decimal: k = .decimal
            case .uuid: k = .uuid
            case .blob, .json: return Scan()
            }
            if let kind = scan.kind, kind != k { return Scan() }
            scan.kind = k
        }
        return scan
    }

    /// `{1,NULL,"a \"b\""}`: every non-numeric element quoted, `"` and `\` escaped; values spelled as the
    /// PostgreSQL driver binds them one by one.
    static func postgresArray(_ values: [DatabaseValue], _ known: Scan? = nil) -> String {
        let scan = known ?? values.withUnsafeBufferPointer(scan(_:))
        if scan.kind == .integer {
            return integerArray(values, scan, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), null: "NULL")
        }
        var out = "{"
        out.reserveCapacity(values.count * 8)
        for (n, v) in values.enumerated() {
            if n > 0 { out += "," }
            switch v {
            case .null: out += "NULL"
            case .integer(let i): out += String(i)
            case .double(let d): out += d == 0 ? "0" : d.description
            case .bool(let b): out += b ? "t" : "f"
            case .text(let s): quoteElement(s, into: &out)
            case .date(let d): quoteElement(DateText.format(d) + "+00", into: &out)
            case .decimal(let d): quoteElement(d.description, into: &out)
            case .uuid(let u): out += u.uuidString.lowercased()
            case .blob, .json: out += "NULL"  // excluded by kind(of:)
            }
        }
        return out + "}"
    }

    private static func quoteElement(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(scalar)
        }
        out += "\""
    }

    /// `[1,null,"a"]`: values spelled as the SQLite driver binds and stores them (booleans 0/1, dates as fixed-width
    /// UTC text, decimals and UUIDs as text), so `IN` compares them exactly as it compares bound values.
    static func jsonArray(_ values: [DatabaseValue], _ known: Scan? = nil) -> String? {
        let scan = known ?? values.withUnsafeBufferPointer(scan(_:))
        if scan.kind == .integer {
            return integerArray(values, scan, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), null: "null")
        }
        var out = "["
        out.reserveCapacity(values.count * 8)
        for (n, v) in values.enumerated() {
            if n > 0 { out += "," }
            switch v {
            case .null: out += "null"
            case .integer(let i): out += String(i)
            case .double(let d): out += d.description
            case .bool(let b): out += b ? "1" : "0"
            case .text(let s): jsonString(s, into: &out)
            case .date(let d): jsonString(DateText.format(d), into: &out)
            case .decimal(let d): jsonString(d.description, into: &out)
            case .uuid(let u): jsonString(u.uuidString.lowercased(), into: &out)
            case .blob, .json: return nil
            }
        }
        return out + "]"
    }

    /// `[1,null,-3]` (`open`, `close`, `null` as the form spells them) for a list of integers and NULLs: each
    /// value's digits written in place into one string of the exact length, as `String(i)` spells them. Appending
    /// `String(i)` per value cost about 1,000 instructions a value (a list of 10,000 ids: 10M); this, about 60.
    /// Nil when a value is neither an integer nor NULL.
    static func integerArray(_ values: [DatabaseValue], open: UInt8, close: UInt8, null: StaticString) -> String? {
        let scan = values.withUnsafeBufferPointer(scan(_:))
        // A list of NULLs alone has no kind, but spells as well.
        guard scan.kind == .integer || scan.nulls == values.count else { return nil }
        return integerArray(values, scan, open: open, close: close, null: null)
    }

    /// ``integerArray(_:open:close:null:)`` for a list `scan` found to hold integers and NULLs only: the text's length
    /// is known, so it is written from its end, each value read in place, and each integer's digits from its last
    /// (no second count of its digits).
    private static func integerArray(
        _ values: [DatabaseValue], _ scan: Scan, open: UInt8, close: UInt8, null: StaticString
    ) -> String {
        // The brackets, the commas between values, the digits and the NULLs.
        let length = 2 + max(values.count - 1, 0) + scan.digits + scan.nulls * null.utf8CodeUnitCount
        return values.withUnsafeBufferPointer { values in
            String(unsafeUninitializedCapacity: length) { out in
                var at = length - 1
                out[at] = close
                var i = values.count
                while i > 0 {
                    i -= 1
                    if case .integer(let v) = values[i] {
                        at = writeDecimal(v, into: out, before: at)
                    } else {
                        null.withUTF8Buffer { spelled in
                            at -= spelled.count
                            for k in spelled.indices { out[at + k] = spelled[k] }
                        }
                    }
                    if i > 0 {
                        at -= 1
                        out[at] = UInt8(ascii: ",")
                    }
                }
                at -= 1
                out[at] = open
                assert(at == 0, "the scan's length differs from the text written")
                return length
            }
        }
    }

    /// The number of characters `String(i)` spells `i` with: its digits from its bit length (log10(2) is about
    /// 1233 / 4096) and one comparison with a power of ten, not a division per digit.
    @inline(__always)
    static func decimalLength(_ i: Int64) -> Int {
        let m = i.magnitude
        let bits = UInt64.bitWidth - (m | 1).leadingZeroBitCount
        let guess = (bits &* 1233) >> 12  // the digits of m, or one too few
        let digits = guess + ((m | 1) >= powerOfTen(guess) ? 1 : 0)
        return i < 0 ? digits + 1 : digits
    }

    /// 10 to the power `n`, 0 ≤ n ≤ 19: a switch, which the compiler makes a constant table (a Swift array would be a
    /// global, initialized behind a check at each use).
    @inline(__always)
    private static func powerOfTen(_ n: Int) -> UInt64 {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }

    /// Writes `String(i)`'s characters into `out`, ending just before `end`; returns the index of the first. Two
    /// digits at a time, from a table of the pairs `00` to `99` (half the divisions), from the last digit, so the
    /// number's length is not needed.
    @inline(__always)
    static func writeDecimal(_ i: Int64, into out: UnsafeMutableBufferPointer<UInt8>, before end: Int) -> Int {
        let pairs: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            40414243444546474849505152535455565758596061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899
            """
        let digits = pairs.utf8Start
        var m = i.magnitude
        var k = end
        while m >= 100 {
            let pair = Int(truncatingIfNeeded: m % 100) &* 2
            m /= 100
            k -= 2
            out[k] = digits[pair]
            out[k + 1] = digits[pair + 1]
        }
        if m >= 10 {
            let pair = Int(truncatingIfNeeded: m) &* 2
            k -= 2
            out[k] = digits[pair]
            out[k + 1] = digits[pair + 1]
        } else {
            k -= 1
            out[k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m)
        }
        if i < 0 {
            k -= 1
            out[k] = UInt8(ascii: "-")
        }
        return k
    }

    private static func jsonString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
