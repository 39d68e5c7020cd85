// PrimaryKey: the types a model's `id` can have: Int64 (the database's), UUID (Strata's) or String (the app's).
import Foundation

/// A type a model's primary key can have.
///
/// - `Int64`: the database assigns it on insert (`INSERT … RETURNING id`); the default.
/// - `UUID`: Strata generates a random one on the model's first save when `id` is nil (Fluent's default), so
///   the insert needs no round trip back. Stored as `uuid` on PostgreSQL and as lowercase text on SQLite.
/// - `String`: the app chooses it (a slug, a code); saving a model whose `id` is nil throws
///   ``StrataError/invalidValue(table:column:reason:)`` and writes nothing.
///
/// ```swift
/// @Model struct Tag { var id: String?; var label: String }      // TEXT PRIMARY KEY
/// @Model struct Device { var id: UUID?; var name: String }       // uuid PRIMARY KEY on PostgreSQL
/// ```
public protocol PrimaryKey: DatabaseValueConvertible, Hashable, Sendable, CustomStringConvertible {
    /// A new key for a model saved with `id == nil`, or nil when the database assigns one (`Int64`) or the
    /// app must (`String`).
    static func generated() -> Self?
    /// Whether the database assigns the key on insert (an identity / rowid column).
    static var isAssignedByDatabase: Bool { get }
}

extension PrimaryKey {
    @inlinable public static func generated() -> Self? { nil }
    @inlinable public static var isAssignedByDatabase: Bool { false }
}

extension Int64: PrimaryKey {
    @inlinable public static var isAssignedByDatabase: Bool { true }
}

extension UUID: PrimaryKey {
    public static func generated() -> UUID? { UUID() }
}

extension String: PrimaryKey {}
