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
        guard values.count >= Self.minimumCount, let style = dialect.inListArray,
            let kind = Self.kind(of: values)
        else { return nil }
        switch style {
        case .anyArray:
            guard let element = dialect.arrayElementType(kind) else { return nil }
            open = negated ? " <> ALL(CAST(" : " = ANY(CAST("
            value = .text(Self.postgresArray(values))
            close = " AS " + element + "[]))"
        case .jsonEach:
            guard let json = Self.jsonArray(values) else { return nil }
            open = negated ? " NOT IN (SELECT value FROM json_each(" : " IN (SELECT value FROM json_each("
            value = .text(json)
            close = "))"
        case .jsonTable:
            guard let element = dialect.arrayElementType(kind), let json = Self.jsonArray(values),
                let v = try? dialect.quote("v"), let alias = try? dialect.quote("strata_in_list")
            else { return nil }
            open = (negated ? " NOT IN (SELECT " : " IN (SELECT ") + v + " FROM JSON_TABLE("
            value = .text(json)
            close = ", '$[*]' COLUMNS (" + v + " " + element + " PATH '$')) AS " + alias + ")"
        }
    }

    /// The column type every non-NULL value belongs to, or nil for a mix, no value, or a kind not carried.
    static func kind(of values: [DatabaseValue]) -> ColumnType? {
        var kind: ColumnType?
        for v in values {
            let k: ColumnType
            switch v {
            case .null: continue
            case .integer: k = .integer
            case .double(let d):
                guard d.isFinite else { return nil }
                k = .double
            case .text: k = .text
            case .bool: k = .bool
            case .date: k = .date
            case .decimal: k = .decimal
            case .uuid: k = .uuid
            case .blob, .json: return nil
            }
            if let kind, kind != k { return nil }
            kind = k
        }
        return kind
    }

    /// `{1,NULL,"a \"b\""}`: every non-numeric element quoted, `"` and `\` escaped; values spelled as the
    /// PostgreSQL driver binds them one by one.
    static func postgresArray(_ values: [DatabaseValue]) -> String {
        if let keys = integerArray(values, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), null: "NULL") {
            return keys
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
    static func jsonArray(_ values: [DatabaseValue]) -> String? {
        if let keys = integerArray(values, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), null: "null") {
            return keys
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
        var length = values.count + 1  // the brackets and the commas between values
        for v in values {
            switch v {
            case .integer(let i): length += decimalLength(i)
            case .null: length += null.utf8CodeUnitCount
            default: return nil
            }
        }
        return String(unsafeUninitializedCapacity: length) { out in
            var at = 0
            out[at] = open
            at += 1
            for (n, v) in values.enumerated() {
                if n > 0 {
                    out[at] = UInt8(ascii: ",")
                    at += 1
                }
                if case .integer(let i) = v {
                    at = writeDecimal(i, into: out, at: at)
                } else {
                    null.withUTF8Buffer { spelled in
                        for byte in spelled {
                            out[at] = byte
                            at += 1
                        }
                    }
                }
            }
            out[at] = close
            return at + 1
        }
    }

    /// The number of characters `String(i)` spells `i` with.
    static func decimalLength(_ i: Int64) -> Int {
        var m = i.magnitude
        var n = i < 0 ? 2 : 1
        while m >= 10 {
            m /= 10
            n += 1
        }
        return n
    }

    /// Writes `String(i)`'s characters into `out` from `at`; returns the index after them.
    static func writeDecimal(_ i: Int64, into out: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
        let end = at + decimalLength(i)
        if i < 0 { out[at] = UInt8(ascii: "-") }
        var m = i.magnitude
        var k = end
        repeat {
            k -= 1
            out[k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
            m /= 10
        } while m > 0
        return end
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
