// QueryBuilder+Recursive: recursive walks (WITH RECURSIVE) of a self-referencing model: descendants, ancestors.

extension QueryBuilder {
    /// The name a walk's rows go by in its WITH RECURSIVE clause.
    static var walkName: String { "strata_walk" }

    /// Reads the rows of a recursive walk instead of the model's table: `base`'s rows at depth 0, then the rows
    /// whose `column` equals `found` of a row found one level before, level by level, down to `maxDepth`.
    ///
    /// ```swift
    /// // Category 1 and everything below it, at most 10 levels down.
    /// let tree = try await Category.query(on: db)
    ///     .walk(from: Category.query(on: db).where(\.id == 1), joining: \.parentID, toFound: \.id, maxDepth: 10)
    ///     .orderByDepth().allWithDepth()
    /// ```
    ///
    /// ```sql
    /// -- SQLite (PostgreSQL: $1, $2 and COLLATE "C" on text)
    /// WITH RECURSIVE "strata_walk" ("id", "parent_id", "name", "strata_depth") AS (SELECT "id", "parent_id",
    ///   "name", 0 FROM "category" WHERE ("id" = ?) UNION ALL SELECT "category"."id", "category"."parent_id",
    ///   "category"."name", "strata_walk"."strata_depth" + 1 FROM "category" INNER JOIN "strata_walk" AS
    ///   "strata_walk" ON ("category"."parent_id" = "strata_walk"."id") WHERE ("strata_walk"."strata_depth" < ?))
    ///   SELECT "id", "parent_id", "name" FROM "strata_walk" AS "category" ORDER BY "strata_depth" ASC
    /// ```
    ///
    /// `maxDepth` is the guard against cycles on every backend (SQLite has no CYCLE clause): in a cycle the walk
    /// finds the same rows again, one level deeper each time, until the bound. With `distinct`, a row equal to one
    /// found before at the same depth is kept once (`UNION`). This query's filters, order, paging and count apply
    /// to the walk's rows; they come in no set order without one (``orderByDepth(_:)``).
    ///
    /// - Parameters:
    ///   - base: the base case, a query over the same model (its filters; soft-deleted rows skipped as usual).
    ///   - column: the column of a row the next level finds…
    ///   - found: …equal to this column of a row found one level before.
    ///   - maxDepth: the deepest level reached, 0 or more.
    ///   - distinct: whether equal rows at one depth are kept once.
    /// - Returns: a query over the walk's rows.
    /// - Throws: (when the query runs) ``StrataError/invalidQuery(_:)`` naming the recursive WITH query and the
    ///   table: a depth bound below 0, a base with an order, a limit or an offset.
    public func walk<E>(
        from base: QueryBuilder<M, E>, joining column: PartialKeyPath<M>, toFound found: PartialKeyPath<M>,
        maxDepth: Int, distinct: Bool = false
    ) -> Self {
        guard let link = M.columnName(for: column), let key = M.columnName(for: found) else {
            var out = self
            out.error = out.error ?? .unknownColumn(model: M.modelName, column: "\(column), \(found)")
            return out
        }
        return walk(from: base, link: link, key: key, maxDepth: maxDepth, distinct: distinct)
    }

    /// A walk whose step finds the rows whose `link` column equals `key` of a row found one level before.
    func walk<E>(from base: QueryBuilder<M, E>, link: String, key: String, maxDepth: Int, distinct: Bool) -> Self {
        var out = self
        do {
            var first = try base.selectStatement()
            first.tag = nil
            let name = Self.walkName
            var step = Select(
                table: first.table, selection: first.selection,
                joins: [
                    Join(
                        .inner, table: name, alias: name, on: .compare(.equal, .column(link), .column(key, table: name))
                    )
                ])
            if let deleted = M.schema.column(withRole: .deletedAt)?.name, base.deletedRows == .excluded {
                step.filter = .isNull(.column(deleted), negated: false)
            }
            let recursion = Recursion(maxDepth: maxDepth, distinct: distinct)
            out.commonTable = CommonTable(name, base: first, step: step, recursion: recursion)
            if out.selected == nil { out.selected = base.selected }
        } catch let error as StrataError {
            out.error = out.error ?? error
        } catch {
            out.error = out.error ?? .invalidQuery("\(error)")
        }
        return out
    }

    /// The rows below the row whose primary key is `id` in a tree whose `parent` column holds each row's parent's
    /// key, at most `maxDepth` levels down: its children at depth 1, theirs at depth 2, … (not the row itself).
    ///
    /// ```swift
    /// let below = try await Category.query(on: db).descendants(of: 1, through: \.parentID).allWithDepth()
    /// ```
    ///
    /// A walk (see ``walk(from:joining:toFound:maxDepth:distinct:)``) from the row, its depth-0 row left out.
    ///
    /// - Parameters:
    ///   - id: the primary key of the row to start from.
    ///   - parent: the column holding a row's parent's primary key.
    ///   - maxDepth: the deepest level reached (the guard against cycles), 0 or more.
    public func descendants<V: DatabaseValueConvertible>(
        of id: V, through parent: KeyPath<M, V?>, maxDepth: Int = 100
    ) -> Self {
        fromRow(id, parent, maxDepth: maxDepth, down: true)
    }

