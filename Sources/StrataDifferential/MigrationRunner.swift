// MigrationRunner: runs migration programs on every backend, compares each step's outcome and every backend's
// schema, rows and migration log after it, and shrinks a failing program.
import Foundation
import Strata

/// Where a migration program's backends first disagreed.
public struct MigrationDivergence: CustomStringConvertible, Sendable {
    /// The program, up to and including the step.
    public let program: [MigrationProgramStep]
    /// The step after which they disagreed.
    public let step: Int
    /// Each backend's outcome and what differs in its snapshot.
    public let details: String

    public var description: String {
        var lines = ["the backends disagree after step \(step):"]
        for (i, s) in program.enumerated() { lines.append("\(i == step ? "→" : " ") \(i): \(s)") }
        return (lines + [details]).joined(separator: "\n")
    }
}

/// Runs migration programs on several databases at once and compares them with the first after every step: the
/// step's outcome (done, or the ``StrataError`` case it threw) and a snapshot of each database — every `mp_*` table's
/// columns (by name: PostgreSQL moves a retyped column last), their types, nullability, key and DEFAULT, its indexes
/// and foreign keys, its rows in key order, and the names `strata_migrations` holds.
///
/// The first database is the reference, and its introspection should read back every declared type (the memory
/// driver's and PostgreSQL's do). Another's column types are compared with what its introspection reports for the
/// reference's type (SQLite's reads a date, decimal or UUID column as text: see `probeTypes`), and every database's
/// values and defaults decode by the reference's type of their column, as a model would decode them.
public final class MigrationRunner {
    final class Side {
        let name: String
        let db: Database
        /// What its introspection reports for a column declared with each type.
        var reported: [ColumnType: ColumnType] = [:]

        init(url: String, drivers: [DriverFactory]) throws {
            var configuration = Configuration()
            configuration.maxConnections = 1
            configuration.timeout = 5
            db = try Database.open(url, drivers: drivers, configuration: configuration)
            name = "\(db.driverName) (\(URLText.redacted(url)))"
        }
    }

    private let sides: [Side]
    /// The backends' names, in the order given.
    public var names: [String] { sides.map(\.name) }
    /// Resets that dropped tables (each a migration step of its own name).
    /// Steps run so far (on each backend).
    public private(set) var steps = 0
    /// How many changes of each kind (and inserts and reverts) ran, and how many of them were in a step the reference
    /// refused (a step fails whole, so a change counts as refused with the one that failed it).
    public private(set) var census: [String: (ran: Int, refused: Int)] = [:]

    /// Opens every URL, each with one connection.
    public init(urls: [String], drivers: [DriverFactory]) throws {
        sides = try urls.map { try Side(url: $0, drivers: drivers) }
        for side in sides { side.reported = try probeTypes(side) }
    }

    /// The types every database's introspection reads back as declared. A migration checks a change against the
    /// live type (a default converts to it, a retype converts from it), so a column whose type one backend reads
    /// back as another (SQLite's date, as text) is checked differently there: programs leave such types out.
    public var typesReadBack: [ColumnType] {
        ColumnType.allCases.filter { t in sides.allSatisfy { ($0.reported[t] ?? t) == t } }
    }

    /// Closes the databases.
    public func close() {
        for side in sides { side.db.close() }
    }

    /// Runs a program of `length` steps on every backend, each step written by `generator` for the tables the first
    /// database holds after the step before (so most of its changes name what exists); the first disagreement, or
    /// nil. The program a seed writes is the same on every run: the first database answers alike each time.
    public func run(
        length: Int, generator: inout MigrationProgramGenerator, _ rng: inout SplitMix64
    ) throws -> MigrationDivergence? {
        generator.begin()
        var program: [MigrationProgramStep] = []
        return try check(program: { live in
            guard program.count < length else { return nil }
            let picture = live.tables.map { t in
                (
                    schema: t.schema,
                    lastKey: t.rows.compactMap { row -> Int64? in
                        guard let k = t.schema.columns.firstIndex(where: \.isPrimaryKey), case .integer(let v) = row[k]
                        else { return nil }
                        return v
                    }.max() ?? 0
                )
            }
            let step = generator.step(after: picture, &rng)
            program.append(step)
            return step
        })
    }

    /// The steps of the program run last.
    public private(set) var lastProgram: [MigrationProgramStep] = []

    /// Runs `program` on every backend; the first disagreement, or nil.
    public func check(_ program: [MigrationProgramStep]) throws -> MigrationDivergence? {
        var steps = program.makeIterator()
        return try check(program: { _ in steps.next() })
    }

