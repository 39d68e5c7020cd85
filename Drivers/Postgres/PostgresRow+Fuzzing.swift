// PostgresRow+Fuzzing: an underscored hook that lets Tests/Fuzz read hand-built results without a server.
import CPostgres
import Strata

/// Internal to Strata's own fuzz targets (`Tests/Fuzz`), not API: it may change or vanish in any release.
///
/// Builds a one-row, text-format result on the client (`PQmakeEmptyPGresult`, `PQsetvalue`) and reads it
/// with the driver's own row reader, so the value parsers can be fed hostile text with no server.
public enum _PostgresFuzzing {
    /// Calls `body` with a reader over one row whose column `n` has type OID `types[n]` and the text
    /// `values[n]` (nil is NULL), or returns nil when libpq cannot build such a result.
    public static func withRow<T>(
        types: [UInt32], values: [[UInt8]?], _ body: (any RowReader) throws -> T
    ) rethrows -> T? {
        guard types.count == values.count, let result = PQmakeEmptyPGresult(nil, PGRES_TUPLES_OK) else { return nil }
        defer { PQclear(result) }
        var name: [CChar] = [99, 0]  // "c": libpq copies the names
        let added = name.withUnsafeMutableBufferPointer { n in
            var attributes = types.map {
                PGresAttDesc(
                    name: n.baseAddress, tableid: 0, columnid: 0, format: 0, typid: Oid($0), typlen: -1, atttypmod: -1)
            }
            return PQsetResultAttrs(result, Int32(types.count), &attributes) == 1
        }
        guard added else { return nil }
        for (column, value) in values.enumerated() {
            // A trailing NUL keeps the pointer non-nil for an empty value; the length excludes it. A NULL
            // pointer stores SQL NULL; libpq copies the bytes and NUL-terminates them as it does for a server's.
            var bytes = (value ?? []).map { CChar(bitPattern: $0) } + [0]
            let stored = bytes.withUnsafeMutableBufferPointer { b in
                PQsetvalue(result, 0, Int32(column), value == nil ? nil : b.baseAddress, Int32(value?.count ?? -1))
            }
            guard stored == 1 else { return nil }
        }
        return try body(PostgresRow(result))
    }
}
