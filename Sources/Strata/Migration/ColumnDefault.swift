// ColumnDefault: a column's DEFAULT compared across drivers (introspected text normalized by type) and as DDL.
import Foundation

/// How a diff compares a model's constant default with the one a driver's introspection read back.
///
/// Introspection reads a DEFAULT as the database prints it (PostgreSQL `'x'::text`, `'-1'::integer`, `1.50`,
/// `true`; SQLite `'x'`, `(1.5)`, `1`, `TRUE`); each driver parses that text into a value, and this type
/// reads the value as the column's type (integers 0/1 as booleans, text as dates, decimals, UUIDs or JSON), so
/// the same default compares equal on every driver. A computed default (`CURRENT_TIMESTAMP`, `now()`) is
/// kept apart as ``TableColumn/defaultExpression``, spelled the same on every driver by ``expression(_:)``.
public enum ColumnDefault {
    /// `value` read as a value of `type` when it converts (`.integer(1)` as a bool is `.bool(true)`), else as is.
    ///
    /// - Parameters:
    ///   - value: a default as a model declares it or a driver read it; nil or NULL for none.
    ///   - type: the column's type.
    /// - Returns: the value, nil for none.
    public static func normalized(_ value: DatabaseValue?, as type: ColumnType) -> DatabaseValue? {
        guard let value, !value.isNull else { return nil }
        let read = ValueConversion.normalize(value, as: type)
        if type == .json, case .json(let text) = read { return .json(canonicalJSON(text) ?? text) }
        return ValueConversion.convert(read, to: type) ?? read
    }

    /// Whether the live column's default is the one `model` declares. A model column without a constant
    /// default matches a computed default, and a leftover default when the model fills added rows with a
    /// value of its own (as `var joinedAt = Date()` does).
    ///
    /// - Parameters:
    ///   - model: the column as the model declares it.
    ///   - live: the column as introspection read it.
    /// - Returns: whether no default change is needed.
    public static func matches(model: TableColumn, live: TableColumn) -> Bool {
        let wanted = normalized(model.schemaDefault, as: model.type)
        let have = normalized(live.schemaDefault, as: model.type)
        if wanted == nil { return have == nil || model.backfill != nil || live.defaultExpression != nil }
        return wanted == have && live.defaultExpression == nil
    }

    /// Whether the live column computes the default `value` declares: introspection reads it as
    /// ``TableColumn/defaultExpression`` in Strata's spelling (the memory driver keeps it as declared).
    ///
    /// - Parameters:
    ///   - value: the model's database default.
    ///   - live: the column as introspection read it.
    /// - Returns: whether no default change is needed.
    public static func matches(_ value: DatabaseDefault, live: TableColumn) -> Bool {
        live.databaseDefault == value || (live.schemaDefault == nil && live.defaultExpression == value.expressionName)
    }

    /// A computed default in one spelling on every driver: `now()`, `CURRENT_TIMESTAMP`, `current_timestamp(6)`,
    /// `transaction_timestamp()`, `statement_timestamp()` and the `strftime('%Y-%m-%d %H:%M:%f000', 'now')` Strata
    /// writes on SQLite read `CURRENT_TIMESTAMP`; `CURRENT_DATE` and `CURRENT_TIME` upper-cased; anything else as
    /// written.
    ///
    /// - Parameter text: the default's SQL text, as the database shows it.
    /// - Returns: the expression in Strata's spelling.
    public static func expression(_ text: String) -> String {
        var lower = text.lowercased().replacingOccurrences(of: " ", with: "")
        while lower.hasPrefix("("), lower.hasSuffix(")") { lower = String(lower.dropFirst().dropLast()) }
        if lower == "now()" || lower == "transaction_timestamp()" || lower == "statement_timestamp()"
            || lower.hasPrefix("current_timestamp") || lower == "strftime('%y-%m-%d%h:%m:%f000','now')"
        {
            return "CURRENT_TIMESTAMP"
        }
        if lower == "current_date" || lower == "current_time" { return text.uppercased() }
        return text
    }

    /// JSON text with sorted keys and no spaces, so `{"a": 1}` (PostgreSQL's jsonb) matches `{"a":1}`.
    static func canonicalJSON(_ text: String) -> String? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let out = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else { return nil }
        return String(decoding: out, as: UTF8.self)
    }
}

extension SQLRenderer {
    /// A constant default as the SQL literal `CREATE TABLE` writes for it in `dialect` (text quoted, each `'`
    /// doubled), for `ALTER TABLE … SET DEFAULT`.
    ///
    /// - Parameters:
    ///   - value: the default.
    ///   - dialect: the dialect whose literals to write.
    ///   - table: the table, named in errors.
    ///   - column: the column, named in errors.
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for text holding NUL or a date out of range;
    ///   ``StrataError/invalidQuery(_:)`` for a non-finite double or a blob.
    public static func defaultLiteral(
        _ value: DatabaseValue, dialect: any Dialect, table: String, column: String
    ) throws(StrataError) -> String {
        try SQLRenderer(dialect: dialect).ddlLiteral(value, table: table, column: column)
    }
}
