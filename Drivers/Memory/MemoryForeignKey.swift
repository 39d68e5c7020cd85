// MemoryForeignKey: a table's foreign key with its column resolved to a position.
import Strata

/// A foreign key of a memory table: one of its columns (or several, for a composite key) references a column of
/// another table (or of itself). The referenced table is looked up when a row is checked, as SQLite does, so it may be
/// created after the referencing one.
struct MemoryForeignKey: Sendable {
    /// The referencing columns' positions in this table's rows, in the order of the definition's columns.
    let columns: [Int]
    /// The first referencing column's position (the only one but for a key of several columns).
    var column: Int { columns[0] }
    let definition: ForeignKey
}
