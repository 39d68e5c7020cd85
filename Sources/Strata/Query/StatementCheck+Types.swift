// StatementCheck+Types: a column compared across types, or LIKE over a column that is not text, refused once.
import Synchronization

/// The column types of the tables created through Strata on one database (or one differential backend), by
/// table: what ``StatementCheck/check(_:schemas:)`` types a condition's columns with.
///
/// A table is known from the `CREATE TABLE` Strata ran (``Transaction`` records it, and each column added after);
/// it is forgotten when it is dropped, and every table is forgotten after raw SQL that may change a schema or a
/// schema change (``Transaction/apply(_:)``) other than a created table. A table Strata did not create (a
/// hand-made one, or one created by another process) is not known: its conditions go to the database as written.
public final class KnownSchemas: Sendable {
    private let tables = Mutex<[String: [TableColumn]]>([:])
    private let changes = Atomic<Int>(0)

    /// An empty registry.
    public init() {}

    /// How many times the known tables changed. A statement checked against one generation is checked alike until
    /// the next change: a connection's ``RenderCache`` remembers the generation its last shape passed at.
    package var generation: Int { changes.load(ordering: .acquiring) }

    /// Marks a change (under the table lock, so a reader that sees the new tables sees the new generation).
    private func changed() { changes.add(1, ordering: .releasing) }

    /// The columns of every known table, by table (one lock: the check reads it without any).
    var snapshot: [String: [TableColumn]] { tables.withLock { $0 } }

    /// The columns `table` was created with through Strata (and any added since), or nil when it is not known.
    func columns(of table: String) -> [TableColumn]? { tables.withLock { $0[table] } }

    /// Follows a statement that succeeded: a created table is known, an added column joins it, a dropped table is
    /// forgotten.
    public func record(_ statement: Statement) {
        switch statement {
        case .createTable(let schema):
            tables.withLock {
                // Room for a few tables at once: a fresh database's migration grew it from empty, rehashing each name
                // again at every doubling.
                if $0.isEmpty { $0.reserveCapacity(8) }
                $0[schema.name] = schema.columns
                changed()
            }
        case .addColumn(let table, let column):
            tables.withLock {
                $0[table]?.append(column)
                changed()
            }
        case .dropTable(let table): forget(table)
        default: return
        }
    }

    /// Follows a schema change that succeeded (``Transaction/apply(_:)``): a created table is known, a dropped one
    /// forgotten, a renamed one known by its new name, and a known table's columns added, dropped, renamed or retyped
    /// as the change did. Index, foreign key and default changes leave the columns' names and types as they were.
    ///
    /// - Returns: each table the change touched, with what was known of it before (nil: nothing), for a rollback
    ///   to put back (``restore(_:)``).
    func follow(_ change: SchemaChange) -> [(table: String, before: [TableColumn]?)] {
        tables.withLock { known in
            var before: [(table: String, before: [TableColumn]?)] = []
            func edit(_ table: String, _ body: (inout [TableColumn]) -> Void) {
                guard var columns = known[table] else { return }
                before.append((table, columns))
                body(&columns)
                known[table] = columns
            }
            // A table whose columns a change (not its CREATE TABLE) made: its model's writes are checked value by
            // value (see `isAltered(_:)`).
            func altered(_ table: String) { alteredTables.withLock { _ = $0.insert(table) } }
            switch change {
            case .createTable(let schema):
                before.append((schema.name, known[schema.name]))
                known[schema.name] = schema.columns
                alteredTables.withLock { _ = $0.remove(schema.name) }
            case .dropTable(let table):
                guard let columns = known[table] else { return [] }
                before.append((table, columns))
                known[table] = nil
            case .renameTable(let table, let name):
                guard known[table] != nil || known[name] != nil else { return [] }
                before.append((table, known[table]))
                before.append((name, known[name]))
                known[name] = known[table]
                known[table] = nil
                altered(name)
            case .addColumn(let table, let column):
                altered(table)
                edit(table) { columns in
                    columns.removeAll { $0.name == column.name }
                    columns.append(column)
                }
            case .dropColumn(let table, let column):
                altered(table)
                edit(table) { $0.removeAll { $0.name == column } }
            case .renameColumn(let table, let column, let name):
                altered(table)
                edit(table) { columns in
                    for i in columns.indices where columns[i].name == column { columns[i].name = name }
                }
            case .alterColumn(let table, let column, let type, let nullable, _):
                altered(table)
                edit(table) { columns in
                    for i in columns.indices where columns[i].name == column {
                        columns[i].type = type
                        columns[i].isNullable = nullable
                        columns[i].dateFormat = nil
                    }
                }
            case .addIndex, .dropIndex, .addForeignKey, .dropForeignKey, .setDefault, .setDatabaseDefault:
                return []
            }
            if !before.isEmpty { changed() }
            return before
        }
    }

