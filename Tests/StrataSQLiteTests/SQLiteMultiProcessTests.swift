// SQLiteMultiProcessTests: several processes write one SQLite file at once; no caller sees busy within the busy
// timeout, no acknowledged row is lost, observers hear other processes' commits, and a writer killed mid-transaction
// leaves its acknowledged rows and none of its open transaction.
import Foundation
import Strata
import StrataSQLite
import Testing

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

/// Small files through which the test and its helper processes meet.
private enum Rendezvous {
    /// Appends one line with a single O_APPEND write, so lines of one file never interleave.
    static func append(_ line: String, to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { exit(13) }
        defer { close(fd) }
        let text = line + "\n"
        let written = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        guard written == text.utf8.count else { exit(13) }
    }

    static func lines(_ path: String) -> [[Substring]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.split(separator: " ") }
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

    static var now: Double { Date().timeIntervalSince1970 }
}

/// The helper processes' side, run as exit tests (a child process of the test binary), through the public API.
private enum Helper {
    /// Opens the file, says it is ready, waits for `go`, then saves `count` rows (every 8th step a transaction
    /// of three), appending `writer seq id time` to `acks.<writer>` after each save or commit returned.
    /// Exits 10 when a call threw `busy`, 11 on another error.
    static func write(path: String, dir: String, writer: Int, count: Int, timeout: Double, pause: Int) async {
        do {
            let db = try Database.open(
                "sqlite:\(path)", drivers: [.sqlite], configuration: Configuration(timeout: timeout))
            try await db.migrate(SharedRow.self)
            Rendezvous.append("\(getpid())", to: dir + "/ready.\(writer)")
            guard Rendezvous.wait(for: dir + "/go", seconds: 120) else { exit(12) }
            let acks = dir + "/acks.\(writer)"
            let start = Rendezvous.now
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
                    let at = Rendezvous.now
                    for (i, id) in ids.enumerated() {
                        Rendezvous.append("\(writer) \(first + i) \(id) \(at)", to: acks)
                    }
                    seq += 3
                } else {
                    var row = SharedRow(writer: writer, seq: seq)
                    try await row.save(on: db)
                    Rendezvous.append("\(writer) \(seq) \(row.id ?? -1) \(Rendezvous.now)", to: acks)
                    seq += 1
                }
                if pause > 0 { usleep(useconds_t(pause)) }
            }
            Rendezvous.append("\(start) \(Rendezvous.now)", to: dir + "/times.\(writer)")
            db.close()
        } catch StrataError.busy {
            exit(10)
        } catch {
            FileHandle.standardError.write(Data("helper \(writer): \(error)\n".utf8))
            exit(11)
        }
    }

    /// Saves 5 acknowledged rows, then opens a transaction, saves 3 rows (seq 100…102) and, holding the write
    /// lock, writes its pid to `held` and sleeps until it is killed (exits 3 if it never is).
    static func holdTransaction(path: String, dir: String, writer: Int) async {
        do {
            let db = try Database.open("sqlite:\(path)", drivers: [.sqlite], configuration: Configuration(timeout: 10))
            try await db.migrate(SharedRow.self)
            for seq in 0..<5 {
                var row = SharedRow(writer: writer, seq: seq)
                try await row.save(on: db)
                Rendezvous.append("\(writer) \(seq) \(row.id ?? -1) \(Rendezvous.now)", to: dir + "/acks.\(writer)")
            }
            try await db.transaction { tx in
                for seq in 100..<103 {
                    var row = SharedRow(writer: writer, seq: seq)
                    try row.save(tx)
                }
                Rendezvous.append("\(getpid())", to: dir + "/held")
                for _ in 0..<600 { usleep(50_000) }  // 30 s at most
            }
            exit(3)
        } catch {
            FileHandle.standardError.write(Data("holder: \(error)\n".utf8))
            exit(11)
        }
    }
}

/// A scratch directory for one test's file and rendezvous files, removed at the end.
private struct Scratch: ~Copyable {
    let dir: String
    var path: String { dir + "/shared.sqlite" }

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }
}

/// What `acks.<writer>` says: `(seq, id, time)` of each acknowledged row.
private func acknowledgements(dir: String, writer: Int) -> [(seq: Int, id: Int64, at: Double)] {
    Rendezvous.lines(dir + "/acks.\(writer)").compactMap { f in
        guard f.count == 4, let seq = Int(f[1]), let id = Int64(f[2]), let at = Double(f[3]) else { return nil }
        return (seq, id, at)
    }
}

/// Waits (bounded) for every writer's ready file, then starts them all at once.
private func startTogether(dir: String, writers: [Int]) async throws {
    let deadline = Date().addingTimeInterval(120)
    while !writers.allSatisfy({ FileManager.default.fileExists(atPath: dir + "/ready.\($0)") }) {
        guard Date() < deadline else { throw StrataError.invalidQuery("helpers never got ready") }
        try await Task.sleep(for: .milliseconds(5))
    }
    Rendezvous.append("go", to: dir + "/go")
}

