// Migrator+Check: with migration off, compares every model with the live schema and reports all mismatches at once.

/// What does not match between one model's table and the live database (see ``StrataError/schemaMismatches(_:)``).
public struct SchemaMismatch: Sendable, Hashable, CustomStringConvertible {
    /// The table.
    public var table: String
    /// Each problem, naming its column: `the table`, `column Total (stored as TEXT; Decimal needs numbers)`.
    public var problems: [String]

    /// The mismatches of one table.
    ///
    /// - Parameters:
    ///   - table: the table's name.
    ///   - problems: each problem, naming its column.
    public init(table: String, problems: [String]) {
        self.table = table
        self.problems = problems
    }

    /// `table 'name': problem; problem`, for error messages.
    public var description: String { "table '\(table)': " + problems.joined(separator: "; ") }
}

extension Transaction {
    /// The columns of a table as the database declares them (type, nullability, collation), or nil when it does
    /// not exist.
    public func liveColumns(of table: String) throws -> [LiveColumn]? {
        try checkOpen()
        return try connection.liveColumns(of: table)
    }

    /// Compares each schema with the live tables: missing tables and columns, types the stored values cannot
    /// be read or compared as, and nullable columns behind non-optional properties. Runs no write.
    ///
    /// - Throws: ``StrataError/schemaMismatch(table:missing:)`` listing every problem when one table has them,
    ///   ``StrataError/schemaMismatches(_:)`` when several do.
    func checkMapping(_ schemas: [TableSchema]) throws {
        var mismatches: [SchemaMismatch] = []
        for schema in schemas {
            let problems = try problems(of: schema)
            if !problems.isEmpty { mismatches.append(SchemaMismatch(table: schema.name, problems: problems)) }
        }
        if mismatches.count == 1, let only = mismatches.first {
            throw StrataError.schemaMismatch(table: only.table, missing: only.problems)
        }
        if !mismatches.isEmpty { throw StrataError.schemaMismatches(mismatches) }
    }

    private func problems(of schema: TableSchema) throws -> [String] {
        guard let live = try liveColumns(of: schema.name) else { return ["the table"] }
        var problems: [String] = []
        for column in schema.columns {
            guard let found = live.first(where: { $0.name == column.name }) else {
                problems.append("column \(column.name)")
                continue
            }
            let readable =
                found.reads.contains(column.type)
                || (column.dateFormat != nil && found.reads.contains(.date))
            if !readable {
                var reason = "column \(column.name) (declared \(found.declaredType), which does not read or compare as "
                reason += "\(column.dateFormat.map { "dates stored as \($0)" } ?? "\(column.type)")"
                if column.type == .decimal && found.reads.contains(.text) {
                    reason += ": numbers stored as text compare as text; map it as String, or store numbers"
                }
                problems.append(reason + ")")
            }
            if found.isNullable && !column.isNullable {
                problems.append("column \(column.name) (allows NULL, but the property is not optional)")
            }
        }
        return problems
    }
}
