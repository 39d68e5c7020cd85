// QueryBuilder+Top: the first rows of each partition ("the top 3 per author"), read through a WITH query.

extension QueryBuilder {
    /// The name of the WITH query ``top(_:over:withTies:)`` reads.
    static var topName: String { "strata_top" }
    /// The column of that WITH query holding each row's place in its partition.
    static var topColumn: String { "strata_rank" }

    /// Keeps the first `n` rows of each partition of the window, in its order: the top `n` per group. A window
    /// cannot be filtered in the WHERE that computes it, so the rows are numbered in a WITH query and this query
    /// keeps those numbered `n` or less; its own order, limit and offset then apply to them.
    ///
    /// ```swift
    /// let best = try await Post.query(on: db).where(\.views > 0)
    ///     .top(3, over: .partition(by: \.userID).order(\.views, .descending).order(\.id))
    ///     .order(\.userID).order(\.views, .descending).all()
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// WITH "strata_top" ("id", "user_id", "title", "views", "strata_rank") AS (SELECT "id", "user_id", "title",
    ///   "views", ROW_NUMBER() OVER (PARTITION BY "user_id" ORDER BY "views" DESC, "id" ASC) FROM "post" WHERE
    ///   ("views" > ?)) SELECT "id", "user_id", "title", "views" FROM "strata_top" AS "post" WHERE ("strata_rank"
    ///   <= ?) ORDER BY "user_id" ASC, "views" DESC
    /// ```
    ///
    /// PostgreSQL renders the same, with `$1`, `$2` and its NULLS and collation rules (see ``WindowDefinition``).
    ///
    /// - Parameters:
    ///   - n: how many rows to keep per partition; 0 or more.
    ///   - window: the partition and the order within it; without `withTies`, end the order with a key, or which
    ///     of tied rows are kept is up to the backend.
    ///   - withTies: whether rows tied with the `n`-th (equal on every order term) are kept too (`RANK` rather
    ///     than `ROW_NUMBER`), so a partition may keep more than `n`.
    /// - Returns: a query over the kept rows; its filters so far go into the WITH query, before the numbering.
    /// - Throws: (when the query runs) ``StrataError/invalidQuery(_:)`` for a negative `n`, naming it, and for a
    ///   join, a row lock or a set operation on the kept rows; ``StrataError/unknownColumn(model:column:)`` for a
    ///   key path of the window that names no column.
    public func top(_ n: Int, over window: WindowDefinition<M>, withTies: Bool = false) -> Self {
        var out = self
        do {
            guard n >= 0 else { throw StrataError.invalidQuery("top(\(n), …) of \(M.modelName): n must be 0 or more") }
            var inner = self
            inner.order = []
            inner.limit = nil
            inner.offset = nil
            inner.selected = nil
            inner.tag = nil
            var named = try inner.selectStatement()
            guard case .columns(let names) = named.selection else {
                throw StrataError.invalidQuery("top(\(n), …) of \(M.modelName) needs the model's columns")
            }
            let item = try window.resolve(withTies ? .rank : .rowNumber).get()
            named.selection = .items(names.map { .column(ColumnRef($0)) } + [item])
            var w = CommonTable(Self.topName, named)
            w.windowColumn = Self.topColumn
            out.commonTable = w
            out.compound = nil
            out.joins = []
            out.filters = [.compare(.lessOrEqual, .column(Self.topColumn), .value(.integer(Int64(n))))]
        } catch let error as StrataError {
            out.error = out.error ?? error
        } catch {
            out.error = out.error ?? .invalidQuery("\(error)")
        }
        return out
    }
}
