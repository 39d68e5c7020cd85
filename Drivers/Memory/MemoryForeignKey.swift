// MemoryForeignKey: a table's foreign key with its column resolved to a position.
import Strata

/// A foreign key of a memory table: one of its columns references a column of another table (or
/// of itself). The referenced table is looked up when a row is checked, as SQLite does, so it may be
/// created after the referencing one.
struct MemoryForeignKey: Sendable {
    /// The referencing column's position in this table's rows.
    let column: Int
    let definition: ForeignKey
}
