// MigrationProgram: a seeded program of versioned migration steps (schema changes over tables mp_*) and the rows
// written between them, and its text.
import Foundation
import Strata

/// One step of a migration program.
public enum MigrationProgramStep: Sendable, CustomStringConvertible {
    /// A versioned step (``Migration``) named `name` whose `up` makes `changes`, in order, in one transaction (with
    /// `transform`, when there is one, run before the change at its position); `down`, when there is one, undoes them.
    case migrate(name: String, changes: [SchemaChange], down: [SchemaChange]?, transform: PlacedTransform? = nil)
    /// A row written to `table`, with its key given: each column by name and value.
    case insert(table: String, columns: [String], values: [DatabaseValue])
    /// `revert` of the last applied step of the program's steps so far: its `down` runs, or it is
    /// `irreversibleMigration` when it has none.
    case revert
    /// Tables dropped outside a migration step: `Transaction.dropTables` of `tables` together, or with `statement`
    /// one `DROP TABLE` statement of the one table (refused on every backend while another table references it).
    case dropTables([String], statement: Bool)
    /// An automatic migration of one table (`Transaction.migrate(_:policy:)` of a schema): the table created when
    /// missing, its missing columns added (filled with their defaults) when not.
    case automatic(TableSchema)
    /// A write or read through ``MPItem`` or ``MPTag``, in a transaction of its own.
    case model(MigrationModelWrite)
    /// An automatic migration of a model (`Transaction.migrate(_:policy:)`): its table (and its referenced tables)
    /// created when missing, its missing columns added when not.
    case automaticModel(MigrationModel)

    public var description: String {
        switch self {
        case .migrate(let name, let changes, let down, let transform):
            var up = changes.map(\.description)
            if let transform { up.insert(transform.transform.description, at: min(transform.position, up.count)) }
            let text = "migrate \(name): " + up.joined(separator: "; ")
            return text + (down.map { " (down: " + $0.map(\.description).joined(separator: "; ") + ")" } ?? "")
        case .insert(let table, let columns, let values):
            let pairs = zip(columns, values).map { "\($0) = \($1.summary)" }
            return "insert into \(table): " + pairs.joined(separator: ", ")
        case .revert:
            return "revert the last applied step"
        case .dropTables(let tables, let statement):
            return (statement ? "DROP TABLE " : "drop tables ") + tables.joined(separator: ", ")
        case .automatic(let schema):
            return "migrate automatically " + SchemaChange.createTable(schema).description
        case .model(let write):
            return write.description
        case .automaticModel(let model):
            return "migrate \(model.rawValue) automatically"
        }
    }
}

/// A data transform and where it runs among its step's changes: before the change at `position` (after the last when
/// `position` is their count).
public struct PlacedTransform: Sendable {
    public var position: Int
    public var transform: MigrationTransform

    public init(position: Int, _ transform: MigrationTransform) {
        self.position = position
        self.transform = transform
    }
}

/// Makes migration programs over at most three tables named `mp_t<n>`: each has an integer key `id` and a few columns
/// of integer, double, text, bool, decimal and date types, holds rows written with their keys, and goes through
/// steps that create, drop and rename tables; add, drop, rename and retype columns (with and without a fill for
/// NULLs); set defaults; add and drop indexes (unique ones too) and foreign keys.
///
/// The generator keeps its own picture of the tables as the steps it wrote would leave them. About one change in
/// six is made to fail (a NOT NULL column without a fill on rows, a retype of values that do not convert, a unique
/// index over repeated values, a foreign key to missing rows, a name that exists, a column that does not): every
/// backend must refuse it alike and keep every change of its step out. A step that fails where the generator
/// expected it to pass only makes its picture wrong, not the check: backends are compared with one another.
public struct MigrationProgramGenerator {
    struct Column {
        var name: String
        var type: ColumnType
        var nullable: Bool
    }

    struct Table {
        var name: String
        var columns: [Column]
        /// The rows' keys, 1…rows.
        var rows: Int64 = 0
        var indexes: [String] = []
        /// Columns with a foreign key.
        var keyed: [String] = []
        /// The table each of ``keyed`` references, where the generator knows it.
        var parents: [String: String] = [:]
    }

