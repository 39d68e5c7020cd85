// SetOperationRenderTests: the exact SQL of UNION, UNION ALL, INTERSECT and EXCEPT on SQLite and PostgreSQL, their
// binds in order, the memory driver's answers, and the shapes the core refuses.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

@Suite("SQL renderer: set operations")
struct SetOperationRenderTests {
    static let columns = "SELECT \"id\", \"title\", \"rank\""
    static let branch = columns + " FROM \"entry\""

    @Test("UNION ordered and limited as a whole: the branches in a derived table, ORDER BY and LIMIT outside")
    func unionOrderedLimited() async throws {
        var titles: [String] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            titles = try await PageEntry.query(on: db).where(\.rank == 1)
                .union(PageEntry.query(on: db).where(\.title == "b"))
                .order(\.title, .descending).limit(5).all().map(\.title)
        }
        #expect(titles == ["c", "b"])
        #expect(
            sqlite == [
                Self.columns + " FROM (" + Self.branch + " WHERE (\"rank\" = ?) UNION " + Self.branch
                    + " WHERE (\"title\" = ?)) AS \"strata_set\" ORDER BY \"title\" DESC LIMIT ?"
            ])
        #expect(
            pg == [
                Self.columns + " FROM (" + Self.branch + " WHERE (\"rank\" = $1) UNION " + Self.branch
                    + " WHERE (\"title\" = $2)) AS \"strata_set\" ORDER BY \"title\" COLLATE \"C\" DESC LIMIT $3"
            ])
    }

    @Test("an INTERSECT after a UNION reads the UNION as a derived table, so both backends go left to right")
    func chainLeftToRight() async throws {
        var titles: [String] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            let q = PageEntry.query(on: db)
            titles = try await q.where(\.rank == 1).union(q.where(\.title == "b")).intersect(q.where(\.rank == nil))
                .all().map(\.title)
        }
        #expect(titles == ["b"])
        let expected = { (p: [String]) in
            Self.columns + " FROM (" + Self.columns + " FROM (" + Self.branch + " WHERE (\"rank\" = \(p[0])) UNION "
                + Self.branch + " WHERE (\"title\" = \(p[1]))) AS \"strata_set_1\" INTERSECT " + Self.branch
                + " WHERE (\"rank\" IS NULL)) AS \"strata_set\""
        }
        #expect(sqlite == [expected(["?", "?"])])
        #expect(pg == [expected(["$1", "$2"])])
    }

    @Test("UNION ALL counted, EXCEPT with a filter on the combined rows, and binds collected in the same order")
    func countAndFilter() async throws {
        var counted = 0
        var left: [String] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            let q = PageEntry.query(on: db)
            counted = try await q.unionAll(q.where(\.rank > 0)).count()
            left = try await q.except(q.where(\.title == "a")).where(\.rank == nil || \.rank < 5).order(\.id).all()
                .map(\.title)
        }
        #expect(counted == 5)
        #expect(left == ["b", "c"])
        #expect(
            sqlite == [
                "SELECT COUNT(*) FROM (" + Self.branch + " UNION ALL " + Self.branch
                    + " WHERE (\"rank\" > ?)) AS \"strata_set\"",
                Self.columns + " FROM (" + Self.branch + " EXCEPT " + Self.branch
                    + " WHERE (\"title\" = ?)) AS \"strata_set\" WHERE ((\"rank\" IS NULL) OR (\"rank\" < ?))"
                    + " ORDER BY \"id\" ASC",
            ])
        #expect(pg.count == 2)
        #expect(pg.last?.contains("WHERE (\"title\" = $1)) AS \"strata_set\" WHERE ((\"rank\" IS NULL) OR") == true)
    }

    @Test("binds(of:) collects a compound's values in the renderer's order")
    func bindsInOrder() throws {
        let first = Select(
            table: "entry", selection: .columns(["id"]), filter: .compare(.equal, .column("id"), .value(.integer(1))))
        var second = first
        second.filter = .compare(.equal, .column("id"), .value(.integer(2)))
        var outer = Select(
            table: "entry", selection: .columns(["id"]),
            filter: .compare(.greater, .column("id"), .value(.integer(3))), limit: 4, offset: 5)
        outer.compound = Compound(first, [SetOperation(.union, second)])
        for dialect in [SQLiteDialect(), PostgresDialect()] as [any Dialect] {
            let rendered = try SQLRenderer.render(.select(outer), dialect: dialect)
            #expect(rendered.binds == SQLRenderer.binds(of: .select(outer), dialect: dialect))
            #expect(rendered.binds == [1, 2, 3, 4, 5].map { DatabaseValue.integer($0) })
        }
    }

    @Test("different columns, an ordered or limited branch and a join on the combined rows are refused by name")
    func refusals() throws {
        let a = Select(table: "entry", selection: .columns(["id", "title"]))
        var b = Select(table: "entry", selection: .columns(["id", "rank"]))
        var outer = Select(table: "entry", selection: .columns(["id"]))
        outer.compound = Compound(a, [SetOperation(.intersect, b)])
        func message(_ s: Select) -> String? {
            do throws(StrataError) {
                try StatementCheck.check(.select(s))
                return nil
            } catch {
                guard case .invalidQuery(let m) = error else { return "\(error)" }
                return m
            }
        }
        #expect(message(outer)?.hasPrefix("branch 2 of the INTERSECT on entry selects (id, rank)") == true)
        b.selection = .columns(["id", "title"])
        b.limit = 1
        outer.compound = Compound(a, [SetOperation(.except, b)])
        #expect(message(outer)?.hasPrefix("branch 2 of the EXCEPT on entry has an ORDER BY, LIMIT or OFFSET") == true)
        b.limit = nil
        outer.compound = Compound(a, [SetOperation(.except, b)])
        #expect(message(outer) == nil)
        outer.joins = [Join(.inner, table: "entry", alias: "e2", on: .constant(true))]
        #expect(message(outer)?.contains("take no joins") == true)
    }
}

@Suite("Differential generator: set operations")
struct SetOperationGeneratorTests {
    @Test("a share of generated reads run over a set operation, every operator drawn, each branch of all columns")
    func share() {
        var compounds = 0
        var total = 0
        var kinds: Set<SetOperator> = []
        for s in GeneratedReads.sample(seed: 5) {
            total += 1
            guard let c = s.compound else { continue }
            compounds += 1
            kinds.formUnion(c.rest.map(\.kind))
            #expect(s.joins.isEmpty && s.lock == nil && s.groupBy.isEmpty)
            #expect(c.branches.allSatisfy { $0.selection == c.first.selection && $0.table == s.table })
            do {
                try StatementCheck.check(.select(s))
            } catch {
                // A generated dangling LIKE escape is refused; the compound's shape never is.
                #expect(!"\(error)".contains("branch"), "\(error)")
            }
        }
        let share = Double(compounds) / Double(total)
        #expect(share > 0.04 && share < 0.12, "set operations: \(compounds) of \(total)")
        #expect(kinds == Set(SetOperator.allCases))
        print("set operations: \(compounds) of \(total) generated reads")
    }
}
