// ColumnRole: a column that save and update fill in themselves (timestamps, the optimistic-lock version).

/// What Strata writes into a column by itself. `@Model` sets it from `@CreatedAt`, `@UpdatedAt` and `@Version`.
public enum ColumnRole: String, Sendable, Hashable {
    /// Set to the current time (UTC, whole microseconds) when the model is first saved.
    case createdAt
    /// Set to the current time when the model is saved, and by bulk `update()`.
    case updatedAt
    /// An integer that each save of a stored model checks and increments: `UPDATE … WHERE id = ? AND version = ?`.
    case version
    /// Set by `delete` instead of deleting the row (soft delete); queries skip rows where it is not NULL.
    case deletedAt
}
