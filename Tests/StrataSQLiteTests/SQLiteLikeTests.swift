// SQLiteLikeTests: LIKE on SQLite matches exactly the rows the memory driver's LikeMatcher matches, whatever the bytes.
import Foundation
import Strata
import StrataSQLite
import Testing

@testable import StrataMemory

@Model(table: "like_item")
struct LikeItem {
    var id: Int64?
    var label: String
}

@Suite("SQLite LIKE")
struct SQLiteLikeTests {
    /// Stores each byte string as TEXT exactly (a blob cast, as another tool could write it); returns the ids.
    private func store(_ values: [[UInt8]], in db: Database) async throws -> [Int64] {
        var ids: [Int64] = []
        for bytes in values {
            let rows = try await db.unsafeRawExecute(
                "INSERT INTO like_item (label) VALUES (CAST(? AS TEXT)) RETURNING id", [Data(bytes)])
            guard case .integer(let id) = rows.first?.first else { throw StrataError.invalidQuery("no id") }
            ids.append(id)
        }
        return ids
    }

    /// For each pattern and both variants, the rows SQLite matches must be those LikeMatcher matches on the
    /// String each row reads back as; returns the disagreements.
    private func disagreements(
        _ values: [[UInt8]], _ patterns: [String], in db: Database
    ) async throws -> [String] {
        let ids = try await store(values, in: db)
        var wrong: [String] = []
        for pattern in patterns {
            for caseInsensitive in [false, true] {
                let matcher = LikeMatcher(pattern: pattern, caseInsensitive: caseInsensitive)
                var expected: Set<Int64> = []
                for (id, bytes) in zip(ids, values) where matcher.matches(String(decoding: bytes, as: UTF8.self)) {
                    expected.insert(id)
                }
                // The typed query (as Strata renders it), and the same SQL with the pattern bound as a blob cast
                // to text, so that patterns holding NUL are tested even where Strata refuses NUL in bound text.
                let raw = Set(try await rawLike(pattern, caseInsensitive: caseInsensitive, in: db))
                var got = raw
                if !pattern.unicodeScalars.contains("\0") {
                    let q = LikeItem.query(on: db).where(\.label, like: pattern, caseInsensitive: caseInsensitive)
                    got = Set(try await q.all().compactMap(\.id))
                    if got != raw { wrong.append("typed and raw LIKE \(pattern.debugDescription) differ") }
                }
                if got != expected {
                    let show = { (s: Set<Int64>) in
                        s.sorted().map { id in values[ids.firstIndex(of: id) ?? 0].map { String($0, radix: 16) } }
                    }
                    wrong.append(
                        "\(pattern.unicodeScalars.map { String($0.value, radix: 16) }) ci=\(caseInsensitive): "
                            + "extra \(show(got.subtracting(expected))), missing \(show(expected.subtracting(got)))")
                }
                // NOT LIKE is the complement (no NULLs here).
                if !pattern.unicodeScalars.contains("\0") {
                    let notQ = LikeItem.query(on: db).where(
                        Condition<LikeItem>.notLike(\.label, pattern, caseInsensitive: caseInsensitive))
                    let notGot = Set(try await notQ.all().compactMap(\.id))
                    if notGot != Set(ids).subtracting(expected) {
                        wrong.append("NOT LIKE \(pattern.debugDescription)")
                    }
                }
            }
        }
        try await db.unsafeRawExecute("DELETE FROM like_item")
        return wrong
    }

    /// The ids of `label LIKE pattern ESCAPE '\'` (or `lower(label) LIKE lower(pattern)`), the pattern's bytes bound
    /// as a blob and cast to text.
    private func rawLike(_ pattern: String, caseInsensitive: Bool, in db: Database) async throws -> [Int64] {
        let condition =
            caseInsensitive
            ? "lower(label) LIKE lower(CAST(? AS TEXT)) ESCAPE '\\'" : "label LIKE CAST(? AS TEXT) ESCAPE '\\'"
        let rows = try await db.unsafeRawExecute(
            "SELECT id FROM like_item WHERE " + condition, [Data(pattern.utf8)])
        return rows.compactMap { if case .integer(let id) = $0.first { id } else { nil } }
    }

    private func open(_ file: borrowing TemporarySQLiteFile) async throws -> Database {
        let db = try Database.open("sqlite:\(file.path)", drivers: [.sqlite])
        try await db.migrate(LikeItem.self)
        return db
    }

