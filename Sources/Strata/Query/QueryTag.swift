// QueryTag: the label a query carries into its SQL (a leading comment) and into the statement logs.

/// The rule for a query's tag (see ``QueryBuilder/tagged(_:)``), checked once in the core for every driver
/// and again by the renderer before it writes the comment.
///
/// A tag is pasted into SQL text, inside `/* … */`, so it is refused rather than escaped when it could end the
/// comment or open a nested one (PostgreSQL nests block comments): no `*/`, no `/*`. It is one line of printable
/// text of at most 200 UTF-8 bytes, neither empty nor with control characters, so a log shows it as written.
public enum QueryTag {
    /// The most UTF-8 bytes a tag may hold.
    public static let maxLength = 200

    /// Refuses a tag that breaks the rule.
    ///
    /// - Parameter tag: the label.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `tag`.
    public static func check(_ tag: String) throws(StrataError) {
        guard !tag.isEmpty else { throw .invalidArgument("tag", reason: "a query tag cannot be empty") }
        guard tag.utf8.count <= maxLength else {
            throw .invalidArgument("tag", reason: "a query tag holds at most \(maxLength) UTF-8 bytes")
        }
        // By bytes, as the database reads the comment (a search through Foundation cost about 27,000 instructions a
        // tag, on every render of a tagged query).
        let (star, slash) = (UInt8(ascii: "*"), UInt8(ascii: "/"))
        var previous: UInt8 = 0
        for byte in tag.utf8 {
            if (previous == star && byte == slash) || (previous == slash && byte == star) {
                throw .invalidArgument(
                    "tag", reason: "a query tag cannot hold \"*/\" or \"/*\" (it is a SQL comment)")
            }
            previous = byte
        }
        // Unicode's control characters (general category Cc) are exactly U+0000–U+001F and U+007F–U+009F.
        guard !tag.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw .invalidArgument("tag", reason: "a query tag cannot hold control characters (newlines, NUL)")
        }
    }

    /// The tag of rendered SQL that starts with one (`/* tag */ SELECT …`), or nil.
    static func leading(_ sql: String) -> String? {
        guard sql.hasPrefix("/* "), let end = sql.range(of: " */ ") else { return nil }
        return String(sql[sql.index(sql.startIndex, offsetBy: 3)..<end.lowerBound])
    }
}

extension QueryBuilder {
    /// Tags the query: the label goes before its SQL as a comment, and into each statement log as `db.tag`
    /// (on the memory driver too, which has no SQL but logs the same description).
    ///
    /// ```swift
    /// let recent = try await Post.query(on: db).tagged("feed.recent").order(\.id, .descending).limit(20).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// /* feed.recent */ SELECT "id", "user_id", "title", "views" FROM "post" ORDER BY "id" DESC LIMIT ?
    /// -- PostgreSQL
    /// /* feed.recent */ SELECT "id", "user_id", "title", "views" FROM "post" ORDER BY "id" DESC LIMIT $1
    /// ```
    ///
    /// A tag is not a bound value: it is written into the SQL text, so a label holding `*/` or `/*`, a control
    /// character, nothing, or more than ``QueryTag/maxLength`` bytes makes the query throw. Each distinct tag is
    /// its own prepared statement: tag by call site or feature, not by user or request.
    ///
    /// - Parameter label: the tag, one printable line.
    /// - Returns: the query with the tag (replacing an earlier one).
    /// - Throws: when the query runs, ``StrataError/invalidArgument(_:reason:)`` naming `tag`.
    public consuming func tagged(_ label: String) -> Self {
        tag = label
        return self
    }

    /// Tags the query with the place in the source that calls this method: `Module/File.swift:42`.
    ///
    /// - Parameters:
    ///   - fileID: the calling file (leave the default).
    ///   - line: the calling line (leave the default).
    /// - Returns: the query with the tag.
    public func taggedWithCallSite(fileID: String = #fileID, line: Int = #line) -> Self {
        tagged("\(fileID):\(line)")
    }
}
