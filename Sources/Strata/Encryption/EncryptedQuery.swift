// EncryptedQuery: filters over `@Encrypted` columns compare envelopes; every other use of such a column is refused.

/// Rewrites the conditions of one model's query: `==`, `!=` and IN on a deterministic column compare the envelopes
/// of the operands under every key; `IS NULL` stays; anything else naming an encrypted column throws
/// ``StrataError/encryptedColumn(model:column:reason:)`` before the statement reaches a driver.
struct EncryptedFilter {
    let schema: TableSchema
    let model: String
    let encryption: (any ColumnEncryption)?

    func encrypted(_ name: String) -> EncryptedColumn? { schema.encryptedColumn(named: name, model: model) }

    func rewrite(_ node: SQLExpression.Node) throws(StrataError) -> SQLExpression.Node {
        switch node {
        case .and(let items): return .and(try items.map { n throws(StrataError) in try rewrite(n) })
        case .or(let items): return .or(try items.map { n throws(StrataError) in try rewrite(n) })
        case .not(let e): return .not(try rewrite(e))
        case .isNull(.column, _): return node
        case .compare(let op, .column(let name), .value(let v)), .compare(let op, .value(let v), .column(let name)):
            guard let column = encrypted(name) else { return node }
            guard op == .equal || op == .notEqual else { throw column.error("\(op.rawValue) cannot compare envelopes") }
            return .inList(.column(name), try envelopes([v], column), negated: op == .notEqual)
        case .inList(.column(let name), let values, let negated):
            guard let column = encrypted(name) else { return node }
            return .inList(.column(name), try envelopes(values, column), negated: negated)
        default:
            try refuse(node, "this condition")
            return node
        }
    }

    /// The envelopes a deterministic column may hold for `values`, under every key.
    func envelopes(_ values: [DatabaseValue], _ column: EncryptedColumn) throws(StrataError) -> [DatabaseValue] {
        guard column.mode == .deterministic else {
            throw column.error("a randomized column cannot be filtered; declare it @Encrypted(.deterministic)")
        }
        guard let encryption else { throw column.error(TableSchema.noKeyring) }
        var out: [DatabaseValue] = []
        for v in values {
            if v.isNull {
                out.append(.null)
                continue
            }
            for e in try encryption.equalityEnvelopes(EncryptedPlaintext.encode(v), for: column) {
                out.append(.blob(e))
            }
        }
        return out
    }

    /// Throws when `node` names an encrypted column of the model anywhere.
    func refuse(_ node: SQLExpression.Node, _ what: String) throws(StrataError) {
        if let name = Self.firstColumn(in: node, where: { encrypted($0) != nil }), let column = encrypted(name) {
            throw column.error("\(what) cannot use an encrypted column; only ==, != and IN on a deterministic one")
        }
    }

    static func firstColumn(in node: SQLExpression.Node, where test: (String) -> Bool) -> String? {
        func first(_ nodes: [SQLExpression.Node]) -> String? {
            for n in nodes { if let c = firstColumn(in: n, where: test) { return c } }
            return nil
        }
        switch node {
        case .column(let name): return test(name) ? name : nil
        case .joinedColumn, .value, .constant, .unsafeRaw, .scalarSubquery, .correlatedExists, .parameter: return nil
        case .compare(_, let l, let r), .arithmetic(_, let l, let r), .concat(let l, let r): return first([l, r])
        case .and(let items), .or(let items), .coalesce(let items): return first(items)
        case .not(let e), .isNull(let e, _), .inList(let e, _, _), .like(let e, _, _, _), .caseMapped(let e, _),
            .inSubquery(let e, _, _), .typed(let e, _), .jsonPath(let e, _), .search(let e, _), .searchRank(let e, _):
            return first([e])
        case .between(let e, let low, let high, _): return first([e, low, high])
        }
    }

    /// `select` with its WHERE rewritten, and refused when it orders, groups or aggregates an encrypted column.
    func check(_ select: Select) throws(StrataError) -> Select {
        var s = select
        if let f = s.filter { s.filter = SQLExpression(try rewrite(f.node)) }
        for o in s.order where o.table == nil {
            if let column = encrypted(o.column) { throw column.error("ORDER BY cannot sort envelopes") }
            if let e = o.expression { try refuse(e.node, "ORDER BY") }
            if let c = o.aggregate?.column, c.table == nil, let column = encrypted(c.name) {
                throw column.error("an aggregate cannot read envelopes")
            }
        }
        for g in s.groupBy where g.table == nil {
            if let column = encrypted(g.name) { throw column.error("GROUP BY cannot group envelopes") }
        }
        if case .items(let items) = s.selection {
            for item in items {
                switch item {
                case .aggregate(let a):
                    if let c = a.column, c.table == nil, let column = encrypted(c.name) {
                        throw column.error("an aggregate (\(a.function)) cannot read envelopes")
                    }
                case .column(let c):
                    if c.table == nil, let column = encrypted(c.name) {
                        throw column.error("select(…) does not open envelopes; read models or values(…)")
                    }
                case .window(let w):
                    var read = w.partition + w.order.map { ColumnRef($0.column, table: $0.table) }
                    if let argument = w.argument { read.append(argument) }
                    if let c = read.first(where: { $0.table == nil && encrypted($0.name) != nil }),
                        let column = encrypted(c.name)
                    {
                        throw column.error("a window (\(w.function.rawValue)) cannot read, partition or sort envelopes")
                    }
                case .expression(let e): try refuse(e.node, "a selected expression")
                }
            }
        }
        return s
    }
}

extension QueryBuilder {
    /// The keyring of the database the query runs on.
    var columnEncryption: (any ColumnEncryption)? {
        if let tx = executor as? Transaction { return tx.database.configuration.encryption }
        return (executor as? Database)?.configuration.encryption
    }

    /// The filter the query needs when `M` has encrypted columns (see `EncryptedFilter`).
    var encryptedFilter: EncryptedFilter? {
        let schema = M.schema
        guard schema.storage.hasEncryptedColumns else { return nil }
        return EncryptedFilter(schema: schema, model: M.modelName, encryption: columnEncryption)
    }

    /// `select` with its conditions over encrypted columns sealed (see `EncryptedFilter`).
    ///
    /// Consuming: a builder's last use of its statement moves it here and back, with no copy of its parts.
    func sealingEncrypted(_ select: consuming Select) throws(StrataError) -> Select {
        guard let encryptedFilter else { return select }
        return try encryptedFilter.check(select)
    }

    /// `filter` (of an UPDATE or DELETE) with its conditions over encrypted columns sealed.
    func sealingEncrypted(filter: SQLExpression?) throws(StrataError) -> SQLExpression? {
        guard let encryptedFilter, let filter else { return filter }
        return SQLExpression(try encryptedFilter.rewrite(filter.node))
    }

    /// `assignments` (of a bulk UPDATE) with each value for an encrypted column sealed; an expression is refused.
    func sealingEncrypted(_ assignments: [Assignment]) throws(StrataError) -> [Assignment] {
        guard let encryptedFilter else { return assignments }
        var out = assignments
        for i in out.indices {
            guard let column = encryptedFilter.encrypted(out[i].column) else { continue }
            if out[i].expression != nil { throw column.error("an expression cannot compute an envelope") }
            out[i].value = try TableSchema.seal(out[i].value, for: column, encryptedFilter.encryption)
        }
        return out
    }
}