    /// Puts back what was known of tables before changes a rollback undid (the entries ``follow(_:)`` returned, the
    /// last first).
    func restore(_ entries: some Collection<(table: String, before: [TableColumn]?)>) {
        guard !entries.isEmpty else { return }
        tables.withLock { known in
            for entry in entries.reversed() { known[entry.table] = entry.before }
            changed()
        }
        // Checked value by value from now on, whatever the undone changes were.
        alteredTables.withLock { for entry in entries { $0.insert(entry.table) } }
    }

    /// The write templates whose statement passed the check of written values at a generation, with the binds to
    /// check again at each of their statements (see `Transaction.checkWrittenBinds`): kept across transactions,
    /// so a template's statement (a chunk of `upsertAll` builds every row of it) is built once per schema change.
    /// The known tables a schema change other than their CREATE TABLE changed (a column added, dropped, renamed or
    /// retyped; the table renamed; a change a rollback undid).
    private let alteredTables = Mutex<Set<String>>([])

    /// Whether a schema change other than its CREATE TABLE changed `table`'s columns since Strata created it: the
    /// writes of a model's statement templates, whose values are of the model's types, are checked against the
    /// table's types only then (a table as its model created it takes them by construction; a hand-made statement,
    /// and a model with its own key, are checked whatever the table).
    func isAltered(_ table: String) -> Bool { alteredTables.withLock { $0.contains(table) } }

    /// A few dozen at most (an app's models' inserts and upserts), looked for one by one: hashing a template cost
    /// more than comparing it with each (a fresh test database checks four).
    private let templates = Mutex<(generation: Int, checked: [(StatementTemplate, [BindCheck])])>((-1, []))

    /// The binds to check again for `template`, when its statement passed at `generation`.
    func checkedBinds(_ template: StatementTemplate, generation: Int) -> [BindCheck]? {
        templates.withLock { memo in
            guard memo.generation == generation else { return nil }
            for entry in memo.checked where entry.0.isSame(as: template) { return entry.1 }
            return nil
        }
    }

    /// Notes that `template`'s statement passed at `generation`, and the binds to check again.
    func noteChecked(_ template: StatementTemplate, _ binds: [BindCheck], generation: Int) {
        templates.withLock { memo in
            if memo.generation != generation {
                memo.generation = generation
                memo.checked.removeAll(keepingCapacity: true)
            }
            if memo.checked.count >= 64 { memo.checked.removeFirst() }
            memo.checked.append((template, binds))
        }
    }

    /// Forgets one table.
    public func forget(_ table: String) {
        tables.withLock {
            if $0[table] != nil {
                $0[table] = nil
                changed()
            }
        }
    }

    /// Forgets every table (raw SQL or a schema change may have changed any of them).
    public func forgetAll() {
        tables.withLock {
            if !$0.isEmpty {
                $0.removeAll()
                changed()
            }
        }
    }
}

