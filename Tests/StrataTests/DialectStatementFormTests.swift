// DialectStatementFormTests: golden SQL for the statement forms MySQL-family backends spell differently (OFFSET
// without LIMIT, BEGIN at an isolation level, an INSERT with no columns, IF NOT EXISTS, DROP INDEX, column changes,
// a limited IN subquery, row locks, foreign keys dropped, joins refused).
import Testing

@testable import Strata

/// A dialect shaped like MySQL 8 / MariaDB's statement forms: OFFSET under the largest LIMIT, the isolation level set
/// before `START TRANSACTION`, `() VALUES ()`, no `CREATE INDEX IF NOT EXISTS`, `DROP INDEX … ON`, `MODIFY COLUMN`, a
/// limited IN subquery as a derived table, `LOCK IN SHARE MODE` without `OF`, `DROP FOREIGN KEY`, no FULL JOIN.
struct MySQLLikeTestDialect: Dialect {
    var name: String { "mysqlish" }
    var identifierQuote: Character { "`" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .limitMaximum }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { type == .text ? "VARCHAR(255)" : "BIGINT" }
    var autoIncrementPrimaryKey: String { "BIGINT AUTO_INCREMENT PRIMARY KEY" }
    var isolationLevels: IsolationSupport { .perTransaction }
    var isolationBegin: IsolationBeginSyntax { .setTransactionThenStart }
    var emptyInsertSyntax: EmptyInsertSyntax { .emptyLists }
    var existenceClauses: ExistenceClauses { .createTable }
    var dropIndexSyntax: DropIndexSyntax { .onTable }
    var columnChangeSyntax: ColumnChangeSyntax { .modifyColumn }
    var limitedInSubquery: LimitedInSubquerySyntax { .derivedTable }
    var rowLocks: RowLockSyntax { .forClause }
    var rowLockClause: RowLockClauseSyntax { .lockInShareMode }
    var dropForeignKeySyntax: DropForeignKeySyntax { .dropForeignKey }
    var joinKinds: JoinKinds { [.inner, .left, .right] }
}

/// A connection that records the SQL it is asked to run, and runs nothing.
final class RecordingSQLConnection: SQLConnection {
    let dialect: any Dialect
    var ran: [String] = []
    init(dialect: any Dialect) { self.dialect = dialect }
    func run(_ sql: RenderedSQL, statement: Statement?, onRow: (any RowReader) throws -> Void) throws -> Int {
        ran.append(sql.sql)
        return 0
    }
    func columns(of table: String) throws -> [String]? { nil }
    var isBroken: Bool { false }
    func liveColumns(of table: String) throws -> [LiveColumn]? { nil }
    func liveTables() throws -> [String] { [] }
    func liveForeignKeys(of table: String) throws -> [LiveForeignKey] { [] }
}

@Suite("SQL renderer: statement forms of MySQL-like dialects")
struct DialectStatementFormTests {
    let mysql = MySQLLikeTestDialect()

