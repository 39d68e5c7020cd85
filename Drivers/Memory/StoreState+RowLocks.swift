// StoreState+RowLocks: FOR UPDATE / FOR SHARE on the memory store, whose one open transaction holds every row.
import Strata

extension StoreState {
    /// Grants a SELECT's row lock to `connection`: the store runs one transaction at a time, so the owner of the
    /// open transaction already holds every row (`SKIP LOCKED` skips none, `NOWAIT` never fails), as on SQLite.
    ///
    /// - Throws: ``StrataError/transactionMisuse(_:)`` when `connection` has no transaction open: the lock would
    ///   end with its statement. (The core has refused a lock no backend takes alike: ``Select/checkLock()``.)
    func grantRowLock(_ select: Select, to connection: Int) throws(StrataError) {
        guard let t = transaction, t.owner == connection else {
            throw .transactionMisuse(
                "\(select.lock.map { "\($0)" } ?? "a row lock") on \(select.table) outside a transaction: "
                    + "the lock would end with the statement")
        }
    }
}
