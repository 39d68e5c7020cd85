// QueryBuilder+Page: keyset (cursor) pages and numbered pages with a total, each one call.

extension QueryBuilder {
    /// The query narrowed to the rows after `cursor` in its order, with `limit + 1` rows asked for (one more
    /// than the page, to learn whether a next page exists).
    ///
    /// The order must end in the primary key, so that it is total and a cursor names one place (see
    /// `KeysetCondition`).
    func keysetQuery(after cursor: PageCursor?, limit: Int) throws -> Self {
        if let error { throw error }
        guard limit >= 1 else {
            throw StrataError.invalidArgument("limit", reason: "a page of \(M.modelName) needs a limit of 1 or more")
        }
        guard self.limit == nil, offset == nil else {
            throw StrataError.invalidArgument(
                "limit", reason: "a keyset page of \(M.modelName) sets its own limit; remove limit(_:) and offset(_:)")
        }
        // A composite key's columns end the order in any order of theirs (see ``CompositeKey``).
        let keys = M.schema.hasCompositeKey ? M.schema.primaryKeyColumnNames : [M.primaryKeyColumn]
        let tail = order.suffix(keys.count)
        guard tail.count == keys.count, Set(tail.map(\.column)) == Set(keys),
            tail.allSatisfy({ $0.table == nil && $0.expression == nil && $0.aggregate == nil })
        else {
            let spelled = order.isEmpty ? "none" : Self.orderKey(order)
            throw StrataError.invalidArgument(
                "order",
                reason: "a keyset page of \(M.modelName) needs an order ending in its primary key "
                    + "\(keys.joined(separator: ", ")); the order is \(spelled)")
        }
        for o in order where o.table != nil || o.expression != nil || o.aggregate != nil {
            throw StrataError.invalidArgument(
                "order", reason: "a keyset page of \(M.modelName) orders by its own columns only, not by \(o.column)")
        }
        if let selected, let missing = order.first(where: { !selected.contains($0.column) }) {
            throw StrataError.invalidArgument(
                "only", reason: "a keyset page of \(M.modelName) must read its ordered column \(missing.column)")
        }
        var copy = self
        copy.limit = limit + 1
        guard let cursor else { return copy }
        guard cursor.order == Self.orderKey(order), cursor.values.count == order.count else {
            throw StrataError.invalidArgument(
                "cursor",
                reason: "the cursor was read with the order \(cursor.order), not with this query's "
                    + Self.orderKey(order) + " on \(M.modelName)")
        }
        copy.filters.append(KeysetCondition.after(order, cursor.values))
        return copy
    }

    /// The order as a cursor records it: `name+,id-`.
    static func orderKey(_ order: [Ordering]) -> String {
        order.map { $0.column + ($0.direction == .ascending ? "+" : "-") }.joined(separator: ",")
    }

    /// The page of `rows` (read with `limit + 1`): at most `limit` of them, and the cursor after the last one
    /// when a row was left over.
    func keysetPage(_ rows: [M], limit: Int) -> Page<M> {
        guard rows.count > limit, let last = rows.prefix(limit).last else { return Page(items: rows, nextCursor: nil) }
        let values = last.databaseValues
        let names = M.schema.columnNames
        let cursorValues = order.map { o -> DatabaseValue in
            guard let i = names.firstIndex(of: o.column) else { return .null }
            return M.schema.stored(values[i], column: o.column)
        }
        return Page(
            items: Array(rows.prefix(limit)), nextCursor: PageCursor(order: Self.orderKey(order), values: cursorValues))
    }

    /// The query for page `number` of `size` rows.
    func numberedQuery(number: Int, size: Int) throws -> Self {
        if let error { throw error }
        guard size >= 1 else {
            throw StrataError.invalidArgument("size", reason: "a page of \(M.modelName) needs a size of 1 or more")
        }
        guard number >= 1 else {
            throw StrataError.invalidArgument("number", reason: "pages of \(M.modelName) are numbered from 1")
        }
        guard limit == nil, offset == nil else {
            throw StrataError.invalidArgument(
                "size", reason: "a numbered page of \(M.modelName) sets its own limit and offset; remove limit(_:)")
        }
        let (skip, overflow) = (number - 1).multipliedReportingOverflow(by: size)
        guard !overflow else {
            throw StrataError.invalidArgument("number", reason: "page \(number) of \(size) rows is past any table")
        }
        var copy = self
        copy.limit = size
        copy.offset = skip
        return copy
    }
}

