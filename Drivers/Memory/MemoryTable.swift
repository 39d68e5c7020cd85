// MemoryTable: one table's columns, rows in insertion order, primary-key map and unique indexes.
import Strata

/// A table of the memory store: a value type, so a copy (an undo snapshot) is cheap until one side changes.
///
/// Rows live in *slots* in insertion order; deleting leaves an empty slot (an empty array: every
/// table has a column, so no row is empty) that a later ``compact()`` removes, so slot numbers stay
/// valid while an undo journal refers to them. Empty arrays rather than optionals let scans pass each
/// row straight from storage to the evaluator without copying it.
struct MemoryTable: Sendable {
    let name: String
    private(set) var columns: [TableColumn]
    /// Whether a column has a database default (``TableColumn/databaseDefault``), which an INSERT omitting it fills.
    private(set) var hasDatabaseDefaults = false
    private(set) var positions: [String: Int]
    /// The position of the integer primary key, if the table has one.
    let primaryKey: Int?
    /// Rows by slot; an empty array is a deleted row.
    private(set) var slots: [[DatabaseValue]] = []
    private(set) var liveCount = 0
    /// Primary key → slot.
    private(set) var slotByID = SlotMap()
    /// The largest id ever inserted; auto-assigned ids continue after it, so ids are never reused.
    var lastID: Int64 = 0
    private(set) var indexes: [MemoryIndex] = []
    /// The indexes on JSON paths (see ``MemoryPathIndex``); a table rebuilt by a schema change keeps none.
    private(set) var pathIndexes: [MemoryPathIndex] = []
    /// The inverted indexes of search document columns, built by the first `match` on each (see
    /// ``MemorySearchIndex``).
    private(set) var searchIndexes: [MemorySearchIndex] = []
    /// How the last INSERT's columns mapped onto the table's, for the next one naming the same columns.
    var insertPlan: InsertPlan?
    /// The table's foreign keys, each from one of its columns to a column of another (or this) table.
    let foreignKeys: [MemoryForeignKey]

    /// A column's DEFAULT as the table keeps it: a negative zero is 0.0, as every driver stores and binds a double
    /// (`Double.databaseValue`; SQLite cannot keep the sign), and as the rows that take it hold it.
    static func storedDefault(_ value: DatabaseValue?) -> DatabaseValue? {
        isNegativeZero(value) ? .double(0) : value
    }

    /// Whether `value` is a double's negative zero.
    private static func isNegativeZero(_ value: DatabaseValue?) -> Bool {
        if case .double(let d)? = value { return d == 0 && d.sign == .minus }
        return false
    }

    /// A table for a schema.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)`` for a foreign key on a missing column.
    init(schema: TableSchema) throws(StrataError) {
        name = schema.name
        columns = schema.columns
        // Written only where it changes: a write to every column copied the array it shares with the schema.
        for i in columns.indices where Self.isNegativeZero(columns[i].schemaDefault) {
            columns[i].schemaDefault = .double(0)
        }
        hasDatabaseDefaults = columns.contains { $0.databaseDefault != nil }
        // Filled in place, last to first, so the first of a repeated name wins (a keyed init of pairs copied every
        // column out first: about 1,400 instructions a table of a fresh test database).
        positions = Self.positions(of: schema.columns)
        // An integer key is the id map's; a UUID or text key (assigned by Strata or the app) is a NOT NULL
        // column with a unique index, as `uuid`/`TEXT … NOT NULL PRIMARY KEY` is on SQL backends.
        let keyed = schema.primaryKeyIndex.map { (index: $0, isInteger: schema.columns[$0].type == .integer) }
        primaryKey = keyed?.isInteger == true ? keyed?.index : nil
        var keys: [MemoryForeignKey] = []
        for fk in schema.foreignKeys {
            var resolved: [Int] = []
            for c in fk.columns {
                guard let p = positions[c] else { throw .unknownColumn(model: schema.name, column: c) }
                resolved.append(p)
            }
            guard !resolved.isEmpty else { throw .unknownColumn(model: schema.name, column: fk.column) }
            keys.append(MemoryForeignKey(columns: resolved, definition: fk))
        }
        foreignKeys = keys
        if let keyed, !keyed.isInteger {
            columns[keyed.index].isNullable = false
            try addIndex(name: schema.name + "_pkey", columns: [columns[keyed.index].name], unique: true)
        }
        if schema.hasCompositeKey {
            // A composite key (NOT NULL columns, see ``CompositeKey``) is a unique index on its columns, as the
            // SQL backends' `PRIMARY KEY (a, b)` is.
            try addIndex(
                name: Self.compositeKeyIndexName(schema.name), columns: schema.primaryKeyColumnNames, unique: true)
        }
    }

