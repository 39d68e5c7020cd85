// SQLiteMigrationCLITests: an app's own `migrate` command (MigrationCommand) and the real `strata migrate` on a file.
import Foundation
import Strata
import StrataSQLite
import Testing

@Model(table: "cli_note")
struct CLINoteV1 {
    var id: Int64?
    var title: String
    var stars = 0
}

@Model(table: "cli_note")
struct CLINoteV2 {
    var id: Int64?
    var title: String
    var body: String?
}

/// An app's steps: one that can be reverted, one that cannot.
enum CLIApp {
    static let create = Migration("001_create_note") {
        $0.createTable(for: CLINoteV1.self)
    } down: {
        $0.dropTable("cli_note")
    }
    static let oneWay = Migration("002_one_way") { $0.addColumn("extra", .text, nullable: true, to: "cli_note") }

    static func command(_ models: [any Model.Type], _ steps: [Migration]) -> MigrationCommand {
        MigrationCommand(models: models, migrations: steps, drivers: [.sqlite], environment: [:])
    }

    /// Runs the command and returns its exit code and output lines.
    static func run(_ command: MigrationCommand, _ arguments: [String]) async throws -> (Int32, [String]) {
        var lines: [String] = []
        let code = try await command.run(arguments) { lines.append($0) }
        return (code, lines.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) })
    }

    static func file() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cli-\(UUID()).sqlite").path
        return path
    }

    static func schema(_ url: String) async throws -> DatabaseSchema {
        let db = try Database.open(url, drivers: [.sqlite])
        defer { db.close() }
        return try await db.withConnection { tx in try tx.introspect() }
    }

    static func rows(_ url: String) async throws -> [[DatabaseValue]] {
        let db = try Database.open(url, drivers: [.sqlite])
        defer { db.close() }
        return try await db.withConnection { tx in
            var out: [[DatabaseValue]] = []
            let select = Select(
                table: "cli_note", selection: .columns(["id", "title", "stars"]), order: [Ordering("id")])
            _ = try tx.execute(.select(select)) { r in
                out.append((0..<r.columnCount).map { r.value(at: $0) })
            }
            return out
        }
    }
}

@Suite("SQLite migration command line")
struct SQLiteMigrationCLITests {
    @Test("status before and after up, plan of a changed model (destructive flagged, SQL, Swift), down")
    func statusUpPlanDown() async throws {
        let path = CLIApp.file()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = "sqlite:" + path
        let v1 = CLIApp.command([CLINoteV1.self], [CLIApp.create])
        var (code, out) = try await CLIApp.run(v1, ["status", "--url", url])
        #expect(code == 0 && out.contains("pending   001_create_note"), "\(out)")
        (code, out) = try await CLIApp.run(v1, ["up", "--url=" + url])
        #expect(code == 0 && out == ["applied   001_create_note"])
        #expect(try await CLIApp.schema(url)[table: "cli_note"]?.columns.map(\.name) == ["id", "title", "stars"])
        (code, out) = try await CLIApp.run(v1, ["status", "--url", url, "--fail-on-pending"])
        #expect(code == 0 && out.contains("applied   001_create_note"), "\(out)")
        (code, out) = try await CLIApp.run(v1, ["up", "--url", url])
        #expect(out == ["nothing to apply: 1 step(s) applied"])
        (code, out) = try await CLIApp.run(v1, ["plan", "--url", url, "--fail-on-destructive"])
        #expect(code == 0 && out.contains("the schema matches the models: nothing to do"), "\(out)")

        let v2 = CLIApp.command([CLINoteV2.self], [CLIApp.create])
        (code, out) = try await CLIApp.run(v2, ["plan", "--url", url])
        #expect(code == MigrationCommand.ExitCode.success)
        #expect(out.contains("  add column cli_note.body text"), "\(out)")
        #expect(out.contains("  DESTRUCTIVE drop column cli_note.stars"), "\(out)")
        #expect(out.contains("2 change(s), 1 destructive"), "\(out)")
        #expect(out.contains("-- SQL (sqlite):"), "\(out)")
        #expect(out.contains(#"ALTER TABLE "cli_note" ADD COLUMN "body" TEXT;"#), "\(out)")
        #expect(out.contains("-- DESTRUCTIVE: drop column cli_note.stars"), "\(out)")
        #expect(out.contains(#"let migration = Migration("002_next") { up in"#), "\(out)")
        #expect(out.contains(#"    up.change(.dropColumn(table: "cli_note", column: "stars"))"#), "\(out)")
        (code, out) = try await CLIApp.run(v2, ["plan", "--url", url, "--fail-on-destructive"])
        #expect(code == MigrationCommand.ExitCode.destructive)
        (code, out) = try await CLIApp.run(v2, ["plan", "--url", url, "--sql"])
        #expect(out.first == #"ALTER TABLE "cli_note" ADD COLUMN "body" TEXT;"#, "only the SQL: \(out)")
        (code, out) = try await CLIApp.run(v2, ["plan", "--url", url, "--swift", "--name", "002_body"])
        #expect(out.first == #"let migration = Migration("002_body") { up in"#, "only the Swift: \(out)")
        #expect(try await CLIApp.schema(url)[table: "cli_note"]?.columns.map(\.name) == ["id", "title", "stars"])

        (code, out) = try await CLIApp.run(v1, ["down", "--url", url])
        #expect(code == 0 && out == ["reverted  001_create_note"])
        #expect(try await CLIApp.schema(url)[table: "cli_note"] == nil)
        (code, out) = try await CLIApp.run(v1, ["status", "--url", url, "--fail-on-pending"])
        #expect(code == MigrationCommand.ExitCode.pending && out.contains("pending   001_create_note"), "\(out)")
    }

