// RawKeywordTests: the first keyword of raw SQL, read as bytes, is the one the scalar reading finds.
import Testing

@testable import StrataPostgres

@Suite("PostgreSQL: raw SQL's first keyword")
struct RawKeywordTests {
    /// Pieces of raw SQL: spaces, parentheses, both comment forms (closed or not), ASCII words of both cases, words
    /// going on past ASCII, digits and punctuation.
    static let pieces = [
        " ", "\t", "\n", "\r", "(", "-- note\n", "--", "/* x */", "/*", "*/", "select", "INSERT", "With", "update",
        "é", "Ωmega", "x", "1", ";", "_", "ß", "日本", "delete", "/**/", "-",
    ]

    @Test("generated texts: the byte reading names the scalar reading's word (3,000 texts)")
    func matchesScalarReading() {
        var state: UInt64 = 0x2026_1130
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var words = Set<String>()
        for _ in 0..<3_000 {
            let text = (0..<(next() % 6)).map { _ in Self.pieces[next() % Self.pieces.count] }.joined()
            let word = StatementSavepoints.firstKeyword(of: text)
            #expect(word == StatementSavepoints.scalarFirstKeyword(of: text), "\(text.debugDescription)")
            words.insert(word)
        }
        // The texts reach empty words, ASCII words and words past ASCII.
        #expect(words.contains(""))
        #expect(words.contains("SELECT"))
        #expect(words.contains { $0.unicodeScalars.contains { !$0.isASCII } })
    }

    @Test("writes are told from reads by their first word, after comments and parentheses")
    func writesAndReads() {
        #expect(StatementSavepoints.needed(for: nil, sql: "  /* tag */ (INSERT INTO t VALUES (1))"))
        #expect(StatementSavepoints.needed(for: nil, sql: "-- why\nwith x as (select 1) delete from t"))
        #expect(!StatementSavepoints.needed(for: nil, sql: "SELECT pg_sleep(0.001)"))
        #expect(!StatementSavepoints.needed(for: nil, sql: "insertion"))
        #expect(!StatementSavepoints.needed(for: nil, sql: "UPDATEé"))
    }
}
