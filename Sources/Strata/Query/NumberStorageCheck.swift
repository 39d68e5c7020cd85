// NumberStorageCheck: a query that compares, orders or aggregates numbers over a column storing text is refused.
import Synchronization

/// The columns of each table whose values are stored as text only, as the live database declares them, read
/// once per table and forgotten when Strata changes the schema.
///
/// A `Decimal`, `Int` or `Double` property over a text column (Django's `Total` on a hand-made SQLite table) reads
/// correctly, but compares, sorts and aggregates as text on SQLite (`'2.98' >= '10'` is true) and fails with an
/// operator error on PostgreSQL. Strata does not cast such a column (SQLite's `CAST(… AS REAL)` is not exact past
/// 15 significant digits); it refuses the query before it runs, naming the table and the column, and lets plain
/// reads through.
final class TextStoredColumns: Sendable {
    private let known = Mutex<[String: Set<String>]>([:])
    private let models = Mutex<[ObjectIdentifier: Set<String>]>([:])
    /// Counts the times every table was forgotten: a transaction that found a model free of such columns at one
    /// count knows it still is while the count is the same (see `Transaction/hasNoNumbersStoredAsText(_:)`).
    let generation = Atomic<Int>(0)

    /// The text-only columns of `table`, when they were read since the last schema change.
    func lookup(_ table: String) -> Set<String>? {
        known.withLock { $0[table] }
    }

    func store(_ columns: Set<String>, of table: String) {
        known.withLock { $0[table] = columns }
    }

    /// The model last found free of number properties over text-only columns (and reading its columns alike on
    /// every backend), with the generation it was found at, packed into one word (``pack(_:_:)``; 0: none): a
    /// one-shot call, whose transaction is new, asks it with one atomic load instead of the cache's lock.
    let lastFreeModel = Atomic<UInt64>(0)

    /// A model and a generation in one word: the model's metadata address (8-byte aligned, below 2^47) shifted
    /// right by 3 in the low 44 bits, the generation in the 20 above; 0 (never remembered) past either range.
    static func pack(_ model: ObjectIdentifier, _ generation: Int) -> UInt64 {
        let address = UInt64(UInt(bitPattern: model))
        guard address & 7 == 0, address >> 47 == 0, generation >= 0, generation < 1 << 20 else { return 0 }
        return (address >> 3) | (UInt64(generation) << 44)
    }

    /// A model's number properties over text-only columns, when they were found since the last schema change.
    func lookup(model: ObjectIdentifier) -> Set<String>? {
        models.withLock { $0[model] }
    }

    func store(_ columns: Set<String>, model: ObjectIdentifier) {
        models.withLock { $0[model] = columns }
    }

    /// Forgets every table: the schema changed (a table created, altered or dropped through Strata, or raw SQL).
    func forget() {
        // Counted first: a transaction that reads the new count afterwards finds the tables forgotten.
        generation.add(1, ordering: .sequentiallyConsistent)
        known.withLock { if !$0.isEmpty { $0.removeAll() } }
        models.withLock { if !$0.isEmpty { $0.removeAll() } }
    }
}

/// One place a query uses a column as a number.
struct NumberUse: Hashable {
    /// The table the column belongs to (not its alias).
    var table: String
    var column: String
    /// How the query uses it, for the error: `compares it with a number`, `orders by it as a Decimal`.
    var how: String
}

/// Finds the columns a statement uses as numbers: compared with a number, in arithmetic, aggregated as a number,
/// and, for the queried model's own number properties, ordered, grouped or made distinct.
struct NumberUses {
    /// The queried model's name and table, named in the uses of its own columns.
    let model: (name: String, table: String)?
    private(set) var uses: [NumberUse] = []
    private var seen: Set<NumberUse> = []

    init(model: (name: String, table: String)?) { self.model = model }

    private mutating func add(_ table: String, _ column: String, _ how: String) {
        let who = model.flatMap { $0.table == table ? "model \($0.name)" : nil } ?? "the query"
        let use = NumberUse(table: table, column: column, how: who + " " + how)
        if seen.insert(use).inserted { uses.append(use) }
    }