extension QueryBuilder where Executor == Transaction {
    /// One keyset page: the first `limit` rows after `cursor` (nil: from the start) in the query's order, which
    /// must end in the primary key.
    ///
    /// ```swift
    /// var page = try User.query(on: tx).order(\.name).order(\.id).page(after: nil, limit: 20)
    /// while let next = page.nextCursor {
    ///     page = try User.query(on: tx).order(\.name).order(\.id).page(after: next, limit: 20)
    /// }
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT "id", "name", "age" FROM "user" ORDER BY "name" ASC, "id" ASC LIMIT ?
    /// SELECT "id", "name", "age" FROM "user" WHERE (("name" > ?) OR (("name" = ?) AND ("id" > ?))) ORDER BY "name" ASC, "id" ASC LIMIT ?
    /// -- PostgreSQL
    /// SELECT "id", "name", "age" FROM "user" ORDER BY "name" COLLATE "C" ASC, "id" ASC LIMIT $1
    /// SELECT "id", "name", "age" FROM "user" WHERE (("name" COLLATE "C" > $1) OR (("name" = $2) AND ("id" > $3))) ORDER BY "name" COLLATE "C" ASC, "id" ASC LIMIT $4
    /// ```
    ///
    /// A row inserted or deleted between two pages moves no other row across the cursor: no row is read twice or
    /// skipped (a row inserted before the cursor is simply not seen). The limit bound is `limit + 1`: the extra
    /// row tells whether there is a next page.
    ///
    /// - Parameters:
    ///   - cursor: ``Page/nextCursor`` of the page before, or nil for the first page.
    ///   - limit: the most rows on the page (1 or more).
    /// - Returns: the rows and the next page's cursor (nil on the last page).
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `order` (an order not ending in the primary
    ///   key), `limit`, `cursor` (read with another order) or `only` (an ordered column not read); database errors.
    public func page(after cursor: PageCursor?, limit: Int) throws -> Page<M> {
        let rows = try keysetQuery(after: cursor, limit: limit).all()
        return keysetPage(rows, limit: limit)
    }

    /// Page `number` (from 1) of `size` rows, with the number of rows the whole query matches: two statements
    /// (a count, then the page) inside the caller's transaction, which sees one state of the database for both.
    ///
    /// - Parameters:
    ///   - number: the page's number, from 1.
    ///   - size: the most rows a page holds (1 or more).
    /// - Returns: the rows, the total and the page count.
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `number` or `size`; database errors.
    public func page(number: Int, size: Int) throws -> NumberedPage<M> {
        let query = try numberedQuery(number: number, size: size)
        let total = try self.count()
        let items = total > query.offset ?? 0 ? try query.all() : []
        return NumberedPage(items: items, number: number, size: size, total: total)
    }
}

extension QueryBuilder where Executor == Database {
    /// One keyset page (see the synchronous `page(after:limit:)`): one SELECT.
    ///
    /// ```swift
    /// let first = try await User.query(on: db).order(\.name).order(\.id).page(after: nil, limit: 20)
    /// let second = try await User.query(on: db).order(\.name).order(\.id).page(after: first.nextCursor, limit: 20)
    /// ```
    nonisolated(nonsending) public func page(after cursor: PageCursor?, limit: Int) async throws -> Page<M> {
        let rows = try await keysetQuery(after: cursor, limit: limit).all()
        return keysetPage(rows, limit: limit)
    }

    /// Page `number` of `size` rows with the query's total, in one call: the count and the page are read in one
    /// transaction at ``IsolationLevel/repeatableRead`` (served as serializable by SQLite and the memory driver; a
    /// plain transaction on a driver that serves no level), so the total is the number of rows the page was cut
    /// from, even while other connections write.
    ///
    /// ```swift
    /// let first = try await Post.query(on: db).where(\.views > 0).order(\.id).page(number: 1, size: 20)
    /// print(first.items.count, first.total, first.pageCount)
    /// ```
    ///
    /// ```sql
    /// -- SQLite
    /// SELECT COUNT(*) FROM "post" WHERE ("views" > ?)
    /// SELECT "id", "user_id", "title", "views" FROM "post" WHERE ("views" > ?) ORDER BY "id" ASC LIMIT ? OFFSET ?
    /// -- PostgreSQL
    /// SELECT COUNT(*) FROM "post" WHERE ("views" > $1)
    /// SELECT "id", "user_id", "title", "views" FROM "post" WHERE ("views" > $1) ORDER BY "id" ASC LIMIT $2 OFFSET $3
    /// ```
    ///
    /// A page past the last row reads no rows: only the count runs.
    nonisolated(nonsending) public func page(number: Int, size: Int) async throws -> NumberedPage<M> {
        _ = try numberedQuery(number: number, size: size)
        return try await executor.read { tx in
            let both = { (tx: Transaction) in try rebound(to: tx).page(number: number, size: size) }
            // A driver that runs transactions at no level of its choosing gets a plain one.
            guard tx.connection.isolation(serving: .repeatableRead) != nil else { return try tx.savepoint(both) }
            return try tx.transaction(isolation: .repeatableRead, both)
        }
    }
}
