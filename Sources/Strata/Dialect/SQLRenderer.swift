// SQLRenderer: turns a Statement into SQL text and binds for a Dialect; pure and throwing.

/// Renders statements for a dialect. Needs no connection, so it can be golden-tested.
///
/// Every value is bound; every identifier is quoted by the dialect. Rendering fails with a typed
/// error instead of producing invalid SQL.
public struct SQLRenderer {
    /// The dialect that spells the SQL: its quotes, placeholders, types and capabilities.
    public let dialect: any Dialect
    var sql = ""
    var binds: [DatabaseValue] = []
    /// The main table's name while rendering a SELECT with joins: its columns are then qualified.
    var qualifier: String?
    /// The SELECT's main table, which a qualified column may also name.
    var mainTable: String?
    /// The stored table whose rows the statement reads (a SELECT's own table, not a WITH query's or a set
    /// operation's; an UPDATE's or DELETE's), where a match may read the table's full-text index by rowid.
    var searchTable: String?
    /// The matches the WHERE clause being rendered ANDs at its top (see ``conjunctSearches(_:)``): only there may a
    /// match read a full-text index, whose test is FALSE where the scan's is NULL (a NULL document).
    var indexableSearches: Set<SQLExpression.Node> = []
    /// Whether an arithmetic expression is being rendered (its operands are not wrapped for NaN again).
    var insideArithmetic = false
    /// SQL the next SELECT writes after its columns (a recursive walk's depth), then forgets.
    var extraItem: String?
    /// Whether values are written as SQL literals instead of bound (a generated column's expression in DDL, which
    /// takes no parameters); only values ``TableSchema`` lets a generation hold reach it.
    var inlineValues = false

    init(dialect: any Dialect) { self.dialect = dialect }

    /// Renders one statement.
    ///
    /// The refusals every driver shares (a negative limit, a dangling LIKE escape, …) are not made here: the core
    /// makes them before a statement reaches any driver (see `StatementCheck`).
    ///
    /// - Throws: ``StrataError/invalidIdentifier(_:reason:)``, ``StrataError/invalidQuery(_:)`` (an INSERT
    ///   without rows), ``StrataError/tooManyBindings(count:limit:)``, ``StrataError/unsupported(feature:driver:)``
    ///   (a clause the dialect cannot write).
    public static func render(_ statement: Statement, dialect: any Dialect) throws(StrataError) -> RenderedSQL {
        var r = SQLRenderer(dialect: dialect)
        try r.statement(statement)
        if r.binds.count > dialect.maxBindParameters {
            throw .tooManyBindings(count: r.binds.count, limit: dialect.maxBindParameters)
        }
        return RenderedSQL(sql: r.sql, binds: r.binds)
    }

    /// Renders a raw SQL text whose `?` markers (outside quotes) take `binds` in order.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` when the markers and values do not match.
    public static func renderRaw(_ sql: String, _ binds: [DatabaseValue], dialect: any Dialect) throws(StrataError)
        -> RenderedSQL
    {
        var r = SQLRenderer(dialect: dialect)
        try r.raw(sql, binds)
        if r.binds.count > dialect.maxBindParameters {
            throw .tooManyBindings(count: r.binds.count, limit: dialect.maxBindParameters)
        }
        return RenderedSQL(sql: r.sql, binds: r.binds)
    }

