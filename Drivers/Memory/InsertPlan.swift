// InsertPlan: how an INSERT's column list maps onto a table's columns, with the defaults of the others.
import Strata

/// Worked out once for a column list and kept by the table, so the usual stream of INSERTs naming
/// the same columns (a model's) skips the name lookups and the defaults.
struct InsertPlan: Sendable {
    /// The INSERT's column names.
    let columns: [String]
    /// For each stored column, the position of its value in the given rows (-1: omitted).
    let given: [Int]
    /// The stored defaults of the omitted columns (NULL at the others); nil when only the primary
    /// key is omitted.
    let defaults: [DatabaseValue]?
    /// Why an omitted column cannot take its default (NOT NULL without one, a mistyped default):
    /// the INSERT throws it after checking its RETURNING column, as it did before plans were kept.
    let defaultsError: StrataError?

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
        self.defaults = defaults
        self.defaultsError = defaultsError
    }
}
