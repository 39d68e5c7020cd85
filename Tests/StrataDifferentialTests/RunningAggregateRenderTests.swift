// RunningAggregateRenderTests: the exact SQL of running aggregates (`SUM(c) OVER (… ROWS BETWEEN …)`) on SQLite and
// PostgreSQL, the memory driver's answers, the shapes the core refuses, and the generator's share of them.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Testing

@testable import StrataDifferential

@Suite("SQL renderer: running aggregates")
struct RunningAggregateRenderTests {
    @Test("a running integer sum is checked, an average divides the exact sum, COUNT(*); the frame is written out")
    func sumAvgCount() async throws {
        var rows: [(Int64?, Double?, Int)] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            rows = try await PageEntry.query(on: db).order(\.id).select(
                .sum(\.rank, over: .order(\.id)), .avg(\.rank, over: .all), .count(over: .partition(by: \.rank)))
        }
        // Ranks by id: nil, 2, 1; each rank its own partition.
        #expect(rows.map(\.0) == [nil, 2, 3])
        #expect(rows.map(\.1) == [1.5, 1.5, 1.5])
        #expect(rows.map(\.2) == [1, 1, 1])
        let running = "ORDER BY \"id\" ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        let whole = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"
        #expect(
            sqlite == [
                "SELECT strata_int_value(strata_int_sum(\"rank\") OVER (\(running)), strata_int_avg(\"rank\") OVER"
                    + " (\(whole), COUNT(*) OVER (PARTITION BY \"rank\" \(whole) FROM \"entry\" ORDER BY \"id\" ASC"
            ])
        #expect(
            pg == [
                "SELECT CAST(SUM(\"rank\") OVER (\(running) AS BIGINT), CAST(SUM(\"rank\") OVER (\(whole) AS DOUBLE"
                    + " PRECISION) / COUNT(\"rank\") OVER (\(whole), COUNT(*) OVER (PARTITION BY \"rank\" \(whole)"
                    + " FROM \"entry\" ORDER BY \"id\" ASC"
            ])
    }

    @Test("running MIN and MAX of text, and COUNT of a column, with a partition and a descending order")
    func minMaxCount() async throws {
        var rows: [(String?, String?, Int)] = []
        let (sqlite, pg) = try await PageRenderTests.rendered { db in
            let w = WindowDefinition<PageEntry>.partition(by: \.rank).order(\.title, .descending).order(\.id)
            rows = try await PageEntry.query(on: db).order(\.id).select(
                .min(\.title, over: .order(\.id)), .max(\.title, over: w), .count(\.rank, over: .order(\.id)))
        }
        #expect(rows.map(\.0) == ["b", "a", "a"])
        #expect(rows.map(\.1) == ["b", "a", "c"])
        #expect(rows.map(\.2) == [0, 1, 2])
        let frame = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        #expect(
            sqlite == [
                "SELECT MIN(\"title\") OVER (ORDER BY \"id\" ASC \(frame), MAX(\"title\") OVER (PARTITION BY \"rank\""
                    + " ORDER BY \"title\" DESC, \"id\" ASC \(frame), COUNT(\"rank\") OVER (ORDER BY \"id\" ASC"
                    + " \(frame) FROM \"entry\" ORDER BY \"id\" ASC"
            ])
        #expect(
            pg == [
                "SELECT MIN(\"title\") OVER (ORDER BY \"id\" ASC \(frame), MAX(\"title\") OVER (PARTITION BY \"rank\""
                    + " ORDER BY \"title\" COLLATE \"C\" DESC, \"id\" ASC \(frame), COUNT(\"rank\") OVER (ORDER BY"
                    + " \"id\" ASC \(frame) FROM \"entry\" ORDER BY \"id\" ASC"
            ])
    }

    @Test("a running sum without a column, of text, in a grouped select or locked is refused before any driver")
    func refusals() throws {
        let order = [Ordering("id")]
        let noColumn = Select(
            table: "entry",
            selection: .items([.window(WindowFunction(.sum, nil, type: nil, order: order))]))
        #expect(throws: StrataError.invalidQuery("sum(*) over (order by id) on entry needs a column")) {
            try StatementCheck.check(.select(noColumn))
        }
        let text = Select(
            table: "entry",
            selection: .items([.window(WindowFunction(.avg, ColumnRef("title"), type: .text, order: order))]))
        #expect(
            throws: StrataError.invalidQuery(
                "avg(title) over (order by id) on entry: avg needs a numeric column, not text")
        ) {
            try StatementCheck.check(.select(text))
        }
        var grouped = Select(
            table: "entry",
            selection: .items([
                .column(ColumnRef("rank")),
                .window(WindowFunction(.count, nil, type: nil, order: order)),
            ]))
        grouped.groupBy = [ColumnRef("rank")]
        #expect(throws: StrataError.self) { try StatementCheck.check(.select(grouped)) }
        // COUNT(*) needs no column.
        let count = Select(
            table: "entry", selection: .items([.window(WindowFunction(.count, nil, type: nil, order: order))]))
        try StatementCheck.check(.select(count))
        #expect(
            try SQLRenderer.render(.select(count), dialect: SQLiteDialect()).sql
                == "SELECT COUNT(*) OVER (ORDER BY \"id\" ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
                + " FROM \"entry\"")
    }
}

@Suite("Differential generator: running aggregates")
struct RunningAggregateGeneratorTests {
    @Test("a share of generated windows are running aggregates over a column they take, ordered by the key last")
    func share() {
        var windowed = 0
        var running = 0
        var wholePartition = 0
        var functions: Set<WindowFunction.Function> = []
        for s in GeneratedReads.sample(seed: 11) {
            guard let w = s.generatedWindow else { continue }
            windowed += 1
            guard let a = w.aggregate else { continue }
            running += 1
            functions.insert(w.function)
            #expect(a.typeProblem == nil, "\(w.summary)")
            #expect(s.limit == nil && s.offset == nil && s.commonTable == nil)
            if w.order.isEmpty {
                wholePartition += 1
                #expect(w.argumentType != .double || ![.sum, .avg].contains(w.function), "\(w.summary)")
            } else {
                #expect(w.order.last?.column == "id")
            }
        }
        #expect(running > windowed / 5 && running < windowed * 3 / 4, "running: \(running) of \(windowed)")
        #expect(functions == [.sum, .avg, .count, .min, .max])
        #expect(wholePartition > 0 && wholePartition < running)
        print("running aggregates: \(running) of \(windowed) generated windows, \(wholePartition) whole-partition")
    }
}
