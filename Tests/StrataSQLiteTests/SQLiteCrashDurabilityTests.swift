// SQLiteCrashDurabilityTests: a writer killed with SIGKILL at random moments loses no acknowledged row,
// leaves no transaction half-written, and leaves a file that passes PRAGMA integrity_check.
import Foundation
import Strata
import StrataSQLite
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One saved row; `batch` is the autocommit save or transaction it came from, `size` how many rows that
/// batch saves, so a half-written transaction shows as a batch with fewer rows.
@Model(table: "durable_row")
struct DurableRow {
    var id: Int64?
    var batch: Int64
    var seq: Int
    var size: Int
    var text: String
    var number: Double
    var payload: Data
    var at: Date

    /// The row a batch's `seq`-th save writes: a function of its place alone, so the parent can check
    /// every value without the child telling it.
    static func expected(batch: Int64, seq: Int, size: Int) -> DurableRow {
        let k = Int(batch % 997) * 31 + seq
        return DurableRow(
            batch: batch, seq: seq, size: size,
            text: "b\(batch)/\(seq) é\u{301}\u{1F600}'\"" + String(repeating: "x", count: k % 50),
            number: Double(batch) * 1.5 + Double(seq) / 7,
            payload: Data((0..<(k % 300)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seq) }),
            at: Date(timeIntervalSince1970: 1_700_000_000 + Double(batch) + Double(seq) / 1000))
    }

    func sameValues(as other: DurableRow) -> Bool {
        batch == other.batch && seq == other.seq && size == other.size && text == other.text
            && number == other.number && payload == other.payload && at == other.at
    }
}

/// SplitMix64: a small seeded generator, so a failing run can be replayed with its seed.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The child's side: saves rows until it is killed, acknowledging each save or commit after it returned.
private enum CrashingWriter {
    static func run(path: String, ackPath: String, round: Int, seed: UInt64, killAfterMicroseconds: Int) async throws {
        // The kill comes from another thread at a moment the parent drew, whatever the writer is doing.
        Thread.detachNewThread {
            usleep(useconds_t(killAfterMicroseconds))
            kill(getpid(), SIGKILL)
        }
        let db = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        try await db.migrate(DurableRow.self)
        let ack = open(ackPath, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard ack >= 0 else { exit(2) }
        var rng = SplitMix64(state: seed &+ UInt64(round))
        var batch = Int64(round) * 1_000_000
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            batch += 1
            let size = Int.random(in: 0..<3, using: &rng) == 0 ? 1 : Int.random(in: 2...5, using: &rng)
            let ids: [Int64?]
            if size == 1 && Bool.random(using: &rng) {
                var row = DurableRow.expected(batch: batch, seq: 0, size: 1)
                try await row.save(on: db)  // autocommit
                ids = [row.id]
            } else {
                let current = batch
                ids = try await db.transaction { tx in
                    try (0..<size).map { seq in
                        var row = DurableRow.expected(batch: current, seq: seq, size: size)
                        try row.save(tx)
                        return row.id
                    }
                }
            }
            // The save or commit returned: only now is the batch acknowledged, in one O_APPEND write.
            let line = "\(batch) \(size) " + ids.map { $0.map(String.init) ?? "nil" }.joined(separator: " ") + "\n"
            let written = line.utf8CString.withUnsafeBufferPointer { write(ack, $0.baseAddress, $0.count - 1) }
            guard written == line.utf8.count else { exit(2) }
        }
        exit(3)  // never killed: the parent's expectation of SIGKILL fails
    }
}

