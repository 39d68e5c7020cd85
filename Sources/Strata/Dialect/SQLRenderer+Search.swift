// SQLRenderer+Search: a full-text match over a stored search document, per dialect (see SearchSyntax).

extension SQLRenderer {
    /// Renders ``SQLExpression/Node/search(_:_:)``: every clause of `query` (AND), any alternative of a clause
    /// (OR), every term of an alternative (AND), each term a whole token or a token prefix of the document.
    ///
    /// Where the match is ANDed at the top of a WHERE clause and the dialect knows a full-text index of the column
    /// (``Dialect/fullTextIndexTable(table:column:)``), the index finds the candidate rows first and the scan
    /// confirms each of them:
    /// `("t"."rowid" IN (SELECT "rowid" FROM "t_doc_fts" WHERE "t_doc_fts" MATCH ?) AND <the scan>)`.
    mutating func search(_ column: SQLExpression.Node, _ query: SearchQuery) throws(StrataError) {
        if case .tsquery = dialect.searchSyntax {
            sql += "(array_to_tsvector(array_remove(string_to_array("
            try expression(column)
            sql += ", ' '), '')) @@ CAST("
            bind(.text(Self.tsqueryText(query)))
            sql += " AS tsquery))"
            return
        }
        if indexableSearches.contains(.search(column, query)),
            let (table, index) = Self.fullTextIndex(for: column, in: searchTable, dialect: dialect)
        {
            let i = try q(index)
            let rowid = try q("rowid")
            sql += "(" + (try q(table)) + "." + rowid + " IN (SELECT " + rowid + " FROM " + i + " WHERE " + i
            sql += " MATCH "
            bind(.text(Self.fts5Text(query)))
            sql += ") AND "
            try scan(column, query)
            sql += ")"
            return
        }
        try scan(column, query)
    }

    /// The full-text index table that serves a match on `column` in a statement that reads `table`: a column of
    /// that table (not of a joined one), where the dialect keeps an FTS5 index and knows one for the column.
    static func fullTextIndex(for column: SQLExpression.Node, in table: String?, dialect: any Dialect)
        -> (table: String, index: String)?
    {
        guard dialect.fullTextIndex == .fts5, let table, case .column(let name) = column,
            let index = dialect.fullTextIndexTable(table: table, column: name)
        else { return nil }
        return (table, index)
    }

    /// The matches a WHERE condition ANDs at its top: the only ones that may read a full-text index. The index's
    /// test is FALSE for a NULL document where the scan's is NULL, which a row filter takes alike, but `NOT`,
    /// `IS NULL` or a comparison over it would not: a match anywhere else is the scan alone. (The same match both
    /// at the top and under a `NOT` is safe: a NULL document already fails the top one.)
    static func conjunctSearches(_ node: SQLExpression.Node) -> Set<SQLExpression.Node> {
        switch node {
        case .search: return [node]
        case .and(let items): return items.reduce(into: []) { $0.formUnion(conjunctSearches($1)) }
        default: return []
        }
    }

    /// The stored table a SELECT reads its rows from, or nil for a WITH query's rows or a set operation's.
    static func searchTable(of s: Select) -> String? {
        s.commonTable == nil && s.compound == nil ? s.table : nil
    }

    /// The scan: each term tested in the padded document, grouped as the query groups them.
    private mutating func scan(_ column: SQLExpression.Node, _ query: SearchQuery) throws(StrataError) {
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

    /// The query as an FTS5 MATCH expression: `"swift" AND ("rust" OR "go") AND "migr"*`, each token an FTS5 string
    /// (a `"` doubled), so FTS5's query parser never reads a word as an operator, a column filter or a `NEAR`.
    static func fts5Text(_ query: SearchQuery) -> String {
        func group(_ items: [String], _ separator: String) -> String {
            items.count == 1 ? items[0] : "(" + items.joined(separator: separator) + ")"
        }
        return query.clauses.map { clause in
            group(clause.map { group($0.map(fts5String), " AND ") }, " OR ")
        }.joined(separator: " AND ")
    }

    /// One term as an FTS5 string: `"swift"`, `"migr"*` for a prefix, a `"` inside doubled (Strata's tokens hold
    /// none, but the rule does not rest on that).
    static func fts5String(_ term: SearchQuery.Term) -> String {
        var out = "\""
        for scalar in term.token.unicodeScalars {
            if scalar == "\"" { out.unicodeScalars.append(scalar) }
            out.unicodeScalars.append(scalar)
        }
        return out + "\"" + (term.isPrefix ? "*" : "")
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
    /// The DDL that indexes a search document column where the dialect's match can use an index: on SQLite with
    /// FTS5 (``FullTextIndexSyntax/fts5``) the virtual table and its three triggers (see
    /// ``fts5IndexSQL(table:column:dialect:)``); on PostgreSQL
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
        if dialect.fullTextIndex == .fts5 { return try fts5IndexSQL(table: table, column: column, dialect: dialect) }
        guard case .tsquery = dialect.searchSyntax else { return [] }
        let name = dialect.shortened(table + "_" + column + "_search_idx")
        return [
            "CREATE INDEX IF NOT EXISTS " + (try dialect.quote(name)) + " ON " + (try dialect.quote(table))
                + " USING gin (array_to_tsvector(array_remove(string_to_array(" + (try dialect.quote(column))
                + ", ' '), '')))"
        ]
    }
}

extension SQLRenderer {
    /// The name of the FTS5 table that indexes `column` of `table`: `<table>_<column>_fts`.
    ///
    /// - Parameters:
    ///   - table: the model's table.
    ///   - column: its search document column.
    ///   - dialect: the backend's dialect, which shortens a name longer than it accepts.
    /// - Returns: the index table's name.
    public static func fullTextIndexName(table: String, column: String, dialect: any Dialect) -> String {
        dialect.shortened(table + "_" + column + "_fts")
    }