    private mutating func statement(_ statement: Statement) throws(StrataError) {
        switch statement {
        case .select(let s):
            if let tag = s.tag {
                try QueryTag.check(tag)
                sql += "/* " + tag + " */ "
            }
            try select(s)
        case .insert(let i): try insert(i)
        case .update(let u):
            searchTable = u.table
            sql += "UPDATE " + (try q(u.table)) + " SET "
            for (n, a) in u.assignments.enumerated() {
                if n > 0 { sql += ", " }
                sql += try q(a.column) + " = "
                if let e = a.expression { try expression(e.node) } else { bind(a.value) }
            }
            try whereClause(u.filter)
        case .delete(let d):
            searchTable = d.table
            sql += "DELETE FROM " + (try q(d.table))
            try whereClause(d.filter)
        case .createTable(let t): try createTable(t)
        case .addColumn(let table, let column):
            sql += "ALTER TABLE " + (try q(table)) + " ADD COLUMN "
            try columnDefinition(column, table: table, forAdd: true)
        case .createIndex(let table, let index):
            let name = dialect.shortened(index.resolvedName(table: table))
            let ifNotExists = dialect.existenceClauses.contains(.createIndex) ? "IF NOT EXISTS " : ""
            sql += "CREATE " + (index.isUnique ? "UNIQUE " : "") + "INDEX " + ifNotExists + (try q(name)) + " ON "
            let nullsFirst = dialect.nullOrdering == .highest && dialect.nullsClause == .keywords
            if let e = index.expression {
                guard dialect.jsonPathSyntax?.indexable == true else {
                    throw .unsupported(feature: "an index on a JSON path (\(e.summary))", driver: dialect.name)
                }
                // A JSON path's value, NULL where the path leads nowhere: NULLS FIRST, as the queries order it.
                sql += try q(table) + " (("
                try expression(e.node)
                sql += ")" + (nullsFirst ? " NULLS FIRST" : "") + ")"
                return
            }
            sql +=
                try q(table) + " ("
                + (try index.columns.map { c throws(StrataError) in
                    try q(c) + (nullsFirst && index.nullsFirstColumns?.contains(c) == true ? " NULLS FIRST" : "")
                }.joined(separator: ", ")) + ")"
        case .dropTable(let t): sql += "DROP TABLE IF EXISTS " + (try q(t))
        case .begin: sql += dialect.beginTransaction
        case .commit: sql += "COMMIT"
        case .rollback: sql += "ROLLBACK"
        case .savepoint(let n): sql += "SAVEPOINT " + (try q(n))
        case .releaseSavepoint(let n): sql += "RELEASE SAVEPOINT " + (try q(n))
        case .rollbackToSavepoint(let n): sql += "ROLLBACK TO SAVEPOINT " + (try q(n))
        case .beginIsolated(let level): try beginIsolated(level)
        }
    }

    func q(_ identifier: String) throws(StrataError) -> String { try dialect.quote(identifier) }

    mutating func bind(_ value: DatabaseValue) {
        if inlineValues, let literal = try? ddlLiteral(value, table: "", column: "") {
            sql += literal
            return
        }
        binds.append(value)
        sql += dialect.placeholder(binds.count)
    }

    // MARK: SELECT

    mutating func select(_ s: Select) throws(StrataError) {
        let extra = extraItem
        extraItem = nil
        // A subquery's SELECT restores its outer query's scope.
        let outer = (qualifier, mainTable, searchTable, indexableSearches)
        qualifier = s.joins.isEmpty ? nil : s.table
        mainTable = s.table
        searchTable = Self.searchTable(of: s)
        indexableSearches = []
        defer { (qualifier, mainTable, searchTable, indexableSearches) = outer }
        if let w = s.commonTable { try with(w) }
        let select = s.distinct ? "SELECT DISTINCT " : "SELECT "
        let collated = Self.distinctTextOrder(s, dialect: dialect)
        switch s.selection {
        case .columns(let columns):
            sql +=
                select
                + (try columns.map { c throws(StrataError) in try selected(c, table: nil, collated: collated) }
                    .joined(separator: ", "))
            if let extra { sql += ", " + extra }
            try from(s)
            try selectTail(s)
        case .refs(let refs):
            sql +=
                select
                + (try refs.map { r throws(StrataError) in try selected(r.name, table: r.table, collated: collated) }
                    .joined(separator: ", "))
            try from(s)
            try selectTail(s)
        case .count:
            if s.limit == nil && s.offset == nil {
                sql += "SELECT COUNT(*)"
                try from(s)
                try whereClause(s.filter)
            } else {
                sql += "SELECT COUNT(*) FROM (SELECT 1"
                try from(s)
                try selectTail(s)
                sql += ") AS " + (try q("strata_count"))
            }
        case .items(let items):
            sql += select
            try selectItems(items, of: s, collated: collated)
            try from(s)
            try selectTail(s)
        }
        if let lock = s.lock { try rowLock(lock, s) }
    }

