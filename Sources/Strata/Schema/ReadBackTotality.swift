// ReadBackTotality: whether a save's read-back of the columns the database computed can fail on the values it reads.
import Foundation

/// Whether every property a write reads back (``TableSchema`` `readBackColumns`: generated columns, database
/// defaults) decodes every value its column can hold, worked out once per schema.
///
/// A read-back that cannot fail on its values can fail only as a statement (an I/O error, a lost connection), so a
/// save inside a caller's transaction needs no savepoint around its write and read-back: a failed statement after
/// the write marks the transaction aborted instead (see `Transaction.atomic(readingBack:_:)`).
///
/// Total: a property of exactly `Int64` (or `Int`, 64 bits wide) from an ``ColumnType/integer`` column, `Double` or
/// `Float` from ``ColumnType/double``, `String` from ``ColumnType/text``, `Data` from ``ColumnType/blob``, each
/// optional or from a NOT NULL column. Not total: a narrower integer (`Int8`: 300 does not fit), a `Bool`, a date,
/// a decimal, a UUID, JSON, an enum or any other type of its own, a non-optional property of a nullable column, a
/// column read through a date format or sealed (``TableColumn/encryption``), a column without its property's type.
@usableFromInline
enum ReadBackTotality: Sendable, Equatable {
    /// Some read-back property may not hold a value its column can (or nothing is read back by its type).
    case partial
    /// Every read-back property holds every value its column can.
    case total
    /// Total where the database enforces a generated column's NOT NULL (SQLite, PostgreSQL, memory: see
    /// ``GeneratedColumnSyntax``); partial where it cannot declare one (MariaDB), as a non-optional property then
    /// reads the NULL a NULL operand gives.
    case totalWhereGeneratedColumnsAreNotNull

    /// The totality of the read-back of `readBack`, positions in `columns`; `byTemplate` is false when the read-back
    /// goes through a whole row (then partial).
    static func of(_ readBack: [Int], in columns: [TableColumn], byTemplate: Bool) -> Self {
        guard byTemplate, !readBack.isEmpty else { return .partial }
        var result = Self.total
        for i in readBack {
            let column = columns[i]
            guard column.dateFormat == nil, column.encryption == nil, let type = column.property.valueType,
                type.columnType == column.type, decodesEveryValue(type, of: column.type)
            else { return .partial }
            if type.isNullable { continue }
            if column.isNullable { return .partial }
            if column.isGenerated { result = .totalWhereGeneratedColumnsAreNotNull }
        }
        return result
    }

    /// Whether `type` (optional or not) decodes every non-NULL value a column of `columnType` holds on every backend.
    private static func decodesEveryValue(_ type: any DatabaseValueConvertible.Type, of columnType: ColumnType) -> Bool
    {
        switch columnType {
        case .integer:
            return type == Int64.self || type == Int64?.self
                || (Int.bitWidth == 64 && (type == Int.self || type == Int?.self))
        case .double: return type == Double.self || type == Double?.self || type == Float.self || type == Float?.self
        case .text: return type == String.self || type == String?.self
        case .blob: return type == Data.self || type == Data?.self
        case .bool, .date, .decimal, .uuid, .json: return false
        }
    }
}
