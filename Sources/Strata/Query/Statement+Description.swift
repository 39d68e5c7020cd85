// Statement+Description: a statement's shape for logs and errors, never its bound values.

extension Statement: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the statement does and to which table and columns, with its values left out (they may hold
    /// personal data or secrets): what a log shows for a statement that could not be rendered.
    ///
    /// ```swift
    /// print(Statement.insert(Insert(table: "user", columns: ["name"], rows: [[.text("ann")]])))
    /// // insert into user (name): 1 row, values redacted
    /// ```
    public var description: String {
        switch self {
        case .select(let s): return "select from \(s.table)" + (s.filter == nil ? "" : " where …, values redacted")
        case .insert(let i):
            return "insert into \(i.table) (\(i.columns.joined(separator: ", "))): \(i.rows.count) row"
                + (i.rows.count == 1 ? "" : "s") + ", values redacted"
        case .update(let u):
            return "update \(u.table) set \(u.assignments.map(\.column).joined(separator: ", ")), values redacted"
        case .delete(let d): return "delete from \(d.table)" + (d.filter == nil ? "" : " where …, values redacted")
        case .createTable(let t): return "create table \(t.name)"
        case .addColumn(let t, let c): return "add column \(t).\(c.name)"
        case .createIndex(let t, let i): return "create index on \(t) (\(i.columns.joined(separator: ", ")))"
        case .dropTable(let t): return "drop table \(t)"
        case .begin: return "begin"
        case .commit: return "commit"
        case .rollback: return "rollback"
        case .savepoint(let n): return "savepoint \(n)"
        case .releaseSavepoint(let n): return "release savepoint \(n)"
        case .rollbackToSavepoint(let n): return "rollback to savepoint \(n)"
        case .beginIsolated(let level): return "begin (\(level))"
        }
    }

    /// The same as ``description``: `String(reflecting:)` shows no values either.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump(_:)` and reflection show no bound values.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}
