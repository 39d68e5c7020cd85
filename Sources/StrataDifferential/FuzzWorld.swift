// FuzzWorld: a generated schema (a parent table and a child with a foreign key) and its rows.
import Strata

/// The tables of one generated batch, parent first, each with the rows it starts with.
public struct FuzzWorld: Sendable, Hashable {
    /// One table: its schema, its secondary indexes and its rows.
    public struct Table: Sendable, Hashable {
        /// The table (its indexes are created apart).
        public var schema: TableSchema
        /// Its unique and plain indexes.
        public var indexes: [Index]
        /// Values for ``TableSchema/insertColumnNames`` (everything but the id), one array per row.
        public var rows: [[DatabaseValue]]

        /// The table's name.
        public var name: String { schema.name }
    }

    /// The parent table, then the child.
    public var tables: [Table]

    /// The parent table's name.
    public static let parent = "fz_parent"
    /// The child table's name; its `parent_id` references the parent's id.
    public static let child = "fz_child"
    /// The alias a joined table goes by.
    public static let joinAlias = "j"

    /// The table with this name.
    public func table(_ name: String) -> Table? { tables.first { $0.name == name } }

    /// The statements that build the world from nothing: drops, creates, indexes, one INSERT per table.
    public var setup: [Statement] {
        var out: [Statement] = tables.reversed().map { .dropTable($0.name) }
        for t in tables {
            out.append(.createTable(t.schema))
            for index in t.indexes { out.append(.createIndex(table: t.name, index)) }
            if !t.rows.isEmpty {
                out.append(
                    .insert(Insert(table: t.name, columns: t.schema.insertColumnNames, rows: t.rows, returning: "id")))
            }
        }
        return out
    }

    /// The statements that remove the world.
    public var teardown: [Statement] { tables.reversed().map { .dropTable($0.name) } }
}

extension FuzzWorld {
    /// A random world: each table has an id, two to seven columns of random types (nullable or not), at
    /// most one unique index and one plain index; the child's `parent_id` references the parent.
    static func generate(_ rng: inout SplitMix64, values: EdgeValues) -> FuzzWorld {
        let parent = table(FuzzWorld.parent, rows: rng.below(14), parentCount: nil, &rng, values)
        let child = table(FuzzWorld.child, rows: rng.below(18), parentCount: parent.rows.count, &rng, values)
        return FuzzWorld(tables: [parent, child])
    }

    private static func table(
        _ name: String, rows count: Int, parentCount: Int?, _ rng: inout SplitMix64, _ values: EdgeValues
    ) -> Table {
        var columns = [TableColumn(name: "id", type: .integer, isNullable: false, isPrimaryKey: true)]
        var foreignKeys: [ForeignKey] = []
        if parentCount != nil {
            columns.append(TableColumn(name: "parent_id", type: .integer, isNullable: true))
            foreignKeys.append(ForeignKey(column: "parent_id", references: FuzzWorld.parent))
        }
        for n in 0..<(2 + rng.below(6)) {
            let type = rng.pick(ColumnType.allCases)
            columns.append(TableColumn(name: "\(type.rawValue)_\(n)", type: type, isNullable: rng.chance(0.6)))
        }
        // A stored generated column over the first integer column, when the table has an even number of columns
        // (decided without the random stream, so a seed's values stay what they were): `x % 7` never overflows.
        if columns.count % 2 == 0,
            let source = columns.first(where: { !$0.isPrimaryKey && $0.name != "parent_id" && $0.type == .integer })
        {
            columns.append(
                TableColumn(name: "gen_\(columns.count)", type: .integer, isNullable: true)
                    .generated(as: .arithmetic(.remainder, .column(source.name), .value(.integer(7)))))
        }
        var indexes: [Index] = []
        let indexable = columns.filter { !$0.isPrimaryKey && $0.type != .json && $0.type != .bool }
        var unique: String?
        let uniqueable = indexable.filter { $0.name != "parent_id" && !$0.isGenerated }
        if !uniqueable.isEmpty, rng.chance(0.5) {
            let c = rng.pick(uniqueable).name
            unique = c
            indexes.append(Index(columns: [c], unique: true))
        }
        if !indexable.isEmpty, rng.chance(0.5) {
            let c = rng.pick(indexable).name
            if c != unique { indexes.append(Index(columns: [c])) }
        }
        let schema = TableSchema(name: name, columns: columns, foreignKeys: foreignKeys)
        var rows: [[DatabaseValue]] = []
        var seen = Set<CanonicalValue>()
        for _ in 0..<count {
            var row: [DatabaseValue] = []
            var duplicate = false
            for c in columns where !c.isPrimaryKey && !c.isGenerated {
                var v: DatabaseValue
                if c.name == "parent_id", let parents = parentCount {
                    v = parents == 0 || rng.chance(0.2) ? .null : .integer(Int64(1 + rng.below(parents)))
                } else if c.isNullable && rng.chance(0.15) {
                    v = .null
                } else {
                    v = values.value(c.type, &rng)
                }
                if c.name == unique, !v.isNull {
                    var tries = 0
                    while seen.contains(CanonicalValue(v, type: c.type).uniquenessKey), tries < 20 {
                        v = values.value(c.type, &rng)
                        tries += 1
                    }
                    let key = CanonicalValue(v, type: c.type).uniquenessKey
                    if seen.contains(key) { duplicate = true }
                    seen.insert(key)
                }
                row.append(v)
            }
            if !duplicate { rows.append(row) }
        }
        return Table(schema: schema, indexes: indexes, rows: rows)
    }
}
