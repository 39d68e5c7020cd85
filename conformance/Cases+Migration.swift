// Cases+Migration: automatic migration creates tables and indexes and adds columns without touching data.
import Strata

extension ConformanceSuite {
    static let migrationCases: [ConformanceCase] = [
        ConformanceCase("migrate.creates-tables") { db in
            try await Fixtures.migrate(db)
            let columns = try await db.withConnection { tx in try tx.columns(of: "conf_user") }
            try checkEqual(
                columns, ["id", "name", "email", "active", "age", "score", "joined_at", "tags", "group_id"],
                "conf_user columns (transient draft excluded)")
            try checkEqual(try await ConfUser.query(on: db).count(), 0, "new table is empty")
        },
        ConformanceCase("migrate.idempotent") { db in
            try await Fixtures.seedUsers(db)
            try await Fixtures.migrate(db)
            try await Fixtures.migrate(db)
            try checkEqual(try await ConfUser.query(on: db).count(), Fixtures.people.count, "rows survive re-migration")
        },
        ConformanceCase("migrate.adds-columns-keeps-data") { db in
            try await db.migrate(ConfEvolveV1.self)
            var a = ConfEvolveV1(name: "first")
            try await a.save(on: db)
            try await db.migrate(ConfEvolveV2.self)
            let columns = try await db.withConnection { tx in try tx.columns(of: "conf_evolve") }
            try checkEqual(columns, ["id", "name", "score", "note", "seen"], "columns after adding")
            let rows = try await ConfEvolveV2.query(on: db).all()
            try checkEqual(rows.count, 1, "old row kept")
            try checkEqual(rows.first?.name, "first", "old value kept")
            try checkEqual(rows.first?.score, 7, "new column filled with the property default")
            try checkEqual(rows.first?.note, nil, "new optional column is NULL")
            try checkEqual(rows.first?.seen, false, "new bool column filled")
            var b = ConfEvolveV2(name: "second", score: 9, note: "n")
            try await b.save(on: db)
            try checkEqual(try await ConfEvolveV2.find(b.id ?? -1, on: db)?.score, 9, "new column writable")
        },
        ConformanceCase("migrate.disabled-changes-nothing") { db in
            try await checkThrows(
                "missing table with migration off",
                {
                    if case .schemaMismatch(table: "conf_evolve", _) = $0 { return true }
                    return false
                }
            ) {
                try await db.withConnection { tx in try tx.migrate([ConfEvolveV1.self], policy: .disabled) }
            }
            try checkEqual(
                try await db.withConnection { tx in try tx.columns(of: "conf_evolve") }, nil, "no table created")
            try await db.migrate(ConfEvolveV1.self)
            try await checkThrows(
                "missing columns with migration off",
                {
                    if case .schemaMismatch(table: "conf_evolve", let missing) = $0 { return missing.count == 3 }
                    return false
                }
            ) {
                try await db.withConnection { tx in try tx.migrate([ConfEvolveV2.self], policy: .disabled) }
            }
        },
        ConformanceCase("migrate.refuses-required-column-without-default") { db in
            try await db.migrate(ConfEvolveV1.self)
            var a = ConfEvolveV1(name: "kept")
            try await a.save(on: db)
            try await checkThrows(
                "adding 'rank: Int' to a table with rows",
                {
                    if case .schemaMismatch(table: "conf_evolve", let missing) = $0 {
                        return missing.first?.contains("rank") == true
                    }
                    return false
                }
            ) { try await db.migrate(ConfEvolveV3.self) }
            let columns = try await db.withConnection { tx in try tx.columns(of: "conf_evolve") }
            try checkEqual(columns, ["id", "name"], "nothing added")
            try checkEqual(try await ConfEvolveV1.query(on: db).count(), 1, "rows kept")
        },
        ConformanceCase("migrate.creates-unique-index") { db in
            try await Fixtures.migrate(db)
            var a = ConfUser(name: "A", email: "same@x.io")
            try await a.save(on: db)
            var b = ConfUser(name: "B", email: "same@x.io")
            try await checkThrows(
                "duplicate email",
                {
                    if case .uniqueViolation(table: "conf_user", columns: ["email"]) = $0 { return true }
                    return false
                }
            ) { try await b.save(on: db) }
        },
    ]
}
