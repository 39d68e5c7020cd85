// WindowRenderTests: the exact SQL of window functions on SQLite and PostgreSQL, the memory driver's answers, and
// the shapes the core refuses before any driver.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

@Suite("SQL renderer: window functions")
struct WindowRenderTests {
    @Test("RANK over a nullable column descending (NULLs last), ROW_NUMBER partitioned and ordered by the key")
    func rankAndRowNumber() async throws {
        var rows: [(String, Int, Int)] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            rows = try await PageEntry.query(on: db).order(\.id).select(
                .column(\.title), .rank(over: .order(\.rank, .descending)),
                .rowNumber(over: .partition(by: \.rank).order(\.id)))
        }
        // b has no rank (last descending), a rank 2, c rank 1; each rank is its own partition.
        #expect(rows.map(\.0) == ["b", "a", "c"])
        #expect(rows.map(\.1) == [3, 1, 2])
        #expect(rows.map(\.2) == [1, 1, 1])
        #expect(
            sqlite == [
                "SELECT \"title\", RANK() OVER (ORDER BY \"rank\" DESC), ROW_NUMBER() OVER (PARTITION BY \"rank\""
                    + " ORDER BY \"id\" ASC) FROM \"entry\" ORDER BY \"id\" ASC"
            ])
        #expect(
            pg == [
                "SELECT \"title\", RANK() OVER (ORDER BY \"rank\" DESC NULLS LAST), ROW_NUMBER() OVER (PARTITION BY"
                    + " \"rank\" ORDER BY \"id\" ASC) FROM \"entry\" ORDER BY \"id\" ASC"
            ])
    }

    @Test("DENSE_RANK over text sorts by code point on PostgreSQL; a Decodable row reads the item's key")
    func denseRankDecodable() async throws {
        struct Row: Decodable, Equatable {
            let title: String
            let denseRank: Int
        }
        var rows: [Row] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            rows = try await PageEntry.query(on: db).where(\.rank != nil).order(\.title).select(
                as: Row.self, .column(\.title), .denseRank(over: .order(\.title, .descending)))
        }
        #expect(rows == [Row(title: "a", denseRank: 2), Row(title: "c", denseRank: 1)])
        #expect(
            sqlite == [
                "SELECT \"title\", DENSE_RANK() OVER (ORDER BY \"title\" DESC) FROM \"entry\" WHERE (\"rank\" IS NOT"
                    + " NULL) ORDER BY \"title\" ASC"
            ])
        #expect(
            pg == [
                "SELECT \"title\", DENSE_RANK() OVER (ORDER BY \"title\" COLLATE \"C\" DESC) FROM \"entry\" WHERE"
                    + " (\"rank\" IS NOT NULL) ORDER BY \"title\" COLLATE \"C\" ASC"
            ])
    }

    @Test("LAG of a nullable column, LEAD by 2 with a default bound as a parameter; the offset written as digits")
    func lagLead() async throws {
        var rows: [(Int64?, String?)] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            rows = try await PageEntry.query(on: db).order(\.id).select(
                .lag(\.rank, over: .order(\.id)), .lead(\.title, offset: 2, default: "-", over: .order(\.id)))
        }
        #expect(rows.map(\.0) == [nil, nil, 2])
        #expect(rows.map(\.1) == ["c", "-", "-"])
        let expected = { (p: String) in
            [
                "SELECT LAG(\"rank\", 1) OVER (ORDER BY \"id\" ASC), LEAD(\"title\", 2, \(p)) OVER (ORDER BY"
                    + " \"id\" ASC) FROM \"entry\" ORDER BY \"id\" ASC"
            ]
        }
        #expect(sqlite == expected("?"))
        #expect(pg == expected("$1"))
        let s = Select(
            table: "entry",
            selection: .items([.window(WindowFunction(.lead, ColumnRef("title"), offset: 2, default: .text("-")))]))
        #expect(try SQLRenderer.render(.select(s), dialect: PostgresDialect()).binds == [.text("-")])
        #expect(SQLRenderer.binds(of: .select(s)) == [.text("-")])
    }

    @Test("top(n, over:) numbers the rows in a WITH query with a column list and keeps those numbered n or less")
    func top() async throws {
        var titles: [String] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            titles = try await PageEntry.query(on: db).top(2, over: .order(\.rank, .descending)).order(\.id).all()
                .map(\.title)
        }
        #expect(titles == ["a", "c"])
        let expected = { (nulls: String, p: String) in
            [
                "WITH \"strata_top\" (\"id\", \"title\", \"rank\", \"strata_rank\") AS (SELECT \"id\", \"title\","
                    + " \"rank\", ROW_NUMBER() OVER (ORDER BY \"rank\" DESC\(nulls)) FROM \"entry\") SELECT \"id\","
                    + " \"title\", \"rank\" FROM \"strata_top\" AS \"entry\" WHERE (\"strata_rank\" <= \(p)) ORDER BY"
                    + " \"id\" ASC"
            ]
        }
        #expect(sqlite == expected("", "?"))
        #expect(pg == expected(" NULLS LAST", "$1"))
    }

    @Test("peers rank alike: RANK leaves gaps, DENSE_RANK none; a window without a partition or order")
    func peersAndBareWindow() throws {
        let order = [Ordering("score", .descending)]
        let s = Select(
            table: "t",
            selection: .items([
                .window(WindowFunction(.rank, order: order)), .window(WindowFunction(.denseRank, order: order)),
                .window(WindowFunction(.rowNumber)),
            ]))
        #expect(
            try SQLRenderer.render(.select(s), dialect: SQLiteDialect()).sql
                == "SELECT RANK() OVER (ORDER BY \"score\" DESC), DENSE_RANK() OVER (ORDER BY \"score\" DESC),"
                + " ROW_NUMBER() OVER () FROM \"t\"")
        #expect(
            try SQLRenderer.render(.select(s), dialect: PostgresDialect()).sql
                == "SELECT RANK() OVER (ORDER BY \"score\" DESC NULLS LAST), DENSE_RANK() OVER (ORDER BY \"score\""
                + " DESC NULLS LAST), ROW_NUMBER() OVER () FROM \"t\"")
    }

    @Test("a joined table's columns in a window are qualified")
    func joined() throws {
        let w = WindowFunction(.rowNumber, partition: [ColumnRef("user_id", table: "u")], order: [Ordering("id")])
        let s = Select(
            table: "post", selection: .items([.column(ColumnRef("id")), .window(w)]),
            joins: [Join(.inner, table: "user", alias: "u", on: .constant(true))])
        try StatementCheck.check(.select(s))
        let sql = try SQLRenderer.render(.select(s), dialect: SQLiteDialect()).sql
        #expect(
            sql
                == "SELECT \"post\".\"id\", ROW_NUMBER() OVER (PARTITION BY \"u\".\"user_id\" ORDER BY \"post\".\"id\""
                + " ASC) FROM \"post\" INNER JOIN \"user\" AS \"u\" ON TRUE")
    }

    static func message(_ s: Select) -> String? {
        do throws(StrataError) {
            try StatementCheck.check(.select(s))
            return nil
        } catch {
            guard case .invalidQuery(let m) = error else { return "\(error)" }
            return m
        }
    }

    @Test("a window in a grouped select or HAVING, ordered by an aggregate or expression, or locked, is refused")
    func refusals() {
        let w = WindowFunction(.rank, partition: [ColumnRef("user_id")], order: [Ordering("views", .descending)])
        var grouped = Select(table: "post", selection: .items([.column(ColumnRef("user_id")), .window(w)]))
        grouped.groupBy = [ColumnRef("user_id")]
        #expect(
            Self.message(grouped)
                == "rank() over (partition by user_id order by views desc) in a grouped or aggregate select: a window"
                + " cannot nest an aggregate nor filter groups; read the groups through a WITH query")
        let overAll = Select(table: "post", selection: .items([.aggregate(.countAll), .window(w)]))
        #expect(Self.message(overAll)?.hasPrefix("rank() over (partition by user_id order by views desc) in a") == true)
        var having = Select(table: "post", selection: .items([.column(ColumnRef("user_id"))]))
        having.groupBy = [ColumnRef("user_id")]
        having.having = HavingCondition(.compare(.less, .window(w), .integer(3)))
        #expect(Self.message(having)?.contains("in a grouped or aggregate select") == true)
        let nested = WindowFunction(.rowNumber, order: [Ordering(Aggregate(.sum, ColumnRef("views")))])
        #expect(
            Self.message(Select(table: "post", selection: .items([.window(nested)])))
                == "row_number() over (order by sum(views)) on post is ordered by sum(views): a window cannot nest an"
                + " aggregate")
        let computed = WindowFunction(.rowNumber, order: [Ordering(expression: .column("views"))])
        #expect(
            Self.message(Select(table: "post", selection: .items([.window(computed)])))
                == "row_number() over (order by ) on post is ordered by an expression: order it by columns")
        var locked = Select(table: "post", selection: .items([.window(w)]))
        locked.lock = RowLock(.update)
        #expect(Self.message(locked)?.contains("cannot apply to rank() over") == true)
        let negative = WindowFunction(.lag, ColumnRef("views"), offset: -1, order: [Ordering("id")])
        #expect(
            Self.message(Select(table: "post", selection: .items([.window(negative)])))
                == "the offset of lag(views, -1) over (order by id) on post is -1; it must be 0 or more")
        var bare = WindowFunction(.lead)
        #expect(
            Self.message(Select(table: "post", selection: .items([.window(bare)])))
                == "lead() over () on post needs a column")
        bare = WindowFunction(.rank)
        bare.argument = ColumnRef("views")
        #expect(
            Self.message(Select(table: "post", selection: .items([.window(bare)])))
                == "rank(views, 1) over () on post takes no column")
        let outOfScope = WindowFunction(.rank, partition: [ColumnRef("user_id", table: "nope")])
        #expect(Self.message(Select(table: "post", selection: .items([.window(outOfScope)]))) != nil)
    }

    @Test("a key path that names no column fails the query with unknownColumn; ordering by a window is refused")
    func builderErrors() async throws {
        let db = Database(driver: MemoryDriver())
        try await db.migrate(PageEntry.self)
        await #expect(throws: StrataError.self) {
            _ = try await PageEntry.query(on: db).select(.rank(over: .order(\.title.count)))
        }
        do {
            _ = try await PageEntry.query(on: db).order(.rank(over: .order(\.rank)), .ascending).select(.column(\.id))
            Issue.record("ordering by a window ran")
        } catch let StrataError.invalidQuery(m) {
            #expect(m == "ORDER BY rank() over (order by rank) of PageEntry: read the window through a WITH query")
        }
    }
}