extension StatementCheck {
    /// Checks one statement (see ``check(_:)``), then the types of its conditions against the tables `schemas`
    /// knows (see ``checkTypes(_:schemas:)``).
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` naming the fault, then
    ///   ``StrataError/typeMismatch(table:column:detail:)`` naming the table and the column.
    public static func check(_ statement: Statement, schemas: KnownSchemas) throws(StrataError) {
        try check(statement)
        try checkTypes(statement, schemas: schemas)
    }

    /// Refuses, in a SELECT's (and each subquery's, set operation branch's and WITH query's) join conditions,
    /// WHERE, selected expressions and ORDER BY terms, and in an UPDATE's or DELETE's WHERE:
    /// - a column compared (`=`, `<`, …, `IN`, `BETWEEN`) with a value, or with a column, of a type it does not
    ///   compare with (see ``comparable(_:_:)``): SQLite and the memory driver would compare storage classes and
    ///   answer rows, PostgreSQL and MariaDB refuse or convert;
    /// - `LIKE` over a column that is not text: SQLite would match the value's text, the others refuse.
    ///
    /// A column is typed only when its table is one `schemas` knows; other operands (NULL, computed values,
    /// subqueries, raw SQL) are not typed here. The first fault in the order the statement is written is named.
    ///
    /// - Throws: ``StrataError/typeMismatch(table:column:detail:)`` naming the column's table (not its alias)
    ///   and the column.
    public static func checkTypes(_ statement: Statement, schemas: KnownSchemas) throws(StrataError) {
        switch statement {
        case .select(let s):
            guard s.mayCompareColumns else { return }
            let known = schemas.snapshot
            guard !known.isEmpty else { return }
            try TypeScope(s, known).check(s, known)
        case .insert(let i):
            guard let columns = schemas.columns(of: i.table) else { return }
            try checkWrittenValues(i, columns)
        case .update(let u):
            if let columns = schemas.columns(of: u.table) { try checkWrittenValues(u, columns) }
            guard let f = u.filter, f.node.mayCompareColumns else { return }
            let known = schemas.snapshot
            guard let columns = known[u.table] else { return }
            try TypeScope(main: u.table, columns: columns).check(f.node, known)
        case .delete(let d):
            guard let f = d.filter, f.node.mayCompareColumns else { return }
            let known = schemas.snapshot
            guard let columns = known[d.table] else { return }
            try TypeScope(main: d.table, columns: columns).check(f.node, known)
        default: return
        }
    }

    /// Refuses an INSERT's value of another type than its column's, as the table is known (see ``takes(_:_:)``).
    static func checkWrittenValues(_ i: Insert, _ known: [TableColumn]) throws(StrataError) {
        // The statement's columns are usually the table's in its order (a model's insert), so each is looked for
        // from where the last one was found.
        var from = 0
        for (k, name) in i.columns.enumerated() {
            guard let c = column(named: name, in: known, from: &from) else { continue }
            for row in i.rows where k < row.count && !takes(known[c].type, row[k]) {
                throw mismatch(i.table, known[c], row[k])
            }
        }
    }

    /// Refuses an UPDATE's value (not a computed assignment) of another type than its column's.
    static func checkWrittenValues(_ u: Update, _ known: [TableColumn]) throws(StrataError) {
        var from = 0
        for a in u.assignments where a.expression == nil {
            guard let c = column(named: a.column, in: known, from: &from) else { continue }
            if !takes(known[c].type, a.value) { throw mismatch(u.table, known[c], a.value) }
        }
    }

    /// The index of the column named `name`, looked for from `from` on and then from the start; `from` moves past it.
    private static func column(named name: String, in columns: [TableColumn], from: inout Int) -> Int? {
        if let i = columns[from...].firstIndex(where: { $0.name == name })
            ?? columns[..<from].firstIndex(where: { $0.name == name })
        {
            from = i + 1 < columns.count ? i + 1 : 0
            return i
        }
        return nil
    }

    private static func mismatch(_ table: String, _ column: TableColumn, _ value: DatabaseValue) -> StrataError {
        mismatch(table, column.name, column.type, value)
    }

    /// The error for `value` written to `column` of `type`, which does not take it (see ``takes(_:_:)``).
    static func mismatch(_ table: String, _ column: String, _ type: ColumnType, _ value: DatabaseValue) -> StrataError {
        .typeMismatch(table: table, column: column, detail: "expected \(type.rawValue), got \(value.kindName)")
    }

    /// Whether a column of `type` stores `value` as a value of its type on every backend: NULL (nullability is the
    /// database's to check), a value of the type, an integer in a double or decimal column, and text in a JSON
    /// column (the database checks it is JSON). SQLite would store an integer in a text column as text, PostgreSQL
    /// would cast it, the memory driver refuses it: Strata refuses every other pair before any driver sees it.
    @inline(__always)
    public static func takes(_ type: ColumnType, _ value: DatabaseValue) -> Bool {
        // A switch on the value alone, binding nothing: a tuple of the two copied the value (a retain and a release
        // of a text's storage for each value of a bulk write).
        switch value {
        case .null: return true
        case .integer: return type == .integer || type == .double || type == .decimal
        case .double: return type == .double
        case .text: return type == .text || type == .json
        case .blob: return type == .blob
        case .bool: return type == .bool
        case .decimal: return type == .decimal
        case .uuid: return type == .uuid
        case .date: return type == .date
        case .json: return type == .json
        }
    }

    /// Whether a column of type `a` compares with a value or column of type `b` alike on every backend: the same
    /// type, or two number types (integer, double, decimal). A Bool is not an integer, a date, UUID or JSON is not
    /// text, a UUID is not a blob (SQLite and the memory driver would compare storage classes, PostgreSQL refuses).
    public static func comparable(_ a: ColumnType, _ b: ColumnType) -> Bool {
        a == b || (a.isNumber && b.isNumber)
    }
}

/// The tables a condition's columns belong to: the main table and each join's alias, with their known columns.
private struct TypeScope {
    var main: String
    var columns: [TableColumn]?
    /// Each join's alias, its table and the table's known columns.
    var joins: [(alias: String, table: String, columns: [TableColumn]?)] = []

    init(main: String, columns: [TableColumn]?) {
        self.main = main
        self.columns = columns
    }

    init(_ s: Select, _ known: [String: [TableColumn]]) {
        self.init(main: s.table, columns: known[s.table])
        joins = s.joins.map { ($0.alias, $0.table, known[$0.table]) }
    }

    /// The table and type of a plain column operand, when its table is known.
    func column(_ n: SQLExpression.Node) -> (table: String, name: String, type: ColumnType)? {
        let table: String
        let name: String
        let known: [TableColumn]?
        switch n {
        case .column(let c):
            (table, name, known) = (main, c, columns)
        case .joinedColumn(let alias, let c):
            guard let j = joins.first(where: { $0.alias == alias }) else { return nil }
            (table, name, known) = (j.table, c, j.columns)
        default: return nil
        }
        guard let known, let c = known.first(where: { $0.name == name }) else { return nil }
        return (table, name, c.type)
    }

    /// A SELECT: its WITH query and set operation branches (each in its own scope), join conditions, WHERE,
    /// selected expressions and ORDER BY terms.
    func check(_ s: Select, _ known: [String: [TableColumn]]) throws(StrataError) {
        if let w = s.commonTable {
            try TypeScope(w.select, known).check(w.select, known)
            if let step = w.step { try TypeScope(step, known).check(step, known) }
        }
        if let c = s.compound {
            for b in c.branches { try TypeScope(b, known).check(b, known) }
        }
        for join in s.joins { try check(join.on.node, known) }
        if let f = s.filter { try check(f.node, known) }
        if case .items(let items) = s.selection {
            for case .expression(let e) in items { try check(e.node, known) }
        }
        for o in s.order { if let e = o.expression { try check(e.node, known) } }
    }

    func check(_ n: SQLExpression.Node, _ known: [String: [TableColumn]]) throws(StrataError) {
        switch n {
        case .column, .joinedColumn, .value, .constant, .unsafeRaw, .parameter: return
        case .compare(let op, let l, let r):
            try compare(l, r, op.rawValue)
            try compare(r, l, op.rawValue)
            try check(l, known)
            try check(r, known)
        case .inList(let e, let values, let negated):
            if let c = column(e) { try inList(values, against: c, negated ? "NOT IN" : "IN") }
            try check(e, known)
        case .between(let e, let low, let high, let negated):
            try compare(e, low, negated ? "NOT BETWEEN" : "BETWEEN")
            try compare(e, high, negated ? "NOT BETWEEN" : "BETWEEN")
            try check(e, known)
            try check(low, known)
            try check(high, known)
        case .like(let e, _, let caseInsensitive, _):
            if let c = column(e), c.type != .text {
                throw .typeMismatch(
                    table: c.table, column: c.name,
                    detail: "\(caseInsensitive ? "ILIKE" : "LIKE") needs a text column; \(c.name) is "
                        + "\(Self.article(c.type)) column (Strata refuses it on every driver)")
            }
            try check(e, known)
        case .and(let items), .or(let items), .coalesce(let items):
            for item in items { try check(item, known) }
        case .not(let e), .isNull(let e, _), .caseMapped(let e, _), .typed(let e, _), .jsonPath(let e, _),
            .search(let e, _), .searchRank(let e, _):
            try check(e, known)
        case .arithmetic(_, let l, let r), .concat(let l, let r):
            try check(l, known)
            try check(r, known)
        case .inSubquery(let e, let s, _):
            try check(e, known)
            try TypeScope(s, known).check(s, known)
        case .scalarSubquery(let s), .correlatedExists(let s, _, _):
            try TypeScope(s, known).check(s, known)
        }
    }

    /// `l op r` where `l` is a typed column: `r` a value or a typed column of a type it compares with.
    private func compare(_ l: SQLExpression.Node, _ r: SQLExpression.Node, _ op: String) throws(StrataError) {
        guard let c = column(l) else { return }
        switch r {
        case .value(let v): try value(v, against: c, op)
        case .column, .joinedColumn:
            guard let other = column(r), !StatementCheck.comparable(c.type, other.type) else { return }
            throw .typeMismatch(
                table: c.table, column: c.name,
                detail: "\(Self.article(c.type)) column compared (\(op)) with \(other.table).\(other.name), "
                    + "\(Self.article(other.type)) column (Strata refuses comparisons across types on every driver)")
        default: return
        }
    }

    private func value(_ v: DatabaseValue, against c: (table: String, name: String, type: ColumnType), _ op: String)
        throws(StrataError)
    {
        guard let t = v.columnType else { return }
        try type(t, against: c, op)
    }

    /// Each value of an IN list against `c`: each kind of value is checked once, and the values are read in place (a
    /// list of 100,000 ids was 100,000 checks, each on a copy of its value: about 150 instructions an id).
    private func inList(
        _ values: [DatabaseValue], against c: (table: String, name: String, type: ColumnType), _ op: String
    ) throws(StrataError) {
        var checked: ColumnType?
        let mismatch = values.withUnsafeBufferPointer { buffer -> ColumnType? in
            var start = buffer.startIndex
            // Integers and NULLs (a list of keys), when the column compares with integers: one test a value. The
            // first value of another kind goes on below; every value before it passed.
            if StatementCheck.comparable(c.type, .integer) {
                integers: while start < buffer.endIndex {
                    switch buffer[start] {  // every case named: a `default` copied each value out
                    case .integer, .null: start &+= 1
                    case .bool, .double, .text, .blob, .date, .decimal, .uuid, .json: break integers
                    }
                }
                checked = .integer
            }
            for i in start..<buffer.endIndex {
                guard let t = buffer[i].columnType, t != checked else { continue }
                if !StatementCheck.comparable(c.type, t) { return t }
                checked = t
            }
            return nil
        }
        if let mismatch { try type(mismatch, against: c, op) }
    }

    private func type(_ t: ColumnType, against c: (table: String, name: String, type: ColumnType), _ op: String)
        throws(StrataError)
    {
        guard !StatementCheck.comparable(c.type, t) else { return }
        throw .typeMismatch(
            table: c.table, column: c.name,
            detail: "\(Self.article(c.type)) column compared (\(op)) with \(Self.article(t)) value "
                + "(Strata refuses comparisons across types on every driver)")
    }

    static func article(_ t: ColumnType) -> String {
        switch t {
        case .integer: "an integer"
        case .uuid: "a UUID"
        case .json: "a JSON"
        default: "a \(t.rawValue)"
        }
    }
}

extension DatabaseValue {
    /// The column type a value belongs to; nil for NULL, which compares with every type.
    package var columnType: ColumnType? {
        switch self {
        case .null: nil
        case .bool: .bool
        case .integer: .integer
        case .double: .double
        case .text: .text
        case .blob: .blob
        case .date: .date
        case .decimal: .decimal
        case .uuid: .uuid
        case .json: .json
        }
    }
}

extension Select {
    /// Whether a condition of the SELECT may compare a column (a cheap look before reading the known schemas).
    fileprivate var mayCompareColumns: Bool {
        if let f = filter, f.node.mayCompareColumns { return true }
        if !joins.isEmpty || commonTable != nil || compound != nil { return true }
        if case .items(let items) = selection {
            for case .expression(let e) in items where e.node.mayCompareColumns { return true }
        }
        return order.contains { $0.expression?.node.mayCompareColumns ?? false }
    }
}

extension SQLExpression.Node {
    /// Whether the expression holds a comparison, IN, BETWEEN, LIKE or a subquery.
    fileprivate var mayCompareColumns: Bool {
        switch self {
        case .column, .joinedColumn, .value, .constant, .unsafeRaw, .parameter: false
        case .compare, .inList, .between, .like, .inSubquery, .scalarSubquery, .correlatedExists: true
        case .and(let items), .or(let items), .coalesce(let items): items.contains { $0.mayCompareColumns }
        case .not(let e), .isNull(let e, _), .caseMapped(let e, _), .typed(let e, _), .jsonPath(let e, _),
            .search(let e, _), .searchRank(let e, _):
            e.mayCompareColumns
        case .arithmetic(_, let l, let r), .concat(let l, let r): l.mayCompareColumns || r.mayCompareColumns
        }
    }
}

/// A bind of a write template whose value is checked against its column's known type at each statement (it was
/// NULL when the template's statement was checked).
struct BindCheck: Sendable {
    var index: Int
    var column: String
    var type: ColumnType
}

extension DatabaseValue {
    /// The name of the value's kind in messages: `integer`, `text`, `NULL`… (the memory driver's messages too).
    package var kindName: String {
        switch self {
        case .null: "NULL"
        case .bool: "bool"
        case .integer: "integer"
        case .double: "double"
        case .text: "text"
        case .blob: "blob"
        case .date: "date"
        case .decimal: "decimal"
        case .uuid: "uuid"
        case .json: "json"
        }
    }
}