    private var tables: [Table] = []
    private var names = 0
    private var steps = 0
    /// The types a column takes.
    private let types: [ColumnType]

    /// Every type the generator knows: integer, double, text, bool, decimal and date.
    public static let allTypes: [ColumnType] = [.integer, .double, .text, .bool, .decimal, .date]

    /// A generator of columns of `types` (a subset of ``allTypes``; all of them when empty).
    public init(types: [ColumnType] = allTypes) {
        let known = types.filter { Self.allTypes.contains($0) }
        self.types = known.isEmpty ? Self.allTypes : known
    }

    /// Starts a program whose steps come one at a time from ``step(after:_:)``.
    public mutating func begin() {
        tables = []
        names = 0
        steps = 0
        applied = 0
    }

    /// Steps that may have been applied, for a revert to find one.
    private var applied = 0

    /// The next step, for tables as the reference database holds them now (`live`: its `mp_*` tables and their rows'
    /// largest keys): changes name tables, columns, rows and keys that exist, but for the ones made to fail.
    mutating func step(after live: [(schema: TableSchema, lastKey: Int64)], _ rng: inout SplitMix64)
        -> MigrationProgramStep
    {
        tables = live.map { t in
            let key = t.schema.columns.first(where: \.isPrimaryKey)?.name
            return Table(
                name: t.schema.name,
                columns: t.schema.columns.filter { $0.name != key }.map {
                    Column(name: $0.name, type: $0.type, nullable: $0.isNullable)
                },
                rows: t.lastKey,
                indexes: t.schema.indexes.compactMap(\.name),
                keyed: t.schema.foreignKeys.map(\.column),
                parents: Dictionary(
                    t.schema.foreignKeys.map { ($0.column, $0.referencedTable) }, uniquingKeysWith: { a, _ in a }))
        }
        // Fresh names go past every name the database holds.
        for t in live {
            for name in [t.schema.name] + t.schema.columns.map(\.name) + t.schema.indexes.compactMap(\.name) {
                if let n = Int(name.drop { !$0.isNumber }), n > names { names = n }
            }
        }
        let item = tables.first { $0.name == "mp_item" }
        let tag = tables.first { $0.name == "mp_tag" }
        if item == nil || tag == nil, rng.chance(0.08) {
            // A model's table, created by a versioned step as `createTable(for:)` plans it (the tags' refused while
            // the items' table they reference is missing), or by automatic migration (which creates the items' table
            // with the tags').
            let model: MigrationModel = item == nil ? (rng.chance(0.3) ? .tag : .item) : .tag
            if rng.chance(0.3) { return .automaticModel(model) }
            applied += 1
            steps += 1
            let schema = model.plannedSchema
            tables.append(
                Table(
                    name: schema.name,
                    columns: schema.columns.filter { !$0.isPrimaryKey }.map {
                        Column(name: $0.name, type: $0.type, nullable: $0.isNullable)
                    }))
            return .migrate(
                name: String(format: "m%03d", steps), changes: [.createTable(schema)], down: [.dropTable(schema.name)],
                transform: model == .item && rng.chance(0.4)
                    ? PlacedTransform(position: 1, .itemInserted(id: 1, name: "first", qty: 1)) : nil)
        }
        if item != nil || tag != nil, rng.chance(0.25) {
            if let item, tag == nil || rng.chance(0.65) { return .model(itemWrite(item, &rng)) }
            return .model(tagWrite(&rng))
        }
        if tables.isEmpty || rng.chance(0.45) {
            applied += 1
            let (name, changes, down) = migration(&rng)
            return .migrate(name: name, changes: changes, down: down, transform: placedTransform(changes, &rng))
        }
        if applied > 0 && rng.chance(0.06) {
            applied -= 1
            return .revert
        }
        if !tables.isEmpty && rng.chance(0.04) { return dropTables(&rng) }
        if rng.chance(0.06) { return automatic(&rng) }
        return insert(&rng) ?? .revert
    }

