// SQLRenderer+Search: a full-text match over a stored search document, per dialect (see SearchSyntax).

extension SQLRenderer {
    /// Renders ``SQLExpression/Node/search(_:_:)``: every clause of `query` (AND), any alternative of a clause
    /// (OR), every term of an alternative (AND), each term a whole token or a token prefix of the document.
    mutating func search(_ column: SQLExpression.Node, _ query: SearchQuery) throws(StrataError) {
        if case .tsquery = dialect.searchSyntax {
            sql += "(array_to_tsvector(array_remove(string_to_array("
            try expression(column)
            sql += ", ' '), '')) @@ CAST("
            bind(.text(Self.tsqueryText(query)))
            sql += " AS tsquery))"
            return
        }
        let padded = try paddedDocument(column)
        func group(_ items: [String], _ separator: String) -> String {
            items.count == 1 ? items[0] : "(" + items.joined(separator: separator) + ")"
        }
        var clauses: [String] = []
        for clause in query.clauses {
            var alternatives: [String] = []
            for alternative in clause {
                var terms: [String] = []
                for term in alternative { terms.append("(" + termTest(padded, term, dialect.searchSyntax) + ")") }
                alternatives.append(group(terms, " AND "))
            }
            clauses.append(group(alternatives, " OR "))
        }
        sql += group(clauses, " AND ")
    }

    /// One term's test over the padded document, binding its pattern: `padded LIKE ? ESCAPE '\'`, or
    /// `instr(padded, ?) > 0` where the dialect finds substrings by position (see ``SearchSyntax``).
    private mutating func termTest(_ padded: String, _ term: SearchQuery.Term, _ syntax: SearchSyntax) -> String {
        let before = sql
        sql = ""
        defer { sql = before }
        if case .position(let function) = syntax {
            bind(.text(Self.positionNeedle(term)))
            return function + "(" + padded + ", " + sql + ") > 0"
        }
        bind(.text(Self.likePattern(term)))
        return padded + " LIKE " + sql + (dialect.likeEscape == .escapeClause ? " ESCAPE '\\'" : "")
    }

    /// The document column with a space on each side, as SQL text (`(' ' || "doc" || ' ')`), so that `% t %`
    /// finds the whole token `t` at its start, in its middle and at its end.
    func paddedDocument(_ column: SQLExpression.Node) throws(StrataError) -> String {
        var inner = SQLRenderer(dialect: dialect)
        inner.qualifier = qualifier
        inner.mainTable = mainTable
        try inner.expression(column)
        guard inner.binds.isEmpty else { throw .invalidQuery("a full-text search reads a column, not a value") }
        return dialect.concatSyntax == .pipes
            ? "(' ' || " + inner.sql + " || ' ')" : "CONCAT(' ', " + inner.sql + ", ' ')"
    }

    /// The LIKE pattern of one term over the space-padded document: `% swift %`, or `% migr%` for a prefix.
    static func likePattern(_ term: SearchQuery.Term) -> String {
        "% " + SQLExpression.escapeLike(term.token) + (term.isPrefix ? "%" : " %")
    }

    /// The text one term looks for in the space-padded document: ` swift `, or ` migr` for a prefix.
    static func positionNeedle(_ term: SearchQuery.Term) -> String {
        " " + term.token + (term.isPrefix ? "" : " ")
    }

    /// The value a term binds under `syntax` (a LIKE pattern, or a substring to find).
    static func termValue(_ term: SearchQuery.Term, _ syntax: SearchSyntax) -> DatabaseValue {
        if case .position = syntax { return .text(positionNeedle(term)) }
        return .text(likePattern(term))
    }

    /// The values ``SQLRenderer/search(_:_:)`` binds under `syntax`, in order.
    static func searchBinds(_ query: SearchQuery, _ syntax: SearchSyntax) -> [DatabaseValue] {
        if case .tsquery = syntax { return [.text(tsqueryText(query))] }
        return query.clauses.flatMap { $0.flatMap { $0.map { termValue($0, syntax) } } }
    }

    /// The values ``SQLRenderer/searchRank(_:_:)`` binds under `syntax`, in order: one per distinct term.
    static func rankBinds(_ query: SearchQuery, _ syntax: SearchSyntax) -> [DatabaseValue] {
        let termSyntax: SearchSyntax = syntax == .tsquery ? .likeTokens : syntax
        return query.terms.map { termValue($0, termSyntax) }
    }

    /// The query as PostgreSQL tsquery text: `'swift' & ( 'rust' | 'go' ) & 'migr':*`, each token a quoted lexeme
    /// (a `'` doubled, a `\` escaped), so PostgreSQL's parser never sees the words.
    static func tsqueryText(_ query: SearchQuery) -> String {
        func lexeme(_ term: SearchQuery.Term) -> String {
            var out = "'"
            for scalar in term.token.unicodeScalars {
                if scalar == "'" || scalar == "\\" { out.unicodeScalars.append(scalar == "'" ? "'" : "\\") }
                out.unicodeScalars.append(scalar)
            }
            return out + "'" + (term.isPrefix ? ":*" : "")
        }
        let several = query.clauses.count > 1
        return query.clauses.map { clause in
            let alternatives = clause.map { $0.map(lexeme).joined(separator: " & ") }
            guard alternatives.count > 1 else { return alternatives[0] }
            let either = alternatives.joined(separator: " | ")
            return several ? "( " + either + " )" : either
        }.joined(separator: " & ")
    }
}

extension SQLRenderer {
    /// Renders ``SQLExpression/Node/searchRank(_:_:)``: one `CASE WHEN <term> THEN 1 ELSE 0 END` per distinct term
    /// of the query, added up (an integer from 0 to the number of terms), each term tested as a match tests it
    /// (a LIKE on PostgreSQL too, whose tsquery answers for the whole query only).
    mutating func searchRank(_ column: SQLExpression.Node, _ query: SearchQuery) throws(StrataError) {
        let padded = try paddedDocument(column)
        let syntax: SearchSyntax = dialect.searchSyntax == .tsquery ? .likeTokens : dialect.searchSyntax
        sql += "("
        for (n, term) in query.terms.enumerated() {
            if n > 0 { sql += " + " }
            sql += "CASE WHEN " + termTest(padded, term, syntax) + " THEN 1 ELSE 0 END"
        }
        sql += ")"
    }
}

extension SQLRenderer {
    /// The DDL that indexes a search document column where the dialect's match can use an index: on PostgreSQL
    /// (``SearchSyntax/tsquery``) `CREATE INDEX IF NOT EXISTS "<table>_<column>_search_idx" ON "<table>" USING gin
    /// (array_to_tsvector(array_remove(string_to_array("<column>", ' '), '')))`, the very expression a match
    /// reads; nothing elsewhere. (PostgreSQL's introspection lists no expression index, so a plan never sees it.)
    ///
    /// - Parameters:
    ///   - table: the model's table.
    ///   - column: its search document column.
    ///   - dialect: the backend's dialect.
    /// - Returns: the statements to run, none where no index helps.
    public static func searchIndexSQL(table: String, column: String, dialect: any Dialect) throws(StrataError)
        -> [String]
    {
        guard case .tsquery = dialect.searchSyntax else { return [] }
        let name = dialect.shortened(table + "_" + column + "_search_idx")
        return [
            "CREATE INDEX IF NOT EXISTS " + (try dialect.quote(name)) + " ON " + (try dialect.quote(table))
                + " USING gin (array_to_tsvector(array_remove(string_to_array(" + (try dialect.quote(column))
                + ", ' '), '')))"
        ]
    }
}
