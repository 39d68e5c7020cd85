// SpawnedCommand: runs a tool to its end with posix_spawn and a bounded waitpid, handing it no descriptor of ours.
import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program with `posix_spawn` and reaps it with `waitpid`, for tools such as `pg_ctl start` that leave a
/// server running after they exit.
///
/// Foundation's `Process` is not used for them: on Linux it learns that a child ended when the child's end of a
/// socketpair it passes down is closed, and the server that `pg_ctl start` leaves behind inherits that end, so
/// `waitUntilExit()` waits until the server stops. Here the child gets `/dev/null` as stdin, a file as stdout and
/// stderr, and no other descriptor of this process (`closefrom(3)`: not our sockets, nor the pipes of another
/// test's `Process`), and the wait is bounded: past `timeout` the child's process group is killed.
enum SpawnedCommand {
    /// How a command ended and what it printed.
    struct Outcome {
        /// The exit status, or 128 + the signal that ended it.
        var status: Int32
        /// Its stdout and stderr, interleaved.
        var output: String
    }

    /// Runs `argv` (an absolute path first) in `directory` with exactly `environment`; waits at most `timeout`
    /// seconds. Its stderr joins the output, or with `stderr: false` goes to this process's stderr.
    ///
    /// - Throws: `StrataError.database` when the program cannot be started, or did not end within `timeout`
    ///   (then its process group has been killed).
    static func run(
        _ argv: [String], directory: String? = nil, environment: [String: String], timeout: Double,
        stderr: Bool = true
    ) throws -> Outcome {
        let outputPath = NSTemporaryDirectory() + "strata-spawn-\(UUID().uuidString).out"
        defer { unlink(outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if stderr { posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        if let closeFrom = glibc("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self) {
            _ = closeFrom(&actions, 3)
        } else {  // glibc before 2.34: each descriptor open now
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for fd in open.compactMap({ Int32($0) }) where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        if let directory {
            guard let chdir = glibc("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self) else {
                throw StrataError.unsupported(feature: "posix_spawn_file_actions_addchdir_np", driver: "postgres")
            }
            _ = chdir(&actions, directory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (killed whole on a timeout), no blocked signals, default dispositions (this
        // process ignores SIGPIPE).
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        for signal in [SIGPIPE, SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2] {
            sigaddset(&signals, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &signals)

        let args: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let env: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in args + env { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, args, env)
        guard spawned == 0 else {
            throw StrataError.database(
                code: Int(spawned), message: "could not start \(argv[0]): \(String(cString: strerror(spawned)))")
        }

        let deadline = ContinuousClock.now + .seconds(timeout)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR {
                throw StrataError.database(code: Int(errno), message: "waitpid(\(pid)) for \(argv[0]) failed")
            }
            if ContinuousClock.now > deadline {
                kill(-pid, SIGKILL)
                for _ in 0..<100 where waitpid(pid, &status, WNOHANG) == 0 { usleep(50_000) }
                throw StrataError.database(
                    code: -1,
                    message: "\(argv.joined(separator: " ")) did not end within \(timeout) s (killed): "
                        + read(outputPath))
            }
            usleep(20_000)
        }
        let signal = status & 0x7f
        return Outcome(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, output: read(outputPath))
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// A glibc function the Swift overlay does not declare (its header guards it with `_GNU_SOURCE`), if present.
    private static func glibc<F>(_ name: String, as type: F.Type) -> F? {
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
