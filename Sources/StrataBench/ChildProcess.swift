// ChildProcess: runs a program to its end through posix_spawn (never Foundation's Process) and reads its output.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program run as a child process: pgbench, strip, valgrind.
///
/// Foundation's `Process.run()` can crash on Linux (swift-corelibs-foundation #5472), so children start through
/// `posix_spawn`, with both output streams written to a temporary file read at the end.
enum ChildProcess {
    /// Runs `path` (absolute) with `arguments` to its end; its raw wait status (0 for a clean exit) and what it
    /// printed on stdout and stderr.
    ///
    /// pgbench ends a `-T` run on SIGALRM; a child inherits its parent thread's blocked signals, and the threads
    /// Swift's runtime runs on block them all, so the child starts with an empty signal mask and default handlers.
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-child-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
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
        var cArguments = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for a in cArguments { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, &cArguments, environ)
        guard rc == 0 else { throw BenchError("cannot start \(path): error \(rc)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// The first executable named `name` on `PATH`, else nil.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