    /// The uses in a SELECT. `schema` is the model queried from the main table: its number columns count when
    /// ordered, grouped or selected DISTINCT, which no bound value reveals.
    mutating func select(_ s: Select, schema: TableSchema?) {
        let tables = Dictionary(s.joins.map { ($0.alias, $0.table) }, uniquingKeysWith: { a, _ in a })
        let resolve = { (ref: ColumnRef) -> String? in ref.table.map { tables[$0] } ?? s.table }
        if let filter = s.filter { expression(filter.node, main: s.table, aliases: tables) }
        for join in s.joins { expression(join.on.node, main: s.table, aliases: tables) }
        let own = schema.flatMap { $0.name == s.table ? $0 : nil }
        func ownNumber(_ name: String) -> TableColumn? {
            guard let c = own?.columns.first(where: { $0.name == name }), c.dateFormat == nil, c.type.isNumber
            else { return nil }
            return c
        }
        for o in s.order {
            if let a = o.aggregate {
                aggregate(a, resolve)
            } else if o.table == nil, o.expression == nil, let c = ownNumber(o.column) {
                add(s.table, c.name, "orders by it as \(Self.article(c.type))")
            } else if let e = o.expression {
                expression(e.node, main: s.table, aliases: tables)
            }
        }
        for g in s.groupBy where g.table == nil {
            if let c = ownNumber(g.name) {
                add(s.table, c.name, "groups by it as \(Self.article(c.type))")
            }
        }
        switch s.selection {
        case .items(let items):
            for case .aggregate(let a) in items { aggregate(a, resolve) }
        case .columns(let names) where s.distinct:
            for name in names {
                if let c = ownNumber(name) {
                    add(s.table, c.name, "selects it DISTINCT as \(Self.article(c.type))")
                }
            }
        default: break
        }
        if let having = s.having {
            for item in having.items {
                switch item {
                case .aggregate(let a): aggregate(a, resolve)
                case .column(let ref):
                    if let table = resolve(ref) { add(table, ref.name, "compares it with a number in HAVING") }
                case .window, .expression: break  // refused in HAVING by the core's check
                }
            }
        }
    }

    /// The uses in a WHERE of an UPDATE or DELETE on `table`.
    mutating func filter(_ filter: SQLExpression?, table: String) {
        if let filter { expression(filter.node, main: table, aliases: [:]) }
    }

    /// An aggregate other than a plain `COUNT` over a number column reads its values as numbers.
    private mutating func aggregate(_ a: Aggregate, _ resolve: (ColumnRef) -> String?) {
        guard let ref = a.column, let type = a.type, type.isNumber,
            a.function != .count || a.distinct, let table = resolve(ref)
        else { return }
        add(table, ref.name, "\(a.summary) reads it as \(Self.article(type))")
    }

    private mutating func expression(_ node: SQLExpression.Node, main: String, aliases: [String: String]) {
        func column(_ n: SQLExpression.Node) -> (table: String, name: String)? {
            switch n {
            case .column(let name): return (main, name)
            case .joinedColumn(let alias, let name): return aliases[alias].map { ($0, name) }
            default: return nil
            }
        }
        func isNumber(_ n: SQLExpression.Node) -> Bool {
            switch n {
            case .value(.integer), .value(.double), .value(.decimal), .arithmetic: return true
            default: return false
            }
        }
        func recurse(_ n: SQLExpression.Node) { expression(n, main: main, aliases: aliases) }
        switch node {
        case .column, .joinedColumn, .value, .constant, .unsafeRaw, .parameter: return
        case .compare(_, let l, let r):
            if isNumber(r), let c = column(l) { add(c.table, c.name, "compares it with a number") }
            if isNumber(l), let c = column(r) { add(c.table, c.name, "compares it with a number") }
            recurse(l)
            recurse(r)
        case .and(let all), .or(let all), .coalesce(let all): all.forEach(recurse)
        case .not(let n), .isNull(let n, _), .like(let n, _, _, _), .caseMapped(let n, _), .typed(let n, _),
            .jsonPath(let n, _), .search(let n, _), .searchRank(let n, _):
            recurse(n)
        case .concat(let l, let r):
            recurse(l)
            recurse(r)
        case .inList(let n, let values, _):
            if let c = column(n), values.contains(where: { isNumber(.value($0)) }) {
                add(c.table, c.name, "compares it with numbers (IN)")
            }
            recurse(n)
        case .between(let n, let low, let high, _):
            if isNumber(low) || isNumber(high), let c = column(n) {
                add(c.table, c.name, "compares it with numbers (BETWEEN)")
            }
            recurse(n)
            recurse(low)
            recurse(high)
        case .arithmetic(_, let l, let r):
            for side in [l, r] {
                if let c = column(side) { add(c.table, c.name, "computes with it as a number") }
                recurse(side)
            }
        case .inSubquery(let n, let sub, _):
            recurse(n)
            select(sub, schema: nil)
        case .scalarSubquery(let sub), .correlatedExists(let sub, _, _):
            select(sub, schema: nil)
        }
    }

