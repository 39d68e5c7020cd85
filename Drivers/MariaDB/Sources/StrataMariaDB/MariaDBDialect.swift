// MariaDBDialect: how MariaDB 10.11 spells Strata's statements (backticks, `?`, utf8mb4 text by code point).
import Strata

/// The MariaDB dialect (10.5 or later; pinned on 10.11).
///
/// Text columns are `LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin`: they compare and sort by code point,
/// and, unlike `utf8mb4_bin` (a PAD SPACE collation), `'a' = 'a '` is false, as on SQLite and PostgreSQL. Booleans
/// are `TINYINT(1)` with a CHECK keeping them 0 or 1, dates `DATETIME(6)` in UTC (the session's time zone is
/// `+00:00`), decimals `DECIMAL(65,30)`, UUIDs `CHAR(36)` text, JSON `LONGTEXT` checked by `JSON_VALID`. Ids are
/// `BIGINT AUTO_INCREMENT`. Each session runs in standard SQL's spelling (`ANSI_QUOTES`, `PIPES_AS_CONCAT`,
/// `NO_BACKSLASH_ESCAPES`: string literals double `'` only, and a LIKE names its escape with `ESCAPE '\'`) and with
/// `SIMULTANEOUS_ASSIGNMENT` (an UPDATE's right-hand sides read the old row). DDL is not transactional: each
/// statement commits (``transactionalDDL`` is false).
public struct MariaDBDialect: Dialect {
    public init() {}
    public var name: String { "mariadb" }
    public var identifierQuote: Character { "`" }
    /// MariaDB's identifiers are at most 64 characters; generated index names are shortened with a stable hash.
    public var maxIdentifierLength: Int? { 64 }
    /// The binary protocol counts a statement's parameters in 16 bits.
    public var maxBindParameters: Int { 65535 }
    /// Plain `?`: the binary protocol binds in order.
    public func placeholder(_ index: Int) -> String { "?" }
    public var offsetWithoutLimit: OffsetWithoutLimit { .limitMaximum }
    /// `lower(x) LIKE lower(p)`, each lowered as ``caseMappingSyntax`` writes it.
    public var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    /// MariaDB's `LOWER`/`UPPER` fold every script (`É` to `é`): one case-sensitive `REPLACE` per ASCII letter
    /// instead, so only A-Z fold, as on every other backend.
    public var caseMappingSyntax: CaseMappingSyntax { .asciiReplace }
    public var autoIncrementPrimaryKey: String { "BIGINT AUTO_INCREMENT PRIMARY KEY" }
    /// InnoDB, so that foreign keys and transactions hold; utf8mb4 text by code point, without padding.
    public var tableSuffix: String { " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin" }
    public var beginTransaction: String { "START TRANSACTION" }
    /// Each level as asked, set before `START TRANSACTION`; a plain transaction runs at REPEATABLE READ.
    public var isolationLevels: IsolationSupport { .perTransaction }
    public var isolationBegin: IsolationBeginSyntax { .setTransactionThenStart }
    public var rowLocks: RowLockSyntax { .forClause }
    public var rowLockClause: RowLockClauseSyntax { .lockInShareMode }
    /// NULL is the smallest value: Strata's NULL order holds with no `NULLS` clause (MariaDB has none).
    public var nullOrdering: NullOrdering { .lowest }
    /// MariaDB 10.5+ returns from INSERT and DELETE; UPDATE has no RETURNING.
    public var returning: ReturningClauses { [.insert, .delete] }
    /// `ON DUPLICATE KEY UPDATE`: no conflict target is written.
    public var upsertSyntax: UpsertSyntax { .onDuplicateKeyUpdate }
    /// `+ - *` raise BIGINT and DOUBLE overflow themselves (error 1690), but division by zero is NULL in a SELECT and
    /// `/` of two integers is exact: the divisor of `n / d` and `n % d` is guarded, `CASE WHEN EXP(7777 * (d = 0 AND
    /// n IS NOT NULL)) THEN d END`, so that zero overflows `EXP` (error 1690 naming it, mapped to a division by
    /// zero) where there is a value to divide, and an integer division is `DIV`, truncating toward zero
    /// (`Int64.min DIV -1` is error 1690 too). A product or a non-integer quotient that underflows to 0 is made an
    /// error the same way (`EXP(7779 * (v = 0 AND a <> 0 …))`), as on the other drivers.
    public var arithmeticSyntax: ArithmeticSyntax { .guardedDivision }
    /// `CONCAT(a, b)`: the session sets `PIPES_AS_CONCAT` (for raw SQL), but a server's default mode reads `||` as OR.
    public var concatSyntax: ConcatSyntax { .function }
    /// Each DDL statement commits the open transaction; a rollback does not undo it.
    public var transactionalDDL: Bool { false }
    public var emptyInsertSyntax: EmptyInsertSyntax { .emptyLists }
    public var dropIndexSyntax: DropIndexSyntax { .onTable }
    public var columnChangeSyntax: ColumnChangeSyntax { .modifyColumn }
    /// "NOT NULL" is refused on a generated column: `"c" BIGINT GENERATED ALWAYS AS (…) STORED`.
    public var generatedColumnSyntax: GeneratedColumnSyntax { .stored }
    /// "This version of MariaDB doesn't yet support 'LIMIT & IN/ALL/ANY/SOME subquery'".
    public var limitedInSubquery: LimitedInSubquerySyntax { .derivedTable }
    public var dropForeignKeySyntax: DropForeignKeySyntax { .dropForeignKey }
    /// No FULL JOIN: a query with one is refused with ``StrataError/unsupported(feature:driver:)``.
    public var joinKinds: JoinKinds { [.inner, .left, .right] }
    /// `EXPLAIN FORMAT=JSON`: the plan is one JSON text, in column 0.
    public var explainSyntax: ExplainSyntax? { ExplainSyntax(prefix: "EXPLAIN FORMAT=JSON", detailColumn: 0) }
    /// A long `IN` list is one JSON array read through `JSON_TABLE`, so 100,000 ids bind one value (past the binary
    /// protocol's 65,535).
    public var inListArray: InListArray? { .jsonTable }

