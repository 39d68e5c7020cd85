// DialectCapabilityTests: golden SQL for each typed capability a dialect declares (RETURNING, upsert syntax, NULLS
// ordering, LIKE escaping, string literals), with dialects unlike SQLite and PostgreSQL.
import Testing

@testable import Strata

/// A dialect shaped like MySQL/MariaDB: backticks, `?`, NULLs lowest, ON DUPLICATE KEY, RETURNING on INSERT and
/// DELETE only, backslash escapes in string literals and as LIKE's default escape, non-transactional DDL.
struct DuplicateKeyDialect: Dialect {
    var name: String { "dupkey" }
    var identifierQuote: Character { "`" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { type == .text ? "VARCHAR(255)" : "BIGINT" }
    var autoIncrementPrimaryKey: String { "BIGINT AUTO_INCREMENT PRIMARY KEY" }
    var nullOrdering: NullOrdering { .lowest }
    var upsertSyntax: UpsertSyntax { .onDuplicateKeyUpdate }
    var returning: ReturningClauses { [.insert, .delete] }
    var likeEscape: LikeEscapeSyntax { .backslashByDefault }
    var backslashEscapesInStrings: Bool { true }
    var transactionalDDL: Bool { false }
    var concatSyntax: ConcatSyntax { .function }
}

/// A dialect whose NULLs sort highest but that has no `NULLS FIRST` keywords, no RETURNING and no upsert.
struct SortKeyDialect: Dialect {
    var name: String { "sortkey" }
    func placeholder(_ index: Int) -> String { ":\(index)" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .ilike }
    func sqlType(_ type: ColumnType) -> String { "T" }
    var autoIncrementPrimaryKey: String { "SERIAL" }
    var nullOrdering: NullOrdering { .highest }
    var nullsClause: NullsClauseSyntax { .sortKey }
    var returning: ReturningClauses { [] }
    var upsertSyntax: UpsertSyntax { .none }
}

@Suite("SQL renderer: dialect capabilities")
struct DialectCapabilityTests {
    static let upsertUpdate = Insert(
        table: "user", columns: ["email", "name"], rows: [[.text("a@x"), .text("A")]],
        onConflict: OnConflict(target: ["email"], action: .update(set: ["name"], increment: ["version"])))
    static let upsertNothing = Insert(
        table: "user", columns: ["email", "name"], rows: [[.text("a@x"), .text("A")]],
        onConflict: OnConflict(target: ["email"], action: .nothing))

    @Test("ON CONFLICT with its target on SQLite-like dialects (the default)")
    func onConflict() throws {
        let update = try SQLRenderer.render(.insert(Self.upsertUpdate), dialect: OddDialect())
        #expect(
            update.sql
                == "INSERT INTO `user` (`email`, `name`) VALUES (&1, &2) ON CONFLICT (`email`) DO UPDATE SET "
                + "`name` = excluded.`name`, `version` = `user`.`version` + 1")
        let nothing = try SQLRenderer.render(.insert(Self.upsertNothing), dialect: OddDialect())
        #expect(nothing.sql == "INSERT INTO `user` (`email`, `name`) VALUES (&1, &2) ON CONFLICT (`email`) DO NOTHING")
    }

