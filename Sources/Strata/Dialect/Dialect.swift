// Dialect: what one SQL backend spells differently, as typed capabilities with documented defaults.

/// The SQL spelling of one backend. The shared ``SQLRenderer`` asks it; nothing branches on a name.
public protocol Dialect: Sendable {
    /// The backend's name, for messages only.
    var name: String { get }

    /// The character that opens and closes a quoted identifier, doubled inside one. Default `"`.
    var identifierQuote: Character { get }

    /// The longest identifier in UTF-8 bytes, or nil for no limit. Longer generated names (indexes)
    /// are shortened deterministically; longer model names are an error. Default nil.
    var maxIdentifierLength: Int? { get }

    /// The most values one statement may bind. Default 32766 (SQLite's compiled default).
    var maxBindParameters: Int { get }

    /// The placeholder for the `index`-th bound value, counting from 1 (`?`, `$1`).
    func placeholder(_ index: Int) -> String

    /// How OFFSET without LIMIT is written (``OffsetWithoutLimit``; no default: SQLite's `LIMIT -1 OFFSET n` is an
    /// error on PostgreSQL, and PostgreSQL's `OFFSET n` alone is one on SQLite).
    var offsetWithoutLimit: OffsetWithoutLimit { get }

    /// How a case-insensitive LIKE is written.
    var caseInsensitiveLike: CaseInsensitiveLike { get }

    /// The SQL type of a column. Text must compare and sort by code point, so a backend whose
    /// default collation is not binary names one here (PostgreSQL: `TEXT COLLATE "C"`).
    func sqlType(_ type: ColumnType) -> String

    /// The SQL type of a key column of `type` other than an integer: a UUID or text primary key, and a foreign key
    /// column that references one. Default ``sqlType(_:)``; a backend that cannot make unbounded text a key
    /// (MariaDB's `LONGTEXT`, error 1170) names a bounded type here, and documents the bound.
    func keySQLType(_ type: ColumnType) -> String

    /// A CHECK expression that keeps a column's values in the type's domain (SQLite booleans).
    /// `column` is already quoted. Default nil.
    func typeCheck(_ type: ColumnType, column: String) -> String?

    /// The column definition of an auto-assigned integer primary key, after its quoted name.
    var autoIncrementPrimaryKey: String { get }

    /// Text after `CREATE TABLE name (…)`, e.g. ` STRICT`. Default empty.
    var tableSuffix: String { get }

    /// The statement that opens a transaction. Default `BEGIN`.
    var beginTransaction: String { get }

    /// How a Bool literal in a query is written. Default `TRUE` / `FALSE`.
    func literal(_ value: Bool) -> String

    /// The statements that make commits to `table` notify other processes (see
    /// ``Model/notifiesOtherProcesses``), run by automatic migration; idempotent. Default none.
    func changeNotificationSQL(table: String) throws(StrataError) -> [String]
    /// An aggregate call over `argument` (a quoted column, maybe after `DISTINCT `), a column of `type`, written
    /// with `window` (empty for a plain aggregate, ` OVER (…)` for a running one) after each aggregate function it
    /// calls. Default the standard call (`SUM("amount")`); a backend that cannot sum a type exactly, or whose
    /// result would lose the column's comparison rules (SQLite's decimal text), writes its own.
    func aggregateCall(_ function: Aggregate.Function, over type: ColumnType?, argument: String, window: String)
        -> String
    /// How arithmetic is spelled so that division by zero and overflow raise Strata's one error (default
    /// ``ArithmeticSyntax/operators``).
    var arithmeticSyntax: ArithmeticSyntax { get }
    /// The SQL expression of a ``DatabaseDefault`` in a column's `DEFAULT` clause and in an INSERT's
    /// `COALESCE(?, …)`, giving a value in the column type's stored form. Default `CURRENT_TIMESTAMP` for ``DatabaseDefault/now``.
    func databaseDefaultSQL(_ value: DatabaseDefault) -> String

    /// How `lower`/`upper` are spelled so that they fold ASCII letters only (default ``CaseMappingSyntax/plain``).
    var caseMappingSyntax: CaseMappingSyntax { get }
    /// What the dialect adds so that numbers at their edges follow Strata's numeric rules (default: nothing).
    var numericSyntax: NumericSyntax { get }
    /// How a long `IN` list binds its values as one array, or nil to bind one parameter per value. Default nil.
    var inListArray: InListArray? { get }

