// PostgresConnection+Copy: bulk loads through binary COPY … FROM STDIN, streamed in 1 MB messages.
import CPostgres
import Strata

extension PostgresConnection: BulkLoadingConnection {
    /// Writes the rows with `COPY "table" ("c1", …) FROM STDIN (FORMAT binary)`, each value encoded for its
    /// column's type as the server declares it (read from `pg_attribute` first). Returns nil, sending nothing,
    /// when a column's type has no binary encoding here (an enum, a domain, `char(n)`, …).
    ///
    /// A value its column cannot take (out of range, a NUL in text, a kind the column does not hold) ends the
    /// COPY before the server stores anything and throws ``StrataError/invalidValue(table:column:reason:)``
    /// naming the column and the row.
    public func bulkLoad(table: String, columns: [String], count: Int, row: (Int) throws -> [DatabaseValue]) throws
        -> Int?
    {
        try checkUsable()
        guard let fields = try copyFields(table: table, columns: columns) else { return nil }
        let quoted = try columns.map { try dialect.quote($0) }.joined(separator: ", ")
        let sql = "COPY \(try dialect.quote(table)) (\(quoted)) FROM STDIN (FORMAT binary)"
        do {
            return try copyIn(
                sql, fields: fields, table: table, columns: columns, count: count, ordinals: false, row: row)
        } catch let refusal as CopyKindRefusal {
            throw refusal.error
        }
    }

    /// Streams `count` rows through the COPY `sql` (binary format), each prefixed with its index as a bigint
    /// when `ordinals`, in 1 MB CopyData messages; returns the rows the server counted.
    ///
    /// - Throws: ``CopyKindRefusal`` for a value of another kind than its column's (the COPY ended, the
    ///   transaction failed), ``StrataError/invalidValue(table:column:reason:)`` for a value its column cannot
    ///   take, what `row` throws, the server's errors mapped for `table`, ``StrataError/connectionLost(_:)``.
    func copyIn(
        _ sql: String, fields: [PostgresCopyField], table: String, columns: [String], count: Int, ordinals: Bool,
        row: (Int) throws -> [DatabaseValue]
    ) throws -> Int {
        let started = PQexec(handle, sql)
        defer { PQclear(started) }
        guard let started, PQresultStatus(started) == PGRES_COPY_IN else {
            throw copyFailure(PostgresFailure(result: started, connection: handle), table: table)
        }
        let buffer = CopyBuffer()
        let piece = CopyBuffer.piece
        CopyBuffer.header.withUnsafeBytes { buffer.put($0) }
        let width = UInt16(fields.count + (ordinals ? 1 : 0))
        do {
            for i in 0..<count {
                let values = try row(i)
                guard values.count == fields.count else {
                    throw StrataError.invalidQuery("row \(i) has \(values.count) values for \(fields.count) columns")
                }
                buffer.put16(width)
                if ordinals { buffer.field64(UInt64(i)) }
                for c in 0..<fields.count {
                    switch fields[c].append(values[c], to: buffer) {
                    case nil: break
                    case .invalid(let reason)?:
                        throw StrataError.invalidValue(table: table, column: columns[c], reason: "row \(i): \(reason)")
                    case .otherKind(let reason)?:
                        throw CopyKindRefusal(table: table, column: columns[c], row: i, reason: reason)
                    }
                }
                if buffer.count >= piece {
                    try send(buffer.written)
                    buffer.removeAll()
                }
            }
            buffer.put16(0xFFFF)
            try send(buffer.written)
        } catch {
            _ = PQputCopyEnd(handle, "the client ended the COPY")
            drainCopyResults()
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else {
            isBroken = true
            throw StrataError.connectionLost(PostgresConnector.tidy(String(cString: PQerrorMessage(handle))))
        }
        var failure: PostgresFailure?
        var written = 0
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                written = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
            } else if failure == nil {
                failure = PostgresFailure(result: result, connection: handle)
            }
        }
        if let failure { throw copyFailure(failure, table: table) }
        return written
    }

    /// Sends COPY data (blocking until libpq has queued it all).
    private func send(_ bytes: UnsafeRawBufferPointer) throws {
        let sent =
            bytes.baseAddress.map { PQputCopyData(handle, $0.assumingMemoryBound(to: CChar.self), Int32(bytes.count)) }
            ?? 1
        guard sent == 1 else {
            isBroken = true
            throw StrataError.connectionLost(PostgresConnector.tidy(String(cString: PQerrorMessage(handle))))
        }
    }

    /// Reads what the server answers to an abandoned COPY (its error), so the connection stays in step.
    private func drainCopyResults() {
        while let result = PQgetResult(handle) { PQclear(result) }
        if PQstatus(handle) != CONNECTION_OK { isBroken = true }
    }

    func copyFailure(_ failure: PostgresFailure, table: String) -> StrataError {
        if failure.losesConnection || PQstatus(handle) != CONNECTION_OK {
            isBroken = true
            return .connectionLost(PostgresConnector.tidy(failure.message))
        }
        return PostgresErrors.map(failure, table: table)
    }

    /// Each column's COPY encoding, from its type in `pg_attribute` (the table found on the search path); nil
    /// when one has none.
    func copyFields(table: String, columns: [String]) throws -> [PostgresCopyField]? {
        let sql =
            "SELECT a.attname::text, a.atttypid::int8 FROM pg_attribute a WHERE a.attrelid = to_regclass(?) "
            + "AND a.attnum > 0 AND NOT a.attisdropped"
        var types: [String: Oid] = [:]
        _ = try executeRaw(sql, [.text(try dialect.quote(table))]) { r in
            if case .text(let name) = r.value(at: 0), case .integer(let oid) = r.value(at: 1) {
                types[name] = Oid(truncatingIfNeeded: oid)
            }
        }
        guard !types.isEmpty else { throw StrataError.noSuchTable(table) }
        var fields: [PostgresCopyField] = []
        for column in columns {
            guard let oid = types[column] else { throw StrataError.unknownColumn(model: table, column: column) }
            guard let field = PostgresCopyField(oid: oid) else { return nil }
            fields.append(field)
        }
        return fields
    }
}

/// A value of another kind than its column's met while encoding a COPY (a double for a bigint column): an INSERT
/// would convert it, so a caller that can insert instead does; otherwise it is ``error``.
struct CopyKindRefusal: Error {
    let table: String
    let column: String
    let row: Int
    let reason: String

    /// The typed error a caller that cannot fall back throws: names the table, the column and the row.
    var error: StrataError { .invalidValue(table: table, column: column, reason: "row \(row): \(reason)") }
}
