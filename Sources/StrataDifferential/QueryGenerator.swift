// QueryGenerator: random SELECTs over a FuzzWorld, built from the query AST's own constructors.
import Strata

/// A column a query can name: the main table's (alias nil) or the joined table's.
struct ScopedColumn {
    var alias: String?
    var table: String
    var column: TableColumn

    var expression: SQLExpression { .column(column.name, table: alias) }
    var ref: ColumnRef { ColumnRef(column.name, table: alias) }
}

/// Generates queries over one world; literals come half from the world's own rows, so predicates match.
struct QueryGenerator {
    let world: FuzzWorld
    let values: EdgeValues

    /// A random SELECT: a table, maybe an inner or left join, a filter, a projection or a count, an order,
    /// and a limit and offset only when the order is total (ties resolved by id).
    func select(_ rng: inout SplitMix64) -> Select {
        if rng.chance(0.04), let q = associationSelect(&rng) { return q }
        let main = rng.pick(world.tables)
        var scope = main.schema.columns.map { ScopedColumn(alias: nil, table: main.name, column: $0) }
        var joins: [Join] = []
        var joined: FuzzWorld.Table?
        if rng.chance(0.3), let parentOrChild = world.tables.first(where: { $0.name != main.name }) {
            // Mostly the foreign key; now and then the table joined to itself on a column of its own.
            let selfJoin = rng.chance(0.2)
            let other = selfJoin ? main : parentOrChild
            joined = other
            let alias = FuzzWorld.joinAlias
            let comparable = main.schema.columns.filter { $0.type != .json }
            let link: SQLExpression
            if selfJoin {
                let c = rng.pick(comparable).name
                link = .compare(.equal, .column(c, table: alias), .column(c))
            } else if main.name == FuzzWorld.child {
                link = .compare(.equal, .column("id", table: alias), .column("parent_id"))
            } else {
                link = .compare(.equal, .column("parent_id", table: alias), .column("id"))
            }
            let joinScope = other.schema.columns.map { ScopedColumn(alias: alias, table: other.name, column: $0) }
            var on = link
            if rng.chance(0.25) { on = .and([link, predicate(joinScope + scope, depth: 1, &rng)]) }
            joins.append(
                Join(rng.pick([.inner, .inner, .left, .left, .right, .full]), table: other.name, alias: alias, on: on))
            scope += joinScope
        }
        var s = Select(table: main.name, selection: .count, joins: joins)
        if rng.chance(0.85) { s.filter = predicate(scope, depth: 3, &rng) }
        if let f = s.filter, rng.chance(0.1), isWellTyped(s) {
            s.filter = Self.asRaw(f, mainTable: s.joins.isEmpty ? nil : s.table)
        }
        if !rng.chance(0.2) {
            var picked: [ScopedColumn] = []
            for _ in 0..<(1 + rng.below(4)) { picked.append(rng.pick(scope)) }
            s.selection = joins.isEmpty ? .columns(picked.map(\.column.name)) : .refs(picked.map(\.ref))
        }
        let orderable = scope.filter { $0.column.type != .json }
        for _ in 0..<rng.below(3) {
            let c = rng.pick(orderable)
            var o = Ordering(c.column.name, rng.chance(0.5) ? .ascending : .descending, table: c.alias)
            // As `order(_:)` marks it: PostgreSQL then writes no NULLS clause unless an outer join can bring NULLs.
            o.isNeverNull = !c.column.isNullable || c.column.isPrimaryKey
            s.order.append(o)
        }
        if rng.chance(0.15), let o = computedOrdering(orderable, &rng) { s.order.append(o) }
        let total = rng.chance(0.7)
        if total {
            s.order.append(Ordering("id", rng.chance(0.8) ? .ascending : .descending))
            if joined != nil { s.order.append(Ordering("id", .ascending, table: FuzzWorld.joinAlias)) }
        }
        if total || s.selection == .count {
            if rng.chance(0.3) { s.limit = rng.below(8) }
            if rng.chance(0.2) { s.offset = rng.below(6) }
        }
        if rng.chance(0.2) { return aggregated(s, scope: scope, &rng) }
        // A risky read (one that fails on some row) stays whole: a page's limit and extra terms would let the
        // backends stop, or skip the failing row, at different places.
        let isRisky = rng.chance(0.05)
        if isRisky { risky(&s, &rng) } else if total { keysetPage(&s, rng) }
        lock(&s, rng)
        setOperation(&s, rng, risky: isRisky)
        commonTable(&s, rng, risky: isRisky)
        window(&s, rng)
        jsonPath(&s, rng, risky: isRisky)
        search(&s, rng, risky: isRisky)
        return s
    }

