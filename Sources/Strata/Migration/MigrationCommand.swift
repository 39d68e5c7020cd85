// MigrationCommand: `status|plan|up|down --url …` over an app's own models and steps, for its own executable.
import Foundation

/// The migration command line of an app: `status`, `plan`, `up` and `down` over the app's own models and
/// versioned steps, in the app's own executable, with no argument-parsing library.
///
/// ```swift
/// // Sources/myapp-migrate/main.swift
/// import Foundation
/// import Strata
/// import StrataPostgres
/// import StrataSQLite
///
/// let command = MigrationCommand(
///     models: [User.self, Group.self], migrations: AppMigrations.all, drivers: [.sqlite, .postgres])
/// exit(await command.main())
/// ```
///
/// ```
/// $ myapp-migrate status --url postgres://localhost/app
/// $ myapp-migrate plan --url sqlite:app.sqlite --fail-on-destructive
/// $ myapp-migrate up --url sqlite:app.sqlite
/// $ myapp-migrate down --steps 2 --url sqlite:app.sqlite
/// ```
///
/// `strata migrate` is this command over the demo app's models. Exit codes: ``ExitCode/success``,
/// ``ExitCode/failure`` (the database or a step refused; nothing of a failing step is applied),
/// ``ExitCode/usage`` (bad arguments; nothing opened), ``ExitCode/destructive`` (`plan --fail-on-destructive`
/// found a change that drops or rewrites data) and ``ExitCode/pending`` (`status --fail-on-pending` found a
/// step to apply or one edited since it was applied).
public struct MigrationCommand: Sendable {
    /// The four commands.
    public enum Action: String, Sendable, CaseIterable {
        /// Lists each step (applied, pending, changed since applied, or recorded but unknown to the app).
        case status
        /// Compares the models with the live schema and prints the changes, destructive ones flagged, as the
        /// database's SQL and as a Swift migration to paste.
        case plan
        /// Applies the pending steps, each in its own transaction.
        case up
        /// Reverts the last `--steps` applied steps, newest first.
        case down
    }

    /// The parsed command line.
    public struct Options: Sendable, Hashable {
        /// The command.
        public var action: Action
        /// The database URL (`--url`, else `DATABASE_URL`).
        public var url: String
        /// How many steps `down` reverts (`--steps`, default 1).
        public var steps = 1
        /// `plan --sql`: print only the SQL.
        public var sqlOnly = false
        /// `plan --swift`: print only the Swift migration.
        public var swiftOnly = false
        /// `plan --name NAME`: the Swift migration's name.
        public var name: String?
        /// `plan --fail-on-destructive`: exit with ``ExitCode/destructive`` when a change is destructive.
        public var failOnDestructive = false
        /// `plan --drop-unknown-tables`: plan to drop tables no model names.
        public var dropUnknownTables = false
        /// `status --fail-on-pending`: exit with ``ExitCode/pending`` when a step is pending or changed.
        public var failOnPending = false

        /// Options for `action` on `url`, the rest at their defaults.
        ///
        /// - Parameters:
        ///   - action: the command.
        ///   - url: the database URL.
        public init(action: Action, url: String) {
            self.action = action
            self.url = url
        }
    }

    /// The process exit codes.
    public enum ExitCode {
        /// Done.
        public static let success: Int32 = 0
        /// The database or a step refused (a typed ``StrataError`` is printed).
        public static let failure: Int32 = 1
        /// The command line is wrong (``StrataError/invalidArgument(_:reason:)``).
        public static let usage: Int32 = 2
        /// `plan --fail-on-destructive` found a destructive change.
        public static let destructive: Int32 = 3
        /// `status --fail-on-pending` found a pending or changed step.
        public static let pending: Int32 = 4
    }

    /// The app's models, which `plan` compares with the live schema.
    public var models: [any Model.Type]
    /// The app's versioned steps, in order.
    public var migrations: [Migration]
    /// The drivers `--url` may name.
    public var drivers: [DriverFactory]
    /// The name shown in the usage text.
    public var programName: String
    /// Where `DATABASE_URL` is read when `--url` is absent.
    public var environment: [String: String]

    /// A command over `models` and `migrations`.
    ///
    /// - Parameters:
    ///   - models: the models `plan` compares with the live schema (the models their associations need too).
    ///   - migrations: the versioned steps, in order.
    ///   - drivers: the drivers `--url` may name (`[.sqlite, .postgres]`).
    ///   - programName: the name shown in the usage text.
    ///   - environment: where `DATABASE_URL` is read when `--url` is absent.
    public init(
        models: [any Model.Type], migrations: [Migration], drivers: [DriverFactory], programName: String = "migrate",
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.models = models
        self.migrations = migrations
        self.drivers = drivers
        self.programName = programName
        self.environment = environment
    }