    /// Each column's position by name, filled last to first so that the first of a repeated name wins.
    private static func positions(of columns: [TableColumn]) -> [String: Int] {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(columns.count)
        for p in columns.indices.reversed() { positions[columns[p].name] = p }
        return positions
    }

    /// The name of the unique index that holds a composite key: `<table>_pkey`, as PostgreSQL names the key.
    static func compositeKeyIndexName(_ table: String) -> String { table + "_pkey" }

    /// A table of rows computed by a statement (a set operation's combined rows), with no keys or indexes.
    ///
    /// - Parameters:
    ///   - name: the name errors give the table (the model's).
    ///   - columns: the rows' columns, at least one.
    ///   - rows: the rows, each with one value per column.
    init(derived name: String, columns: [TableColumn], rows: [[DatabaseValue]]) {
        self.name = name
        self.columns = columns
        hasDatabaseDefaults = columns.contains { $0.databaseDefault != nil }
        positions = Self.positions(of: columns)
        primaryKey = nil
        foreignKeys = []
        slots = rows
        liveCount = rows.count
    }

    /// A table made by ``init(derived:columns:rows:)`` (or this) under another name, with other rows: its columns
    /// and their positions kept, not hashed again.
    init(renaming other: MemoryTable, as name: String, rows: [[DatabaseValue]]) {
        self.name = name
        columns = other.columns
        hasDatabaseDefaults = other.hasDatabaseDefaults
        positions = other.positions
        primaryKey = nil
        foreignKeys = []
        slots = rows
        liveCount = rows.count
    }

    /// Replaces the rows of a table made by ``init(derived:columns:rows:)`` (a recursive walk's next level), keeping
    /// its columns and their positions.
    mutating func replaceDerivedRows(_ rows: [[DatabaseValue]]) {
        slots = rows
        liveCount = rows.count
        searchIndexes = []
        insertPlan = nil
    }

    /// The position of a column.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)``.
    func position(of column: String) throws(StrataError) -> Int {
        guard let p = positions[column] else { throw .unknownColumn(model: name, column: column) }
        return p
    }

    /// The position of a column, trying `hint` first: comparing one name costs less than hashing it.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)``.
    @inline(__always)
    func position(of column: String, near hint: Int) throws(StrataError) -> Int {
        if hint < columns.count && columns[hint].name == column { return hint }
        if hint == primaryKey && hint + 1 < columns.count && columns[hint + 1].name == column { return hint + 1 }
        return try position(of: column)
    }

    /// The row in a slot, nil when it was deleted.
    @inline(__always)
    func row(at slot: Int) -> [DatabaseValue]? { slots[slot].isEmpty ? nil : slots[slot] }

    /// Whether a slot holds a row.
    @inline(__always)
    func isLive(_ slot: Int) -> Bool { !slots[slot].isEmpty }

    // MARK: Constraints

    /// The columns of the first unique constraint `row` would violate, ignoring the row in `slot`
    /// (the row being updated), or nil.
    func conflict(for row: [DatabaseValue], ignoring slot: Int?) -> [String]? {
        if let pk = primaryKey, case .integer(let id) = row[pk], let other = slotByID[id], other != slot {
            return [columns[pk].name]
        }
        // By position: iterating the indexes by value would copy each one (a retain per field).
        for i in indexes.indices where indexes[i].isUnique {
            if let key = IndexKey(row: row, columns: indexes[i].columns), let other = indexes[i].slots[key],
                other != slot
            {
                return indexes[i].columnNames
            }
        }
        return nil
    }

    // MARK: Changing slots

    /// Puts `row` in `slot` (appending when `slot` is one past the end), keeping the primary-key
    /// map and unique indexes in step. Constraints must have been checked (or be known to hold).
    mutating func put(_ row: [DatabaseValue]?, at slot: Int) {
        noteOrdered(row, at: slot)
        if slot == slots.count {
            slots.append([])
        } else if !slots[slot].isEmpty {
            unindex(slots[slot], slot: slot)
            liveCount -= 1
        }
        if let row {
            index(row, slot: slot)
            liveCount += 1
            slots[slot] = row
        } else {
            slots[slot] = []
        }
    }

