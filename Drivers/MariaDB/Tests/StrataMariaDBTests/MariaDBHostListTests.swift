// MariaDBHostListTests: a mariadb:// URL with several hosts (a Galera cluster's nodes) as a failover list, the pool's
// check of idle connections, and which lost statements are outcomeUnknown.
import Foundation
import Strata
import Testing

@testable import StrataMariaDB

@Suite("MariaDB driver: host lists and lost connections")
struct MariaDBHostListTests {
    /// A loopback port nothing listens on (the last of the Galera tests' client ports, never started by them).
    static let deadPort = 3349

    /// The test server's host and port.
    static func server() throws -> (host: String, port: Int) {
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/", drivers: [.mariadb])
        return (url.host ?? "127.0.0.1", url.port ?? 3306)
    }

    @Test("a host list parses in order; a host without a port takes the first's; bad entries are typed errors")
    func parsing() throws {
        let url = try DatabaseURL("mariadb://app:s3cret@db1:3340,db2:3341,db3/shop?pool=4", drivers: [.mariadb])
        let options = try MariaDBConnectionOptions(url: url)
        #expect(options.candidates.map(\.host) == ["db1", "db2", "db3"])
        #expect(options.candidates.map(\.port) == [3340, 3341, 3340])
        #expect(options.description == "mariadb://app@db1:3340,db2:3341,db3:3340/shop")
        #expect(!options.description.contains("s3cret"))
        let single = try MariaDBConnectionOptions(url: DatabaseURL("mariadb://db1/shop", drivers: [.mariadb]))
        #expect(single.failoverHosts.isEmpty && single.candidates.count == 1)
        for bad in ["mariadb://a:1,b:0/db", "mariadb://a:1,%2Ftmp%2Fsock/db"] {
            #expect {
                try MariaDBConnectionOptions(url: DatabaseURL(bad, drivers: [.mariadb]))
            } throws: { error in
                guard case StrataError.invalidURL = error else { return false }
                return true
            }
        }
    }

    @Test("wsrep_sync_wait in the URL: parsed 0 to 15, a bad value a typed error naming it, set on each session")
    func syncWait() async throws {
        let parsed = try MariaDBConnectionOptions(
            url: DatabaseURL("mariadb://db1/shop?wsrep_sync_wait=3", drivers: [.mariadb]))
        #expect(parsed.syncWait == 3)
        #expect(
            try MariaDBConnectionOptions(url: DatabaseURL("mariadb://db1/shop", drivers: [.mariadb])).syncWait == nil)
        for bad in ["16", "-1", "x", ""] {
            #expect {
                try MariaDBConnectionOptions(
                    url: DatabaseURL("mariadb://db1/shop?wsrep_sync_wait=\(bad)", drivers: [.mariadb]))
            } throws: { error in
                guard case StrataError.invalidURL(_, let reason) = error else { return false }
                return reason.contains("wsrep_sync_wait")
            }
        }
        let db = try Database.open(
            try MariaDBTestServer.baseURL + "/?pool=2&wsrep_sync_wait=1", drivers: [.mariadb])
        defer { db.close() }
        let rows = try await db.unsafeRawExecute("SELECT @@SESSION.wsrep_sync_wait")
        #expect(try rows.first.map { try Int64(databaseValue: $0[0]) } == 1)
    }

    @Test("a connection goes to the first host that answers; none answering is connectionFailed naming each host")
    func firstLiveHost() async throws {
        let (host, port) = try Self.server()
        _ = try await MariaDBTestServer.freshDatabase("strata_hosts").close()
        let db = try Database.open(
            "mariadb://root@127.0.0.1:\(Self.deadPort),\(host):\(port)/strata_hosts?pool=2", drivers: [.mariadb])
        defer { db.close() }
        #expect(try await db.unsafeRawExecute("SELECT @@port") == [[.integer(Int64(port))]])

        var configuration = Configuration()
        configuration.timeout = 2
        #expect {
            try Database.open(
                "mariadb://root:pw-never-shown@127.0.0.1:\(Self.deadPort),127.0.0.1:\(Self.deadPort - 1)/x",
                drivers: [.mariadb], configuration: configuration)
        } throws: { error in
            guard case StrataError.connectionFailed(let reason) = error else { return false }
            return reason.contains(":\(Self.deadPort):") && reason.contains(":\(Self.deadPort - 1):")
                && !reason.contains("pw-never-shown")
        }
        // A host that refuses the credentials ends the search at once, with a typed error that hides the password.
        #expect {
            try Database.open(
                "mariadb://nobody:hunter2@\(host):\(port),127.0.0.1:\(Self.deadPort)/", drivers: [.mariadb])
        } throws: { error in
            guard case StrataError.authenticationFailed(let reason) = error else { return false }
            return !reason.contains("hunter2")
        }
        try await MariaDBTestServer.dropDatabase("strata_hosts")
    }

    @Test("an idle connection the server closed is replaced before use: the next call gets no error")
    func closedIdleConnectionIsReplaced() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_idle_kill", pool: 1)
        defer { db.close() }
        let first = try Int64(databaseValue: try await db.unsafeRawExecute("SELECT CONNECTION_ID()")[0][0])
        let admin = try Database.open(try MariaDBTestServer.baseURL + "/", drivers: [.mariadb])
        defer { admin.close() }
        _ = try await admin.unsafeRawExecute("KILL CONNECTION \(first)")
        // Bounded: until the server no longer lists the killed connection.
        for _ in 0..<100 {
            let listed = try await admin.unsafeRawExecute(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", [first])
            if listed == [[.integer(0)]] { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let second = try Int64(databaseValue: try await db.unsafeRawExecute("SELECT CONNECTION_ID()")[0][0])
        #expect(second != first, "a new connection served the call")
        try await MariaDBTestServer.dropDatabase("strata_idle_kill")
    }

    @Test("a statement lost in flight is outcomeUnknown when it may have written: a COMMIT, an autocommit write, DDL")
    func mayHaveWritten() {
        let insert = Statement.insert(Insert(table: "t", columns: ["a"], rows: [[.integer(1)]]))
        #expect(MariaDBConnection.mayHaveWritten(.commit, sql: "COMMIT", autocommit: false))
        #expect(MariaDBConnection.mayHaveWritten(insert, sql: "", autocommit: true))
        #expect(!MariaDBConnection.mayHaveWritten(insert, sql: "", autocommit: false))
        #expect(MariaDBConnection.mayHaveWritten(.dropTable("t"), sql: "", autocommit: false))
        for read in [Statement.begin, .rollback, .savepoint("s"), .rollbackToSavepoint("s")] {
            #expect(!MariaDBConnection.mayHaveWritten(read, sql: "", autocommit: true))
        }
        #expect(MariaDBConnection.mayHaveWritten(nil, sql: " commit", autocommit: false))
        #expect(MariaDBConnection.mayHaveWritten(nil, sql: "UPDATE t SET a = 1", autocommit: true))
        #expect(!MariaDBConnection.mayHaveWritten(nil, sql: "UPDATE t SET a = 1", autocommit: false))
        #expect(!MariaDBConnection.mayHaveWritten(nil, sql: "SELECT 1", autocommit: true))
        #expect(MariaDBConnection.mayHaveWritten(nil, sql: "CREATE TABLE u (a INT)", autocommit: false))
    }
}