    /// What `help` prints.
    public var usage: String {
        """
        usage: \(programName) status|plan|up|down [--url URL] [options]

          status   each step: applied, pending, changed (edited since applied) or unknown (recorded, not in the app)
                   --fail-on-pending      exit \(ExitCode.pending) when a step is pending or changed
          plan     the models against the live schema: each change, DESTRUCTIVE ones flagged, the database's SQL
                   and a Swift migration to paste
                   --sql | --swift        print only the SQL, or only the Swift migration
                   --name NAME            the Swift migration's name
                   --fail-on-destructive  exit \(ExitCode.destructive) when a change drops or rewrites data
                   --drop-unknown-tables  also plan to drop tables no model names
          up       apply the pending steps, each in its own transaction
          down     revert the last applied steps, newest first
                   --steps N              how many (default 1)

          --url URL  sqlite:PATH, postgres://… or memory: (default: DATABASE_URL)
        exit codes: 0 done, 1 refused by the database or a step, 2 bad arguments, \(ExitCode.destructive) destructive plan, \
        \(ExitCode.pending) pending steps
        """
    }

    /// Parses a command line (without the program's name).
    ///
    /// - Parameter arguments: the command and its options, as `CommandLine.arguments.dropFirst()`.
    /// - Returns: the options, or nil for `help`, `--help` and `-h`.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming the argument: no command or an unknown one,
    ///   an unknown option or one the command does not take, an option without its value, `--steps` that is
    ///   not a positive integer, no `--url` and no `DATABASE_URL`.
    public func parse(_ arguments: [String]) throws -> Options? {
        if arguments.contains(where: { ["help", "--help", "-h"].contains($0) }) { return nil }
        var action: Action?
        var values: [String: String] = [:]
        var flags = Set<String>()
        let valued: [String: Set<Action>] = [
            "--url": Set(Action.allCases), "--steps": [.down], "--name": [.plan],
        ]
        let flagged: [String: Set<Action>] = [
            "--sql": [.plan], "--swift": [.plan], "--fail-on-destructive": [.plan], "--drop-unknown-tables": [.plan],
            "--fail-on-pending": [.status],
        ]
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            guard argument.hasPrefix("-") else {
                guard action == nil else {
                    throw StrataError.invalidArgument(argument, reason: "one command only; see `\(programName) help`")
                }
                guard let a = Action(rawValue: argument) else {
                    throw StrataError.invalidArgument(
                        argument, reason: "unknown command (expected status, plan, up or down)")
                }
                action = a
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let option = parts[0]
            if valued[option] != nil {
                if parts.count == 2 {
                    values[option] = parts[1]
                } else if i < arguments.count, !arguments[i].hasPrefix("--") {
                    values[option] = arguments[i]
                    i += 1
                } else {
                    throw StrataError.invalidArgument(option, reason: "needs a value")
                }
            } else if flagged[option] != nil, parts.count == 1 {
                flags.insert(option)
            } else {
                throw StrataError.invalidArgument(argument, reason: "unknown option; see `\(programName) help`")
            }
        }
        guard let action else {
            throw StrataError.invalidArgument("command", reason: "missing (status, plan, up or down)")
        }
        for option in Array(values.keys) + Array(flags) {
            let allowed = valued[option] ?? flagged[option] ?? []
            if !allowed.contains(action) {
                throw StrataError.invalidArgument(option, reason: "\(action.rawValue) does not take it")
            }
        }
        guard let url = values["--url"] ?? environment["DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw StrataError.invalidArgument("--url", reason: "missing: pass --url URL or set DATABASE_URL")
        }
        var options = Options(action: action, url: url)
        if let steps = values["--steps"] {
            guard let n = Int(steps), n > 0 else {
                throw StrataError.invalidArgument("--steps", reason: "'\(steps)' is not a positive integer")
            }
            options.steps = n
        }
        options.name = values["--name"]
        options.sqlOnly = flags.contains("--sql")
        options.swiftOnly = flags.contains("--swift")
        if options.sqlOnly && options.swiftOnly {
            throw StrataError.invalidArgument("--sql", reason: "give --sql or --swift, not both")
        }
        options.failOnDestructive = flags.contains("--fail-on-destructive")
        options.dropUnknownTables = flags.contains("--drop-unknown-tables")
        options.failOnPending = flags.contains("--fail-on-pending")
        return options
    }

