// MariaDBErrors: maps MariaDB's error numbers and messages onto Strata's typed errors, without bound values.
import Foundation
import Strata

enum MariaDBErrors {
    /// Whether error `code` means the connection is gone (CR_SERVER_GONE_ERROR, CR_SERVER_LOST, and friends).
    /// 1047 is a Galera node that is not ready ("WSREP has not yet prepared node for application use"): outside
    /// the primary component, or still joining; the pool replaces the connection, and the next one goes to a
    /// ready node of the host list.
    static func losesConnection(_ code: Int) -> Bool {
        [2002, 2003, 2006, 2013, 2055, 1927, 4031, 1047].contains(code)
    }

    /// Whether error `code` means the connection broke with a statement sent and its answer not read
    /// (CR_SERVER_GONE_ERROR, CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED): the server may have run it.
    static func lostInFlight(_ code: Int) -> Bool {
        [2006, 2013, 2055].contains(code)
    }

    /// The typed error for a failed call; `table` is the statement's table when the message lacks it. Messages
    /// that quote a row's values (a duplicate entry, an out-of-range value) are not passed on.
    static func map(_ code: Int, message: String, table: String?, on connection: MariaDBConnection?) -> StrataError {
        switch code {
        case 1062, 1586:  // ER_DUP_ENTRY: "Duplicate entry '…' for key 'name'"
            let key = lastQuoted(in: message)
            let columns = key.flatMap { k in table.flatMap { try? connection?.indexColumns(table: $0, index: k) } }
            return .uniqueViolation(table: table, columns: columns ?? [])
        case 1048:  // ER_BAD_NULL_ERROR: "Column 'c' cannot be null"
            return .notNullViolation(table: table, column: firstQuoted(in: message))
        case 1364:  // ER_NO_DEFAULT_FOR_FIELD: "Field 'c' doesn't have a default value"
            return .notNullViolation(table: table, column: firstQuoted(in: message))
        case 1451, 1452, 1216, 1217:  // a row is referenced / references no row
            return .foreignKeyViolation(table: table)
        case 4025:  // ER_CONSTRAINT_FAILED: "CONSTRAINT `t.c` failed for `db`.`t`"
            return .checkViolation(table: table, detail: message)
        case 1146:  // ER_NO_SUCH_TABLE: "Table 'db.t' doesn't exist"
            let name = firstQuoted(in: message).map { $0.split(separator: ".").last.map(String.init) ?? $0 }
            return .noSuchTable(name ?? table ?? "?")
        case 1054:  // ER_BAD_FIELD_ERROR: "Unknown column 'c' in 'field list'"
            return .unknownColumn(model: table ?? "?", column: firstQuoted(in: message) ?? "?")
        case 1213:
            // ER_LOCK_DEADLOCK: an InnoDB deadlock victim, or on Galera a certification failure (another node
            // committed a conflicting write first) or a brute-force abort; either way the whole transaction was
            // rolled back, so `transaction(retry:)` may run it again.
            return .serializationFailure
        case 1047:  // ER_UNKNOWN_COM_ERROR: a Galera node not ready; the statement did not run
            return .connectionLost("the Galera node is not ready (wsrep_ready OFF): \(message)")
        case 1205:  // ER_LOCK_WAIT_TIMEOUT
            return .busy
        case 3572:  // ER_LOCK_NOWAIT
            return .lockNotAvailable(table: table ?? "?")
        case 1365:  // ER_DIVISION_BY_ZERO
            return .arithmeticError(
                expression: "an arithmetic expression on \(table ?? "?")", reason: "division by zero")
        case 1690:  // ER_DATA_OUT_OF_RANGE: "BIGINT value is out of range in '…'"
            return .arithmeticError(
                expression: "an arithmetic expression on \(table ?? "?")", reason: outOfRangeReason(message))
        case 1264:  // ER_WARN_DATA_OUT_OF_RANGE: "Out of range value for column 'c' at row 1"
            return .typeMismatch(
                table: table, column: column(in: message),
                detail: "error 1264: out of the column's range (a DOUBLE holds no ±infinity, a DECIMAL(65,30) at most "
                    + "35 integer digits)")
        case 1406, 1292, 1366, 1367, 4078, 3140:
            // Out of range, too long, an incorrect value for a column's type: the message quotes the value.
            return .typeMismatch(table: table, column: column(in: message), detail: "error \(code)")
        case 1045, 1044, 1698: return .authenticationFailed(message)
        default:
            if losesConnection(code) { return .connectionLost(message) }
            return .database(code: code, message: message)
        }
    }

    /// What error 1690 ("BIGINT value is out of range in '…'", "DOUBLE value is out of range in '…'") means: a
    /// guarded divisor that was zero (`exp(7777 * (d = 0))`, see ``MariaDBDialect/arithmeticSyntax``), a double
    /// that overflowed, or an integer out of range; the reasons are the other drivers'.
    static func outOfRangeReason(_ message: String) -> String {
        // The guard itself overflowed ("DOUBLE value is out of range in 'exp(7777 * (0 = 0))'"), not a quotient
        // whose text names the guard ("BIGINT value is out of range in '`v` DIV case when exp(7777 * …'").
        if message.contains("out of range in 'exp(7777 * ") { return "division by zero" }
        // The underflow guard of a double product or quotient (``ArithmeticSyntax/guardedDivision``).
        if message.contains("out of range in 'exp(7779 * ") { return "double out of range (underflow)" }
        // HAVING's guard on a decimal sum past 38 significant digits (``MariaDBDialect/decimalSumGuard(_:)``).
        if message.contains("out of range in 'exp(8888 * ") {
            return "decimal out of range: more than 38 significant digits"
        }
        if message.hasPrefix("DOUBLE") { return "double out of range (overflow)" }
        return "integer out of range"
    }

    private static func quoted(in message: String) -> [String] {
        message.split(separator: "'", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The column of "… for column 'c' at row 1" or "Incorrect integer value: '…' for column `db`.`t`.`c` at row
    /// 1" (the value quoted before it is never taken).
    static func column(in message: String) -> String? {
        guard let r = message.range(of: "for column ", options: .backwards) else { return nil }
        let rest = message[r.upperBound...]
        if rest.hasPrefix("'") { return rest.dropFirst().split(separator: "'", maxSplits: 1).first.map(String.init) }
        guard rest.hasPrefix("`"), let end = rest.range(of: "` at row ") ?? rest.range(of: "`", options: .backwards)
        else { return nil }
        let dotted = rest[rest.startIndex..<end.lowerBound]
        guard let open = dotted.lastIndex(of: "`") else { return nil }
        return String(dotted[dotted.index(after: open)...])
    }

    private static func firstQuoted(in message: String) -> String? { quoted(in: message).first }
    private static func lastQuoted(in message: String) -> String? { quoted(in: message).last }
}
