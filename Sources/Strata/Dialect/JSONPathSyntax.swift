// JSONPathSyntax: how a dialect reads a scalar at a path inside a JSON column (SQLite's JSON1, PostgreSQL's jsonb).

/// How the backend reads the value at a ``JSONPath`` inside a JSON column, typed as the path asks; the renderer
/// writes the whole expression from it (see `SQLRenderer+JSONPath`).
public enum JSONPathSyntax: Sendable, Hashable {
    /// SQLite's JSON1 functions over JSON text, with the path as `'$."theme"[0]'`: `json_type` checks the
    /// value's JSON type, `json_extract` reads it (SQLite 3.38+).
    case jsonFunctions
    /// PostgreSQL's jsonb operators, a step at a time (`"settings" -> 'tags' -> 0`): `jsonb_typeof` checks the
    /// value's JSON type, `->>` reads its text, cast to `bigint`, `double precision` or `boolean`.
    case jsonbOperators
    /// MySQL-style functions over JSON text (MariaDB): `JSON_TYPE(JSON_EXTRACT(…))` checks the value's JSON type,
    /// `JSON_UNQUOTE` reads a string (under `collation`, a code-point one), `CAST(… AS SIGNED)` and `CAST(… AS
    /// DOUBLE)` read numbers, with the path as `'$."theme"[0]'`.
    case jsonExtractFunctions(collation: String)

    /// Whether the backend can index the read (an expression index): SQLite and PostgreSQL; MariaDB cannot index an
    /// expression without a generated column.
    public var indexable: Bool {
        switch self {
        case .jsonFunctions, .jsonbOperators: return true
        case .jsonExtractFunctions: return false
        }
    }
}
