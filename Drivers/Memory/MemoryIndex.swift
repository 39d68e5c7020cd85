// MemoryIndex: a named index of a memory table: key → slot when unique, and its first column in order.
import Strata

/// An index created by `createIndex`. A unique one keeps key → slot, so it both enforces uniqueness
/// and answers equality in O(1). Any index also answers range and equality lookups on its first
/// column through ``OrderedEntries``, built by the first query that can use them.
struct MemoryIndex: Sendable {
    let name: String
    /// Column names, for errors.
    let columnNames: [String]
    /// Column positions in the table's rows.
    let columns: [Int]
    let isUnique: Bool
    /// Key → slot, unique indexes only; rows with a NULL in the key are absent.
    var slots: [IndexKey: Int] = [:]
    /// The first column's values in order; nil until a lookup wants them, or after too many changes.
    var ordered: OrderedEntries?
}