@Suite("SQLite crash durability")
struct SQLiteCrashDurabilityTests {
    @Test("24 writers killed with SIGKILL at random moments lose no acknowledged row and no half transaction")
    func killedWritersLoseNothing() async throws {
        let seed =
            ProcessInfo.processInfo.environment["STRATA_CRASH_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(
                in: 1...UInt64.max)
        print("SQLiteCrashDurabilityTests seed: \(seed) (replay with STRATA_CRASH_SEED=\(seed))")
        let file = TemporarySQLiteFile()
        let path = file.path
        let ackPath = path + ".acks"
        defer { try? FileManager.default.removeItem(atPath: ackPath) }
        var rng = SplitMix64(state: seed)
        var acknowledged = 0
        for round in 0..<24 {
            // Mostly early (during open, migration and the first commits), sometimes well into the run.
            let delay =
                Bool.random(using: &rng)
                ? Int.random(in: 0..<40_000, using: &rng) : Int.random(in: 40_000..<250_000, using: &rng)
            await #expect(processExitsWith: .signal(SIGKILL), "round \(round), seed \(seed)") {
                [
                    path = path as String, ackPath = ackPath as String, round = round as Int, seed = seed as UInt64,
                    delay = delay as Int
                ] in
                try await CrashingWriter.run(
                    path: path, ackPath: ackPath, round: round, seed: seed, killAfterMicroseconds: delay)
            }
            acknowledged = try await verify(path: path, ackPath: ackPath, round: round, seed: seed)
        }
        #expect(acknowledged > 0, "no save was acknowledged in 24 rounds (seed \(seed))")
        print("SQLiteCrashDurabilityTests: \(acknowledged) acknowledged batches survived 24 kills")
    }

    /// Checks the file after a kill; returns how many batches the writers acknowledged so far.
    private func verify(path: String, ackPath: String, round: Int, seed: UInt64) async throws -> Int {
        let context = "after kill \(round), seed \(seed)"
        let db = try Database.open("sqlite:\(path)", drivers: [.sqlite])
        defer { db.close() }
        let integrity = try await db.unsafeRawExecute("PRAGMA integrity_check")
        #expect(integrity == [[.text("ok")]], "integrity_check \(context)")
        guard try await !db.unsafeRawExecute("SELECT name FROM sqlite_master WHERE name = 'durable_row'").isEmpty else {
            // Killed before the migration committed: then nothing can have been acknowledged.
            #expect(
                (try? String(contentsOfFile: ackPath, encoding: .utf8)) ?? "" == "", "acks without a table \(context)")
            return 0
        }
        let rows = try await DurableRow.query(on: db).all()
        var byID: [Int64: DurableRow] = [:]
        var byBatch: [Int64: [DurableRow]] = [:]
        for row in rows {
            if let id = row.id { byID[id] = row }
            byBatch[row.batch, default: []].append(row)
        }
        // Every batch in the file is whole, and every row holds exactly what was saved.
        for (batch, members) in byBatch {
            let size = members[0].size
            let seqs = members.map(\.seq).sorted()
            #expect(seqs == Array(0..<size), "batch \(batch) is half-present (\(seqs) of \(size)) \(context)")
            for row in members {
                #expect(
                    row.sameValues(as: .expected(batch: batch, seq: row.seq, size: size)),
                    "row \(row.id ?? -1) of batch \(batch) holds other values \(context)")
            }
        }
        // Every acknowledged batch is there, under the ids its saves returned.
        let acks = (try? String(contentsOfFile: ackPath, encoding: .utf8)) ?? ""
        var count = 0
        for line in acks.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3, let batch = Int64(fields[0]), let size = Int(fields[1]), fields.count == 2 + size
            else {
                Issue.record("malformed acknowledgement \(line.debugDescription) \(context)")
                continue
            }
            count += 1
            for (seq, field) in fields.dropFirst(2).enumerated() {
                guard let id = Int64(field), let row = byID[id] else {
                    Issue.record("acknowledged row \(field) of batch \(batch) is missing \(context)")
                    continue
                }
                #expect(
                    row.sameValues(as: .expected(batch: batch, seq: seq, size: size)),
                    "acknowledged row \(id) of batch \(batch) changed \(context)")
            }
        }
        return count
    }
}
