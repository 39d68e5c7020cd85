// OnConflict: the upsert clause of an INSERT (`ON CONFLICT (cols) DO NOTHING / DO UPDATE SET …`), as plain values.

/// What an INSERT does with a row whose conflict-target columns match a stored row's.
///
/// Rendered in the dialect's ``Dialect/upsertSyntax``; on SQLite and PostgreSQL always with an explicit target:
///
/// ```sql
/// INSERT INTO "user" ("name", "email") VALUES (?, ?)
///     ON CONFLICT ("email") DO UPDATE SET "name" = excluded."name" RETURNING "id"
/// ```
///
/// The memory driver evaluates it itself: a row whose target values (none NULL) match a stored row's through
/// the unique index on exactly those columns is kept or updated; any other row is inserted. `RETURNING` hands
/// back the inserted and the updated rows, never a kept one.
public struct OnConflict: Sendable, Hashable {
    /// What happens to the stored row.
    public enum Action: Sendable, Hashable {
        /// `DO NOTHING`: the stored row is kept as it is, and not returned.
        case nothing
        /// `DO UPDATE SET c = excluded.c, …, v = table.v + 1`: `set` columns take the inserted row's values,
        /// `increment` columns (a `@Version`) their stored value plus one.
        case update(set: [String], increment: [String])
    }

    /// The conflict target: the columns of a unique index, in any order.
    public var target: [String]
    /// What happens to the stored row: kept (`DO NOTHING`) or updated (`DO UPDATE SET …`).
    public var action: Action

    /// An upsert clause.
    ///
    /// - Parameters:
    ///   - target: the columns of a unique index whose values decide the conflict.
    ///   - action: what happens to the conflicting stored row.
    public init(target: [String], action: Action) {
        self.target = target
        self.action = action
    }

    /// The clause's SQL, after the VALUES, in the dialect's ``UpsertSyntax``: ` ON CONFLICT ("a", "b") DO …` or
    /// ` ON DUPLICATE KEY UPDATE …`. It binds nothing.
    ///
    /// An empty target or an update that sets nothing was refused before any driver (`StatementCheck`).
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` for ``UpsertSyntax/none``; what `quote` throws.
    func sql(
        table: String, syntax: UpsertSyntax, driver: String, quote: (String) throws(StrataError) -> String
    ) throws(StrataError) -> String {
        var out: String
        var sets: [String] = []
        switch syntax {
        case .none: throw .unsupported(feature: "upsert (INSERT … ON CONFLICT)", driver: driver)
        case .onConflict:
            out = " ON CONFLICT ("
            for (n, c) in target.enumerated() { out += (n > 0 ? ", " : "") + (try quote(c)) }
            out += ")"
            guard case .update = action else { return out + " DO NOTHING" }
            out += " DO UPDATE SET "
        case .onDuplicateKeyUpdate:
            out = " ON DUPLICATE KEY UPDATE "
            if case .nothing = action, let first = target.first {
                let column = try quote(first)
                return out + column + " = " + column  // keeps the stored row as it is
            }
        }
        guard case .update(let set, let increment) = action else { return out }
        for c in set {
            let column = try quote(c)
            sets.append(column + " = " + (syntax == .onConflict ? "excluded." + column : "VALUES(" + column + ")"))
        }
        let qualifiedTable = try quote(table)
        for c in increment {
            let column = try quote(c)
            sets.append(column + " = " + qualifiedTable + "." + column + " + 1")
        }
        return out + sets.joined(separator: ", ")
    }
}
