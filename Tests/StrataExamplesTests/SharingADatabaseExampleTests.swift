// SharingADatabaseExampleTests: the "Sharing a database between processes" article's example, compiled and run.
import Foundation
import Strata
import StrataSQLite
import Testing

@Suite struct SharingADatabaseExampleTests {
    @Test func anObserverHearsAnotherDatabaseOnTheSameFile() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/app.sqlite"
        // Another process, played by a second Database on the same file: its commits are not announced here.
        let other = try Database.open("sqlite:" + path, drivers: [.sqlite])
        defer { other.close() }
        try await other.migrate(Team.self, Player.self)
        let writer = Task {
            for name in ["Bea", "Ann"] {
                try await Task.sleep(for: .milliseconds(150))
                var player = Player(name: name, email: "\(name)@example.com")
                try await player.save(on: other)
            }
        }
        var seen: [[String]] = []
        // Article: "Sharing a database between processes" (the article's path is /shared/app.sqlite)
        let db = try Database.open(
            "sqlite:\(path)?observe_interval=100ms", drivers: [.sqlite],
            configuration: Configuration(timeout: 5))  // the busy timeout: how long a writer waits for the lock
        try await db.migrate(Player.self)
        for try await players in Player.query(on: db).order(\.name).observe() {
            seen.append(players.map(\.name))  // the article prints instead
            if players.count >= 2 { break }
        }
        // end of the article's example
        db.close()
        try await writer.value
        #expect(seen.last == ["Ann", "Bea"])
        #expect(seen.count >= 2)
    }
}
