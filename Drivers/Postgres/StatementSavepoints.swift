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
        case nil: return isRawWrite(firstKeyword(of: sql))
        default: return false
        }
    }

    /// Whether raw SQL starting with `keyword` changes data or schema. Compared word by word (small strings compare
    /// as two machine words), not hashed into a set (about 300 instructions a raw statement).
    private static func isRawWrite(_ keyword: String) -> Bool {
        switch keyword {
        case "INSERT", "UPDATE", "DELETE", "MERGE", "WITH", "CREATE", "ALTER", "DROP", "TRUNCATE", "COMMENT", "GRANT",
            "REVOKE":
            return true
        default:
            return false
        }
    }

    /// The first word of a SQL text, upper-cased, after whitespace, comments and opening parentheses.
    ///
    /// Read as UTF-8 bytes where the text is contiguous and the word is ASCII (each raw statement asks: read as
    /// scalars, about 600 instructions); a word that goes on past ASCII takes the scalar reading below.
    static func firstKeyword(of sql: String) -> String {
        if let word = sql.utf8.withContiguousStorageIfAvailable(asciiFirstKeyword), let word { return word }
        return scalarFirstKeyword(of: sql)
    }

    /// ``firstKeyword(of:)`` over bytes: nil when the word does not end in ASCII (a letter beyond it may continue it).
    private static func asciiFirstKeyword(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var i = 0
        let n = bytes.count
        func at(_ k: Int) -> UInt8 { k < n ? bytes[k] : 0 }
        while i < n {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x28 {
                i += 1
            } else if b == 0x2D, at(i + 1) == 0x2D {  // -- to the end of the line
                while i < n, bytes[i] != 0x0A { i += 1 }
            } else if b == 0x2F, at(i + 1) == 0x2A {  // /* to */
                i += 2
                while i < n, !(bytes[i] == 0x2A && at(i + 1) == 0x2F) { i += 1 }
                if i < n { i += 2 }
            } else {
                break
            }
        }
        let start = i
        while i < n {
            let b = bytes[i]
            if b >= 0x80 { return nil }
            guard b | 0x20 >= 0x61, b | 0x20 <= 0x7A else { break }
            i += 1
        }
        let word = UnsafeBufferPointer(rebasing: bytes[start..<i])
        return String(unsafeUninitializedCapacity: word.count) { out in
            for k in word.indices { out[k] = word[k] & ~0x20 }  // ASCII letters only: upper case
            return word.count
        }
    }

    /// ``firstKeyword(of:)`` scalar by scalar: a letter is what Unicode calls alphabetic.
    static func scalarFirstKeyword(of sql: String) -> String {
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
