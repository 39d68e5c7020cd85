// StoreState+DatabaseDefaults: the values an INSERT takes from its columns' database defaults (`DEFAULT now`).
import Foundation
import Strata

extension StoreState {
    /// `i` with each NULL of a column it fills from a default (``Insert/defaults``) replaced by the default's value,
    /// and each column it omits that has a database default added with that value: the memory driver's reading
    /// of `COALESCE(?, default)` and of `DEFAULT`. Every row of the statement takes the same time, as SQLite's
    /// `'now'` and PostgreSQL's `statement_timestamp()` give.
    mutating func fillingDatabaseDefaults(_ i: Insert) -> Insert {
        // Asked in place first: a copy of the table out of the dictionary retains every field.
        guard let t = tables.index(forKey: i.table), !i.defaults.isEmpty || Self.hasDatabaseDefaults(&tables.values[t])
        else { return i }
        let table = tables.values[t]
        var given: [(position: Int, value: DatabaseDefault)] = []
        if !i.defaults.isEmpty {
            for (k, c) in i.columns.enumerated() { if let d = i.defaults[c] { given.append((k, d)) } }
        }
        let omitted = table.columns.filter { c in c.databaseDefault != nil && !i.columns.contains(c.name) }
        if given.isEmpty && omitted.isEmpty { return i }
        let now = Self.statementTime()
        func value(_ d: DatabaseDefault) -> DatabaseValue {
            switch d {
            case .now: return .date(now)
            }
        }
        var filled = i
        filled.columns += omitted.map(\.name)
        filled.rows = i.rows.map { row in
            var r = row
            for g in given where g.position < r.count && r[g.position].isNull { r[g.position] = value(g.value) }
            for c in omitted { r.append(c.databaseDefault.map(value) ?? .null) }
            return r
        }
        filled.defaults = [:]
        return filled
    }

    @inline(__always)
    private static func hasDatabaseDefaults(_ table: inout MemoryTable) -> Bool { table.hasDatabaseDefaults }

    /// The clock's time in whole microseconds, the precision Strata stores dates with.
    static func statementTime() -> Date { DatabaseValue.roundedToMicroseconds(Date()) }
}