    static func article(_ type: ColumnType) -> String {
        switch type {
        case .integer: return "an integer"
        case .double: return "a Double"
        default: return "a Decimal"
        }
    }
}

extension ColumnType {
    /// Integers, doubles and decimals: the types that compare, sum and average as numbers.
    var isNumber: Bool { self == .integer || self == .double || self == .decimal }
}

extension LiveColumn {
    /// Whether the column's values are text only: text, not numbers, is what it compares as.
    package var storesTextOnly: Bool {
        reads.contains(.text) && !reads.contains(where: \.isNumber)
    }
}

extension Transaction {
    /// The columns of `table` that store text only; read from the live database once per table until Strata
    /// changes the schema. Empty for a table that does not exist (yet): the query says so in the database's words.
    func textStoredColumns(of table: String) throws -> Set<String> {
        let cache = database.textStoredColumns
        if let known = cache.lookup(table) { return known }
        try checkOpen()
        guard let live = try connection.liveColumns(of: table) else { return [] }
        // Read in place, into a set made only when a column stores text only (a copy of each column, and the arrays
        // `filter` and `map` made, cost more than the lookup they feed on a fresh test database).
        var text: Set<String> = []
        live.withUnsafeBufferPointer { columns in
            for i in columns.indices where columns[i].storesTextOnly { text.insert(columns[i].name) }
        }
        cache.store(text, of: table)
        return text
    }

    /// Refuses the uses of columns that store text only.
    ///
    /// - Throws: ``StrataError/schemaMismatch(table:missing:)`` naming the table and each column (with the
    ///   model and how the query uses it), ``StrataError/schemaMismatches(_:)`` when several tables have such
    ///   columns.
    func refuseNumbersStoredAsText(_ uses: [NumberUse]) throws {
        guard !uses.isEmpty else { return }
        var problems: [(table: String, problems: [String])] = []
        var text: [String: Set<String>] = [:]
        for use in uses {
            let columns: Set<String>
            if let known = text[use.table] {
                columns = known
            } else {
                columns = try textStoredColumns(of: use.table)
                text[use.table] = columns
            }
            guard columns.contains(use.column) else { continue }
            let problem =
                "column \(use.column) (stores text: \(use.how), but numbers stored as text compare as text; "
                + "map it as String, or store numbers)"
            if let i = problems.firstIndex(where: { $0.table == use.table }) {
                problems[i].problems.append(problem)
            } else {
                problems.append((use.table, [problem]))
            }
        }
        if problems.count == 1, let only = problems.first {
            throw StrataError.schemaMismatch(table: only.table, missing: only.problems)
        }
        if !problems.isEmpty {
            throw StrataError.schemaMismatches(problems.map { SchemaMismatch(table: $0.table, problems: $0.problems) })
        }
    }
}

