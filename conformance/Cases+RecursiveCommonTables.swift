// Cases+RecursiveCommonTables: recursive walks (WITH RECURSIVE) of a tree and of a cycle, the same on every driver.
import Foundation
import Strata

/// A node of a tree: its parent's id, or nil at a root.
@Model(table: "conf_category")
struct ConfCategory: Equatable {
    var id: Int64?
    var parentID: Int64?
    var name: String
}

extension ConformanceSuite {
    /// root → (a → (a1 → a1x, a2), b); other; cyc1 ⇄ cyc2. Returns the id of each name (-1 for none).
    static func seedCategories(_ db: Database) async throws -> @Sendable (String) -> Int64 {
        try await db.withConnection { tx in try tx.dropTable("conf_category") }
        try await db.migrate(ConfCategory.self)
        return try await db.transaction { tx in
            var ids: [String: Int64] = [:]
            for (name, parent) in [
                ("root", nil), ("a", "root"), ("b", "root"), ("a1", "a"), ("a2", "a"), ("a1x", "a1"),
                ("other", nil), ("cyc1", nil), ("cyc2", "cyc1"),
            ] as [(String, String?)] {
                var c = ConfCategory(parentID: parent.flatMap { ids[$0] }, name: name)
                try c.save(tx)
                ids[name] = c.id
            }
            try ConfCategory.query(on: tx).where(\.name == "cyc1").set(\.parentID, to: ids["cyc2"]).update()
            let found = ids
            return { found[$0] ?? -1 }
        }
    }

