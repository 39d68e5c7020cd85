// DifferentialConnection: one connection of each backend; runs each statement on both and compares the answers.

/// The connection of a ``DifferentialDriver``: it throws ``StrataError/divergence(statement:details:)``
/// when its two connections answer one statement differently.
final class DifferentialConnection: DatabaseConnection {
    private let primary: any DatabaseConnection
    private let secondary: any DatabaseConnection
    private let names: (String, String)
    private let schemas: DifferentialSchemas

    init(
        primary: any DatabaseConnection, secondary: any DatabaseConnection, names: (String, String),
        schemas: DifferentialSchemas
    ) {
        self.primary = primary
        self.secondary = secondary
        self.names = names
        self.schemas = schemas
    }

    /// What one side answered: its rows and change count, or its error.
    private struct Answer {
        var rows: [[DatabaseValue]] = []
        var changes = 0
        var error: (any Error)?
    }

    private static func answer(_ body: ((any RowReader) throws -> Void) throws -> Int) -> Answer {
        var a = Answer()
        do {
            a.changes = try body { reader in a.rows.append((0..<reader.columnCount).map { reader.value(at: $0) }) }
        } catch {
            a.error = error
        }
        return a
    }

    func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        if case .createTable(let schema) = statement { schemas.record(schema) }
        var a = Self.answer { try primary.execute(statement, onRow: $0) }
        var b = Self.answer { try secondary.execute(statement, onRow: $0) }
        a.rows = AggregateRows.normalized(a.rows, of: statement)
        b.rows = AggregateRows.normalized(b.rows, of: statement)
        try reconcile(a, b, statement: text(of: statement), order: rowOrder(statement))
        return try replay(a, onRow)
    }

    func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int {
        let a = Self.answer { try primary.executeRaw(sql, binds, onRow: $0) }
        let b = Self.answer { try secondary.executeRaw(sql, binds, onRow: $0) }
        try reconcile(a, b, statement: "raw SQL \(sql)", order: .multiset)
        return try replay(a, onRow)
    }

    /// The first side's column names; a divergence when the two sides list different columns.
    func columns(of table: String) throws -> [String]? {
        let a = try primary.columns(of: table)
        let b = try secondary.columns(of: table)
        guard a == b else {
            throw StrataError.divergence(
                statement: "columns of \(table)",
                details: "\(names.0): \(a.map { $0.joined(separator: ", ") } ?? "no table"); "
                    + "\(names.1): \(b.map { $0.joined(separator: ", ") } ?? "no table")")
        }
        return a
    }

    var isBroken: Bool { primary.isBroken || secondary.isBroken }
    var isInTransaction: Bool { primary.isInTransaction || secondary.isInTransaction }

    var maxBindParameters: Int { min(primary.maxBindParameters, secondary.maxBindParameters) }

    var maxInListValues: Int { min(primary.maxInListValues, secondary.maxInListValues) }

    /// The weaker of the two sides' levels, when both can serve `requested`.
    func isolation(serving requested: IsolationLevel) -> IsolationLevel? {
        guard let a = primary.isolation(serving: requested), let b = secondary.isolation(serving: requested) else {
            return nil
        }
        return min(a, b)
    }

    // MARK: Comparing

    /// The statement as SQL in the dialect of the first side that speaks SQL (values stay out: they are
    /// bound), or as the AST when neither does.
    private func text(of statement: Statement) -> String {
        for side in [secondary, primary] {
            if let sql = side as? any SQLConnection,
                let rendered = try? SQLRenderer.render(statement, dialect: sql.dialect)
            {
                return rendered.sql
            }
        }
        return "\(statement)"
    }

    /// How the rows of a statement may be compared.
    enum RowOrder {
        /// The order is total: compare in order.
        case exact
        /// No order: compare as multisets.
        case multiset
        /// LIMIT or OFFSET over a partial order: each side's choice of rows is valid; compare counts.
        case countOnly
    }

    private func rowOrder(_ statement: Statement) -> RowOrder {
        guard case .select(let s) = statement else { return .exact }
        if s.selection == .count { return .exact }
        if let last = s.order.last {
            let table = last.table.flatMap { alias in s.joins.first { $0.alias == alias }?.table } ?? s.table
            let joinsOrdered = s.joins.allSatisfy { j in s.order.contains { $0.table == j.alias } }
            if last.column == schemas.primaryKey(of: table), s.joins.isEmpty || joinsOrdered { return .exact }
        }
        return s.limit != nil || s.offset != nil ? .countOnly : .multiset
    }

    private func reconcile(_ a: Answer, _ b: Answer, statement: String, order: RowOrder) throws {
        switch (a.error, b.error) {
        case (let ea?, let eb?):
            guard Self.errorCase(ea) == Self.errorCase(eb) else {
                throw StrataError.divergence(
                    statement: statement, details: "\(names.0) threw \(ea); \(names.1) threw \(eb)")
            }
            throw ea
        case (let ea?, nil):
            throw StrataError.divergence(
                statement: statement, details: "\(names.0) threw \(ea); \(names.1) returned \(Self.show(b))")
        case (nil, let eb?):
            throw StrataError.divergence(
                statement: statement, details: "\(names.0) returned \(Self.show(a)); \(names.1) threw \(eb)")
        case (nil, nil):
            guard a.changes == b.changes, Self.same(a.rows, b.rows, order) else {
                throw StrataError.divergence(
                    statement: statement,
                    details: "\(names.0) returned \(Self.show(a)); \(names.1) returned \(Self.show(b))")
            }
        }
    }

    private static func same(_ x: [[DatabaseValue]], _ y: [[DatabaseValue]], _ order: RowOrder) -> Bool {
        guard x.count == y.count else { return false }
        switch order {
        case .countOnly: return true
        case .exact: return zip(x, y).allSatisfy(sameRow)
        case .multiset:
            var unmatched = y
            for row in x {
                guard let i = unmatched.firstIndex(where: { sameRow(row, $0) }) else { return false }
                unmatched.remove(at: i)
            }
            return true
        }
    }

    private static func sameRow(_ r: [DatabaseValue], _ s: [DatabaseValue]) -> Bool {
        r.count == s.count && zip(r, s).allSatisfy { $0.hasSameMeaning(as: $1) }
    }

    /// The name of an error's case (`uniqueViolation`, …): what two backends must agree on.
    static func errorCase(_ error: any Error) -> String {
        guard let e = error as? StrataError else { return "\(type(of: error))" }
        return Mirror(reflecting: e).children.first?.label ?? "\(e)"
    }

    private static func show(_ a: Answer) -> String {
        let rows = a.rows.prefix(8).map { "(" + $0.map(\.summary).joined(separator: ", ") + ")" }
        return "\(a.rows.count) row(s)" + (rows.isEmpty ? "" : " " + rows.joined(separator: " "))
            + (a.rows.count > 8 ? " …" : "") + (a.changes > 0 ? ", \(a.changes) changed" : "")
    }

    private func replay(_ a: Answer, _ onRow: (any RowReader) throws -> Void) throws -> Int {
        let reader = BufferedRow()
        for row in a.rows {
            reader.values = row
            try onRow(reader)
        }
        return a.changes
    }
}

/// A row read from a buffer of values.
final class BufferedRow: RowReader {
    var values: [DatabaseValue] = []
    var columnCount: Int { values.count }
    func value(at index: Int) -> DatabaseValue { index < values.count ? values[index] : .null }
}