    /// Undoes one change of a slot: puts back what it held, and drops a trailing empty slot that an
    /// undone insert leaves, so the table ends exactly as it was.
    mutating func restore(_ previous: [DatabaseValue]?, at slot: Int) {
        put(previous, at: slot)
        if previous == nil && slot == slots.count - 1 { slots.removeLast() }
    }

    /// Undoes appends: removes the slots from `count` on, newest first.
    mutating func truncate(to count: Int) {
        while slots.count > count { restore(nil, at: slots.count - 1) }
    }

    private mutating func index(_ row: [DatabaseValue], slot: Int) {
        if let pk = primaryKey, case .integer(let id) = row[pk] { slotByID[id] = slot }
        for i in searchIndexes.indices { searchIndexes[i].add(row, slot: slot) }
        for i in indexes.indices where indexes[i].isUnique {
            if let key = IndexKey(row: row, columns: indexes[i].columns) { indexes[i].slots[key] = slot }
        }
    }

    /// Tells the ordered entries built so far that `slot` is about to hold `row`; drops those that
    /// have seen so many changes that a rebuild is cheaper than their extra candidates.
    private mutating func noteOrdered(_ row: [DatabaseValue]?, at slot: Int) {
        for i in indexes.indices where indexes[i].ordered != nil {
            let c = indexes[i].columns[0]
            let before: DatabaseValue? = slot < slots.count && !slots[slot].isEmpty ? slots[slot][c] : nil
            let after = row?[c]
            if let before, let after, !before.isNull, !after.isNull, ValueOrder.equal(before, after) { continue }
            indexes[i].ordered?.noteWrite(slot: slot, before: before, after: after)
            if indexes[i].ordered?.isWorthKeeping == false { indexes[i].ordered = nil }
        }
        for i in pathIndexes.indices where pathIndexes[i].ordered != nil {
            let before: DatabaseValue? =
                slot < slots.count && !slots[slot].isEmpty ? pathIndexes[i].value(slots[slot]) : nil
            let after = row.map { pathIndexes[i].value($0) }
            if let before, let after, !before.isNull, !after.isNull, ValueOrder.equal(before, after) { continue }
            pathIndexes[i].ordered?.noteWrite(slot: slot, before: before, after: after)
            if pathIndexes[i].ordered?.isWorthKeeping == false { pathIndexes[i].ordered = nil }
        }
    }

    private mutating func unindex(_ row: [DatabaseValue], slot: Int) {
        if let pk = primaryKey, case .integer(let id) = row[pk], slotByID[id] == slot { slotByID[id] = nil }
        for i in searchIndexes.indices { searchIndexes[i].remove(row, slot: slot) }
        for i in indexes.indices where indexes[i].isUnique {
            if let key = IndexKey(row: row, columns: indexes[i].columns), indexes[i].slots[key] == slot {
                indexes[i].slots[key] = nil
            }
        }
    }

    /// Whether ``compact()`` would drop empty slots: they outnumber the rows (and are more than 32).
    var wantsCompaction: Bool {
        let empty = slots.count - liveCount
        return empty > 32 && empty > liveCount
    }

    /// Drops empty slots once they outnumber the rows. Only when no undo journal refers to slots.
    mutating func compact() {
        guard wantsCompaction else { return }
        let rows = slots.filter { !$0.isEmpty }
        slots = []
        slots.reserveCapacity(rows.count)
        liveCount = 0
        slotByID.removeAll()
        for i in indexes.indices {
            indexes[i].slots.removeAll(keepingCapacity: true)
            indexes[i].ordered = nil  // slot numbers change
        }
        for i in pathIndexes.indices { pathIndexes[i].ordered = nil }
        for i in searchIndexes.indices { searchIndexes[i].removeAll() }
        for row in rows { put(row, at: slots.count) }
    }

    /// Deletes every row, keeping the columns, the indexes (emptied) and the id counter.
    mutating func removeAllRows() {
        slots = []
        liveCount = 0
        slotByID = SlotMap()
        for i in indexes.indices {
            indexes[i].slots = [:]
            indexes[i].ordered = nil
        }
        for i in pathIndexes.indices { pathIndexes[i].ordered = nil }
        for i in searchIndexes.indices { searchIndexes[i].removeAll() }
    }

    // MARK: Schema changes

    /// Appends a column, filling every row with `fill` (already normalized and checked).
    mutating func addColumn(_ column: TableColumn, fill: DatabaseValue) {
        insertPlan = nil
        positions[column.name] = columns.count
        columns.append(column)
        if column.databaseDefault != nil { hasDatabaseDefaults = true }
        for slot in slots.indices where !slots[slot].isEmpty {
            slots[slot].append(fill)
        }
    }

