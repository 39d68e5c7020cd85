// StoreState+Upsert: INSERT … ON CONFLICT (target) DO NOTHING / DO UPDATE, evaluated row by row as SQL does.
import Strata

extension StoreState {
    /// Inserts each row, or, when its target columns (none NULL) match a stored row through the unique index on
    /// exactly those columns, keeps that row (`DO NOTHING`) or updates it (`DO UPDATE`). A row conflicts with rows
    /// stored before the statement and with those it inserted earlier, as on SQLite and PostgreSQL. `RETURNING`
    /// hands back inserted and updated rows in order, never a kept one; the count is of those rows too.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` when no unique index covers exactly the target (SQLite and
    ///   PostgreSQL refuse it too); the constraint errors of an INSERT or UPDATE; ``StrataError/arithmeticError(expression:reason:)``
    ///   when an incremented column would pass `Int64.max`.
    mutating func upsert(_ i: Insert, _ onConflict: OnConflict) throws(StrataError) -> Outcome {
        var written: [[DatabaseValue]] = []
        var replaced: [[DatabaseValue]] = []
        let referenced = !references(to: i.table).isEmpty
        let outcome = try changing(i.table) { table, journal throws(StrataError) in
            let plan = try InsertPlan(i.columns, table: table)
            let generated = try table.generatedAssignments()
            let targetIndex = try Self.uniqueIndex(covering: onConflict.target, in: table)
            var setPositions: [Int] = []
            var incrementPositions: [Int] = []
            if case .update(let set, let increment) = onConflict.action {
                for c in set {
                    let p = try table.position(of: c)
                    if table.columns[p].isGenerated { throw table.generatedWrite(p) }
                    setPositions.append(p)
                }
                for c in increment { incrementPositions.append(try table.position(of: c)) }
            }
            let returned = try i.returning.map { r throws(StrataError) in try table.position(of: r) }
            if let error = plan.defaultsError { throw error }
            var returnedValues: [DatabaseValue] = []
            var changes = 0
            for values in i.rows {
                var row: [DatabaseValue] = []
                row.reserveCapacity(table.columns.count)
                for p in 0..<table.columns.count {
                    let k = plan.given[p]
                    if k < 0 || (p == table.primaryKey && values[k].isNull) {
                        row.append(plan.defaults?[p] ?? .null)
                    } else {
                        row.append(try table.columns[p].storedValue(values[k], table: table.name))
                    }
                }
                if let slot = Self.conflictingSlot(row, index: targetIndex, in: table), let old = table.row(at: slot) {
                    guard case .update = onConflict.action else { continue }
                    var new = old
                    for p in setPositions { new[p] = row[p] }
                    for p in incrementPositions {
                        guard case .integer(let v) = old[p] else { continue }  // NULL + 1 is NULL
                        let (sum, overflow) = v.addingReportingOverflow(1)
                        if overflow {
                            throw .arithmeticError(
                                expression: "\(table.name).\(table.columns[p].name) + 1", reason: "integer overflow")
                        }
                        new[p] = .integer(sum)
                    }
                    for g in generated { new[g.position] = try g.stored(from: new, in: table) }
                    for p in setPositions where new[p].isNull && !table.columns[p].isNullable {
                        throw .notNullViolation(table: table.name, column: table.columns[p].name)
                    }
                    if let columns = table.conflict(for: new, ignoring: slot) {
                        throw .uniqueViolation(table: table.name, columns: columns)
                    }
                    journal.append(.slot(table: table.name, slot: slot, previous: old))
                    table.put(new, at: slot)
                    if referenced { replaced.append(old) }
                    if !table.foreignKeys.isEmpty { written.append(new) }
                    if let returned { returnedValues.append(new[returned]) }
                    changes += 1
                    continue
                }
                var newID: Int64?
                if let pk = table.primaryKey {
                    if case .integer(let explicit) = row[pk] {
                        newID = explicit
                    } else {
                        guard table.lastID < Int64.max else {
                            throw .database(code: 13, message: "no more ids for \(table.name)")
                        }
                        newID = table.lastID + 1
                        row[pk] = .integer(table.lastID + 1)
                    }
                }
                for g in generated { row[g.position] = try g.stored(from: row, in: table) }
                if let columns = table.conflict(for: row, ignoring: nil) {
                    throw .uniqueViolation(table: table.name, columns: columns)
                }
                if let newID, newID > table.lastID {
                    journal.append(.lastID(table: table.name, previous: table.lastID))
                    table.lastID = newID
                }
                journal.append(.appended(table: table.name, from: table.slots.count))
                table.put(row, at: table.slots.count)
                if !table.foreignKeys.isEmpty { written.append(row) }
                if let returned { returnedValues.append(row[returned]) }
                changes += 1
            }
            return Outcome(changes: changes, rows: .values(returnedValues))
        }
        try checkParents(of: written, in: i.table)
        if referenced { try applyReferences(to: i.table, removed: replaced, deleted: false) }
        return outcome
    }

    /// The positions of the unique index whose columns are exactly `target` (in any order), or of the
    /// primary key when `target` names it alone.
    ///
    /// - Throws: ``StrataError/invalidQuery(_:)`` when there is none, ``StrataError/unknownColumn(model:column:)``.
    private static func uniqueIndex(covering target: [String], in table: MemoryTable) throws(StrataError) -> [Int] {
        var positions: [Int] = []
        for c in target { positions.append(try table.position(of: c)) }
        if positions.count == 1, positions[0] == table.primaryKey { return positions }
        let wanted = Set(positions)
        for index in table.indexes
        where index.isUnique && Set(index.columns) == wanted && index.columns.count == positions.count {
            return index.columns
        }
        throw .invalidQuery(
            "ON CONFLICT (\(target.joined(separator: ", "))) matches no unique index of \(table.name)")
    }

    /// The slot of the stored row whose `index` columns equal `row`'s, or nil (also when one of them is NULL).
    private static func conflictingSlot(_ row: [DatabaseValue], index: [Int], in table: MemoryTable) -> Int? {
        if index.count == 1, index[0] == table.primaryKey {
            guard case .integer(let id) = row[index[0]] else { return nil }
            return table.slotByID[id]
        }
        guard let key = IndexKey(row: row, columns: index) else { return nil }
        for i in table.indexes.indices where table.indexes[i].isUnique && table.indexes[i].columns == index {
            return table.indexes[i].slots[key]
        }
        return nil
    }
}
