// ChecksumCheckTests: a digest mismatch fails the benchmark, and the digest covers values, not lengths.
import Testing

@testable import StrataBench

@Suite("Benchmark checksums")
struct ChecksumCheckTests {
    private func digest(_ rows: [RawRecord], base: Int64 = 1) -> Digest { Digests.of(rows, base: base) }

    private func seeded(_ n: Int) -> [RawRecord] {
        (0..<n).map { k in
            var r = RecordFactory.raw(k)
            r.id = Int64(k + 1)
            return r
        }
    }

    @Test("equal digests on every side pass")
    func equalDigestsPass() throws {
        let d = digest(seeded(100))
        try ChecksumCheck.verify("sqlite fetch", [("Strata", d), ("libsqlite3", d), ("Strata", d)])
    }

    @Test("a deliberately wrong digest fails the run, naming both sides and the workload")
    func wrongDigestFails() {
        let right = digest(seeded(100))
        let wrong = Digest(value: right.value &+ 1, rows: right.rows)
        #expect {
            try ChecksumCheck.verify("postgres bulk", [("Strata", right), ("libpq", right), ("libpq", wrong)])
        } throws: { error in
            let text = "\(error)"
            return error is BenchError && text.contains("checksum mismatch in postgres bulk")
                && text.contains("Strata") && text.contains("libpq")
        }
    }

    @Test("a string of the same length with other bytes changes the digest")
    func sameLengthStringChangesDigest() {
        var rows = seeded(50)
        let before = digest(rows)
        rows[17].s2 = String(rows[17].s2.reversed())
        #expect(rows[17].s2.utf8.count == RecordFactory.raw(17).s2.utf8.count)
        #expect(digest(rows) != before)
    }

    @Test("every column counts: one ulp, one integer, one id, one missing row")
    func everyColumnCounts() {
        let rows = seeded(20)
        let before = digest(rows)
        var a = rows
        a[3].d2 = a[3].d2.nextUp
        var b = rows
        b[4].i3 += 1
        var c = rows
        c[5].id = 99
        let d = Array(rows.dropLast())
        for changed in [a, b, c, d] { #expect(digest(changed) != before) }
    }

    @Test("rows in another order give the same digest; ids count relative to the side's base")
    func orderAndBase() {
        let rows = seeded(30)
        #expect(digest(rows.reversed()) == digest(rows))
        let shifted = rows.map { r in
            var s = r
            s.id = r.id.map { $0 + 1_000 }
            return s
        }
        #expect(digest(shifted, base: 1_001) == digest(rows, base: 1))
    }

    @Test("pgbench's rate and callgrind's total are read from their output")
    func parsers() {
        let pgbench = "number of failed transactions: 0 (0.000%)\ntps = 3747.264480 (without initial connection time)\n"
        #expect(Pgbench.rate(in: pgbench) == 3747.264480)
        #expect(Pgbench.rate(in: "no figure") == nil)
        let callgrind = "events: Ir\nfl=(1) a.c\nfn=(1) main\n3 5\nsummary: 0\ntotals: 123456789\n"
        #expect(InstructionCounter.total(in: callgrind) == 123_456_789)
    }

    @Test("allocations are the calls into malloc and its kin, their names compressed or not; other calls do not count")
    func allocationParser() {
        let callgrind = """
            events: Ir
            fn=(1) main
            3 5
            cfn=(2) malloc
            calls=204 3281
            0 8364
            cfn=(3) free
            calls=50 10
            0 100
            cfn=(4) sqlite3Malloc
            calls=7 12
            0 70
            fn=(5) swift_slowAlloc
            cfn=(2)
            calls=800 3281
            0 32800
            cfn=(6) posix_memalign
            calls=3 1
            0 30
            fn=(7) other
            calls=1000 1
            0 1
            totals: 41364
            """
        // 204 + 800 mallocs and 3 posix_memaligns; the 1,000 calls after `fn=(7)` name no allocator.
        #expect(InstructionCounter.allocations(in: callgrind) == 1_007)
        #expect(InstructionCounter.allocations(in: "events: Ir\ntotals: 5\n") == 0)
    }

    @Test("binary COPY starts with PGCOPY's signature and ends with the -1 trailer")
    func binaryCopyLayout() {
        let copy = BinaryCopy()
        copy.removeAll()
        copy.append(RecordFactory.raw(1))
        copy.finish()
        #expect(Array(copy.bytes.prefix(11)) == [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
        #expect(Array(copy.bytes.suffix(2)) == [0xFF, 0xFF])
        #expect(Array(copy.bytes[19..<21]) == [0, 9])
    }
}
