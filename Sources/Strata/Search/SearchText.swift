// SearchText: Strata's one tokenizer for full-text search, run in Swift on every document and every query.
import Foundation

/// How Strata turns text into search tokens, the same for every driver: the database never tokenizes.
///
/// 1. The text is decomposed (Unicode NFD) and mapped to lowercase, scalar by scalar (`"Ä"` → `"a"` + U+0308).
/// 2. Nonspacing and enclosing marks (`Mn`, `Me`: the diacritics) are removed: `"Crème"` → `"creme"`.
/// 3. A token is a maximal run of letters (`L*`), numbers (`N*`) and spacing marks (`Mc`); every other scalar
///    separates tokens: spaces, punctuation (`-`, `_`, `'`, `.`, `@`), symbols and controls.
///    `"e-mail"` → `e`, `mail`; `"don't"` → `don`, `t`; `"3.14"` → `3`, `14`; `"日本語"` → `日本語`.
/// 4. Each token is recomposed (NFC); a token longer than ``maximumTokenBytes`` UTF-8 bytes is not indexed.
public enum SearchText {
    /// The longest token indexed, in UTF-8 bytes: PostgreSQL's lexemes stop at 2047, so Strata stops well before.
    public static let maximumTokenBytes = 255

    /// The tokens of `text`, in order, repeats kept.
    ///
    /// - Parameter text: any text.
    /// - Returns: the normalized tokens (each 1 to ``maximumTokenBytes`` UTF-8 bytes).
    public static func tokens(_ text: String) -> [String] {
        allTokens(text).filter { $0.utf8.count <= maximumTokenBytes }
    }

    /// The tokens of `text`, the overlong ones kept (a query refuses them rather than dropping them).
    static func allTokens(_ text: String) -> [String] {
        var out: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            guard !current.isEmpty else { return }
            out.append(String(current).precomposedStringWithCanonicalMapping)
            current = String.UnicodeScalarView()
        }
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: continue
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .spacingMark:
                for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                    // A lowercase mapping may bring a mark back (`İ` → `i` + U+0307): drop it too.
                    let c = lower.properties.generalCategory
                    if c != .nonspacingMark && c != .enclosingMark { current.append(lower) }
                }
            default: flush()
            }
        }
        flush()
        return out
    }

    /// The search document Strata stores for a row: the tokens of every value, in order, joined by one space.
    ///
    /// - Parameter values: the searchable columns' values (nil for NULL, which adds nothing).
    /// - Returns: the document (empty when no value has a token).
    public static func document(_ values: [String?]) -> String {
        var tokens: [String] = []
        for value in values { if let value { tokens += Self.tokens(value) } }
        return tokens.joined(separator: " ")
    }
}
