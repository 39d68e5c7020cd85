// SQLiteErrors: maps SQLite's extended result codes and messages onto Strata's typed errors.
import CSQLite
import Foundation
import Strata

enum SQLiteErrors {
    /// The typed error for a failed call; `table` is the statement's table when SQLite's message lacks it.
    static func map(_ code: Int32, message: String, table: String?) -> StrataError {
        switch code {
        // SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY: "UNIQUE constraint failed: t.a, t.b"
        case 2067, 1555:
            let (t, columns) = qualifiedColumns(after: "constraint failed: ", in: message)
            return .uniqueViolation(table: t ?? table, columns: columns)
        case 1299:  // SQLITE_CONSTRAINT_NOTNULL: "NOT NULL constraint failed: t.c"
            let (t, columns) = qualifiedColumns(after: "constraint failed: ", in: message)
            return .notNullViolation(table: t ?? table, column: columns.first)
        case 787:  // SQLITE_CONSTRAINT_FOREIGNKEY: the message names nothing
            return .foreignKeyViolation(table: table)
        // SQLITE_CONSTRAINT_TRIGGER: an `ON DELETE RESTRICT` action, which SQLite runs as a trigger's RAISE.
        case 1811 where message == "FOREIGN KEY constraint failed":
            return .foreignKeyViolation(table: table)
        case 275:  // SQLITE_CONSTRAINT_CHECK
            return .checkViolation(table: table, detail: message)
        case 3091:  // SQLITE_CONSTRAINT_DATATYPE: "cannot store TEXT value in INTEGER column t.c"
            let (t, columns) = qualifiedColumns(after: " column ", in: message)
            return .typeMismatch(table: t ?? table, column: columns.first, detail: message)
        default: break
        }
        switch code & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_ERROR:
            if let t = suffix(after: "no such table: ", in: message) { return .noSuchTable(t) }
            if let c = suffix(after: "no such column: ", in: message) {
                return .unknownColumn(model: table ?? "?", column: c)
            }
            // An INSERT naming a column the table lacks: "table t has no column named c" (PostgreSQL's 42703).
            if message.hasPrefix("table "), let r = message.range(of: " has no column named ") {
                let t = String(message[message.index(message.startIndex, offsetBy: 6)..<r.lowerBound])
                return .unknownColumn(model: t, column: String(message[r.upperBound...]))
            }
            // SUM of integers past Int64 (PostgreSQL returns numeric, which the core refuses alike).
            if message == "integer overflow" {
                return .arithmeticError(expression: table ?? "?", reason: "integer overflow: past Int64")
            }
            if let e = SQLiteArithmetic.error(message, table: table) { return e }
            if message.hasSuffix(SQLiteLike.malformedMessage) { return .invalidQuery(message) }
            return .database(code: Int(code), message: message)
        default:
            return .database(code: Int(code), message: message)
        }
    }

    private static func suffix(after marker: String, in message: String) -> String? {
        guard let r = message.range(of: marker) else { return nil }
        return String(message[r.upperBound...])
    }

    /// Splits `t.a, t.b` into the table and its columns.
    private static func qualifiedColumns(after marker: String, in message: String) -> (String?, [String]) {
        guard let list = suffix(after: marker, in: message) else { return (nil, []) }
        var table: String?
        var columns: [String] = []
        for part in list.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            if let dot = item.lastIndex(of: ".") {
                table = String(item[..<dot])
                columns.append(String(item[item.index(after: dot)...]))
            } else {
                columns.append(item)
            }
        }
        return (table, columns)
    }
}
