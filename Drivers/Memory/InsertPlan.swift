// InsertPlan: how an INSERT's column list maps onto a table's columns, with the defaults of the others.
import Strata

/// Worked out once for a column list and kept by the table, so the usual stream of INSERTs naming
/// the same columns (a model's) skips the name lookups and the defaults. A class, so handing it on costs one
/// retain (a copy of its arrays retained each); Sendable, as every property is a constant of Sendable values.
final class InsertPlan: Sendable {
    /// The INSERT's column names.
    let columns: [String]
    /// For each stored column, the position of its value in the given rows (-1: omitted).
    let given: [Int]
    /// The stored defaults of the omitted columns (NULL at the others); nil when only the primary
    /// key is omitted.
    let defaults: [DatabaseValue]?
    /// Each stored column's type and whether it takes NULL, read per value without copying the column (a
    /// ``TableColumn`` copy retains its every field: about 250 instructions a value).
    let stores: [ColumnStore]
    /// Why an omitted column cannot take its default (NOT NULL without one, a mistyped default):
    /// the INSERT throws it after checking its RETURNING column, as it did before plans were kept.
    let defaultsError: StrataError?
    /// The table's generated columns compiled once for the plan (``MemoryTable/generatedAssignments()``, which
    /// described each expression for its errors: about 4,700 instructions an INSERT into a table with one).
    let generated: Result<[ComputedAssignment], StrataError>

    /// The plan of `columns` for `table`.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)``, and ``StrataError/invalidQuery(_:)``
    ///   for a column given twice.
    init(_ columns: [String], table: MemoryTable) throws(StrataError) {
        let width = table.columns.count
        var given = [Int](repeating: -1, count: width)
        var next = 0
        for (k, name) in columns.enumerated() {
            let p = try table.position(of: name, near: next)
            if table.columns[p].isGenerated { throw table.generatedWrite(p) }
            if given[p] >= 0 { throw .invalidQuery("column \(name) is given twice in INSERT") }
            given[p] = k
            next = p + 1
        }
        var defaults: [DatabaseValue]?
        var defaultsError: StrataError?
        for p in 0..<width where given[p] < 0 && p != table.primaryKey && !table.columns[p].isGenerated {
            var values = [DatabaseValue](repeating: .null, count: width)
            do {
                for q in p..<width where given[q] < 0 && q != table.primaryKey && !table.columns[q].isGenerated {
                    let column = table.columns[q]
                    values[q] = try column.storedValue(column.schemaDefault ?? .null, table: table.name)
                }
                defaults = values
            } catch {
                defaultsError = error
            }
            break
        }
        self.columns = columns
        self.given = given
        stores = table.columns.map { ColumnStore(type: $0.type, isNullable: $0.isNullable) }
        self.defaults = defaults
        self.defaultsError = defaultsError
        generated = Result { () throws(StrataError) in try table.generatedAssignments() }
    }
}

/// What storing a value in a column needs of it (see ``TableColumn/storedValue(_:table:)``).
struct ColumnStore: Sendable {
    let type: ColumnType
    let isNullable: Bool

    /// `value` as column `p` of `table` stores it, as ``TableColumn/storedValue(_:table:)`` gives it; the column's
    /// name is read only for an error.
    ///
    /// - Throws: ``StrataError/notNullViolation(table:column:)``, ``StrataError/typeMismatch(table:column:detail:)``.
    @inline(__always)
    func stored(_ value: DatabaseValue, column p: Int, of table: MemoryTable) throws(StrataError) -> DatabaseValue {
        if value.isNull {
            if !isNullable { throw .notNullViolation(table: table.name, column: table.columns[p].name) }
            return .null
        }
        switch (type, value) {
        case (.integer, .integer), (.text, .text), (.bool, .bool): return value
        case (.double, .double(let d)) where d != 0: return value
        default: break
        }
        switch ColumnCoercion.normalize(value, to: type) {
        case .success(let v): return v
        case .failure(let m): throw .typeMismatch(table: table.name, column: table.columns[p].name, detail: m.detail)
        }
    }
}
