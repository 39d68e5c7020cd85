// ColumnScope: which tables a statement's rows span, and where each column sits in a (joined) row.
import Strata

/// The tables whose columns a condition, an ORDER BY or a selection may name: the main table and,
/// in a SELECT with joins, each joined table by its alias. A joined row is the main row followed by
/// each joined table's row, so a column's position is its table's offset plus its own position.
struct ColumnScope {
    /// What the scope needs of a table (not the table itself, whose copy would retain all its storage).
    private struct Part {
        let name: String
        let alias: String
        let positions: [String: Int]
        let columns: [TableColumn]
        let offset: Int

        init(_ table: MemoryTable, alias: String, offset: Int) {
            name = table.name
            self.alias = alias
            positions = table.positions
            columns = table.columns
            self.offset = offset
        }

        func position(of column: String) throws(StrataError) -> Int {
            guard let p = positions[column] else { throw .unknownColumn(model: name, column: column) }
            return offset + p
        }
    }

    private let main: Part
    private var joined: [Part] = []
    /// The number of columns in a row of the scope.
    private(set) var width: Int

    /// The scope of a statement on one table.
    init(_ table: MemoryTable) {
        main = Part(table, alias: table.name, offset: 0)
        width = table.columns.count
    }

    /// Adds a joined table under `alias`, after the columns already in scope (the core has refused an alias that
    /// is the main table's name or another join's: `StatementCheck`).
    mutating func join(_ table: MemoryTable, as alias: String) throws(StrataError) {
        joined.append(Part(table, alias: alias, offset: width))
        width += table.columns.count
    }

    /// The position of a main-table column.
    func position(of column: String) throws(StrataError) -> Int { try main.position(of: column) }

    /// The positions of main-table columns, or nil when they are every column of the scope's rows
    /// in order (the usual SELECT of a whole model). Names are first compared with the column at the
    /// position they would have in that case, which costs less than hashing them.
    func positions(of names: [String]) throws(StrataError) -> [Int]? {
        var positions: [Int] = []
        var identity = names.count == width
        for (k, name) in names.enumerated() {
            if identity, k < main.columns.count, main.columns[k].name == name { continue }
            if identity {
                identity = false
                positions.reserveCapacity(names.count)
                positions.append(contentsOf: 0..<k)
            }
            positions.append(try main.position(of: name))
        }
        return identity ? nil : positions
    }

    /// The position of a column of the table `alias` (nil or the main table's name: the main table). An alias out
    /// of scope was refused before any driver (`StatementCheck`); here it is a column nobody has.
    func position(of column: String, in alias: String?) throws(StrataError) -> Int {
        guard let alias else { return try main.position(of: column) }
        if let part = joined.last(where: { $0.alias == alias }) { return try part.position(of: column) }
        if alias == main.name { return try main.position(of: column) }
        throw .unknownColumn(model: alias, column: column)
    }

    /// The table and the column at a position of the scope's rows, or nil past them.
    private func column(at position: Int) -> (table: String, column: TableColumn)? {
        if position < main.columns.count { return (main.name, main.columns[position]) }
        for part in joined where position >= part.offset && position < part.offset + part.columns.count {
            return (part.name, part.columns[position - part.offset])
        }
        return nil
    }

    /// The table and column name at `position`.
    func names(at position: Int) -> (table: String, column: String) {
        column(at: position).map { ($0.table, $0.column.name) } ?? (main.name, "?")
    }

    /// The type of the column at a position of the scope's rows.
    func type(at position: Int) -> ColumnType {
        column(at: position)?.column.type ?? .text
    }
}
