// PostgresLoopAnswer: a statement's results from the statement loop, decoded on the caller's thread.
import CPostgres
import Strata

/// What the server answered to a statement of the ``PostgresStatementLoop``: its results (freed with the answer),
/// or the typed error to throw.
///
/// `@unchecked Sendable`: the results are made on the loop's thread and handed over whole with the answer; after
/// that only the caller reads them (a `PGresult` does not depend on its connection).
final class PostgresLoopAnswer: LoopAnswer, @unchecked Sendable {
    private let results: [OpaquePointer]
    private let changed: Int
    private let error: StrataError?

    init(results: [OpaquePointer], changed: Int) {
        self.results = results
        self.changed = changed
        error = nil
    }

    init(error: StrataError) {
        results = []
        changed = 0
        self.error = error
    }

    deinit { results.forEach { PQclear($0) } }

    func read(_ onRow: (any RowReader) throws -> Void) throws -> Int {
        if let error { throw error }
        var reader: PostgresRow?
        for result in results {
            let rows = PQntuples(result)
            guard rows > 0 else { continue }
            let row = reader ?? PostgresRow(result)
            reader = row
            row.use(result)
            for r in 0..<rows {
                row.row = r
                try onRow(row)
            }
        }
        return changed
    }
}
