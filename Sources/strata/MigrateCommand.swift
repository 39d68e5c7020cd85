// MigrateCommand: `strata migrate status|plan|up|down --url …`: the library's MigrationCommand over the demo app.
import ArgumentParser
import Strata

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

    /// `strata migrate`: the library's command line over these models and steps.
    static let command = MigrationCommand(
        models: models, migrations: all, drivers: StrataCommand.drivers, programName: "strata migrate")
}

/// `strata migrate …`: the library's ``MigrationCommand`` over the demo app, so the tool and users' own
/// executables share one implementation.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Versioned migrations of the demo app's models: status, plan, up, down.",
        discussion: DemoMigrations.command.usage)

    @Argument(parsing: .captureForPassthrough, help: "status, plan, up or down, then its options (see below).")
    var arguments: [String] = []

    mutating func run() async throws {
        let code = await DemoMigrations.command.main(arguments)
        if code != MigrationCommand.ExitCode.success { throw ExitCode(code) }
    }
}
