// MemoryPathIndex: an index on a JSON path's value in a JSON column, its values in order once a query wants them.
import Strata

/// An index created by `createIndex` for ``Index/on(_:name:)`` on a JSON path: the typed value at ``path`` of each
/// row's document in ``column``, sorted in ``OrderedEntries`` by the first query whose WHERE compares the same path
/// (same keys, same type) with a value, and kept as a column's entries are: a write notes its slot as pending, so
/// each document is parsed once when the entries are built and once when its row is written, not once per row per
/// query. A lookup yields a superset of the rows whose path value is in range; callers check the full condition.
struct MemoryPathIndex: Sendable {
    let name: String
    /// The JSON column's position in the table's rows.
    let column: Int
    let path: JSONPath
    /// The path's values in order; nil until a lookup wants them, or after too many changes.
    var ordered: OrderedEntries?

    /// The column type the path's values have: the type a bound must be orderable in (see
    /// ``MemoryTable/orderable(_:in:)``).
    var valueType: ColumnType {
        switch path.type {
        case .text: .text
        case .integer: .integer
        case .double: .double
        case .bool: .bool
        }
    }

    /// The path's value in `row` (NULL for a NULL document or a missing or mistyped value), as a query reads it.
    func value(_ row: [DatabaseValue]) -> DatabaseValue {
        switch row[column] {
        case .json(let text), .text(let text): JSONPathReader.value(in: text, at: path)
        default: .null
        }
    }

    /// The path's values over a table's slots, in order.
    func entries(_ rows: [[DatabaseValue]]) -> OrderedEntries {
        OrderedEntries(values: rows.map { $0.isEmpty ? nil : value($0) })
    }

    /// Whether `v` is the value of this index's path over `column`: a `.jsonPath` of the plain column, as
    /// ``ComputedValue`` compiles `json(\.doc, "size", as: Int.self)`.
    func reads(_ v: ComputedValue) -> Bool {
        guard case .jsonPath(.operand(.column(let c)), let p) = v else { return false }
        return c == column && p == path
    }
}
