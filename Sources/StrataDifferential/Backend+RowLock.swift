// Backend+RowLock: a read with a row lock runs inside a transaction (a lock outside one is an error), then rolls back.
import Strata

extension Backend {
    /// Runs a locking SELECT between BEGIN and ROLLBACK, so the lock is legal on every driver and leaves nothing.
    func runLocked(_ select: Select, types: [ColumnType]) -> QueryOutcome {
        do {
            _ = try connection.execute(.begin) { _ in }
        } catch {
            return .failed(kind: QueryOutcome.kind(of: error), message: "\(error)")
        }
        defer { _ = try? connection.execute(.rollback) { _ in } }
        return run(.select(select), types: types)
    }
}
