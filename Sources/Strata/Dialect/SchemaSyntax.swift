// SchemaSyntax: the typed capabilities a dialect declares for the DDL forms backends spell differently.

/// Which `CREATE` statements may say `IF NOT EXISTS` (see ``Dialect/existenceClauses``).
///
/// SQLite, PostgreSQL and MariaDB accept it on tables and indexes; MySQL 8 on tables only.
public struct ExistenceClauses: OptionSet, Sendable, Hashable {
    /// The set's bits.
    public let rawValue: Int
    /// Makes a set from its raw bits.
    ///
    /// - Parameter rawValue: the bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `CREATE TABLE IF NOT EXISTS`.
    public static let createTable = ExistenceClauses(rawValue: 1)
    /// `CREATE [UNIQUE] INDEX IF NOT EXISTS`.
    public static let createIndex = ExistenceClauses(rawValue: 2)
    /// Both.
    public static let all: ExistenceClauses = [.createTable, .createIndex]
}

/// How a stored generated column is declared (see ``Dialect/generatedColumnSyntax``).
public enum GeneratedColumnSyntax: Sendable, Hashable {
    /// `"c" BIGINT NOT NULL GENERATED ALWAYS AS (…) STORED`: a non-optional column says NOT NULL (SQLite,
    /// PostgreSQL).
    case storedNotNull
    /// `"c" BIGINT GENERATED ALWAYS AS (…) STORED`, never NOT NULL, which the backend refuses on a generated
    /// column (MariaDB); the column reads back as nullable.
    case stored
}

/// How an index is dropped (see ``Dialect/dropIndexSyntax``).
public enum DropIndexSyntax: Sendable, Hashable {
    /// `DROP INDEX "name"`: index names are unique in a schema (SQLite, PostgreSQL).
    case standalone
    /// `DROP INDEX "name" ON "table"`: index names are unique per table only (MySQL, MariaDB).
    case onTable
}

/// How `ALTER TABLE` drops a foreign key (see ``Dialect/dropForeignKeySyntax``).
public enum DropForeignKeySyntax: Sendable, Hashable {
    /// `ALTER TABLE "t" DROP CONSTRAINT "t_c_fkey"`, standard SQL (PostgreSQL).
    case dropConstraint
    /// `ALTER TABLE "t" DROP FOREIGN KEY "t_c_fkey"` (MySQL, MariaDB).
    case dropForeignKey
}

/// How `ALTER TABLE` changes an existing column's nullability in place (see ``Dialect/columnChangeSyntax``); only
/// asked where ``Dialect/altersTablesInPlace`` is true (SQLite rebuilds the table instead).
public enum ColumnChangeSyntax: Sendable, Hashable {
    /// `ALTER TABLE "t" ALTER COLUMN "c" SET NOT NULL` / `DROP NOT NULL`, and a type change printed as
    /// `ALTER COLUMN "c" TYPE … USING "c"::…` (PostgreSQL).
    case alterColumn
    /// `ALTER TABLE "t" MODIFY COLUMN "c" BIGINT NOT NULL` / `BIGINT NULL` (MySQL, MariaDB): the column's whole
    /// definition is restated with its new type and nullability. The change carries no default, so a driver that
    /// declares this keeps a column's default itself (MODIFY COLUMN drops one it does not restate).
    case modifyColumn
}
