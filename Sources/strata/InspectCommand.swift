// InspectCommand: `strata inspect --url URL` prints @Model declarations for an existing database's tables.
import ArgumentParser
import Foundation
import Strata

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print @Model declarations that map the tables of an existing database (opened with migrate=off)."
    )

    @Option(help: "The database to read: sqlite:PATH or postgres://… (default: DATABASE_URL).")
    var url: String?

    mutating func run() async throws {
        guard let target = url ?? ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            print("strata inspect needs --url or DATABASE_URL")
            throw ExitCode(2)
        }
        let db: Database
        do {
            db = try Database.open(
                target, drivers: StrataCommand.drivers, configuration: Configuration(migration: .disabled))
        } catch {
            print("cannot open \(DatabaseURL.redacting(target)): \(error)")
            throw ExitCode(2)
        }
        defer { db.close() }
        print(try await db.withConnection { tx in try ModelSource.inspect(tx) }, terminator: "")
    }
}
