// StatementSyntax: the typed capabilities a dialect declares for statement clauses backends spell differently.

/// Which statements may end in `RETURNING` (see ``Dialect/returning``).
///
/// SQLite 3.35+ and PostgreSQL return from all three; MariaDB 10.5+ from INSERT and DELETE; MySQL from none.
public struct ReturningClauses: OptionSet, Sendable, Hashable {
    /// The set's bits.
    public let rawValue: Int
    /// Makes a set from its raw bits.
    ///
    /// - Parameter rawValue: the bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `INSERT … RETURNING`.
    public static let insert = ReturningClauses(rawValue: 1)
    /// `UPDATE … RETURNING`.
    public static let update = ReturningClauses(rawValue: 2)
    /// `DELETE … RETURNING`.
    public static let delete = ReturningClauses(rawValue: 4)
    /// All three.
    public static let all: ReturningClauses = [.insert, .update, .delete]
}

/// How an upsert (``OnConflict``) is written (see ``Dialect/upsertSyntax``).
public enum UpsertSyntax: Sendable, Hashable {
    /// `ON CONFLICT ("k") DO NOTHING` / `DO UPDATE SET "c" = excluded."c"` (SQLite 3.24+, PostgreSQL 9.5+): the
    /// conflict target is written, and only a row matching on it conflicts.
    case onConflict
    /// `ON DUPLICATE KEY UPDATE "c" = VALUES("c")` (MySQL, MariaDB), with `DO NOTHING` written as an update that
    /// sets the target's first column to itself. The target is not written: a conflict on any unique index
    /// updates the stored row, so a driver that declares it keeps upserts to tables where only the target's index
    /// can conflict, or refuses the others.
    case onDuplicateKeyUpdate
    /// No upsert: an INSERT with ``OnConflict`` fails with ``StrataError/unsupported(feature:driver:)``.
    case none
}

/// How the renderer writes a `NULLS FIRST`/`NULLS LAST` order where ``Dialect/nullOrdering`` asks for one (see
/// ``Dialect/nullsClause``).
public enum NullsClauseSyntax: Sendable, Hashable {
    /// `ORDER BY x ASC NULLS FIRST` (SQLite 3.30+, PostgreSQL); indexes are created `NULLS FIRST` too.
    case keywords
    /// No keywords: a sort key before the term puts NULLs where the rule wants them,
    /// `ORDER BY CASE WHEN x IS NULL THEN 0 ELSE 1 END, x ASC` (NULLs first) or `THEN 1 ELSE 0 END, x DESC`
    /// (NULLs last). The term is written twice (its values bound twice); indexes get no clause.
    case sortKey
}

/// How a LIKE says that `\` escapes `%`, `_` and itself in its pattern (see ``Dialect/likeEscape``): Strata's
/// patterns always escape with a backslash.
public enum LikeEscapeSyntax: Sendable, Hashable {
    /// `x LIKE ? ESCAPE '\'` (SQLite has no default escape character; PostgreSQL's default is `\` already).
    case escapeClause
    /// `x LIKE ?` alone: the backend escapes with `\` by default and its string literals would read `'\'` as an
    /// escaped quote (MySQL, MariaDB without `NO_BACKSLASH_ESCAPES`).
    case backslashByDefault
}

/// How two texts are concatenated (see ``Dialect/concatSyntax``); either way a NULL operand makes NULL.
public enum ConcatSyntax: Sendable, Hashable {
    /// `(a || b)`, standard SQL (SQLite, PostgreSQL).
    case pipes
    /// `CONCAT(a, b)` (MySQL, MariaDB, where `||` is a logical OR unless `PIPES_AS_CONCAT` is set).
    case function
}

/// How an INSERT of one row with no columns (every column takes its default) is written (see
/// ``Dialect/emptyInsertSyntax``).
public enum EmptyInsertSyntax: Sendable, Hashable {
    /// `INSERT INTO "t" DEFAULT VALUES`, standard SQL (SQLite, PostgreSQL).
    case defaultValues
    /// `INSERT INTO "t" () VALUES ()` (MySQL, MariaDB, which have no `DEFAULT VALUES`).
    case emptyLists
}

/// Where a backend commits around a DDL statement inside a transaction (see ``Dialect/ddlCommit``): what a migration's
/// record (`strata_migrations`) must be written beside so that it commits exactly when the change does.
public enum DDLCommit: Sendable, Hashable {
    /// DDL runs inside the transaction and is undone by its rollback (SQLite, PostgreSQL).
    case none
    /// Each DDL statement commits the transaction before it runs and again after (MySQL, MariaDB): what ran
    /// before it commits even when it fails.
    case beforeAndAfter
    /// Each DDL statement commits the transaction it ran in, with what ran before it, and a new one begins
    /// (CockroachDB through Strata): what ran before it commits only when it succeeds.
    case after
}

