// MemoryIndex: a named index of a memory table; a unique one maps each key to the slot holding it.
import Strata

/// An index created by `createIndex`. A non-unique index only records its name (lookups scan);
/// a unique one keeps key → slot, so it both enforces uniqueness and answers equality in O(1).
struct MemoryIndex: Sendable {
    let name: String
    /// Column names, for errors.
    let columnNames: [String]
    /// Column positions in the table's rows.
    let columns: [Int]
    let isUnique: Bool
    /// Key → slot, unique indexes only; rows with a NULL in the key are absent.
    var slots: [IndexKey: Int] = [:]
}
