// DifferentialEngine: runs generated queries on every backend, compares them, runs the oracles, and shrinks failures.
import Strata

/// The differential engine: for each generated world, set it up on every backend, then run a batch of
/// generated queries on each, compare the answers row for row, and check TLP and NoREC on each backend alone.
///
/// ```swift
/// let engine = try DifferentialEngine(urls: ["memory:", "sqlite::memory:"], drivers: [.memory, .sqlite],
///                                     options: FuzzOptions(seed: 7, queries: 1_000))
/// let report = engine.run()
/// print(report.summary)   // "1000 queries, 0 divergences"
/// ```
public final class DifferentialEngine {
    /// The databases compared, the first one the reference.
    public let backends: [Backend]
    /// What the run generates and how much.
    public let options: FuzzOptions
    /// Receives progress and each divergence's report as it is found.
    public var log: (String) -> Void = { _ in }
    /// The world currently set up on every backend.
    private var current: FuzzWorld?
    /// Statements run so far, on all backends together.
    public private(set) var statements = 0

    /// An engine over backends already opened.
    public init(backends: [Backend], options: FuzzOptions) {
        self.backends = backends
        self.options = options
    }

    /// Opens each URL with `drivers`.
    public convenience init(urls: [String], drivers: [DriverFactory], options: FuzzOptions) throws {
        self.init(backends: try urls.map { try Backend(url: $0, drivers: drivers) }, options: options)
    }

    /// Runs ``FuzzOptions/queries`` generated queries and returns what was found.
    public func run() -> FuzzReport {
        var rng = SplitMix64(seed: options.seed)
        var values = EdgeValues(noncharacters: options.noncharacters)
        values.infinities = options.infinities
        values.decimalIntegerDigits = options.decimalIntegerDigits
        var report = FuzzReport(backends: backends.map(\.name))
        var batch = 0
        while report.queries < options.queries {
            var batchRNG = rng.fork()
            let world = FuzzWorld.generate(&batchRNG, values: values)
            if let setupFailure = setUp(world) {
                record(
                    Divergence(
                        check: .setup, seed: options.seed, batch: batch, query: -1, world: world, select: nil,
                        details: setupFailure), into: &report)
                report.queries += min(options.queriesPerSchema, options.queries - report.queries)
                batch += 1
                continue
            }
            let generator = QueryGenerator(world: world, values: values)
            let count = min(options.queriesPerSchema, options.queries - report.queries)
            for q in 0..<count {
                if q % 20 == 19 {
                    // One statement in twenty is a write, run on a fresh copy of the world.
                    let write = generator.write(&batchRNG)
                    report.queries += 1
                    if let (details, _) = writeFailure(write, in: world) {
                        let d = Divergence(
                            check: .write, seed: options.seed, batch: batch, query: q, world: world, select: nil,
                            write: write, details: details)
                        record(d, into: &report)
                    }
                    setUp(world)
                    continue
                }
                let select = generator.select(&batchRNG)
                report.queries += 1
                if let w = select.generatedWindow {
                    report.windowQueries += 1
                    if w.aggregate != nil { report.runningAggregateQueries += 1 }
                }
                if select.readsJSONPath { report.jsonPathQueries += 1 }
                if select.groupBy.contains(ColumnRef("id")) { report.associationAggregateQueries += 1 }
                if select.searches { report.searchQueries += 1 }
                if Self.parameterized(select, turn: q) != nil { report.preparedQueries += 1 }
                for (check, details) in failures(of: select, in: world, turn: q) {
                    let d = Divergence(
                        check: check, seed: options.seed, batch: batch, query: q, world: world, select: select,
                        details: details)
                    let shrunk = report.shrunk
                    record(d, into: &report)
                    if report.shrunk != shrunk || current != world { setUp(world) }
                }
            }
            batch += 1
        }
        for b in backends { tearDown(b) }
        report.statements = statements
        return report
    }

    private func record(_ found: Divergence, into report: inout FuzzReport) {
        var d = found
        d.known = KnownDivergence.classify(d)
        let firstOfItsKind = d.known.map { report.known[$0.name] == nil } ?? true
        if firstOfItsKind, report.shrunk < options.shrinkLimit, d.select != nil || d.write != nil {
            report.shrunk += 1
            if d.write != nil { shrinkWrite(&d) } else { shrink(&d) }
            d.known = KnownDivergence.classify(d)
        }
        if let k = d.known {
            report.known[k.name, default: 0] += 1
            if report.known[k.name] == 1 { log("known divergence \(k.name) seen:\n" + describe(d)) }
        } else {
            report.divergences.append(d)
            log(describe(d))
        }
    }