@Suite("SQLite multi-process")
struct SQLiteMultiProcessTests {
    /// Runs `writers` helper processes, `count` rows each, on a fresh file; checks every acknowledged row and
    /// returns the rows per second from the first start to the last finish.
    private func writeConcurrently(writers: [Int], count: Int) async throws -> Double {
        let scratch = try Scratch()
        let (path, dir) = (scratch.path, scratch.dir)
        let db = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(SharedRow.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in writers {
                group.addTask {
                    await #expect(processExitsWith: .success, "writer \(writer) of \(writers.count)") {
                        [path = path as String, dir = dir as String, writer = writer as Int, count = count as Int] in
                        await Helper.write(path: path, dir: dir, writer: writer, count: count, timeout: 5, pause: 0)
                    }
                }
            }
            try await startTogether(dir: dir, writers: writers)
            try await group.waitForAll()
        }
        let rows = try await SharedRow.query(on: db).all()
        #expect(rows.count == writers.count * count, "\(writers.count) writers")
        let byKey = Dictionary(uniqueKeysWithValues: rows.map { ("\($0.writer)/\($0.seq)", $0.id) })
        var starts: [Double] = []
        var ends: [Double] = []
        for writer in writers {
            let acks = acknowledgements(dir: dir, writer: writer)
            #expect(acks.count == count, "writer \(writer) acknowledged \(acks.count) of \(count)")
            for ack in acks {
                #expect(byKey["\(writer)/\(ack.seq)"] == ack.id, "acknowledged row \(writer)/\(ack.seq) is missing")
            }
            for f in Rendezvous.lines(dir + "/times.\(writer)") where f.count == 2 {
                if let s = Double(f[0]), let e = Double(f[1]) {
                    starts.append(s)
                    ends.append(e)
                }
            }
        }
        let integrity = try await db.unsafeRawExecute("PRAGMA integrity_check")
        #expect(integrity == [[.text("ok")]])
        guard let first = starts.min(), let last = ends.max(), last > first else { return 0 }
        return Double(writers.count * count) / (last - first)
    }

    @Test("one, two and three processes write one file: every acknowledged row is there, no caller saw busy")
    func concurrentWriters() async throws {
        let total = 240
        var figures: [String] = []
        for n in 1...3 {
            let rate = try await writeConcurrently(writers: Array(1...n), count: total / n)
            figures.append("\(n) process\(n == 1 ? "" : "es"): \(Int(rate)) rows/s")
        }
        print("SQLiteMultiProcessTests throughput (\(total) rows in all): " + figures.joined(separator: ", "))
    }

    @Test("observe() in this process sees another process's commits within the interval plus slack")
    func observationAcrossProcesses() async throws {
        let scratch = try Scratch()
        let (path, dir) = (scratch.path, scratch.dir)
        let db = try Database.open("sqlite:\(path)?observe_interval=100ms", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(SharedRow.self)
        let commits = 20
        let observer = Task { () -> [(count: Int, at: Double)] in
            var seen: [(count: Int, at: Double)] = []
            for try await rows in SharedRow.query(on: db).where(\.writer == 7).order(\.seq).observe() {
                seen.append((rows.count, Rendezvous.now))
                if rows.count >= commits { break }
            }
            return seen
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            observer.cancel()
        }
        defer { watchdog.cancel() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await #expect(processExitsWith: .success, "the committing helper") {
                    [path = path as String, dir = dir as String, commits = commits as Int] in
                    // Saves 150 ms apart (each 8th step a transaction of three rows).
                    await Helper.write(path: path, dir: dir, writer: 7, count: commits, timeout: 5, pause: 150_000)
                }
            }
            // Start once the observer has fetched once (so it listens) and the helper is ready.
            try? await Task.sleep(for: .milliseconds(300))
            do { try await startTogether(dir: dir, writers: [7]) } catch { Issue.record(error) }
        }
        let seen = try await observer.value
        let acks = acknowledgements(dir: dir, writer: 7)
        #expect(acks.count == commits)
        // Each acknowledged row's latency: from its save or commit returning to the first fetch that showed it.
        var latencies: [Double] = []
        for ack in acks {
            guard let shown = seen.first(where: { $0.count > ack.seq }) else {
                Issue.record("row \(ack.seq) was never observed")
                continue
            }
            latencies.append(max(0, shown.at - ack.at))
        }
        latencies.sort()
        let median = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
        let worst = latencies.last ?? 0
        print(
            "SQLiteMultiProcessTests observation latency over \(latencies.count) commits: median "
                + "\(Int(median * 1000)) ms, max \(Int(worst * 1000)) ms (interval 100 ms)")
        #expect(median <= 0.1 + 0.15, "median latency \(median) s")
        #expect(worst <= 0.1 + 1.0, "worst latency \(worst) s")
    }

    @Test("a writer SIGKILLed mid-transaction: busy after the timeout, then nothing acknowledged is lost")
    func writerKilledMidTransaction() async throws {
        let scratch = try Scratch()
        let (path, dir) = (scratch.path, scratch.dir)
        let db = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(SharedRow.self)
        let impatient = try Database.open(
            "sqlite:\(path)", drivers: [.sqlite], configuration: Configuration(timeout: 0.5))
        defer { impatient.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await #expect(processExitsWith: .signal(SIGKILL), "the writer killed mid-transaction") {
                    [path = path as String, dir = dir as String] in
                    await Helper.holdTransaction(path: path, dir: dir, writer: 1)
                }
            }
            group.addTask {
                await #expect(processExitsWith: .success, "the surviving writer") {
                    [path = path as String, dir = dir as String] in
                    await Helper.write(path: path, dir: dir, writer: 2, count: 120, timeout: 10, pause: 2000)
                }
            }
            try await startTogether(dir: dir, writers: [2])
            let deadline = Date().addingTimeInterval(120)
            while !FileManager.default.fileExists(atPath: dir + "/held") {
                guard Date() < deadline else { throw StrataError.invalidQuery("the holder never held the lock") }
                try await Task.sleep(for: .milliseconds(5))
            }
            // The holder has the write lock: a caller with a 0.5 s busy timeout waits that long, then sees busy.
            let started = Date()
            var row = SharedRow(writer: 3, seq: 0)
            await #expect(throws: StrataError.busy) { try await row.save(on: impatient) }
            let waited = Date().timeIntervalSince(started)
            #expect(waited >= 0.45, "busy after \(waited) s, before the 0.5 s timeout")
            #expect(row.id == nil, "a failed save leaves the model new")
            let pid = try #require(Rendezvous.lines(dir + "/held").first.flatMap { Int32($0[0]) })
            kill(pid, SIGKILL)
            try await group.waitForAll()
        }
        // The lock went with the process: this process writes again, within its timeout.
        var after = SharedRow(writer: 3, seq: 1)
        try await after.save(on: impatient)
        #expect(after.id != nil)
        let integrity = try await db.unsafeRawExecute("PRAGMA integrity_check")
        #expect(integrity == [[.text("ok")]])
        let rows = try await SharedRow.query(on: db).all()
        let killed = rows.filter { $0.writer == 1 }.map(\.seq).sorted()
        #expect(killed == Array(0..<5), "the killed writer's acknowledged rows, and not its open transaction")
        let survivor = Dictionary(uniqueKeysWithValues: rows.filter { $0.writer == 2 }.map { ($0.seq, $0.id) })
        let acks = acknowledgements(dir: dir, writer: 2)
        #expect(acks.count == 120, "the survivor kept writing")
        for ack in acks { #expect(survivor[ack.seq] == ack.id, "survivor's row \(ack.seq)") }
        #expect(acknowledgements(dir: dir, writer: 1).count == 5)
    }

    @Test("another connection's commit reaches observers; observe_interval is read and checked")
    func observeIntervalSetting() async throws {
        let file = TemporarySQLiteFile()
        let db = try Database.open("sqlite:\(file.path)?observe_interval=20ms", drivers: [.sqlite])
        defer { db.close() }
        try await db.migrate(SharedRow.self)
        // A second Database on the same file stands for another process: its commits are not announced here.
        let other = try Database.open("sqlite:\(file.path)?observe_interval=off", drivers: [.sqlite])
        defer { other.close() }
        let observer = Task { () -> Int in
            var fetches = 0
            for try await rows in SharedRow.query(on: db).observe() {
                fetches += 1
                if rows.count == 1 { break }
            }
            return fetches
        }
        try await Task.sleep(for: .milliseconds(200))
        var row = SharedRow(writer: 1, seq: 1)
        try await row.save(on: other)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            observer.cancel()
        }
        defer { watchdog.cancel() }
        #expect(try await observer.value >= 2)

        for (text, seconds) in [("250ms", 0.25), ("2s", 2.0), ("40", 0.04), ("off", nil)] as [(String, Double?)] {
            let url = try DatabaseURL("sqlite:\(file.path)?observe_interval=\(text)", drivers: [.sqlite])
            let driver = try #require(try DriverFactory.sqlite.make(url, Configuration()) as? SQLiteDriver)
            #expect(driver.observeInterval == seconds, "observe_interval=\(text)")
        }
        for bad in ["5ms", "0", "fast", "-1s", "2h"] {
            #expect(throws: StrataError.self) {
                try Database.open("sqlite:\(file.path)?observe_interval=\(bad)", drivers: [.sqlite])
            }
        }
        let off = SQLiteDriver(path: file.path, observeInterval: nil)
        #expect(off.listenForCommits { _ in } == nil)
        #expect(SQLiteDriver(path: ":memory:").listenForCommits { _ in } == nil)
        #expect(SQLiteDriver(path: file.path, observeInterval: 0.001).observeInterval == 0.01)
        #expect(SQLiteDriver(path: file.path).observeInterval == 0.1)
    }
}
