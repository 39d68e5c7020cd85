// MigrateCommand: `strata migrate status|plan|up|down --url …` over the demo app's models and versioned steps.
import ArgumentParser
import Foundation
import Strata
import StrataPostgres
import StrataSQLite

/// The demo app's versioned migrations: what `strata migrate up` applies.
enum DemoMigrations {
    static let all: [Migration] = [
        Migration("001_create_demo_tables") { up in
            for model: any Model.Type in [Group.self, User.self, Project.self, Membership.self] {
                up.createTable(for: model)
            }
        } down: { down in
            for table in ["membership", "project", "user", "group"] { down.dropTable(table) }
        }
    ]

    static let models: [any Model.Type] = [Group.self, User.self, Project.self, Membership.self]
}

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Versioned migrations of the demo app's models: status, plan, up, down.",
        discussion: """
            status  lists each step (applied, pending, changed since applied) and what automatic migration did
            plan    compares the models with the live schema and prints the changes, destructive ones flagged
                    (--sql: as the database's DDL; --swift: as a Migration to paste into a project)
            up      applies the pending steps, each in its own transaction
            down    reverts the last --steps applied steps
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case status, plan, up, down
    }

    @Argument(help: "status, plan, up or down.")
    var action: Action

    @Option(help: "The database URL (default: DATABASE_URL, else sqlite:strata-demo.sqlite).")
    var url: String?

    @Option(help: "How many steps `down` reverts.")
    var steps = 1

    @Flag(help: "With plan: print the DDL in the database's dialect.")
    var sql = false

    @Flag(help: "With plan: print a Swift migration to paste into the project.")
    var swift = false

    mutating func run() async throws {
        let db =
            try url.map { try Database.open($0, drivers: StrataCommand.drivers) }
            ?? Database.fromEnvironment(drivers: StrataCommand.drivers, fallback: "sqlite:strata-demo.sqlite")
        defer { db.close() }
        switch action {
        case .status:
            for s in try await db.migrationStatus(DemoMigrations.all) {
                print("\(s.isChanged ? "changed" : s.isApplied ? "applied" : "pending")  \(s.name)")
            }
            for r in try await db.migrationHistory() where r.kind == "automatic" {
                print("automatic  \(r.name): \(r.summary.replacingOccurrences(of: "\n", with: "; "))")
            }
        case .plan:
            let plan = try await db.withConnection { tx in try tx.plan(DemoMigrations.models) }
            print(plan)
            if sql {
                let dialects: [String: any Dialect] = ["sqlite": SQLiteDialect(), "postgres": PostgresDialect()]
                guard let dialect = dialects[db.driverName] else {
                    throw ValidationError("--sql needs a SQL database; \(db.driverName) has none")
                }
                print(try plan.sql(dialect: dialect))
            }
            if swift { print(plan.swiftSource(name: "next_step")) }
        case .up:
            let applied = try await db.migrate(DemoMigrations.all)
            print(applied.isEmpty ? "nothing to apply" : applied.map { "applied  \($0)" }.joined(separator: "\n"))
        case .down:
            let reverted = try await db.revert(DemoMigrations.all, count: steps)
            print(reverted.isEmpty ? "nothing to revert" : reverted.map { "reverted \($0)" }.joined(separator: "\n"))
        }
    }
}
