// StatementSavepoints: which statements run inside their own savepoint, so a failure leaves a transaction usable.
import Strata

/// PostgreSQL aborts the whole transaction when one statement fails; SQLite and the memory driver
/// only undo the statement. To behave the same, a write inside a transaction runs between
/// `SAVEPOINT strata_stmt` and `RELEASE`, and is rolled back to it when it fails.
enum StatementSavepoints {
    /// Writes: the ORM's INSERT, UPDATE and DELETE, and raw SQL that changes data or schema.
    /// Reads and transaction control are never wrapped (a savepoint around COMMIT would break it).
    static func needed(for statement: Statement?, sql: String) -> Bool {
        switch statement {
        case .insert?, .update?, .delete?: return true
        case .select(let s)? where s.lock != nil: return true  // NOWAIT may fail; the transaction stays usable
        case nil: return rawWriteKeywords.contains(firstKeyword(of: sql))
        default: return false
        }
    }

    private static let rawWriteKeywords: Set<String> = [
        "INSERT", "UPDATE", "DELETE", "MERGE", "WITH", "CREATE", "ALTER", "DROP", "TRUNCATE", "COMMENT", "GRANT",
        "REVOKE",
    ]

    /// The first word of a SQL text, upper-cased, after whitespace, comments and opening parentheses.
    static func firstKeyword(of sql: String) -> String {
        var scalars = Substring(sql).unicodeScalars[...]
        while let c = scalars.first {
            if c == " " || c == "\t" || c == "\n" || c == "\r" || c == "(" {
                scalars.removeFirst()
            } else if scalars.starts(with: "--".unicodeScalars) {
                while let n = scalars.first, n != "\n" { scalars.removeFirst() }
            } else if scalars.starts(with: "/*".unicodeScalars) {
                scalars.removeFirst(2)
                while !scalars.isEmpty, !scalars.starts(with: "*/".unicodeScalars) { scalars.removeFirst() }
                if !scalars.isEmpty { scalars.removeFirst(2) }
            } else {
                break
            }
        }
        var word = ""
        for c in scalars {
            guard c.properties.isAlphabetic else { break }
            word.unicodeScalars.append(c)
        }
        return word.uppercased()
    }
}
