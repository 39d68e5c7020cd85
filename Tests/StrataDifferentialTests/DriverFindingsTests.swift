// DriverFindingsTests: defects the differential engine found below the model layer, pinned on every driver.
import Foundation
import Strata
import Testing

@testable import StrataDifferential

@Suite("Differential findings")
struct DriverFindingsTests {
    @Test("DDL reports no changed rows, even right after an INSERT (SQLite reported the INSERT's count)")
    func ddlChangesNothing() async throws {
        for url in try await FuzzBackends.urls(schema: "strata_fuzz_ddl") {
            let b = try Backend(url: url, drivers: FuzzBackends.drivers)
            let t = TableSchema(
                name: "fz_ddl",
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                    TableColumn(name: "n", type: .integer, isNullable: false),
                ])
            _ = b.run(.dropTable("fz_ddl"), types: [])
            #expect(b.run(.createTable(t), types: []) == .rows([], changes: 0))
            let insert = Insert(table: "fz_ddl", columns: ["n"], rows: [[.integer(1)], [.integer(2)], [.integer(3)]])
            #expect(b.run(.insert(insert), types: []) == .rows([], changes: 3), "on \(b.name)")
            #expect(b.run(.createIndex(table: "fz_ddl", Index(columns: ["n"])), types: []) == .rows([], changes: 0))
            #expect(b.run(.dropTable("fz_ddl"), types: []) == .rows([], changes: 0), "DROP TABLE on \(b.name)")
        }
    }

    @Test("SQLite: a multi-row INSERT returning ids works whatever the fill level of the statement cache")
    func bulkInsertMeetsAFullCache() throws {
        // The INSERT's keys come from max(rowid), read through the 512-statement cache: when that read filled
        // the cache, its eviction finalized the prepared INSERT, which was then stepped (use after free).
        let t = TableSchema(
            name: "fz_bulk",
            columns: [
                TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                TableColumn(name: "n", type: .integer, isNullable: false),
            ])
        for filled in 500..<516 {
            let b = try Backend(url: "sqlite::memory:", drivers: FuzzBackends.drivers)
            _ = b.run(.createTable(t), types: [])
            for k in 0..<filled {
                let distinct = Select(
                    table: "fz_bulk", selection: .count,
                    filter: .inList(.column("n"), Array(repeating: .integer(Int64(k)), count: k + 1)))
                _ = b.run(.select(distinct), types: [.integer])
            }
            let insert = Insert(
                table: "fz_bulk", columns: ["n"], rows: [[.integer(1)], [.integer(2)]], returning: "id")
            #expect(
                b.run(.insert(insert), types: [.integer]) == .rows([[.integer(1)], [.integer(2)]], changes: 2),
                "after \(filled) statements")
        }
    }

    @Test("a column of a table the SELECT does not join is invalidQuery on every driver (SQLite said unknownColumn)")
    func unjoinedAlias() async throws {
        for url in try await FuzzBackends.urls(schema: "strata_fuzz_alias") {
            let b = try Backend(url: url, drivers: FuzzBackends.drivers)
            let t = TableSchema(
                name: "fz_alias",
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                    TableColumn(name: "n", type: .integer, isNullable: true),
                ])
            _ = b.run(.dropTable("fz_alias"), types: [])
            _ = b.run(.createTable(t), types: [])
            let refs = Select(table: "fz_alias", selection: .refs([ColumnRef("n", table: "j")]))
            guard case .failed(let kind, _) = b.run(.select(refs), types: [.integer]) else {
                Issue.record("\(b.name) answered a query naming an alias it does not join")
                continue
            }
            #expect(kind == "invalidQuery", "on \(b.name)")
            var ordered = Select(table: "fz_alias", selection: .columns(["id"]))
            ordered.order = [Ordering("n", table: "j")]
            guard case .failed(let orderKind, _) = b.run(.select(ordered), types: [.integer]) else {
                Issue.record("\(b.name) ordered by an alias it does not join")
                continue
            }
            #expect(orderKind == "invalidQuery", "on \(b.name)")
            let own = Select(table: "fz_alias", selection: .refs([ColumnRef("n", table: "fz_alias")]))
            #expect(
                b.run(.select(own), types: [.integer]) == .rows([], changes: 0), "the main table by name, on \(b.name)")
            _ = b.run(.dropTable("fz_alias"), types: [])
        }
    }

    @Test("-0.0 written through the AST reads back as +0.0 on every driver (SQLite cannot keep the sign)")
    func negativeZero() async throws {
        for url in try await FuzzBackends.urls(schema: "strata_fuzz_zero") {
            let b = try Backend(url: url, drivers: FuzzBackends.drivers)
            let t = TableSchema(
                name: "fz_zero",
                columns: [
                    TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                    TableColumn(name: "d", type: .double, isNullable: false),
                ])
            _ = b.run(.dropTable("fz_zero"), types: [])
            _ = b.run(.createTable(t), types: [])
            _ = b.run(.insert(Insert(table: "fz_zero", columns: ["d"], rows: [[.double(-0.0)]])), types: [])
            let read = b.run(.select(Select(table: "fz_zero", selection: .columns(["d"]))), types: [.double])
            #expect(read == .rows([[.double(0.0.bitPattern)]], changes: 0), "on \(b.name): \(read)")
            _ = b.run(.dropTable("fz_zero"), types: [])
        }
    }
}
