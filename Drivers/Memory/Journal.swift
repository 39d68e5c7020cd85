// Journal: the undo log behind statement atomicity, transactions and savepoints.
import Strata

/// What to put back, newest last, to undo the changes since a mark.
///
/// Undoing replays the steps backwards, so rolling back restores tables, rows, indexes and id
/// counters exactly, at a cost proportional to the changes made rather than to the data held.
enum UndoStep: Sendable {
    /// A slot of a table held `previous` (nil: empty or not yet appended).
    case slot(table: String, slot: Int, previous: [DatabaseValue]?)
    /// The table had `from` slots; the slots past them were appended since (by one INSERT, which
    /// journals this step once for all its rows).
    case appended(table: String, from: Int)
    /// A table's id counter was `previous`.
    case lastID(table: String, previous: Int64)
    /// The whole table was `previous` (nil: it did not exist); used by schema changes and by
    /// DELETE without WHERE. Boxed, so the other steps stay small (a journal may hold many).
    indirect case table(name: String, previous: MemoryTable?)
}

/// A savepoint: its name and where the journal stood when it was made.
struct Savepoint: Sendable {
    let name: String
    let mark: Int
}

/// The open transaction of a store: who owns it and its savepoints, innermost last.
struct OpenTransaction: Sendable {
    let owner: Int
    var savepoints: [Savepoint] = []
}

extension StoreState {
    /// Undoes every journaled change after `mark`, newest first, and forgets them.
    mutating func undo(to mark: Int) {
        while journal.count > mark, let step = journal.popLast() {
            switch step {
            case .slot(let table, let slot, let previous):
                tables[table]?.restore(previous, at: slot)
            case .appended(let table, let from):
                tables[table]?.truncate(to: from)
            case .lastID(let table, let previous):
                tables[table]?.lastID = previous
            case .table(let name, let previous):
                tables[name] = previous
                schemaGeneration &+= 1
            }
        }
    }

    /// Forgets the journal once nothing can roll back to it, and drops empty slots.
    mutating func settle(_ touched: String?) { settle(touched.map(TableName.init)) }

    /// ``settle(_:)`` with the touched table's key (a planned insert keeps it: its name is not hashed again).
    mutating func settle(_ touched: TableName?) {
        if !journal.isEmpty { journal.removeAll(keepingCapacity: journal.count < 4096) }
        // Only a table with many empty slots is changed: asking each costs no hashing and no write-back.
        // In place (`&`): reading `tables.values[i]` copies the table out, a retain and a release of every field.
        if let touched {
            if let i = tables.index(forKey: touched) { Self.compactIfWanted(&tables.values[i]) }
        } else {
            var i = tables.startIndex
            while i != tables.endIndex {
                Self.compactIfWanted(&tables.values[i])
                tables.formIndex(after: &i)
            }
        }
    }

    @inline(__always)
    private static func compactIfWanted(_ table: inout MemoryTable) {
        if table.wantsCompaction { table.compact() }
    }

    // MARK: Transaction control

    mutating func begin(_ connection: Int) throws(StrataError) {
        if transaction != nil { throw .transactionMisuse("BEGIN inside a transaction") }
        transaction = OpenTransaction(owner: connection)
    }

    mutating func commit() throws(StrataError) {
        guard transaction != nil else { throw .transactionMisuse("COMMIT without a transaction") }
        endTransaction()
    }

    mutating func rollback() throws(StrataError) {
        guard transaction != nil else { throw .transactionMisuse("ROLLBACK without a transaction") }
        undo(to: 0)
        endTransaction()
    }

    mutating func savepoint(_ name: String) throws(StrataError) {
        guard transaction != nil else { throw .transactionMisuse("SAVEPOINT \(name) outside a transaction") }
        transaction?.savepoints.append(Savepoint(name: name, mark: journal.count))
    }

    /// RELEASE: forgets the savepoint and those made after it; their changes stay in the transaction.
    mutating func release(_ name: String) throws(StrataError) {
        let i = try savepointIndex(name)
        transaction?.savepoints.removeSubrange(i...)
    }

    /// ROLLBACK TO: undoes everything since the savepoint, which stays open (as in SQL).
    mutating func rollback(to name: String) throws(StrataError) {
        let i = try savepointIndex(name)
        guard let mark = transaction?.savepoints[i].mark else { return }
        undo(to: mark)
        transaction?.savepoints.removeSubrange((i + 1)...)
    }

    private func savepointIndex(_ name: String) throws(StrataError) -> Int {
        guard let t = transaction else { throw .transactionMisuse("savepoint \(name) outside a transaction") }
        guard let i = t.savepoints.lastIndex(where: { $0.name == name }) else {
            throw .transactionMisuse("no such savepoint: \(name)")
        }
        return i
    }
}
