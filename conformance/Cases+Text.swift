// Cases+Text: LIKE compares code point for code point: noncharacters and U+FFFD are three different characters.
import Strata

extension ConformanceSuite {
    static let textCases: [ConformanceCase] = [
        ConformanceCase("like.noncharacters-match-exactly") { db in
            try await Fixtures.migrate(db)
            let values = ["\u{FFFE}", "\u{FFFF}", "\u{FFFD}", "a\u{FFFF}b", "a\u{FFFD}b", "\u{FFFF}\u{FFFF}", "", "ab"]
            for (n, value) in values.enumerated() {
                var user = ConfUser(name: value, email: "text\(n)@example.com")
                try await user.save(on: db)
            }
            func like(_ pattern: String, caseInsensitive: Bool = false) async throws -> [String] {
                try await names(ConfUser.query(on: db).where(\.name, like: pattern, caseInsensitive: caseInsensitive))
            }
            try checkEqual(try await like("\u{FFFF}"), ["\u{FFFF}"], "like U+FFFF")
            try checkEqual(try await like("\u{FFFE}"), ["\u{FFFE}"], "like U+FFFE")
            try checkEqual(try await like("\u{FFFD}"), ["\u{FFFD}"], "like U+FFFD")
            try checkEqual(try await like("a_b"), ["a\u{FFFD}b", "a\u{FFFF}b"], "_ is one code point")
            try checkEqual(try await like("__"), ["ab", "\u{FFFF}\u{FFFF}"], "__")
            try checkEqual(
                try await like("%\u{FFFF}%"), ["a\u{FFFF}b", "\u{FFFF}", "\u{FFFF}\u{FFFF}"], "%U+FFFF%")
            try checkEqual(try await like("%\u{FFFD}"), ["\u{FFFD}"], "%U+FFFD")
            try checkEqual(try await like("A\u{FFFF}B", caseInsensitive: true), ["a\u{FFFF}b"], "case-insensitive")
            try checkEqual(try await like(""), [""], "the empty pattern")
            try checkEqual(
                try await names(ConfUser.query(on: db).where(\.name !~~ "%\u{FFFF}%")),
                ["", "ab", "a\u{FFFD}b", "\u{FFFD}", "\u{FFFE}"], "not like %U+FFFF%")
        }
    ]
}
