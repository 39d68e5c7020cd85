// ServerAccess: whether the tests may stop, freeze or front the server under test, and what they need for it.
import Foundation
import Testing

/// What the server-control tests (SIGSTOP, PgBouncer) may do here. (The restart tests stop and start servers of
/// their own: ``StandbyCluster``.)
///
/// They run when the server is a throwaway cluster on this machine (`pg_virtualenv` sets `PG_CLUSTER_CONF_ROOT`;
/// `STRATA_POSTGRES_CTL` says the server is local) or when `STRATA_SERVER_CONTROL=1` (our
/// `.ci/run`), which also turns a missing tool into a failure. Elsewhere (a server reached only through `PG*`
/// variables, like the users' workflow's service container) they are skipped with their reason: never a pass.
enum ServerAccess {
    static let environment = ProcessInfo.processInfo.environment

    /// `STRATA_SERVER_CONTROL=1`: the tools must be there, and a test that finds them missing fails.
    static let required = environment["STRATA_SERVER_CONTROL"] == "1"

    /// Whether the tests may signal the server's backends and front it with PgBouncer.
    static let controlsServer: Bool =
        required || !(environment["PG_CLUSTER_CONF_ROOT"] ?? "").isEmpty
        || !(environment["STRATA_POSTGRES_CTL"] ?? "").isEmpty

    /// The pgbouncer executable, if installed.
    static let pgbouncer: String? = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether the PgBouncer tests run: pgbouncer is installed, or its absence must fail.
    static var runsPgBouncer: Bool { required || pgbouncer != nil }

    /// Whether tests that make servers of their own run: they can (`missing` is nil), or `STRATA_SERVER_CONTROL=1`
    /// makes them run and fail. Otherwise they are skipped, and a banner naming `tests` and `missing` says why.
    static func runs(_ tests: String, missing: String?) -> Bool {
        guard let missing else { return true }
        let banner = String(repeating: "!", count: 78)
        print(
            """
            \(banner)
            !! \(tests): \(missing).
            !! \(required
                ? "STRATA_SERVER_CONTROL=1, so they run and FAIL."
                : "SKIPPING them (with STRATA_SERVER_CONTROL=1 they would fail).")
            \(banner)
            """)
        return required
    }
}
