// QueryGenerator+Expressions: random computed values (arithmetic, ||, lower/upper, COALESCE) and subqueries.
import Strata

extension QueryGenerator {
    /// A computed value over `c` that cannot fail on any stored value (no division by zero, no overflow), or nil
    /// for a column type with none: where SQL engines evaluate conditions in different orders and stop at a
    /// LIMIT at different rows, only error-free expressions can be compared row for row.
    func safeComputed(_ c: ScopedColumn, _ scope: [ScopedColumn], _ rng: inout SplitMix64) -> SQLExpression? {
        let e = c.expression
        switch c.column.type {
        case .integer:
            // `x % k` is within ±1000, so sums and small products of it never overflow.
            let small = SQLExpression.arithmetic(.remainder, e, .value(.integer(rng.pick([2, 3, 7, -3, 1000]))))
            switch rng.below(8) {
            case 0: return small
            // Marked as an integer division, as the typed API marks it (``ArithmeticSyntax/guardedDivision``).
            case 1: return .typed(.arithmetic(.divide, e, .value(.integer(rng.pick([2, -2, 7, 1000])))), as: .integer)
            case 2:
                return .arithmetic(
                    rng.pick([.add, .subtract, .multiply]), small, .value(.integer(Int64(rng.below(11)) - 5)))
            case 3:
                let others = scope.filter { $0.column.type == .integer }
                let o = rng.pick(others).expression
                return .arithmetic(
                    rng.pick([.add, .subtract]), small, .arithmetic(.remainder, o, .value(.integer(1000))))
            case 4: return .arithmetic(.add, small, .value(.double(rng.pick([0.5, -2.5]))))
            // An integer and a double: a double result, compared with integers as two doubles (README).
            case 5: return .arithmetic(rng.pick([.add, .subtract]), e, .value(.double(rng.pick([0, 0.5, -1e3]))))
            case 6: return .coalesce([.arithmetic(.subtract, e, .value(.double(0))), .value(.integer(1))])
            default:
                return .coalesce([e, .value(.integer(Int64(rng.below(5))))])
            }
        case .double:
            // Adding a small number never overflows a finite double nor underflows to zero; `x - x` and `x * 0`
            // are NaN, which reads as NULL, for x = ±infinity.
            if rng.chance(0.2) { return .coalesce([e, .value(.double(1.5))]) }
            if rng.chance(0.15) { return .arithmetic(.subtract, e, e) }
            if rng.chance(0.1) {
                return .coalesce([.arithmetic(.multiply, e, .value(.double(0))), .value(.double(-1))])
            }
            return .arithmetic(rng.pick([.add, .subtract]), e, .value(.double(rng.pick([1.5, -2.5, 0.25, 0]))))
        case .decimal:
            // A COALESCE whose result is a decimal compares as a number (SQLite: the decimal collation), also
            // over decimal columns only, which the typed API marks as decimal.
            let others = scope.filter { $0.column.type == .decimal }
            if !others.isEmpty, rng.chance(0.35) {
                return .typed(.coalesce([e, rng.pick(others).expression]), as: .decimal)
            }
            return .coalesce([e, .value(values.value(.decimal, &rng))])
        case .text:
            switch rng.below(4) {
            case 0: return .lower(e)
            case 1: return .upper(e)
            case 2: return .concat(e, .value(.text(values.text(&rng))))
            default: return .coalesce([e, .value(.text(values.text(&rng)))])
            }
        default:
            return nil
        }
    }

    /// A comparison of a safe computed value with a literal of its kind, or nil.
    func computedLeaf(_ scope: [ScopedColumn], _ rng: inout SplitMix64) -> SQLExpression? {
        let c = rng.pick(scope)
        guard let e = safeComputed(c, scope, &rng) else { return nil }
        // Two decimal expressions: neither side is a column or a value whose type the backend can see.
        if c.column.type == .decimal, rng.chance(0.3), let other = safeComputed(c, scope, &rng) {
            return .compare(rng.pick(Self.operators), e, other)
        }
        let literal: DatabaseValue
        switch c.column.type {
        case .integer:
            literal = .integer(rng.chance(0.8) ? Int64(rng.below(21)) - 10 : rng.pick(EdgeValues.integers))
        case .double: literal = .double(rng.pick([0, 1.5, -1, 0.25, .infinity]))
        case .decimal: literal = storedValue(c, &rng) ?? values.value(.decimal, &rng)
        default:
            if case .text(let s)? = storedText(c, &rng) {
                literal = .text(rng.chance(0.5) ? s.lowercased() : s.uppercased())
            } else {
                literal = .text(values.text(&rng))
            }
        }
        return .compare(rng.pick(Self.operators), e, .value(literal))
    }

    private func storedValue(_ c: ScopedColumn, _ rng: inout SplitMix64) -> DatabaseValue? {
        storedText(c, &rng).flatMap { $0.isNull ? nil : $0 }
    }

    private func storedText(_ c: ScopedColumn, _ rng: inout SplitMix64) -> DatabaseValue? {
        guard let t = world.table(c.table), let i = t.schema.insertColumnNames.firstIndex(of: c.column.name),
            !t.rows.isEmpty
        else { return nil }
        return rng.pick(t.rows)[i]
    }