    private mutating func from(_ s: Select) throws(StrataError) {
        if let c = s.compound {
            sql += " FROM ("
            try compound(c.first, c.rest[...], depth: 0)
            sql += ") AS " + (try q("strata_set"))
            return
        }
        if let w = s.commonTable {
            sql += " FROM " + (try q(w.name)) + " AS " + (try q(s.table))
        } else {
            sql += " FROM " + (try q(s.table))
        }
        for join in s.joins {
            guard dialect.joinKinds.contains(JoinKinds(join.kind)) else {
                throw .unsupported(feature: join.kind.rawValue + " JOIN", driver: dialect.name)
            }
            sql += " " + join.kind.rawValue + " JOIN " + (try q(join.table)) + " AS " + (try q(join.alias)) + " ON "
            try expression(join.on.node)
        }
    }

    /// A column reference: qualified by its table when the SELECT has joins. A table out of scope was refused
    /// before any driver (`StatementCheck`).
    func column(_ name: String, table: String?) throws(StrataError) -> String {
        if let table = table ?? qualifier { return try q(table) + "." + (try q(name)) }
        return try q(name)
    }

    private mutating func selectTail(_ s: Select) throws(StrataError) {
        try whereClause(s.filter)
        try groupTail(s)
        if !s.order.isEmpty {
            sql += " ORDER BY "
            try orderTerms(s.order, in: s)
        }
        if let limit = s.limit {
            sql += " LIMIT "
            bind(.integer(Int64(limit)))
        } else if s.offset != nil {
            switch dialect.offsetWithoutLimit {
            case .offsetAlone: break
            case .limitMinusOne: sql += " LIMIT -1"
            case .limitMaximum: sql += " LIMIT 18446744073709551615"
            }
        }
        if let offset = s.offset {
            sql += " OFFSET "
            bind(.integer(Int64(offset)))
        }
    }

    /// The terms of an ORDER BY (of `s`, or of a window of its items), NULLs first ascending and last descending.
    mutating func orderTerms(_ order: [Ordering], in s: Select) throws(StrataError) {
        for (n, o) in order.enumerated() {
            if n > 0 { sql += ", " }
            let clause = Self.needsNullsClause(o, in: s, dialect: dialect)
            if clause && dialect.nullsClause == .sortKey {
                // NULLs first ascending, last descending: a key that sorts them there, before the term.
                sql += "CASE WHEN "
                try orderTerm(o)
                sql += o.direction == .ascending ? " IS NULL THEN 0 ELSE 1 END, " : " IS NULL THEN 1 ELSE 0 END, "
            }
            try orderTerm(o)
            sql += o.direction == .ascending ? " ASC" : " DESC"
            if clause && dialect.nullsClause == .keywords {
                sql += o.direction == .ascending ? " NULLS FIRST" : " NULLS LAST"
            }
        }
    }

    /// One ORDER BY term, without its direction.
    private mutating func orderTerm(_ o: Ordering) throws(StrataError) {
        if let a = o.aggregate {
            try aggregate(a)
        } else if let e = o.expression {
            try expression(e.node)
        } else {
            sql += try column(o.column, table: o.table)
            // SELECT DISTINCT may only order by what it selects: it selects `x COLLATE "C"` too (see
            // `distinctTextOrder`).
            if o.isText { try binaryCollation() }
        }
    }