    /// The SQL type of an array element for ``InListArray/anyArray`` (`BIGINT`, `TEXT`), or nil when values of
    /// that type keep one parameter each. Default nil.
    func arrayElementType(_ type: ColumnType) -> String?
    /// The collation that orders text by code point, named in ORDER BY and in `<`, `<=`, `>`, `>=` and
    /// BETWEEN against text, for tables Strata did not create whose columns carry another collation
    /// (PostgreSQL: `C`). Default nil: text already compares by code point (SQLite's BINARY).
    var binaryTextCollation: String? { get }
    /// Whether `ALTER TABLE` can drop columns, change nullability and add or drop foreign keys in place; when
    /// false (SQLite) those changes rebuild the table. Default true.
    var altersTablesInPlace: Bool { get }
    /// Which isolation levels a transaction can begin at (see ``IsolationLevel``). Default ``IsolationSupport/none``.
    var isolationLevels: IsolationSupport { get }
    /// How a query's ``RowLock`` is provided. Default ``RowLockSyntax/none``.
    var rowLocks: RowLockSyntax { get }
    /// Where the backend sorts NULL when ORDER BY names no `NULLS` clause, which decides when the renderer writes
    /// one and how indexes are created. Default ``NullOrdering/highest`` (a clause wherever a term can be NULL).
    var nullOrdering: NullOrdering { get }
    /// How a `NULLS FIRST`/`NULLS LAST` order is written where ``nullOrdering`` asks for one. Default
    /// ``NullsClauseSyntax/keywords``.
    var nullsClause: NullsClauseSyntax { get }
    /// Which statements may end in `RETURNING`; an INSERT that asks for its key back on a dialect without
    /// ``ReturningClauses/insert`` fails to render with ``StrataError/unsupported(feature:driver:)``, so its
    /// driver reads the key another way. Default ``ReturningClauses/all``.
    var returning: ReturningClauses { get }
    /// How an upsert is written. Default ``UpsertSyntax/onConflict``.
    var upsertSyntax: UpsertSyntax { get }
    /// How a LIKE names `\` as its escape character. Default ``LikeEscapeSyntax/escapeClause``.
    var likeEscape: LikeEscapeSyntax { get }
    /// Whether a backslash escapes the next character in a string literal (MySQL's default); literals in DDL
    /// (column defaults) then double it. Default false (standard SQL: only `'` is doubled).
    var backslashEscapesInStrings: Bool { get }
    /// How two texts are concatenated. Default ``ConcatSyntax/pipes`` (`||`).
    var concatSyntax: ConcatSyntax { get }
    /// Whether DDL runs inside a transaction and is undone by its rollback (SQLite, PostgreSQL); when false
    /// (MySQL, MariaDB: each DDL statement commits) a migration cannot be undone by a rollback. Default true.
    var transactionalDDL: Bool { get }
    /// Where the backend commits around a DDL statement inside a transaction. Default ``DDLCommit/none`` where
    /// ``transactionalDDL`` is true, else ``DDLCommit/beforeAndAfter``.
    var ddlCommit: DDLCommit { get }
    /// How a transaction begins at an isolation level where ``isolationLevels`` is
    /// ``IsolationSupport/perTransaction``: `BEGIN ISOLATION LEVEL …`, or `SET TRANSACTION ISOLATION LEVEL …`
    /// then `START TRANSACTION`. Default ``IsolationBeginSyntax/beginIsolationLevel``.
    var isolationBegin: IsolationBeginSyntax { get }
    /// How an INSERT with no columns is written: `DEFAULT VALUES` or `() VALUES ()`. Default
    /// ``EmptyInsertSyntax/defaultValues``.
    var emptyInsertSyntax: EmptyInsertSyntax { get }
    /// Which `CREATE` statements say `IF NOT EXISTS`; one that cannot is written without it, and its driver treats
    /// the backend's "already exists" error as done (automatic migration creates what may exist). Default
    /// ``ExistenceClauses/all``.
    var existenceClauses: ExistenceClauses { get }
    /// How an index is dropped: `DROP INDEX "i"` or `DROP INDEX "i" ON "t"`. Default ``DropIndexSyntax/standalone``.
    var dropIndexSyntax: DropIndexSyntax { get }
    /// How `ALTER TABLE` changes a column's nullability (and, in a printed plan, its type) where
    /// ``altersTablesInPlace`` is true: `ALTER COLUMN … SET NOT NULL` or `MODIFY COLUMN … <type> NOT NULL`. Default
    /// ``ColumnChangeSyntax/alterColumn``.
    var columnChangeSyntax: ColumnChangeSyntax { get }
    /// How a stored generated column is declared: with NOT NULL when non-optional, or never NOT NULL. Default
    /// ``GeneratedColumnSyntax/storedNotNull``.
    var generatedColumnSyntax: GeneratedColumnSyntax { get }
    /// How an `IN (SELECT …)` with a LIMIT or OFFSET is written: inline, or as a derived table. Default
    /// ``LimitedInSubquerySyntax/inline``.
    var limitedInSubquery: LimitedInSubquerySyntax { get }
    /// How a row lock is spelled where ``rowLocks`` is ``RowLockSyntax/forClause``: `FOR SHARE` with `OF "t"`, or
    /// `LOCK IN SHARE MODE` without `OF`. Default ``RowLockClauseSyntax/forShareOf``.
    var rowLockClause: RowLockClauseSyntax { get }
    /// How `ALTER TABLE` drops a foreign key Strata named: `DROP CONSTRAINT` or `DROP FOREIGN KEY`. Default
    /// ``DropForeignKeySyntax/dropConstraint``.
    var dropForeignKeySyntax: DropForeignKeySyntax { get }
    /// Which joins the backend can write; a SELECT with another fails to render with
    /// ``StrataError/unsupported(feature:driver:)``. Default ``JoinKinds/all``.
    var joinKinds: JoinKinds { get }
    /// How the backend shows a query's plan (`explain()`), or nil when it cannot. Default nil.
    var explainSyntax: ExplainSyntax? { get }
    /// How `LAG`/`LEAD` with a default is written. Default ``WindowDefaultSyntax/argument``.
    var windowDefault: WindowDefaultSyntax { get }
    /// How `RANK()`/`DENSE_RANK()` over a window with no order is written. Default ``UnorderedRankSyntax/plain``.
    var unorderedRank: UnorderedRankSyntax { get }
    /// How a window with neither partition nor order is written beside windows that have one. Default
    /// ``UnkeyedWindowSyntax/plain``.
    var unkeyedWindow: UnkeyedWindowSyntax { get }
    /// Whether a grouped SELECT's double `sum` and `avg` (``aggregateCall(_:over:argument:window:)``'s
    /// checked spelling) are also read in its HAVING, before the condition, so that an overflow is an error in a
    /// group HAVING drops too, as on a backend that checks each addition (PostgreSQL): for a backend whose check
    /// runs only where the value is read (MariaDB's `SUM(x) + 0e0`). Default false.
    var checksSumsInHaving: Bool { get }
    /// A condition over a decimal `SUM` as ``aggregateCall(_:over:argument:window:)`` spells it (`sum`), read in
    /// HAVING before the condition: true when the sum has at most 38 significant digits (``DecimalDigits/limit``;
    /// NULL included), an error the driver reports as ``StrataError/arithmeticError(expression:reason:)``
    /// otherwise, so that a HAVING over a wider sum fails as selecting it does (issue 25). Default nil: no guard.
    func decimalSumGuard(_ sum: String) -> String?
    /// Whether a DOUBLE column stores ±infinity (NaN is stored as NULL on every backend). Where it is false, the
    /// driver refuses such a value with ``StrataError/typeMismatch(table:column:detail:)`` naming the column, and a
    /// computed infinity is an overflow error. Default true; false on MariaDB.
    var storesNonFiniteDoubles: Bool { get }

