// SQLiteMultiProcessTests: several processes write one SQLite file at once; no caller sees busy within the busy
// timeout, no acknowledged row is lost, observers hear other processes' commits, and a writer killed mid-transaction
// leaves its acknowledged rows and none of its open transaction.
import Foundation
import Strata
import StrataSQLite
import Synchronization
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

/// Small files through which the test and its helper processes (`strata shared-writer`) meet.
private enum Rendezvous {
    static func lines(_ path: String) -> [[Substring]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.split(separator: " ") }
    }

    static func touch(_ path: String) { _ = FileManager.default.createFile(atPath: path, contents: Data("go".utf8)) }

    static var now: Double { Date().timeIntervalSince1970 }
}

/// A helper process: `strata shared-writer`, built beside the test bundle by `swift build --build-tests`.
private struct Helper {
    let child: ToolChild

    /// Starts `strata shared-writer` with `arguments`; its standard error is this process's.
    init(_ arguments: [String]) throws {
        let strata = try #require(SQLiteMigrationCLITests.strataExecutable(), "build the strata product too")
        child = try ToolChild(strata.path, ["shared-writer"] + arguments, stdout: nil, stderr: nil)
    }

    static func writer(_ scratch: borrowing Scratch, _ writer: Int, count: Int, pause: Int = 0, timeout: Double = 5)
        throws -> Helper
    {
        try Helper([
            "--path", scratch.path, "--dir", scratch.dir, "--writer", "\(writer)", "--count", "\(count)",
            "--pause", "\(pause)", "--timeout", "\(timeout)",
        ])
    }

    /// Waits (bounded: the process is killed past `seconds`) for the helper to end; its exit status, or the
    /// signal that ended it as a negative number.
    func finish(within seconds: Double = 120) async -> Int32 { await child.finish(within: seconds) }
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

/// Waits (bounded) for `dir/name` to exist.
private func waitFor(_ dir: String, _ name: String) async throws {
    let deadline = Date().addingTimeInterval(120)
    while !FileManager.default.fileExists(atPath: dir + "/" + name) {
        guard Date() < deadline else { throw StrataError.invalidQuery("no \(name) from the helpers in 120 s") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// Waits for every writer's ready file, then starts them all at once.
private func startTogether(dir: String, writers: [Int]) async throws {
    for writer in writers { try await waitFor(dir, "ready.\(writer)") }
    Rendezvous.touch(dir + "/go")
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
        let helpers = try writers.map { try Helper.writer(scratch, $0, count: count) }
        try await startTogether(dir: dir, writers: writers)
        for (writer, helper) in zip(writers, helpers) {
            let status = await helper.finish()
            #expect(status == 0, "writer \(writer) of \(writers.count) exited \(status) (10: a caller saw busy)")
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
        let total = 1200
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
        // Saves 150 ms apart (each 8th step a transaction of three rows), started once the observer listens.
        let helper = try Helper.writer(scratch, 7, count: commits, pause: 150_000)
        try await Task.sleep(for: .milliseconds(300))
        try await startTogether(dir: dir, writers: [7])
        #expect(await helper.finish() == 0, "the committing helper")
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
        // Alone, the median is about half the interval and the worst under 150 ms; a whole `swift test` run on 2
        // cores starves the cooperative pool for seconds (median 4.9 s, worst 43 s seen), so the bound is what no
        // starvation reached; a lost notification (never fetched again) fails above, as a row never observed.
        #expect(worst <= 90, "worst latency \(worst) s")
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
        let holder = try Helper(["--path", path, "--dir", dir, "--writer", "1", "--hold", "--timeout", "300"])
        // A busy timeout past any stall of this process (a CI run saw 43 s) before it kills the holder.
        let survivor = try Helper.writer(scratch, 2, count: 120, pause: 2000, timeout: 300)
        try await startTogether(dir: dir, writers: [1, 2])
        try await waitFor(dir, "held")
        // The holder has the write lock: a caller with a 0.5 s busy timeout waits that long, then sees busy.
        let started = Date()
        var row = SharedRow(writer: 3, seq: 0)
        await #expect(throws: StrataError.busy) { try await row.save(on: impatient) }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.45, "busy after \(waited) s, before the 0.5 s timeout")
        #expect(row.id == nil, "a failed save leaves the model new")
        holder.child.kill(SIGKILL)
        #expect(await holder.finish() == -SIGKILL, "the holder was killed mid-transaction")
        #expect(await survivor.finish() == 0, "the surviving writer (10: it saw busy)")
        // The lock went with the process: this process writes again, within its timeout.
        var after = SharedRow(writer: 3, seq: 1)
        try await after.save(on: impatient)
        #expect(after.id != nil)
        let integrity = try await db.unsafeRawExecute("PRAGMA integrity_check")
        #expect(integrity == [[.text("ok")]])
        let rows = try await SharedRow.query(on: db).all()
        let killed = rows.filter { $0.writer == 1 }.map(\.seq).sorted()
        #expect(killed == Array(0..<5), "the killed writer's acknowledged rows, and not its open transaction")
        let survivorRows = Dictionary(uniqueKeysWithValues: rows.filter { $0.writer == 2 }.map { ($0.seq, $0.id) })
        let acks = acknowledgements(dir: dir, writer: 2)
        #expect(acks.count == 120, "the survivor kept writing")
        for ack in acks { #expect(survivorRows[ack.seq] == ack.id, "survivor's row \(ack.seq)") }
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
        let fetches = Atomic<Int>(0)
        let observer = Task {
            for try await rows in SharedRow.query(on: db).observe() {
                fetches.add(1, ordering: .relaxed)
                if rows.count == 1 { break }
            }
        }
        // Write once the observer has fetched (bounded), so the commit is one it must hear.
        for _ in 0..<3000 where fetches.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fetches.load(ordering: .relaxed) == 1)
        var row = SharedRow(writer: 1, seq: 1)
        try await row.save(on: other)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            observer.cancel()
        }
        defer { watchdog.cancel() }
        try await observer.value
        #expect(fetches.load(ordering: .relaxed) == 2, "the first fetch, then one after the other's commit")

        for (text, seconds) in [("250ms", 0.25), ("2s", 2.0), ("40", 0.04), ("on", 0.1), ("off", nil)]
            as [(String, Double?)]
        {
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
        #expect(SQLiteDriver(path: file.path, observeInterval: .infinity).observeInterval == 3600)
        #expect(SQLiteDriver(path: file.path, observeInterval: .nan).observeInterval == 0.01)
        #expect(SQLiteDriver(path: file.path).observeInterval == nil, "off unless asked")
    }
}
