// SQLiteURLTests: sqlite: URLs open exactly the file they name, and parameters the driver does not read are refused.
import Foundation
import Strata
import StrataSQLite
import Testing

@Suite("SQLite URLs")
struct SQLiteURLTests {
    /// A fresh empty directory, removed afterwards by the caller.
    func freshDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-url-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        return dir
    }

    func contents(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    @Test("a percent-encoded NUL in the path is refused, and no truncated file is opened")
    func nulInPath() throws {
        let dir = try freshDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect {
            try Database.open("sqlite:\(dir)/a%00b.sqlite", drivers: [.sqlite])
        } throws: { error in
            guard case StrataError.invalidURL(_, let reason) = error else { return false }
            return reason.contains("NUL")
        }
        #expect(contents(dir) == [], "neither \(dir)/a nor anything else was created")
    }

    @Test("a percent-encoded path opens the decoded file name")
    func percentEncodedPath() async throws {
        let dir = try freshDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Database.open("sqlite:\(dir)/caf%C3%A9%20%231.sqlite", drivers: [.sqlite])
        try await db.unsafeRawExecute("CREATE TABLE t (x)")
        db.close()
        #expect(contents(dir).first == "café #1.sqlite")
    }

    @Test(
        "a parameter the SQLite driver does not read is refused by name, before any file is made",
        arguments: [
            (
                "mode=ro",
                "unknown parameter 'mode' for sqlite URLs (accepted: journal, migrate, observe_interval, pool, "
                    + "wal_autocheckpoint)"
            ),
            (
                "Pool=2",
                "unknown parameter 'Pool' for sqlite URLs (parameter names are case-sensitive: did you mean 'pool'?)"
            ),
            ("pool=2&MIGRATE=off", "did you mean 'migrate'?"),
            ("sslmode=require", "unknown parameter 'sslmode'"),
        ])
    func unknownParameter(_ query: String, _ reason: String) throws {
        let dir = try freshDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect {
            try Database.open("sqlite:\(dir)/x.sqlite?\(query)", drivers: [.sqlite])
        } throws: { error in
            guard case StrataError.invalidURL(_, let why) = error else { return false }
            return why.contains(reason)
        }
        #expect(contents(dir) == [])
    }

    @Test("pool and migrate are accepted")
    func knownParameters() throws {
        let db = try Database.open("sqlite::memory:?pool=1&migrate=off", drivers: [.sqlite])
        #expect(db.configuration.maxConnections == 1 && db.configuration.migration == .disabled)
    }
}
