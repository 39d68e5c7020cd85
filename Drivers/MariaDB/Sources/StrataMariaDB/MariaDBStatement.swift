// MariaDBStatement: a prepared statement with the parameter and result buffers its executions reuse.
import CMariaDB

/// A libmariadb prepared statement.
typealias StatementHandle = UnsafeMutablePointer<MYSQL_STMT>

/// One prepared statement of a connection, kept in its cache (or owned by one call), with the buffers every
/// execution reuses: the parameters (``MariaDBBinds``) and the result's columns (``MariaDBRow``).
///
/// A statement whose execution failed is closed and leaves the cache (see `MariaDBConnection.perform`); a template
/// that still refers to it finds it closed and looks the SQL up again.
final class MariaDBStatement {
    let handle: StatementHandle
    let sql: String
    let params: MariaDBBinds
    /// The reader of the last result, kept while the statement's columns read the same way.
    var row: MariaDBRow?
    /// Whether a call is running it or reading its rows (a statement run from inside another's row callback must
    /// not reuse or close it).
    var inUse = false
    private(set) var isClosed = false

    init(_ handle: StatementHandle, sql: String) {
        self.handle = handle
        self.sql = sql
        params = MariaDBBinds(count: Int(mysql_stmt_param_count(handle)))
    }

    /// Closes the handle; the buffers go with the object.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        mysql_stmt_close(handle)
    }
}
