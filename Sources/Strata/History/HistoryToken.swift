// HistoryToken: a position in one database's change history, handed out by `changes(since:)`.
import Foundation

/// A position in a database's change history: every change with a greater ``value`` committed after it.
///
/// A token names the database it came from (the random id stored with the history when it was first created),
/// so a token from another database is refused rather than read as a position in this one. Store its
/// ``description`` (`database:value`) and read it back with ``init(_:)``.
///
/// ```swift
/// let page = try await db.changes(since: saved)
/// saved = page.next                      // give this to the next call
/// UserDefaults.standard.set(saved.description, forKey: "historyToken")
/// ```
public struct HistoryToken: Sendable, Hashable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The id of the database whose history the token is a position in.
    public var database: String
    /// The token of the last committed transaction seen: 0 before any.
    public var value: Int64

    /// A token at `value` in the history of the database whose id is `database`.
    ///
    /// - Parameters:
    ///   - database: the database's history id (see ``Database/historyToken()``).
    ///   - value: the last transaction token seen, 0 for none.
    public init(database: String, value: Int64) {
        self.database = database
        self.value = value
    }

    /// `database:value`, which ``init(_:)`` reads back.
    public var description: String { "\(database):\(value)" }

    /// Reads a token written by ``description``; nil when `text` is not `database:value`.
    ///
    /// - Parameter text: a token's description.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let value = Int64(text[text.index(after: colon)...]),
            colon != text.startIndex, value >= 0
        else { return nil }
        self.init(database: String(text[..<colon]), value: value)
    }
}

/// One write recorded in a database's history: a row of a history-tracked model inserted, updated or deleted.
public struct HistoryChange: Sendable, Hashable {
    /// What happened to the row.
    public enum Operation: String, Sendable, Hashable, Codable {
        /// The row was inserted.
        case insert
        /// Columns of the row changed.
        case update
        /// The row was deleted.
        case delete
        /// The row was written by an upsert: inserted, or updated where it existed.
        case upsert
    }

    /// The token of the transaction that committed the write; every change of one transaction shares it.
    public var token: Int64
    /// The table written.
    public var table: String
    /// The row's primary key, as text (an integer's digits, a UUID's canonical text, a text key as it is).
    public var key: String
    /// What happened to the row.
    public var operation: Operation
    /// The columns the write set: every column given for an insert or upsert, the changed ones for an update,
    /// none for a delete.
    public var columns: [String]
    /// When the write ran (the writer's clock, UTC, whole microseconds).
    public var time: Date
}

/// The changes committed after a token, oldest first, and the token to ask from next.
public struct HistoryPage: Sendable, Hashable {
    /// The changes, in commit order (by token), and in the order they were written within a transaction.
    public var changes: [HistoryChange]
    /// The token to pass to the next ``Database/changes(since:limit:)``: past every change returned. Equal to
    /// the token asked from when there was nothing new.
    public var next: HistoryToken
    /// Whether more changes were committed than the limit let through: ask again from ``next``.
    public var hasMore: Bool
}