    // MARK: Setup

    /// Builds `world` on every backend; returns why they disagreed, if they did.
    @discardableResult
    func setUp(_ world: FuzzWorld) -> String? {
        current = world
        for statement in world.setup {
            let outcomes = backends.map { b in
                statements += 1
                return b.run(statement, types: [.integer])
            }
            if let bad = outcomes.indices.dropFirst().first(where: {
                !outcomes[$0].agrees(with: outcomes[0], ordered: true)
            }) {
                current = nil
                return "\(Self.kind(statement)) on \(statement.tableName ?? "?"):\n"
                    + "  \(backends[0].name): \(outcomes[0])\n  \(backends[bad].name): \(outcomes[bad])"
            }
            if case .failed = outcomes[0] {
                if case .dropTable = statement { continue }
                current = nil
                return "every backend refused \(Self.kind(statement)): \(outcomes[0])"
            }
        }
        if let failure = indexSearchDocuments(world) {
            current = nil
            return failure
        }
        if let wrong = numbersReadAsText(world) {
            current = nil
            return wrong
        }
        return nil
    }

    /// Gives every text column of the world a full-text index where a backend keeps one beside the table (FTS5
    /// on SQLite, kept by triggers, filled from the rows), so that the generator's matches (which read any text
    /// column as a search document) go through the index there, and its writes through the triggers.
    func indexSearchDocuments(_ world: FuzzWorld) -> String? {
        for b in backends {
            guard let sql = b.connection as? any SQLConnection, sql.dialect.fullTextIndex != nil else { continue }
            for table in world.tables {
                for column in table.schema.columns where column.type == .text {
                    statements += 1
                    do {
                        var ddl = try SQLRenderer.searchIndexSQL(
                            table: table.name, column: column.name, dialect: sql.dialect)
                        if let fill = try SQLRenderer.fullTextIndexFillSQL(
                            table: table.name, column: column.name, dialect: sql.dialect)
                        {
                            ddl.append(fill)
                        }
                        for statement in ddl { _ = try sql.executeRaw(statement, []) { _ in } }
                    } catch {
                        return "\(b.name): indexing \(table.name).\(column.name) failed: \(error)"
                    }
                }
            }
        }
        return nil
    }

    /// A number column Strata created that a backend's catalog says stores text only: queries comparing it
    /// would be refused there as numbers stored as text (see `LiveColumn.storesTextOnly`), and not elsewhere.
    func numbersReadAsText(_ world: FuzzWorld) -> String? {
        for table in world.tables {
            let numbers = table.schema.columns.filter { [.integer, .double, .decimal, .bool].contains($0.type) }
            for b in backends {
                statements += 1
                let live: [LiveColumn]
                do {
                    guard let found = try b.connection.liveColumns(of: table.name) else {
                        return "\(b.name): table \(table.name) not found in its catalog"
                    }
                    live = found
                } catch {
                    return "\(b.name): reading the columns of \(table.name) failed: \(error)"
                }
                for column in numbers {
                    if let c = live.first(where: { $0.name == column.name }), c.storesTextOnly {
                        return "\(b.name): \(table.name).\(column.name), a \(column.type) column, is declared "
                            + "\(c.declaredType), read as text only"
                    }
                }
            }
        }
        return nil
    }

    private func tearDown(_ b: Backend) {
        for statement in (current ?? FuzzWorld(tables: [])).teardown { _ = b.run(statement, types: []) }
    }

    private static func kind(_ s: Statement) -> String {
        switch s {
        case .createTable: return "CREATE TABLE"
        case .createIndex: return "CREATE INDEX"
        case .insert: return "INSERT"
        case .dropTable: return "DROP TABLE"
        default: return "\(s)"
        }
    }

    // MARK: Checks

    /// Every check `select` fails on the world currently set up: backends disagreeing, then each oracle.
    func failures(of select: Select, in world: FuzzWorld, turn: Int = -1) -> [(Check, String)] {
        failuresWithSignature(of: select, in: world, turn: turn).map { ($0.0, $0.1) }
    }