    @Test("ON DUPLICATE KEY UPDATE, and DO NOTHING as a no-op assignment of the target")
    func onDuplicateKey() throws {
        let d = DuplicateKeyDialect()
        #expect(
            try SQLRenderer.render(.insert(Self.upsertUpdate), dialect: d).sql
                == "INSERT INTO `user` (`email`, `name`) VALUES (?, ?) ON DUPLICATE KEY UPDATE "
                + "`name` = VALUES(`name`), `version` = `user`.`version` + 1")
        #expect(
            try SQLRenderer.render(.insert(Self.upsertNothing), dialect: d).sql
                == "INSERT INTO `user` (`email`, `name`) VALUES (?, ?) ON DUPLICATE KEY UPDATE `email` = `email`")
        var empty = Self.upsertUpdate
        empty.onConflict = OnConflict(target: ["email"], action: .update(set: [], increment: []))
        #expect(throws: StrataError.invalidQuery("ON CONFLICT DO UPDATE on user sets no column")) {
            try StatementCheck.check(.insert(empty))  // by the core, before any driver renders it
        }
    }

    @Test("a dialect without upsert or RETURNING refuses them as unsupported, naming itself")
    func unsupportedClauses() throws {
        #expect(throws: StrataError.unsupported(feature: "upsert (INSERT … ON CONFLICT)", driver: "sortkey")) {
            try SQLRenderer.render(.insert(Self.upsertNothing), dialect: SortKeyDialect())
        }
        let returning = Insert(table: "t", columns: ["a"], rows: [[.integer(1)]], returning: "id")
        #expect(throws: StrataError.unsupported(feature: "INSERT … RETURNING", driver: "sortkey")) {
            try SQLRenderer.render(.insert(returning), dialect: SortKeyDialect())
        }
        #expect(
            try SQLRenderer.render(.insert(returning), dialect: DuplicateKeyDialect()).sql
                == "INSERT INTO `t` (`a`) VALUES (?) RETURNING `id`")
    }

    @Test("NULLS ordering as a sort key where the dialect has no NULLS keywords")
    func nullsSortKey() throws {
        var never = Ordering("id", .descending)
        never.isNeverNull = true
        let s = Select(
            table: "t", selection: .columns(["a"]),
            order: [
                Ordering("a"), Ordering("b", .descending), never,
                Ordering(expression: .init(.arithmetic(.multiply, .column("c"), .value(.integer(2))))),
            ])
        let r = try SQLRenderer.render(.select(s), dialect: SortKeyDialect())
        #expect(
            r.sql
                == "SELECT \"a\" FROM \"t\" ORDER BY CASE WHEN \"a\" IS NULL THEN 0 ELSE 1 END, \"a\" ASC, "
                + "CASE WHEN \"b\" IS NULL THEN 1 ELSE 0 END, \"b\" DESC, \"id\" DESC, "
                + "CASE WHEN (\"c\" * :1) IS NULL THEN 0 ELSE 1 END, (\"c\" * :2) ASC")
        #expect(r.binds == [.integer(2), .integer(2)])
        #expect(SQLRenderer.binds(of: .select(s), dialect: SortKeyDialect()) == r.binds)
        var index = Index(columns: ["a", "b"])
        index.nullsFirstColumns = ["a"]
        #expect(
            try SQLRenderer.render(.createIndex(table: "t", index), dialect: SortKeyDialect()).sql
                == "CREATE INDEX IF NOT EXISTS \"t_a_b_idx\" ON \"t\" (\"a\", \"b\")")
    }

    @Test("no NULLS clause where NULLs already sort lowest")
    func nullsLowest() throws {
        let s = Select(table: "t", selection: .columns(["a"]), order: [Ordering("a"), Ordering("b", .descending)])
        #expect(
            try SQLRenderer.render(.select(s), dialect: DuplicateKeyDialect()).sql
                == "SELECT `a` FROM `t` ORDER BY `a` ASC, `b` DESC")
    }

    @Test("LIKE writes ESCAPE '\\' only where the backend needs it")
    func likeEscape() throws {
        let d = Delete(table: "t", filter: .like(.column("a"), "x\\%", caseInsensitive: false))
        #expect(
            try SQLRenderer.render(.delete(d), dialect: DuplicateKeyDialect()).sql
                == "DELETE FROM `t` WHERE (`a` LIKE ?)")
        #expect(
            try SQLRenderer.render(.delete(d), dialect: OddDialect()).sql
                == "DELETE FROM `t` WHERE (`a` LIKE &1 ESCAPE '\\')")
    }

    @Test("concatenation as || or CONCAT(…)")
    func concat() throws {
        let d = Delete(
            table: "t", filter: .compare(.equal, .concat(.column("a"), .value(.text("x"))), .value(.text("yx"))))
        #expect(
            try SQLRenderer.render(.delete(d), dialect: DuplicateKeyDialect()).sql
                == "DELETE FROM `t` WHERE (CONCAT(`a`, ?) = ?)")
        #expect(
            try SQLRenderer.render(.delete(d), dialect: OddDialect()).sql == "DELETE FROM `t` WHERE ((`a` || &1) = &2)")
    }

    @Test("DDL text literals double backslashes where the dialect's strings read them as escapes")
    func backslashLiterals() throws {
        let column = TableColumn(name: "path", type: .text, isNullable: false, schemaDefault: .text("C:\\tmp's"))
        #expect(
            try SQLRenderer.render(.addColumn(table: "t", column), dialect: DuplicateKeyDialect()).sql
                == "ALTER TABLE `t` ADD COLUMN `path` VARCHAR(255) DEFAULT 'C:\\\\tmp''s' NOT NULL")
        #expect(
            try SQLRenderer.render(.addColumn(table: "t", column), dialect: OddDialect()).sql
                == "ALTER TABLE `t` ADD COLUMN `path` T_TEXT DEFAULT 'C:\\tmp''s' NOT NULL")
    }

    @Test("the built-in defaults: RETURNING everywhere, ON CONFLICT, NULLS keywords, ESCAPE, transactional DDL")
    func defaults() {
        let odd = OddDialect()
        #expect(odd.returning == .all && odd.upsertSyntax == .onConflict && odd.nullsClause == .keywords)
        #expect(odd.likeEscape == .escapeClause && !odd.backslashEscapesInStrings && odd.transactionalDDL)
        #expect(!DuplicateKeyDialect().transactionalDDL)
    }
}

