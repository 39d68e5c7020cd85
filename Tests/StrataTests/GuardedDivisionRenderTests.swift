// GuardedDivisionRenderTests: the typed API's integer-division mark, and the SQL of ArithmeticSyntax.guardedDivision
// and UnorderedRankSyntax.orderByNull in a dialect shaped like MariaDB's; SQLite's and PostgreSQL's SQL unchanged.
import Testing

@testable import Strata

/// A MariaDB-shaped dialect: guarded division, integer `DIV`, `ORDER BY NULL` for an unordered rank.
struct GuardedDivisionDialect: Dialect {
    var name: String { "guarded" }
    var identifierQuote: Character { "`" }
    func placeholder(_ index: Int) -> String { "?" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .lowerBoth }
    func sqlType(_ type: ColumnType) -> String { "BIGINT" }
    var autoIncrementPrimaryKey: String { "BIGINT AUTO_INCREMENT PRIMARY KEY" }
    var nullOrdering: NullOrdering { .lowest }
    var arithmeticSyntax: ArithmeticSyntax { .guardedDivision }
    var unorderedRank: UnorderedRankSyntax { .orderByNull }
}

/// The other spellings: PostgreSQL's NaN-checked operators, or SQLite's checked functions.
struct UnguardedDialect: Dialect {
    var checked: Bool
    var name: String { "unguarded" }
    func placeholder(_ index: Int) -> String { "$\(index)" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .ilike }
    func sqlType(_ type: ColumnType) -> String { "BIGINT" }
    var autoIncrementPrimaryKey: String { "BIGSERIAL PRIMARY KEY" }
    var nullOrdering: NullOrdering { .lowest }
    var arithmeticSyntax: ArithmeticSyntax { checked ? .checkedFunctions : .operators }
    var numericSyntax: NumericSyntax { NumericSyntax(nullsNaN: !checked) }
}

@Suite("SQL renderer: guarded division and unordered rank")
struct GuardedDivisionRenderTests {
    @Test("the typed API marks a division of integers as integer, never one of doubles")
    func typedMark() throws {
        let integer = try (\GenItem.price / 2).expression
        #expect(integer.node == .typed(.arithmetic(.divide, .column("price"), .value(.integer(2))), .integer))
        let double = try (\ConfMarkDouble.ratio / 2).expression
        #expect(double.node == .arithmetic(.divide, .column("ratio"), .value(.double(2))))
    }

    @Test("integer division is DIV, nested ones too; each divisor is guarded and bound twice, as binds(of:) says")
    func guardedSQL() throws {
        let nested = try ((\GenItem.price / \GenItem.quantity) + 1).expression
        let select = Select(
            table: "t", selection: .columns(["id"]), filter: .compare(.equal, nested, .value(.integer(3))))
        let dialect = GuardedDivisionDialect()
        let rendered = try SQLRenderer.render(.select(select), dialect: dialect)
        #expect(
            rendered.sql
                == "SELECT `id` FROM `t` WHERE (((`price` DIV CASE WHEN EXP(7777 * (`quantity` = 0 AND `price` IS NOT NULL))"
                + " THEN `quantity` END) + ?) = ?)")
        #expect(rendered.binds == [.integer(1), .integer(3)])
        let remainder = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(.equal, try (\GenItem.price % 3).expression, .value(.integer(1))))
        let r = try SQLRenderer.render(.select(remainder), dialect: dialect)
        #expect(
            r.sql
                == "SELECT `id` FROM `t` WHERE ((`price` % CASE WHEN EXP(7777 * (? = 0 AND `price` IS NOT NULL)) THEN ?"
                + " END) = ?)")
        #expect(r.binds == [.integer(3), .integer(3), .integer(1)])
        #expect(SQLRenderer.binds(of: .select(remainder), dialect: dialect) == r.binds)
    }

    @Test("SQLite's and PostgreSQL's spellings write the marked division as before: the mark adds nothing, nested too")
    func otherDialectsUnchanged() throws {
        let marked = try ((\GenItem.price / \GenItem.quantity) + 1).expression
        let plain = SQLExpression.arithmetic(
            .add, .arithmetic(.divide, .column("price"), .column("quantity")), .value(.integer(1)))
        for dialect in [UnguardedDialect(checked: true), UnguardedDialect(checked: false)] {
            let a = Select(
                table: "t", selection: .columns(["id"]), filter: .compare(.equal, marked, .value(.integer(3))))
            let b = Select(
                table: "t", selection: .columns(["id"]), filter: .compare(.equal, plain, .value(.integer(3))))
            #expect(
                try SQLRenderer.render(.select(a), dialect: dialect) == SQLRenderer.render(.select(b), dialect: dialect)
            )
            #expect(
                SQLRenderer.binds(of: .select(a), dialect: dialect)
                    == SQLRenderer.binds(of: .select(b), dialect: dialect))
        }
    }

    @Test(
        "RANK and DENSE_RANK with no order get ORDER BY NULL where the dialect asks; ordered ones and ROW_NUMBER do not"
    )
    func unorderedRank() throws {
        let select = Select(
            table: "t",
            selection: .items([
                .window(WindowFunction(.rank, partition: [ColumnRef("g")])), .window(WindowFunction(.denseRank)),
                .window(WindowFunction(.rowNumber)), .window(WindowFunction(.rank, order: [Ordering("id")])),
            ]))
        #expect(
            try SQLRenderer.render(.select(select), dialect: GuardedDivisionDialect()).sql
                == "SELECT RANK() OVER (PARTITION BY `g` ORDER BY NULL), DENSE_RANK() OVER (ORDER BY NULL), "
                + "ROW_NUMBER() OVER (), RANK() OVER (ORDER BY `id` ASC) FROM `t`")
        #expect(
            try SQLRenderer.render(.select(select), dialect: UnguardedDialect(checked: true)).sql
                == "SELECT RANK() OVER (PARTITION BY \"g\"), DENSE_RANK() OVER (), ROW_NUMBER() OVER (), "
                + "RANK() OVER (ORDER BY \"id\" ASC) FROM \"t\"")
    }
}

@Model
struct ConfMarkDouble {
    var id: Int64?
    var ratio: Double
}