    /// An automatic migration of a new table (its key now and then between two types) or of a table there, with
    /// one or two columns more than it has (a NOT NULL one without a default on rows is refused alike).
    private mutating func automatic(_ rng: inout SplitMix64) -> MigrationProgramStep {
        if tables.isEmpty || rng.chance(0.4) {
            guard case (.createTable(var schema), _) = createTable(&rng) else { return .revert }
            if let key = schema.foreignKeys.first, rng.chance(0.15),
                let i = schema.columns.firstIndex(where: { $0.name == key.column })
            {
                schema.columns[i].type = rng.pick(types.filter { $0 != .integer } + [.text])
            }
            return .automatic(schema)
        }
        let t = rng.below(tables.count)
        var columns = [TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true)]
        columns += tables[t].columns.map { TableColumn(name: $0.name, type: $0.type, isNullable: $0.nullable) }
        for _ in 0..<(1 + rng.below(2)) {
            guard case (.addColumn(_, let c), _) = addColumn(t, &rng), !columns.contains(where: { $0.name == c.name })
            else { continue }
            columns.append(c)
        }
        return .automatic(TableSchema(name: tables[t].name, columns: columns))
    }

    /// Drops one to three tables outside a migration step (now and then one that does not exist), listed in any
    /// order, or one table by a `DROP TABLE` statement; refused while a table not listed references one of them.
    private mutating func dropTables(_ rng: inout SplitMix64) -> MigrationProgramStep {
        let statement = rng.chance(0.3)
        var names: [String] = []
        // Tables other tables reference, picked half the time: where the backends' own DROP TABLE differed.
        let referenced = tables.filter { t in
            tables.contains { $0.name != t.name && $0.parents.values.contains(t.name) }
        }
        for _ in 0..<(statement ? 1 : 1 + rng.below(3)) {
            let name =
                rng.chance(0.1)
                ? "mp_missing" : (!referenced.isEmpty && rng.chance(0.5) ? rng.pick(referenced) : rng.pick(tables)).name
            if !names.contains(name) { names.append(name) }
        }
        let refused = tables.contains { t in
            !names.contains(t.name) && t.parents.values.contains { p in names.contains(p) }
        }
        if !refused { tables.removeAll { names.contains($0.name) } }
        return .dropTables(names, statement: statement)
    }

    // MARK: - The model and transforms

    /// A write through ``MPTag``: of keys from a few, some there, some not; now and then with an item's key.
    private func tagWrite(_ rng: inout SplitMix64) -> MigrationModelWrite {
        let keys = ["a", "b", "c", "d", "e"]
        let label = rng.pick(["x", "", "é", "3"])
        let weight = rng.pick([0.5, -1, 1e20, 3])
        switch rng.below(4) {
        case 0:
            return .saveTag(
                id: rng.pick(keys), label: label, weight: weight, item: rng.chance(0.4) ? 1 + Int64(rng.below(4)) : nil)
        case 1:
            return .insertTags(
                Array(Set((0..<(1 + rng.below(3))).map { _ in rng.pick(keys) })).sorted(), label: label, weight: weight)
        case 2: return .upsertTag(id: rng.pick(keys), label: label, weight: weight)
        default:
            return .loadTags(Array(Set((0..<(1 + rng.below(3))).map { _ in rng.pick(keys) })).sorted(), label: label)
        }
    }

    /// A write through ``MPItem`` on `item` (the live `mp_item`): of a key there or just past the last.
    private func itemWrite(_ item: Table, _ rng: inout SplitMix64) -> MigrationModelWrite {
        let id = 1 + Int64(rng.below(Int(min(item.rows, 1_000)) + 2))
        let qty = rng.pick([0, 1, -1, 7, 42, -300, Int64.max, Int64.min])
        let name = rng.pick(["a", "", "é", "x y", "3", "first"])
        switch rng.below(100) {
        case 0..<25:
            return .save(id: id, name: name, qty: qty, price: rng.chance(0.3) ? nil : rng.pick([0.5, -7.25, 1e20, 3]))
        case 25..<45:
            return .adjust(id: id, by: rng.pick([1, -1, 5, 1_000, Int64.max]))
        case 45..<55:
            return .delete(id: id)
        case 55..<75:
            return .save(id: item.rows + 1, name: name, qty: qty, price: nil)
        case 75..<85:
            return .rename(below: rng.pick([0, 7, 100]), to: name)
        default:
            return .fetchAll
        }
    }

    /// Now and then a transform among a step's changes: an UPDATE of a table's column (a value of its type as the
    /// step leaves it, or now and then of another), a write through ``MPItem`` when its table is there, or an error of the app's own.
    private func placedTransform(_ changes: [SchemaChange], _ rng: inout SplitMix64) -> PlacedTransform? {
        guard rng.chance(0.3) else { return nil }
        let position = rng.below(changes.count + 1)
        if rng.chance(0.08) { return PlacedTransform(position: position, .fail) }
        if let item = tables.first(where: { $0.name == "mp_item" }), rng.chance(0.6) {
            let qty = rng.pick([0, 1, 7, 42, -300, Int64.max])
            switch rng.below(4) {
            case 0: return PlacedTransform(position: position, .itemsSaved(by: rng.pick([1, -1, 1_000, Int64.max])))
            case 1: return PlacedTransform(position: position, .itemsUpdated(atLeast: rng.pick([0, 7, 42]), qty: qty))
            case 2: return PlacedTransform(position: position, .itemsDeleted(atLeast: rng.pick([0, 7, 42])))
            default:
                return PlacedTransform(
                    position: position, .itemInserted(id: item.rows + 1 + Int64(rng.below(2)), name: "t", qty: qty))
            }
        }
        guard let t = tables.isEmpty ? nil : rng.pick(tables), let c = t.columns.isEmpty ? nil : rng.pick(t.columns)
        else { return nil }
        let value: DatabaseValue =
            c.nullable && rng.chance(0.2) ? .null : Self.value(rng.chance(0.1) ? rng.pick(types) : c.type, &rng)
        let keys: Int64? = rng.chance(0.5) ? Int64(rng.below(Int(min(t.rows, 1_000)) + 1)) : nil
        return PlacedTransform(position: position, .update(table: t.name, column: c.name, value: value, keysUpTo: keys))
    }

    /// A program of `length` steps, written for the tables as the generator pictures them after its own steps.
    public mutating func program(length: Int, _ rng: inout SplitMix64) -> [MigrationProgramStep] {
        tables = []
        names = 0
        steps = 0
        var program: [MigrationProgramStep] = []
        // The picture before each step written, for a revert to go back to.
        var before: [[Table]] = []
        for _ in 0..<length {
            if tables.isEmpty || rng.chance(0.45) {
                before.append(tables)
                let (name, changes, down) = migration(&rng)
                program.append(.migrate(name: name, changes: changes, down: down))
            } else if !before.isEmpty && rng.chance(0.06) {
                program.append(.revert)
                tables = before.removeLast()
            } else if !tables.isEmpty && rng.chance(0.04) {
                program.append(dropTables(&rng))
            } else if rng.chance(0.06) {
                program.append(automatic(&rng))
            } else if let insert = insert(&rng) {
                program.append(insert)
            }
        }
        return program
    }

    private mutating func fresh(_ prefix: String) -> String {
        names += 1
        return "\(prefix)\(names)"
    }

    // MARK: - Values

    /// A value of `type`: the edges a conversion meets (integers past 2^53, fractions, signs, texts that read as
    /// numbers, dates and booleans, and texts that do not).
    static func value(_ type: ColumnType, _ rng: inout SplitMix64) -> DatabaseValue {
        switch type {
        case .integer:
            return .integer(
                rng.pick([0, 1, -1, 2, 7, 42, -300, 9_007_199_254_740_993, Int64.max, Int64.min, 1_000_000]))
        case .double:
            return .double(rng.pick([0, 1, -1, 0.5, 2.5, -7.25, 3, 1e15, 1e20, -0.0, 9_007_199_254_740_992, 1e-7]))
        case .text:
            return .text(
                rng.pick([
                    "", "abc", "3", "-7", "2.5", " 4", "1e3", "true", "false", "0", "1", "é", "2024-02-29",
                    "2024-02-29T10:20:30Z", "9223372036854775808", "12.50", "NaN", "0x10", "yes",
                ]))
        case .bool:
            return .bool(rng.chance(0.5))
        case .decimal:
            let text = rng.pick(["0", "1.25", "-3", "2.5", "1000000.001", "12345678901234567.5"])
            return Decimal(string: text).map(DatabaseValue.decimal) ?? .null
        case .date:
            return .date(Date(timeIntervalSince1970: rng.pick([0, 86_400, 1_709_201_230, -86_400, 1_709_201_230.5])))
        default:
            return .null
        }
    }

    /// A row's value for `column`: NULL now and then where it may be.
    private static func rowValue(_ column: Column, _ rng: inout SplitMix64) -> DatabaseValue {
        if column.nullable && rng.chance(0.2) { return .null }
        return value(column.type, &rng)
    }

    // MARK: - Rows

    private mutating func insert(_ rng: inout SplitMix64) -> MigrationProgramStep? {
        guard !tables.isEmpty else { return nil }
        let t = rng.below(tables.count)
        tables[t].rows += 1
        var columns = ["id"]
        var values: [DatabaseValue] = [.integer(tables[t].rows)]
        for c in tables[t].columns {
            if tables[t].keyed.contains(c.name) {
                // A key column points at a row of its parent that is there (the parent's keys run 1…rows), or now
                // and then at one that is not (99).
                let rows = tables[t].parents[c.name].flatMap { p in tables.first { $0.name == p }?.rows } ?? 3
                columns.append(c.name)
                let present = rows > 0 && rng.chance(0.9)
                values.append(
                    c.nullable && rng.chance(0.3) ? .null : .integer(present ? 1 + Int64(rng.below(Int(rows))) : 99))
                continue
            }
            if c.nullable && rng.chance(0.2) { continue }  // left to its default
            columns.append(c.name)
            values.append(Self.rowValue(c, &rng))
        }
        return .insert(table: tables[t].name, columns: columns, values: values)
    }

    // MARK: - Schema changes

    /// A step of one to three changes, and, now and then, its `down`.
    private mutating func migration(_ rng: inout SplitMix64) -> (String, [SchemaChange], [SchemaChange]?) {
        steps += 1
        let name = String(format: "m%03d", steps)
        var changes: [SchemaChange] = []
        var down: [SchemaChange] = []
        var invertible = true
        let count = tables.isEmpty ? 1 : 1 + rng.below(3)
        for _ in 0..<count {
            var made = [self.change(&rng)]
            // A fresh nullable integer column, now and then made a foreign key in the same step: its NULLs reference
            // nothing, so the key holds (a key added to a column of values rarely does).
            if case .addColumn(let table, let c)? = made.first?.0, c.type == .integer, c.isNullable, c.backfill == nil,
                let t = tables.firstIndex(where: { $0.name == table }), rng.chance(0.6)
            {
                made.append(addForeignKey(t, column: c.name, &rng))
            }
            for (change, inverse) in made {
                changes.append(change)
                if let inverse { down.insert(inverse, at: 0) } else { invertible = false }
            }
        }
        return (name, changes, invertible && rng.chance(0.6) ? down : nil)
    }

    /// One change and its inverse, where the generator knows one.
    private mutating func change(_ rng: inout SplitMix64) -> (SchemaChange, SchemaChange?) {
        if tables.isEmpty || (tables.count < 3 && rng.chance(0.12)) { return createTable(&rng) }
        let t = rng.below(tables.count)
        let table = tables[t]
        let roll = rng.below(100)
        switch roll {
        case 0..<4:
            tables.remove(at: t)
            return (.dropTable(table.name), nil)
        case 4..<8:
            let to = rng.chance(0.1) ? rng.pick(tables).name : fresh("mp_t")
            if to != table.name && !tables.contains(where: { $0.name == to }) {
                tables[t].name = to
            }
            return (.renameTable(table.name, to: to), .renameTable(to, to: table.name))
        case 8..<28:
            return addColumn(t, &rng)
        case 28..<34:
            guard let c = pickColumn(t, &rng) else { return addColumn(t, &rng) }
            tables[t].columns.removeAll { $0.name == c.name }
            tables[t].keyed.removeAll { $0 == c.name }
            return (.dropColumn(table: table.name, column: c.name), nil)
        case 34..<40:
            guard let c = pickColumn(t, &rng) else { return addColumn(t, &rng) }
            let to = rng.chance(0.1) ? (table.columns.first { $0.name != c.name }?.name ?? "id") : fresh("c")
            if let i = tables[t].columns.firstIndex(where: { $0.name == c.name }),
                !table.columns.contains(where: { $0.name == to }), to != "id"
            {
                tables[t].columns[i].name = to
                tables[t].keyed = tables[t].keyed.map { $0 == c.name ? to : $0 }
            }
            return (
                .renameColumn(table: table.name, column: c.name, to: to),
                .renameColumn(table: table.name, column: to, to: c.name)
            )
        case 40..<62:
            return alterColumn(t, &rng)
        case 62..<70:
            guard let c = pickColumn(t, &rng) else { return addColumn(t, &rng) }
            let value: DatabaseValue? =
                rng.chance(0.2) ? nil : Self.value(rng.chance(0.85) ? c.type : rng.pick(types), &rng)
            return (.setDefault(table: table.name, column: c.name, to: value), nil)
        case 70..<84:
            return addIndex(t, &rng)
        case 84..<88:
            guard let index = table.indexes.isEmpty ? nil : rng.pick(table.indexes) else { return addIndex(t, &rng) }
            tables[t].indexes.removeAll { $0 == index }
            return (.dropIndex(table: table.name, name: index), nil)
        case 88..<96:
            return addForeignKey(t, &rng)
        default:
            guard let keyed = table.keyed.isEmpty ? nil : rng.pick(table.keyed) else { return addForeignKey(t, &rng) }
            tables[t].keyed.removeAll { $0 == keyed }
            return (.dropForeignKey(table: table.name, column: keyed), nil)
        }
    }

    /// A column other than the key, or now and then one that does not exist.
    private mutating func pickColumn(_ t: Int, _ rng: inout SplitMix64) -> Column? {
        if rng.chance(0.04) { return Column(name: "missing", type: .integer, nullable: true) }
        return tables[t].columns.isEmpty ? nil : rng.pick(tables[t].columns)
    }

    private mutating func createTable(_ rng: inout SplitMix64) -> (SchemaChange, SchemaChange?) {
        let name = rng.chance(0.05) && !tables.isEmpty ? rng.pick(tables).name : fresh("mp_t")
        var columns = [TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true)]
        var picture: [Column] = []
        for _ in 0..<(1 + rng.below(3)) {
            let c = Column(name: fresh("c"), type: rng.pick(types), nullable: rng.chance(0.5))
            let d: DatabaseValue? = rng.chance(0.3) ? Self.value(c.type, &rng) : nil
            columns.append(TableColumn(name: c.name, type: c.type, isNullable: c.nullable, schemaDefault: d))
            picture.append(c)
        }
        var keys: [ForeignKey] = []
        var keyed: [String] = []
        var parents: [String: String] = [:]
        if let parent = tables.isEmpty ? nil : rng.pick(tables), rng.chance(0.35) {
            let c = Column(name: fresh("c"), type: .integer, nullable: rng.chance(0.6))
            columns.append(TableColumn(name: c.name, type: .integer, isNullable: c.nullable))
            picture.append(c)
            let action = rng.pick([ForeignKey.Action.noAction, .cascade, .setNull, .restrict])
            keys.append(ForeignKey(column: c.name, references: parent.name, onDelete: c.nullable ? action : .cascade))
            keyed.append(c.name)
            parents[c.name] = parent.name
        }
        if !tables.contains(where: { $0.name == name }) {
            tables.append(Table(name: name, columns: picture, keyed: keyed, parents: parents))
        }
        return (.createTable(TableSchema(name: name, columns: columns, foreignKeys: keys)), .dropTable(name))
    }

    private mutating func addColumn(_ t: Int, _ rng: inout SplitMix64) -> (SchemaChange, SchemaChange?) {
        let table = tables[t]
        let name = rng.chance(0.05) ? (table.columns.first?.name ?? "id") : fresh("c")
        let type = rng.pick(types)
        let nullable = rng.chance(0.5)
        let schemaDefault: DatabaseValue? = rng.chance(0.4) ? Self.value(type, &rng) : nil
        // Rows there need a fill for a NOT NULL column; leaving it out now and then is refused alike.
        let fill: DatabaseValue? =
            !nullable && schemaDefault == nil && (table.rows > 0 ? rng.chance(0.85) : rng.chance(0.3))
            ? Self.value(type, &rng) : (rng.chance(0.2) ? Self.value(type, &rng) : nil)
        var column = TableColumn(name: name, type: type, isNullable: nullable, schemaDefault: schemaDefault)
        column.backfill = fill ?? schemaDefault
        if !table.columns.contains(where: { $0.name == name }) && name != "id" {
            tables[t].columns.append(Column(name: name, type: type, nullable: nullable))
        }
        return (.addColumn(table: table.name, column), .dropColumn(table: table.name, column: name))
    }

    private mutating func alterColumn(_ t: Int, _ rng: inout SplitMix64) -> (SchemaChange, SchemaChange?) {
        guard let c = pickColumn(t, &rng) else { return addColumn(t, &rng) }
        let table = tables[t]
        let type = rng.chance(0.8) ? rng.pick(types) : c.type
        let nullable = rng.chance(0.5)
        let fill: DatabaseValue? = !nullable && rng.chance(0.7) ? Self.value(type, &rng) : nil
        if let i = tables[t].columns.firstIndex(where: { $0.name == c.name }) {
            tables[t].columns[i].type = type
            tables[t].columns[i].nullable = nullable
        }
        return (
            .alterColumn(table: table.name, column: c.name, type: type, nullable: nullable, fill: fill),
            .alterColumn(table: table.name, column: c.name, type: c.type, nullable: c.nullable, fill: nil)
        )
    }

    private mutating func addIndex(_ t: Int, _ rng: inout SplitMix64) -> (SchemaChange, SchemaChange?) {
        let table = tables[t]
        let candidates = table.columns.map(\.name) + (rng.chance(0.05) ? ["missing"] : [])
        guard !candidates.isEmpty else { return addColumn(t, &rng) }
        var columns = [rng.pick(candidates)]
        if rng.chance(0.3), let second = candidates.first(where: { $0 != columns[0] }) { columns.append(second) }
        let unique = rng.chance(0.4)
        let name = rng.chance(0.1) && !table.indexes.isEmpty ? rng.pick(table.indexes) : fresh("ix")
        if !table.indexes.contains(name) { tables[t].indexes.append(name) }
        return (
            .addIndex(table: table.name, Index(columns: columns, unique: unique, name: name)),
            .dropIndex(table: table.name, name: name)
        )
    }

    private mutating func addForeignKey(_ t: Int, column: String? = nil, _ rng: inout SplitMix64)
        -> (SchemaChange, SchemaChange?)
    {
        let table = tables[t]
        let integers = table.columns.filter {
            $0.type == .integer && !table.keyed.contains($0.name) && (column == nil || $0.name == column)
        }
        guard let c = integers.isEmpty ? nil : rng.pick(integers), let parent = tables.isEmpty ? nil : rng.pick(tables)
        else { return addColumn(t, &rng) }
        tables[t].parents[c.name] = parent.name
        tables[t].keyed.append(c.name)
        let action = c.nullable ? rng.pick([ForeignKey.Action.noAction, .cascade, .setNull]) : .cascade
        return (
            .addForeignKey(table: table.name, ForeignKey(column: c.name, references: parent.name, onDelete: action)),
            .dropForeignKey(table: table.name, column: c.name)
        )
    }
}