    /// `c [NOT] IN (SELECT one column of a table …)` or `c op (SELECT … ORDER BY … LIMIT 1)` / `(SELECT COUNT(*) …)`,
    /// the subquery over either table of the world (uncorrelated), or nil for a column type left out.
    func subqueryLeaf(_ c: ScopedColumn, _ rng: inout SplitMix64) -> SQLExpression? {
        let type = c.column.type
        guard [.integer, .double, .text].contains(type) else { return nil }
        let inner = rng.pick(world.tables)
        let innerScope = inner.schema.columns.map { ScopedColumn(alias: nil, table: inner.name, column: $0) }
        let same = innerScope.filter { $0.column.type == type }
        var s = Select(table: inner.name, selection: .count)
        if rng.chance(0.7) { s.filter = predicate(innerScope, depth: 1, &rng) }
        if type == .integer, rng.chance(0.2) {
            return .compare(rng.pick(Self.operators), c.expression, .scalarSubquery(s))
        }
        guard !same.isEmpty else { return nil }
        let picked = rng.pick(same)
        s.selection = .columns([picked.column.name])
        if rng.chance(0.6) {
            return .inSubquery(c.expression, s, negated: rng.chance(0.4))
        }
        s.order = [Ordering(picked.column.name, rng.chance(0.5) ? .ascending : .descending), Ordering("id")]
        if rng.chance(0.3) { s.offset = rng.below(3) }
        return .compare(rng.pick(Self.operators), c.expression, .scalarSubquery(s))
    }

    /// Now and then an arithmetic filter that may divide by zero or overflow, on a query whose every row the
    /// backends must evaluate (one table, the filter alone, no limit or offset), so all of them fail alike.
    func risky(_ s: inout Select, _ rng: inout SplitMix64) {
        guard s.joins.isEmpty, let t = world.table(s.table) else { return }
        let numbers = t.schema.columns.filter { $0.type == .integer || $0.type == .double }
        guard !numbers.isEmpty else { return }
        let c = rng.pick(numbers)
        let e = SQLExpression.column(c.name)
        let operand: DatabaseValue =
            c.type == .integer
            ? .integer(rng.pick([0, 2, -1, .max, .min])) : .double(rng.pick([0, 2, 1e300, -1e-300]))
        let other = rng.pick(numbers)
        let useColumn = rng.chance(0.3)
        let rhs: SQLExpression = useColumn ? .column(other.name) : .value(operand)
        var op = rng.pick(ArithmeticOperator.allCases)
        // `%` over a double does not exist on PostgreSQL, which refuses it before reading a row, while SQLite and
        // memory fail only on a row that has a value; the typed API offers `%` on integer columns only.
        if op == .remainder && (c.type == .double || (useColumn && other.type == .double)) { op = .divide }
        var computed = SQLExpression.arithmetic(op, e, rhs)
        // Two integers divide as integers: the typed API marks the division so (``ArithmeticSyntax/guardedDivision``).
        if op == .divide && c.type == .integer && (!useColumn || other.type == .integer) {
            computed = .typed(computed, as: .integer)
        }
        s.filter = .compare(rng.pick(Self.operators), computed, .value(operand))
        s.limit = nil
        s.offset = nil
    }

    /// An ORDER BY term on a safe computed value.
    func computedOrdering(_ scope: [ScopedColumn], _ rng: inout SplitMix64) -> Ordering? {
        let c = rng.pick(scope)
        guard let e = safeComputed(c, scope, &rng) else { return nil }
        return Ordering(expression: e, rng.chance(0.5) ? .ascending : .descending)
    }

    /// Whether a computed value holds a double value (so its result may be a double).
    static func hasDouble(_ node: SQLExpression.Node) -> Bool {
        switch node {
        case .value(.double): return true
        case .arithmetic(_, let l, let r): return hasDouble(l) || hasDouble(r)
        case .coalesce(let items): return items.contains(where: hasDouble)
        default: return false
        }
    }

    /// `SET c = <safe computed value of c>` for an integer or text column without a unique index (a unique
    /// column would fail or not by the order rows are visited in, which differs between engines).
    func computedAssignment(_ table: FuzzWorld.Table, _ rng: inout SplitMix64) -> Assignment? {
        let unique = Set(table.indexes.filter(\.isUnique).flatMap(\.columns))
        let candidates = table.schema.columns.filter {
            !$0.isPrimaryKey && !$0.isGenerated && $0.name != "parent_id" && !unique.contains($0.name)
                && ($0.type == .integer || $0.type == .text)
        }
        guard !candidates.isEmpty else { return nil }
        let c = rng.pick(candidates)
        let scope = [ScopedColumn(alias: nil, table: table.name, column: c)]
        guard let e = safeComputed(scope[0], scope, &rng) else { return nil }
        // A double result (x % k + 0.5) does not fit an integer column: keep to integers there.
        if Self.hasDouble(e.node) { return nil }
        return Assignment(c.name, expression: e)
    }
}
