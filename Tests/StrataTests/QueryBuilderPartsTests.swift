// QueryBuilderPartsTests: the builder's state split into common parts and copied-on-write extras, and the lookups
// by column position, checked against the statements the builder made before the split.
import Foundation
import Testing

@testable import Strata

@Model(table: "parts_item")
struct PartsItem {
    var id: Int64?
    var name: String
    var note: String?
    var rank: Int
    @Column(dateFormat: .unixSeconds) var seen: Date
    @Transient var scratch = 0
}

@Suite("Query builder parts")
struct QueryBuilderPartsTests {
    /// A builder with no executor: building and `selectStatement()` need none.
    private var query: QueryBuilder<PartsItem, Void> { QueryBuilder(executor: ()) }

    @Test("order(_:) reads the column's text type and nullability by position, as the lookups by name did")
    func orderByPosition() throws {
        let select = try query.order(\.name).order(\.note, .descending).order(\.id).order(\.rank).order(\.seen)
            .selectStatement()
        let schema = PartsItem.schema
        #expect(select.order.map(\.column) == ["name", "note", "id", "rank", "seen"])
        #expect(select.order.map(\.direction) == [.ascending, .descending, .ascending, .ascending, .ascending])
        for o in select.order {
            #expect(o.isText == schema.isText(o.column), "isText of \(o.column)")
            #expect(o.isNeverNull == schema.isNeverNull(o.column), "isNeverNull of \(o.column)")
        }
        #expect(select.order.map(\.isText) == [true, true, false, false, false])
        #expect(select.order.map(\.isNeverNull) == [true, false, true, true, true])
    }

    @Test("a condition on a date column stores its value in the column's format, found by position")
    func conditionStoresDates() throws {
        let day = Date(timeIntervalSince1970: 86_400 * 3 + 0.75)
        let select = try query.where(\.seen > day).where(\.name == "x").selectStatement()
        let expected = SQLExpression.and([
            PartsItem.schema.storingDates(.compare(.greater, .column("seen"), .value(.date(day))), column: "seen"),
            .compare(.equal, .column("name"), .value(.text("x"))),
        ])
        #expect(select.filter == expected)
        #expect(SQLRenderer.binds(of: .select(select)).first == PartsItem.schema.stored(.date(day), column: "seen"))
        #expect(PartsItem.schema.stored(.date(day), column: "seen") != .date(day))
    }

    @Test("builders branched from one builder keep their own extras and parts")
    func branchesShareNothingTheyChange() throws {
        let base = query.only(\.name).distinct().where(\.rank > 1)
        let narrowed = base.only(\.rank).limit(3)
        let tagged = base.where(\.rank < 9).tagged("parts.b").offset(2)

        let b = try base.selectStatement()
        #expect(b.selection == .columns(["name"]))
        #expect(b.distinct)
        #expect(b.limit == nil && b.offset == nil && b.tag == nil)
        #expect(b.filter == .and([.compare(.greater, .column("rank"), .value(.integer(1)))]))

        let n = try narrowed.selectStatement()
        #expect(n.selection == .columns(["rank"]))
        #expect(n.distinct)
        #expect(n.limit == 3)
        #expect(n.filter == b.filter)

        let t = try tagged.selectStatement()
        #expect(t.selection == .columns(["name"]))
        #expect(t.tag == "parts.b" && t.offset == 2 && t.limit == nil)
        #expect(
            t.filter
                == .and([
                    .compare(.greater, .column("rank"), .value(.integer(1))),
                    .compare(.less, .column("rank"), .value(.integer(9))),
                ]))

        // The first builder's own statement, read again after its branches changed theirs.
        #expect(try base.selectStatement() == b)
    }

    @Test("a builder without extras selects every column, and a branch's extras do not reach it")
    func extrasStayWithTheirBranch() throws {
        let plain = query.where(\.rank == 4)
        let grouped = plain.distinct().only(\.id)
        #expect(try plain.selectStatement().selection == .columns(PartsItem.schema.columnNames))
        #expect(try !plain.selectStatement().distinct)
        #expect(try grouped.selectStatement().selection == .columns(["id"]))
        #expect(plain.extras == nil)
    }

    @Test("the first building error is kept, thrown when the statement is made, and stays with its branch")
    func firstErrorKept() throws {
        let clean = query.limit(1)
        let failed = clean.order(\.scratch)
        let later = failed.only(\.scratch).order(\.name)
        for q in [failed, later] {
            #expect {
                _ = try q.selectStatement()
            } throws: { error in
                guard case .unknownColumn(let model, let column) = error as? StrataError else { return false }
                return model == "PartsItem" && column.contains("scratch")
            }
        }
        #expect(try clean.selectStatement().order.isEmpty)
        #expect(clean.extras == nil)
    }
}