    @Test(
        "bad input: unknown command or option, missing --url, bad --steps, a down step missing: typed, nothing changed")
    func badInput() async throws {
        let path = CLIApp.file()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = "sqlite:" + path
        let app = CLIApp.command([CLINoteV1.self], [CLIApp.create, CLIApp.oneWay])
        _ = try await CLIApp.run(app, ["up", "--url", url])
        let db = try Database.open(url, drivers: [.sqlite])
        var note = CLINoteV1(title: "kept")
        try await note.save(on: db)
        db.close()
        let schema = try await CLIApp.schema(url)
        let rows = try await CLIApp.rows(url)
        #expect(rows.count == 1)

        await #expect(
            throws: StrataError.invalidArgument(
                "frobnicate", reason: "unknown command (expected status, plan, up or down)")
        ) { _ = try await CLIApp.run(app, ["frobnicate", "--url", url]) }
        await #expect(
            throws: StrataError.invalidArgument("--url", reason: "missing: pass --url URL or set DATABASE_URL")
        ) {
            _ = try await CLIApp.run(app, ["down"])
        }
        await #expect(throws: StrataError.invalidArgument("--url", reason: "needs a value")) {
            _ = try await CLIApp.run(app, ["down", "--url"])
        }
        await #expect(throws: StrataError.invalidArgument("--steps", reason: "'0' is not a positive integer")) {
            _ = try await CLIApp.run(app, ["down", "--steps", "0", "--url", url])
        }
        await #expect(throws: StrataError.invalidArgument("--steps", reason: "up does not take it")) {
            _ = try await CLIApp.run(app, ["up", "--steps", "2", "--url", url])
        }
        await #expect(throws: StrataError.invalidArgument("--force", reason: "unknown option; see `migrate help`")) {
            _ = try await CLIApp.run(app, ["up", "--force", "--url", url])
        }
        await #expect(throws: StrataError.irreversibleMigration(step: "002_one_way")) {
            _ = try await CLIApp.run(app, ["down", "--steps", "2", "--url", url])
        }
        #expect(await app.main(["frobnicate", "--url", url]) == MigrationCommand.ExitCode.usage)
        #expect(await app.main(["down", "--url", url]) == MigrationCommand.ExitCode.failure)
        #expect(await app.main(["help"]) == MigrationCommand.ExitCode.success)
        #expect(try await CLIApp.schema(url) == schema, "the schema as before")
        #expect(try await CLIApp.rows(url) == rows, "every row as before")
        let (_, status) = try await CLIApp.run(app, ["status", "--url", url])
        #expect(status.contains("applied   001_create_note") && status.contains("applied   002_one_way"), "\(status)")
        let (_, unknown) = try await CLIApp.run(CLIApp.command([], [CLIApp.create]), ["status", "--url", url])
        #expect(unknown.contains { $0.hasPrefix("unknown   002_one_way") }, "a recorded step the app lacks: \(unknown)")
    }

    /// The `strata` executable next to the test bundle, as `swift build --build-tests` leaves it.
    static func strataExecutable() -> URL? {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("strata")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs `strata migrate …` and returns its exit status, standard output and standard error.
    static func strata(_ executable: URL, _ arguments: [String]) throws -> (Int32, String, String) {
        let outcome = try ToolRun.run(
            executable.path, ["migrate"] + arguments,
            environment: ProcessInfo.processInfo.environment.filter { $0.key != "DATABASE_URL" }, errors: .separate)
        return (outcome.status, outcome.output, outcome.errors)
    }

    @Test("the real `strata migrate` process: status, up, status, plan, bad input (exit 2, nothing changed), down")
    func realProcess() async throws {
        let strata = try #require(Self.strataExecutable(), "build the strata product (swift build --build-tests)")
        let path = CLIApp.file()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = "sqlite:" + path
        var (code, out, err) = try Self.strata(strata, ["status", "--url", url])
        #expect(code == 0 && out.contains("pending   001_create_demo_tables"), "\(out)\(err)")
        (code, out, err) = try Self.strata(strata, ["up", "--url", url])
        #expect(code == 0 && out == "applied   001_create_demo_tables\n", "\(out)\(err)")
        let tables = try await CLIApp.schema(url).tableNames
        #expect(tables.contains("user") && tables.contains("group"), "\(tables)")
        (code, out, err) = try Self.strata(strata, ["status", "--url", url, "--fail-on-pending"])
        #expect(code == 0 && out.contains("applied   001_create_demo_tables"), "\(out)\(err)")
        (code, out, err) = try Self.strata(strata, ["plan", "--url", url, "--fail-on-destructive"])
        #expect(code == 0 && out.contains("nothing to do"), "the demo models match after up: \(out)\(err)")
        let schema = try await CLIApp.schema(url)
        (code, out, err) = try Self.strata(strata, ["frobnicate", "--url", url])
        #expect(code == 2 && err.contains("invalid argument frobnicate: unknown command"), "\(out)\(err)")
        (code, out, err) = try Self.strata(strata, ["status"])
        #expect(code == 2 && err.contains("invalid argument --url: missing"), "\(out)\(err)")
        #expect(try await CLIApp.schema(url) == schema, "bad input changed nothing")
        (code, out, err) = try Self.strata(strata, ["down", "--url", url])
        #expect(code == 0 && out == "reverted  001_create_demo_tables\n", "\(out)\(err)")
        #expect(try await CLIApp.schema(url).tableNames == ["strata_migrations"])
    }
}