    /// Runs the steps `next` gives (from the first database's snapshot after the step before) until it gives nil.
    private func check(program next: (Snapshot) -> MigrationProgramStep?) throws -> MigrationDivergence? {
        for side in sides { try reset(side) }
        var migrations: [Migration] = []
        var live = Snapshot()
        var program: [MigrationProgramStep] = []
        var i = -1
        defer { lastProgram = program }
        while var step = next(live) {
            i += 1
            program.append(step)
            if case .insert(let table, let columns, let values) = step {
                step = Self.fitted(table, columns, values, to: live)
            }
            if case .migrate(let name, let changes, let down, let transform) = step {
                var up = changes.map { MigrationOperation.schema($0) }
                if let transform { up.insert(transform.transform.operation, at: min(transform.position, up.count)) }
                migrations.append(Migration(name, up: up, down: down.map { $0.map { .schema($0) } }))
            }
            var outcomes: [String] = []
            var messages: [String] = []
            var snapshots: [Snapshot] = []
            for side in sides {
                let (outcome, message) = run(step, migrations: migrations, on: side)
                outcomes.append(outcome)
                messages.append(message)
                snapshots.append(try snapshot(side))
            }
            steps += 1
            count(step, refused: !outcomes[0].hasPrefix("done"))
            // A call that threw and changed its model is wrong on its own, whatever the others did.
            if let k = outcomes.firstIndex(of: "divergence") {
                return MigrationDivergence(program: program, step: i, details: "\(sides[k].name): \(messages[k])")
            }
            let first = snapshots[0]
            live = first
            for k in sides.indices.dropFirst() {
                let reported = sides[k].reported
                let expected = first.lines(reported: { reported[$0] ?? $0 }, decoding: first)
                let got = snapshots[k].lines(reported: { $0 }, decoding: first)
                guard outcomes[k] != outcomes[0] || got != expected else { continue }
                return MigrationDivergence(
                    program: program, step: i,
                    details: Self.details(
                        sides[0].name, messages[0], expected, sides[k].name, messages[k], got))
            }
        }
        return nil
    }

    /// The shortest program found by dropping steps of `failure`'s program while the backends still disagree (at
    /// most `attempts` runs).
    public func shrink(_ failure: MigrationDivergence, attempts: Int = 150) throws -> MigrationDivergence {
        var best = failure
        var tries = 0
        var changed = true
        while changed && tries < attempts {
            changed = false
            var i = best.program.count - 1
            while i >= 0 && tries < attempts {
                var candidate = best.program
                candidate.remove(at: i)
                tries += 1
                if let found = try check(candidate) {
                    best = found
                    changed = true
                    i = min(i, best.program.count) - 1
                } else {
                    i -= 1
                }
            }
        }
        return best
    }

    /// An insert of the values that fit the reference's live table: a column it lacks, or a value of another type than
    /// its column's, is left out (a model writes its own columns, each value of its type; a row that breaks several
    /// constraints at once is refused for any one of them, which backends pick differently).
    static func fitted(_ table: String, _ columns: [String], _ values: [DatabaseValue], to live: Snapshot)
        -> MigrationProgramStep
    {
        guard let schema = live.tables.first(where: { $0.schema.name == table })?.schema else {
            return .insert(table: table, columns: columns, values: values)
        }
        var kept: (columns: [String], values: [DatabaseValue]) = ([], [])
        for (c, v) in zip(columns, values) {
            guard let type = schema.column(named: c)?.type else { continue }
            let fits: Bool
            switch (type, v) {
            case (_, .null), (.integer, .integer), (.double, .double), (.text, .text), (.bool, .bool),
                (.decimal, .decimal), (.date, .date):
                fits = true
            default: fits = false
            }
            if fits {
                kept.columns.append(c)
                kept.values.append(v)
            }
        }
        return .insert(table: table, columns: kept.columns, values: kept.values)
    }

    private func count(_ step: MigrationProgramStep, refused: Bool) {
        var kinds: [String]
        switch step {
        case .insert: kinds = ["insert"]
        case .revert: kinds = ["revert"]
        case .dropTables(_, let statement): kinds = [statement ? "DROP TABLE" : "dropTables"]
        case .automatic: kinds = ["automatic"]
        case .migrate(_, let changes, _, let transform):
            kinds = changes.map { Self.kind($0) } + (transform.map { [Self.kind($0.transform)] } ?? [])
        case .model(let write): kinds = [Self.kind(write)]
        case .automaticModel(let model): kinds = ["automatic \(model.rawValue)"]
        }
        for k in kinds {
            let c = census[k] ?? (0, 0)
            census[k] = (c.ran + 1, c.refused + (refused ? 1 : 0))
        }
    }