    static let recursiveCommonTableCases: [ConformanceCase] = [
        ConformanceCase("cte.descendants-with-their-depth") { db in
            let ids = try await seedCategories(db)
            let below = try await ConfCategory.query(on: db).descendants(of: ids("root"), through: \.parentID)
                .orderByDepth().order(\.name).allWithDepth()
            try checkEqual(below.map(\.model.name), ["a", "b", "a1", "a2", "a1x"], "the rows below root, by depth")
            try checkEqual(below.map(\.depth), [1, 1, 2, 2, 3], "children at depth 1, and so on")
            try checkEqual(below.first?.model.parentID, ids("root"), "whole models decode from the walk")
            try checkEqual(
                try await ConfCategory.query(on: db).descendants(of: ids("other"), through: \.parentID).count(), 0,
                "a leaf has none")
        },
        ConformanceCase("cte.ancestors-with-their-depth") { db in
            let ids = try await seedCategories(db)
            let above = try await ConfCategory.query(on: db).ancestors(of: ids("a1x"), through: \.parentID)
                .orderByDepth().allWithDepth()
            try checkEqual(above.map(\.model.name), ["a1", "a", "root"], "parent, its parent, the root")
            try checkEqual(above.map(\.depth), [1, 2, 3], "one level up each")
        },
        ConformanceCase("cte.walk-bounded-filtered-ordered-and-counted") { db in
            let ids = try await seedCategories(db)
            let near = ConfCategory.query(on: db).descendants(of: ids("root"), through: \.parentID, maxDepth: 2)
            try checkEqual(try await near.count(), 4, "two levels below root: a, b, a1, a2")
            try checkEqual(
                try await near.where(\.name != "b").order(\.name, .descending).limit(2).values(\.name), ["a2", "a1"],
                "a where, an order and a limit over the walk's rows")
            try checkEqual(
                try await ConfCategory.query(on: db).descendants(of: ids("root"), through: \.parentID, maxDepth: 0)
                    .count(), 0, "a depth bound of 0 reads the row alone, which is left out")
        },
        ConformanceCase("cte.cycle-ends-at-the-depth-bound") { db in
            let ids = try await seedCategories(db)
            let walk = try await ConfCategory.query(on: db).descendants(
                of: ids("cyc1"), through: \.parentID, maxDepth: 5
            )
            .orderByDepth().allWithDepth()
            try checkEqual(
                walk.map(\.model.name), ["cyc2", "cyc1", "cyc2", "cyc1", "cyc2"],
                "the cycle is walked again each level, down to the bound")
            try checkEqual(walk.map(\.depth), [1, 2, 3, 4, 5], "depths 1 to 5")
        },
        ConformanceCase("cte.walk-distinct-keeps-equal-rows-once") { db in
            let ids = try await seedCategories(db)
            let q = ConfCategory.query(on: db)
            let twice = q.where(\.id == ids("a")).unionAll(q.where(\.id == ids("a")))
            try checkEqual(
                try await q.walk(from: twice, joining: \.parentID, toFound: \.id, maxDepth: 9).count(), 8,
                "UNION ALL: a twice, then a1, a2, a1x each twice")
            try checkEqual(
                try await q.walk(from: twice, joining: \.parentID, toFound: \.id, maxDepth: 9, distinct: true)
                    .orderByDepth().order(\.name).values(\.name), ["a", "a1", "a2", "a1x"],
                "UNION: each row (and depth) once")
        },
        ConformanceCase("cte.recursive-refusals-name-the-part") { db in
            let ids = try await seedCategories(db)
            try await checkThrows(
                "a negative depth bound", { isInvalidQuery($0, naming: "depth bound", "strata_walk", "-1") }
            ) {
                try await ConfCategory.query(on: db).descendants(of: ids("root"), through: \.parentID, maxDepth: -1)
                    .all()
            }
            let columns = Select.Selection.columns(["id", "parent_id", "name"])
            let link = SQLExpression.compare(.equal, .column("parent_id"), .column("id", table: "w"))
            let step = Select(
                table: "conf_category", selection: columns, joins: [Join(.inner, table: "w", alias: "w", on: link)])
            let plain = Select(table: "conf_category", selection: columns)
            var noBase = Select(table: "conf_category", selection: columns)
            noBase.commonTable = CommonTable("w", base: step, step: step, recursion: Recursion(maxDepth: 3))
            try await checkThrows(
                "a base case that reads the walk", { isInvalidQuery($0, naming: "no base case", "w") }
            ) {
                try await db.withConnection { tx in try tx.execute(.select(noBase)) }
            }
            var noStep = noBase
            noStep.commonTable = CommonTable("w", base: plain, step: plain, recursion: Recursion(maxDepth: 3))
            try await checkThrows(
                "a step that does not read the walk", { isInvalidQuery($0, naming: "recursive step", "w") }
            ) {
                try await db.withConnection { tx in try tx.execute(.select(noStep)) }
            }
        },
        ConformanceCase("cte.repeated-shapes-are-checked-each-time") { db in
            // A connection skips the core's check for a SELECT of the shape it ran last, when that one passed (the
            // render cache's memo). What the check reads of a value is part of the shape, and a schema change forgets
            // the memo, so each statement below is refused or answered as on a fresh connection, on every driver.
            let ids = try await seedCategories(db)
            func walk(_ tx: Transaction, _ depth: Int) throws -> [Int] {
                try ConfCategory.query(on: tx).descendants(of: ids("root"), through: \.parentID, maxDepth: depth)
                    .allWithDepth().map(\.depth).sorted()
            }
            func like(_ tx: Transaction, _ pattern: String, limit: Int) throws -> Int {
                let rows: [ConfCategory] = try ConfCategory.query(on: tx).where(\.name ~~ pattern).limit(limit).all()
                return rows.count
            }
            try await db.withConnection { tx in
                for _ in 0..<2 { try checkEqual(try walk(tx, 3), [1, 1, 2, 2, 3], "the walk, run twice") }
                try checkThrowsSync(
                    "the same walk with a negative bound", { isInvalidQuery($0, naming: "depth bound", "-1") }
                ) { try walk(tx, -1) }
                try checkEqual(try walk(tx, 1), [1, 1], "the walk after the refusal")
                for _ in 0..<2 { try checkEqual(try like(tx, "a%", limit: 10), 4, "LIKE 'a%', run twice") }
                try checkThrowsSync(
                    "the same query with a lone escape",
                    { $0 == .invalidQuery("LIKE pattern ends with the escape character \\") }
                ) { try like(tx, "a\\", limit: 10) }
                try checkThrowsSync("the same query with a negative limit", { isInvalidQuery($0, naming: "-1") }) {
                    try like(tx, "a%", limit: -1)
                }
                try checkEqual(try like(tx, "a%", limit: 2), 2, "the query after the refusals")
                // The same query over a table whose column changed type: compared with text, refused.
                for _ in 0..<2 {
                    try checkEqual(
                        try ConfCategory.query(on: tx).where(\.name == "a").count(), 1, "name = 'a', run twice")
                }
                try tx.dropTable("conf_category")
                try tx.migrate(
                    TableSchema(
                        name: "conf_category",
                        columns: [
                            TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true),
                            TableColumn(name: "parent_id", type: .integer, isNullable: true),
                            TableColumn(name: "name", type: .integer, isNullable: false),
                        ]), policy: .automatic)
                try checkThrowsSync(
                    "the same query after name became an integer column",
                    { if case .typeMismatch(table: "conf_category", column: "name", _) = $0 { true } else { false } }
                ) { try ConfCategory.query(on: tx).where(\.name == "a").count() }
                try tx.dropTable("conf_category")
            }
        },
    ]
}