    /// A random UPDATE (one or two columns set to a stored, edge or NULL value) or DELETE, filtered or not:
    /// writes that may hit NOT NULL, unique and foreign-key constraints, which every backend must refuse alike.
    func write(_ rng: inout SplitMix64) -> Statement {
        let table = rng.pick(world.tables)
        let scope = table.schema.columns.map { ScopedColumn(alias: nil, table: table.name, column: $0) }
        var filter = rng.chance(0.85) ? predicate(scope, depth: 2, &rng) : nil
        if let f = filter, rng.chance(0.1), isWellTyped(Select(table: table.name, selection: .count, filter: f)) {
            filter = Self.asRaw(f)
        }
        let settable = scope.filter { !$0.column.isPrimaryKey && !$0.column.isGenerated }
        if rng.chance(0.4) || settable.isEmpty { return .delete(Delete(table: table.name, filter: filter)) }
        var assignments: [Assignment] = []
        for _ in 0..<(1 + rng.below(2)) {
            let c = rng.pick(settable)
            guard !assignments.contains(where: { $0.column == c.column.name }) else { continue }
            let value = rng.chance(0.1) ? DatabaseValue.null : literal(c, &rng)
            assignments.append(Assignment(c.column.name, value))
        }
        if rng.chance(0.3), let a = computedAssignment(table, &rng),
            !assignments.contains(where: { $0.column == a.column })
        {
            assignments.append(a)
        }
        return .update(Update(table: table.name, assignments: assignments, filter: filter))
    }

    /// A boolean expression over `scope`, nested up to `depth` levels of and/or/not.
    func predicate(_ scope: [ScopedColumn], depth: Int, _ rng: inout SplitMix64) -> SQLExpression {
        if depth > 0, rng.chance(0.4) {
            switch rng.below(5) {
            case 0: return .not(predicate(scope, depth: depth - 1, &rng))
            case 1, 2: return .and((0..<(2 + rng.below(2))).map { _ in predicate(scope, depth: depth - 1, &rng) })
            default: return .or((0..<(2 + rng.below(2))).map { _ in predicate(scope, depth: depth - 1, &rng) })
            }
        }
        return leaf(scope, &rng)
    }

    private func leaf(_ scope: [ScopedColumn], _ rng: inout SplitMix64) -> SQLExpression {
        let c = rng.pick(scope)
        let e = c.expression
        let type = c.column.type
        if rng.chance(0.03) { return .constant(rng.chance(0.5)) }
        if values.mistyped, rng.chance(0.02) { return mistyped(c, &rng) }
        if type == .json || rng.chance(0.12) { return .isNull(e, negated: rng.chance(0.5)) }
        if type == .bool, rng.chance(0.3) { return rng.chance(0.7) ? e : .not(e) }
        if rng.chance(0.1), let e = computedLeaf(scope, &rng) { return e }
        if rng.chance(0.05), let e = subqueryLeaf(c, &rng) { return e }
        if type == .text, rng.chance(0.35) {
            return .like(e, pattern(c, &rng), caseInsensitive: rng.chance(0.4), negated: rng.chance(0.25))
        }
        switch rng.below(6) {
        case 0:
            let others = scope.filter { $0.column.type == type && $0.column.name != c.column.name }
            if let other = others.isEmpty ? nil : rng.pick(others) {
                return .compare(rng.pick(Self.operators), e, other.expression)
            }
            return .compare(rng.pick(Self.operators), e, .value(literal(c, &rng)))
        case 1:
            return .compare(rng.pick(Self.operators), .value(literal(c, &rng)), e)
        case 2:
            // Now and then a long list, which SQL backends bind as one array (`= ANY`, `json_each`).
            let count = rng.chance(0.08) ? 100 + rng.below(300) : rng.below(5)
            let list = (0..<count).map { _ in rng.chance(0.1) ? DatabaseValue.null : literal(c, &rng) }
            return .inList(e, list, negated: rng.chance(0.4))
        case 3:
            let low = rng.chance(0.05) ? DatabaseValue.null : literal(c, &rng)
            let high = rng.chance(0.05) ? DatabaseValue.null : literal(c, &rng)
            return .between(e, .value(low), .value(high), negated: rng.chance(0.3))
        default:
            let v = rng.chance(0.05) ? DatabaseValue.null : literal(c, &rng)
            return .compare(rng.pick(Self.operators), e, .value(v))
        }
    }

