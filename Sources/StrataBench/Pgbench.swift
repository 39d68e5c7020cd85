// Pgbench: finds and runs PostgreSQL's pgbench against the benchmark's server and reads its rate.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `pgbench` of PostgreSQL 15, run as a child process with the same connection settings.
struct Pgbench {
    let path: String
    /// Passed as pgbench's database name, which libpq reads as a connection URI.
    let url: String

    /// pgbench from postgresql-15 (`/usr/lib/postgresql/15/bin/pgbench`), else the first on `PATH`.
    static func find() -> String? {
        let fm = FileManager.default
        var candidates = ["/usr/lib/postgresql/15/bin/pgbench"]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/pgbench" }
        return candidates.first { fm.isExecutableFile(atPath: $0) }
    }

    /// Runs pgbench with `arguments` (the URL is added last) and returns what it printed.
    ///
    /// pgbench ends a `-T` run on SIGALRM; a child inherits its parent thread's blocked signals, and the
    /// threads Swift's runtime runs on block them all, so it is spawned with an empty signal mask.
    func run(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pgbench-\(getpid()).out")
            .path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let argv = [path] + arguments + [url]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for a in cArguments { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, &cArguments, environ)
        guard rc == 0 else { throw BenchError("cannot start \(path): error \(rc)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw BenchError("pgbench \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// The `tps = N (without initial connection time)` figure of a pgbench run's output.
    static func rate(in output: String) -> Double? {
        for line in output.split(separator: "\n") where line.hasPrefix("tps = ") {
            let number = line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." }
            return Double(number)
        }
        return nil
    }
}
