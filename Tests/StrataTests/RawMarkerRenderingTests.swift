// RawMarkerRenderingTests: raw SQL's `?` markers, read as UTF-8 bytes, render as the scalar-by-scalar reading did.
import Testing

@testable import Strata

/// The renderer's reading before it read bytes: scalar by scalar, each appended to the pending text. Kept here as
/// the reference the byte reading must match, output and errors alike.
private func referenceRaw(_ fragment: String, _ values: [DatabaseValue], _ dialect: some Dialect) -> String? {
    func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        s == "_" || s == "$" || ("0"..."9").contains(s) || s.properties.isAlphabetic
    }
    var sql = ""
    var quote: Unicode.Scalar?
    var used = 0
    var out = String.UnicodeScalarView()
    var afterPlaceholder = false
    for scalar in fragment.unicodeScalars {
        if afterPlaceholder && isWordScalar(scalar) { out.append(" ") }
        afterPlaceholder = false
        if let open = quote {
            if scalar == open { quote = nil }
            out.append(scalar)
        } else if scalar == "'" || scalar == "\"" {
            quote = scalar
            out.append(scalar)
        } else if scalar == "?" {
            guard used < values.count else { return nil }
            if let last = out.last ?? sql.unicodeScalars.last, isWordScalar(last) { out.append(" ") }
            sql += String(out)
            out = String.UnicodeScalarView()
            used += 1
            sql += dialect.placeholder(used)
            afterPlaceholder = true
        } else {
            out.append(scalar)
        }
    }
    guard used == values.count else { return nil }
    return sql + String(out)
}

@Suite("SQL renderer: raw markers read as bytes")
struct RawMarkerRenderingTests {
    /// Pieces raw SQL is made of here: markers, both quotes, words and digits of several scripts, `$`, `_`, spaces,
    /// punctuation, a combining mark and an emoji.
    static let pieces = [
        "?", "?", "?", "'", "\"", "x", "Z", "_", "$", "1", "09", " ", "(", ")", ",", "=", "é", "e\u{301}", "日本",
        "Ω", "👍", "-", "\n", "SELECT ", "pg_sleep(0.001)", "Ωx?", "?é",
    ]

    @Test("generated raw SQL renders exactly as the scalar reading, or is refused alike (2,000 texts, 0 to 3 values)")
    func matchesReference() {
        var rng = SplitMix(seed: 0x5EED_2026_1130)
        let dialect = DollarDialect()
        var rendered = 0
        var refused = 0
        for _ in 0..<2_000 {
            let length = Int(rng.next() % 12)
            let text = (0..<length).map { _ in Self.pieces[Int(rng.next() % UInt64(Self.pieces.count))] }.joined()
            let values = (0..<Int(rng.next() % 4)).map { DatabaseValue.integer(Int64($0)) }
            let expected = referenceRaw(text, values, dialect)
            let actual = try? SQLRenderer.renderRaw(text, values, dialect: dialect)
            #expect(actual?.sql == expected, "\(text.debugDescription) with \(values.count) values")
            if let actual {
                #expect(actual.binds == values)
                rendered += 1
            } else {
                refused += 1
            }
        }
        // Both outcomes are exercised, so neither side of the comparison is vacuous.
        #expect(rendered > 200)
        #expect(refused > 200)
    }

    @Test("text without a marker is copied whole; with values to bind it is refused")
    func noMarker() throws {
        let text = "SELECT 'what' AS \"q\", x FROM t -- é 日本 👍"
        #expect(try SQLRenderer.renderRaw(text, [], dialect: DollarDialect()).sql == text)
        #expect(throws: StrataError.invalidQuery("raw SQL has fewer ? than bound values")) {
            try SQLRenderer.renderRaw(text, [.integer(1)], dialect: DollarDialect())
        }
    }

    @Test("a marker beside a non-ASCII letter is spaced from it; inside quotes it is text")
    func nonASCIIWords() throws {
        let r = try SQLRenderer.renderRaw("é?Ω '?' \"?\" ?👍", [.integer(1), .integer(2)], dialect: DollarDialect())
        #expect(r.sql == "é $1 Ω '?' \"?\" $2👍")
    }
}
