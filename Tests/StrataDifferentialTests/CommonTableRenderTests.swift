// CommonTableRenderTests: the exact SQL of a WITH query on SQLite and PostgreSQL, its binds in order, the memory
// driver's answers, and the shapes the core refuses.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

@Suite("SQL renderer: common table expressions")
struct CommonTableRenderTests {
    static let columns = "SELECT \"id\", \"title\", \"rank\""
    static let named = columns + " FROM \"entry\""

    @Test("WITH names a filtered query; the outer SELECT reads it under the table's name, ordered and limited")
    func withOrderedLimited() async throws {
        var titles: [String] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            titles = try await PageEntry.query(on: db).with("ranked", PageEntry.query(on: db).where(\.rank > 0))
                .where(\.title != "x").order(\.title, .descending).limit(5).all().map(\.title)
        }
        #expect(titles == ["c", "a"])
        #expect(
            sqlite == [
                "WITH \"ranked\" AS (" + Self.named + " WHERE (\"rank\" > ?)) " + Self.columns
                    + " FROM \"ranked\" AS \"entry\" WHERE (\"title\" <> ?) ORDER BY \"title\" DESC LIMIT ?"
            ])
        #expect(
            pg == [
                "WITH \"ranked\" AS (" + Self.named + " WHERE (\"rank\" > $1)) " + Self.columns
                    + " FROM \"ranked\" AS \"entry\" WHERE (\"title\" <> $2) ORDER BY \"title\" COLLATE \"C\" DESC"
                    + " LIMIT $3"
            ])
    }

    @Test("a WITH query counted, and one inside an IN subquery, which carries its WITH clause")
    func countAndSubquery() async throws {
        var counted = 0
        var titles: [String] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            let q = PageEntry.query(on: db)
            counted = try await q.with("low", q.where(\.rank < 2)).count()
            titles = try await q.where(\.id, in: q.with("low", q.where(\.rank < 2)).select(\.id)).all().map(\.title)
        }
        #expect(counted == 1)
        #expect(titles == ["c"])
        let expected = { (p: String) in
            [
                "WITH \"low\" AS (" + Self.named
                    + " WHERE (\"rank\" < \(p))) SELECT COUNT(*) FROM \"low\" AS \"entry\"",
                Self.named + " WHERE (\"id\" IN (WITH \"low\" AS (" + Self.named + " WHERE (\"rank\" < \(p))) SELECT"
                    + " \"id\" FROM \"low\" AS \"entry\"))",
            ]
        }
        #expect(sqlite == expected("?"))
        #expect(pg == expected("$1"))
    }

    @Test("binds(of:) collects the WITH query's values first, as the renderer places them")
    func bindsInOrder() throws {
        let named = Select(
            table: "entry", selection: .columns(["id"]), filter: .compare(.equal, .column("id"), .value(.integer(1))))
        var outer = Select(
            table: "entry", selection: .columns(["id"]),
            filter: .compare(.greater, .column("id"), .value(.integer(2))), limit: 3, offset: 4)
        outer.commonTable = CommonTable("n", named)
        for dialect in [SQLiteDialect(), PostgresDialect()] as [any Dialect] {
            let rendered = try SQLRenderer.render(.select(outer), dialect: dialect)
            #expect(rendered.binds == SQLRenderer.binds(of: .select(outer), dialect: dialect))
            #expect(rendered.binds == [1, 2, 3, 4].map { DatabaseValue.integer($0) })
        }
    }

    @Test("a name that is a table read, a column the WITH query lacks, a join and a lock are refused by name")
    func refusals() throws {
        let named = Select(table: "entry", selection: .columns(["id", "title"]))
        var outer = Select(table: "entry", selection: .columns(["id", "rank"]))
        func message(_ s: Select) -> String? {
            do throws(StrataError) {
                try StatementCheck.check(.select(s))
                return nil
            } catch {
                guard case .invalidQuery(let m) = error else { return "\(error)" }
                return m
            }
        }
        outer.commonTable = CommonTable("entry", named)
        #expect(
            message(outer) == "the WITH query entry of entry is named as a table it or its query reads; name it apart")
        outer.commonTable = CommonTable("n", named)
        #expect(
            message(outer)
                == "the WITH query n of entry selects (id, title), not rank: read only the columns it selects")
        outer.selection = .columns(["title"])
        #expect(message(outer) == nil)
        outer.joins = [Join(.inner, table: "entry", alias: "e2", on: .constant(true))]
        #expect(message(outer) == "the rows of the WITH query n of entry take no joins")
        outer.joins = []
        var locked = named
        locked.lock = RowLock(.update)
        outer.commonTable = CommonTable("n", locked)
        #expect(message(outer)?.hasPrefix("the WITH query n of entry takes a row lock") == true)
    }
}

