// LikePattern: the one check every driver applies to a LIKE pattern before running it.

/// Rules on LIKE patterns (`%`, `_`, `\` as the escape) shared by the renderer and the memory driver.
package enum LikePattern {
    /// Refuses a pattern that ends in a lone escape character: PostgreSQL raises an error for it while
    /// SQLite matches nothing, so every driver throws the same typed error instead.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)``.
    package static func validate(_ pattern: String) throws(StrataError) {
        if !isValid(pattern) { throw .invalidQuery("LIKE pattern ends with the escape character \\") }
    }

    /// Whether `pattern` passes `validate(_:)`: it does not end in a lone escape character.
    package static func isValid(_ pattern: String) -> Bool {
        var escaping = false
        for scalar in pattern.unicodeScalars {
            escaping = !escaping && scalar == "\\"
        }
        return !escaping
    }
}