    /// How the backend reads a value at a JSON path (``JSONPath``), or nil when it cannot: a query with one fails
    /// to render with ``StrataError/unsupported(feature:driver:)``. Default nil.
    var jsonPathSyntax: JSONPathSyntax? { get }
    /// How the backend matches a full-text query against a search document. Default ``SearchSyntax/likeTokens``.
    var searchSyntax: SearchSyntax { get }
    /// The full-text index automatic migration creates for a search document, or nil when the backend has none
    /// (then only PostgreSQL's ``SearchSyntax/tsquery`` GIN index, if any, is made). Default nil.
    var fullTextIndex: FullTextIndexSyntax? { get }
    /// The name of the ``fullTextIndex`` table that indexes `column` of `table` on the database this dialect
    /// renders for, or nil when there is none (the match then scans with ``searchSyntax`` alone). A connection's
    /// dialect answers from the live schema; a dialect value made without one answers nil. Default nil.
    ///
    /// - Parameters:
    ///   - table: the table whose rows a statement reads.
    ///   - column: its search document column.
    /// - Returns: the index table's name, or nil.
    func fullTextIndexTable(table: String, column: String) -> String?
}

/// Where a backend sorts NULL when ORDER BY names no `NULLS FIRST`/`NULLS LAST`. Strata's rule is NULLs first
/// ascending and last descending on every backend; the renderer writes a clause only where the backend would
/// not do that by itself, so a plain index can serve the order.
public enum NullOrdering: Sendable, Hashable {
    /// NULL sorts below every value (SQLite, MySQL, MariaDB): the rule holds with no clause, and none is written.
    case lowest
    /// NULL sorts above every value (PostgreSQL): a term that can be NULL gets `ASC NULLS FIRST` /
    /// `DESC NULLS LAST`; a column the model declares non-optional gets none (unless an outer join can bring
    /// NULLs to it), so `ORDER BY "views" DESC LIMIT 20` walks a plain index backwards. Indexes on nullable columns
    /// are created `NULLS FIRST`, the order those terms ask for.
    case highest
}

