// Backend: one connection under test, opened by URL through the driver factories the caller passes in.
import Strata

/// One database the engine runs statements on: a name, and one connection held for the whole run.
///
/// Statements run synchronously on the connection, with no pool in between, so a run needs no async
/// context and each statement costs what the driver costs.
public final class Backend {
    /// The driver's name and the URL it was opened with, for reports.
    public let name: String
    let connection: any DatabaseConnection
    /// The tables created through ``run(_:types:)``, whose column types the core's check reads, as a
    /// ``Database``'s (see ``StatementCheck/checkTypes(_:schemas:)``).
    let schemas = KnownSchemas()
    /// Whether statements pass the core's type check (``StatementCheck/checkTypes(_:schemas:)``); off only in the
    /// engine's own tests, to make a backend answer a mistyped query as SQLite did before the check.
    var checksTypes = true

    /// Opens `url` with the driver among `drivers` that serves its scheme.
    ///
    /// - Throws: ``StrataError/invalidURL(_:reason:)``, ``StrataError/unknownScheme(_:)`` and the driver's
    ///   connection errors.
    public init(url: String, drivers: [DriverFactory]) throws {
        let parsed = try DatabaseURL(url, drivers: drivers)
        guard let factory = drivers.first(where: { $0.serves(parsed.scheme) }) else {
            throw StrataError.unknownScheme(parsed.scheme)
        }
        let driver = try factory.make(parsed, Configuration())
        name = "\(driver.name) (\(URLText.redacted(url)))"
        connection = try driver.connect()
    }

    /// The SQL a statement renders to on this backend, when it speaks SQL.
    public func sql(_ statement: Statement) -> String? {
        guard let sql = connection as? any SQLConnection else { return nil }
        do {
            let rendered = try SQLRenderer.render(statement, dialect: sql.dialect)
            return rendered.sql + "  -- binds: " + rendered.binds.map(\.summary).joined(separator: ", ")
        } catch {
            return "(does not render: \(error))"
        }
    }

    /// Runs a prepared read as a ``Transaction`` runs one on this connection: the SELECT with `values` in place, or,
    /// once the plan rendered SQL here, that SQL with `values` bound into it (see ``PreparedPlan``).
    func runPrepared(_ plan: PreparedPlan, values: [DatabaseValue], types: [ColumnType]) -> QueryOutcome {
        guard let sql = connection as? any SQLConnection else {
            return run(.select(plan.substituted(values)), types: types)
        }
        guard let bound = plan.binds(for: values, dialect: sql.dialect.name, schemas: 0, textColumns: 0) else {
            let select = plan.substituted(values)
            let outcome = run(.select(select), types: types)
            if case .rows = outcome, let rendered = try? SQLRenderer.render(.select(select), dialect: sql.dialect) {
                plan.remember(
                    rendered, of: select, values: values, dialect: sql.dialect, schemas: 0, textColumns: 0)
            }
            return outcome
        }
        var rows: [[CanonicalValue]] = []
        do {
            let (rendering, binds) = bound
            let statement = rendering.shape ?? .select(plan.substituted(values))
            let changes = try sql.run(RenderedSQL(sql: rendering.sql, binds: binds), statement: rendering.shape) {
                rows.append(try row($0, statement, types))
            }
            return .rows(rows, changes: changes)
        } catch {
            return .failed(kind: QueryOutcome.kind(of: error), message: "\(error)")
        }
    }

    /// Runs a statement; `types` decodes each result column.
    func run(_ statement: Statement, types: [ColumnType]) -> QueryOutcome {
        var rows: [[CanonicalValue]] = []
        let items = AggregateResults.items(statement)
        do {
            // What the core refuses before any driver, as Transaction does.
            try StatementCheck.check(statement)
            if checksTypes { try StatementCheck.checkTypes(statement, schemas: schemas) }
            let changes = try connection.execute(statement) { rows.append(try row($0, statement, types, items: items)) }
            schemas.record(statement)
            return .rows(rows, changes: changes)
        } catch {
            return .failed(kind: QueryOutcome.kind(of: error), message: "\(error)")
        }
    }

    /// One row of `statement`'s result, each value as its column's type reads it (an aggregate's normalized).
    private func row(
        _ reader: any RowReader, _ statement: Statement, _ types: [ColumnType],
        items: [SelectItem]?? = nil
    ) throws -> [CanonicalValue] {
        let items = items ?? AggregateResults.items(statement)
        var row: [CanonicalValue] = []
        row.reserveCapacity(reader.columnCount)
        for i in 0..<reader.columnCount {
            var value = reader.value(at: i)
            if let items, i < items.count {
                value = try AggregateResults.normalize(value, item: items[i], table: statement.tableName ?? "?")
            }
            row.append(CanonicalValue(value, type: i < types.count ? types[i] : .integer))
        }
        return row
    }
}

/// Hides a URL's password in reports.
enum URLText {
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url
        }
        let info = url[scheme.upperBound..<at]
        guard let colon = info.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