@Suite("Differential generator: window functions")
struct WindowGeneratorTests {
    @Test("a share of generated reads select a window, every function drawn, a row number ordered by the key last")
    func share() {
        var windowed = 0
        var total = 0
        var functions: Set<WindowFunction.Function> = []
        var filtered = 0
        for s in GeneratedReads.sample(seed: 7) {
            total += 1
            guard let w = s.generatedWindow else { continue }
            windowed += 1
            if s.commonTable?.windowColumn != nil { filtered += 1 }
            functions.insert(w.function)
            #expect(s.joins.isEmpty && s.lock == nil && s.groupBy.isEmpty && s.compound == nil)
            if [.rowNumber, .lag, .lead].contains(w.function) { #expect(w.order.last?.column == "id") }
            do {
                try StatementCheck.check(.select(s))
            } catch {
                // A generated dangling LIKE escape is refused; the window's shape never is.
                #expect(!"\(error)".contains("over ("), "\(error)")
            }
        }
        let share = Double(windowed) / Double(total)
        #expect(share > 0.03 && share < 0.12, "windows: \(windowed) of \(total)")
        #expect(functions == Set(WindowFunction.Function.allCases))
        #expect(filtered > 0 && filtered < windowed, "filtered through a WITH query: \(filtered) of \(windowed)")
        print("window functions: \(windowed) of \(total) generated reads, \(filtered) filtered through a WITH query")
    }
}
