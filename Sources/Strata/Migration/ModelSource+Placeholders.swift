// ModelSource+Placeholders: the types `strata inspect` prints for columns no Strata type reads (JSON, mixed kinds).

extension ModelSource {
    /// A kind of stored value, for columns whose declared type says nothing Strata knows.
    enum StoredKind: Hashable {
        case integer, double, text, blob
    }

    /// A type the inspector declares in its output when a column needs it, for the user to replace.
    enum Placeholder: String, CaseIterable {
        /// A `json`/`jsonb` column, read as its JSON text.
        case json = "JSONText"
        /// A column of a declared type Strata does not know, whose rows hold values of several kinds.
        case stored = "StoredValue"

        /// The declaration printed once, before the models.
        var source: String {
            switch self {
            case .json:
                return """
                    /// A JSON column's value as its text: `strata inspect`'s placeholder, to replace with a Codable type.
                    struct JSONText: Hashable, Sendable, DatabaseValueConvertible {
                        var text: String
                        init(_ text: String) { self.text = text }
                        static var columnType: ColumnType { .json }
                        var databaseValue: DatabaseValue { .json(text) }
                        init(databaseValue: DatabaseValue) throws(ValueConversionError) {
                            switch databaseValue {
                            case .json(let s), .text(let s): text = s
                            case .integer(let i): text = String(i)
                            case .double(let d): text = "\\(d)"
                            default: throw ValueConversionError(databaseValue, expected: JSONText.self)
                            }
                        }
                    }

                    """
            case .stored:
                return """
                    /// A value of any kind, as stored: `strata inspect`'s placeholder for a column of an unknown type.
                    struct StoredValue: Hashable, Sendable, DatabaseValueConvertible {
                        var value: DatabaseValue
                        init(_ value: DatabaseValue) { self.value = value }
                        static var columnType: ColumnType { .text }
                        var databaseValue: DatabaseValue { value }
                        init(databaseValue: DatabaseValue) { value = databaseValue }
                    }

                    """
            }
        }
    }
}