/// A dialect that cannot ALTER tables in place (SQLite): its driver rebuilds the table for those changes.
struct RebuildDialect: Dialect {
    var name: String { "rebuild" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .limitMinusOne }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { "T" }
    var autoIncrementPrimaryKey: String { "INTEGER PRIMARY KEY" }
    var altersTablesInPlace: Bool { false }
}

@Suite("SQL renderer: schema changes")
struct SchemaChangeRendererTests {
    @Test("every schema change renders from the dialect, in place")
    func inPlace() throws {
        let odd = OddDialect()
        func sql(_ c: SchemaChange) throws -> [String]? { try SQLRenderer.statements(for: c, dialect: odd) }
        let t = TableSchema(
            name: "pet", columns: [TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)],
            indexes: [Index(columns: ["id"], unique: true)])
        #expect(
            try sql(.createTable(t)) == [
                "CREATE TABLE IF NOT EXISTS `pet` (`id` SERIAL KEY)",
                "CREATE UNIQUE INDEX IF NOT EXISTS `pet_id_key` ON `pet` (`id`)",
            ])
        #expect(try sql(.dropTable("pet")) == ["DROP TABLE `pet`"])
        #expect(try sql(.renameTable("pet", to: "cat")) == ["ALTER TABLE `pet` RENAME TO `cat`"])
        #expect(try sql(.dropColumn(table: "pet", column: "age")) == ["ALTER TABLE `pet` DROP COLUMN `age`"])
        #expect(
            try sql(.renameColumn(table: "pet", column: "a", to: "b")) == ["ALTER TABLE `pet` RENAME COLUMN `a` TO `b`"]
        )
        #expect(
            try sql(.alterColumn(table: "pet", column: "a", type: .text, nullable: false, fill: nil))
                == ["ALTER TABLE `pet` ALTER COLUMN `a` SET NOT NULL"])
        #expect(try sql(.dropIndex(table: "pet", name: "pet_a_idx")) == ["DROP INDEX `pet_a_idx`"])
        let fkey = odd.shortened("pet_owner_id_fkey")  // 16 bytes at most on this dialect
        #expect(fkey != "pet_owner_id_fkey" && fkey.utf8.count <= 16)
        #expect(
            try sql(.addForeignKey(table: "pet", ForeignKey(column: "owner_id", references: "owner")))
                == [
                    "ALTER TABLE `pet` ADD CONSTRAINT `\(fkey)` FOREIGN KEY (`owner_id`) REFERENCES `owner` (`id`) "
                        + "ON DELETE NO ACTION"
                ])
        #expect(
            try sql(.dropForeignKey(table: "pet", column: "owner_id"))
                == ["ALTER TABLE `pet` DROP CONSTRAINT `\(fkey)`"])
        #expect(
            try sql(.setDefault(table: "pet", column: "n", to: .integer(3)))
                == ["ALTER TABLE `pet` ALTER COLUMN `n` SET DEFAULT 3"])
        #expect(
            try sql(.setDefault(table: "pet", column: "n", to: nil)) == [
                "ALTER TABLE `pet` ALTER COLUMN `n` DROP DEFAULT"
            ])
    }

    @Test("a dialect that cannot ALTER in place gets nil for the changes its driver rebuilds the table for")
    func rebuilt() throws {
        let d = RebuildDialect()
        func sql(_ c: SchemaChange) throws -> [String]? { try SQLRenderer.statements(for: c, dialect: d) }
        #expect(try sql(.alterColumn(table: "t", column: "a", type: .text, nullable: true, fill: nil)) == nil)
        #expect(try sql(.addForeignKey(table: "t", ForeignKey(column: "o_id", references: "o"))) == nil)
        #expect(try sql(.dropForeignKey(table: "t", column: "o_id")) == nil)
        #expect(try sql(.setDefault(table: "t", column: "a", to: nil)) == nil)
        #expect(try sql(.dropColumn(table: "t", column: "a")) == ["ALTER TABLE \"t\" DROP COLUMN \"a\""])
        #expect(
            try sql(.renameColumn(table: "t", column: "a", to: "b")) == [
                "ALTER TABLE \"t\" RENAME COLUMN \"a\" TO \"b\""
            ])
    }
}