extension Transaction {
    /// Whether `model` has no number property whose column stores text only (`numbersStoredAsText(_:)` is empty).
    ///
    /// The last model found free in the database's cache is remembered with the cache's `generation`: a loop of
    /// queries over one model asks the cache (a lock and a hashed lookup) once, until the schema changes.
    ///
    /// It also refuses a model whose properties read columns of other types (see `checkReads(_:_:)`): a model found
    /// here reads its columns alike on every backend.
    @usableFromInline
    func hasNoNumbersStoredAsText(_ model: any Model.Type) throws -> Bool {
        let cache = database.textStoredColumns
        // Read before the cache: a schema change after this read is seen by the next query's.
        let generation = cache.generation.load(ordering: .sequentiallyConsistent)
        let key = ObjectIdentifier(model)
        if let free = textFreeModel, free.model == key, free.generation == generation { return true }
        // The model found free last by any transaction of the database (a one-shot call's transaction is new).
        let packed = TextStoredColumns.pack(key, generation)
        if packed != 0, cache.lastFreeModel.load(ordering: .acquiring) == packed {
            textFreeModel = (key, generation)
            return true
        }
        guard try numbersStoredAsText(model).isEmpty else { return false }
        // Remembered only when the cache kept the answer (a missing table is asked again).
        if cache.lookup(model: key) != nil {
            textFreeModel = (key, generation)
            cache.lastFreeModel.store(packed, ordering: .releasing)
        }
        return true
    }

    /// The number properties of `model` (integers, doubles, decimals) whose columns store text only; read once
    /// per model until Strata changes the schema. Usually empty, so a query costs one cache lookup.
    func numbersStoredAsText(_ model: any Model.Type) throws -> Set<String> {
        let cache = database.textStoredColumns
        let key = ObjectIdentifier(model)
        if let known = cache.lookup(model: key) { return known }
        let schema = model.schema
        let created = database.knownSchemas.columns(of: schema.name)
        if let created { try Self.checkReads(schema, created) }
        // A table Strata created (``KnownSchemas``) declares each number column as the model does, and such a column
        // stores numbers: nothing to read from the database (on a fresh test database, reading the live columns of
        // each model's table cost about 11,000 instructions at its first query).
        if let created, Self.declaresNumbers(of: schema, in: created) {
            cache.store([], model: key)
            return []
        }
        let text = try textStoredColumns(of: schema.name)
        // The model's number columns over those, read in place; no set is made when there are none (the usual case).
        var found: Set<String> = []
        if !text.isEmpty {
            schema.columns.withUnsafeBufferPointer { columns in
                for i in columns.indices
                where columns[i].dateFormat == nil && columns[i].type.isNumber && text.contains(columns[i].name) {
                    found.insert(columns[i].name)
                }
            }
        }
        if cache.lookup(schema.name) != nil { cache.store(found, model: key) }  // a missing table is asked again
        return found
    }

    /// Refuses a model whose property reads a column of its table, as Strata knows the table (``KnownSchemas``: a
    /// migration retyped the column under the model), that SQLite hands back as another type than the others do:
    /// SQLite stores a Bool as the integer 0 or 1, which an `Int`, `Double` or `Decimal` property reads there, and a
    /// decimal, a date, a UUID and JSON as text, which a `String` property reads there, where memory, PostgreSQL and
    /// MariaDB hand back a boolean, a decimal, a date, a UUID or JSON the property cannot read. Such a pair is refused
    /// on every backend, before the query runs. Other pairs read alike everywhere (a `Decimal` over a double column,
    /// text read into a `Date`) or fail alike, value by value, as `decodingFailed`.
    ///
    /// - Throws: ``StrataError/typeMismatch(table:column:detail:)`` naming the table and the column.
    static func checkReads(_ schema: TableSchema, _ created: [TableColumn]) throws(StrataError) {
        guard created.contains(where: { Self.readsAsOtherTypeOnSQLite($0.type) }) else { return }
        for c in schema.columns where c.type.isNumber || c.type == .text {
            guard let live = created.first(where: { $0.name == c.name }), live.type != c.type else { continue }
            let refused =
                c.type == .text ? [.decimal, .date, .uuid, .json].contains(live.type) : live.type == .bool
            guard refused else { continue }
            throw .typeMismatch(
                table: schema.name, column: c.name,
                detail: "the model reads \(c.type.rawValue), the column holds \(live.type.rawValue)")
        }
    }

