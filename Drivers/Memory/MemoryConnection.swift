// MemoryConnection: a DatabaseConnection that evaluates statements over a shared MemoryStore.
import Strata

/// A connection to a memory store.
///
/// Each statement runs under the store's lock; result rows are handed to `onRow` after the lock
/// is released, so a row callback may run further statements on the same connection.
final class MemoryConnection: DatabaseConnection {
    let store: MemoryStore
    let id: Int
    /// How long a write waits for another connection's transaction to end, in seconds.
    private let busyTimeout: Double
    // `@exclusivity(unchecked)`: one thread at a time uses a connection (the pool leases it whole), and each of these
    // is read or written in one expression, never while another access to it is open (a row callback that runs a
    // statement on the connection finds the spare readers taken and makes its own), so the dynamic check (about 80
    // instructions an access) could never fire.
    /// The plans of the templates run on this connection (see `execute(template:binds:statement:onRow:)`).
    @exclusivity(unchecked) var plans: [PlannedTemplate] = []
    /// The reader of the last statement's rows, for the next statement (nil while a statement hands out rows).
    @exclusivity(unchecked) var spareRow: MemoryRow?
    /// The reader of the last INSERT's RETURNING value, for the next one.
    @exclusivity(unchecked) var spareValue: SingleValueRow?

    init(store: MemoryStore, busyTimeout: Double) {
        self.store = store
        self.id = store.connect()
        self.busyTimeout = busyTimeout
    }

    deinit { store.disconnect(id) }

    /// One transaction runs at a time, so every level asked for is served by serializable.
    func isolation(serving requested: IsolationLevel) -> IsolationLevel? { .serializable }

    /// The memory store binds nothing: an IN list of any length is one statement.
    var maxInListValues: Int { .max }

    func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        let outcome = try store.execute(statement, connection: id, busyTimeout: busyTimeout)
        let reader = takeRow([], projection: outcome.projection)
        defer { spareRow = reader }
        switch outcome.rows {
        case .list(let rows):
            for row in rows {
                reader.values = row
                try onRow(reader)
            }
        case .values(let values):
            if values.isEmpty { break }
            let one = spareValue ?? SingleValueRow(value: .null)
            spareValue = nil
            defer { spareValue = one }
            for value in values {
                one.value = value
                try onRow(one)
            }
        case .picked(let rows, let positions):
            for p in positions {
                reader.values = rows[p]
                try onRow(reader)
            }
        case .scan(let rows, let skip, let take):
            var skipped = 0
            var taken = 0
            for row in rows where !row.isEmpty {
                if skipped < skip {
                    skipped += 1
                    continue
                }
                if taken == take { break }
                taken += 1
                reader.values = row
                try onRow(reader)
            }
        }
        return outcome.changes
    }

    /// The spare reader (or a new one, when a statement's rows are being handed out) pointed at `values`.
    @inline(__always)
    func takeRow(_ values: [DatabaseValue], projection: [Int]?) -> MemoryRow {
        guard let reader = spareRow else { return MemoryRow(values: values, projection: projection) }
        spareRow = nil
        reader.values = values
        reader.projection = projection
        return reader
    }

    /// The memory driver has no SQL, but for `BEGIN`, `COMMIT` and `ROLLBACK` (and their spellings `START
    /// TRANSACTION`, `END`, `ABORT`), which run as the statements they name, so that code taking a transaction in
    /// raw SQL runs here as on the SQL drivers.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` for any other raw SQL.
    func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int {
        if binds.isEmpty, RawTransactionControl.firstWords(sql, 1) != ["PREPARE"],
            let control = RawTransactionControl(sql)
        {
            switch control {
            case .begin: return try execute(.begin, onRow: onRow)
            case .commit: return try execute(.commit, onRow: onRow)
            case .rollback: return try execute(.rollback, onRow: onRow)
            case .savepoint: break
            }
        }
        throw StrataError.unsupported(feature: "raw SQL", driver: "memory")
    }

    func columns(of table: String) throws -> [String]? { store.columns(of: table, connection: id) }

    /// The memory store's own columns: a model's type is compatible with what that store type holds.
    func liveColumns(of table: String) throws -> [LiveColumn]? {
        store.tableColumns(of: table, connection: id)?.map {
            LiveColumn(
                name: $0.name, declaredType: $0.type.rawValue, isNullable: $0.isNullable, reads: Self.reads($0.type))
        }
    }

    /// ``LiveColumn/reads(ofStrataType:)`` of each type, built once: a fresh database reads each new table's
    /// columns, and building the sets again each time cost more than the rest of the call.
    private static let readsByType: [Set<ColumnType>] = allTypes.map { LiveColumn.reads(ofStrataType: $0) }

    /// `ColumnType.allCases`, made once: the synthesized property makes a new array at each read.
    private static let allTypes = ColumnType.allCases

    /// Found by the type's place among the cases (a dozen comparisons of a tag cost less than hashing it).
    private static func reads(_ type: ColumnType) -> Set<ColumnType> {
        guard let k = allTypes.firstIndex(of: type), k < readsByType.count else {
            return LiveColumn.reads(ofStrataType: type)
        }
        return readsByType[k]
    }

    /// The index or scan the store reads the SELECT's rows through (see `MemoryTable.plan(for:)`).
    func explain(_ select: Select) throws -> [String] { try store.explain(select) }

    var isBroken: Bool { false }
    var isInTransaction: Bool { store.isInTransaction(connection: id) }
}