    /// A change's kind, for the census.
    static func kind(_ change: SchemaChange) -> String {
        switch change {
        case .createTable: return "createTable"
        case .dropTable: return "dropTable"
        case .renameTable: return "renameTable"
        case .addColumn: return "addColumn"
        case .dropColumn: return "dropColumn"
        case .renameColumn: return "renameColumn"
        case .alterColumn: return "alterColumn"
        case .addIndex: return "addIndex"
        case .dropIndex: return "dropIndex"
        case .addForeignKey: return "addForeignKey"
        case .dropForeignKey: return "dropForeignKey"
        case .setDefault: return "setDefault"
        case .setDatabaseDefault: return "setDatabaseDefault"
        }
    }

    /// A transform's kind, for the census.
    static func kind(_ transform: MigrationTransform) -> String {
        switch transform {
        case .update: return "transform update"
        case .itemsSaved: return "transform MPItem saves"
        case .itemsUpdated: return "transform MPItem update"
        case .itemsDeleted: return "transform MPItem delete"
        case .itemInserted: return "transform MPItem insert"
        case .fail: return "transform throws"
        }
    }

    /// A model write's kind, for the census.
    static func kind(_ write: MigrationModelWrite) -> String {
        switch write {
        case .save: return "MPItem save"
        case .adjust: return "MPItem adjust"
        case .delete: return "MPItem delete"
        case .saveTag: return "MPTag save"
        case .insertTags: return "MPTag insertAll"
        case .upsertTag: return "MPTag upsert"
        case .loadTags: return "MPTag load"
        case .rename: return "MPItem bulk update"
        case .fetchAll: return "MPItem fetch"
        }
    }

    // MARK: - One backend

    /// Drops the program's tables and the migration log: the tables together through `Transaction.dropTables` (one
    /// step, SQLite's foreign keys off, those no other references first, the keys of a cycle before its tables).
    private func reset(_ side: Side) throws {
        try side.db.readSync { tx in
            try tx.dropTables(try tx.introspect().tables.map(\.name).filter { $0.hasPrefix("mp_") })
            _ = try tx.execute(.dropTable("strata_migrations"))
        }
    }

    /// Runs one step: `done`, or the error's case; and the error's text.
    private func run(_ step: MigrationProgramStep, migrations: [Migration], on side: Side) -> (String, String) {
        do {
            switch step {
            case .migrate:
                guard let last = migrations.last else { return ("done", "done") }
                try side.db.readSync { tx in _ = try tx.migrate([last]) }
            case .insert(let table, let columns, let values):
                let insert = Insert(table: table, columns: columns, rows: [values], explicitKey: "id")
                try side.db.writeSync { tx in _ = try tx.execute(.insert(insert)) }
            case .revert:
                try side.db.readSync { tx in _ = try tx.revert(migrations) }
            case .automatic(let schema):
                try side.db.writeSync { tx in try tx.migrate(schema, policy: .automatic) }
            case .automaticModel(let model):
                try side.db.writeSync { tx in try tx.migrate([model.type], policy: .automatic) }
            case .model(let write):
                let done = try side.db.writeSync { tx in try write.run(tx) }
                return ("done: " + done, "done: " + done)
            case .dropTables(let tables, let statement):
                try side.db.readSync { tx in
                    if statement {
                        for table in tables { _ = try tx.execute(.dropTable(table)) }
                    } else {
                        try tx.dropTables(tables)
                    }
                }
            }
            return ("done", "done")
        } catch {
            return (QueryOutcome.kind(of: error), "\(QueryOutcome.kind(of: error)): \(error)")
        }
    }

    /// What one database holds: its `mp_*` tables, each with its rows as read, and the migration log's names.
    struct Snapshot {
        struct Table {
            let schema: TableSchema
            let rows: [[DatabaseValue]]
        }
        var tables: [Table] = []
        var applied: [String]?

        /// The type of `column` of `table`, if this snapshot has it.
        func type(of column: String, in table: String) -> ColumnType? {
            tables.first { $0.schema.name == table }?.schema.column(named: column)?.type
        }