/// Which joins a backend can write (see ``Dialect/joinKinds``).
public struct JoinKinds: OptionSet, Sendable, Hashable {
    /// The set's bits.
    public let rawValue: Int
    /// Makes a set from its raw bits.
    ///
    /// - Parameter rawValue: the bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `INNER JOIN`.
    public static let inner = JoinKinds(rawValue: 1)
    /// `LEFT JOIN`.
    public static let left = JoinKinds(rawValue: 2)
    /// `RIGHT JOIN`.
    public static let right = JoinKinds(rawValue: 4)
    /// `FULL JOIN` (MySQL and MariaDB have none).
    public static let full = JoinKinds(rawValue: 8)
    /// All four.
    public static let all: JoinKinds = [.inner, .left, .right, .full]

    /// The set's member for one kind of join.
    ///
    /// - Parameter kind: the join's kind.
    public init(_ kind: Join.Kind) {
        switch kind {
        case .inner: self = .inner
        case .left: self = .left
        case .right: self = .right
        case .full: self = .full
        }
    }
}

/// How an `IN (SELECT …)` whose SELECT has a LIMIT or OFFSET is written (see ``Dialect/limitedInSubquery``).
public enum LimitedInSubquerySyntax: Sendable, Hashable {
    /// `x IN (SELECT "a" FROM "t" LIMIT ?)` (SQLite, PostgreSQL).
    case inline
    /// `x IN (SELECT * FROM (SELECT "a" FROM "t" LIMIT ?) AS "strata_in")`: the limited SELECT is a derived table
    /// (MySQL, MariaDB: "This version doesn't yet support 'LIMIT & IN/ALL/ANY/SOME subquery'").
    case derivedTable
}

/// How `LAG`/`LEAD` with a default (the value where the offset row does not exist) is written (see
/// ``Dialect/windowDefault``).
public enum WindowDefaultSyntax: Sendable, Hashable {
    /// `LAG("c", 1, ?) OVER (…)`: the default is the function's third argument (SQLite, PostgreSQL).
    case argument
    /// `CASE WHEN COUNT(*) OVER (… ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING) > 0 THEN LAG("c", 1) OVER (…) ELSE ?
    /// END` (`FOLLOWING` for `LEAD`): a frame of the one offset row, over the function's own window, tells whether
    /// that row exists (MariaDB 10.11 takes no third argument), so a NULL the row holds stays NULL. The frame
    /// keeps the function's partition and order: MariaDB 10.11 answered LEAD wrongly when one query mixed a
    /// window with and one without an ORDER BY over the same partition.
    case frameCase
}

/// How `RANK()`/`DENSE_RANK()` over a window with no order is written (see ``Dialect/unorderedRank``). Every row of
/// such a window is a peer of every other, so each ranks 1 on every backend.
public enum UnorderedRankSyntax: Sendable, Hashable {
    /// `RANK() OVER (PARTITION BY "g")` (SQLite, PostgreSQL).
    case plain
    /// `RANK() OVER (PARTITION BY "g" ORDER BY NULL)`: an order that makes every row a peer, for a backend that
    /// refuses a ranking function without one (MariaDB 10.11: error 4018 "No order list in window specification").
    case orderByNull
}

/// How a window with neither a partition nor an order is written in a SELECT whose other windows have one (see
/// ``Dialect/unkeyedWindow``). Its value does not depend on an order: an aggregate over the whole result, every row
/// ranked 1, `ROW_NUMBER`, `LAG` and `LEAD` in an order no backend promises.
public enum UnkeyedWindowSyntax: Sendable, Hashable {
    /// `COUNT(*) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`, as written (SQLite, PostgreSQL).
    case plain
    /// The key of the SELECT's first window that has one (its partition's columns, then its order) is written into
    /// the unkeyed window: as its order, its frame still the whole result (`COUNT(*) OVER (ORDER BY "region" ASC,
    /// "id" ASC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`), or, for `RANK` and `DENSE_RANK`, as its
    /// partition (each row still ranks 1). MariaDB 10.11 computes the other windows of a SELECT wrongly beside an
    /// unkeyed one once they sort in two ways (a whole-partition sum came back as a running total; an unordered
    /// rank's `ORDER BY NULL` is a second way on its own); with no unkeyed window left, every combination tried
    /// answers right.
    case borrowedKey
}
