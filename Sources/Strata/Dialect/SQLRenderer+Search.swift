// SQLRenderer+Search: a full-text match over a stored search document, per dialect (see SearchSyntax).

extension SQLRenderer {
    /// Renders ``SQLExpression/Node/search(_:_:)``: every clause of `query` (AND), any alternative of a clause
    /// (OR), every term of an alternative (AND), each term a whole token or a token prefix of the document.
    mutating func search(_ column: SQLExpression.Node, _ query: SearchQuery) throws(StrataError) {
        switch dialect.searchSyntax {
        case .tsquery:
            sql += "(array_to_tsvector(array_remove(string_to_array("
            try expression(column)
            sql += ", ' '), '')) @@ CAST("
            bind(.text(Self.tsqueryText(query)))
            sql += " AS tsquery))"
        case .likeTokens:
            let padded = try paddedDocument(column)
            let escape = dialect.likeEscape == .escapeClause ? " ESCAPE '\\'" : ""
            func group(_ items: [String], _ separator: String) -> String {
                items.count == 1 ? items[0] : "(" + items.joined(separator: separator) + ")"
            }
            var clauses: [String] = []
            for clause in query.clauses {
                var alternatives: [String] = []
                for alternative in clause {
                    var terms: [String] = []
                    for term in alternative {
                        let before = sql
                        sql = ""
                        bind(.text(Self.likePattern(term)))
                        terms.append("(" + padded + " LIKE " + sql + escape + ")")
                        sql = before
                    }
                    alternatives.append(group(terms, " AND "))
                }
                clauses.append(group(alternatives, " OR "))
            }
            sql += group(clauses, " AND ")
        }
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

    /// The values ``SQLRenderer/search(_:_:)`` binds under ``SearchSyntax/likeTokens``, in order.
    static func likePatterns(_ query: SearchQuery) -> [DatabaseValue] {
        query.clauses.flatMap { $0.flatMap { $0.map { .text(likePattern($0)) } } }
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
    /// Renders ``SQLExpression/Node/searchRank(_:_:)`` the same way on every dialect: one `CASE WHEN … LIKE …
    /// THEN 1 ELSE 0 END` per distinct term of the query, added up (an integer from 0 to the number of terms).
    mutating func searchRank(_ column: SQLExpression.Node, _ query: SearchQuery) throws(StrataError) {
        let padded = try paddedDocument(column)
        let escape = dialect.likeEscape == .escapeClause ? " ESCAPE '\\'" : ""
        sql += "("
        for (n, term) in query.terms.enumerated() {
            if n > 0 { sql += " + " }
            sql += "CASE WHEN " + padded + " LIKE "
            bind(.text(Self.likePattern(term)))
            sql += escape + " THEN 1 ELSE 0 END"
        }
        sql += ")"
    }
}
