// EagerLoadingChunkTests: eager loading sends one statement per level, whatever the number of keys.
import Strata
import StrataMemory
import Testing

@Model(table: "chunk_parent")
struct ChunkParent {
    var id: Int64?
    static let children = hasMany(ChunkChild.self)
}

@Model(table: "chunk_child")
struct ChunkChild {
    var id: Int64?
    var chunkParentID: Int64?
}

@Suite("Eager loading chunks")
struct EagerLoadingChunkTests {
    @Test("40,000 parents load their children in 1 + 1 queries: the memory driver binds nothing, so nothing is chunked")
    func chunked() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        try await db.migrate(ChunkParent.self, ChunkChild.self)
        try await db.transaction { tx in
            for n in 0..<40_000 {
                var p = ChunkParent()
                try p.save(tx)
                if n % 1000 == 0 {
                    var c = ChunkChild()
                    try p.add(&c, to: ChunkParent.children, tx)
                }
            }
        }
        let before = db.statementCount
        let parents = try await ChunkParent.query(on: db).including(ChunkParent.children).all()
        #expect(db.statementCount - before == 2)
        let loaded = try parents.reduce(0) { $0 + (try $1.loaded(ChunkParent.children).count) }
        #expect(loaded == 40)
    }
}