    @Test("stored NUL, U+FFFE, U+FFFF and U+FFFD match code point for code point")
    func storedNulAndNoncharacters() async throws {
        let file = TemporarySQLiteFile()
        let db = try await open(file)
        let values = [
            "", "\0", "\0\0", "a", "a\0", "a\0b", "\0a", "ab", "A\0B", "\u{FFFE}", "\u{FFFF}", "\u{FFFD}",
            "a\u{FFFF}b", "a\u{FFFE}b", "a\u{FFFD}b", "\u{FFFF}\u{FFFF}", "é", "É", "\u{10FFFF}", "%", "_", "\\",
            "a%b", "a_b", "a\\b",
        ].map { Array($0.utf8) }
        let patterns = [
            "", "\0", "\0\0", "%\0%", "a", "a%", "a\0%", "a_b", "_", "__", "%", "\u{FFFF}", "\u{FFFE}", "\u{FFFD}",
            "%\u{FFFF}%", "a\u{FFFF}_", "A%", "A\0B", "é", "_\u{FFFF}", "\\%", "\\_", "\\\\", "a\\%b", "%\\\\%",
            "%%b",  // a pattern ending in a lone escape is invalidQuery (parity.like-dangling-escape-is-an-error)
        ]
        let wrong = try await disagreements(values, patterns, in: db)
        #expect(wrong.isEmpty, "\(wrong.count) disagreements: \(wrong.prefix(8))")
    }

    @Test("ill-formed UTF-8 written by another tool matches as the String Strata reads back")
    func illFormedBytes() async throws {
        let file = TemporarySQLiteFile()
        let db = try await open(file)
        // A fixed pseudo-random sample over bytes that start, continue, break and end UTF-8 sequences.
        let alphabet: [UInt8] = [
            0x00, 0x41, 0x61, 0x62, 0x25, 0x5F, 0x5C, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xBE, 0xC0, 0xC2, 0xDF,
            0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
        ]
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let values = (0..<300).map { _ in (0..<next(7)).map { _ in alphabet[next(alphabet.count)] } }
        // Each value reads back as String(decoding:), as the memory comparison assumes.
        let ids = try await store(values, in: db)
        for (id, bytes) in zip(ids, values) {
            #expect(try await LikeItem.find(id, on: db)?.label == String(decoding: bytes, as: UTF8.self))
        }
        try await db.unsafeRawExecute("DELETE FROM like_item")
        let patterns = [
            "_", "__", "___", "____", "%\u{FFFD}%", "\u{FFFD}%", "%\u{FFFD}", "\u{FFFD}\u{FFFD}", "%\0%", "a%",
            "%a_", "%b\u{FFFD}%", "%\u{10000}%", "_\u{FFFD}_", "%\u{7FF}%",
        ]
        let wrong = try await disagreements(values, patterns, in: db)
        #expect(wrong.isEmpty, "\(wrong.count) disagreements: \(wrong.prefix(8))")
    }

    @Test("raw LIKE keeps SQL's rules: NULL operands, a custom escape, a multi-character escape is an error")
    func rawLike() async throws {
        let file = TemporarySQLiteFile()
        let db = try await open(file)
        let rows = try await db.unsafeRawExecute(
            "SELECT 'a%b' LIKE 'a!%b' ESCAPE '!', 'axb' LIKE 'a!%b' ESCAPE '!', NULL LIKE 'a', 'a' LIKE NULL, "
                + "'ab' LIKE 'a_', 'ab' LIKE 'A_', CAST(X'610062' AS TEXT) LIKE 'a'")
        #expect(rows.first == [.integer(1), .integer(0), .null, .null, .integer(1), .integer(0), .integer(0)])
        await #expect(throws: StrataError.self) {
            try await db.unsafeRawExecute("SELECT 'a' LIKE 'a' ESCAPE 'xy'")
        }
        // PRAGMA case_sensitive_like puts SQLite's own LIKE back; Strata registers its own again.
        let after = try await db.withConnection { tx in
            try tx.unsafeRawExecute("PRAGMA case_sensitive_like = OFF")
            return try tx.unsafeRawExecute("SELECT 'ab' LIKE 'A_', CAST(X'610062' AS TEXT) LIKE 'a'")
        }
        #expect(after.first == [.integer(0), .integer(0)])
    }
}
