// AggregateFindingsTests: divergences the fuzzer found in generated aggregate queries, pinned on every backend.
import Foundation
import Strata
import Testing

@testable import StrataDifferential

@Suite("Differential findings: aggregates")
struct AggregateFindingsTests {
    /// Seed 20261123, batch 21, query 28: SQLite compared `MIN(decimal)` with a bound decimal as text
    /// ("3832231599768.492" > "12345678901234568"), so the group was dropped; memory compared numbers.
    @Test("HAVING and ORDER BY on a decimal MIN, MAX or SUM compare numbers on every backend")
    func decimalAggregateComparesNumbers() async throws {
        let t = TableSchema(
            name: "fz_aggdec",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                TableColumn(name: "g", type: .integer, isNullable: false),
                TableColumn(name: "d", type: .decimal, isNullable: false),
            ])
        let min = Aggregate(.min, ColumnRef("d"), type: .decimal)
        let sum = Aggregate(.sum, ColumnRef("d"), type: .decimal)
        var having = Select(table: "fz_aggdec", selection: .items([.column(ColumnRef("g")), .aggregate(min)]))
        having.groupBy = [ColumnRef("g")]
        having.having = HavingCondition(.compare(.lessOrEqual, .aggregate(min), .decimal(12_345_678_901_234_568)))
        var ordered = Select(
            table: "fz_aggdec", selection: .items([.column(ColumnRef("g")), .aggregate(sum)]),
            order: [Ordering(sum, .ascending)])
        ordered.groupBy = [ColumnRef("g")]
        for url in try await FuzzBackends.urls(schema: "strata_fuzz_aggdec") {
            let b = try Backend(url: url, drivers: FuzzBackends.drivers)
            _ = b.run(.dropTable("fz_aggdec"), types: [])
            _ = b.run(.createTable(t), types: [])
            let rows: [[DatabaseValue]] = [
                [.integer(1), .decimal(Decimal(string: "3832231599768.492")!)],
                [.integer(2), .decimal(Decimal(string: "9.5")!)], [.integer(2), .decimal(Decimal(string: "10")!)],
            ]
            _ = b.run(.insert(Insert(table: "fz_aggdec", columns: ["g", "d"], rows: rows)), types: [])
            let kept = b.run(.select(having), types: [.integer, .decimal])
            guard case .rows(let groups, _) = kept else {
                Issue.record("HAVING failed on \(b.name): \(kept)")
                continue
            }
            #expect(
                Set(groups) == [[.integer(1), .decimal("3832231599768.492")], [.integer(2), .decimal("9.5")]],
                "HAVING MIN(d) <= 12345678901234568 keeps both groups on \(b.name)")
            #expect(
                b.run(.select(ordered), types: [.integer, .decimal])
                    == .rows(
                        [[.integer(2), .decimal("19.5")], [.integer(1), .decimal("3832231599768.492")]], changes: 0),
                "ORDER BY SUM(d): 19.5 before 3832231599768.492 on \(b.name)")
            _ = b.run(.dropTable("fz_aggdec"), types: [])
        }
    }
}
