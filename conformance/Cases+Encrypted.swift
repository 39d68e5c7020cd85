// Cases+Encrypted: `@Encrypted` columns round-trip, rotate keys, filter deterministically and fail typed, alike.
import Foundation
import Strata
import StrataEncryption

/// A model with encrypted columns of several Swift types.
@Model(table: "conf_secret")
struct ConfSecret: Equatable {
    var id: Int64?
    var label: String
    @Encrypted var note: String
    @Encrypted(.deterministic) var ssn: String
    @Encrypted var memo: String?
    @Encrypted var age: Int?
    @Encrypted var born: Date?
    @Encrypted var balance: Decimal?
    @Encrypted var ratio: Double?
    @Encrypted var flag: Bool?
    @Encrypted var token: UUID?
    @Encrypted var bytes: Data?
    @Encrypted var tags: [String] = []
    static var indexes: [Index] { [.on(\ConfSecret.ssn, unique: true)] }
}

/// The same table read in clear: the envelopes as stored.
@Model(table: "conf_secret")
struct ConfSecretStored {
    var id: Int64?
    var label: String
    var note: Data
    var ssn: Data
    var memo: Data?
}

enum EncryptedWorld {
    static let key1 = Data((0..<32).map { UInt8($0) })
    static let key2 = Data((0..<32).map { UInt8(255 - $0) })

    static func keyring(_ keys: (String, Data)...) throws -> AESGCMKeyring {
        try AESGCMKeyring(keys.map { id, bytes in try AESGCMKeyring.Key(id: id, bytes: bytes) })
    }

    /// A database over `db`'s driver whose configuration holds `keyring` (nil: none).
    static func database(_ db: Database, _ keyring: AESGCMKeyring?) -> Database {
        var configuration = db.configuration
        configuration.encryption = keyring
        return Database(driver: db.driver, configuration: configuration)
    }

    static func full(_ k: Int) -> ConfSecret {
        ConfSecret(
            label: "row \(k)", note: "note ✓ \(k)", ssn: "123-45-\(6000 + k)", memo: k % 2 == 0 ? nil : "memo \(k)",
            age: k % 2 == 0 ? nil : 40 + k,
            born: DatabaseValue.roundedToMicroseconds(Date(timeIntervalSince1970: 1_700_000_000.123456 + Double(k))),
            balance: Decimal(string: "-12345678901234.567\(k)"), ratio: Double(k) / 3, flag: k % 2 == 0,
            token: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", k)),
            bytes: Data([UInt8(k), 0, 255]), tags: ["a\(k)", "ü"])
    }

    /// The key id an envelope names.
    static func keyID(_ envelope: Data) -> String? {
        let b = [UInt8](envelope)
        guard b.count > 2, b[0] == 1, b.count >= 2 + Int(b[1]) else { return nil }
        return String(bytes: b[2..<(2 + Int(b[1]))], encoding: .utf8)
    }

    static func isEncrypted(_ e: StrataError, column: String) -> Bool {
        if case .encryptedColumn(model: "ConfSecret", column: column, _) = e { return true }
        return false
    }

    /// Rows and stored envelopes, to show that a failure lost nothing.
    static func stored(_ db: Database) async throws -> [Int64: Data] {
        var out: [Int64: Data] = [:]
        for s in try await ConfSecretStored.query(on: db).all() { out[s.id ?? -1] = s.note }
        return out
    }
}