        /// Its lines. A column's type goes through `reported` (what the other database's introspection reports for a
        /// column declared with it); values decode by `decoding`'s type of the column where it has the column, else
        /// by this snapshot's own.
        func lines(reported: (ColumnType) -> ColumnType, decoding: Snapshot) -> [String] {
            var lines: [String] = []
            for table in tables {
                let t = table.schema
                lines.append("table \(t.name)")
                let order = t.columns.indices.sorted { t.columns[$0].name < t.columns[$1].name }
                let types = t.columns.map { decoding.type(of: $0.name, in: t.name) ?? $0.type }
                for i in order {
                    let c = t.columns[i]
                    var line = "  column \(c.name) \(reported(c.type).rawValue)"
                    if c.isPrimaryKey { line += " key" } else if !c.isNullable { line += " not null" }
                    if let d = c.schemaDefault { line += " default \(CanonicalValue(d, type: types[i]))" }
                    if let e = c.defaultExpression { line += " default expression \(e)" }
                    lines.append(line)
                }
                for i in t.indexes.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
                    lines.append(
                        "  \(i.isUnique ? "unique " : "")index \(i.name ?? "?") (\(i.columns.joined(separator: ", ")))")
                }
                for k in t.foreignKeys.sorted(by: { $0.columns.lexicographicallyPrecedes($1.columns) }) {
                    lines.append(
                        "  foreign key (\(k.columns.joined(separator: ", "))) references \(k.referencedTable) "
                            + "(\(k.referencedColumns.joined(separator: ", "))) on delete \(k.onDelete.rawValue)")
                }
                for row in table.rows {
                    lines.append(
                        "  row " + order.map { "\(CanonicalValue(row[$0], type: types[$0]))" }.joined(separator: " | "))
                }
            }
            if let applied { lines.append("applied " + applied.joined(separator: ", ")) }
            return lines
        }
    }

    /// What the database holds.
    private func snapshot(_ side: Side) throws -> Snapshot {
        try side.db.readSync { tx in
            var snapshot = Snapshot()
            let schema = try tx.introspect()
            for table in schema.tables where table.name.hasPrefix("mp_") {
                let select = Select(
                    table: table.name, selection: .columns(table.columns.map(\.name)),
                    order: table.column(named: "id") == nil ? [] : [Ordering("id")])
                var rows: [[DatabaseValue]] = []
                _ = try tx.execute(.select(select)) { reader in
                    rows.append(table.columns.indices.map { reader.value(at: $0) })
                }
                snapshot.tables.append(Snapshot.Table(schema: table, rows: rows))
            }
            if schema.tables.contains(where: { $0.name == "strata_migrations" }) {
                var applied: [String] = []
                let log = Select(table: "strata_migrations", selection: .columns(["name"]), order: [Ordering("name")])
                _ = try tx.execute(.select(log)) { reader in applied.append(reader.value(at: 0).summary) }
                snapshot.applied = applied
            }
            return snapshot
        }
    }

    /// What each database's introspection reports for a column declared with each type (SQLite's reads a date
    /// column back as text, for one): a table of one column of each type, created, read and dropped.
    private func probeTypes(_ side: Side) throws -> [ColumnType: ColumnType] {
        try side.db.readSync { tx in
            let types = ColumnType.allCases
            let columns = types.map { TableColumn(name: "c_\($0.rawValue)", type: $0, isNullable: true) }
            let key = TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true)
            _ = try tx.execute(.dropTable("mp_probe"))
            try tx.apply(.createTable(TableSchema(name: "mp_probe", columns: [key] + columns)))
            let live = try tx.introspect()[table: "mp_probe"]
            _ = try tx.execute(.dropTable("mp_probe"))
            var reported: [ColumnType: ColumnType] = [:]
            for t in types { reported[t] = live?.column(named: "c_\(t.rawValue)")?.type ?? t }
            return reported
        }
    }

    /// The two backends' outcomes, and the lines of each snapshot the other lacks.
    private static func details(
        _ a: String, _ outcomeA: String, _ linesA: [String], _ b: String, _ outcomeB: String, _ linesB: [String]
    ) -> String {
        var out = ["\(a): \(outcomeA)", "\(b): \(outcomeB)"]
        if linesA != linesB {
            let onlyA = linesA.filter { !linesB.contains($0) }
            let onlyB = linesB.filter { !linesA.contains($0) }
            out.append("only on \(a):")
            out += onlyA.prefix(30).map { "  " + $0 }
            out.append("only on \(b):")
            out += onlyB.prefix(30).map { "  " + $0 }
            if onlyA.isEmpty && onlyB.isEmpty { out.append("  (the same lines in another order)") }
        }
        return out.joined(separator: "\n")
    }
}
