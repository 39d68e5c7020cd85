// Page and NumberedPage: what the two kinds of pagination return.

/// One keyset page: the rows after a cursor, and the cursor of the next page when there is one.
///
/// See `page(after:limit:)`.
public struct Page<M: Model> {
    /// The rows of the page, in the query's order; at most the limit asked for.
    public var items: [M]
    /// Where the next page starts, or nil when this page holds the last rows.
    public var nextCursor: PageCursor?
}

/// One numbered page (an offset page) with the number of rows the whole query matches.
///
/// See `page(number:size:)`.
public struct NumberedPage<M: Model> {
    /// The rows of the page, in the query's order.
    public var items: [M]
    /// The page's number, from 1.
    public var number: Int
    /// The most rows a page holds.
    public var size: Int
    /// How many rows the whole query matches, on every page.
    public var total: Int
    /// How many pages the rows fill (0 when there are none).
    public var pageCount: Int { total == 0 ? 0 : (total - 1) / size + 1 }
}

extension Page: Sendable where M: Sendable {}
extension NumberedPage: Sendable where M: Sendable {}