extension ConformanceSuite {
    static let encryptedCases: [ConformanceCase] = [
        ConformanceCase("encrypted.round-trip-of-types-on-every-write-path") { plain in
            let db = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var one = EncryptedWorld.full(1)
            try await one.save(on: db)
            var bare = ConfSecret(label: "bare", note: "", ssn: "000")
            try await bare.save(on: db)
            var many = [EncryptedWorld.full(2), EncryptedWorld.full(3)]
            try await ConfSecret.insertAll(&many, on: db)
            try await ConfSecret.load([EncryptedWorld.full(4), EncryptedWorld.full(5)], on: db)
            var up = EncryptedWorld.full(6)
            try await up.upsert(on: db, onConflict: \ConfSecret.ssn)
            for expected in [one, bare, many[0], many[1], up] {
                let found = try await ConfSecret.find(try unwrap(expected.id), on: db)
                try checkEqual(found, expected, "find reads \(expected.label) back whole")
            }
            let all = try await ConfSecret.query(on: db).order(\.label).all()
            try checkEqual(all.count, 7, "every write path stored its rows")
            try checkEqual(all.map(\.label), ["bare"] + (1...6).map { "row \($0)" }, "labels in order")
            for (k, m) in all.dropFirst().enumerated() {
                var want = EncryptedWorld.full(k + 1)
                want.id = m.id
                try checkEqual(m, want, "row \(k + 1) reads back whole")
            }
            try checkEqual(try await ConfSecret.query(on: db).values(\.note).sorted().first, "", "values() opens")
            for s in try await ConfSecretStored.query(on: db).all() {
                try check(EncryptedWorld.keyID(s.note) == "k1", "each note is an envelope under k1")
                try check(!String(decoding: s.note, as: UTF8.self).contains("note"), "no plaintext is stored")
            }
        },
        ConformanceCase("encrypted.update-writes-a-changed-property") { plain in
            let db = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var s = EncryptedWorld.full(1)
            try await s.save(on: db)
            let before = try await EncryptedWorld.stored(db)
            s.note = "changed"
            s.age = nil
            try await s.save(on: db)
            try checkEqual(try await ConfSecret.find(try unwrap(s.id), on: db), s, "the change is read back")
            try check(try await EncryptedWorld.stored(db) != before, "a new envelope is stored")
            let n = try await ConfSecret.query(on: db).where(\.ssn == s.ssn).set(\.note, to: "bulk").update()
            try checkEqual(n, 1, "a bulk update sealed its value and matched by the deterministic column")
            try checkEqual(try await ConfSecret.find(try unwrap(s.id), on: db)?.note, "bulk", "bulk value opens")
        },
        ConformanceCase("encrypted.rotation-reads-old-keys-writes-the-new") { plain in
            let old = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { old.close() }
            try await old.migrate(ConfSecret.self)
            var a = EncryptedWorld.full(1)
            try await a.save(on: old)
            let rotated = EncryptedWorld.database(
                plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1), ("k2", EncryptedWorld.key2)))
            defer { rotated.close() }
            try await ConformanceSuite.requireSameData(old, rotated, probe: ConfSecret.self)
            var b = EncryptedWorld.full(2)
            try await b.save(on: rotated)
            try checkEqual(try await ConfSecret.find(try unwrap(a.id), on: rotated), a, "k1's row opens")
            try checkEqual(try await ConfSecret.find(try unwrap(b.id), on: rotated), b, "k2's row opens")
            var stored = try await EncryptedWorld.stored(rotated)
            try checkEqual(EncryptedWorld.keyID(try unwrap(stored[try unwrap(a.id)])), "k1", "a stays under k1")
            try checkEqual(EncryptedWorld.keyID(try unwrap(stored[try unwrap(b.id)])), "k2", "b is sealed under k2")
            let found = try await ConfSecret.query(on: rotated).where(\.ssn == a.ssn).all()
            try checkEqual(found.map(\.id), [a.id], "equality finds a row sealed under the older key")
            let both = try await ConfSecret.query(on: rotated).where(\.ssn, in: [a.ssn, b.ssn]).order(\.label).all()
            try checkEqual(both.map(\.id), [a.id, b.id], "IN finds rows under either key")
            a.note = "rewritten"
            try await a.save(on: rotated)
            stored = try await EncryptedWorld.stored(rotated)
            try checkEqual(EncryptedWorld.keyID(try unwrap(stored[try unwrap(a.id)])), "k2", "a rewrite takes k2")
            try checkEqual(try await ConfSecret.find(try unwrap(a.id), on: rotated)?.note, "rewritten", "and opens")
        },
        ConformanceCase("encrypted.deterministic-equality-and-unique-index") { plain in
            let db = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var a = ConfSecret(label: "a", note: "same", ssn: "111")
            var b = ConfSecret(label: "b", note: "same", ssn: "222")
            try await a.save(on: db)
            try await b.save(on: db)
            let stored = try await ConfSecretStored.query(on: db).order(\.label).all()
            try check(stored[0].note != stored[1].note, "randomized: equal notes give different envelopes")
            try checkEqual(try await ConfSecret.query(on: db).where(\.ssn == "222").all().map(\.id), [b.id], "==")
            try checkEqual(try await ConfSecret.query(on: db).where(\.ssn != "222").all().map(\.id), [a.id], "!=")
            try checkEqual(
                try await ConfSecret.query(on: db).where(\.ssn, in: ["111", "222", "333"]).count(), 2, "IN")
            try checkEqual(try await ConfSecret.query(on: db).where(\.ssn == "333").count(), 0, "no match")
            var twin = ConfSecret(label: "twin", note: "x", ssn: "111")
            try await checkThrows(
                "a second row with the same deterministic value",
                { $0 == .uniqueViolation(table: "conf_secret", columns: ["ssn"]) }
            ) { try await twin.save(on: db) }
            try checkEqual(twin.id, nil, "the failed insert left the model new")
            try checkEqual(try await ConfSecret.query(on: db).count(), 2, "nothing was written")
            try checkEqual(
                try await ConfSecret.query(on: db).where(\.ssn == "111").delete(), 1, "a delete filters by envelope")
        },
        ConformanceCase("encrypted.other-operators-refused-before-the-driver") { plain in
            let db = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var a = EncryptedWorld.full(1)
            try await a.save(on: db)
            let ran = db.statementCount
            let q = ConfSecret.query(on: db)
            try await checkThrows("== on a randomized column", { EncryptedWorld.isEncrypted($0, column: "note") }) {
                try await q.where(\.note == "x").all()
            }
            try await checkThrows("a range", { EncryptedWorld.isEncrypted($0, column: "ssn") }) {
                try await q.where(\.ssn > "1").all()
            }
            try await checkThrows("LIKE", { EncryptedWorld.isEncrypted($0, column: "ssn") }) {
                try await q.where(\.ssn ~~ "1%").all()
            }
            try await checkThrows("ORDER BY", { EncryptedWorld.isEncrypted($0, column: "ssn") }) {
                try await q.order(\.ssn).all()
            }
            try await checkThrows("an aggregate", { EncryptedWorld.isEncrypted($0, column: "age") }) {
                try await db.withConnection { tx in try ConfSecret.query(on: tx).max(\.age) }
            }
            try await checkThrows("a range in a delete", { EncryptedWorld.isEncrypted($0, column: "ssn") }) {
                try await q.where(\.ssn < "9").delete()
            }
            try checkEqual(db.statementCount, ran, "no refused query reached the driver")
            try checkEqual(try await ConfSecret.query(on: db).count(), 1, "nothing was deleted")
        },
        ConformanceCase("encrypted.a-joined-models-columns-filter-by-envelope-or-refuse") { plain in
            let db = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var a = ConfSecret(label: "a", note: "n", ssn: "111")
            var b = ConfSecret(label: "b", note: "n", ssn: "222")
            try await a.save(on: db)
            try await b.save(on: db)
            let joined = ConfSecret.query(on: db).join(ConfSecret.self, on: \.id, equals: \.id)
            try checkEqual(
                try await joined.where(ConfSecret.self, \.ssn == "222").all().map(\.label), ["b"],
                "== on a joined deterministic column compares envelopes")
            let ran = db.statementCount
            try await checkThrows(
                "== on a joined randomized column", { EncryptedWorld.isEncrypted($0, column: "note") }
            ) {
                try await joined.where(ConfSecret.self, \.note == "n").all()
            }
            try await checkThrows(
                "ORDER BY a joined encrypted column", { EncryptedWorld.isEncrypted($0, column: "ssn") }
            ) {
                try await joined.order(ConfSecret.self, \.ssn).all()
            }
            try checkEqual(db.statementCount, ran, "no refused query reached the driver")
        },
        ConformanceCase("encrypted.tampered-envelope-is-a-typed-error") { plain in
            let db = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var a = EncryptedWorld.full(1)
            var b = EncryptedWorld.full(2)
            try await a.save(on: db)
            try await b.save(on: db)
            var raw = try unwrap(try await ConfSecretStored.find(try unwrap(a.id), on: db))
            let original = raw.note
            var altered = [UInt8](original)
            altered[altered.count - 20] ^= 0x01  // a ciphertext byte, as an edit on disk would
            raw.note = Data(altered)
            try await raw.save(on: db)
            try await checkThrows("reading the altered row", { EncryptedWorld.isEncrypted($0, column: "note") }) {
                try await ConfSecret.find(try unwrap(a.id), on: db)
            }
            try await checkThrows("a query over it", { EncryptedWorld.isEncrypted($0, column: "note") }) {
                try await ConfSecret.query(on: db).all()
            }
            try checkEqual(try await ConfSecret.find(try unwrap(b.id), on: db), b, "the other row still opens")
            raw.memo = raw.note
            raw.note = original
            raw.memo = try unwrap(try await ConfSecretStored.find(try unwrap(b.id), on: db)).note
            try await raw.save(on: db)
            try await checkThrows("another column's envelope", { EncryptedWorld.isEncrypted($0, column: "memo") }) {
                try await ConfSecret.find(try unwrap(a.id), on: db)
            }
            raw.memo = nil
            try await raw.save(on: db)
            a.memo = nil
            try checkEqual(try await ConfSecret.find(try unwrap(a.id), on: db), a, "restored bytes open: nothing lost")
        },
        ConformanceCase("encrypted.wrong-or-missing-key-is-a-typed-error") { plain in
            let db = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key1)))
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var a = EncryptedWorld.full(1)
            try await a.save(on: db)
            let wrong = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k1", EncryptedWorld.key2)))
            defer { wrong.close() }
            let other = EncryptedWorld.database(plain, try EncryptedWorld.keyring(("k9", EncryptedWorld.key1)))
            defer { other.close() }
            let none = EncryptedWorld.database(plain, nil)
            defer { none.close() }
            try await ConformanceSuite.requireSameData(db, wrong, probe: ConfSecret.self)
            for (what, candidate) in [("a wrong key", wrong), ("an unknown key id", other), ("no keyring", none)] {
                try await checkThrows(what, { EncryptedWorld.isEncrypted($0, column: "note") }) {
                    try await ConfSecret.find(try unwrap(a.id), on: candidate)
                }
            }
            var fresh = EncryptedWorld.full(2)
            let ran = none.statementCount
            try await checkThrows("a write without keyring", { EncryptedWorld.isEncrypted($0, column: "note") }) {
                try await fresh.save(on: none)
            }
            try checkEqual(fresh.id, nil, "the model is as it was")
            try checkEqual(none.statementCount, ran, "nothing reached the driver")
            try checkEqual(try await ConfSecret.find(try unwrap(a.id), on: db), a, "the right key still opens")
        },
        ConformanceCase("encrypted.logs-never-show-plaintext") { plain in
            let logs = CapturedLogs()
            let keyring = try EncryptedWorld.keyring(("k1", EncryptedWorld.key1))
            let db = try await ConformanceSuite.observed(plain) {
                $0.encryption = keyring
                $0.logger = logs.logger(level: .trace)
                $0.logBoundValues = true
            }
            defer { db.close() }
            try await db.migrate(ConfSecret.self)
            var a = ConfSecret(label: "a", note: "hunter2-note", ssn: "hunter2-ssn", memo: "hunter2-memo")
            try await a.save(on: db)
            a.note = "hunter2-changed"
            try await a.save(on: db)
            _ = try await ConfSecret.query(on: db).where(\.ssn == "hunter2-ssn").all()
            _ = try await ConfSecret.query(on: db).where(\.ssn, in: ["hunter2-in"]).all()
            try await checkThrows("a refused filter", { EncryptedWorld.isEncrypted($0, column: "ssn") }) {
                try await ConfSecret.query(on: db).where(\.ssn > "hunter2-range").all()
            }
            try check(logs.records.count > 3, "statements were logged (\(logs.records.count))")
            for record in logs.records {
                let text = record.message + " " + record.metadata.values.joined(separator: " ")
                try check(!text.contains("hunter2"), "no log shows a plaintext: \(text)")
            }
        },
        ConformanceCase("encrypted.key-of-the-wrong-size-is-refused") { _ in
            for size in [0, 16, 31, 33] {
                try checkThrowsSync("a \(size)-byte key", { $0 == .invalidArgument("key", reason: "") || isKey($0) }) {
                    try AESGCMKeyring.Key(id: "k", bytes: Data(repeating: 7, count: size))
                }
            }
            try checkThrowsSync(
                "an empty keyring", { if case .invalidArgument("keys", _) = $0 { true } else { false } }
            ) {
                try AESGCMKeyring([])
            }
            try checkThrowsSync("a repeated id", { if case .invalidArgument("keys", _) = $0 { true } else { false } }) {
                try EncryptedWorld.keyring(("k", EncryptedWorld.key1), ("k", EncryptedWorld.key2))
            }
            try checkThrowsSync("a key that is not base64", isKey) { try AESGCMKeyring.Key(id: "k", base64: "%%") }
            let key = try AESGCMKeyring.Key(id: "k", base64: EncryptedWorld.key1.base64EncodedString())
            try checkEqual(key.id, "k", "a 32-byte base64 key is taken")
        },
    ]

    private static func isKey(_ e: StrataError) -> Bool {
        if case .invalidArgument("key", let reason) = e { return !reason.contains("AAECAw") }
        return false
    }
}

/// `value`, or a failure naming what was missing.
func unwrap<T>(_ value: T?, _ what: @autoclosure () -> String = "a value") throws -> T {
    guard let value else { throw ConformanceFailure(description: "\(what()) is missing") }
    return value
}
