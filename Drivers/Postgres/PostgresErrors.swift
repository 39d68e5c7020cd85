// PostgresErrors: maps a failed PGresult's SQLSTATE and fields onto Strata's typed errors, never quoting values.
import CPostgres
import Foundation
import Strata

/// What a failed result says, read once from its fields.
struct PostgresFailure {
    /// The five-character SQLSTATE, or nil when libpq itself failed (the connection, usually).
    var state: String?
    /// The primary message (may quote a value for class 22 errors; see ``PostgresErrors/redacted(_:)``).
    var message: String
    /// The DETAIL line; it quotes values, so it is only parsed, never shown.
    var detail: String?
    var table: String?
    var column: String?
    var constraint: String?

    init(result: OpaquePointer?, connection: OpaquePointer) {
        func field(_ f: (OpaquePointer) -> UnsafePointer<CChar>?) -> String? {
            result.flatMap { f($0) }.map { String(cString: $0) }
        }
        state = field { strata_pq_sqlstate($0) }
        message = field { strata_pq_message($0) } ?? PostgresConnector.tidy(String(cString: PQerrorMessage(connection)))
        detail = field { strata_pq_detail($0) }
        table = field { strata_pq_table($0) }
        column = field { strata_pq_column($0) }
        constraint = field { strata_pq_constraint($0) }
    }

    /// Whether the connection cannot be used any more: libpq lost it, or the server said so.
    var losesConnection: Bool {
        guard let state else { return true }
        return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    }

    /// Whether a cached prepared statement went stale because a table's column types changed.
    var isStalePlan: Bool {
        state == "0A000" && message.contains("cached plan must not change result type")
    }
}

enum PostgresErrors {
    /// The typed error for a failure; `table` is the statement's table, for errors whose fields lack it.
    static func map(_ f: PostgresFailure, table: String?) -> StrataError {
        if f.losesConnection { return .connectionLost(f.message) }
        let state = f.state ?? ""
        switch state {
        case "23505":
            return .uniqueViolation(table: f.table ?? table, columns: keyColumns(f.detail))
        case "23502":
            return .notNullViolation(table: f.table ?? table, column: f.column)
        case "23503":
            // The table the statement touched, as on SQLite (PostgreSQL names the referencing table).
            return .foreignKeyViolation(table: table ?? f.table)
        case "23514":
            return .checkViolation(
                table: f.table ?? table, detail: f.constraint.map { "constraint \($0)" } ?? f.message)
        case "42804":  // "column "count" is of type bigint but expression is of type text"
            return .typeMismatch(
                table: f.table ?? table, column: f.column ?? quoted(after: "column ", in: f.message),
                detail: f.message)
        case "42883" where f.message.hasPrefix("operator does not exist"):
            return .typeMismatch(table: table, column: nil, detail: f.message)
        case "22003" where f.message == "bigint out of range":  // CAST(SUM(…) AS BIGINT) past Int64
            return .arithmeticError(expression: table ?? f.table ?? "?", reason: "integer overflow: past Int64")
        case "22025":  // invalid_escape_sequence: a LIKE pattern ending in its escape, refused alike everywhere
            return .invalidQuery(f.message)
        case "22P02" where f.message.contains(DecimalDigits.pastLimit):  // the HAVING guard of a decimal sum
            return .arithmeticError(
                expression: "a decimal sum on \(table ?? "?")", reason: DecimalDigits.pastLimit)
        case "22012":  // division_by_zero
            return .arithmeticError(
                expression: "an arithmetic expression on \(table ?? "?")", reason: "division by zero")
        case "22003" where f.message.hasSuffix(" out of range") || f.message.hasPrefix("value out of range: "):
            // "bigint out of range", "value out of range: overflow"/"underflow" (float8): arithmetic
            return .arithmeticError(
                expression: "an arithmetic expression on \(table ?? "?")", reason: redacted(f.message))
        case "22P02", "22003", "22007", "22008", "22001", "22021", "22P05", "2202E", "22023":
            return .typeMismatch(table: f.table ?? table, column: f.column, detail: redacted(f.message))
        case "40001", "40P01":
            return .serializationFailure
        case "55P03" where f.message.hasPrefix("could not obtain lock"):  // NOWAIT met a row another transaction holds
            return .lockNotAvailable(table: quoted(after: "relation ", in: f.message) ?? f.table ?? table ?? "?")
        case "55P03":  // lock_timeout (the configured timeout) ran out, like SQLite's busy timeout
            return .busy
        case "25P02":  // a read failed earlier in this transaction (only writes run in their own savepoint)
            return .transactionMisuse("the transaction was aborted by an earlier failed statement; roll it back")
        case "2BP01" where f.message.hasPrefix("cannot drop table "):
            // "cannot drop table p because other objects depend on it", DETAIL "constraint c on table t depends on
            // table p" (names only, no values): the error every driver raises for it.
            let dropped = table ?? f.table ?? "?"
            let other = f.detail.flatMap { detail in
                detail.range(of: " on table ").map { r in
                    String(detail[r.upperBound...].prefix { $0 != " " && $0 != "\n" })
                }
            }
            return .tableReferenced(dropped, by: other ?? "?")
        case "42P01":
            return .noSuchTable(quoted(after: "relation ", in: f.message) ?? table ?? "?")
        case "42703":
            return .unknownColumn(
                model: table ?? f.table ?? "?", column: quoted(after: "column ", in: f.message) ?? f.message)
        case "57014" where f.message.contains("statement timeout"):
            return .statementTimeout(table: table ?? f.table)
        case "26000" where f.message.hasPrefix("prepared statement \"strata_"):
            // Prepared on one server connection, run on another: a pooler in transaction mode (PgBouncer).
            return .unsupported(
                feature: "named prepared statements through a pooler in transaction mode (\(f.message)); "
                    + "add prepare=off to the URL",
                driver: "postgres")
        default:
            let message = state.hasPrefix("22") ? redacted(f.message) : f.message
            return .database(code: 0, message: "SQLSTATE \(state): \(message)")
        }
    }

    /// The columns of `Key (a, b)=(…) already exists.`, without their values.
    static func keyColumns(_ detail: String?) -> [String] {
        guard let detail, let open = detail.range(of: "Key ("),
            let close = detail.range(of: ")=(", range: open.upperBound..<detail.endIndex)
        else { return [] }
        return detail[open.upperBound..<close.lowerBound].split(separator: ",").map { part in
            let name = part.trimmingCharacters(in: .whitespaces)
            guard name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") else { return name }
            return String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        }
    }

    /// The double-quoted name right after `marker`: `column "count" is …` → `count`.
    static func quoted(after marker: String, in message: String) -> String? {
        guard let m = message.range(of: marker + "\"") else { return nil }
        let rest = message[m.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// A class-22 message with its quoted input replaced, since that input is a bound value.
    static func redacted(_ message: String) -> String {
        var out = ""
        var inQuote = false
        for c in message {
            if c == "\"" {
                if !inQuote { out += "…" }
                inQuote.toggle()
            } else if !inQuote {
                out.append(c)
            }
        }
        return out
    }
}