/// How to express OFFSET when there is no LIMIT.
public enum OffsetWithoutLimit: Sendable, Hashable {
    /// `LIMIT -1 OFFSET n` (SQLite: OFFSET alone is a syntax error).
    case limitMinusOne
    /// `OFFSET n` (PostgreSQL).
    case offsetAlone
    /// `LIMIT 18446744073709551615 OFFSET n`, the largest unsigned 64-bit number as the limit (MySQL, MariaDB:
    /// OFFSET alone is a syntax error and a negative LIMIT is refused).
    case limitMaximum
}

/// How a case-insensitive LIKE is written; either way only ASCII letters fold.
public enum CaseInsensitiveLike: Sendable, Hashable {
    /// `lower(x) LIKE lower(p)`.
    case lowerBoth
    /// `x ILIKE p`.
    case ilike
}

extension Dialect {
    /// `CURRENT_TIMESTAMP` for ``DatabaseDefault/now``.
    ///
    /// - Parameter value: the default.
    /// - Returns: its SQL.
    public func databaseDefaultSQL(_ value: DatabaseDefault) -> String {
        switch value {
        case .now: return "CURRENT_TIMESTAMP"
        }
    }
    /// No collation named: text already compares by code point (SQLite's BINARY).
    public var binaryTextCollation: String? { nil }
    /// The standard SQL double quote, `"`.
    public var identifierQuote: Character { "\"" }
    /// No limit on identifier length.
    public var maxIdentifierLength: Int? { nil }
    /// 32766 values per statement, SQLite's compiled default.
    public var maxBindParameters: Int { 32766 }
    /// The column's ordinary type: a key column is declared like any other column of its type.
    ///
    /// - Parameter type: the key column's type.
    /// - Returns: ``sqlType(_:)``.
    public func keySQLType(_ type: ColumnType) -> String { sqlType(type) }
    /// No CHECK: the column's SQL type keeps values in their domain.
    ///
    /// - Parameters:
    ///   - type: the column's type.
    ///   - column: the quoted column name.
    /// - Returns: nil.
    public func typeCheck(_ type: ColumnType, column: String) -> String? { nil }
    /// Nothing after `CREATE TABLE name (…)`.
    public var tableSuffix: String { "" }
    /// `BEGIN`.
    public var beginTransaction: String { "BEGIN" }
    /// `TRUE` or `FALSE`.
    ///
    /// - Parameter value: the boolean to write.
    /// - Returns: its SQL literal.
    public func literal(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
    /// No statements: the backend cannot tell other processes about commits.
    ///
    /// - Parameter table: the model's table.
    /// - Returns: an empty list.
    public func changeNotificationSQL(table: String) throws(StrataError) -> [String] { [] }
    /// The standard call, the function's name in capitals around the argument: `SUM("amount")`, then the window.
    ///
    /// - Parameters:
    ///   - function: the aggregate function.
    ///   - type: the argument column's type (unused here).
    ///   - argument: the quoted column, maybe after `DISTINCT `.
    ///   - window: empty, or ` OVER (…)` for a running aggregate.
    /// - Returns: the call's SQL.
    public func aggregateCall(_ function: Aggregate.Function, over type: ColumnType?, argument: String, window: String)
        -> String
    {
        function.rawValue.uppercased() + "(" + argument + ")" + window
    }

    /// The plain (not windowed) aggregate call: ``aggregateCall(_:over:argument:window:)`` with no window.
    ///
    /// - Parameters:
    ///   - function: the aggregate function.
    ///   - type: the argument column's type.
    ///   - argument: the quoted column, maybe after `DISTINCT `.
    /// - Returns: the call's SQL.
    public func aggregateCall(_ function: Aggregate.Function, over type: ColumnType?, argument: String) -> String {
        aggregateCall(function, over: type, argument: argument, window: "")
    }
    /// No array binding: each value of an `IN` list is its own parameter.
    public var inListArray: InListArray? { nil }
    /// No array element type: values keep one parameter each.
    ///
    /// - Parameter type: the list's column type.
    /// - Returns: nil.
    public func arrayElementType(_ type: ColumnType) -> String? { nil }
    /// `ALTER TABLE` changes tables in place.
    public var altersTablesInPlace: Bool { true }
    /// `NOT NULL GENERATED ALWAYS AS (…) STORED` for a non-optional column.
    public var generatedColumnSyntax: GeneratedColumnSyntax { .storedNotNull }
    public var isolationLevels: IsolationSupport { .none }
    public var rowLocks: RowLockSyntax { .none }
    /// NULL sorts above every value, so a term that can be NULL gets an explicit `NULLS` clause.
    public var nullOrdering: NullOrdering { .highest }
    /// `NULLS FIRST` / `NULLS LAST` keywords.
    public var nullsClause: NullsClauseSyntax { .keywords }
    /// INSERT, UPDATE and DELETE may all end in `RETURNING`.
    public var returning: ReturningClauses { .all }
    /// `ON CONFLICT (target) DO …`.
    public var upsertSyntax: UpsertSyntax { .onConflict }
    /// An explicit `ESCAPE '\'`.
    public var likeEscape: LikeEscapeSyntax { .escapeClause }
    /// Backslash is an ordinary character in string literals.
    public var backslashEscapesInStrings: Bool { false }
    /// DDL is transactional.
    public var transactionalDDL: Bool { true }
    /// No commit around DDL where it is transactional; a commit before and after each statement where it is not
    /// (as MySQL and MariaDB do).
    public var ddlCommit: DDLCommit { transactionalDDL ? .none : .beforeAndAfter }
    /// `(a || b)`.
    public var concatSyntax: ConcatSyntax { .pipes }
    /// `BEGIN ISOLATION LEVEL …`, one statement.
    public var isolationBegin: IsolationBeginSyntax { .beginIsolationLevel }
    /// `INSERT INTO "t" DEFAULT VALUES`.
    public var emptyInsertSyntax: EmptyInsertSyntax { .defaultValues }
    /// `IF NOT EXISTS` on `CREATE TABLE` and `CREATE INDEX`.
    public var existenceClauses: ExistenceClauses { .all }
    /// `DROP INDEX "name"`.
    public var dropIndexSyntax: DropIndexSyntax { .standalone }
    /// `ALTER COLUMN "c" SET NOT NULL` / `DROP NOT NULL`.
    public var columnChangeSyntax: ColumnChangeSyntax { .alterColumn }
    /// `x IN (SELECT … LIMIT ?)`, inline.
    public var limitedInSubquery: LimitedInSubquerySyntax { .inline }
    /// `FOR UPDATE` / `FOR SHARE`, with `OF "t"` when the query joins.
    public var rowLockClause: RowLockClauseSyntax { .forShareOf }
    /// `ALTER TABLE "t" DROP CONSTRAINT "name"`.
    public var dropForeignKeySyntax: DropForeignKeySyntax { .dropConstraint }
    /// INNER, LEFT, RIGHT and FULL joins.
    public var joinKinds: JoinKinds { .all }
    /// Nil: `explain()` throws ``StrataError/unsupported(feature:driver:)``.
    public var explainSyntax: ExplainSyntax? { nil }
    /// `LAG("c", 1, ?)`: the default is the third argument.
    public var windowDefault: WindowDefaultSyntax { .argument }
    /// `RANK() OVER (PARTITION BY …)`: the backend ranks every row of an unordered window 1.
    public var unorderedRank: UnorderedRankSyntax { .plain }
    /// An unkeyed window is written as it is.
    public var unkeyedWindow: UnkeyedWindowSyntax { .plain }
    /// The backend checks a double sum as it adds, in every group: HAVING reads only its condition.
    public var checksSumsInHaving: Bool { false }
    /// No guard: the backend's decimal sum is not read past 38 digits in HAVING.
    public func decimalSumGuard(_ sum: String) -> String? { nil }
    /// DOUBLE columns store ±infinity.
    public var storesNonFiniteDoubles: Bool { true }

    /// No JSON path reading.
    public var jsonPathSyntax: JSONPathSyntax? { nil }
    /// Each term a LIKE over the padded document.
    public var searchSyntax: SearchSyntax { .likeTokens }
    /// No full-text index table.
    public var fullTextIndex: FullTextIndexSyntax? { nil }
    /// No full-text index table: every match scans.
    public func fullTextIndexTable(table: String, column: String) -> String? { nil }

    /// Quotes an identifier, doubling the quote character at the Unicode-scalar level.
    ///
    /// - Throws: ``StrataError/invalidIdentifier(_:reason:)`` for an empty name, a NUL, or a name
    ///   longer than ``maxIdentifierLength``.
    public func quote(_ identifier: String) throws(StrataError) -> String {
        guard !identifier.isEmpty else { throw .invalidIdentifier(identifier, reason: "empty") }
        if let max = maxIdentifierLength, identifier.utf8.count > max {
            throw .invalidIdentifier(identifier, reason: "longer than \(max) bytes")
        }
        let q = identifierQuote.unicodeScalars.first ?? "\""
        if q.isASCII, let quoted = Self.quotedASCII(identifier, UInt8(q.value)) { return quoted }
        var out = String.UnicodeScalarView()
        out.append(q)
        for scalar in identifier.unicodeScalars {
            if scalar == "\0" { throw .invalidIdentifier(identifier, reason: "contains NUL") }
            if scalar == q { out.append(q) }
            out.append(scalar)
        }
        out.append(q)
        return String(out)
    }

    /// The usual name, with nothing to double or refuse, copied between the quotes in one pass of its UTF-8 (the
    /// renderer quotes every column of every statement); nil when a byte needs the general path.
    private static func quotedASCII(_ identifier: String, _ quote: UInt8) -> String? {
        var identifier = identifier
        return identifier.withUTF8 { src -> String? in
            for byte in src where byte == 0 || byte == quote { return nil }
            return String(unsafeUninitializedCapacity: src.count + 2) { dst in
                dst[0] = quote
                for (k, byte) in src.enumerated() { dst[k + 1] = byte }
                dst[src.count + 1] = quote
                return src.count + 2
            }
        }
    }

    /// A generated name (index) kept within ``maxIdentifierLength``: too-long names keep a prefix
    /// and end in a stable hash of the whole name, so two long names never collide by truncation.
    public func shortened(_ name: String) -> String {
        guard let max = maxIdentifierLength, name.utf8.count > max else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, stable across runs and platforms
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash >> 24, radix: 16)  // 40 bits, zero-padded to 10 digits
        let suffix = "_" + String(repeating: "0", count: Swift.max(0, 10 - hex.count)) + hex
        var prefix = ""
        for scalar in name.unicodeScalars {
            if prefix.utf8.count + String(scalar).utf8.count + suffix.utf8.count > max { break }
            prefix.unicodeScalars.append(scalar)
        }
        return prefix + suffix
    }
}