    /// Parses `arguments` and runs the command, writing what it reports to `output` (one call per line).
    ///
    /// - Parameters:
    ///   - arguments: the command and its options, without the program's name.
    ///   - output: receives each line of the report.
    /// - Returns: the exit code (``ExitCode/success``, ``ExitCode/destructive`` or ``ExitCode/pending``).
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` (see ``parse(_:)``), the errors of
    ///   ``Database/open(_:drivers:configuration:)``, and those of the command: for `up`, what a failing step
    ///   throws (nothing of it applied) or ``StrataError/migrationChecksumMismatch(step:applied:current:)``;
    ///   for `down`, ``StrataError/irreversibleMigration(step:)`` before anything runs.
    public func run(_ arguments: [String], output: (String) -> Void) async throws -> Int32 {
        guard let options = try parse(arguments) else {
            output(usage)
            return ExitCode.success
        }
        return try await run(options, output: output)
    }

    /// Runs parsed options (see `run(_:output:)` over arguments).
    ///
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - output: receives each line of the report.
    /// - Returns: the exit code.
    /// - Throws: what `run(_:output:)` over arguments throws, but for argument errors.
    public func run(_ options: Options, output: (String) -> Void) async throws -> Int32 {
        let db = try Database.open(options.url, drivers: drivers)
        defer { db.close() }
        switch options.action {
        case .status: return try await status(db, options, output)
        case .plan: return try await plan(db, options, output)
        case .up:
            let applied = try await db.migrate(migrations)
            if applied.isEmpty { output("nothing to apply: \(migrations.count) step(s) applied") }
            for name in applied { output("applied   \(name)") }
        case .down:
            let reverted = try await db.revert(migrations, count: options.steps)
            if reverted.isEmpty { output("nothing to revert") }
            for name in reverted { output("reverted  \(name)") }
        }
        return ExitCode.success
    }

    /// Parses the process's arguments, runs the command, prints its report to standard output and an error to
    /// standard error, and returns the exit code to pass to `exit`.
    ///
    /// - Parameter arguments: the command and its options (default: the process's, without its name).
    /// - Returns: the exit code (see ``ExitCode``).
    public func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        do {
            return try await run(arguments) { print($0) }
        } catch let error as StrataError {
            if case .invalidArgument = error {
                FileHandle.standardError.write(Data("error: \(error)\n\(usage)\n".utf8))
                return ExitCode.usage
            }
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return ExitCode.failure
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return ExitCode.failure
        }
    }

    private func status(_ db: Database, _ options: Options, _ output: (String) -> Void) async throws -> Int32 {
        var waiting = 0
        let known = Set(migrations.map(\.name))
        for s in try await db.migrationStatus(migrations) {
            let state = s.isChanged ? "changed" : s.isApplied ? "applied" : "pending"
            if s.isChanged || !s.isApplied { waiting += 1 }
            output(
                "\(state.padding(toLength: 9, withPad: " ", startingAt: 0)) \(s.name)"
                    + (s.isChanged ? " (edited since it was applied: add a new step instead)" : ""))
        }
        let history = try await db.migrationHistory()
        for r in history where r.kind == "versioned" && !known.contains(r.name) {
            output("unknown   \(r.name) (recorded in strata_migrations, not one of this app's steps)")
        }
        for r in history where r.kind == "automatic" {
            output("automatic \(r.name): \(r.summary.replacingOccurrences(of: "\n", with: "; "))")
        }
        output("\(migrations.count - waiting) of \(migrations.count) step(s) applied, \(waiting) to do")
        return options.failOnPending && waiting > 0 ? ExitCode.pending : ExitCode.success
    }

    private func plan(_ db: Database, _ options: Options, _ output: (String) -> Void) async throws -> Int32 {
        let (plan, dialect) = try await db.withConnection { tx in
            (
                try tx.plan(models, dropUnknownTables: options.dropUnknownTables),
                (tx.connection as? any SQLConnection)?.dialect
            )
        }
        let name = options.name ?? String(format: "%03d_next", migrations.count + 1)
        let sql = try dialect.map { try plan.sql(dialect: $0) }
        if options.sqlOnly {
            guard let sql else {
                throw StrataError.unsupported(feature: "printing a plan as SQL", driver: db.driverName)
            }
            if !sql.isEmpty { output(sql) }
        } else if options.swiftOnly {
            output(plan.swiftSource(name: name))
        } else {
            output("Plan for \(URLRedaction.redact(options.url)) (\(db.driverName)):")
            output(plan.description)
            if !plan.isEmpty {
                output("")
                output("-- SQL (\(db.driverName)):")
                output(sql ?? "-- (the \(db.driverName) driver has no SQL; `up` applies the same changes)")
                output("")
                output("// A Swift migration to paste into the project (append it to the app's steps):")
                output(plan.swiftSource(name: name))
            }
        }
        return options.failOnDestructive && plan.isDestructive ? ExitCode.destructive : ExitCode.success
    }
}