    /// The rows above the row whose primary key is `id` in a tree whose `parent` column holds each row's parent's
    /// key, at most `maxDepth` levels up: its parent at depth 1, the parent's parent at depth 2, … (not the row).
    ///
    /// - Parameters:
    ///   - id: the primary key of the row to start from.
    ///   - parent: the column holding a row's parent's primary key.
    ///   - maxDepth: the deepest level reached (the guard against cycles), 0 or more.
    public func ancestors<V: DatabaseValueConvertible>(
        of id: V, through parent: KeyPath<M, V?>, maxDepth: Int = 100
    ) -> Self {
        fromRow(id, parent, maxDepth: maxDepth, down: false)
    }

    /// A walk from the row whose primary key is `id`, down (rows whose parent was found) or up (the parents of
    /// rows found), leaving that row (depth 0) out.
    private func fromRow(_ id: some DatabaseValueConvertible, _ parent: PartialKeyPath<M>, maxDepth: Int, down: Bool)
        -> Self
    {
        guard let index = M.schema.primaryKeyIndex, let link = M.columnName(for: parent) else {
            var out = self
            out.error =
                out.error ?? .invalidQuery("a walk over \(M.schema.name) needs a primary key and a parent column")
            return out
        }
        let key = M.schema.columns[index].name
        var base = Self(executor: executor)
        base.filters = [.compare(.equal, .column(key), .value(M.schema.stored(id.databaseValue, column: key)))]
        var out =
            down
            ? walk(from: base, link: link, key: key, maxDepth: maxDepth, distinct: false)
            : walk(from: base, link: key, key: link, maxDepth: maxDepth, distinct: false)
        out.filters.append(.compare(.greater, .column(Recursion.defaultDepthColumn), .value(.integer(0))))
        return out
    }

    /// Orders a walk's rows by their depth (then by the terms added after), shallowest first by default.
    public func orderByDepth(_ direction: Ordering.Direction = .ascending) -> Self {
        var out = self
        out.order.append(Ordering(commonTable?.recursion?.depthColumn ?? Recursion.defaultDepthColumn, direction))
        return out
    }
}

extension QueryBuilder where Executor == Transaction {
    /// The models of a walk (``QueryBuilder/walk(from:joining:toFound:maxDepth:distinct:)``,
    /// ``QueryBuilder/descendants(of:through:maxDepth:)``, ``QueryBuilder/ancestors(of:through:maxDepth:)``), each
    /// with its depth.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` when the query reads no walk.
    @inlinable
    public func allWithDepth() throws -> [(model: M, depth: Int)] {
        // Inlinable, so the model's module specializes the per-row loop for its concrete type, as `fetch` does.
        let (select, columns) = try walkStatement()
        let context = RowContext(model: M.self, schema: M.schema, selected: columns, keyring: executor.database.keyring)
        let depthIndex = columns.count
        let scope = executor.undoScope
        var out: [(model: M, depth: Int)] = []
        // A walk down a chain finds a row a level: room for the levels up to a few dozen, grown past that.
        out.reserveCapacity(Swift.max(0, Swift.min(select.commonTable?.recursion?.maxDepth ?? 0, 31)) + 1)
        _ = try executor.execute(.select(select)) { reader in
            var model = try M(row: Row(reader: reader, context: context))
            model._persistence.markRead(in: scope)
            out.append((consume model, Int(reader.int64(at: depthIndex) ?? 0)))
        }
        return out
    }

    /// The walk's SELECT with its depth column last, and the model columns it reads before it.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` for a query that is no walk.
    @usableFromInline
    func walkStatement() throws -> (select: Select, columns: [String]) {
        var select = try selectStatement()
        guard let r = select.commonTable?.recursion, case .columns(let columns) = select.selection else {
            throw StrataError.invalidQuery(
                "allWithDepth() on \(M.schema.name) needs a walk: walk, descendants or ancestors")
        }
        // The model's columns and the default depth column: the array the schema made once (an array of 11
        // names built per walk cost about 1,100 instructions).
        let names = M.schema.storage
        let fromSchema = r.depthColumn == Recursion.defaultDepthColumn && columns == names.columnNames
        select.selection = .columns(fromSchema ? names.columnNamesAndDepth : columns + [r.depthColumn])
        return (select, columns)
    }
}

extension QueryBuilder where Executor == Database {
    /// The models of a walk, each with its depth (see the synchronous `allWithDepth()`).
    @inlinable
    nonisolated(nonsending) public func allWithDepth() async throws -> [(model: M, depth: Int)] {
        try await on { try $0.allWithDepth() }
    }
}