    /// The column types SQLite stores as another (a bool as an integer; a decimal, a date, a UUID and JSON as text).
    private static func readsAsOtherTypeOnSQLite(_ type: ColumnType) -> Bool {
        switch type {
        case .bool, .decimal, .date, .uuid, .json: return true
        default: return false
        }
    }

    /// Whether every number property of `schema` (integers, doubles, decimals, not stored as dates) has a column of
    /// the same name and type among `created`, the columns its table was created with through Strata.
    static func declaresNumbers(of schema: TableSchema, in created: [TableColumn]) -> Bool {
        for i in schema.columns.indices where schema.columns[i].dateFormat == nil && schema.columns[i].type.isNumber {
            let name = schema.columns[i].name
            let type = schema.columns[i].type
            guard created.contains(where: { $0.name == name && $0.type == type && $0.dateFormat == nil }) else {
                return false
            }
        }
        return true
    }
}

extension Select {
    /// Whether the SELECT reads another table than its own: a join, or a subquery anywhere.
    var readsOtherTables: Bool { !joins.isEmpty || containsSubquery }

    /// Whether the WHERE or ORDER BY holds a subquery.
    var containsSubquery: Bool {
        if let filter, filter.node.containsSubquery { return true }
        return order.contains { $0.expression?.node.containsSubquery ?? false }
    }
}

extension SQLExpression.Node {
    /// Whether a subquery appears in the expression.
    var containsSubquery: Bool {
        switch self {
        case .column, .joinedColumn, .value, .constant, .unsafeRaw, .parameter: return false
        case .inSubquery, .scalarSubquery, .correlatedExists: return true
        case .and(let all), .or(let all), .coalesce(let all): return all.contains { $0.containsSubquery }
        case .not(let n), .isNull(let n, _), .like(let n, _, _, _), .caseMapped(let n, _), .inList(let n, _, _),
            .typed(let n, _), .jsonPath(let n, _), .search(let n, _), .searchRank(let n, _):
            return n.containsSubquery
        case .compare(_, let l, let r), .arithmetic(_, let l, let r), .concat(let l, let r):
            return l.containsSubquery || r.containsSubquery
        case .between(let n, let low, let high, _):
            return n.containsSubquery || low.containsSubquery || high.containsSubquery
        }
    }
}

extension QueryBuilder {
    /// Refuses a SELECT of this builder that uses a column storing text as a number (see `NumberUses`).
    func checkNumberStorage(_ select: Select) throws {
        guard let tx = executor as? Transaction else { return }
        if try tx.hasNoNumbersStoredAsText(M.self) && !select.containsSubquery {
            if select.joins.isEmpty { return }
            // Joined tables without a column storing text only (the cached answer for a schema Strata made):
            // nothing to walk the statement for.
            var joinedText = false
            for join in select.joins where try !tx.textStoredColumns(of: join.table).isEmpty { joinedText = true }
            if !joinedText { return }
        }
        var uses = NumberUses(model: (M.modelName, M.schema.name))
        uses.select(select, schema: M.schema)
        try tx.refuseNumbersStoredAsText(uses.uses)
    }

    /// Refuses the WHERE of an UPDATE or DELETE of this builder that compares a column storing text with numbers.
    func checkNumberStorage(filter: SQLExpression?) throws {
        guard let tx = executor as? Transaction, let filter else { return }
        if try tx.numbersStoredAsText(M.self).isEmpty && !filter.node.containsSubquery { return }
        var uses = NumberUses(model: (M.modelName, M.schema.name))
        uses.filter(filter, table: M.schema.name)
        try tx.refuseNumbersStoredAsText(uses.uses)
    }
}

extension Database {
    /// Refuses a model with a number property over a column Strata knows as bool (see
    /// `Transaction/checkReads(_:_:)`), for a read that runs outside a transaction (a find on PostgreSQL's
    /// statement loop).
    @usableFromInline
    func checkModelReads(_ schema: TableSchema) throws {
        guard let created = knownSchemas.columns(of: schema.name) else { return }
        try Transaction.checkReads(schema, created)
    }
}
