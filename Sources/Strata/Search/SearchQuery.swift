// SearchQuery: a full-text query (`swift orm`, `swift OR rust`, `migr*`) parsed by Strata into normalized terms.

/// A full-text query, parsed once in Swift so that every driver matches the same tokens.
///
/// The syntax, on every driver:
/// - words separated by spaces must all match (AND): `swift orm`;
/// - `OR` (upper case) between two words matches either: `swift OR rust orm` is `(swift OR rust) AND orm`;
/// - a word ending in `*` matches any token that starts with it: `migr*` matches `migrate`, `migration`;
/// - each word is tokenized like the documents (see ``SearchText``): `Crème` matches `creme`, and a word that
///   splits into several tokens (`e-mail`) needs them all (`e AND mail`); only its last token takes the `*`.
///
/// A query with no token (`"--- !!"`), a dangling or doubled `OR`, a `*` alone, or a double quote (phrases are
/// not supported) is ``StrataError/invalidSearch(model:part:reason:)``, naming the part (`query`, `word 2`, `OR`)
/// but never showing the text, which is a bound value.
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// One token to find: exactly, or as a prefix of a document token.
    public struct Term: Sendable, Hashable {
        /// The normalized token.
        public var token: String
        /// Whether any document token that starts with ``token`` matches.
        public var isPrefix: Bool
    }

    /// The query's clauses, all of which must match; a clause matches when any of its alternatives does, and an
    /// alternative when all of its terms do.
    public let clauses: [[[Term]]]

    /// The distinct terms, in the order they first appear (what the rank counts).
    public var terms: [Term] {
        var seen: Set<Term> = []
        var out: [Term] = []
        for clause in clauses {
            for alternative in clause { for t in alternative where seen.insert(t).inserted { out.append(t) } }
        }
        return out
    }

    /// The query in Strata's own syntax, normalized: `swift OR rust orm*` (no bound text is hidden by it).
    public var description: String {
        clauses.map { clause in
            clause.map { $0.map { $0.token + ($0.isPrefix ? "*" : "") }.joined(separator: " ") }
                .joined(separator: " OR ")
        }.joined(separator: " ")
    }

    /// Parses `text` for model `model` (named in errors).
    ///
    /// - Parameters:
    ///   - text: the query as the user typed it.
    ///   - model: the model searched, named by a refusal.
    /// - Throws: ``StrataError/invalidSearch(model:part:reason:)`` naming the word at fault.
    public init(_ text: String, model: String) throws(StrataError) {
        if text.unicodeScalars.contains("\"") {
            throw .invalidSearch(model: model, part: "query", reason: "has a double quote: phrases are not supported")
        }
        let words = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        var clauses: [[[Term]]] = []
        var pendingOr = false
        for (n, word) in words.enumerated() {
            if word == "OR" {
                guard n > 0, !pendingOr, !clauses.isEmpty else {
                    throw .invalidSearch(model: model, part: "OR", reason: "needs a word on each side")
                }
                pendingOr = true
                continue
            }
            let prefix = word.hasSuffix("*")
            let body = prefix ? String(word.dropLast()) : word
            if body.contains("*") {
                throw .invalidSearch(model: model, part: "word \(n + 1)", reason: "has a * before its end")
            }
            let tokens = SearchText.allTokens(body)
            if tokens.contains(where: { $0.utf8.count > SearchText.maximumTokenBytes }) {
                throw .invalidSearch(
                    model: model, part: "word \(n + 1)",
                    reason: "is longer than \(SearchText.maximumTokenBytes) UTF-8 bytes, which is never indexed")
            }
            if tokens.isEmpty {
                if prefix {
                    throw .invalidSearch(model: model, part: "word \(n + 1)", reason: "has a * and no letter or digit")
                }
                if pendingOr {
                    throw .invalidSearch(model: model, part: "OR", reason: "needs a word on each side")
                }
                continue  // a word of separators only (`--`) adds nothing, as in a document
            }
            let alternative = tokens.enumerated().map { i, t in
                Term(token: t, isPrefix: prefix && i == tokens.count - 1)
            }
            if pendingOr {
                clauses[clauses.count - 1].append(alternative)
                pendingOr = false
            } else {
                clauses.append([alternative])
            }
        }
        if pendingOr {
            throw .invalidSearch(model: model, part: "OR", reason: "needs a word on each side")
        }
        if clauses.isEmpty {
            throw .invalidSearch(
                model: model, part: "query",
                reason: "has no word to search for (only spaces, punctuation or symbols)")
        }
        self.clauses = clauses
    }

    /// Whether a document whose tokens are `tokens` matches.
    ///
    /// Tokens compare by their UTF-8 bytes, as the databases compare them (never by Swift's canonical
    /// equivalence): a document Strata wrote is normalized, so the two agree on it, and on text written another way
    /// the memory driver still finds what SQLite and PostgreSQL find.
    ///
    /// - Parameter tokens: the document's tokens, as UTF-8 bytes.
    /// - Returns: true when every clause has an alternative whose terms all match a token.
    public func matches(_ tokens: Set<[UInt8]>) -> Bool {
        clauses.allSatisfy { clause in
            clause.contains { alternative in alternative.allSatisfy { $0.matches(tokens) } }
        }
    }

    /// How many of the query's distinct ``terms`` match one of `tokens`: the portable rank.
    ///
    /// - Parameter tokens: the document's tokens, as UTF-8 bytes.
    /// - Returns: 0 to `terms.count`.
    public func rank(_ tokens: Set<[UInt8]>) -> Int {
        terms.reduce(0) { $0 + ($1.matches(tokens) ? 1 : 0) }
    }
}

extension SearchQuery.Term {
    /// Whether the term matches one of `tokens` (UTF-8 bytes): equal, or (a prefix term) a token starting with it.
    public func matches(_ tokens: Set<[UInt8]>) -> Bool {
        let bytes = Array(token.utf8)
        if !isPrefix { return tokens.contains(bytes) }
        return tokens.contains { $0.starts(with: bytes) }
    }
}
