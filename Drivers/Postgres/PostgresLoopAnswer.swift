// PostgresLoopAnswer: a statement's results from the statement loop, decoded on the caller's thread.
import CPostgres
import Strata

/// What the server answered to a statement of the ``PostgresStatementLoop``: its results (freed with the answer),
/// or the typed error to throw.
///
/// `@unchecked Sendable`: the results are made on the loop's thread and handed over whole with the answer; after
/// that only the caller reads them (a `PGresult` does not depend on its connection).
final class PostgresLoopAnswer: LoopAnswer, @unchecked Sendable {
    private let results: PostgresResults
    private let changed: Int
    private let error: StrataError?

    init(results: PostgresResults, changed: Int) {
        self.results = results
        self.changed = changed
        error = nil
    }

    init(error: StrataError) {
        results = PostgresResults()
        changed = 0
        self.error = error
    }

    deinit { results.forEach { PQclear($0) } }

    func read(_ onRow: (any RowReader) throws -> Void) throws -> Int {
        if let error { throw error }
        var reader: PostgresRow?
        try results.forEach { result in
            let rows = PQntuples(result)
            guard rows > 0 else { return }
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

/// A statement's results, almost always one: kept without an array until there is a second.
struct PostgresResults {
    private var first: OpaquePointer?
    private var rest: [OpaquePointer] = []

    mutating func append(_ result: OpaquePointer) {
        if first == nil { first = result } else { rest.append(result) }
    }

    func forEach(_ body: (OpaquePointer) throws -> Void) rethrows {
        if let first { try body(first) }
        for result in rest { try body(result) }
    }

    /// Frees them all and forgets them.
    mutating func clear() {
        forEach { PQclear($0) }
        self = PostgresResults()
    }
}
