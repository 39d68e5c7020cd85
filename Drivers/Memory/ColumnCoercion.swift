// ColumnCoercion: checks a written value against its column's type and normalizes it, like PostgreSQL.
import Foundation
import Strata

/// The typed-column rules of the memory driver: what each ``ColumnType`` accepts and stores.
enum ColumnCoercion {
    /// The value as the column stores it, or the reason it does not fit (for `typeMismatch`).
    ///
    /// NULL passes through; the caller decides about NOT NULL.
    static func normalize(_ value: DatabaseValue, to type: ColumnType) -> Result<DatabaseValue, Mismatch> {
        switch (type, value) {
        case (_, .null): return .success(.null)
        // -0.0 is stored as 0.0, as SQLite stores it (and as `Double.databaseValue` already writes it).
        case (.double, .double(let d)) where d == 0: return .success(.double(0))
        case (.integer, .integer), (.double, .double), (.text, .text), (.blob, .blob), (.bool, .bool),
            (.decimal, .decimal), (.uuid, .uuid):
            return .success(value)
        case (.double, .integer(let i)): return .success(.double(Double(i)))
        case (.decimal, .integer(let i)): return .success(.decimal(Decimal(i)))
        case (.date, .date(let d)): return .success(.date(DatabaseValue.roundedToMicroseconds(d)))
        case (.json, .json(let s)), (.json, .text(let s)):
            guard JSONValidator.isValid(s) else { return .failure(Mismatch(detail: "invalid JSON text")) }
            return .success(.json(s))
        default:
            return .failure(Mismatch(detail: "expected \(type.rawValue), got \(kindName(value))"))
        }
    }

    /// Why a value does not fit its column.
    struct Mismatch: Error {
        var detail: String
    }

    /// The name of a value's kind in messages (the core's, which its own type checks name).
    static func kindName(_ value: DatabaseValue) -> String { value.kindName }
}

extension TableColumn {
    /// The value this column stores for `value` in `table`.
    ///
    /// - Throws: ``StrataError/notNullViolation(table:column:)`` for NULL in a NOT NULL column,
    ///   ``StrataError/typeMismatch(table:column:detail:)`` for a value of another type.
    func storedValue(_ value: DatabaseValue, table: String) throws(StrataError) -> DatabaseValue {
        if value.isNull {
            if !isNullable { throw .notNullViolation(table: table, column: name) }
            return .null
        }
        switch ColumnCoercion.normalize(value, to: type) {
        case .success(let v): return v
        case .failure(let m): throw .typeMismatch(table: table, column: name, detail: m.detail)
        }
    }
}
