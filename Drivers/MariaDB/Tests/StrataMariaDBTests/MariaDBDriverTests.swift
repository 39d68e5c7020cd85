// MariaDBDriverTests: URLs, the session's settings, and values round-tripping through the binary protocol.
import Foundation
import Strata
import StrataMariaDB
import Testing

@Suite("MariaDB driver")
struct MariaDBDriverTests {
    @Test("mariadb:// and mysql:// URLs parse into options; a bad port, in a host list too, is refused")
    func urls() throws {
        let url = try DatabaseURL("mysql://app:secret@127.0.0.1:3317/shop", drivers: [.mariadb])
        #expect(url.scheme == "mariadb")
        let options = try MariaDBConnectionOptions(url: url)
        #expect(options.host == "127.0.0.1" && options.port == 3317 && options.user == "app")
        #expect(options.database == "shop" && options.password == "secret")
        #expect(!options.description.contains("secret"))
        let bare = try MariaDBConnectionOptions(url: DatabaseURL("mariadb://", drivers: [.mariadb]))
        #expect(bare.host == "127.0.0.1" && bare.port == 3306 && bare.database == nil)
        #expect(throws: StrataError.self) {
            try MariaDBConnectionOptions(url: DatabaseURL("mariadb://a:1,b:70000/db", drivers: [.mariadb]))
        }
        #expect(throws: StrataError.self) { try Database.open("mariadb://h/db?nosuch=1", drivers: [.mariadb]) }
    }

    @Test("a wrong password fails Database.open with a typed error that does not show it")
    func wrongPassword() async throws {
        let base = try MariaDBTestServer.baseURL
        let url = base.replacingOccurrences(of: "mariadb://root@", with: "mariadb://nobody:hunter2@") + "/"
        do {
            _ = try Database.open(url, drivers: [.mariadb])
            Issue.record("connected with a wrong password")
        } catch let error as StrataError {
            #expect(!"\(error)".contains("hunter2"))
            guard case .authenticationFailed = error else {
                Issue.record("expected authenticationFailed, got \(error)")
                return
            }
        }
    }

    @Test("each connection runs in UTC, REPEATABLE READ, strict mode, utf8mb4 by code point without padding")
    func session() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_session")
        defer { db.close() }
        let rows = try await db.unsafeRawExecute(
            "SELECT @@session.time_zone, @@session.tx_isolation, @@session.collation_connection, "
                + "'a' = 'a ', 'a' < 'B', @@session.sql_mode LIKE '%STRICT_ALL_TABLES%'")
        #expect(
            rows == [
                [
                    .text("+00:00"), .text("REPEATABLE-READ"), .text("utf8mb4_nopad_bin"), .integer(0), .integer(0),
                    .integer(1),
                ]
            ])
    }

    @Test("values round-trip exactly through a table Strata's dialect declares")
    func roundTrip() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_values")
        defer { db.close() }
        let d = MariaDBDialect()
        let types: [ColumnType] = [.integer, .double, .text, .blob, .bool, .date, .decimal, .uuid]
        let columns = types.enumerated().map { "`c\($0.offset)` \(d.sqlType($0.element))" }.joined(separator: ", ")
        _ = try await db.unsafeRawExecute("CREATE TABLE t (\(columns))\(d.tableSuffix)")
        let date = Date(timeIntervalSince1970: -1_234_567.125_001)
        let uuid = UUID()
        let values: [any DatabaseValueConvertible] = [
            Int64.min, -0.1, "é\u{1F600} a ", Data([0, 1, 255]), true, date, Decimal(string: "-12345678901234.5678")!,
            uuid,
        ]
        _ = try await db.unsafeRawExecute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
        let rows = try await db.unsafeRawExecute("SELECT * FROM t")
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row[0] == .integer(Int64.min))
        #expect(row[1] == .double(-0.1))
        #expect(row[2] == .text("é\u{1F600} a "))
        #expect(row[3] == .blob(Data([0, 1, 255])))
        #expect(try Bool(databaseValue: row[4]))
        #expect(abs(try Date(databaseValue: row[5]).timeIntervalSince(date)) < 0.000_000_5)
        #expect(try Decimal(databaseValue: row[6]) == Decimal(string: "-12345678901234.5678")!)
        #expect(try UUID(databaseValue: row[7]) == uuid)
        try await MariaDBTestServer.dropDatabase("strata_values")
    }
}

@Suite("MariaDB driver: prepared statements")
struct MariaDBPreparedTests {
    @Test("a prepared SELECT with LIMIT 0 answers no rows, and the connection stays usable")
    func limitZero() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_limit_zero")
        defer { db.close() }
        _ = try await db.unsafeRawExecute("CREATE TABLE t (a BIGINT)")
        _ = try await db.unsafeRawExecute("INSERT INTO t VALUES (?), (?)", [Int64(1), Int64(2)])
        let start = Date()
        #expect(try await db.unsafeRawExecute("SELECT a FROM t LIMIT ?", [Int64(0)]).isEmpty)
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(try await db.unsafeRawExecute("SELECT a FROM t ORDER BY a LIMIT ?", [Int64(1)]) == [[.integer(1)]])
    }
}
