// UndoScope: whether the transaction or savepoint a model was written in was rolled back, for that model's next save.
import Synchronization

/// One transaction or savepoint as the models written in it see it: rolled back, committed, or still open (a
/// released savepoint's fate is then that of the scope around it).
///
/// A model saved inside a caller's transaction keeps the scope of that write in its ``PersistenceState``, so that
/// once the transaction or a savepoint around the write rolled back, the model's next `save` knows the write
/// never happened: an undone insert makes the model new again (a database-assigned id is dropped, so it can never
/// update a row another writer now owns under that id), an undone update marks every column changed and puts back
/// the version the model carried. Scopes cost nothing outside transactions.
@usableFromInline
final class UndoScope: Sendable {
    /// 0: open, or a savepoint released into its parent; 1: rolled back; 2: committed.
    private let state = Atomic<UInt8>(0)
    /// The scope around this one, whose fate a released savepoint shares.
    let parent: UndoScope?

    init(parent: UndoScope?) { self.parent = parent }

    /// Records that the scope was rolled back: every write made in it, or in a savepoint inside it, is undone.
    func rolledBack() { state.store(1, ordering: .releasing) }

    /// Records that the transaction committed: every write made in it stays.
    func committed() { state.store(2, ordering: .releasing) }

    /// Whether this scope, or one around it, was rolled back.
    var isUndone: Bool {
        var scope: UndoScope? = self
        while let s = scope {
            switch s.state.load(ordering: .acquiring) {
            case 1: return true
            case 2: return false
            default: scope = s.parent
            }
        }
        return false
    }
}