    /// Whether the term `o` of `s` needs NULLs placed explicitly: the dialect sorts them highest by itself, and
    /// the term can be NULL.
    static func needsNullsClause(_ o: Ordering, in s: Select, dialect: any Dialect) -> Bool {
        dialect.nullOrdering == .highest && !(o.isNeverNull && !joinsCanBringNull(to: o, in: s))
    }

    /// Whether an outer join of `s` can make the column of `o` NULL in some row: a RIGHT or FULL join for any
    /// table, a LEFT join for its own.
    private static func joinsCanBringNull(to o: Ordering, in s: Select) -> Bool {
        s.joins.contains { j in
            j.kind == .right || j.kind == .full || (j.kind == .left && o.table == j.alias && o.table != s.table)
        }
    }

    private mutating func whereClause(_ filter: SQLExpression?) throws(StrataError) {
        guard let filter else { return }
        sql += " WHERE "
        let outer = indexableSearches
        indexableSearches = Self.conjunctSearches(filter.node)
        defer { indexableSearches = outer }
        try expression(filter.node)
    }

    // MARK: Expressions

    mutating func expression(_ node: SQLExpression.Node) throws(StrataError) {
        switch node {
        case .column(let c): sql += try column(c, table: nil)
        case .joinedColumn(let t, let c): sql += try column(c, table: t)
        case .value(let v): bind(v)
        case .parameter(let slot): throw .unboundParameter(slot.name)
        case .constant(let b): sql += dialect.literal(b)
        case .compare(let op, let l, let r):
            if try mixedComparison(op, l, r) { return }
            sql += "("
            try numericOperand(l, against: [r])
            if op != .equal && op != .notEqual && Self.isText(r) { try binaryCollation() }
            try decimalCollation(after: l, against: [r])
            sql += " " + op.rawValue + " "
            try numericOperand(r, against: [l])
            sql += ")"
        case .and(let items): try list(items, separator: " AND ", empty: true)
        case .or(let items): try list(items, separator: " OR ", empty: false)
        case .not(let e):
            sql += "(NOT "
            try expression(e)
            sql += ")"
        case .isNull(let e, let negated):
            sql += "("
            try expression(e)
            sql += negated ? " IS NOT NULL)" : " IS NULL)"
        case .inList(let e, let values, let negated):
            if values.isEmpty {
                sql += dialect.literal(negated)
                return
            }
            if let array = ArrayInList(values, negated: negated, dialect: dialect) {
                sql += "("
                try numericOperand(e, against: values)
                try decimalCollation(after: e, against: [], values: values)
                sql += array.open
                bind(array.value)
                sql += array.close + ")"
                return
            }
            if try mixedInList(e, values, negated: negated) { return }
            sql += "("
            try numericOperand(e, against: values)
            try decimalCollation(after: e, against: [], values: values)
            sql += negated ? " NOT IN (" : " IN ("
            for (n, v) in values.enumerated() {
                if n > 0 { sql += ", " }
                bind(v)
            }
            sql += "))"
        case .like(let e, let pattern, let caseInsensitive, let negated):
            sql += "("
            let op = negated ? " NOT LIKE " : " LIKE "
            switch (caseInsensitive, dialect.caseInsensitiveLike) {
            case (false, _):
                try operand(e)
                sql += op
                bind(.text(pattern))
            case (true, .lowerBoth):
                try caseMapped(upper: false) { (r: inout SQLRenderer) throws(StrataError) in try r.operand(e) }
                sql += op
                try caseMapped(upper: false) { (r: inout SQLRenderer) throws(StrataError) in r.bind(.text(pattern)) }
            case (true, .ilike):
                try operand(e)
                sql += negated ? " NOT ILIKE " : " ILIKE "
                bind(.text(pattern))
            }
            if dialect.likeEscape == .escapeClause { sql += " ESCAPE '\\'" }
            sql += ")"
        case .between(let e, let low, let high, let negated):
            if try mixedBetween(e, low, high, negated: negated) { return }
            sql += "("
            try numericOperand(e, against: [low, high])
            if Self.isText(low) || Self.isText(high) { try binaryCollation() }
            try decimalCollation(after: e, against: [low, high])
            sql += negated ? " NOT BETWEEN " : " BETWEEN "
            try operand(low)
            sql += " AND "
            try operand(high)
            sql += ")"
        case .unsafeRaw(let fragment, let values):
            sql += "("
            try raw(fragment, values)
            sql += ")"
        case .arithmetic, .concat, .caseMapped, .coalesce, .inSubquery, .scalarSubquery, .correlatedExists, .typed:
            try computed(node)
        case .jsonPath(let e, let path): try jsonPath(e, path)
        case .search(let e, let query): try search(e, query)
        case .searchRank(let e, let query): try searchRank(e, query)
        }
    }