    /// ``failures(of:in:)`` with, for each, its signature: the outcome kind on each backend (`rows` or the
    /// error's case), which shrinking keeps so that it does not wander into another divergence.
    private func failuresWithSignature(of select: Select, in world: FuzzWorld, turn: Int = -1) -> [(
        Check, String, String
    )] {
        var out: [(Check, String, String)] = []
        let types = world.resultTypes(select)
        let outcomes = backends.map { run(select, types: types, on: $0) }
        if let (parameterized, values) = Self.parameterized(select, turn: turn) {
            for (b, outcome) in zip(backends, outcomes) {
                if let why = prepared(parameterized, values, types: types, against: outcome, on: b) {
                    out.append((.prepared(backend: b.name), why, ""))
                }
            }
        }
        let ordered = Self.isTotallyOrdered(select)
        for i in outcomes.indices.dropFirst() where !outcomes[i].agrees(with: outcomes[0], ordered: ordered) {
            out.append(
                (
                    .backends, "  \(backends[0].name): \(outcomes[0])\n  \(backends[i].name): \(outcomes[i])",
                    Self.signature(outcomes)
                ))
            break
        }
        guard options.oracles, let p = select.filter else { return out }
        for b in backends {
            if let why = tlp(select, p, on: b) { out.append((.tlp(backend: b.name), why, "")) }
            if let why = norec(select, p, on: b) { out.append((.norec(backend: b.name), why, "")) }
        }
        return out
    }

    /// Runs one check again (for shrinking): its failure details, or nil when it passes.
    ///
    /// `rebuild` sets the world up again even when it compares equal to the current one: `==` on values
    /// calls -0.0 and 0.0 equal, and the shrinker must not take one for the other.
    func failure(_ check: Check, of select: Select, in world: FuzzWorld, rebuild: Bool = false) -> (String, String)? {
        if rebuild || current != world, setUp(world) != nil { return nil }
        switch check {
        case .setup, .write: return nil
        case .prepared(let name):
            guard let (parameterized, values) = Self.parameterized(select, turn: 0),
                let b = backends.first(where: { $0.name == name })
            else { return nil }
            let types = world.resultTypes(select)
            return prepared(parameterized, values, types: types, against: run(select, types: types, on: b), on: b)
                .map { ($0, "") }
        case .backends:
            return failuresWithSignature(of: select, in: world).first { $0.0 == .backends }.map { ($0.1, $0.2) }
        case .tlp(let name):
            guard let p = select.filter, let b = backends.first(where: { $0.name == name }) else { return nil }
            return tlp(select, p, on: b).map { ($0, "") }
        case .norec(let name):
            guard let p = select.filter, let b = backends.first(where: { $0.name == name }) else { return nil }
            return norec(select, p, on: b).map { ($0, "") }
        }
    }

    /// Runs an UPDATE or DELETE on a fresh copy of `world` on every backend; returns how they disagreed on
    /// its outcome (rows changed, or the error's case) or on the tables after it, if they did.
    func writeFailure(_ write: Statement, in world: FuzzWorld) -> (String, String)? {
        if setUp(world) != nil { return nil }
        current = nil  // the write changes the world
        let outcomes = backends.map { b in
            statements += 1
            return b.run(write, types: [])
        }
        var disagreement: String?
        for i in outcomes.indices.dropFirst() where !outcomes[i].agrees(with: outcomes[0], ordered: true) {
            let pair = "  \(backends[0].name): \(outcomes[0])\n  \(backends[i].name): \(outcomes[i])"
            // Backends that each refuse the write by a constraint may name different ones when it breaks several
            // (MariaDB checks foreign keys row by row): still a divergence, but the tables are compared first, and
            // the details say whether they agree, so a driver's own classifier can tell the order from a lost write.
            guard outcomes.allSatisfy(Self.isConstraintFailure) else { return (pair, Self.signature(outcomes)) }
            disagreement = disagreement.map { $0 + "\n" + pair } ?? pair
        }
        for t in world.tables {
            let dump = Select(
                table: t.name, selection: .columns(t.schema.columnNames), order: [Ordering("id")])
            let types = t.schema.columns.map(\.type)
            let after = backends.map { run(dump, types: types, on: $0) }
            for i in after.indices.dropFirst() where !after[i].agrees(with: after[0], ordered: true) {
                return (
                    "  after \(outcomes[0]), \(t.name) holds:\n  \(backends[0].name): \(after[0])\n"
                        + "  \(backends[i].name): \(after[i])", "after:" + Self.signature(outcomes)
                )
            }
        }
        if let disagreement {
            return (
                Self.constraintsDifferMarker + "\n" + disagreement, "constraints:" + Self.signature(outcomes)
            )
        }
        return nil
    }

    /// The first line of a write divergence where every backend refused the write by a constraint, the constraints
    /// named differ, and every table holds the same rows after it on every backend.
    public static let constraintsDifferMarker =
        "every backend refused the write by a constraint, not the same one; the tables agree after it"

