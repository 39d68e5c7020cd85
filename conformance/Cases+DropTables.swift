// Cases+DropTables: `Database.dropTables` drops the tables listed together, children first, or refuses before
// dropping any: SQLite's DROP TABLE deleted a parent's rows first (cascading into a child table not listed, or
// failing on a self-reference), where PostgreSQL refused a table that another references.
import Strata

@Model(table: "drop_parent")
struct DropParent {
    var id: Int64?
    var name: String
}

@Model(table: "drop_child")
struct DropChild {
    var id: Int64?
    var parentID: Int64
    var note: String
    static var foreignKeys: [ForeignKey] { [.from(\DropChild.parentID, to: DropParent.self, onDelete: .cascade)] }
}

/// A tree: each node's parent is a node, and a parent with children cannot be deleted.
@Model(table: "drop_node")
struct DropNode {
    var id: Int64?
    var parentID: Int64?
    static var foreignKeys: [ForeignKey] { [.from(\DropNode.parentID, to: DropNode.self, onDelete: .restrict)] }
}

/// Two tables that reference each other (`drop_a.partner_id` is made a foreign key after both exist).
@Model(table: "drop_a")
struct DropA {
    var id: Int64?
    var partnerID: Int64?
}

@Model(table: "drop_b")
struct DropB {
    var id: Int64?
    var partnerID: Int64?
    static var foreignKeys: [ForeignKey] { [.from(\DropB.partnerID, to: DropA.self)] }
}

extension ConformanceSuite {
    /// Two parents and three children, the children's key cascading.
    static func seedDropFamily(_ db: Database) async throws {
        try await db.migrate(DropParent.self, DropChild.self)
        try await db.transaction { tx in
            var ann = DropParent(name: "ann")
            var bo = DropParent(name: "bo")
            try ann.save(tx)
            try bo.save(tx)
            for (parent, note) in [(ann, "a1"), (ann, "a2"), (bo, "b1")] {
                var child = DropChild(parentID: parent.id ?? 0, note: note)
                try child.save(tx)
            }
        }
    }

    /// A root and its leaf, whose RESTRICT key refuses to delete the root first.
    static func seedDropTree(_ db: Database) async throws {
        try await db.migrate(DropNode.self)
        try await db.transaction { tx in
            var root = DropNode(parentID: nil)
            try root.save(tx)
            var leaf = DropNode(parentID: root.id)
            try leaf.save(tx)
        }
    }

    /// Whether each table exists.
    static func tablesExist(_ db: Database, _ tables: [String]) async throws -> [Bool] {
        try await db.withConnection { tx in try tables.map { try tx.columns(of: $0) != nil } }
    }

    static let dropTablesCases: [ConformanceCase] = [
        ConformanceCase("drop-tables.children-first-in-any-order") { db in
            try await seedDropFamily(db)
            // Listed parent first: PostgreSQL refused the parent while the child referenced it, and SQLite deleted
            // the children's rows through the cascade before dropping their table.
            try await db.dropTables(DropParent.self, DropChild.self)
            try checkEqual(
                try await tablesExist(db, ["drop_parent", "drop_child"]), [false, false], "both tables dropped")
        },
        ConformanceCase("drop-tables.referenced-by-a-table-not-listed-refused") { db in
            try await seedDropFamily(db)
            try await checkThrows(
                "dropping drop_parent while drop_child, not listed, references it",
                { e in e.description == StrataError.tableReferenced("drop_parent", by: "drop_child").description },
                { try await db.dropTables(DropParent.self) })
            try checkEqual(
                try await tablesExist(db, ["drop_parent", "drop_child"]), [true, true], "both tables kept")
            try checkEqual(try await DropParent.query(on: db).count(), 2, "every parent kept")
            // SQLite's DROP TABLE deleted the parents first, and the cascade took every child with them.
            try checkEqual(
                try await DropChild.query(on: db).order(\.id).all().map(\.note), ["a1", "a2", "b1"],
                "every child kept: the refused drop deleted nothing")
        },
        ConformanceCase("drop-tables.refused-drops-none-of-the-listed") { db in
            try await seedDropFamily(db)
            try await db.migrate(DropNode.self)
            try await checkThrows(
                "dropping drop_node and drop_parent while drop_child references drop_parent",
                { e in
                    guard case .invalidQuery(let text) = e else { return false }
                    return text.contains("drop_parent")
                },
                { try await db.dropTables(DropNode.self, DropParent.self) })
            try checkEqual(
                try await tablesExist(db, ["drop_node", "drop_parent", "drop_child"]), [true, true, true],
                "no table dropped, the one listed before the refused one neither")
        },
        ConformanceCase("drop-tables.self-referencing-with-rows") { db in
            try await seedDropTree(db)
            // SQLite deleted the rows first, and the RESTRICT key refused to delete the root before its leaf.
            try await db.dropTables(DropNode.self)
            try checkEqual(try await tablesExist(db, ["drop_node"]), [false], "the tree's table dropped")
        },
        ConformanceCase("drop-tables.tables-that-reference-each-other") { db in
            try await db.migrate(DropA.self, DropB.self)
            do {
                try await db.migrate([
                    Migration("drop_001_partners") {
                        $0.addForeignKey(ForeignKey(column: "partner_id", references: "drop_b"), to: "drop_a")
                    }
                ])
                try await db.transaction { tx in
                    var a = DropA(partnerID: nil)
                    try a.save(tx)
                    var b = DropB(partnerID: a.id)
                    try b.save(tx)
                    a.partnerID = b.id
                    try a.save(tx)
                }
                try await db.dropTables(DropA.self, DropB.self)
            } catch {
                // So that the fixtures' reset, which drops one table at a time, can drop them.
                _ = try? await db.migrate([
                    Migration("drop_002_cleanup") { $0.dropForeignKey(on: "partner_id", of: "drop_a") }
                ])
                throw error
            }
            try checkEqual(try await tablesExist(db, ["drop_a", "drop_b"]), [false, false], "both tables dropped")
        },
        ConformanceCase("drop-tables.statement-refused-while-referenced") { db in
            // The statement itself, as a tool runs it: refused everywhere as PostgreSQL refuses it.
            try await seedDropFamily(db)
            try await checkThrows(
                "DROP TABLE drop_parent while drop_child references it",
                { e in e.description == StrataError.tableReferenced("drop_parent", by: "drop_child").description },
                { try await db.withConnection { tx in _ = try tx.execute(.dropTable("drop_parent")) } })
            try checkEqual(try await DropParent.query(on: db).count(), 2, "every parent kept")
            try checkEqual(try await DropChild.query(on: db).count(), 3, "every child kept")
            try await db.withConnection { tx in
                _ = try tx.execute(.dropTable("drop_child"))
                _ = try tx.execute(.dropTable("drop_parent"))
            }
            try checkEqual(
                try await tablesExist(db, ["drop_parent", "drop_child"]), [false, false], "dropped child first")
        },
        ConformanceCase("drop-tables.statement-self-referencing-with-rows") { db in
            try await seedDropTree(db)
            try await db.withConnection { tx in _ = try tx.execute(.dropTable("drop_node")) }
            try checkEqual(try await tablesExist(db, ["drop_node"]), [false], "the tree's table dropped")
        },
        ConformanceCase("drop-tables.missing-tables-skipped") { db in
            try await db.dropTables(DropChild.self, DropParent.self)
            try await db.migrate(DropNode.self)
            try await db.dropTables(DropChild.self, DropNode.self)
            try checkEqual(
                try await tablesExist(db, ["drop_child", "drop_node"]), [false, false],
                "the table that existed dropped, the missing one skipped")
        },
    ]
}