    private mutating func operand(_ node: SQLExpression.Node) throws(StrataError) {
        try expression(node)
    }

    /// ` COLLATE "C"` where the dialect names a code-point collation (see ``Dialect/binaryTextCollation``).
    private mutating func binaryCollation() throws(StrataError) {
        if let c = dialect.binaryTextCollation { sql += " COLLATE " + (try q(c)) }
    }

    /// Whether a node is a bound text value (so the comparison it is in orders text).
    private static func isText(_ node: SQLExpression.Node) -> Bool {
        if case .value(.text) = node { return true }
        return false
    }

    private mutating func list(_ items: [SQLExpression.Node], separator: String, empty: Bool) throws(StrataError) {
        guard !items.isEmpty else {
            sql += dialect.literal(empty)
            return
        }
        sql += "("
        for (n, item) in items.enumerated() {
            if n > 0 { sql += separator }
            try expression(item)
        }
        sql += ")"
    }

    /// Copies a raw fragment, turning each `?` outside quotes into the dialect's next placeholder.
    ///
    /// A placeholder is never glued to a word or number beside it: `?1` would read as `$11` or SQLite's `?1`
    /// (another parameter), and `x?` as the identifier `x$1`; a space goes between them.
    ///
    /// Read as UTF-8 bytes: the markers and quotes are ASCII, which no byte of a longer UTF-8 sequence is, so the
    /// text between them is copied whole. Text without a marker is appended at once. (Read scalar by scalar, each
    /// scalar appended to a new string and its word properties looked up, a raw `SELECT pg_sleep(0.001)` cost about
    /// 10,000 instructions.)
    private mutating func raw(_ fragment: String, _ values: [DatabaseValue]) throws(StrataError) {
        let utf8 = fragment.utf8
        guard utf8.contains(UInt8(ascii: "?")) else {
            guard values.isEmpty else { throw .invalidQuery("raw SQL has fewer ? than bound values") }
            sql += fragment
            return
        }
        var quote: UInt8?
        var used = 0
        var start = utf8.startIndex
        var i = start
        while i != utf8.endIndex {
            let byte = utf8[i]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "?") {
                guard used < values.count else { throw .invalidQuery("raw SQL has more ? than bound values") }
                sql += fragment[start..<i]
                if let last = sql.unicodeScalars.last, Self.isWordScalar(last) { sql += " " }
                bind(values[used])
                used += 1
                start = utf8.index(after: i)
                // A word right after the marker is spaced from its placeholder.
                if start != utf8.endIndex, Self.isWordScalar(fragment.unicodeScalars[start]) { sql += " " }
            }
            i = utf8.index(after: i)
        }
        guard used == values.count else { throw .invalidQuery("raw SQL has fewer ? than bound values") }
        sql += fragment[start...]
    }

    /// Whether `s` can continue a word (an identifier, a keyword, a number, a `$1` placeholder): a placeholder is
    /// spaced from it.
    private static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        if s.isASCII {
            let v = s.value
            return v == 0x5F || v == 0x24 || (v >= 0x30 && v <= 0x39) || (v | 0x20 >= 0x61 && v | 0x20 <= 0x7A)
        }
        return s.properties.isAlphabetic
    }

    // MARK: INSERT and DDL

    /// An INSERT whose rows fit its columns: `StatementCheck` refused the others before any driver.
    private mutating func insert(_ i: Insert) throws(StrataError) {
        sql += "INSERT INTO " + (try q(i.table))
        if i.columns.isEmpty {
            sql += dialect.emptyInsertSyntax == .defaultValues ? " DEFAULT VALUES" : " () VALUES ()"
        } else {
            sql +=
                " (" + (try i.columns.map { c throws(StrataError) in try q(c) }.joined(separator: ", ")) + ") VALUES "
            // A column with a database default takes it where the row's value is NULL: `COALESCE(?, default)`.
            let defaults = i.defaults.isEmpty ? [] : i.columns.map { i.defaults[$0].map(dialect.databaseDefaultSQL) }
            for (n, row) in i.rows.enumerated() {
                sql += n > 0 ? ", (" : "("
                for (k, v) in row.enumerated() {
                    if k > 0 { sql += ", " }
                    if k < defaults.count, let d = defaults[k] {
                        sql += "COALESCE("
                        bind(v)
                        sql += ", " + d + ")"
                    } else {
                        bind(v)
                    }
                }
                sql += ")"
            }
        }
        if let c = i.onConflict {
            sql += try c.sql(table: i.table, syntax: dialect.upsertSyntax, driver: dialect.name) {
                n throws(StrataError) in
                try q(n)
            }
        }
        if let r = i.returning {
            guard dialect.returning.contains(.insert) else {
                throw .unsupported(feature: "INSERT … RETURNING", driver: dialect.name)
            }
            sql += " RETURNING " + (try q(r))
        }
    }

    private mutating func createTable(_ t: TableSchema) throws(StrataError) {
        sql += dialect.existenceClauses.contains(.createTable) ? "CREATE TABLE IF NOT EXISTS " : "CREATE TABLE "
        sql += try q(t.name) + " ("
        for (n, c) in t.columns.enumerated() {
            if n > 0 { sql += ", " }
            let isKey = t.foreignKeys.contains { $0.columns.contains(c.name) }
            if t.hasCompositeKey && c.isPrimaryKey {
                // A column of a composite key: typed as a key, NOT NULL; the key is declared after the columns.
                sql += try q(c.name) + " " + dialect.keySQLType(c.type) + " NOT NULL"
                if let check = dialect.typeCheck(c.type, column: try q(c.name)) { sql += " CHECK (" + check + ")" }
                continue
            }
            try columnDefinition(c, table: t.name, forAdd: false, referencesKey: isKey)
        }
        if t.hasCompositeKey {
            sql += ", PRIMARY KEY ("
            for (n, name) in t.primaryKeyColumnNames.enumerated() { sql += (n > 0 ? ", " : "") + (try q(name)) }
            sql += ")"
        }
        for fk in t.foreignKeys { sql += ", " + (try Self.foreignKeyClause(fk, dialect: dialect)) }
        sql += ")" + dialect.tableSuffix
    }

    /// Defaults are literals in DDL (no binds there): only integers, doubles, booleans and text.
    /// A column that is a foreign key (`referencesKey`) or a non-integer primary key is declared with
    /// ``Dialect/keySQLType(_:)``.
    private mutating func columnDefinition(
        _ c: TableColumn, table: String, forAdd: Bool, referencesKey: Bool = false
    ) throws(StrataError) {
        let name = try q(c.name)
        sql += name
        if c.isPrimaryKey {
            if c.type == .integer {
                sql += " " + dialect.autoIncrementPrimaryKey
                return
            }
            // A UUID or text key, which Strata or the app assigns (`StatementCheck` refused any other type).
            sql += " " + dialect.keySQLType(c.type) + " NOT NULL PRIMARY KEY"
            return
        }
        sql += " " + (referencesKey ? dialect.keySQLType(c.type) : dialect.sqlType(c.type))
        if c.isGenerated { return try generatedColumn(c, name: name, table: table) }
        // A column added to an existing table is filled with its backfill value; it stays nullable
        // only when it is an Optional or there is no value to fill with.
        let fill = forAdd ? c.backfill : c.schemaDefault
        if let d = c.databaseDefault {
            // The existing rows of a table the column is added to take it too (the time of the migration).
            sql += " DEFAULT " + dialect.databaseDefaultSQL(d)
            if !c.isNullable { sql += " NOT NULL" }
            if let check = dialect.typeCheck(c.type, column: name) { sql += " CHECK (" + check + ")" }
            return
        }
        if let fill { sql += " DEFAULT " + (try ddlLiteral(fill, table: table, column: c.name)) }
        if !c.isNullable && (!forAdd || fill != nil) { sql += " NOT NULL" }
        if let check = dialect.typeCheck(c.type, column: name) { sql += " CHECK (" + check + ")" }
    }

    /// The rest of a generated column's definition: `NOT NULL GENERATED ALWAYS AS (expression) STORED`, the
    /// expression's values written as literals (DDL binds nothing).
    private mutating func generatedColumn(_ c: TableColumn, name: String, table: String) throws(StrataError) {
        guard let generation = c.generation else {
            throw .generatedColumn(
                model: table, column: c.name, reason: "has no expression (declare it in the model's generatedColumns)")
        }
        if !c.isNullable && dialect.generatedColumnSyntax == .storedNotNull { sql += " NOT NULL" }
        sql += " GENERATED ALWAYS AS ("
        let outer = inlineValues
        inlineValues = true
        defer { inlineValues = outer }
        try expression(generation.node)
        sql += ") STORED"
        if let check = dialect.typeCheck(c.type, column: name) { sql += " CHECK (" + check + ")" }
    }

    /// A default as a SQL literal: text is quoted with each `'` doubled at the Unicode-scalar level (a quote
    /// followed by a combining mark is one Swift `Character`, which `Character`-level replacing would miss).
    ///
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` for text holding NUL, a date outside
    ///   ``DateText/isRepresentable(_:)`` or a failed JSON encoding; ``StrataError/invalidQuery(_:)`` for a
    ///   non-finite double or a blob.
    func ddlLiteral(_ v: DatabaseValue, table: String, column: String) throws(StrataError) -> String {
        guard ValueCheck.isStorable(v) else {
            throw .invalidValue(table: table, column: column, reason: "default: " + ValueCheck.reason(v))
        }
        switch v {
        case .null: return "NULL"
        case .bool(let b): return dialect.literal(b)
        case .integer(let i): return String(i)
        case .double(let d):
            guard d.isFinite else { throw .invalidQuery("non-finite default for \(table).\(column)") }
            // A negative zero is 0.0, as every driver stores and binds a double (`Double.databaseValue`).
            return "(" + String(d == 0 ? 0 : d) + ")"
        case .text(let s), .json(let s): return quotedLiteral(s)
        case .decimal(let d): return quotedLiteral("\(d)")
        case .uuid(let u): return quotedLiteral(u.uuidString.lowercased())
        case .date(let d): return quotedLiteral(DateText.format(d))
        case .blob: throw .invalidQuery("blob defaults are not supported in a schema (\(table).\(column))")
        }
    }

    /// `'text'` with every `'` scalar doubled, and every `\` too where the dialect's string literals read it as an
    /// escape (``Dialect/backslashEscapesInStrings``); the caller has refused NUL.
    func quotedLiteral(_ s: String) -> String {
        let backslash = dialect.backslashEscapesInStrings
        var out = String.UnicodeScalarView()
        out.append("'")
        for scalar in s.unicodeScalars {
            if scalar == "'" || (backslash && scalar == "\\") { out.append(scalar) }
            out.append(scalar)
        }
        out.append("'")
        return String(out)
    }
}