    static func isConstraintFailure(_ outcome: QueryOutcome) -> Bool {
        guard case .failed(let kind, _) = outcome else { return false }
        return ["uniqueViolation", "foreignKeyViolation", "notNullViolation", "checkViolation"].contains(kind)
    }

    /// Each backend's outcome kind: `rows` or the error's case.
    static func signature(_ outcomes: [QueryOutcome]) -> String {
        outcomes.map { if case .failed(let kind, _) = $0 { kind } else { "rows" } }.joined(separator: "|")
    }

    private func run(_ select: Select, types: [ColumnType], on b: Backend) -> QueryOutcome {
        statements += 1
        if select.lock != nil { return b.runLocked(select, types: types) }
        return b.run(.select(select), types: types)
    }

    /// One generated read in ``preparedShare`` is also run prepared.
    static let preparedShare = 3

    /// `select` with each non-NULL value of its filter made a parameter (`p0`, `p1`, …), and the values, for the
    /// reads whose `turn` (their number in the batch) falls on ``preparedShare`` (every read when `turn` is 0, as the
    /// shrinker asks); nil for a read without such a value, or that locks rows.
    static func parameterized(_ select: Select, turn: Int) -> (Select, [DatabaseValue])? {
        guard turn % preparedShare == 0, select.lock == nil, let filter = select.filter else { return nil }
        var values: [DatabaseValue] = []
        let node = parameterize(filter.node, &values)
        guard !values.isEmpty else { return nil }
        var s = select
        s.filter = SQLExpression(node)
        return (s, values)
    }

    private static func parameterize(_ n: SQLExpression.Node, _ values: inout [DatabaseValue]) -> SQLExpression.Node {
        switch n {
        case .value(let v) where !v.isNull:
            values.append(v)
            return .parameter(ParameterSlot(name: "p\(values.count - 1)"))
        case .compare(let op, let l, let r): return .compare(op, parameterize(l, &values), parameterize(r, &values))
        case .and(let items): return .and(items.map { parameterize($0, &values) })
        case .or(let items): return .or(items.map { parameterize($0, &values) })
        case .not(let e): return .not(parameterize(e, &values))
        case .isNull(let e, let negated): return .isNull(parameterize(e, &values), negated: negated)
        case .between(let e, let low, let high, let negated):
            return .between(
                parameterize(e, &values), low: parameterize(low, &values), high: parameterize(high, &values),
                negated: negated)
        case .arithmetic(let op, let l, let r):
            return .arithmetic(op, parameterize(l, &values), parameterize(r, &values))
        case .coalesce(let items): return .coalesce(items.map { parameterize($0, &values) })
        default: return n
        }
    }

    /// How the prepared read of `parameterized` with `values` differs on `b` from the read of the SELECT
    /// (`expected`), first run and again (bound into its SQL on a backend that renders SQL), or nil.
    private func prepared(
        _ parameterized: Select, _ values: [DatabaseValue], types: [ColumnType], against expected: QueryOutcome,
        on b: Backend
    ) -> String? {
        let plan = PreparedPlan(select: parameterized) { _, _ in }
        let ordered = Self.isTotallyOrdered(parameterized)
        for run in ["first", "again"] {
            statements += 1
            let outcome = b.runPrepared(plan, values: values, types: types)
            if !outcome.agrees(with: expected, ordered: ordered) {
                return "  the SELECT: \(expected)\n  prepared, \(run) run: \(outcome)"
            }
        }
        return nil
    }

    /// Whether the ORDER BY ends in the main table's id (and the joined table's, with a join): a total order.
    static func isTotallyOrdered(_ s: Select) -> Bool {
        if s.selection == .count { return true }
        // Grouped by the main table's id (an association aggregate's groups): one row per main row.
        if s.groupBy.contains(ColumnRef("id")) { return s.order.contains { $0.column == "id" && $0.table == nil } }
        let mainID = s.order.contains { $0.column == "id" && $0.table == nil }
        let joinIDs = s.joins.allSatisfy { j in s.order.contains { $0.column == "id" && $0.table == j.alias } }
        return mainID && joinIDs
    }

    /// The identity of each row of `s` (its ids), without order, limit or offset, filtered by `filter`.
    private func ids(_ s: Select, filter: SQLExpression?) -> Select {
        var q = Select(table: s.table, selection: .columns(["id"]), joins: s.joins, filter: filter)
        if !s.joins.isEmpty {
            q.selection = .refs([ColumnRef("id")] + s.joins.map { ColumnRef("id", table: $0.alias) })
        }
        return q
    }

