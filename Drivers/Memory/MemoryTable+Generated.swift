// MemoryTable+Generated: the stored generated columns, computed from each row's other columns as SQL does.
import Strata

extension MemoryTable {
    /// The generated columns' expressions, compiled for one statement; none for most tables.
    ///
    /// - Throws: ``StrataError/unknownColumn(model:column:)`` for an expression naming a missing column.
    func generatedAssignments() throws(StrataError) -> [ComputedAssignment] {
        guard columns.contains(where: { $0.generation != nil }) else { return [] }
        var out: [ComputedAssignment] = []
        for (p, c) in columns.enumerated() {
            guard let g = c.generation else { continue }
            out.append(ComputedAssignment(position: p, value: try ComputedValue(g.node, scope: ColumnScope(self))))
        }
        return out
    }

    /// Computes every stored row's generated columns (after a generated column was added).
    ///
    /// - Throws: what an expression throws on a row (``StrataError/arithmeticError(expression:reason:)``, …).
    mutating func computeGenerated() throws(StrataError) {
        let generated = try generatedAssignments()
        guard !generated.isEmpty else { return }
        for slot in slots.indices {
            guard var values = row(at: slot) else { continue }
            for g in generated { values[g.position] = try g.stored(from: values, in: self) }
            put(values, at: slot)
        }
    }

    /// A write naming the generated column at `position`, which SQL backends refuse too.
    func generatedWrite(_ position: Int) -> StrataError {
        .generatedColumn(
            model: name, column: columns[position].name, reason: "cannot be written: the database computes it")
    }
}