@Suite("SQL renderer: recursive common table expressions")
struct RecursiveCommonTableRenderTests {
    static let columns = Select.Selection.columns(["id", "parent_id"])
    static let step = Select(
        table: "node", selection: columns,
        joins: [
            Join(.inner, table: "w", alias: "w", on: .compare(.equal, .column("parent_id"), .column("id", table: "w")))
        ])
    static let base = Select(
        table: "node", selection: columns, filter: .compare(.equal, .column("id"), .value(.integer(1))))

    static func walk(_ recursion: Recursion, base: Select = base, step: Select = step) -> Select {
        var outer = Select(table: "node", selection: .columns(["id"]), order: [Ordering("strata_depth")])
        outer.commonTable = CommonTable("w", base: base, step: step, recursion: recursion)
        return outer
    }

    @Test("WITH RECURSIVE: its columns, the base at depth 0, UNION ALL, the step joined to the walk and bounded")
    func walkSQL() throws {
        let outer = Self.walk(Recursion(maxDepth: 5))
        let expected = { (p: [String], distinct: Bool) in
            "WITH RECURSIVE \"w\" (\"id\", \"parent_id\", \"strata_depth\") AS (SELECT \"id\", \"parent_id\", 0 FROM"
                + " \"node\" WHERE (\"id\" = \(p[0])) UNION\(distinct ? "" : " ALL") SELECT \"node\".\"id\","
                + " \"node\".\"parent_id\", \"w\".\"strata_depth\" + 1 FROM \"node\" INNER JOIN \"w\" AS \"w\" ON"
                + " (\"node\".\"parent_id\" = \"w\".\"id\") WHERE (\"w\".\"strata_depth\" < \(p[1])))"
                + " SELECT \"id\" FROM \"w\" AS \"node\" ORDER BY \"strata_depth\" ASC"
        }
        let sqlite = try SQLRenderer.render(.select(outer), dialect: SQLiteDialect())
        let pg = try SQLRenderer.render(.select(outer), dialect: PostgresDialect())
        #expect(sqlite.sql == expected(["?", "?"], false))
        // No nullability is known for a bare Ordering: PostgreSQL spells the NULLs rule out.
        #expect(pg.sql == expected(["$1", "$2"], false) + " NULLS FIRST")
        #expect(sqlite.binds == [.integer(1), .integer(5)])
        #expect(SQLRenderer.binds(of: .select(outer), dialect: SQLiteDialect()) == sqlite.binds)
        let distinct = Self.walk(Recursion(maxDepth: 5, distinct: true))
        #expect(try SQLRenderer.render(.select(distinct), dialect: SQLiteDialect()).sql == expected(["?", "?"], true))
    }

