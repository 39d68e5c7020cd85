// ColumnType: the backend-neutral type of a column; each dialect names it in its own SQL.

/// What a column holds, independent of any backend.
///
/// | case | SQLite (STRICT) | PostgreSQL | memory |
/// |---|---|---|---|
/// | `integer` | INTEGER | BIGINT | Int64 |
/// | `double` | REAL | DOUBLE PRECISION | Double |
/// | `text` | TEXT | TEXT | String |
/// | `blob` | BLOB | BYTEA | Data |
/// | `bool` | INTEGER CHECK (0, 1) | BOOLEAN | Bool |
/// | `date` | TEXT (UTC, µs) | TIMESTAMPTZ | Date |
/// | `decimal` | TEXT | NUMERIC | Decimal |
/// | `uuid` | TEXT | UUID | UUID |
/// | `json` | TEXT | JSONB | String |
public enum ColumnType: String, Sendable, Hashable, CaseIterable {
    case integer, double, text, blob, bool, date, decimal, uuid, json
}