    /// A predicate every backend must refuse, with the same error: a value of another type, LIKE over a
    /// column that is not text, a column that does not exist.
    private func mistyped(_ c: ScopedColumn, _ rng: inout SplitMix64) -> SQLExpression {
        let e = c.expression
        switch rng.below(3) {
        case 0:
            let other = rng.pick(
                ColumnType.allCases.filter { $0 != c.column.type && !Self.compatible($0, c.column.type) })
            return .compare(rng.pick(Self.operators), e, .value(values.value(other, &rng)))
        case 1:
            if c.column.type == .text { return .like(.column("no_such_column"), "a%") }
            return .like(e, "%", caseInsensitive: rng.chance(0.5))
        default:
            return .compare(.equal, .column("no_such_column", table: c.alias), .value(.integer(1)))
        }
    }

    /// Whether a query holds none of the mistyped predicates behind the known divergences, which are recognized
    /// in the AST only: only such queries are sent as raw text.
    func isWellTyped(_ s: Select) -> Bool {
        let f = Features(s, world: world)
        return !f.mistypedComparison && !f.likeOverNonText
    }

    /// The same condition as `unsafeRaw` text in the subset the memory driver parses (unchanged when it cannot be
    /// spelled there), so raw conditions run on every backend and are compared like the rest.
    static func asRaw(_ e: SQLExpression, mainTable: String? = nil) -> SQLExpression {
        guard let raw = RawConditionText.print(e.node, mainTable: mainTable) else { return e }
        return .unsafeRaw(raw.sql, raw.binds)
    }

    /// Types whose values compare with each other on every backend (integers with doubles and decimals).
    static func compatible(_ a: ColumnType, _ b: ColumnType) -> Bool {
        let numeric: Set<ColumnType> = [.integer, .double, .decimal]
        return numeric.contains(a) && numeric.contains(b)
    }

    static let operators: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]

    /// A value for `c`: usually one of its table's stored values, else a fresh edge value.
    private func literal(_ c: ScopedColumn, _ rng: inout SplitMix64) -> DatabaseValue {
        if c.column.name == "id" || c.column.name == "parent_id" {
            return .integer(rng.chance(0.9) ? Int64(rng.below(16)) : rng.pick(EdgeValues.integers))
        }
        if rng.chance(0.6), let stored = storedValue(c, &rng), !stored.isNull { return stored }
        return values.value(c.column.type, &rng)
    }

    private func storedValue(_ c: ScopedColumn, _ rng: inout SplitMix64) -> DatabaseValue? {
        for t in world.tables where t.name == c.table {
            guard let i = t.schema.insertColumnNames.firstIndex(of: c.column.name), !t.rows.isEmpty else { continue }
            return rng.pick(t.rows)[i]
        }
        return nil
    }

    /// A LIKE pattern: a stored or edge text cut into a prefix, suffix or infix, with `_` for some
    /// characters, escaped metacharacters, case changes, and now and then a dangling escape.
    private func pattern(_ c: ScopedColumn, _ rng: inout SplitMix64) -> String {
        var base: String
        if case .text(let s)? = storedValue(c, &rng), rng.chance(0.7) { base = s } else { base = values.text(&rng) }
        if rng.chance(0.2) { base = rng.chance(0.5) ? base.uppercased() : base.lowercased() }
        var scalars = Array(base.unicodeScalars)
        if !scalars.isEmpty, rng.chance(0.4) {
            let drop = rng.below(scalars.count)
            scalars = rng.chance(0.5) ? Array(scalars.dropFirst(drop)) : Array(scalars.dropLast(drop))
        }
        var out = ""
        for s in scalars {
            if rng.chance(0.15) {
                out += "_"
            } else if s == "%" || s == "_" || s == "\\" {
                if rng.chance(0.7) { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(s)
            } else {
                out.unicodeScalars.append(s)
            }
        }
        switch rng.below(6) {
        case 0: out += "%"
        case 1: out = "%" + out
        case 2: out = "%" + out + "%"
        case 3: if rng.chance(0.1) { out += "\\" }
        default: break
        }
        return out
    }
}

extension FuzzWorld {
    /// The type of each column a SELECT returns (integer for a count).
    func resultTypes(_ s: Select) -> [ColumnType] {
        func type(_ name: String, alias: String?) -> ColumnType {
            let tableName = alias == nil ? s.table : s.joins.first { $0.alias == alias }?.table
            guard let t = tableName.flatMap(table), let i = t.schema.index(of: name) else { return .integer }
            return t.schema.columns[i].type
        }
        switch s.selection {
        case .count: return [.integer]
        case .columns(let names): return names.map { type($0, alias: nil) }
        case .refs(let refs): return refs.map { type($0.name, alias: $0.table) }
        case .items(let items): return itemTypes(s, items)
        }
    }
}
