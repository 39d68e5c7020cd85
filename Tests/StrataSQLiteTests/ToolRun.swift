// ToolRun: runs command-line tools (to their end, or in the background) through posix_spawn on Linux.
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the tools the SQLite tests call (`sqlite3`, the `strata` executable, Litestream); the PostgreSQL tests run
/// `psql` through `SpawnedCommand`.
///
/// On Linux, Foundation's `Process.run()` can crash: it reads each `/proc/self/fd` entry as a whole 256-byte
/// `dirent`, past the end of the directory buffer when an entry ends on an unmapped page (swift-corelibs-foundation
/// #5472, still in Swift 6.3.1). There a tool runs through `posix_spawn` and `waitpid`; elsewhere through
/// `Process`. A tool gets `/dev/null` as stdin and the environment it is given (this process's by default).
enum ToolRun {
    /// Where a tool's standard error goes.
    enum ErrorOutput {
        /// This process's standard error.
        case inherited
        /// Into the output, interleaved with standard output.
        case merged
        /// Kept apart, returned as `errors`.
        case separate
    }

    /// How a tool ended and what it printed.
    struct Outcome {
        /// The exit status, or 128 + the signal that ended it.
        var status: Int32
        /// What it printed on standard output (and standard error when merged).
        var output: String
        /// What it printed on standard error when kept apart, else empty.
        var errors: String
    }

    /// Runs `arguments` with `tool` (an absolute path) to its end and returns its exit status (128 + the signal that
    /// ended it) and what it printed on stdout.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outcome = try run(tool, arguments, errors: .inherited)
        return (outcome.status, outcome.output)
    }

    /// Runs `arguments` with `tool` (an absolute path) to its end, with `environment` (this process's when nil).
    static func run(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil, errors: ErrorOutput
    ) throws -> Outcome {
        let base = NSTemporaryDirectory() + "strata-tool-\(UUID().uuidString)"
        let outputPath = base + ".out"
        let errorPath = base + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        let stderrPath: String? =
            switch errors {
            case .inherited: nil
            case .merged: outputPath
            case .separate: errorPath
            }
        let child = try ToolChild(
            tool, arguments, environment: environment, stdout: outputPath, stderr: stderrPath)
        let status = child.waitUntilExit()
        let read = { (path: String) in
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }
        return Outcome(
            status: status < 0 ? 128 - status : status, output: read(outputPath),
            errors: errors == .separate ? read(errorPath) : "")
    }
}

/// A tool started in the background: its stdin is `/dev/null`, its stdout and stderr go to files (or nowhere, or
/// this process's stderr); the test kills it, polls it, and waits for it with a bound.
final class ToolChild: @unchecked Sendable {
    // One test task owns a child at a time; the lock keeps `status` sound if two tasks poll it.
    private let lock = NSLock()
    private var ended: Int32?
    /// The tool and its arguments, for messages.
    let command: [String]
    #if os(Linux)
        /// The child's process id.
        let pid: pid_t
    #else
        private let process = Process()
        /// The child's process id.
        var pid: pid_t { process.processIdentifier }
    #endif

    /// Starts `tool` (an absolute path) with `arguments` and `environment` (this process's when nil). `stdout` and
    /// `stderr` are files to write (created or truncated; the same path for both interleaves them); a nil `stdout`
    /// is `/dev/null`, a nil `stderr` is this process's standard error.
    init(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil, stdout: String?,
        stderr: String?
    ) throws {
        command = [tool] + arguments
        #if os(Linux)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(
                &actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            if let stderr {
                if stderr == stdout {
                    posix_spawn_file_actions_adddup2(&actions, 1, 2)
                } else {
                    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                }
            }
            let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
            var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
            var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var child: pid_t = 0
            let spawned = posix_spawn(&child, tool, &actions, nil, &argv, &envp)
            guard spawned == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: tool, "errno": spawned])
            }
            pid = child
        #else
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            if let environment { process.environment = environment }
            process.standardInput = FileHandle.nullDevice
            let open = { (path: String) throws -> FileHandle in
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            }
            let out = try stdout.map(open)
            process.standardOutput = out ?? FileHandle.nullDevice
            if let stderr { process.standardError = stderr == stdout ? out : try open(stderr) }
            try process.run()
        #endif
    }

    /// The exit status if the child has ended (the signal that ended it as a negative number), else nil.
    var status: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let ended { return ended }
        #if os(Linux)
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            ended = Self.status(raw)
        #else
            guard !process.isRunning else { return nil }
            ended =
                process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        #endif
        return ended
    }

    /// Whether the child still runs.
    var isRunning: Bool { status == nil }

    /// Sends `signal` to the child if it still runs.
    func kill(_ signal: Int32 = SIGKILL) {
        if isRunning { _ = Foundation.kill(pid, signal) }
    }

    /// Blocks until the child ends; its exit status, or the signal that ended it as a negative number.
    func waitUntilExit() -> Int32 {
        #if os(Linux)
            lock.lock()
            defer { lock.unlock() }
            if let ended { return ended }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            let status = Self.status(raw)
            ended = status
            return status
        #else
            process.waitUntilExit()
            return status ?? -SIGKILL
        #endif
    }

    /// A `waitpid` status as an exit status, or the signal that ended the child as a negative number.
    private static func status(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : -signal
    }

    /// Waits at most `seconds` for the child to end (then kills it and records an issue); its exit status, or the
    /// signal that ended it as a negative number.
    func finish(within seconds: Double) async -> Int32 {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var killed = false
        while true {
            if let status { return status }
            if !killed && ContinuousClock.now > deadline {
                killed = true
                kill()
                Issue.record("\(command) still ran after \(seconds) s: killed")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
