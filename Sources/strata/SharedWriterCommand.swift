// SharedWriterCommand: a hidden helper that writes rows into a SQLite file other processes write too (the
// multi-process tests start several at once).
import ArgumentParser
import Foundation
import Strata
import StrataSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One row a process wrote: `(writer, seq)` is unique, so each process's rows are its own.
@Model(table: "shared_row")
struct SharedRow {
    var id: Int64?
    var writer: Int
    var seq: Int

    static var indexes: [Index] { [.on(\SharedRow.writer, \SharedRow.seq, unique: true)] }
}

/// `strata shared-writer`: opens the file, appends its pid to `DIR/ready.W`, waits for `DIR/go`, then saves
/// `--count` rows (every 8th step a transaction of three), appending `writer seq id time` to `DIR/acks.W` after
/// each save or commit returned, and `start end` to `DIR/times.W`. With `--hold`, after `go` it saves 5 rows, opens a
/// transaction, saves 3 more (seq 100…102), appends its pid to `DIR/held` and sleeps, holding the write lock,
/// until it is killed. `--parameters` are added to the file's URL (the Litestream tests set `wal_autocheckpoint`).
/// Exits 10 when a call threw `busy`, 11 on another error, 12 when `go` never came.
struct SharedWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-writer", abstract: "Test helper: writes rows into a shared SQLite file.",
        shouldDisplay: false)

    @Option var path: String
    @Option var dir: String
    @Option var writer: Int
    @Option var count = 100
    @Option(help: "The busy timeout, in seconds.") var timeout = 5.0
    @Option(help: "Microseconds to sleep after each save or commit.") var pause = 0
    @Flag var hold = false
    @Option(help: "URL parameters for the file, e.g. wal_autocheckpoint=0.") var parameters = ""

    func run() async throws {
        do {
            let db = try Database.open(
                "sqlite:\(path)" + (parameters.isEmpty ? "" : "?" + parameters), drivers: [.sqlite],
                configuration: Configuration(timeout: timeout))
            try await db.migrate(SharedRow.self)
            Self.append("\(getpid())", to: dir + "/ready.\(writer)")
            guard Self.wait(for: dir + "/go", seconds: 120) else { quit(12) }
            if hold { try await holdTransaction(db) }
            let start = Self.now
            try await writeRows(db)
            Self.append("\(start) \(Self.now)", to: dir + "/times.\(writer)")
            db.close()
        } catch StrataError.busy {
            quit(10)
        } catch {
            FileHandle.standardError.write(Data("shared-writer \(writer): \(error)\n".utf8))
            quit(11)
        }
    }

    private func writeRows(_ db: Database) async throws {
        let (writer, acks) = (writer, dir + "/acks.\(writer)")
        var seq = 0
        while seq < count {
            if seq % 8 == 4 && seq + 3 <= count {
                let first = seq
                let ids = try await db.transaction { tx in
                    try (first..<first + 3).map { s in
                        var row = SharedRow(writer: writer, seq: s)
                        try row.save(tx)
                        return row.id ?? -1
                    }
                }
                let at = Self.now
                for (i, id) in ids.enumerated() { Self.append("\(writer) \(first + i) \(id) \(at)", to: acks) }
                seq += 3
            } else {
                var row = SharedRow(writer: writer, seq: seq)
                try await row.save(on: db)
                Self.append("\(writer) \(seq) \(row.id ?? -1) \(Self.now)", to: acks)
                seq += 1
            }
            if pause > 0 { usleep(useconds_t(pause)) }
        }
    }

    private func holdTransaction(_ db: Database) async throws -> Never {
        let (writer, dir) = (writer, dir)
        for seq in 0..<5 {
            var row = SharedRow(writer: writer, seq: seq)
            try await row.save(on: db)
            Self.append("\(writer) \(seq) \(row.id ?? -1) \(Self.now)", to: dir + "/acks.\(writer)")
        }
        try await db.transaction { tx in
            for seq in 100..<103 {
                var row = SharedRow(writer: writer, seq: seq)
                try row.save(tx)
            }
            Self.append("\(getpid())", to: dir + "/held")
            // 300 s at most: the test kills it long before, unless a whole test run starves the test's tasks
            // (a CI run saw 43 s); then the holder must still hold, not commit.
            for _ in 0..<6000 { usleep(50_000) }
        }
        quit(3)
    }

    static var now: Double { Date().timeIntervalSince1970 }

    /// Appends one line with a single O_APPEND write, so that lines never interleave.
    static func append(_ line: String, to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { quit(13) }
        defer { close(fd) }
        let text = line + "\n"
        let written = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        guard written == text.utf8.count else { quit(13) }
    }

    /// Waits (in 5 ms naps, at most `seconds`) for a file to exist; whether it does.
    static func wait(for path: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !FileManager.default.fileExists(atPath: path) {
            if Date() > deadline { return false }
            usleep(5000)
        }
        return true
    }
}

/// Ends the process with `code` (the C library's `exit`, which the command's own `exit(withError:)` hides).
private func quit(_ code: Int32) -> Never { exit(code) }
