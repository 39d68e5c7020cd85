// SQLiteDialect: how SQLite 3.37+ spells Strata's statements (STRICT tables, ?N placeholders).
import Strata

/// The SQLite dialect.
///
/// Tables are `STRICT` so a value of the wrong type is an error, as on PostgreSQL; booleans are
/// `INTEGER` with a CHECK; dates are fixed-width UTC text with microseconds; UUIDs and JSON are text;
/// decimals are exact text under a numeric collation, so they compare and sort as numbers. Transactions open with `BEGIN IMMEDIATE` so writers queue on the busy timeout.
public struct SQLiteDialect: Dialect {
    /// Where the FTS5 index tables are known from: a connection's live schema, or a fixed list.
    private enum FullTextTables: Sendable {
        case live(SQLiteFullTextCatalog)
        case fixed(Set<String>)
    }
    private let fullTextTables: FullTextTables

    /// The dialect without a database: a match scans (no FTS5 index table is known).
    public init() { fullTextTables = .fixed([]) }

    /// The dialect that renders a match through the FTS5 index tables named here (as
    /// ``SQLRenderer/fullTextIndexName(table:column:dialect:)`` names them), to show the SQL a connection to a
    /// database holding them runs.
    ///
    /// - Parameter fullTextIndexes: the names of the FTS5 index tables the database holds.
    public init(fullTextIndexes: Set<String>) { fullTextTables = .fixed(fullTextIndexes) }

    /// A connection's dialect, which reads the FTS5 index tables from its live schema.
    init(catalog: SQLiteFullTextCatalog) { fullTextTables = .live(catalog) }

    public var name: String { "sqlite" }
    /// FTS5 where libsqlite3 has it (``FullTextIndexSyntax/fts5``), nil otherwise (then every match scans).
    public var fullTextIndex: FullTextIndexSyntax? { SQLiteFullText.isAvailable ? .fts5 : nil }
    /// `<table>_<column>_fts` when the database holds that FTS5 table; nil, and the match scans, otherwise.
    public func fullTextIndexTable(table: String, column: String) -> String? {
        guard SQLiteFullText.isAvailable else { return nil }
        let name = SQLRenderer.fullTextIndexName(table: table, column: column, dialect: self)
        switch fullTextTables {
        case .live(let catalog): return catalog.contains(name) ? name : nil
        case .fixed(let names): return names.contains(name) ? name : nil
        }
    }
    /// `EXPLAIN QUERY PLAN`, each plan line read from column 3.
    public var explainSyntax: ExplainSyntax? { ExplainSyntax(prefix: "EXPLAIN QUERY PLAN", detailColumn: 3) }
    /// `json_type` and `json_extract` over the stored JSON text.
    public var jsonPathSyntax: JSONPathSyntax? { .jsonFunctions }
    /// `instr((' ' || doc || ' '), ' swift ') > 0` per term: SQLite's own byte search, exact like Strata's LIKE.
    public var searchSyntax: SearchSyntax { .position(function: "instr") }
    /// Plain `?`: values bind in order. Numbered `?NNN` makes SQLite map numbers to names, which is
    /// quadratic in the number of values (74% of a 3,640-row INSERT's time, measured).
    public func placeholder(_ index: Int) -> String { "?" }
    public var offsetWithoutLimit: OffsetWithoutLimit { .limitMinusOne }
    public var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    public var autoIncrementPrimaryKey: String { "INTEGER PRIMARY KEY" }
    public var tableSuffix: String { " STRICT" }
    public var beginTransaction: String { "BEGIN IMMEDIATE" }
    /// Every transaction begins IMMEDIATE, taking the write lock: transactions run one at a time, serializable.
    public var isolationLevels: IsolationSupport { .serializableOnly }
    /// The transaction holds the database's write lock, so every row it reads is already locked.
    public var rowLocks: RowLockSyntax { .heldByTransaction }
    /// NULL is the smallest value: Strata's NULL order holds with no `NULLS` clause.
    public var nullOrdering: NullOrdering { .lowest }
    /// SQLite returns NULL for `x / 0` and a REAL for an integer overflow: arithmetic goes through the checked
    /// functions the driver registers (``SQLiteArithmetic``).
    public var arithmeticSyntax: ArithmeticSyntax { .checkedFunctions }
    /// The statement's time as Strata's date text (`2026-11-28 23:40:05.123000`): SQLite's `'now'` has whole
    /// milliseconds and is the same for every row one statement writes.
    public func databaseDefaultSQL(_ value: DatabaseDefault) -> String {
        switch value {
        case .now: return "(strftime('%Y-%m-%d %H:%M:%f000', 'now'))"
        }
    }
    /// Decimal expressions compare through the decimal collation; an arithmetic result meets another value
    /// through `strata_compare`, which compares an integer with a double as two doubles (``SQLiteNumbers``).
    public var numericSyntax: NumericSyntax {
        NumericSyntax(decimalCollation: SQLiteDecimalCollation.name, mixedComparison: SQLiteNumbers.compareName)
    }
    /// Long IN lists bind one JSON array: `x IN (SELECT value FROM json_each(?))`.
    public var inListArray: InListArray? { .jsonEach }
    /// SQLite cannot drop constrained columns, change nullability or foreign keys with ALTER TABLE: it rebuilds.
    public var altersTablesInPlace: Bool { false }

    public func sqlType(_ type: ColumnType) -> String {
        switch type {
        case .integer, .bool: return "INTEGER"
        case .double: return "REAL"
        case .text, .date, .uuid, .json: return "TEXT"
        case .decimal: return "TEXT COLLATE \"\(SQLiteDecimalCollation.name)\""
        case .blob: return "BLOB"
        }
    }

    /// SUM over decimal text is `strata_decimal_sum`, exact (SQLite's own SUM would read doubles); a decimal
    /// SUM, MIN or MAX keeps the decimal collation, so HAVING and ORDER BY compare it as a number, not as text.
    /// Sums and averages of integers, doubles and decimals run Strata's own aggregates (``SQLiteNumbers``): exact
    /// integer totals, float8's overflow check, the exact sum over the count for an average.
    /// Each of them is also a window function, so a running aggregate is the same call with its window.
    public func aggregateCall(_ function: Aggregate.Function, over type: ColumnType?, argument: String, window: String)
        -> String
    {
        if let call = SQLiteNumbers.call(function, over: type, argument: argument, window: window) { return call }
        guard type == .decimal, function != .count, function != .avg else {
            return function.rawValue.uppercased() + "(" + argument + ")" + window
        }
        let name = function == .sum ? SQLiteDecimalSum.name : function.rawValue.uppercased()
        return name + "(" + argument + ")" + window + " COLLATE \"" + SQLiteDecimalCollation.name + "\""
    }

    public func typeCheck(_ type: ColumnType, column: String) -> String? {
        type == .bool ? column + " IN (0, 1)" : nil
    }

    /// `strata_decimal_check(sum)`: 1, or an arithmetic error for the `NaN` a sum past 38 digits returns.
    public func decimalSumGuard(_ sum: String) -> String? {
        SQLiteDecimalSum.checkName + "(" + sum + ")"
    }
}