    @Test("no base case, a step that does not read the walk, a negative bound and other columns: refused by name")
    func refusals() {
        func message(_ s: Select) -> String? {
            do throws(StrataError) {
                try StatementCheck.check(.select(s))
                return nil
            } catch {
                guard case .invalidQuery(let m) = error else { return "\(error)" }
                return m
            }
        }
        #expect(message(Self.walk(Recursion(maxDepth: 0))) == nil)
        #expect(
            message(Self.walk(Recursion(maxDepth: -1)))
                == "the depth bound of the recursive WITH query w of node is -1; it must be 0 or more")
        #expect(
            message(Self.walk(Recursion(maxDepth: 3), base: Self.step))
                == "the recursive WITH query w of node has no base case: its base reads w itself")
        #expect(
            message(Self.walk(Recursion(maxDepth: 3), step: Self.base))
                == "the recursive step of the recursive WITH query w of node does not join w once: it must read the"
                + " rows found last")
        var other = Self.step
        other.selection = .columns(["id"])
        #expect(
            message(Self.walk(Recursion(maxDepth: 3), step: other))
                == "the recursive step of the recursive WITH query w of node selects other columns than its base case")
        #expect(
            message(Self.walk(Recursion(depthColumn: "parent_id", maxDepth: 3)))
                == "the base case of the recursive WITH query w of node selects its depth column parent_id; name it"
                + " apart")
    }

    @Test("binds(of:) of a walk are the rendering's: a filtered step, the depth bound last, a paged step as built")
    func walkBinds() throws {
        var filtered = Self.step
        filtered.filter = .and([
            .isNull(.column("deleted_at"), negated: false), .compare(.less, .column("id"), .value(.integer(40))),
        ])
        var paged = filtered
        paged.order = [Ordering(expression: .arithmetic(.add, .column("id"), .value(.integer(7))), .ascending)]
        paged.limit = 9
        var outer = Self.walk(Recursion(maxDepth: 6, distinct: true), step: filtered)
        outer.filter = .compare(.greater, .column("strata_depth"), .value(.integer(2)))
        let dialects: [any Dialect] = [SQLiteDialect(), PostgresDialect()]
        for dialect in dialects {
            let rendered = try SQLRenderer.render(.select(outer), dialect: dialect)
            #expect(rendered.binds == [1, 40, 6, 2].map { DatabaseValue.integer($0) })
            #expect(SQLRenderer.binds(of: .select(outer), dialect: dialect) == rendered.binds)
            // A step the check refuses (ordered, limited) still collects as the renderer places its values.
            let odd = Self.walk(Recursion(maxDepth: 4), step: paged)
            let oddRendered = try SQLRenderer.render(.select(odd), dialect: dialect)
            #expect(Array(oddRendered.binds.prefix(3)) == [1, 40, 4].map { DatabaseValue.integer($0) })
            #expect(oddRendered.binds.last == .integer(9))
            #expect(SQLRenderer.binds(of: .select(odd), dialect: dialect) == oddRendered.binds)
        }
    }

    @Test("the outer SELECT reads the walk's columns and its depth; an ordered base or step is refused by part")
    func outerColumnsAndPlainParts() {
        func message(_ s: Select) -> String? {
            do throws(StrataError) {
                try StatementCheck.check(.select(s))
                return nil
            } catch {
                guard case .invalidQuery(let m) = error else { return "\(error)" }
                return m
            }
        }
        var outer = Self.walk(Recursion(maxDepth: 3))
        outer.selection = .columns(["strata_depth", "parent_id", "id"])
        #expect(message(outer) == nil)
        outer.selection = .columns(["id", "title"])
        #expect(
            message(outer)
                == "the recursive WITH query w of node selects (id, parent_id, strata_depth), not title: read only the"
                + " columns it selects")
        var ordered = Self.base
        ordered.order = [Ordering("id")]
        #expect(
            message(Self.walk(Recursion(maxDepth: 3), base: ordered))
                == "the base case of the recursive WITH query w of node is ordered, paged, grouped, distinct, a WITH"
                + " query or (the step) a set operation")
        var paged = Self.step
        paged.limit = 2
        #expect(
            message(Self.walk(Recursion(maxDepth: 3), step: paged))
                == "the recursive step of the recursive WITH query w of node is ordered, paged, grouped, distinct, a"
                + " WITH query or (the step) a set operation")
    }
}

@Suite("Differential generator: common table expressions")
struct CommonTableGeneratorTests {
    @Test("a share of generated reads run over a named query of all columns, some of them a set operation")
    func share() {
        var named = 0
        var overSets = 0
        var walks = 0
        var total = 0
        for s in GeneratedReads.sample(seed: 5) {
            total += 1
            // A window read through a WITH query (QueryGenerator+Window) is the window generator's share.
            guard let w = s.commonTable, w.windowColumn == nil else { continue }
            named += 1
            if w.select.compound != nil { overSets += 1 }
            if let r = w.recursion {
                walks += 1
                #expect(r.maxDepth >= 0 && r.maxDepth <= 2)
                #expect(w.step?.joins.map(\.table) == [w.name])
            }
            #expect(s.joins.isEmpty && s.lock == nil && s.groupBy.isEmpty && s.compound == nil)
            #expect(w.select.table == s.table && w.name == QueryGenerator.commonTableName)
            do {
                try StatementCheck.check(.select(s))
            } catch {
                // A generated dangling LIKE escape is refused; the WITH query's shape never is.
                #expect(!"\(error)".contains("WITH"), "\(error)")
            }
        }
        let share = Double(named) / Double(total)
        #expect(share > 0.05 && share < 0.16, "WITH queries: \(named) of \(total)")
        #expect(overSets > 0)
        #expect(walks > named / 5 && walks < named * 3 / 5, "walks: \(walks) of \(named)")
        print("WITH queries: \(named) of \(total) generated reads, \(overSets) over a set operation, \(walks) walks")
    }
}
