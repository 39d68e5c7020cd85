// WalkStepTests: recursive walks whose step is planned once (an index on the column each level looks up) return the
// rows, depths and order of walks whose step runs as a statement at every level.
import Strata
import StrataMemory
import Testing

/// A node of a graph whose `parent` column is indexed: each level of a walk looks its rows up there (``WalkStep``).
@Model(table: "walk_node")
private struct IndexedNode {
    var id: Int64?
    var parent: Int64?
    var tag: Int64
    static var indexes: [Index] { [.on(\IndexedNode.parent)] }
}

/// The same table without the index: each level runs the step as a statement.
@Model(table: "walk_node")
private struct PlainNode {
    var id: Int64?
    var parent: Int64?
    var tag: Int64
}

@Suite("Planned walk steps")
struct WalkStepTests {
    @Test(
        "planned walks answer what walks run as statements: rows, depths and order",
        arguments: [UInt64(8), 1_234, 90_001])
    func plannedMatchesStatements(seed: UInt64) async throws {
        var mix = Mix(state: seed)
        let indexed = try Database.open("memory:", drivers: [.memory])
        let plain = try Database.open("memory:", drivers: [.memory])
        try await indexed.migrate(IndexedNode.self)
        try await plain.migrate(PlainNode.self)
        // Parents among the nodes (cycles and self-references included), missing ones and NULLs.
        for _ in 0..<80 {
            let parent: Int64? = mix.int(0...5) == 0 ? nil : Int64(mix.int(1...90))
            let tag = Int64(mix.int(0...9))
            var a = IndexedNode(parent: parent, tag: tag)
            try await a.save(on: indexed)
            var b = PlainNode(parent: parent, tag: tag)
            try await b.save(on: plain)
        }
        var walks = 0
        for round in 0..<120 {
            if round % 10 == 9 {
                // Change the graph between walks: a parent moved, a node deleted.
                let id = Int64(mix.int(1...80))
                let parent: Int64? = Int64(mix.int(1...80))
                if mix.int(0...1) == 0 {
                    _ = try await IndexedNode.query(on: indexed).where(\.id == id).set(\.parent, to: parent).update()
                    _ = try await PlainNode.query(on: plain).where(\.id == id).set(\.parent, to: parent).update()
                } else {
                    _ = try await IndexedNode.query(on: indexed).where(\.id == id).delete()
                    _ = try await PlainNode.query(on: plain).where(\.id == id).delete()
                }
            }
            let start = Int64(mix.int(1...80))
            let maxDepth = mix.int(0...7)
            let distinct = mix.int(0...2) == 0
            let least = Int64(mix.int(0...4))
            let a = try await IndexedNode.query(on: indexed).walk(
                from: IndexedNode.query(on: indexed).where(\.id == start || \.tag == least), joining: \.parent,
                toFound: \.id, maxDepth: maxDepth, distinct: distinct
            ).allWithDepth()
            let b = try await PlainNode.query(on: plain).walk(
                from: PlainNode.query(on: plain).where(\.id == start || \.tag == least), joining: \.parent,
                toFound: \.id, maxDepth: maxDepth, distinct: distinct
            ).allWithDepth()
            let rowsA = a.map { [$0.model.id, $0.model.parent, $0.model.tag, Int64($0.depth)] }
            let rowsB = b.map { [$0.model.id, $0.model.parent, $0.model.tag, Int64($0.depth)] }
            #expect(rowsA == rowsB, "walk from \(start) or tag \(least), depth \(maxDepth), distinct \(distinct)")
            if rowsA.contains(where: { $0[3] ?? 0 > 0 }) { walks += 1 }
        }
        // Most walks went past their base case, through the planned step.
        #expect(walks > 60)
    }
}
