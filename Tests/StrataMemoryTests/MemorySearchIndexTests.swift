// MemorySearchIndexTests: matches answered through the memory driver's inverted index return what a scan returns,
// after inserts, updates, deletes and rolled-back writes.
import Foundation
import Strata
import StrataMemory
import Testing

@Suite("Memory driver: the inverted search index")
struct MemorySearchIndexTests {
    static let schema = TableSchema(
        name: "doc",
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
            TableColumn(name: "body", type: .text, isNullable: true),
        ])

    /// The ids `match` finds through the index (a match alone), and through a scan (the same match inside an OR
    /// with FALSE, which no index serves).
    static func both(_ c: any DatabaseConnection, _ text: String) throws -> (indexed: [Int64], scanned: [Int64]) {
        let q = try SearchQuery(text, model: "Doc")
        func ids(_ filter: SQLExpression) throws -> [Int64] {
            var out: [Int64] = []
            _ = try c.execute(.select(Select(table: "doc", selection: .columns(["id"]), filter: filter))) { r in
                if case .integer(let id) = r.value(at: 0) { out.append(id) }
            }
            return out.sorted()
        }
        let match = SQLExpression(.search(.column("body"), q))
        return (try ids(match), try ids(.or([match, .constant(false)])))
    }

    @Test("the index answers as a scan does, through every kind of write and a rollback")
    func sameAsScan() throws {
        let c = try MemoryDriver().connect()
        _ = try c.execute(.createTable(Self.schema)) { _ in }
        let words = ["swift", "orm", "rust", "migrate", "migration", "sql", "日本", "ω"]
        var documents: [String?] = []
        for k in 0..<60 {
            documents.append(
                k % 11 == 0 ? nil : (0..<3).map { words[(k &* 7 &+ $0 &* 3) % words.count] }.joined(separator: " "))
        }
        for (k, d) in documents.enumerated() {
            _ = try c.execute(
                .insert(
                    Insert(
                        table: "doc", columns: ["id", "body"],
                        rows: [[.integer(Int64(k + 1)), d.map { .text($0) } ?? .null]], explicitKey: "id"))
            ) { _ in }
        }
        let queries = ["swift", "migr*", "rust OR ω", "orm sql", "日本*", "nothing", "swift OR rust migr*"]
        var checked = 0
        func check() throws {
            for text in queries {
                let (indexed, scanned) = try Self.both(c, text)
                #expect(indexed == scanned, "\(text)")
                checked += 1
            }
        }
        try check()  // builds the index
        _ = try c.execute(
            .update(
                Update(
                    table: "doc", assignments: [Assignment("body", .text("swift migrate"))],
                    filter: .compare(.lessOrEqual, .column("id"), .value(.integer(10)))))
        ) { _ in }
        _ = try c.execute(
            .delete(Delete(table: "doc", filter: .compare(.greater, .column("id"), .value(.integer(50)))))
        ) { _ in }
        try check()
        _ = try c.execute(.begin) { _ in }
        _ = try c.execute(
            .insert(
                Insert(
                    table: "doc", columns: ["id", "body"], rows: [[.integer(100), .text("rust orm sql")]],
                    explicitKey: "id"))
        ) { _ in }
        _ = try c.execute(.delete(Delete(table: "doc", filter: .compare(.equal, .column("id"), .value(.integer(2)))))) {
            _ in
        }
        try check()
        _ = try c.execute(.rollback) { _ in }
        try check()
        #expect(checked == 4 * queries.count)
        let (swift, _) = try Self.both(c, "swift")
        #expect(swift.contains(1) && swift.contains(10), "updated rows are found by their new words")
        #expect(try Self.both(c, "rust orm sql").indexed.contains(100) == false, "a rolled-back insert is gone")
    }
}
