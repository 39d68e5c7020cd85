// QueryBuilder+Search: `match("swift orm*")`, a full-text search over the model's searchable columns.

extension Condition {
    /// Whether the row's search document matches `text` (see ``SearchQuery`` for the syntax and
    /// ``SearchableColumns`` for the declaration); composes with other conditions by `&&`, `||` and `!`.
    ///
    /// ```swift
    /// Article.query(on: db).where(.match("swift OR rust") && \.published == true)
    /// ```
    ///
    /// ```sql
    /// -- SQLite: the FTS5 index's candidates (binds '"swift" OR "rust"'), each confirmed in the document padded
    /// -- with spaces (binds ' swift ', ' rust '); without the index, the second half alone
    /// ("article"."rowid" IN (SELECT "rowid" FROM "article_search_document_fts" WHERE "article_search_document_fts"
    /// MATCH ?) AND ((instr((' ' || "search_document" || ' '), ?) > 0) OR (instr((' ' || "search_document" || ' '), ?)
    /// > 0)))
    /// -- PostgreSQL: the terms as a tsquery over the stored lexemes
    /// (array_to_tsvector(array_remove(string_to_array("search_document", ' '), '')) @@ CAST($1 AS tsquery))
    /// ```
    ///
    /// - Parameter text: the query as the user typed it.
    /// - Returns: the condition; the query throws ``StrataError/invalidSearch(model:part:reason:)`` when it runs if
    ///   `text` has no word, a dangling `OR`, a phrase, or the model declares no ``Model/searchable``.
    public static func match(_ text: String) -> Condition {
        do throws(StrataError) {
            guard let (_, document) = try M.searchColumns() else {
                throw .invalidSearch(
                    model: M.modelName, part: "searchable", reason: "is nil: the model declares no searchable columns")
            }
            let query = try SearchQuery(text, model: M.modelName)
            return Condition(SQLExpression(.search(.column(M.schema.columns[document].name), query)))
        } catch {
            return Condition(error: error)
        }
    }
}

extension QueryBuilder {
    /// Keeps the rows whose search document matches `text`: `match("swift orm")` (both words),
    /// `match("swift OR rust")`, `match("migr*")` (a prefix). See ``Condition/match(_:)``.
    ///
    /// ```swift
    /// let hits = try await Article.query(on: db).match("Crème brûlée*").order(\.id).all()
    /// ```
    public func match(_ text: String) -> Self { self.where(.match(text)) }
}

extension QueryBuilder {
    /// Sorts by the rank of the query's ``match(_:)``, most relevant first: the number of the query's distinct
    /// terms the document holds (a prefix term counts once however many tokens it matches), computed the same way
    /// on every driver. Ties keep no order: add an `order(_:)` after it (`.orderByRank().order(\.id)`).
    ///
    /// ```swift
    /// let best = try await Article.query(on: db).match("swift OR rust OR orm").orderByRank().order(\.id).all()
    /// ```
    ///
    /// ```sql
    /// ORDER BY (CASE WHEN instr((' ' || "search_document" || ' '), ?) > 0 THEN 1 ELSE 0 END + …) DESC
    /// ```
    ///
    /// The query fails with ``StrataError/invalidSearch(model:part:reason:)`` when it has no `match` before this call.
    public func orderByRank() -> Self {
        var copy = self
        var found: SearchQuery.Node?
        for f in filters.reversed() where found == nil { found = SearchQuery.firstSearch(in: f.node) }
        guard let (column, query) = found else {
            copy.error = copy.error ?? .invalidSearch(model: M.modelName, part: "orderByRank", reason: "needs a match")
            return copy
        }
        copy.order.append(Ordering(expression: SQLExpression(.searchRank(column, query)), .descending))
        return copy
    }
}

extension SearchQuery {
    /// A search node's document column and query.
    typealias Node = (SQLExpression.Node, SearchQuery)

    /// The first `match` inside a filter (under AND, OR and NOT), in reading order.
    static func firstSearch(in node: SQLExpression.Node) -> Node? {
        switch node {
        case .search(let column, let query): return (column, query)
        case .and(let items), .or(let items):
            for item in items { if let found = firstSearch(in: item) { return found } }
            return nil
        case .not(let e): return firstSearch(in: e)
        default: return nil
        }
    }
}
