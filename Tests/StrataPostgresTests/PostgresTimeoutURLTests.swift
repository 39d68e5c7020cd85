// PostgresTimeoutURLTests: the prepare, statement_timeout, keepalive and TLS URL parameters, read and validated.
import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL URL parameters for poolers, timeouts and TLS")
struct PostgresTimeoutURLTests {
    static func options(_ query: String) throws -> PostgresConnectionOptions {
        try PostgresConnectionOptions(url: DatabaseURL("postgres://u@h/db?\(query)", drivers: [.postgres]))
    }

    @Test("prepare is on, off or auto (the default)")
    func prepareModes() throws {
        #expect(try Self.options("sslmode=disable").prepare == .auto)
        #expect(try Self.options("prepare=off").prepare == .off)
        #expect(try Self.options("prepare=on").prepare == .on)
        #expect(try Self.options("prepare=auto").prepare == .auto)
    }

    @Test("statement_timeout takes PostgreSQL's units and becomes milliseconds")
    func statementTimeoutUnits() throws {
        #expect(try Self.options("statement_timeout=250").statementTimeout == 250)
        #expect(try Self.options("statement_timeout=250ms").statementTimeout == 250)
        #expect(try Self.options("statement_timeout=5s").statementTimeout == 5000)
        #expect(try Self.options("statement_timeout=2min").statementTimeout == 120_000)
        #expect(try Self.options("statement_timeout=1h").statementTimeout == 3_600_000)
        #expect(try Self.options("sslmode=disable").statementTimeout == nil)
    }

    @Test(
        "a bad value is invalidURL naming its parameter",
        arguments: [
            ("prepare=yes", "prepare"), ("prepare=", "prepare"), ("statement_timeout=5 s", "statement_timeout"),
            ("statement_timeout=-1", "statement_timeout"), ("statement_timeout=2d", "statement_timeout"),
            ("statement_timeout=25h", "statement_timeout"), ("keepalives=on", "keepalives"),
            ("keepalives_idle=1.5", "keepalives_idle"), ("keepalives_interval=", "keepalives_interval"),
            ("keepalives_count=-3", "keepalives_count"), ("tcp_user_timeout=10s", "tcp_user_timeout"),
            ("sslmode=sometimes", "sslmode"), ("statement_cache=0", "statement_cache"),
        ])
    func badValue(_ query: String, _ parameter: String) {
        #expect {
            try Database.open("postgres://nobody@127.0.0.1:1/x?\(query)", drivers: [.postgres])
        } throws: { error in
            guard case StrataError.invalidURL(_, let why) = error else { return false }
            return why.contains(parameter)
        }
    }

    @Test("keepalives, tcp_user_timeout, sslmode and sslrootcert reach libpq as given")
    func passedThrough() throws {
        let o = try Self.options(
            "keepalives=1&keepalives_idle=30&keepalives_interval=5&keepalives_count=3&tcp_user_timeout=10000"
                + "&sslmode=verify-full&sslrootcert=/etc/ssl/root.crt")
        #expect(
            o.extra == [
                "keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "5", "keepalives_count": "3",
                "tcp_user_timeout": "10000", "sslmode": "verify-full", "sslrootcert": "/etc/ssl/root.crt",
            ])
    }
}
