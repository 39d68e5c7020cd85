// SearchTextTests: Strata's tokenizer and query parser, which every driver's full-text search relies on.
import Strata
import Testing

@Suite("Full-text search: tokens and queries")
struct SearchTextTests {
    @Test(
        "tokens: case folded, diacritics removed, split on anything but letters, digits and spacing marks",
        arguments: [
            ("Crème Brûlée", ["creme", "brulee"]),
            ("e-mail foo_bar don't", ["e", "mail", "foo", "bar", "don", "t"]),
            ("v3.14 x2 alex@example.com", ["v3", "14", "x2", "alex", "example", "com"]),
            ("ΣΟΦΊΑ Москва", ["σοφια", "москва"]),
            ("日本語のテキスト", ["日本語のテキスト"]),
            ("İstanbul ÇA ǅ", ["istanbul", "ca", "ǆ"]),
            ("  --- !! ", []),
            ("e\u{301}cole ÉCOLE", ["ecole", "ecole"]),
            ("١٢٣ ½", ["١٢٣", "½"]),
            ("a\u{0}b\tc", ["a", "b", "c"]),
        ])
    func tokens(_ text: String, _ expected: [String]) {
        #expect(SearchText.tokens(text) == expected)
    }

    @Test("a document joins every value's tokens with single spaces; NULL adds nothing; overlong tokens are left out")
    func document() {
        #expect(SearchText.document(["Swift ORM", nil, "  Crème! "]) == "swift orm creme")
        #expect(SearchText.document([nil, ""]) == "")
        let long = String(repeating: "x", count: SearchText.maximumTokenBytes + 1)
        #expect(SearchText.document(["a " + long + " b"]) == "a b")
    }

    @Test("the query syntax: AND by default, OR between words, a trailing * for a prefix")
    func parse() throws {
        let q = try SearchQuery("Swift OR rust orm* -- e-mail", model: "Article")
        #expect(q.description == "swift OR rust orm* e mail")
        #expect(q.clauses.count == 3)
        #expect(q.terms.map(\.token) == ["swift", "rust", "orm", "e", "mail"])
        func tokens(_ s: String) -> Set<[UInt8]> { Set(s.split(separator: " ").map { Array($0.utf8) }) }
        #expect(q.matches(tokens("rust orms e mail")))
        #expect(!q.matches(tokens("rust orms email")))
        #expect(q.rank(tokens("swift rust orm e")) == 4)
        let prefix = try SearchQuery("日本*", model: "A")
        #expect(prefix.matches(tokens("日本語")) && !prefix.matches(tokens("語日本")))
    }

    @Test(
        "refusals name the part and never show the text",
        arguments: [
            ("--- !!", "query"), ("", "query"), ("a OR", "OR"), ("OR a", "OR"), ("a OR OR b", "OR"),
            ("a OR -- b", "OR"), ("\"a b\"", "query"), ("*", "word 1"), ("a b*c", "word 2"), ("a **", "word 2"),
        ])
    func refusals(_ text: String, _ part: String) {
        #expect(throws: StrataError.self) { try SearchQuery(text, model: "Article") }
        do {
            _ = try SearchQuery(text, model: "Article")
        } catch {
            guard case .invalidSearch(let model, let p, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(model == "Article" && p == part)
            if text.count > 3 { #expect(!error.description.contains(text)) }
        }
    }
}
