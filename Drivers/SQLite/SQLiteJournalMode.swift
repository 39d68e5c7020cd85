// SQLiteJournalMode: which journal mode a SQLite file gets, so files other tools wrote keep theirs.
import Foundation
import Strata

/// The journal mode the SQLite driver sets on a file: the URL's `journal=wal|delete|keep`.
///
/// The journal mode is stored in the file (WAL changes its header for good), so Strata only sets one when
/// asked or when the file is its own: by default a new or empty file gets WAL, and an existing file keeps
/// whatever mode it has. With `migrate=off` Strata changes nothing in the file unless `journal=` asks it to.
public enum SQLiteJournalMode: String, Sendable, Hashable {
    /// `PRAGMA journal_mode = WAL`: readers do not block the writer.
    case wal
    /// `PRAGMA journal_mode = DELETE`: SQLite's rollback journal, deleted after each transaction.
    case delete
    /// Sets no journal mode: the file keeps its own.
    case keep

    /// The statement that sets the mode, or nil for ``keep``.
    var pragma: String? {
        switch self {
        case .wal: return "PRAGMA journal_mode = WAL"
        case .delete: return "PRAGMA journal_mode = DELETE"
        case .keep: return nil
        }
    }

    /// WAL for a new or empty file Strata may migrate; ``keep`` for an existing file or with `migrate=off`.
    static func `default`(path: String, migration: MigrationPolicy) -> SQLiteJournalMode {
        guard path != ":memory:", migration == .automatic else { return .keep }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return size == 0 ? .wal : .keep
    }
}
