// SpawnedProcess: a child process started through posix_spawn (never Foundation's Process): the throwaway server,
// the Galera cluster's nodes.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process started in the background through `posix_spawn`: stdin is `/dev/null`, stdout and stderr go to one
/// file, and every descriptor of this process past stderr is closed before the program runs (a `/bin/bash` that
/// closes them, then `exec`s it: the pid is the program's), so a server left running never holds the
/// bench's or the test run's pipes.
///
/// The MariaDB package's one copy of the root package's `ToolRun` (the bench and the tests use it): Foundation's
/// `Process.run()` can crash on Linux (swift-corelibs-foundation #5472).
package final class SpawnedProcess: @unchecked Sendable {
    // One task owns a child at a time; the lock keeps `status` sound if two tasks poll it.
    private let lock = NSLock()
    private var ended: Int32?
    /// The program and its arguments, for messages.
    package let command: [String]
    /// The child's process id (the program's, after the shell's `exec`).
    package let pid: pid_t

    /// Starts `program` (an absolute path) with `arguments`, its output (both streams) appended to `log`.
    package init(_ program: String, _ arguments: [String], log: String) throws {
        command = [program] + arguments
        #if os(Linux)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let closeAll = "i=3; while [ $i -lt 256 ]; do eval \"exec $i>&-\" 2>/dev/null; i=$((i + 1)); done; "
            let shell = ["/bin/bash", "-c", closeAll + "exec \"$0\" \"$@\""] + command
            let variables = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
            var argv: [UnsafeMutablePointer<CChar>?] = shell.map { strdup($0) } + [nil]
            var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var child: pid_t = 0
            let spawned = posix_spawn(&child, "/bin/bash", &actions, nil, &argv, &envp)
            guard spawned == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: program, "errno": spawned])
            }
            pid = child
        #else
            throw CocoaError(.featureUnsupported, userInfo: [NSFilePathErrorKey: program])
        #endif
    }

    /// Runs `program` with `arguments` to its end (at most `seconds`, then it is killed); its exit status, or
    /// 128 + the signal that ended it.
    package static func run(_ program: String, _ arguments: [String], log: String, within seconds: Double) throws
        -> Int32
    {
        let child = try SpawnedProcess(program, arguments, log: log)
        let deadline = ContinuousClock.now + .seconds(seconds)
        while child.isRunning {
            if ContinuousClock.now > deadline { child.kill(SIGKILL) }
            usleep(20_000)
        }
        let status = child.status ?? -SIGKILL
        return status < 0 ? 128 - status : status
    }

    /// The exit status if the child has ended (the signal that ended it as a negative number), else nil.
    package var status: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let ended { return ended }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let signal = raw & 0x7f
        ended = signal == 0 ? (raw >> 8) & 0xff : -signal
        return ended
    }

    /// Whether the child still runs.
    package var isRunning: Bool { status == nil }

    /// Sends `signal` to the child if it still runs.
    package func kill(_ signal: Int32) {
        if isRunning { _ = Foundation.kill(pid, signal) }
    }

    /// Waits at most `seconds` for the child to end; whether it ended.
    package func wait(seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while isRunning {
            if ContinuousClock.now > deadline { return false }
            usleep(20_000)
        }
        return true
    }
}
