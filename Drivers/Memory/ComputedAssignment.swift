// ComputedAssignment: `SET column = expression` in an UPDATE, computed from the row's values before the update.
import Strata

/// One computed assignment of an UPDATE, compiled once per statement.
struct ComputedAssignment {
    let position: Int
    let value: ComputedValue

    /// The value to store for the row whose values before the update are `old`, checked against the column.
    ///
    /// - Throws: the expression's errors (``StrataError/arithmeticError(expression:reason:)``),
    ///   ``StrataError/typeMismatch(table:column:detail:)`` for a value of another type,
    ///   ``StrataError/notNullViolation(table:column:)`` for NULL in a NOT NULL column.
    func stored(from old: [DatabaseValue], in table: borrowing MemoryTable) throws(StrataError) -> DatabaseValue {
        let column = table.columns[position]
        let v = try value.value(old)
        if v.isNull {
            if !column.isNullable || position == table.primaryKey {
                throw .notNullViolation(table: table.name, column: column.name)
            }
            return .null
        }
        switch ColumnCoercion.normalize(v, to: column.type) {
        case .success(let stored): return stored
        case .failure(let m): throw .typeMismatch(table: table.name, column: column.name, detail: m.detail)
        }
    }
}