    /// The `JSON_TABLE` column type of a long `IN` list's values: the column's own type (text by code point).
    public func arrayElementType(_ type: ColumnType) -> String? {
        switch type {
        case .json, .blob: return nil
        default: return sqlType(type)
        }
    }

    /// LAG and LEAD take no default argument in 10.11 (error 1064): a one-row frame tells whether the offset row
    /// exists.
    public var windowDefault: WindowDefaultSyntax { .frameCase }
    /// RANK and DENSE_RANK need an order (error 4018): `ORDER BY NULL` makes every row a peer, ranked 1.
    public var unorderedRank: UnorderedRankSyntax { .orderByNull }
    /// MariaDB 10.11 computes the windows of a SELECT wrongly beside one with neither a partition nor an order once
    /// two of them sort differently (`SUM(q) OVER (PARTITION BY r)` beside `SUM(q) OVER (ORDER BY id)` and
    /// `COUNT(*) OVER ()` summed each region so far): the unkeyed window then takes the first keyed window's key,
    /// which leaves its value as it was and every combination right.
    public var unkeyedWindow: UnkeyedWindowSyntax { .borrowedKey }
    /// A double sum's check (`SUM(x) + 0e0`, error 1690 past the largest double) runs where the sum is read, and
    /// MariaDB reads a selected sum only for the groups HAVING keeps: the HAVING reads each one first.
    public var checksSumsInHaving: Bool { true }
    /// A DOUBLE column refuses ±infinity (error 1264, ``StrataError/typeMismatch(table:column:detail:)`` naming the
    /// column), and arithmetic that would make one is error 1690.
    public var storesNonFiniteDoubles: Bool { false }
    /// `JSON_TYPE(JSON_EXTRACT(…))` and casts over the LONGTEXT document; text read under the tables' collation.
    public var jsonPathSyntax: JSONPathSyntax? { .jsonExtractFunctions(collation: "utf8mb4_nopad_bin") }

