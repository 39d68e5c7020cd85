// ValueCheck: refuses, in one cheap pass before any driver sees them, the values no backend stores alike.
import Foundation

/// The values every statement is checked for on its way to a driver, so that all drivers refuse them alike
/// with ``StrataError/invalidValue(table:column:reason:)``:
///
/// - text (or a pattern) holding NUL (U+0000), which PostgreSQL cannot store and SQLite's `LIKE` stops at;
/// - a date that is NaN, infinite, or outside 0001-01-01 … 9999-12-31 UTC, the range every backend
///   stores and reads back (SQLite's fixed-width text, PostgreSQL's `timestamptz` text, the memory driver);
/// - a `Codable` value whose JSON encoding failed (see ``JSONColumn``).
enum ValueCheck {
    /// Whether every driver can store `value` (the hot path: no allocation, one `memchr` per text).
    @inline(__always)
    static func isStorable(_ value: DatabaseValue) -> Bool {
        switch value {
        case .text(let s): return !containsNUL(s)
        case .json(let s): return !JSONColumn.holdsNUL(s)
        case .date(let d): return DateText.isRepresentable(d)
        default: return true
        }
    }

    /// The first of `values` that ``isStorable(_:)`` refuses, read in place through the buffer (its elements are
    /// borrowed, where iterating the array copied each value: a retain and a release of every text, about 70
    /// instructions a value).
    @inline(__always)
    static func firstUnstorable(_ values: [DatabaseValue]) -> DatabaseValue? {
        values.withUnsafeBufferPointer { buffer in
            for i in buffer.indices where !isStorable(buffer[i]) { return buffer[i] }
            return nil
        }
    }

    /// Why `value` is refused (call only when ``isStorable(_:)`` is false).
    static func reason(_ value: DatabaseValue) -> String {
        switch value {
        case .text:
            return "text contains NUL (U+0000), which PostgreSQL cannot store; Strata refuses it on every driver"
        case .json(let s):
            return JSONColumn.failure(in: s)
                ?? "JSON holds NUL (\\u0000), which PostgreSQL's jsonb cannot store; Strata refuses it on every driver"
        case .date(let d):
            return "date \(d.timeIntervalSince1970) s since 1970 is outside 0001-01-01 … 9999-12-31 UTC, "
                + "the range every driver stores and reads back"
        default: return "value cannot be stored"
        }
    }

