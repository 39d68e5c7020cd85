// ToolRun: runs a command-line tool to its end and reads its stdout, through posix_spawn on Linux.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the tool the SQLite tests call most (`sqlite3`; the PostgreSQL tests run `psql` through `SpawnedCommand`).
///
/// On Linux, Foundation's `Process.run()` can crash: it reads each `/proc/self/fd` entry as a whole 256-byte
/// `dirent`, past the end of the directory buffer when an entry ends on an unmapped page (swift-corelibs-foundation
/// #5472, still in Swift 6.3.1). There the tool runs through `posix_spawn` and `waitpid`; elsewhere through
/// `Process`. The tool gets `/dev/null` as stdin, a temporary file as stdout, the test's stderr, and this process's
/// environment.
enum ToolRun {
    /// Runs `arguments` with `tool` (an absolute path) and returns its exit status (128 + the signal that ended it)
    /// and what it printed on stdout.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        #if os(Linux)
            let outputPath = NSTemporaryDirectory() + "strata-tool-\(UUID().uuidString).out"
            defer { unlink(outputPath) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            var argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, tool, &actions, nil, &argv, environ)
            guard spawned == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: tool, "errno": spawned])
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let output = FileManager.default.contents(atPath: outputPath) ?? Data()
            let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
            return (exit, String(decoding: output, as: UTF8.self))
        #else
            let p = Process()
            let out = Pipe()
            p.executableURL = URL(fileURLWithPath: tool)
            p.arguments = arguments
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: data, as: UTF8.self))
        #endif
    }
}