    /// The FTS5 index of a search document (``FullTextIndexSyntax/fts5``), each statement idempotent:
    ///
    /// ```sql
    /// CREATE VIRTUAL TABLE IF NOT EXISTS "recipe_doc_fts" USING fts5("doc", content='recipe', tokenize='ascii',
    ///     detail='none', columnsize=0)
    /// CREATE TRIGGER IF NOT EXISTS "recipe_doc_fts_insert" AFTER INSERT ON "recipe" BEGIN
    ///     INSERT INTO "recipe_doc_fts" ("rowid", "doc") VALUES (new."rowid", new."doc"); END
    /// CREATE TRIGGER IF NOT EXISTS "recipe_doc_fts_delete" AFTER DELETE ON "recipe" BEGIN
    ///     INSERT INTO "recipe_doc_fts" ("recipe_doc_fts", "rowid", "doc") VALUES ('delete', old."rowid", old."doc"); END
    /// CREATE TRIGGER IF NOT EXISTS "recipe_doc_fts_update" AFTER UPDATE ON "recipe"
    ///     WHEN old."rowid" IS NOT new."rowid" OR old."doc" IS NOT new."doc" BEGIN <the delete>; <the insert>; END
    /// ```
    ///
    /// External content: the index holds no copy of the document, which FTS5 reads from the table by its rowid
    /// (an `INTEGER PRIMARY KEY`, or the implicit rowid of a table with another key). `tokenize='ascii'` splits
    /// on ASCII characters other than letters and digits and folds only `A`–`Z`: on a document of Strata's
    /// tokens joined by spaces, it makes exactly those tokens (a non-ASCII character is never a separator, so
    /// no Unicode table of FTS5's decides anything). `detail='none'`: a term or a prefix per string is all a
    /// match asks, so no position is stored, and `columnsize=0` no document length (only `bm25` reads it). A
    /// table that already has rows is filled by ``fullTextIndexFillSQL(table:column:dialect:)``.
    ///
    /// - Parameters:
    ///   - table: the model's table.
    ///   - column: its search document column.
    ///   - dialect: the backend's dialect.
    /// - Returns: the four statements.
    public static func fts5IndexSQL(table: String, column: String, dialect: any Dialect) throws(StrataError)
        -> [String]
    {
        let name = fullTextIndexName(table: table, column: column, dialect: dialect)
        let t = try dialect.quote(table)
        let c = try dialect.quote(column)
        let i = try dialect.quote(name)
        let rowid = try dialect.quote("rowid")
        let content = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        let insert = "INSERT INTO \(i) (\(rowid), \(c)) VALUES (new.\(rowid), new.\(c));"
        let delete = "INSERT INTO \(i) (\(i), \(rowid), \(c)) VALUES ('delete', old.\(rowid), old.\(c));"
        let triggers = try fullTextTriggerNames(index: name, dialect: dialect).map { n throws(StrataError) in
            "CREATE TRIGGER IF NOT EXISTS " + (try dialect.quote(n))
        }
        return [
            "CREATE VIRTUAL TABLE IF NOT EXISTS \(i) USING fts5(\(c), content=\(content), tokenize='ascii', "
                + "detail='none', columnsize=0)",
            triggers[0] + " AFTER INSERT ON \(t) BEGIN \(insert) END",
            triggers[1] + " AFTER DELETE ON \(t) BEGIN \(delete) END",
            triggers[2] + " AFTER UPDATE ON \(t) WHEN old.\(rowid) IS NOT new.\(rowid) OR old.\(c) IS NOT "
                + "new.\(c) BEGIN \(delete) \(insert) END",
        ]
    }

    /// The names of the three triggers that keep the FTS5 index `index` in step with its table, in the order
    /// insert, delete, update: `<index>_insert`, `<index>_delete`, `<index>_update`. A connection reads a match
    /// through the index only while all three exist (dropping the table drops them).
    ///
    /// - Parameters:
    ///   - index: the index table's name (``fullTextIndexName(table:column:dialect:)``).
    ///   - dialect: the backend's dialect, which shortens a name longer than it accepts.
    /// - Returns: the three names.
    public static func fullTextTriggerNames(index: String, dialect: any Dialect) -> [String] {
        ["insert", "delete", "update"].map { dialect.shortened(index + "_" + $0) }
    }

    /// The statement that fills a new full-text index from the rows its table already holds (FTS5's `rebuild`:
    /// `INSERT INTO "recipe_doc_fts" ("recipe_doc_fts") VALUES ('rebuild')`), or nil where the dialect has no
    /// full-text index table. Automatic migration runs it when it creates the table, or finds the index or one of
    /// its triggers missing (an index left from a dropped table of the same name is emptied so), and SQLite's table rebuild after it copies the rows
    /// (their implicit rowids may change).
    ///
    /// - Parameters:
    ///   - table: the model's table.
    ///   - column: its search document column.
    ///   - dialect: the backend's dialect.
    /// - Returns: the statement, or nil.
    public static func fullTextIndexFillSQL(table: String, column: String, dialect: any Dialect) throws(StrataError)
        -> String?
    {
        guard dialect.fullTextIndex == .fts5 else { return nil }
        let i = try dialect.quote(fullTextIndexName(table: table, column: column, dialect: dialect))
        return "INSERT INTO " + i + " (" + i + ") VALUES ('rebuild')"
    }
}
