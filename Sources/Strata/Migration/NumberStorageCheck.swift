// NumberStorageCheck: refuses a model whose number property sits over a text column, before any of its queries runs.
import Synchronization

/// The models whose number columns a database has found stored as numbers, so each is checked once.
///
/// A `Decimal`, `Int` or `Double` property over a text column (Django's `Total` on a hand-made SQLite table)
/// would filter, sort and aggregate as text on SQLite (`'2.98' >= '10'` is true) and fail with an operator
/// error on PostgreSQL. Strata refuses such a model on every driver and every path, migrated or not, with
/// `StrataError.schemaMismatch(table:missing:)` naming the model and column, rather than compare numerically:
/// SQLite's `CAST(… AS REAL)` is not exact beyond 15 significant digits, and an exact comparison would need the
/// live column type wherever a column is rendered (joins, subqueries, writes).
final class NumberStorageChecks: Sendable {
    private let passed = Mutex<Set<ObjectIdentifier>>([])

    func contains(_ model: any Model.Type) -> Bool {
        passed.withLock { $0.contains(ObjectIdentifier(model)) }
    }

    func insert(_ model: any Model.Type) {
        _ = passed.withLock { $0.insert(ObjectIdentifier(model)) }
    }

    /// Forgets every check: the schema changed (a table created, altered or dropped through Strata).
    func forget() {
        passed.withLock { if !$0.isEmpty { $0.removeAll() } }
    }
}

extension Statement {
    /// Whether the statement changes the schema, so checks made against the old one no longer hold.
    var changesSchema: Bool {
        switch self {
        case .createTable, .addColumn, .dropTable: return true
        default: return false
        }
    }
}

extension Transaction {
    /// Checks, once per database until its schema changes, that no number property of `model` sits over a
    /// column whose values are stored as text.
    ///
    /// A table that does not exist (yet) is left to the query, which says so in the database's words.
    ///
    /// - Throws: `StrataError.schemaMismatch(table:missing:)` naming the table and, for each such column, the
    ///   model's property (`column Total (declared TEXT: model Invoice reads it as a Decimal, but numbers stored
    ///   as text compare as text; …)`).
    func checkNumberStorage(_ model: any Model.Type) throws {
        let checks = database.numberStorageChecks
        if checks.contains(model) { return }
        let schema = model.schema
        let numbers = schema.columns.filter {
            $0.dateFormat == nil && ($0.type == .decimal || $0.type == .integer || $0.type == .double)
        }
        if !numbers.isEmpty {
            try checkOpen()
            guard let live = try connection.liveColumns(of: schema.name) else { return }
            var problems: [String] = []
            for column in numbers {
                guard let found = live.first(where: { $0.name == column.name }),
                    !found.reads.contains(column.type), found.reads.contains(.text)
                else { continue }
                let type = column.type == .decimal ? "a Decimal" : column.type == .double ? "a Double" : "an integer"
                problems.append(
                    "column \(column.name) (declared \(found.declaredType): model \(model.modelName) reads it as "
                        + "\(type), but numbers stored as text compare as text; map it as String, or store numbers)"
                )
            }
            if !problems.isEmpty { throw StrataError.schemaMismatch(table: schema.name, missing: problems) }
        }
        checks.insert(model)
    }
}

extension QueryBuilder {
    /// Refuses the query's model when a number property of it sits over a text column (see
    /// `Transaction.checkNumberStorage(_:)`); a query built for a `Database` is checked when it runs.
    func checkNumberStorage() throws {
        guard let tx = executor as? Transaction else { return }
        try tx.checkNumberStorage(M.self)
    }
}