    /// SUM of integers is an exact DECIMAL in MariaDB: `DIV 1` makes it a BIGINT, so a total past Int64 is error
    /// 1690 (an arithmetic error, as elsewhere) where it is read. SUM of doubles overflows to a value MariaDB shows as
    /// 0: `+ 0e0` makes that error 1690 too. AVG is the sum as a DOUBLE over the count (MariaDB's own AVG of integers
    /// is a DECIMAL with four fraction digits).
    public func aggregateCall(_ function: Aggregate.Function, over type: ColumnType?, argument: String, window: String)
        -> String
    {
        let sum = "SUM(" + argument + ")" + window
        let count = "COUNT(" + argument + ")" + window
        switch (function, type) {
        case (.sum, .integer?): return "(" + sum + " DIV 1)"
        case (.sum, .double?): return "(" + sum + " + 0e0)"
        case (.avg, .double?): return "(" + sum + " + 0e0) / " + count
        case (.avg, _): return "CAST(" + sum + " AS DOUBLE) / " + count
        default: return function.rawValue.uppercased() + "(" + argument + ")" + window
        }
    }

    /// `EXP(8888 * (digits > 38)) > 0`: true, or error 1690 (an arithmetic error, see
    /// ``MariaDBErrors/outOfRangeReason(_:)``) when the sum's significant digits (its text without sign, point and
    /// the zeros around them) pass 38, as PostgreSQL's guard; a NULL sum passes.
    public func decimalSumGuard(_ sum: String) -> String? {
        "EXP(8888 * (COALESCE(CHAR_LENGTH(TRIM(BOTH '0' FROM REPLACE(REPLACE(CAST(" + sum
            + " AS CHAR), '-', ''), '.', ''))), 0) > 38)) > 0"
    }

    /// TINYINT(1) holds -128…127: booleans are kept to 0 and 1.
    public func typeCheck(_ type: ColumnType, column: String) -> String? {
        switch type {
        case .bool: return column + " IN (0, 1)"
        case .json: return "JSON_VALID(" + column + ")"
        default: return nil
        }
    }

    /// The most characters a text key holds: `LONGTEXT` cannot be a key (error 1170), so a `String` primary key
    /// and the foreign key columns referencing it are `VARCHAR(255)` (1,020 bytes of utf8mb4, within InnoDB's
    /// 3,072-byte index key); a longer value is refused with ``StrataError/typeMismatch(table:column:detail:)``.
    public static let maxKeyTextLength = 255

    /// A text key is `VARCHAR(255)` by code point; other types keep their ordinary declaration.
    public func keySQLType(_ type: ColumnType) -> String {
        guard type == .text else { return sqlType(type) }
        return "VARCHAR(\(Self.maxKeyTextLength)) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"
    }

    /// `CURRENT_TIMESTAMP(6)`: the statement's time with microseconds, in the session's time zone, which the driver
    /// sets to UTC on every connection (another client's session must do the same for its rows).
    public func databaseDefaultSQL(_ value: DatabaseDefault) -> String {
        switch value {
        case .now: return "CURRENT_TIMESTAMP(6)"
        }
    }

    public func sqlType(_ type: ColumnType) -> String {
        switch type {
        case .integer: return "BIGINT"
        case .double: return "DOUBLE"
        case .text, .json: return "LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"
        case .blob: return "LONGBLOB"
        case .bool: return "TINYINT(1)"
        case .date: return "DATETIME(6)"
        case .decimal: return "DECIMAL(65,30)"
        case .uuid: return "CHAR(36) CHARACTER SET ascii COLLATE ascii_bin"
        }
    }
}