    /// TLP: the rows where p is true, false and unknown are, together, all the rows (as multisets).
    private func tlp(_ s: Select, _ p: SQLExpression, on b: Backend) -> String? {
        let types = [ColumnType](repeating: .integer, count: 1 + s.joins.count)
        let all = run(ids(s, filter: nil), types: types, on: b)
        let parts = [p, .not(p), .isNull(p)].map { run(ids(s, filter: $0), types: types, on: b) }
        guard let allRows = all.rows else { return nil }
        var union: [[CanonicalValue]] = []
        for part in parts {
            guard let rows = part.rows else { return nil }  // p fails to run: the backends check compares that
            union += rows
        }
        if QueryOutcome.multiset(union) == QueryOutcome.multiset(allRows) { return nil }
        return "  all rows: \(all)\n  p: \(parts[0])\n  NOT p: \(parts[1])\n  p IS NULL: \(parts[2])"
    }

    /// NoREC: COUNT(*) WHERE p, which a backend may optimize (indexes, count paths), equals the number of
    /// rows returned by WHERE (p) = TRUE, where p is evaluated as a value on each row and cannot drive an index.
    private func norec(_ s: Select, _ p: SQLExpression, on b: Backend) -> String? {
        var counted = Select(table: s.table, selection: .count, joins: s.joins, filter: p)
        counted.limit = nil
        let count = run(counted, types: [.integer], on: b)
        let rows = run(ids(s, filter: .compare(.equal, p, .value(.bool(true)))), types: [.integer, .integer], on: b)
        guard case .rows(let c, _) = count, case .rows(let r, _) = rows else { return nil }
        if c.first?.first == .integer(Int64(r.count)) { return nil }
        return "  COUNT(*) WHERE p: \(count)\n  rows WHERE (p) = TRUE: \(r.count)"
    }
}

/// What a run found.
public struct FuzzReport: Sendable {
    /// The names of the backends compared.
    public var backends: [String]
    /// Generated queries run (each on every backend).
    public var queries = 0
    /// Statements run on all backends together, oracles and setup included.
    public var statements = 0
    /// New divergences: each fails the run.
    public var divergences: [Divergence] = []
    /// Known divergences seen, by name (see ``KnownDivergence``).
    public var known: [String: Int] = [:]
    /// Generated reads that selected a window function (see `QueryGenerator.windowShare`).
    public var windowQueries = 0
    /// Generated reads that read a JSON path (see `QueryGenerator.jsonPathShare`).
    public var jsonPathQueries = 0
    /// Generated reads that match a full-text query (see `QueryGenerator.searchShare`).
    public var searchQueries = 0
    /// Generated reads whose window function is a running aggregate (`SUM(c) OVER (…)`), among ``windowQueries``.
    public var runningAggregateQueries = 0
    /// Generated reads shaped as an association aggregate (a LEFT JOIN grouped by every column of the parent).
    public var associationAggregateQueries = 0
    /// Generated reads also run prepared, their values made parameters (see `DifferentialEngine.preparedShare`).
    public var preparedQueries = 0
    var shrunk = 0

    init(backends: [String]) { self.backends = backends }

    /// The last line a run prints: `N queries, D divergences`.
    public var summary: String { "\(queries) queries, \(divergences.count) divergences" }

    /// The share of generated queries that exercised each construct:
    /// `window functions: 35 of 500 queries (running aggregates: 12); JSON paths: 20 of 500 queries; full-text
    /// search: 15 of 500 queries`.
    public var shares: String {
        "window functions: \(windowQueries) of \(queries) queries (running aggregates: \(runningAggregateQueries)); "
            + "JSON paths: \(jsonPathQueries) of \(queries) queries; "
            + "association aggregates: \(associationAggregateQueries) of \(queries) queries; "
            + "full-text search: \(searchQueries) of \(queries) queries; "
            + "prepared: \(preparedQueries) of \(queries) queries"
    }

    /// The known divergences seen, one line each, or nil when there were none.
    public var knownSummary: String? {
        guard !known.isEmpty else { return nil }
        return known.sorted { $0.key < $1.key }.map { k in
            let fix = KnownDivergence.all.first { $0.name == k.key }.map { " (to be fixed by \($0.fixBy))" } ?? ""
            return "known divergence \(k.key): seen \(k.value) time(s)\(fix)"
        }
        .joined(separator: "\n")
    }
}