    @Test("OFFSET without LIMIT: alone, under LIMIT -1, or under the largest unsigned LIMIT")
    func offsetWithoutLimit() throws {
        let s = Select(table: "t", selection: .columns(["a"]), offset: 5)
        let r = try SQLRenderer.render(.select(s), dialect: mysql)
        #expect(r.sql == "SELECT `a` FROM `t` LIMIT 18446744073709551615 OFFSET ?")
        #expect(r.binds == [.integer(5)])
        #expect(SQLRenderer.binds(of: .select(s), dialect: mysql) == r.binds)
        #expect(
            try SQLRenderer.render(.select(s), dialect: RebuildDialect()).sql
                == "SELECT \"a\" FROM \"t\" LIMIT -1 OFFSET ?")
        #expect(try SQLRenderer.render(.select(s), dialect: OddDialect()).sql == "SELECT `a` FROM `t` OFFSET &1")
        let limited = Select(table: "t", selection: .columns(["a"]), limit: 2, offset: 5)
        #expect(try SQLRenderer.render(.select(limited), dialect: mysql).sql == "SELECT `a` FROM `t` LIMIT ? OFFSET ?")
    }

    @Test("BEGIN at an isolation level as SET TRANSACTION then START TRANSACTION, never as one statement")
    func isolationBegin() throws {
        #expect(
            try SQLRenderer.beginStatements(.repeatableRead, dialect: mysql) == [
                "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "START TRANSACTION",
            ])
        #expect(
            throws: StrataError.unsupported(
                feature: "isolation level serializable in one statement", driver: "mysqlish")
        ) { try SQLRenderer.render(.beginIsolated(.serializable), dialect: mysql) }
        let connection = RecordingSQLConnection(dialect: mysql)
        _ = try connection.execute(.beginIsolated(.readCommitted)) { _ in }
        _ = try connection.execute(.begin) { _ in }
        #expect(connection.ran == ["SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "START TRANSACTION", "BEGIN"])
        #expect(throws: StrataError.unsupported(feature: "isolation level serializable", driver: "odd")) {
            try SQLRenderer.beginStatements(.serializable, dialect: OddDialect())
        }
    }

    @Test("an INSERT with no columns as () VALUES ()")
    func emptyInsert() throws {
        let i = Insert(table: "t", columns: [], rows: [[]], returning: "id")
        #expect(try SQLRenderer.render(.insert(i), dialect: mysql).sql == "INSERT INTO `t` () VALUES () RETURNING `id`")
        #expect(
            try SQLRenderer.render(.insert(i), dialect: OddDialect()).sql
                == "INSERT INTO `t` DEFAULT VALUES RETURNING `id`")
    }

    @Test("IF NOT EXISTS only on the CREATE statements the dialect accepts it on")
    func existenceClauses() throws {
        let t = TableSchema(
            name: "pet",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                TableColumn(name: "name", type: .text, isNullable: false),
            ],
            indexes: [Index(columns: ["name"])])
        #expect(
            try SQLRenderer.statements(for: .createTable(t), dialect: mysql) == [
                "CREATE TABLE IF NOT EXISTS `pet` (`id` BIGINT AUTO_INCREMENT PRIMARY KEY, `name` VARCHAR(255) NOT NULL)",
                "CREATE INDEX `pet_name_idx` ON `pet` (`name`)",
            ])
        struct NoExistence: Dialect {
            var name: String { "none" }
            func placeholder(_ index: Int) -> String { "?" }
            var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
            var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
            func sqlType(_ type: ColumnType) -> String { "T" }
            var autoIncrementPrimaryKey: String { "SERIAL" }
            var existenceClauses: ExistenceClauses { [] }
        }
        #expect(
            try SQLRenderer.statements(for: .createTable(t), dialect: NoExistence()) == [
                "CREATE TABLE \"pet\" (\"id\" SERIAL, \"name\" T NOT NULL)",
                "CREATE INDEX \"pet_name_idx\" ON \"pet\" (\"name\")",
            ])
        #expect(
            try SQLRenderer.render(.createIndex(table: "pet", Index(columns: ["name"], unique: true)), dialect: mysql)
                .sql == "CREATE UNIQUE INDEX `pet_name_key` ON `pet` (`name`)")
    }

    @Test("DROP INDEX names its table where index names are per table")
    func dropIndex() throws {
        #expect(
            try SQLRenderer.statements(for: .dropIndex(table: "pet", name: "pet_name_idx"), dialect: mysql)
                == ["DROP INDEX `pet_name_idx` ON `pet`"])
    }

    @Test("a column's nullability changes with MODIFY COLUMN, restating its type")
    func modifyColumn() throws {
        func sql(_ c: SchemaChange) throws -> [String]? { try SQLRenderer.statements(for: c, dialect: mysql) }
        #expect(
            try sql(.alterColumn(table: "pet", column: "name", type: .text, nullable: false, fill: nil))
                == ["ALTER TABLE `pet` MODIFY COLUMN `name` VARCHAR(255) NOT NULL"])
        #expect(
            try sql(.alterColumn(table: "pet", column: "age", type: .integer, nullable: true, fill: nil))
                == ["ALTER TABLE `pet` MODIFY COLUMN `age` BIGINT NULL"])
        // A printed type change with a fill: the new type while nullable, the fill, then NOT NULL.
        let plan = try MigrationPlan.sql(
            .alterColumn(table: "pet", column: "age", type: .text, nullable: false, fill: .text("0")), dialect: mysql)
        #expect(
            plan == [
                "-- pet.age: each value converted to text in Swift; one that does not convert stops the step",
                "ALTER TABLE `pet` MODIFY COLUMN `age` VARCHAR(255) NULL;",
                "UPDATE `pet` SET `age` = '0' WHERE `age` IS NULL;",
                "ALTER TABLE `pet` MODIFY COLUMN `age` VARCHAR(255) NOT NULL;",
            ])
        #expect(
            try MigrationPlan.sql(
                .alterColumn(table: "pet", column: "age", type: .text, nullable: true, fill: nil), dialect: mysql) == [
                    "-- pet.age: each value converted to text in Swift; one that does not convert stops the step",
                    "ALTER TABLE `pet` MODIFY COLUMN `age` VARCHAR(255) NULL;",
                ])
    }

    @Test("an IN subquery with a LIMIT or OFFSET as a derived table; one without stays inline")
    func limitedInSubquery() throws {
        let limited = Select(table: "b", selection: .columns(["a_id"]), limit: 3)
        let s = Select(
            table: "a", selection: .columns(["id"]), filter: .inSubquery(.column("id"), limited, negated: true))
        let r = try SQLRenderer.render(.select(s), dialect: mysql)
        #expect(
            r.sql
                == "SELECT `id` FROM `a` WHERE (`id` NOT IN (SELECT * FROM (SELECT `a_id` FROM `b` LIMIT ?) AS `strata_in`))"
        )
        #expect(r.binds == [.integer(3)] && SQLRenderer.binds(of: .select(s), dialect: mysql) == r.binds)
        let skipped = Select(table: "b", selection: .columns(["a_id"]), offset: 1)
        #expect(
            try SQLRenderer.render(
                .select(Select(table: "a", selection: .columns(["id"]), filter: .inSubquery(.column("id"), skipped))),
                dialect: mysql
            ).sql
                == "SELECT `id` FROM `a` WHERE (`id` IN (SELECT * FROM (SELECT `a_id` FROM `b` LIMIT 18446744073709551615 "
                + "OFFSET ?) AS `strata_in`))")
        let plain = Select(
            table: "a", selection: .columns(["id"]),
            filter: .inSubquery(.column("id"), Select(table: "b", selection: .columns(["a_id"]))))
        #expect(
            try SQLRenderer.render(.select(plain), dialect: mysql).sql
                == "SELECT `id` FROM `a` WHERE (`id` IN (SELECT `a_id` FROM `b`))")
        #expect(
            try SQLRenderer.render(.select(s), dialect: OddDialect()).sql
                == "SELECT `id` FROM `a` WHERE (`id` NOT IN (SELECT `a_id` FROM `b` LIMIT &1))")
    }

    @Test("a shared row lock as LOCK IN SHARE MODE, and no OF where the dialect has none")
    func rowLockClause() throws {
        var s = Select(
            table: "job", selection: .refs([ColumnRef("id", table: "job")]),
            joins: [
                Join(
                    .inner, table: "owner", alias: "o",
                    on: .compare(.equal, .column("owner_id"), .column("id", table: "o")))
            ])
        s.lock = RowLock(.share, .noWait)
        #expect(
            try SQLRenderer.render(.select(s), dialect: mysql).sql
                == "SELECT `job`.`id` FROM `job` INNER JOIN `owner` AS `o` ON (`job`.`owner_id` = `o`.`id`) "
                + "LOCK IN SHARE MODE NOWAIT")
        s.lock = RowLock(.update, .skipLocked)
        #expect(
            try SQLRenderer.render(.select(s), dialect: mysql).sql.hasSuffix(
                "(`job`.`owner_id` = `o`.`id`) FOR UPDATE SKIP LOCKED"))
    }

    @Test("a foreign key is dropped with DROP FOREIGN KEY")
    func dropForeignKey() throws {
        #expect(
            try SQLRenderer.statements(for: .dropForeignKey(table: "pet", column: "owner_id"), dialect: mysql)
                == ["ALTER TABLE `pet` DROP FOREIGN KEY `pet_owner_id_fkey`"])
        #expect(
            try SQLRenderer.dropForeignKey("fk_pet", table: "pet", dialect: OddDialect())
                == "ALTER TABLE `pet` DROP CONSTRAINT `fk_pet`")
    }

    @Test("a join the dialect cannot write is unsupported, naming it; the others render")
    func joinKinds() throws {
        func select(_ kind: Join.Kind) -> Statement {
            .select(
                Select(
                    table: "a", selection: .columns(["id"]),
                    joins: [Join(kind, table: "b", alias: "b", on: .constant(true))]))
        }
        #expect(throws: StrataError.unsupported(feature: "FULL JOIN", driver: "mysqlish")) {
            try SQLRenderer.render(select(.full), dialect: mysql)
        }
        #expect(
            try SQLRenderer.render(select(.right), dialect: mysql).sql
                == "SELECT `a`.`id` FROM `a` RIGHT JOIN `b` AS `b` ON TRUE")
        #expect(
            try SQLRenderer.render(select(.full), dialect: OddDialect()).sql.contains(" FULL JOIN `b` AS `b` ON YES"))
    }

    @Test("the defaults are SQLite's and PostgreSQL's forms")
    func defaults() {
        let odd = OddDialect()
        #expect(odd.isolationBegin == .beginIsolationLevel && odd.emptyInsertSyntax == .defaultValues)
        #expect(odd.existenceClauses == .all && odd.dropIndexSyntax == .standalone)
        #expect(odd.columnChangeSyntax == .alterColumn && odd.limitedInSubquery == .inline)
        #expect(odd.rowLockClause == .forShareOf && odd.dropForeignKeySyntax == .dropConstraint)
        #expect(odd.joinKinds == .all && JoinKinds(.full) == .full && JoinKinds(.inner) == .inner)
    }
}