    /// Adds an index; a unique one is built over the existing rows first.
    ///
    /// - Throws: ``StrataError/uniqueViolation(table:columns:)`` when existing rows collide; the table is unchanged.
    mutating func addIndex(name indexName: String, columns names: [String], unique: Bool) throws(StrataError) {
        var columnPositions: [Int] = []
        for c in names { columnPositions.append(try position(of: c)) }
        var index = MemoryIndex(name: indexName, columnNames: names, columns: columnPositions, isUnique: unique)
        if unique {
            for (slot, row) in slots.enumerated() where !row.isEmpty {
                guard let key = IndexKey(row: row, columns: columnPositions) else { continue }
                if index.slots.updateValue(slot, forKey: key) != nil {
                    throw .uniqueViolation(table: name, columns: names)
                }
            }
        }
        indexes.append(index)
    }

    /// Adds an index on the value at `path` in JSON column `column`, unless the table has one of that name or on
    /// the same path; its entries are built by the first query that can use them.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)``.
    mutating func addPathIndex(name indexName: String, column: String, path: JSONPath) throws(StrataError) {
        let c = try position(of: column)
        guard columns[c].type == .json,
            !pathIndexes.contains(where: { $0.name == indexName || ($0.column == c && $0.path == path) })
        else { return }
        pathIndexes.append(MemoryPathIndex(name: indexName, column: c, path: path))
    }

    /// Builds the ordered entries of the path index at position `i` of ``pathIndexes``.
    mutating func buildPathEntries(ofIndex i: Int) {
        pathIndexes[i].ordered = pathIndexes[i].entries(slots)
    }

    /// Builds the inverted index of text column `c`, unless it has one (see ``MemorySearchIndex``).
    mutating func addSearchIndex(column c: Int) {
        guard columns[c].type == .text, !searchIndexes.contains(where: { $0.column == c }) else { return }
        searchIndexes.append(MemorySearchIndex(column: c, rows: slots))
    }

    /// Builds the ordered entries of the index at position `i` of ``indexes``.
    mutating func buildOrderedEntries(ofIndex i: Int) {
        indexes[i].ordered = OrderedEntries(column: indexes[i].columns[0], rows: slots)
    }

    /// Whether the table has an index of this name.
    func hasIndex(named indexName: String) -> Bool { indexes.contains { $0.name == indexName } }

    /// Whether a live row has `value` in `column` (`=` semantics; the caller passes a non-NULL value).
    func contains(_ value: DatabaseValue, in column: Int) -> Bool {
        if column == primaryKey, case .integer(let id) = value { return slotByID[id] != nil }
        if Self.sameKind(value, columns[column].type),
            case .some(let slot) = lookup(column: column, key: IndexKey(value))
        {
            return slot != nil
        }
        for slot in slots.indices where !slots[slot].isEmpty && ValueOrder.equal(slots[slot][column], value) {
            return true
        }
        return false
    }

    /// Whether a row holds `values` in `columns` (a composite foreign key's referenced columns), by SQL equality:
    /// looked up in a unique index on exactly those columns (the composite key's) when the values are of the columns'
    /// kinds, else by a scan.
    func contains(_ values: [DatabaseValue], in columns: [Int]) -> Bool {
        if values.count == 1, let c = columns.first { return contains(values[0], in: c) }
        if zip(values, columns).allSatisfy({ Self.sameKind($0, self.columns[$1].type) }),
            let index = indexes.first(where: { $0.isUnique && Set($0.columns) == Set(columns) }),
            index.columns.count == columns.count
        {
            // The index's column order may differ from the key's: its key lists the values in the index's order.
            let ordered = index.columns.compactMap { c in columns.firstIndex(of: c).map { values[$0] } }
            if let key = IndexKey(row: ordered, columns: Array(ordered.indices)) { return index.slots[key] != nil }
        }
        for slot in slots.indices where !slots[slot].isEmpty {
            if zip(columns, values).allSatisfy({ ValueOrder.equal(slots[slot][$0], $1) }) { return true }
        }
        return false
    }

    /// The slot holding the row whose unique single column `column` equals `key`, if such an index exists.
    ///
    /// - Returns: nil when no unique index covers exactly that column; `.some(nil)` when none matches.
    func lookup(column: Int, key: IndexKey) -> Int?? {
        for i in indexes.indices
        where indexes[i].isUnique && indexes[i].columns.count == 1 && indexes[i].columns[0] == column {
            return .some(indexes[i].slots[key])
        }
        return nil
    }
}