    /// Whether `s` holds a NUL byte: one `memchr` over its UTF-8 storage.
    @inline(__always)
    static func containsNUL(_ s: String) -> Bool {
        if let found = s.utf8.withContiguousStorageIfAvailable({ buffer -> Bool in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return false }
            return memchr(base, 0, buffer.count) != nil
        }) {
            return found
        }
        return s.utf8.contains(0)
    }

    /// The error for a refused value bound as raw-SQL parameter `index` (0-based).
    static func parameterError(_ value: DatabaseValue, index: Int) -> StrataError {
        .invalidValue(table: nil, column: "parameter \(index + 1)", reason: reason(value))
    }

    /// Refuses the first bad value in raw-SQL `binds`, naming it "parameter N".
    static func checkParameters(_ binds: [DatabaseValue]) throws(StrataError) {
        for (i, v) in binds.enumerated() where !isStorable(v) { throw parameterError(v, index: i) }
    }

    /// Refuses the first bad value in `binds`; the error names the table and column it was headed for,
    /// found by walking `statement()` (built only when a value is refused).
    static func checkBinds(_ binds: [DatabaseValue], statement: () throws -> Statement) throws {
        guard let v = firstUnstorable(binds) else { return }
        try check(try statement())
        throw StrataError.invalidValue(table: nil, column: nil, reason: reason(v))
    }

    /// Refuses the first bad value in `statement`, naming its table and column where known.
    static func check(_ statement: Statement) throws(StrataError) {
        switch statement {
        case .insert(let i):
            for row in i.rows {
                for (n, v) in row.enumerated() where !isStorable(v) {
                    throw .invalidValue(
                        table: i.table, column: n < i.columns.count ? i.columns[n] : nil, reason: reason(v))
                }
            }
        case .update(let u):
            for a in u.assignments where !isStorable(a.value) {
                throw .invalidValue(table: u.table, column: a.column, reason: reason(a.value))
            }
            for a in u.assignments { if let e = a.expression { try check(e.node, table: u.table, column: a.column) } }
            if let f = u.filter { try check(f.node, table: u.table, column: nil) }
        case .delete(let d):
            if let f = d.filter { try check(f.node, table: d.table, column: nil) }
        case .select(let s):
            try check(select: s)
        case .createTable(let t):
            // Each column's values read in place: a copy of the column out of the array cost about 260 instructions.
            for i in t.columns.indices {
                try check(t.columns[i].schemaDefault, t.columns[i].backfill, column: t.columns[i].name, table: t.name)
            }
        case .addColumn(let table, let c):
            try check(c.schemaDefault, c.backfill, column: c.name, table: table)
        case .createIndex, .dropTable, .begin, .commit, .rollback, .savepoint, .releaseSavepoint,
            .rollbackToSavepoint, .beginIsolated:
            break
        }
    }

    /// `check(.select(s))`, without wrapping the SELECT in a ``Statement`` (a copy of it).
    static func check(select s: Select) throws(StrataError) {
        if let w = s.commonTable { try check(select: w.select) }
        if let step = s.commonTable?.step { try check(select: step) }
        for b in s.compound?.branches ?? [] { try check(select: b) }
        for join in s.joins { try check(join.on.node, table: s.table, column: nil) }
        if let f = s.filter { try check(f.node, table: s.table, column: nil) }
    }

    /// Refuses a column's default or backfill value that cannot be stored.
    private static func check(
        _ schemaDefault: DatabaseValue?, _ backfill: DatabaseValue?, column: String, table: String
    ) throws(StrataError) {
        // Each value on its own: an array of the two cost an allocation a column.
        if let v = schemaDefault, !isStorable(v) {
            throw .invalidValue(table: table, column: column, reason: "default: " + reason(v))
        }
        if let v = backfill, !isStorable(v) {
            throw .invalidValue(table: table, column: column, reason: "default: " + reason(v))
        }
    }

    /// Walks a condition; `column` is the column the enclosing comparison is about, if any.
    private static func check(_ node: SQLExpression.Node, table: String, column: String?) throws(StrataError) {
        switch node {
        case .column, .joinedColumn, .constant, .parameter: break
        case .value(let v):
            if !isStorable(v) { throw .invalidValue(table: table, column: column, reason: reason(v)) }
        case .compare(_, let l, let r):
            let (t, c) = place(l, table) ?? place(r, table) ?? (table, column)
            try check(l, table: t, column: c)
            try check(r, table: t, column: c)
        case .and(let items), .or(let items):
            for item in items { try check(item, table: table, column: column) }
        case .not(let e), .isNull(let e, _):
            try check(e, table: table, column: column)
        case .inList(let e, let values, _):
            let (t, c) = place(e, table) ?? (table, column)
            try check(e, table: t, column: c)
            if let v = firstUnstorable(values) { throw .invalidValue(table: t, column: c, reason: reason(v)) }
        case .like(let e, let pattern, _, _):
            let (t, c) = place(e, table) ?? (table, column)
            try check(e, table: t, column: c)
            if containsNUL(pattern) {
                throw .invalidValue(table: t, column: c, reason: "LIKE pattern: " + reason(.text(pattern)))
            }
        case .between(let e, let low, let high, _):
            let (t, c) = place(e, table) ?? (table, column)
            try check(e, table: t, column: c)
            try check(low, table: t, column: c)
            try check(high, table: t, column: c)
        case .unsafeRaw(_, let values):
            for (i, v) in values.enumerated() where !isStorable(v) { throw parameterError(v, index: i) }
        case .arithmetic(_, let l, let r), .concat(let l, let r):
            let (t, c) = place(l, table) ?? place(r, table) ?? (table, column)
            try check(l, table: t, column: c)
            try check(r, table: t, column: c)
        case .caseMapped(let e, _), .typed(let e, _), .jsonPath(let e, _), .search(let e, _), .searchRank(let e, _):
            try check(e, table: table, column: column)
        case .coalesce(let items): for item in items { try check(item, table: table, column: column) }
        case .inSubquery(let e, let s, _):
            try check(e, table: table, column: column)
            if let f = s.filter { try check(f.node, table: s.table, column: nil) }
        case .scalarSubquery(let s), .correlatedExists(let s, _, _):
            if let f = s.filter { try check(f.node, table: s.table, column: nil) }
        }
    }

    /// The table (or join alias) and column a node names, if it is a column.
    private static func place(_ node: SQLExpression.Node, _ table: String) -> (String, String?)? {
        switch node {
        case .column(let name): return (table, name)
        case .joinedColumn(let alias, let name): return (alias, name)
        default: return nil
        }
    }
}
