// DatabaseDefault: a value the database computes for a column when an insert leaves it nil (`DEFAULT now`).

/// A default the database computes when a row is inserted without a value for the column, declared on the model:
/// `@Column(default: .now) var postedAt: Date?`.
///
/// ```swift
/// @Model struct Visit {
///     var id: Int64?
///     var path: String
///     @Column(default: .now) var seenAt: Date?   // nil asks the database for the time of the INSERT
/// }
/// ```
///
/// Migration writes the column's `DEFAULT` in each dialect's spelling, so that rows other programs insert get it
/// too; a save, `insertAll` or upsert that leaves the property nil lets the database fill it and reads the value
/// back into the model; a value the model holds is written as given, and an update never touches the column
/// unless it is assigned. See <doc:ModelLifecycle> for what each driver stores.
public enum DatabaseDefault: Sendable, Hashable {
    /// The time of the inserting statement, in UTC, stored in Strata's date form: SQLite's
    /// `strftime('%Y-%m-%d %H:%M:%f000', 'now')` (whole milliseconds), PostgreSQL's `statement_timestamp()` and
    /// MariaDB's `CURRENT_TIMESTAMP(6)` (whole microseconds), the memory driver's clock (whole microseconds). Every
    /// row one statement inserts gets the same time. Only for `Date` columns.
    case now

    /// The column type the default can fill.
    var columnType: ColumnType {
        switch self {
        case .now: return .date
        }
    }

    /// The name introspection and plans show: `CURRENT_TIMESTAMP`, as ``ColumnDefault/expression(_:)`` spells a
    /// live table's computed default.
    public var expressionName: String {
        switch self {
        case .now: return "CURRENT_TIMESTAMP"
        }
    }
}

extension TableColumn {
    /// The column with a default the database computes (see ``DatabaseDefault``); `@Column(default:)` sets it.
    /// A database default replaces a constant one.
    ///
    /// - Parameter value: the default, or nil for none.
    /// - Returns: the column.
    public func defaulted(_ value: DatabaseDefault?) -> TableColumn {
        var c = self
        c.databaseDefault = value
        if value != nil {
            c.schemaDefault = nil
            c.backfill = nil
        }
        return c
    }
}

extension TableSchema {
    /// The columns with a ``DatabaseDefault``, by name; an insert of the model fills each from its default when
    /// its value is NULL.
    @inlinable public var databaseDefaults: [String: DatabaseDefault] { storage.databaseDefaults }

    /// Refuses a database default on a column it cannot fill: a primary key, a generated column, a column of
    /// another type than the default's, or one stored in another form than Strata's (`dateFormat:`, `@Encrypted`).
    ///
    /// - Parameters:
    ///   - model: the model (or table) named in the error.
    ///   - storesAlike: whether a column of the first type stores values as the second does (a live SQLite column
    ///     introspected as text holds Strata's date text).
    func checkDatabaseDefaults(
        model: String, storesAlike: (ColumnType, ColumnType) -> Bool = { $0 == $1 }
    ) throws(StrataError) {
        for c in columns {
            guard let d = c.databaseDefault else { continue }
            if c.dateFormat != nil || c.encryption != nil {
                throw .invalidValue(
                    table: model, column: c.name,
                    reason: "a database default writes Strata's own form, not "
                        + (c.encryption != nil ? "a sealed value" : "another date form"))
            }
            if c.isPrimaryKey || c.isGenerated {
                throw .invalidValue(
                    table: model, column: c.name,
                    reason: "a database default cannot fill "
                        + (c.isPrimaryKey ? "the primary key" : "a generated column"))
            }
            if !storesAlike(c.type, d.columnType) {
                throw .invalidValue(
                    table: model, column: c.name,
                    reason: "the database default \(d.expressionName) fills a \(d.columnType.rawValue) column, "
                        + "not \(c.type.rawValue)")
            }
        }
    }
}
