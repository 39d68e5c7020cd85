// Transaction: a leased connection on which statements run synchronously, inside BEGIN or not.
import Synchronization

/// The handle a transaction body (or a one-shot call) runs its statements on, synchronously.
///
/// Valid only inside the closure that received it: using it afterwards throws
/// ``StrataError/transactionMisuse(_:)``. Not `Sendable`, so it cannot leak to another task.
public final class Transaction {
    let connection: any DatabaseConnection
    /// The database this handle belongs to.
    public let database: Database
    /// 0: autocommit; 1: inside BEGIN; n > 1: inside n - 1 savepoints.
    public private(set) var depth: Int
    private(set) var isOpen = true

    init(connection: any DatabaseConnection, database: Database, depth: Int) {
        self.connection = connection
        self.database = database
        self.depth = depth
    }

    /// The name of the driver this handle talks to (`sqlite`, `memory`, …).
    public var driverName: String { database.driverName }

    /// Runs one statement on the connection.
    ///
    /// Every statement passes here (and through the template and raw variants below) on its way to a
    /// driver, so values no backend stores alike are refused once, the same on every driver (see
    /// ``ValueCheck``): ``StrataError/invalidValue(table:column:reason:)``, before anything is written.
    @usableFromInline
    package func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void = { _ in }) throws -> Int {
        try checkOpen()
        try ValueCheck.check(statement)
        database.statementCounter.add(1, ordering: .relaxed)
        return try connection.execute(statement, onRow: onRow)
    }

    /// Runs a statement of a fixed shape with `binds` (see
    /// ``DatabaseConnection/execute(template:binds:statement:onRow:)``).
    @usableFromInline
    package func execute(
        template: StatementTemplate, binds: [DatabaseValue], statement: () throws -> Statement,
        onRow: (any RowReader) throws -> Void
    ) throws -> Int {
        try checkOpen()
        try ValueCheck.checkBinds(binds, statement: statement)
        database.statementCounter.add(1, ordering: .relaxed)
        return try connection.execute(template: template, binds: binds, statement: statement, onRow: onRow)
    }

    /// Runs `body` in a nested scope that rolls back alone when it throws.
    ///
    /// Inside a transaction this is a SAVEPOINT (uniquely named by depth); on an autocommit handle it
    /// is a whole transaction. Throwing ``Rollback`` undoes the scope and, for a Void body, returns.
    ///
    /// - Throws: whatever `body` throws (after rolling back), and database errors.
    @discardableResult
    public func savepoint<T>(_ body: (Transaction) throws -> T) throws -> T {
        let name = "strata_sp_\(depth)"
        let open: Statement = depth == 0 ? .begin : .savepoint(name)
        _ = try execute(open)
        depth += 1
        let result: T
        do {
            result = try body(self)
        } catch {
            depth -= 1
            if depth == 0 {
                _ = try? execute(.rollback)
            } else {
                _ = try? execute(.rollbackToSavepoint(name))
                _ = try? execute(.releaseSavepoint(name))
            }
            if error is Rollback, let none = () as? T { return none }
            throw error
        }
        depth -= 1
        if depth == 0 {
            do {
                _ = try execute(.commit)
            } catch {
                _ = try? execute(.rollback)
                throw error
            }
        } else {
            _ = try execute(.releaseSavepoint(name))
        }
        return result
    }

    /// Runs raw SQL whose `?` markers take `binds`; rows come back as arrays of values.
    ///
    /// The one raw-SQL door: values are still bound, never pasted. The memory driver throws
    /// ``StrataError/unsupported(feature:driver:)``. A value no backend stores alike (text holding NUL, a
    /// date outside 0001…9999) throws ``StrataError/invalidValue(table:column:reason:)`` naming it
    /// `parameter N` (from 1).
    @discardableResult
    public func unsafeRawExecute(_ sql: String, _ binds: [any DatabaseValueConvertible] = []) throws
        -> [[DatabaseValue]]
    {
        try checkOpen()
        let values = binds.map(\.databaseValue)
        try ValueCheck.checkParameters(values)
        database.statementCounter.add(1, ordering: .relaxed)
        var rows: [[DatabaseValue]] = []
        _ = try connection.executeRaw(sql, values) { r in
            rows.append((0..<r.columnCount).map { r.value(at: $0) })
        }
        return rows
    }

    func close() { isOpen = false }

    /// Refuses a handle used after the closure that received it returned.
    func checkOpen() throws {
        guard isOpen else {
            throw StrataError.transactionMisuse("the transaction handle is used after its scope ended")
        }
    }
}
