// Transaction+Dialect: the dialect a transaction's statements are rendered with, for checks of a capability.

extension Transaction {
    /// The dialect this transaction's statements are rendered with, or nil for a driver that renders no SQL (the
    /// memory driver): a conformance case reads a capability from it (``Dialect/storesNonFiniteDoubles``).
    package var dialect: (any Dialect)? { sqlConnection?.dialect }
}
