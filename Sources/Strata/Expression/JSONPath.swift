// JSONPath: a path of object keys and array indexes into a JSON column, and the Swift type its value is read as.

/// A path into the document a `Codable` (JSON) column stores, read as one scalar Swift type.
///
/// Each step is an object key or an array index; the value at the end is read as ``ValueType``, and a value of
/// another JSON type (a string where an integer is asked), JSON `null`, a missing key, an index past the end, or a
/// step into a value that is not an object or an array is NULL, on every driver:
///
/// | ValueType | Matches | SQLite | PostgreSQL |
/// |-----------|---------|--------|------------|
/// | `text` | a JSON string | `json_type = 'text'` | `jsonb_typeof = 'string'` |
/// | `integer` | a number without fraction or exponent, in Int64 | `json_type = 'integer'` | digits, `::bigint` |
/// | `double` | any number | `CAST(… AS REAL)` | `::double precision` |
/// | `bool` | `true` or `false` | `json_type IN ('true', 'false')` | `::boolean` |
///
/// A path is part of the query's shape, like a column name: it is written into the SQL as a quoted literal (so an
/// index on the same path can serve the query), never taken from user input. `validate()` refuses what no
/// backend could read alike: an empty path, an empty key, a key holding NUL or `"`, a negative index.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Step: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        /// The member of an object with this key.
        case key(String)
        /// The element of an array at this 0-based position.
        case index(Int)

        /// A key step (`"theme"`).
        public init(stringLiteral value: String) { self = .key(value) }
        /// An index step (`0`).
        public init(integerLiteral value: Int) { self = .index(value) }
    }

    /// The Swift type a path's value is read as; a JSON value of another type reads as NULL.
    public enum ValueType: String, Sendable, Hashable {
        /// A JSON string, read as `String`.
        case text
        /// A JSON number written as an integer (no fraction, no exponent) within Int64, read as an integer.
        case integer
        /// Any JSON number, read as `Double`.
        case double
        /// JSON `true` or `false`, read as `Bool`.
        case bool
    }

    /// The steps from the document's root.
    public var steps: [Step]
    /// The type the value at the end of the path is read as.
    public var type: ValueType

    /// A path of `steps` read as `type`.
    ///
    /// - Parameters:
    ///   - steps: object keys and array indexes from the document's root.
    ///   - type: the type the value is read as.
    public init(_ steps: [Step], as type: ValueType) {
        self.steps = steps
        self.type = type
    }

    /// The path as `settings.theme[0]` text after `column`, for messages.
    public func text(after column: String) -> String {
        var out = column
        for step in steps {
            switch step {
            case .key(let k): out += "." + k
            case .index(let i): out += "[\(i)]"
            }
        }
        return out
    }

    /// The steps as `$.theme[0]` (without the column).
    public var description: String { text(after: "$") + " as " + type.rawValue }

    /// Refuses a path no backend reads alike.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the step: an empty path, an empty key, a key holding NUL
    ///   or a double quote (SQLite's path syntax cannot escape it), a negative index.
    public func validate(column: String) throws(StrataError) {
        guard !steps.isEmpty else { throw .invalidQuery("JSON path on \(column) has no step") }
        for (n, step) in steps.enumerated() {
            switch step {
            case .key(let k):
                if k.isEmpty { throw .invalidQuery("JSON path \(text(after: column)): step \(n + 1) is an empty key") }
                if k.unicodeScalars.contains(where: { $0 == "\u{0}" || $0 == "\"" }) {
                    throw .invalidQuery(
                        "JSON path \(text(after: column)): key \(step.quoted) holds NUL or a double quote, "
                            + "which SQLite's path syntax cannot write")
                }
            case .index(let i):
                if i < 0 {
                    throw .invalidQuery("JSON path \(text(after: column)): index \(i) at step \(n + 1) is negative")
                }
            }
        }
    }
}

extension JSONPath.ValueType {
    /// The column type a value of this type has.
    public var columnType: ColumnType {
        switch self {
        case .text: return .text
        case .integer: return .integer
        case .double: return .double
        case .bool: return .bool
        }
    }
}

extension JSONPath.Step {
    /// The step as a message shows it.
    var quoted: String {
        switch self {
        case .key(let k): return "'" + k.debugDescription.dropFirst().dropLast() + "'"
        case .index(let i): return "[\(i)]"
        }
    }
}

extension SQLExpression {
    /// The expression as short text without bound values, for messages (`settings.theme`).
    public var summary: String { node.summary }
}

extension SQLExpression.Node {
    /// Short text without bound values.
    var summary: String {
        switch self {
        case .column(let c): return c
        case .joinedColumn(let t, let c): return t + "." + c
        case .jsonPath(let e, let path): return path.text(after: e.summary)
        case .value: return "?"
        default: return "an expression"
        }
    }
}
