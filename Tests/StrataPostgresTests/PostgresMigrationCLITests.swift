// PostgresMigrationCLITests: an app's own `migrate` command (MigrationCommand) on PostgreSQL; computed defaults.
import Foundation
import Strata
import StrataPostgres
import Testing

@Model(table: "pg_cli_note")
struct PGCLINoteV1 {
    var id: Int64?
    var title: String
    var stars = 0
}

@Model(table: "pg_cli_note")
struct PGCLINoteV2 {
    var id: Int64?
    var title: String
    var body: String?
    var stars = 3
}

@Model(table: "pg_cli_event")
struct PGCLIEvent {
    var id: Int64?
    var at: Date?
    var n = 0
}

enum PGCLIApp {
    static let create = Migration("001_create_note") {
        $0.createTable(for: PGCLINoteV1.self)
    } down: {
        $0.dropTable("pg_cli_note")
    }
    static let oneWay = Migration("002_one_way") { $0.addColumn("extra", .text, nullable: true, to: "pg_cli_note") }

    static func run(_ models: [any Model.Type], _ steps: [Migration], _ arguments: [String]) async throws -> (
        Int32, [String]
    ) {
        var lines: [String] = []
        let command = MigrationCommand(models: models, migrations: steps, drivers: [.postgres], environment: [:])
        let code = try await command.run(arguments) { lines.append($0) }
        return (code, lines.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) })
    }
}

extension PostgresServerTests {
    @Suite("PostgreSQL migration command line")
    struct PostgresMigrationCLITests {
        @Test("status before and after up, plan (destructive flagged, PostgreSQL DDL, Swift), down, bad input")
        func commandLine() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_migcli")
            defer { db.close() }
            let url = PostgresTestServer.url("search_path=strata_migcli")
            let steps = [PGCLIApp.create, PGCLIApp.oneWay]
            var (code, out) = try await PGCLIApp.run([PGCLINoteV1.self], steps, ["status", "--url", url])
            #expect(code == 0 && out.contains("pending   001_create_note"), "\(out)")
            (code, out) = try await PGCLIApp.run([PGCLINoteV1.self], steps, ["up", "--url", url])
            #expect(out == ["applied   001_create_note", "applied   002_one_way"])
            var note = PGCLINoteV1(title: "kept")
            try await note.save(on: db)
            (code, out) = try await PGCLIApp.run([PGCLINoteV1.self], steps, ["status", "--url", url])
            #expect(out.contains("applied   002_one_way"), "\(out)")

            (code, out) = try await PGCLIApp.run([PGCLINoteV2.self], steps, ["plan", "--url", url])
            #expect(out.contains("  add column pg_cli_note.body text"), "\(out)")
            #expect(out.contains("  DESTRUCTIVE drop column pg_cli_note.extra"), "\(out)")
            #expect(out.contains("  set default of pg_cli_note.stars to 3"), "\(out)")
            #expect(out.contains("-- SQL (postgres):"), "\(out)")
            #expect(out.contains(#"ALTER TABLE "pg_cli_note" DROP COLUMN "extra";"#), "\(out)")
            #expect(out.contains(#"ALTER TABLE "pg_cli_note" ALTER COLUMN "stars" SET DEFAULT 3;"#), "\(out)")
            #expect(
                out.contains(#"    up.change(.setDefault(table: "pg_cli_note", column: "stars", to: .integer(3)))"#))
            (code, _) = try await PGCLIApp.run(
                [PGCLINoteV2.self], steps, ["plan", "--url", url, "--fail-on-destructive"])
            #expect(code == MigrationCommand.ExitCode.destructive)

            let schema = try await db.withConnection { tx in try tx.introspect() }
            let rows = try await db.unsafeRawExecute("SELECT id, title, stars, extra FROM pg_cli_note ORDER BY id")
            await #expect(throws: StrataError.irreversibleMigration(step: "002_one_way")) {
                _ = try await PGCLIApp.run([PGCLINoteV1.self], steps, ["down", "--steps", "2", "--url", url])
            }
            await #expect(
                throws: StrataError.invalidArgument(
                    "sideways", reason: "unknown command (expected status, plan, up or down)")
            ) {
                _ = try await PGCLIApp.run([PGCLINoteV1.self], steps, ["sideways", "--url", url])
            }
            await #expect(
                throws: StrataError.invalidArgument("--url", reason: "missing: pass --url URL or set DATABASE_URL")
            ) {
                _ = try await PGCLIApp.run([PGCLINoteV1.self], steps, ["up"])
            }
            #expect(try await db.withConnection { tx in try tx.introspect() } == schema, "schema as before")
            #expect(
                try await db.unsafeRawExecute("SELECT id, title, stars, extra FROM pg_cli_note ORDER BY id") == rows,
                "rows as before")

            try await PostgresTestServer.dropSchema("strata_migcli")
        }

        @Test("computed defaults (now(), CURRENT_TIMESTAMP) read apart from constants; a model without one leaves them")
        func computedDefaults() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_migcli_defaults")
            defer { db.close() }
            try await db.unsafeRawExecute(
                "CREATE TABLE pg_cli_event (id BIGSERIAL PRIMARY KEY, at TIMESTAMPTZ DEFAULT now(), "
                    + "n BIGINT NOT NULL DEFAULT '-0'::bigint)")
            var schema = try await db.withConnection { tx in try tx.introspect() }
            #expect(schema[table: "pg_cli_event"]?.column(named: "at")?.defaultExpression == "CURRENT_TIMESTAMP")
            #expect(schema[table: "pg_cli_event"]?.column(named: "at")?.schemaDefault == nil)
            #expect(schema[table: "pg_cli_event"]?.column(named: "n")?.schemaDefault == .integer(0))
            #expect(try await db.withConnection { tx in try tx.plan([PGCLIEvent.self]) }.isEmpty)
            try await db.unsafeRawExecute("ALTER TABLE pg_cli_event ALTER COLUMN at SET DEFAULT CURRENT_TIMESTAMP")
            schema = try await db.withConnection { tx in try tx.introspect() }
            #expect(schema[table: "pg_cli_event"]?.column(named: "at")?.defaultExpression == "CURRENT_TIMESTAMP")
            try await PostgresTestServer.dropSchema("strata_migcli_defaults")
        }
    }
}
