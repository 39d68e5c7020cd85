// ReadmeLoggingTests: the README's "Logging and metrics" example, compiled and run on SQLite, its log captured.
import Foundation
import Logging
import Strata
import StrataConformance
import StrataMemory
import StrataSQLite
import Testing

@Suite struct ReadmeLoggingTests {
    @Test func theSQLOfAQueryIsLoggedAtDebug() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("readme-log-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let captured = CapturedLogs()
        // README: "Logging and metrics" (the README's logger prints; this one is captured)
        var logger = captured.logger(level: .info)
        logger.logLevel = .debug
        let db = try Database.open(
            "sqlite:" + path, drivers: [.sqlite],
            configuration: Configuration(logger: logger, slowStatementThreshold: 0.25))
        try await db.migrate(Team.self, Player.self)
        var player = Player(name: "Ann", email: "ann@example.com")
        try await player.save(on: db)
        let active = try await Player.query(on: db).where(\.active == true).all()
        // end of the README example
        #expect(active.map(\.name) == ["Ann"])
        let select = captured.records.last { $0.metadata["db.operation"] == "select" }
        #expect(select?.level == .debug)
        #expect(select?.metadata["db.statement"]?.hasPrefix(#"SELECT "id", "name", "mail""#) == true)
        #expect(
            select?.metadata["db.statement"]?.hasSuffix(#"FROM "player" WHERE ("active" = ?)"#) == true,
            "\(select?.metadata["db.statement"] ?? "")")
        #expect(select?.metadata["db.binds"] == "1 redacted (set Configuration.logBoundValues to show them)")
        #expect(select?.metadata["db.system"] == "sqlite")
        #expect(select?.metadata["db.rows_returned"] == "1")
    }
}

@Suite struct ReadmeObservationTests {
    @Test func observeYieldsTheCurrentResultsThenOnePerCommit() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        try await db.migrate(Team.self, Player.self)
        let writer = Task {
            for name in ["Bea", "Ann"] {
                try await Task.sleep(for: .milliseconds(50))
                var player = Player(name: name, email: "\(name)@example.com")
                try await player.save(on: db)
            }
        }
        var seen: [[String]] = []
        // README: "Watching data change"
        for try await active in Player.query(on: db).where(\.active == true).order(\.name).observe() {
            seen.append(active.map(\.name))  // the README prints instead
            if active.count >= 2 { break }
        }
        // end of the README example
        try await writer.value
        #expect(seen.first == [])
        #expect(seen.last == ["Ann", "Bea"])
        #expect(seen.count <= 3)
        var rounds = 0
        while db.observationCount > 0 && rounds < 500 {  // ending the loop ends the observation
            rounds += 1
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(db.observationCount == 0)
    }
}

// README: "Watching data change" (other processes' commits, PostgreSQL)
@Model struct Order {
    var id: Int64?
    var total: Decimal
    static let notifiesOtherProcesses = true  // migrate installs a trigger: NOTIFY strata_changes, 'order'
}

@Suite struct ReadmeNotifyExampleTests {
    @Test func aModelOptsIntoNotifications() async throws {
        #expect(Order.notifiesOtherProcesses)
        #expect(!Player.notifiesOtherProcesses)
        let db = try Database.open("memory:", drivers: [.memory])
        try await db.migrate(Order.self)  // no trigger on a driver without NOTIFY; nothing else changes
        var order = Order(total: Decimal(string: "9.99") ?? 0)
        try await order.save(on: db)
        #expect(try await Order.query(on: db).first()?.total == Decimal(string: "9.99"))
    }
}
